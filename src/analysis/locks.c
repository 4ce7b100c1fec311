/* Lock waits in the analysis: the sites of category "lock" (the zones of
 * <ludus/locks.h> and LUDUS_PROFILE_LOCK_WAIT, recorded only when a lock was
 * contended) as one entry per lock: wait statistics from the site's
 * inclusive durations, wait per frame from its per-frame cells (the waits
 * begun in each window frame, any thread) and its share of the mean frame;
 * the "Lock waits" sections of the text, JSON and HTML reports; and the
 * diff's comparison of two analyses' locks (Mann-Whitney U over per-frame
 * wait totals), its report lines and its "lock NAME" gates. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

static int is_lock(const ludus_site_stats *s) {
    return s->category && !strcmp(s->category, "lock");
}

/* Wait per window frame of a site, from its cells (out: win_f1 - win_f0 slots). */
static void per_frame(const ludus_analysis *a, uint32_t site, double *out) {
    const ludus__an_site *s = &a->sites[site];
    ludus__cells_per_frame(a, &s->run, 0, out);
}

static int by_total_wait(const void *x, const void *y) {
    const ludus_lock_stats *a = x, *b = y;
    if (a->wait.total_ns != b->wait.total_ns) return a->wait.total_ns > b->wait.total_ns ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->site < b->site ? -1 : a->site > b->site);
}

int ludus__locks_finish(ludus_analysis *a) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (is_lock(&a->sites[i].pub) && a->sites[i].pub.calls) n++;
    a->locks = ludus__calloc(n ? n : 1, sizeof *a->locks);
    if (!a->locks) return -1;
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    double *buf = ludus__malloc((nw ? nw : 1) * sizeof *buf);
    if (!buf) return -1;
    double mean_frame = a->sum.frames_in_window ? a->sum.frame_time.mean_ns : 0;
    for (uint32_t i = 0; i < a->nsites; i++) {
        const ludus_site_stats *s = &a->sites[i].pub;
        if (!is_lock(s) || !s->calls) continue;
        ludus_lock_stats *l = &a->locks[a->nlocks++];
        l->name = s->name;
        l->file = s->file;
        l->line = s->line;
        l->site = i;
        l->wait = s->inclusive;
        l->threads = s->threads;
        if (!nw) continue;
        l->waits_per_frame = s->calls_per_frame;
        per_frame(a, i, buf);
        double total = 0;
        for (uint64_t f = 0; f < nw; f++) {
            total += buf[f];
            if ((int64_t)buf[f] > l->max_frame_wait_ns) l->max_frame_wait_ns = (int64_t)buf[f];
        }
        l->wait_per_frame_ns = total / (double)nw;
        l->share_of_frame = mean_frame > 0 ? l->wait_per_frame_ns / mean_frame : 0;
    }
    ludus__free(buf);
    qsort(a->locks, a->nlocks, sizeof *a->locks, by_total_wait);
    return 0;
}

uint32_t ludus_analysis_lock_count(const ludus_analysis *a) {
    return a ? a->nlocks : 0;
}

const ludus_lock_stats *ludus_analysis_lock(const ludus_analysis *a, uint32_t i) {
    return a && i < a->nlocks ? &a->locks[i] : NULL;
}

int64_t ludus_analysis_find_lock(const ludus_analysis *a, const char *name) {
    if (!a || !name) return -1;
    for (uint32_t i = 0; i < a->nlocks; i++)
        if (!strcmp(a->locks[i].name, name)) return i;
    return -1;
}

/* ---- report sections ---- */

static const char *where(const ludus_lock_stats *l, char *buf, size_t cap) {
    if (!l->file[0])
        snprintf(buf, cap, "named");
    else if (!l->line)
        snprintf(buf, cap, "%s", l->file);
    else
        snprintf(buf, cap, "%s:%u", l->file, l->line);
    return buf;
}

