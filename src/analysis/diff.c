/* Diff of two analyses: per site and per caller-context path, more or less
 * work (calls per frame) versus slower or faster work (exclusive time per
 * call). Each is a Mann-Whitney U test, two-sided, normal approximation with
 * tie correction: rank based, so one outlier frame or call cannot swing it,
 * and it needs no distribution shape. Work: per-frame call counts over the
 * window frames. Time: per-call durations, taken from the log-linear
 * histograms (values within one bucket, <= 1/128 apart, count as ties) or
 * from the exact durations when both sides kept them. A change is significant
 * when p < alpha / tests (Bonferroni) and the relative change reaches
 * min_change, so large captures do not flag immaterial shifts. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

struct ludus_diff {
    const ludus_analysis *base, *newer;
    ludus_diff_desc desc;
    ludus_diff_entry *e;
    uint32_t n;
    char **names; /* path entries' names */
    uint32_t tests;
    ludus_diff_counter *counters;
    uint32_t ncounters, counter_tests;
    ludus__lock_diff locks; /* locks.c */
};

const ludus__lock_diff *ludus__diff_locks(const ludus_diff *d) {
    return &d->locks;
}

/* ---- Mann-Whitney U ---- */

/* p from U of side B (the NEW side) against A; *z > 0 when B tends larger. */
static double mw_finish(double u, double na, double nb, double ties, double *z) {
    double nn = na + nb;
    *z = 0;
    if (na < 1 || nb < 1) return 1.0;
    double var = na * nb / 12.0 * ((nn + 1) - ties / (nn * (nn - 1)));
    if (!(var > 0)) return 1.0;
    *z = (u - na * nb / 2.0) / sqrt(var);
    return erfc(fabs(*z) / sqrt(2.0));
}

static double mw_hist(const ludus__acc *a, const ludus__acc *b, double *z) {
    double below_a = 0, u = 0, ties = 0;
    for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
        if (!a->h.oct[oct] && !b->h.oct[oct]) continue;
        for (uint32_t s = 0; s < LUDUS__HIST_SUB; s++) {
            double ca = a->h.oct[oct] ? (double)a->h.oct[oct][s] : 0;
            double cb = b->h.oct[oct] ? (double)b->h.oct[oct][s] : 0;
            u += cb * (below_a + ca / 2.0);
            below_a += ca;
            double t = ca + cb;
            ties += t * t * t - t;
        }
    }
    return mw_finish(u, (double)a->n, (double)b->n, ties, z);
}

/* Over two sorted arrays. */
static double mw_sorted(const double *a, size_t na, const double *b, size_t nb, double *z) {
    size_t i = 0, j = 0;
    double u = 0, ties = 0;
    while (i < na || j < nb) {
        double v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
        size_t ca = 0, cb = 0;
        while (i < na && a[i] == v) i++, ca++;
        while (j < nb && b[j] == v) j++, cb++;
        u += (double)cb * ((double)(i - ca) + (double)ca / 2.0);
        double t = (double)(ca + cb);
        ties += t * t * t - t;
    }
    return mw_finish(u, (double)na, (double)nb, ties, z);
}

double ludus__mw_sorted(const double *a, size_t na, const double *b, size_t nb, double *z) {
    return mw_sorted(a, na, b, nb, z);
}

static double mw_exact(const ludus__acc *a, const ludus__acc *b, double *z) {
    double *x = malloc((a->nexact + 1) * sizeof *x), *y = malloc((b->nexact + 1) * sizeof *y);
    double p = 1;
    *z = 0;
    if (x && y) {
        for (size_t i = 0; i < a->nexact; i++) x[i] = (double)a->exact[i];
        for (size_t i = 0; i < b->nexact; i++) y[i] = (double)b->exact[i];
        qsort(x, a->nexact, sizeof *x, ludus__cmp_double);
        qsort(y, b->nexact, sizeof *y, ludus__cmp_double);
        p = mw_sorted(x, a->nexact, y, b->nexact, z);
    }
    free(x);
    free(y);
    return p;
}

static double mw_acc(const ludus_analysis *A, const ludus__acc *a, const ludus_analysis *B, const ludus__acc *b,
                     double *z) {
    if (A->sum.exact && B->sum.exact && a->nexact == a->n && b->nexact == b->n) return mw_exact(a, b, z);
    return mw_hist(a, b, z);
}