void ludus__report_locks_text(const ludus_analysis *a, ludus__writer *w) {
    if (!a->nlocks) return;
    const ludus_analysis_summary *s = &a->sum;
    char b[7][32], at[300];
    if (s->frames_in_window)
        ludus__w_fmt(w,
                     "\nLock waits (zones of category \"lock\": contended acquisitions only; per frame: waits begun "
                     "in the window's %llu complete frames, any thread;\n\"of frame\" = wait per frame / mean frame "
                     "time, waits of several threads add up)\n",
                     (unsigned long long)s->frames_in_window);
    else
        ludus__w_str(w, "\nLock waits (zones of category \"lock\": contended acquisitions only; no frames: no "
                        "per-frame figures)\n");
    ludus__w_fmt(w, "%-28s %9s %9s %10s %10s %10s %10s %10s %10s %8s %7s  %s\n", "lock", "waits", "waits/fr",
                 "wait total", "wait mean", "wait p50", "wait p99", "wait max", "wait/frame", "of frame", "threads",
                 "where");
    for (uint32_t i = 0; i < a->nlocks; i++) {
        const ludus_lock_stats *l = &a->locks[i];
        char name[64], wpf[32], share[32], shown[400];
        if (s->frames_in_window) {
            snprintf(wpf, sizeof wpf, "%.2f", l->waits_per_frame);
            snprintf(share, sizeof share, "%.2f%%", l->share_of_frame * 100);
        } else {
            snprintf(wpf, sizeof wpf, "-");
            snprintf(share, sizeof share, "-");
        }
        ludus__w_fmt(w, "%-28s %9llu %9s %10s %10s %10s %10s %10s %10s %8s %7u  %s\n",
                     ludus__text_name(name, sizeof name, l->name, 28), (unsigned long long)l->wait.count, wpf,
                     ludus__dur(b[0], 32, (double)l->wait.total_ns), ludus__dur(b[1], 32, l->wait.mean_ns),
                     ludus__dur(b[2], 32, (double)l->wait.p50_ns), ludus__dur(b[3], 32, (double)l->wait.p99_ns),
                     ludus__dur(b[4], 32, (double)l->wait.max_ns),
                     s->frames_in_window ? ludus__dur(b[5], 32, l->wait_per_frame_ns) : "-", share, l->threads,
                     ludus__text_name(shown, sizeof shown, where(l, at, sizeof at), 0));
    }
}

void ludus__report_locks_json(const ludus_analysis *a, ludus__writer *w) {
    ludus__w_str(w, ",\n\"locks\":[");
    for (uint32_t i = 0; i < a->nlocks; i++) {
        const ludus_lock_stats *l = &a->locks[i];
        ludus__w_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        ludus__w_jstr(w, l->name);
        ludus__w_str(w, ",\"file\":");
        ludus__w_jstr(w, l->file);
        ludus__w_fmt(w,
                     ",\"line\":%u,\"site\":%u,\"waits\":%llu,\"waits_per_frame\":%.4f,\"wait_per_frame_ns\":%.1f,"
                     "\"share_of_frame\":%.6f,\"max_frame_wait_ns\":%lld,\"threads\":%u,\"wait\":",
                     l->line, l->site, (unsigned long long)l->wait.count, l->waits_per_frame, l->wait_per_frame_ns,
                     l->share_of_frame, (long long)l->max_frame_wait_ns, l->threads);
        ludus__json_stats(w, &l->wait);
        ludus__w_ch(w, '}');
    }
    ludus__w_ch(w, ']');
}

static const char *pct(char *buf, size_t cap, double r) {
    if (r == HUGE_VAL)
        snprintf(buf, cap, "new");
    else
        snprintf(buf, cap, "%+.1f%%", r * 100);
    return buf;
}

static const char *lock_verdict(uint32_t v) {
    switch (v) {
    case LUDUS_DIFF_MORE_WORK:
        return "more waiting";
    case LUDUS_DIFF_LESS_WORK:
        return "less waiting";
    case LUDUS_DIFF_NEW:
        return "new";
    case LUDUS_DIFF_GONE:
        return "gone";
    default:
        return "no change";
    }
}

void ludus__report_locks_html(const ludus_analysis *a, const ludus_diff *d, ludus__writer *w) {
    const ludus__lock_diff *ld = d ? ludus__diff_locks(d) : NULL;
    uint32_t changed = 0;
    if (ld)
        for (uint32_t i = 0; i < ld->n; i++) changed += ld->v[i].verdict != 0;
    if (!a->nlocks && !changed) return;
    char b[8][32], at[300];
    ludus__w_str(w, "<h2>Lock waits</h2><p class=\"note\">Zones of category &ldquo;lock&rdquo;: only contended "
                    "acquisitions are recorded. Per frame: the waits begun in each of the window's complete frames, "
                    "any thread; &ldquo;of frame&rdquo; = wait per frame / mean frame time (waits of several "
                    "threads add up).</p>\n<table id=\"locks\"><tr><th>lock</th><th>waits</th><th>waits/frame</th>"
                    "<th>wait total</th><th>wait p50</th><th>wait p99</th><th>wait max</th><th>wait/frame</th>"
                    "<th>of frame</th><th>threads</th><th>where</th></tr>\n");
    for (uint32_t i = 0; i < a->nlocks; i++) {
        const ludus_lock_stats *l = &a->locks[i];
        ludus__w_str(w, "<tr><td>");
        ludus__w_html_str(w, l->name, strlen(l->name));
        ludus__w_fmt(w,
                     "</td><td>%llu</td><td>%.2f</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
                     "<td>%.2f%%</td><td>%u</td><td>",
                     (unsigned long long)l->wait.count, l->waits_per_frame,
                     ludus__dur(b[0], 32, (double)l->wait.total_ns), ludus__dur(b[1], 32, (double)l->wait.p50_ns),
                     ludus__dur(b[2], 32, (double)l->wait.p99_ns), ludus__dur(b[3], 32, (double)l->wait.max_ns),
                     ludus__dur(b[4], 32, l->wait_per_frame_ns), l->share_of_frame * 100, l->threads);
        where(l, at, sizeof at);
        ludus__w_html_str(w, at, strlen(at));
        ludus__w_str(w, "</td></tr>\n");
    }
    ludus__w_str(w, "</table>\n");
    if (!changed) return;
    ludus__w_fmt(w,
                 "<h3>Lock waits against BASE</h3><p class=\"note\">Mann-Whitney U on per-frame wait totals, "
                 "significant when p &lt; %.2g.</p>\n<table id=\"difflocks\"><tr><th>lock</th><th>verdict</th>"
                 "<th>wait/frame base</th><th>wait/frame new</th><th>change</th><th>of frame base</th>"
                 "<th>of frame new</th><th>p</th></tr>\n",
                 ld->alpha_per_test);
    for (uint32_t i = 0; i < ld->n; i++) {
        const ludus_lock_diff *l = &ld->v[i];
        if (!l->verdict) continue;
        ludus__w_str(w, "<tr><td>");
        ludus__w_html_str(w, l->name, strlen(l->name));
        ludus__w_fmt(w,
                     "</td><td class=\"%s\">%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.2f%%</td><td>%.2f%%</td>"
                     "<td>%.2g</td></tr>\n",
                     l->verdict == LUDUS_DIFF_LESS_WORK || l->verdict == LUDUS_DIFF_GONE ? "good" : "bad",
                     lock_verdict(l->verdict), ludus__dur(b[5], 32, l->base_wait_per_frame_ns),
                     ludus__dur(b[6], 32, l->new_wait_per_frame_ns), pct(b[7], 32, l->rel), l->base_share * 100,
                     l->new_share * 100, l->p);
    }
    ludus__w_str(w, "</table>\n");
}

/* ---- diff ---- */

static double rel(double base, double now) {
    if (base == 0) return now == 0 ? 0 : HUGE_VAL;
    return now / base - 1.0;
}