/* Per-frame calls of two runs of cells. */
static double mw_calls(const ludus_analysis *A, const ludus__cell *ra, uint32_t na, const ludus_analysis *B,
                       const ludus__cell *rb, uint32_t nb, double *z) {
    uint64_t fa = A->win_f1 - A->win_f0, fb = B->win_f1 - B->win_f0;
    *z = 0;
    if (fa < 2 || fb < 2) return 1.0;
    double *x = malloc(fa * sizeof *x), *y = malloc(fb * sizeof *y);
    double p = 1;
    if (x && y) {
        ludus__cells_per_frame(A, ra, na, 1, x);
        ludus__cells_per_frame(B, rb, nb, 1, y);
        qsort(x, fa, sizeof *x, ludus__cmp_double);
        qsort(y, fb, sizeof *y, ludus__cmp_double);
        p = mw_sorted(x, fa, y, fb, z);
    }
    free(x);
    free(y);
    return p;
}

static double calls_per_frame(const ludus_analysis *a, const ludus__cell *run, uint32_t n) {
    uint64_t nw = a->win_f1 - a->win_f0;
    if (!nw) return 0;
    double c = 0;
    for (uint32_t i = 0; i < n; i++)
        if (run[i].frame >= a->win_f0 && run[i].frame < a->win_f1) c += (double)run[i].calls;
    return c / (double)nw;
}

static double rel(double base, double now) {
    if (base == 0) return now == 0 ? 0 : HUGE_VAL;
    return now / base - 1.0;
}

static void fill_rel(ludus_diff_entry *e) {
    e->rel[LUDUS_METRIC_MEAN] = rel(e->base_excl.mean_ns, e->new_excl.mean_ns);
    e->rel[LUDUS_METRIC_P50] = rel((double)e->base_excl.p50_ns, (double)e->new_excl.p50_ns);
    e->rel[LUDUS_METRIC_P90] = rel((double)e->base_excl.p90_ns, (double)e->new_excl.p90_ns);
    e->rel[LUDUS_METRIC_P99] = rel((double)e->base_excl.p99_ns, (double)e->new_excl.p99_ns);
    e->rel[LUDUS_METRIC_CALLS] = rel(e->base_calls_per_frame, e->new_calls_per_frame);
    e->rel_incl_p50 = rel((double)e->base_incl.p50_ns, (double)e->new_incl.p50_ns);
}

static void verdict(const ludus_diff *d, ludus_diff_entry *e, double zc, double zt, double zi) {
    double alpha = d->desc.alpha / (d->tests ? d->tests : 1), m = d->desc.min_change;
    if (e->base_index < 0) {
        e->verdict = LUDUS_DIFF_NEW;
        return;
    }
    if (e->new_index < 0) {
        e->verdict = LUDUS_DIFF_GONE;
        return;
    }
    double rc = e->rel[LUDUS_METRIC_CALLS];
    if (e->p_calls < alpha && zc > 0 && rc >= m) e->verdict |= LUDUS_DIFF_MORE_WORK;
    if (e->p_calls < alpha && zc < 0 && rc <= -m) e->verdict |= LUDUS_DIFF_LESS_WORK;
    double r50 = e->rel[LUDUS_METRIC_P50], rmean = e->rel[LUDUS_METRIC_MEAN];
    /* Practical significance: what the change costs per frame (or per call). */
    double floor_ns = d->base->sum.median_frame_ns > 0 ? d->desc.min_frame_share * (double)d->base->sum.median_frame_ns
                                                       : d->desc.min_call_ns;
    double per_frame =
        d->base->sum.median_frame_ns > 0
            ? (e->base_calls_per_frame > e->new_calls_per_frame ? e->base_calls_per_frame : e->new_calls_per_frame)
            : 1.0;
    int material = fabs(e->new_excl.mean_ns - e->base_excl.mean_ns) * per_frame >= floor_ns;
    int material_incl = fabs(e->new_incl.mean_ns - e->base_incl.mean_ns) * per_frame >= floor_ns;
    if (material && e->p_time < alpha && zt > 0 && (r50 >= m || rmean >= m)) e->verdict |= LUDUS_DIFF_SLOWER;
    if (material && e->p_time < alpha && zt < 0 && (r50 <= -m || rmean <= -m)) e->verdict |= LUDUS_DIFF_FASTER;
    if (material_incl && !(e->verdict & LUDUS_DIFF_SLOWER) && e->p_incl < alpha && zi > 0 && e->rel_incl_p50 >= m)
        e->verdict |= LUDUS_DIFF_SLOWER_INSIDE;
}

/* ---- counters ---- */

/* A per-frame statistic's values over the window's frames, sorted (malloc'd). */
static double *window_values(const ludus_analysis *a, const ludus__an_counter *k, size_t *n) {
    double *x = malloc((k->n ? k->n : 1) * sizeof *x);
    *n = 0;
    if (!x) return NULL;
    for (size_t j = 0; j < k->n; j++)
        if (k->v[j].frame >= a->win_f0 && k->v[j].frame < a->win_f1) x[(*n)++] = k->v[j].value;
    qsort(x, *n, sizeof *x, ludus__cmp_double);
    return x;
}