/* The lock of S matching site id and name of lock l of T, or NULL. */
static const ludus_lock_stats *match(const ludus_analysis *S, const ludus_analysis *T, const ludus_lock_stats *l) {
    uint32_t id = T->sites[l->site].pub.id;
    for (uint32_t i = 0; i < S->nlocks; i++)
        if (S->sites[S->locks[i].site].pub.id == id && !strcmp(S->locks[i].name, l->name)) return &S->locks[i];
    return NULL;
}

/* Sorted per-frame wait totals of a lock over the window (malloc'd). */
static double *window_waits(const ludus_analysis *a, const ludus_lock_stats *l, size_t *n) {
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    double *x = ludus__malloc((nw ? nw : 1) * sizeof *x);
    *n = 0;
    if (!x) return NULL;
    if (nw) {
        per_frame(a, l->site, x);
        ludus__sort_f64(x, nw);
        *n = nw;
    }
    return x;
}

int ludus__locks_diff(const ludus_analysis *A, const ludus_analysis *B, const ludus_diff_desc *desc,
                      ludus__lock_diff *out) {
    memset(out, 0, sizeof *out);
    out->v = ludus__calloc(A->nlocks + B->nlocks + 1, sizeof *out->v);
    double *zs = ludus__calloc(A->nlocks + B->nlocks + 1, sizeof *zs);
    if (!out->v || !zs) {
        ludus__free(zs);
        return -1;
    }
    for (int side = 0; side < 2; side++) { /* NEW's locks, then BASE's that NEW lacks */
        const ludus_analysis *S = side ? A : B;
        for (uint32_t i = 0; i < S->nlocks; i++) {
            const ludus_lock_stats *l = &S->locks[i];
            const ludus_lock_stats *la = side ? l : match(A, B, l), *lb = side ? match(B, A, l) : l;
            if (side && lb) continue;
            ludus_lock_diff *e = &out->v[out->n++];
            e->name = l->name;
            e->p = 1;
            if (la) {
                e->base_waits = la->wait.count;
                e->base_wait_per_frame_ns = la->wait_per_frame_ns;
                e->base_share = la->share_of_frame;
                e->base_p99_ns = la->wait.p99_ns;
            }
            if (lb) {
                e->new_waits = lb->wait.count;
                e->new_wait_per_frame_ns = lb->wait_per_frame_ns;
                e->new_share = lb->share_of_frame;
                e->new_p99_ns = lb->wait.p99_ns;
            }
            e->rel = rel(e->base_wait_per_frame_ns, e->new_wait_per_frame_ns);
            if (!la || !lb) {
                e->verdict = la ? LUDUS_DIFF_GONE : LUDUS_DIFF_NEW;
                continue;
            }
            out->tests++;
            size_t na, nb;
            double *xa = window_waits(A, la, &na), *xb = window_waits(B, lb, &nb);
            if (!xa || !xb) {
                ludus__free(xa);
                ludus__free(xb);
                ludus__free(zs);
                return -1;
            }
            if (na >= 2 && nb >= 2) e->p = ludus__mw_sorted(xa, na, xb, nb, &zs[out->n - 1]);
            ludus__free(xa);
            ludus__free(xb);
        }
    }
    /* significant (Bonferroni over the locks compared), beyond min_change,
     * and material: at least min_frame_share of BASE's median frame */
    out->alpha_per_test = desc->alpha / (out->tests ? out->tests : 1);
    double floor_ns = desc->min_frame_share * (double)A->sum.median_frame_ns;
    for (uint32_t i = 0; i < out->n; i++) {
        ludus_lock_diff *e = &out->v[i];
        if (e->verdict || !(e->p < out->alpha_per_test)) continue;
        if (fabs(e->new_wait_per_frame_ns - e->base_wait_per_frame_ns) < floor_ns) continue;
        if (zs[i] > 0 && e->rel >= desc->min_change) e->verdict = LUDUS_DIFF_MORE_WORK;
        if (zs[i] < 0 && e->rel <= -desc->min_change) e->verdict = LUDUS_DIFF_LESS_WORK;
    }
    ludus__free(zs);
    return 0;
}

void ludus__locks_diff_free(ludus__lock_diff *l) {
    if (!l) return;
    ludus__free(l->v);
    memset(l, 0, sizeof *l);
}

uint32_t ludus_diff_lock_count(const ludus_diff *d) {
    return d ? ludus__diff_locks(d)->n : 0;
}

const ludus_lock_diff *ludus_diff_lock(const ludus_diff *d, uint32_t i) {
    if (!d) return NULL;
    const ludus__lock_diff *l = ludus__diff_locks(d);
    return i < l->n ? &l->v[i] : NULL;
}

uint32_t ludus__locks_diff_text(const ludus__lock_diff *l, const ludus_diff_desc *desc, ludus__writer *w) {
    uint32_t k = 0;
    char b1[32], b2[32], b3[32], name[64];
    for (uint32_t i = 0; i < l->n; i++) {
        const ludus_lock_diff *e = &l->v[i];
        if (!e->verdict) continue;
        if (k++ == 0)
            ludus__w_fmt(w, "\nLock waits per frame (Mann-Whitney U on per-frame wait totals, p < %g / %u):\n",
                         desc->alpha, l->tests ? l->tests : 1);
        ludus__w_fmt(w,
                     "  %-40s %-12s wait/frame %s -> %s (%s)  of frame %.2f%% -> %.2f%%  waits %llu -> %llu  p %.2g\n",
                     ludus__text_name(name, sizeof name, e->name, 40), lock_verdict(e->verdict),
                     ludus__dur(b1, 32, e->base_wait_per_frame_ns), ludus__dur(b2, 32, e->new_wait_per_frame_ns),
                     pct(b3, 32, e->rel), e->base_share * 100, e->new_share * 100, (unsigned long long)e->base_waits,
                     (unsigned long long)e->new_waits, e->p);
    }
    return k;
}

void ludus__locks_diff_json(const ludus__lock_diff *l, ludus__writer *w) {
    ludus__w_fmt(w, ",\n\"lock_tests\":%u,\"locks\":[", l->tests);
    for (uint32_t i = 0; i < l->n; i++) {
        const ludus_lock_diff *e = &l->v[i];
        ludus__w_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        ludus__w_jstr(w, e->name);
        ludus__w_fmt(w,
                     ",\"verdict\":\"%s\",\"flags\":%u,\"waits\":[%llu,%llu],\"wait_per_frame_ns\":[%.1f,%.1f],"
                     "\"share_of_frame\":[%.6f,%.6f],\"p99_ns\":[%lld,%lld],\"rel\":%.6f,\"p\":%.6g}",
                     lock_verdict(e->verdict), e->verdict, (unsigned long long)e->base_waits,
                     (unsigned long long)e->new_waits, e->base_wait_per_frame_ns, e->new_wait_per_frame_ns,
                     e->base_share, e->new_share, (long long)e->base_p99_ns, (long long)e->new_p99_ns,
                     e->rel == HUGE_VAL ? 1e9 : e->rel, e->p);
    }
    ludus__w_ch(w, ']');
}

uint32_t ludus__locks_check_gates(const ludus__lock_diff *l, const ludus_gate *gates, uint32_t ngates,
                                  ludus_write_fn write, void *ud) {
    uint32_t tripped = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        const ludus_lock_diff *e = &l->v[i];
        if (!(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK))) continue;
        for (uint32_t g = 0; g < ngates; g++) {
            const ludus_gate *gt = &gates[g];
            if (gt->metric != LUDUS_METRIC_LOCK || strcmp(gt->counter, e->name)) continue;
            if (!(gt->greater ? e->rel > gt->rel : e->rel < gt->rel)) continue;
            tripped++;
            if (write) {
                char line[400], name[128];
                int n = snprintf(line, sizeof line, "gate '%s' tripped: lock %s wait per frame %+.1f%% (%s)\n",
                                 gt->text, ludus__text_name(name, sizeof name, e->name, 100),
                                 e->rel == HUGE_VAL ? 1e11 : e->rel * 100, lock_verdict(e->verdict));
                if (n > 0) write(ud, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            }
        }
    }
    return tripped;
}