static const ludus__an_counter *counter_named(const ludus_analysis *a, const char *name, const char *series) {
    int64_t i = ludus_analysis_find_counter(a, name, series);
    return i < 0 ? NULL : &a->counters[i];
}

static int diff_counters(ludus_diff *d) {
    const ludus_analysis *A = d->base, *B = d->newer;
    d->counters = calloc(A->ncounters + B->ncounters + 1, sizeof *d->counters);
    if (!d->counters) return -1;
    for (int side = 0; side < 2; side++) { /* NEW's tracks, then BASE's that NEW lacks */
        const ludus_analysis *S = side ? A : B;
        for (uint32_t i = 0; i < S->ncounters; i++) {
            const ludus__an_counter *k = &S->counters[i];
            if (!k->series) continue; /* plots: no per-frame values */
            const ludus__an_counter *ka = side ? k : counter_named(A, k->pub.name, k->pub.series),
                                    *kb = side ? counter_named(B, k->pub.name, k->pub.series) : k;
            if (side && kb) continue;
            ludus_diff_counter *c = &d->counters[d->ncounters++];
            c->name = k->pub.name;
            c->series = k->pub.series;
            c->kind = k->pub.kind;
            c->per_frame = k->pub.per_frame;
            c->p = 1;
            if (!ka || !kb) {
                c->verdict = ka ? LUDUS_DIFF_GONE : LUDUS_DIFF_NEW;
                continue;
            }
            c->base_frames = ka->pub.values;
            c->new_frames = kb->pub.values;
            c->base_mean = ka->pub.mean;
            c->new_mean = kb->pub.mean;
            c->base_p99 = ka->pub.p99;
            c->new_p99 = kb->pub.p99;
            c->rel = rel(c->base_mean, c->new_mean);
            d->counter_tests++;
        }
    }
    double alpha = d->desc.alpha / (d->counter_tests ? d->counter_tests : 1);
    for (uint32_t i = 0; i < d->ncounters; i++) {
        ludus_diff_counter *c = &d->counters[i];
        if (c->verdict) continue;
        size_t na, nb;
        double *xa = window_values(A, counter_named(A, c->name, c->series), &na);
        double *xb = window_values(B, counter_named(B, c->name, c->series), &nb);
        if (!xa || !xb) {
            free(xa);
            free(xb);
            return -1;
        }
        double z = 0;
        c->p = mw_sorted(xa, na, xb, nb, &z);
        free(xa);
        free(xb);
        if (c->p < alpha && z > 0 && c->rel >= d->desc.min_change) c->verdict = LUDUS_DIFF_MORE_WORK;
        if (c->p < alpha && z < 0 && c->rel <= -d->desc.min_change) c->verdict = LUDUS_DIFF_LESS_WORK;
    }
    return 0;
}

uint32_t ludus_diff_counter_count(const ludus_diff *d) {
    return d ? d->ncounters : 0;
}

const ludus_diff_counter *ludus_diff_counter_at(const ludus_diff *d, uint32_t i) {
    return d && i < d->ncounters ? &d->counters[i] : NULL;
}

/* "more work" for an amount per frame, "higher" for a level. */
static const char *counter_verdict(const ludus_diff_counter *c) {
    switch (c->verdict) {
    case LUDUS_DIFF_MORE_WORK:
        return c->per_frame ? "more work" : "higher";
    case LUDUS_DIFF_LESS_WORK:
        return c->per_frame ? "less work" : "lower";
    case LUDUS_DIFF_NEW:
        return "new";
    case LUDUS_DIFF_GONE:
        return "gone";
    default:
        return "no change";
    }
}

/* The series a gate's bare counter name means: the owner's first. */
static int gate_names(const ludus_gate *g, const ludus_diff_counter *c) {
    size_t nl = strlen(c->name);
    if (!strncmp(g->counter, c->name, nl) && g->counter[nl] == ' ' && !strcmp(g->counter + nl + 1, c->series)) return 1;
    return !strcmp(g->counter, c->name) &&
           (!strcmp(c->series, "per frame") || !strcmp(c->series, "last") || !strcmp(c->series, "live bytes"));
}

int ludus_diff_create(const ludus_analysis *A, const ludus_analysis *B, const ludus_diff_desc *desc, ludus_diff **out) {
    if (!A || !B || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    *out = NULL;
    ludus_diff *d = calloc(1, sizeof *d);
    uint32_t cap = A->nsites + B->nsites + A->nnodes + B->nnodes + 1;
    if (d) d->e = calloc(cap, sizeof *d->e);
    if (d && d->e) d->names = calloc(cap, sizeof *d->names);
    if (!d || !d->e || !d->names) goto oom;
    d->base = A;
    d->newer = B;
    if (desc) d->desc = *desc;
    if (!(d->desc.alpha > 0)) d->desc.alpha = 0.01;
    if (!(d->desc.min_change > 0)) d->desc.min_change = 0.05;
    if (!(d->desc.min_frame_share > 0)) d->desc.min_frame_share = 0.002;
    if (!(d->desc.min_call_ns > 0)) d->desc.min_call_ns = 1000;
    /* match: sites by id and name; paths by the site ids along them */
    int64_t *bmatch_s = malloc((B->nsites + 1) * sizeof *bmatch_s);
    int64_t *bmatch_p = malloc((B->nnodes + 1) * sizeof *bmatch_p);
    if (!bmatch_s || !bmatch_p) {
        free(bmatch_s);
        free(bmatch_p);
        goto oom;
    }
    for (uint32_t j = 0; j < B->nsites; j++) bmatch_s[j] = -1;
    for (uint32_t j = 0; j < B->nnodes; j++) bmatch_p[j] = -1;
    for (uint32_t i = 0; i < A->nsites; i++) {
        const ludus_site_stats *s = &A->sites[i].pub;
        ludus_diff_entry *e = &d->e[d->n++];
        e->name = s->name;
        e->base_index = i;
        e->new_index = -1;
        for (uint32_t j = 0; j < B->nsites; j++)
            if (bmatch_s[j] < 0 && B->sites[j].pub.id == s->id && !strcmp(B->sites[j].pub.name, s->name)) {
                e->new_index = j;
                bmatch_s[j] = i;
                break;
            }
    }
    for (uint32_t j = 0; j < B->nsites; j++)
        if (bmatch_s[j] < 0) {
            ludus_diff_entry *e = &d->e[d->n++];
            e->name = B->sites[j].pub.name;
            e->base_index = -1;
            e->new_index = j;
        }
    uint32_t first_path = d->n;
    for (uint32_t i = 0; i < A->nnodes; i++) {
        ludus_diff_entry *e = &d->e[d->n++];
        e->is_path = 1;
        e->base_index = i;
        e->new_index = -1;
        for (uint32_t j = 0; j < B->nnodes; j++)
            if (bmatch_p[j] < 0 && B->nodes[j].key == A->nodes[i].key) {
                e->new_index = j;
                bmatch_p[j] = i;
                break;
            }
    }
    for (uint32_t j = 0; j < B->nnodes; j++)
        if (bmatch_p[j] < 0) {
            ludus_diff_entry *e = &d->e[d->n++];
            e->is_path = 1;
            e->base_index = -1;
            e->new_index = j;
        }
    free(bmatch_s);
    free(bmatch_p);
    for (uint32_t k = first_path; k < d->n; k++) {
        ludus_diff_entry *e = &d->e[k];
        char buf[1024];
        if (e->base_index >= 0)
            ludus__path_text(A, (uint32_t)e->base_index, buf, sizeof buf);
        else
            ludus__path_text(B, (uint32_t)e->new_index, buf, sizeof buf);
        d->names[k] = strdup(buf);
        if (!d->names[k]) goto oom;
        e->name = d->names[k];
    }
    for (uint32_t k = 0; k < d->n; k++)
        if (d->e[k].base_index >= 0 && d->e[k].new_index >= 0) d->tests += 3;

    for (uint32_t k = 0; k < d->n; k++) {
        ludus_diff_entry *e = &d->e[k];
        const ludus__acc *ae = NULL, *ai = NULL, *be = NULL, *bi = NULL;
        const ludus__cell *ra = NULL, *rb = NULL;
        uint32_t na = 0, nb = 0;
        if (!e->is_path) {
            if (e->base_index >= 0) {
                const ludus__an_site *s = &A->sites[e->base_index];
                ae = &s->excl, ai = &s->incl, ra = A->site_cells + s->cells_at, na = s->ncells;
            }
            if (e->new_index >= 0) {
                const ludus__an_site *s = &B->sites[e->new_index];
                be = &s->excl, bi = &s->incl, rb = B->site_cells + s->cells_at, nb = s->ncells;
            }
        } else {
            if (e->base_index >= 0) {
                const ludus__an_node *s = &A->nodes[e->base_index];
                ae = &s->excl, ai = &s->incl, ra = A->node_cells + s->cells_at, na = s->ncells;
            }
            if (e->new_index >= 0) {
                const ludus__an_node *s = &B->nodes[e->new_index];
                be = &s->excl, bi = &s->incl, rb = B->node_cells + s->cells_at, nb = s->ncells;
            }
        }
        if (e->base_index >= 0) {
            if (!e->is_path) {
                e->base_excl = A->sites[e->base_index].pub.exclusive;
                e->base_incl = A->sites[e->base_index].pub.inclusive;
            } else {
                e->base_excl = A->nodes[e->base_index].pub.exclusive;
                e->base_incl = A->nodes[e->base_index].pub.inclusive;
            }
            e->base_calls_per_frame = calls_per_frame(A, ra, na);
        }
        if (e->new_index >= 0) {
            if (!e->is_path) {
                e->new_excl = B->sites[e->new_index].pub.exclusive;
                e->new_incl = B->sites[e->new_index].pub.inclusive;
            } else {
                e->new_excl = B->nodes[e->new_index].pub.exclusive;
                e->new_incl = B->nodes[e->new_index].pub.inclusive;
            }
            e->new_calls_per_frame = calls_per_frame(B, rb, nb);
        }
        fill_rel(e);
        double zc = 0, zt = 0, zi = 0;
        e->p_calls = e->p_time = e->p_incl = 1;
        if (ae && be) {
            e->p_calls = mw_calls(A, ra, na, B, rb, nb, &zc);
            e->p_time = mw_acc(A, ae, B, be, &zt);
            e->p_incl = mw_acc(A, ai, B, bi, &zi);
        }
        verdict(d, e, zc, zt, zi);
    }
    if (diff_counters(d) != 0 || ludus__locks_diff(A, B, &d->desc, &d->locks) != 0) goto oom;
    *out = d;
    return 0;
oom:
    ludus_diff_destroy(d);
    return ludus__fail(LUDUS_ENOMEM, "out of memory during the diff");
}

void ludus_diff_destroy(ludus_diff *d) {
    if (!d) return;
    if (d->names)
        for (uint32_t i = 0; i < d->n; i++) free(d->names[i]);
    free(d->names);
    free(d->e);
    free(d->counters);
    ludus__locks_diff_free(&d->locks);
    free(d);
}

uint32_t ludus_diff_count(const ludus_diff *d) {
    return d->n;
}
const ludus_diff_entry *ludus_diff_entry_at(const ludus_diff *d, uint32_t i) {
    return i < d->n ? &d->e[i] : NULL;
}
const ludus_diff_entry *ludus_diff_find(const ludus_diff *d, const char *name, int is_path) {
    for (uint32_t i = 0; i < d->n; i++)
        if (d->e[i].is_path == is_path && !strcmp(d->e[i].name, name)) return &d->e[i];
    return NULL;
}

/* ---- gates ---- */

/* In LUDUS_METRIC_* order; "warnings" and "errors" compare the messages
 * logged per frame (timeline.c). */
static const char *metric_names[] = {"mean", "p50", "p90", "p99", "calls", "counter", "lock", "errors", "warnings"};

int ludus_gate_parse(const char *text, ludus_gate *g) {
    if (!text || !g) return ludus__fail(LUDUS_EINVAL, "gate or its text is NULL");
    memset(g, 0, sizeof *g);
    snprintf(g->text, sizeof g->text, "%s", text);
    const char *p = text;
    while (*p == ' ') p++;
    int m = -1;
    for (int i = 0; i < (int)(sizeof metric_names / sizeof metric_names[0]); i++) {
        size_t l = strlen(metric_names[i]);
        if (!strncmp(p, metric_names[i], l)) {
            m = i;
            p += l;
            break;
        }
    }
    if (m < 0)
        return ludus__fail(LUDUS_EINVAL,
                           "gate '%s': starts with none of p50, p90, p99, mean, calls, counter, lock, errors, warnings",
                           text);
    if (m == LUDUS_METRIC_COUNTER || m == LUDUS_METRIC_LOCK) { /* "counter NAME [SERIES] > ...", "lock NAME > ..." */
        while (*p == ' ') p++;
        const char *op = p + strcspn(p, "<>");
        const char *e = op;
        while (e > p && e[-1] == ' ') e--;
        if (e == p || (size_t)(e - p) >= sizeof g->counter)
            return ludus__fail(LUDUS_EINVAL, "gate '%s': '%s' takes a name (under 64 bytes)", text, metric_names[m]);
        memcpy(g->counter, p, (size_t)(e - p));
        p = op;
    }
    while (*p == ' ') p++;
    if (*p != '>' && *p != '<') return ludus__fail(LUDUS_EINVAL, "gate '%s': no > or < after the metric", text);
    g->greater = *p++ == '>';
    while (*p == ' ') p++;
    char *end;
    double v = strtod(p, &end);
    if (end == p) return ludus__fail(LUDUS_EINVAL, "gate '%s': no threshold (a signed percentage)", text);
    if (!isfinite(v)) return ludus__fail(LUDUS_EINVAL, "gate '%s': the threshold is not a finite number", text);
    p = end;
    while (*p == ' ') p++;
    if (*p == '%') p++;
    while (*p == ' ') p++;
    if (*p) return ludus__fail(LUDUS_EINVAL, "gate '%s': unexpected text after the threshold: '%s'", text, p);
    g->metric = m;
    g->rel = v / 100.0;
    return 0;
}

uint32_t ludus_diff_check_gates(const ludus_diff *d, const ludus_gate *gates, uint32_t ngates, ludus_write_fn write,
                                void *ud) {
    uint32_t tripped = ludus__locks_check_gates(&d->locks, gates, ngates, write, ud);
    tripped += ludus__messages_check_gates(d->base, d->newer, gates, ngates, write, ud);
    for (uint32_t i = 0; i < d->ncounters; i++) {
        const ludus_diff_counter *c = &d->counters[i];
        for (uint32_t g = 0; g < ngates; g++) {
            const ludus_gate *gt = &gates[g];
            if (gt->metric != LUDUS_METRIC_COUNTER || !gate_names(gt, c)) continue;
            if (!(c->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK))) continue;
            if (!(gt->greater ? c->rel > gt->rel : c->rel < gt->rel)) continue;
            tripped++;
            if (write) {
                char line[400];
                int n = snprintf(line, sizeof line, "gate '%s' tripped: counter %s %s mean %+.1f%% (%s)\n", gt->text,
                                 c->name, c->series, c->rel == HUGE_VAL ? 1e11 : c->rel * 100, counter_verdict(c));
                if (n > 0) write(ud, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            }
        }
    }
    for (uint32_t i = 0; i < d->n; i++) {
        const ludus_diff_entry *e = &d->e[i];
        for (uint32_t g = 0; g < ngates; g++) {
            const ludus_gate *gt = &gates[g];
            if (gt->metric >= LUDUS_METRIC_COUNTER) continue; /* counters and locks: above */
            uint32_t need = gt->metric == LUDUS_METRIC_CALLS ? (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK)
                                                             : (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER);
            if (!(e->verdict & need)) continue;
            double r = e->rel[gt->metric];
            if (!(gt->greater ? r > gt->rel : r < gt->rel)) continue;
            tripped++;
            if (write) {
                char line[1400];
                int n = snprintf(line, sizeof line, "gate '%s' tripped: %s %s %s %+.1f%%\n", gt->text,
                                 e->is_path ? "path" : "site", e->name, metric_names[gt->metric], r * 100);
                if (n > 0) write(ud, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            }
        }
    }
    return tripped;
}

/* ---- reports ---- */

static const char *verdict_text(uint32_t v, char *buf, size_t cap) {
    buf[0] = 0;
    size_t n = 0;
    static const struct {
        uint32_t bit;
        const char *t;
    } names[] = {{LUDUS_DIFF_MORE_WORK, "more work"},
                 {LUDUS_DIFF_LESS_WORK, "less work"},
                 {LUDUS_DIFF_SLOWER, "slower work"},
                 {LUDUS_DIFF_FASTER, "faster work"},
                 {LUDUS_DIFF_SLOWER_INSIDE, "slower inside (a child)"},
                 {LUDUS_DIFF_NEW, "new"},
                 {LUDUS_DIFF_GONE, "gone"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (v & names[i].bit) n += (size_t)snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", n ? " + " : "", names[i].t);
    if (!n) snprintf(buf, cap, "no change");
    return buf;
}

static const char *pct(char *buf, size_t cap, double r) {
    if (r == HUGE_VAL)
        snprintf(buf, cap, "new");
    else
        snprintf(buf, cap, "%+.1f%%", r * 100);
    return buf;
}

static void text_line(ludus__writer *w, const ludus_diff_entry *e) {
    char v[128], b1[32], b2[32], b3[32], b4[32], b5[32], b6[32];
    ludus__w_fmt(w,
                 "  %-40.*s %-26s calls/frame %.2f -> %.2f (%s)  excl p50 %s -> %s (%s)  p90 %s  incl p50 %s  p(work) "
                 "%.2g p(time) %.2g\n",
                 e->is_path ? 200 : 40, e->name, verdict_text(e->verdict, v, sizeof v), e->base_calls_per_frame,
                 e->new_calls_per_frame, pct(b1, 32, e->rel[LUDUS_METRIC_CALLS]),
                 ludus__dur(b2, 32, (double)e->base_excl.p50_ns), ludus__dur(b3, 32, (double)e->new_excl.p50_ns),
                 pct(b4, 32, e->rel[LUDUS_METRIC_P50]), pct(b5, 32, e->rel[LUDUS_METRIC_P90]),
                 pct(b6, 32, e->rel_incl_p50), e->p_calls, e->p_time);
}

void ludus__diff_json(const ludus_diff *d, ludus__writer *w) {
    ludus__w_fmt(w,
                 "{\"method\":\"Mann-Whitney U, two-sided, normal approximation with tie correction; work: per-frame "
                 "call counts; time: per-call exclusive durations%s\",\"alpha\":%g,\"tests\":%u,"
                 "\"alpha_per_test\":%g,\"min_change\":%g,\"entries\":[",
                 d->base->sum.exact && d->newer->sum.exact ? " (exact)" : " (histogram bins, <=0.78% apart, are ties)",
                 d->desc.alpha, d->tests, d->desc.alpha / (d->tests ? d->tests : 1), d->desc.min_change);
    char v[128];
    for (uint32_t i = 0; i < d->n; i++) {
        const ludus_diff_entry *e = &d->e[i];
        ludus__w_fmt(w, "%s\n{\"kind\":\"%s\",\"name\":", i ? "," : "", e->is_path ? "path" : "site");
        ludus__w_jstr(w, e->name);
        ludus__w_str(w, ",\"verdict\":");
        ludus__w_jstr(w, verdict_text(e->verdict, v, sizeof v));
        ludus__w_fmt(w, ",\"flags\":%u,\"base_index\":%lld,\"new_index\":%lld,\"calls_per_frame\":[%.4f,%.4f],",
                     e->verdict, (long long)e->base_index, (long long)e->new_index, e->base_calls_per_frame,
                     e->new_calls_per_frame);
        ludus__w_str(w, "\"rel\":{");
        for (int m = 0; m < 5; m++)
            ludus__w_fmt(w, "%s\"%s\":%.6f", m ? "," : "", metric_names[m], e->rel[m] == HUGE_VAL ? 1e9 : e->rel[m]);
        ludus__w_fmt(w, ",\"incl_p50\":%.6f},\"p_work\":%.6g,\"p_time\":%.6g,\"p_incl\":%.6g,\"base_excl\":",
                     e->rel_incl_p50 == HUGE_VAL ? 1e9 : e->rel_incl_p50, e->p_calls, e->p_time, e->p_incl);
        ludus__json_stats(w, &e->base_excl);
        ludus__w_str(w, ",\"new_excl\":");
        ludus__json_stats(w, &e->new_excl);
        ludus__w_str(w, ",\"base_incl\":");
        ludus__json_stats(w, &e->base_incl);
        ludus__w_str(w, ",\"new_incl\":");
        ludus__json_stats(w, &e->new_incl);
        ludus__w_ch(w, '}');
    }
    ludus__w_fmt(w, "],\n\"counter_tests\":%u,\"counters\":[", d->counter_tests);
    for (uint32_t i = 0; i < d->ncounters; i++) {
        const ludus_diff_counter *c = &d->counters[i];
        ludus__w_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        ludus__w_jstr(w, c->name);
        ludus__w_fmt(w,
                     ",\"series\":\"%s\",\"kind\":\"%s\",\"verdict\":\"%s\",\"flags\":%u,\"frames\":[%llu,%llu],"
                     "\"mean\":[%.17g,%.17g],\"p99\":[%.17g,%.17g],\"rel\":%.6f,\"p\":%.6g}",
                     c->series, c->kind, counter_verdict(c), c->verdict, (unsigned long long)c->base_frames,
                     (unsigned long long)c->new_frames, c->base_mean, c->new_mean, c->base_p99, c->new_p99,
                     c->rel == HUGE_VAL ? 1e9 : c->rel, c->p);
    }
    ludus__w_ch(w, ']');
    ludus__locks_diff_json(&d->locks, w);
    ludus__messages_diff_json(d->base, d->newer, w);
    ludus__w_ch(w, '}');
}

int ludus_diff_report(const ludus_diff *d, int format, ludus_write_fn write, void *ud) {
    if (!d || !write) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    ludus__writer *w = malloc(sizeof *w);
    if (!w) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__w_init(w, write, ud);
    char b1[32], b2[32], b3[32];
    if (format == LUDUS_REPORT_JSON) {
        ludus__diff_json(d, w);
        ludus__w_ch(w, '\n');
    } else if (format == LUDUS_REPORT_CSV) {
        ludus__w_str(w, "kind,name,verdict,base_calls_per_frame,new_calls_per_frame,rel_calls,base_excl_p50_ns,"
                        "new_excl_p50_ns,rel_mean,rel_p50,rel_p90,rel_p99,rel_incl_p50,p_work,p_time,p_incl\n");
        char v[128];
        for (uint32_t i = 0; i < d->n; i++) {
            const ludus_diff_entry *e = &d->e[i];
            ludus__w_str(w, e->is_path ? "path," : "site,");
            ludus__w_csv(w, e->name);
            ludus__w_ch(w, ',');
            ludus__w_csv(w, verdict_text(e->verdict, v, sizeof v));
            ludus__w_fmt(w, ",%.4f,%.4f,%.6f,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g,%.6g\n",
                         e->base_calls_per_frame, e->new_calls_per_frame, e->rel[LUDUS_METRIC_CALLS],
                         (long long)e->base_excl.p50_ns, (long long)e->new_excl.p50_ns, e->rel[0], e->rel[1], e->rel[2],
                         e->rel[3], e->rel_incl_p50, e->p_calls, e->p_time, e->p_incl);
        }
    } else {
        const ludus_analysis_summary *A = &d->base->sum, *B = &d->newer->sum;
        ludus__w_fmt(w, "Ludus diff: BASE (%llu frames, window %s) vs NEW (%llu frames, window %s)\n",
                     (unsigned long long)A->frames_in_window, A->window, (unsigned long long)B->frames_in_window,
                     B->window);
        if (A->frames_in_window && B->frames_in_window)
            ludus__w_fmt(w, "Frame time p50 %s -> %s (%s)\n", ludus__dur(b1, 32, (double)A->median_frame_ns),
                         ludus__dur(b2, 32, (double)B->median_frame_ns),
                         pct(b3, 32, rel((double)A->median_frame_ns, (double)B->median_frame_ns)));
        if (A->dropped || B->dropped || A->incomplete || B->incomplete)
            ludus__w_fmt(w,
                         "Loss: BASE %llu dropped, %llu incomplete; NEW %llu dropped, %llu incomplete "
                         "(incomplete slices are never durations)\n",
                         (unsigned long long)A->dropped, (unsigned long long)A->incomplete,
                         (unsigned long long)B->dropped, (unsigned long long)B->incomplete);
        ludus__w_fmt(w,
                     "Method: Mann-Whitney U (two-sided) on per-frame call counts (more/less work) and on per-call\n"
                     "exclusive durations (slower/faster work)%s; significant when p < %g / %u tests and the change\n"
                     "is at least %.0f%%. Times are elapsed, not CPU time.\n",
                     A->exact && B->exact ? "" : ", durations binned <= 0.78% apart", d->desc.alpha, d->tests,
                     d->desc.min_change * 100);
        uint32_t shown = 0;
        for (int pass = 0; pass < 2; pass++) {
            uint32_t k = 0;
            for (uint32_t i = 0; i < d->n; i++) {
                const ludus_diff_entry *e = &d->e[i];
                if (e->is_path != pass ||
                    !(e->verdict & (LUDUS_DIFF_CHANGED | LUDUS_DIFF_SLOWER_INSIDE | LUDUS_DIFF_NEW | LUDUS_DIFF_GONE)))
                    continue;
                if (k++ == 0) ludus__w_str(w, pass ? "\nCaller-context paths:\n" : "\nSites:\n");
                text_line(w, e);
                shown++;
            }
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < d->ncounters; i++) {
            const ludus_diff_counter *c = &d->counters[i];
            if (!c->verdict) continue;
            if (k++ == 0)
                ludus__w_fmt(w, "\nCounters per frame (Mann-Whitney U on per-frame values, p < %g / %u):\n",
                             d->desc.alpha, d->counter_tests);
            char name[160];
            snprintf(name, sizeof name, "%s %s", c->name, c->series);
            ludus__w_fmt(w, "  %-40s %-10s mean %.2f -> %.2f (%s)  p99 %.2f -> %.2f  p %.2g\n", name,
                         counter_verdict(c), c->base_mean, c->new_mean, pct(b1, 32, c->rel), c->base_p99, c->new_p99,
                         c->p);
            shown++;
        }
        shown += ludus__locks_diff_text(&d->locks, &d->desc, w);
        shown += ludus__messages_diff_text(d->base, d->newer, w);
        if (!shown) ludus__w_str(w, "\nNo significant change.\n");
    }
    ludus__w_flush(w);
    int failed = w->failed;
    free(w);
    return failed ? ludus__fail(LUDUS_EIO, "the diff report could not be written") : 0;
}
