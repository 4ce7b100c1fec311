/* Diff of two sides (one or several runs each): per site and per
 * caller-context path, more or less work (calls per frame and per second,
 * Mann-Whitney U tests) versus slower or faster work (the Hodges-Lehmann
 * shift of the exclusive time per call, shift.c, whose interval, widened by
 * the runs' disagreement, must lie beyond min_shift). The mean is reported,
 * never decides: preempted calls move it. Counters, locks and messages
 * compare the first run of each side. docs/analysis.md, "diff". */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

struct ludus_diff {
    const ludus_analysis *base, *newer; /* the first run of each side */
    const ludus_analysis **runs[2];     /* BASE's runs, NEW's runs */
    uint32_t nruns[2];
    ludus_diff_info info;
    double z; /* the within-run interval's normal quantile */
    ludus_diff_desc desc;
    ludus_diff_entry *e;
    uint32_t n;
    char **names; /* path entries' names */
    uint32_t tests;
    ludus_diff_counter *counters;
    uint32_t ncounters, counter_tests;
    ludus__lock_diff locks;     /* locks.c */
    struct run_index *index[2]; /* per run of each side */
    double run_z;               /* the normal quantile of run_alpha */
    double *run_t_df;           /* t quantiles of run_alpha by degrees of freedom, filled when first needed */
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
    uint64_t ta[LUDUS__HIST_SUB], tb[LUDUS__HIST_SUB];
    for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
        const uint64_t *oa = ludus__acc_octave(a, oct, ta), *ob = ludus__acc_octave(b, oct, tb);
        if (!oa && !ob) continue;
        for (uint32_t s = 0; s < LUDUS__HIST_SUB; s++) {
            double ca = oa ? (double)oa[s] : 0;
            double cb = ob ? (double)ob[s] : 0;
            u += cb * (below_a + ca / 2.0);
            below_a += ca;
            double t = ca + cb;
            ties += t * t * t - t;
        }
    }
    return mw_finish(u, (double)a->n, (double)b->n, ties, z);
}

/* Over two sorted arrays, each after a block of za (zb) zeros that the
 * arrays do not hold (a per-frame value of a frame without cells). */
static double mw_sorted_z(size_t za, const double *a, size_t na, size_t zb, const double *b, size_t nb, double *z) {
    size_t i = 0, j = 0;
    double u = (double)zb * ((double)za / 2.0), below = (double)za, ties = 0;
    double t0 = (double)(za + zb);
    ties += t0 * t0 * t0 - t0;
    while (i < na || j < nb) {
        double v = i < na && (j >= nb || a[i] <= b[j]) ? a[i] : b[j];
        size_t ca = 0, cb = 0;
        while (i < na && a[i] == v) i++, ca++;
        while (j < nb && b[j] == v) j++, cb++;
        u += (double)cb * (below + (double)ca / 2.0);
        below += (double)ca;
        double t = (double)(ca + cb);
        ties += t * t * t - t;
    }
    return mw_finish(u, (double)(za + na), (double)(zb + nb), ties, z);
}

static double mw_sorted(const double *a, size_t na, const double *b, size_t nb, double *z) {
    return mw_sorted_z(0, a, na, 0, b, nb, z);
}

double ludus__mw_sorted(const double *a, size_t na, const double *b, size_t nb, double *z) {
    return mw_sorted(a, na, b, nb, z);
}

static double mw_exact(const ludus__acc *a, const ludus__acc *b, double *z) {
    double *x = ludus__malloc((a->nexact + 1) * sizeof *x), *y = ludus__malloc((b->nexact + 1) * sizeof *y);
    double p = 1;
    *z = 0;
    if (x && y) {
        for (size_t i = 0; i < a->nexact; i++) x[i] = (double)a->exact[i];
        for (size_t i = 0; i < b->nexact; i++) y[i] = (double)b->exact[i];
        qsort(x, a->nexact, sizeof *x, ludus__cmp_double);
        qsort(y, b->nexact, sizeof *y, ludus__cmp_double);
        p = mw_sorted(x, a->nexact, y, b->nexact, z);
    }
    ludus__free(x);
    ludus__free(y);
    return p;
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

/* A site whose calls per frame correlate this well with the frame's length
 * (within BASE's or NEW's frames) runs on time, not per frame. */
#define TIME_BOUND_R 0.5
/* Frames per chunk of the calls-per-second measure. */
#define RATE_CHUNK 25

/* One run's lookups and window figures, built once per diff: its sites by
 * (id, name) and its paths by key in open-addressing tables (index + 1, in
 * index order along a probe sequence, so the first match is the lowest
 * index), and what every entry's per-frame measures share. */
typedef struct run_index {
    const ludus_analysis *R;
    uint32_t *site, *path;
    uint32_t site_mask, path_mask;
    uint64_t nw, nchunk;     /* window frames; chunks of RATE_CHUNK of them (the last takes the rest) */
    double sy, syy, seconds; /* frame durations (s): sum, sum of squares; chunks' seconds */
    double *chunk_sec;       /* per chunk */
} run_index;

static uint32_t site_key(const ludus_site_stats *s) {
    uint32_t h = 2166136261u ^ s->id;
    for (const char *p = s->name; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static uint32_t path_key(uint64_t key) {
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32);
}

static uint32_t table_cap(uint32_t n) {
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n + 1) cap *= 2;
    return cap;
}

static void index_free(run_index *x) {
    if (!x) return;
    ludus__free(x->site);
    ludus__free(x->path);
    ludus__free(x->chunk_sec);
}

static int index_build(run_index *x, const ludus_analysis *R) {
    memset(x, 0, sizeof *x);
    x->R = R;
    uint32_t sc = table_cap(R->nsites), pc = table_cap(R->nnodes);
    x->site = ludus__calloc(sc, sizeof *x->site);
    x->path = ludus__calloc(pc, sizeof *x->path);
    x->nw = R->win_f1 > R->win_f0 ? R->win_f1 - R->win_f0 : 0;
    x->nchunk = x->nw ? (x->nw / RATE_CHUNK ? x->nw / RATE_CHUNK : 1) : 0;
    x->chunk_sec = ludus__malloc((x->nchunk + 1) * sizeof *x->chunk_sec);
    if (!x->site || !x->path || !x->chunk_sec) return -1;
    x->site_mask = sc - 1;
    x->path_mask = pc - 1;
    for (uint32_t j = 0; j < R->nsites; j++) {
        uint32_t k = site_key(&R->sites[j].pub) & x->site_mask;
        while (x->site[k]) k = (k + 1) & x->site_mask;
        x->site[k] = j + 1;
    }
    for (uint32_t j = 0; j < R->nnodes; j++) {
        uint32_t k = path_key(R->nodes[j].key) & x->path_mask;
        while (x->path[k]) k = (k + 1) & x->path_mask;
        x->path[k] = j + 1;
    }
    for (uint64_t f = 0; f < x->nw; f++) {
        double y = (double)(ludus__frame_end(R, R->win_f0 + f) - ludus__frame_begin(R, R->win_f0 + f)) / 1e9;
        x->sy += y;
        x->syy += y * y;
    }
    for (uint64_t ch = 0; ch < x->nchunk; ch++) {
        uint64_t f0 = ch * RATE_CHUNK, f1 = ch + 1 == x->nchunk ? x->nw : f0 + RATE_CHUNK;
        x->chunk_sec[ch] =
            (double)(ludus__frame_end(R, R->win_f0 + f1 - 1) - ludus__frame_begin(R, R->win_f0 + f0)) / 1e9;
        x->seconds += x->chunk_sec[ch];
    }
    return 0;
}

/* The lowest index of x's run matching site s (id and name) or path key
 * `key`, skipping those taken[] marks (NULL: none); -1 when none. */
static int64_t index_site(const run_index *x, const ludus_site_stats *s, const int64_t *taken) {
    for (uint32_t k = site_key(s) & x->site_mask; x->site[k]; k = (k + 1) & x->site_mask) {
        uint32_t j = x->site[k] - 1;
        const ludus_site_stats *t = &x->R->sites[j].pub;
        if (t->id == s->id && !strcmp(t->name, s->name) && !(taken && taken[j] >= 0)) return j;
    }
    return -1;
}

static int64_t index_path(const run_index *x, uint64_t key, const int64_t *taken) {
    for (uint32_t k = path_key(key) & x->path_mask; x->path[k]; k = (k + 1) & x->path_mask) {
        uint32_t j = x->path[k] - 1;
        if (x->R->nodes[j].key == key && !(taken && taken[j] >= 0)) return j;
    }
    return -1;
}

/* One side of an entry: its runs pooled. Per-frame measures keep only the
 * frames (chunks) that hold calls: the others are zeros, counted, so an
 * entry costs what its cells hold, never the window's length. */
typedef struct side {
    ludus__acc excl, incl; /* every run's calls */
    int exact;             /* every run kept every duration */
    double *calls_nz;      /* calls of each window frame that has some, every run */
    size_t ncalls_nz, nframes;
    double *rate_nz; /* calls per second of each chunk with a rate > 0, every run */
    size_t nrate_nz, nchunks;
    double calls, seconds;
    double sx, sxx, sxy, sy, syy; /* calls per frame against the frame's duration (s) */
    double *median;               /* per run with calls: the median exclusive time (log scale) */
    uint32_t nmedian;
} side;

static void side_free(side *s) {
    ludus__acc_free(&s->excl);
    ludus__acc_free(&s->incl);
    ludus__free(s->calls_nz);
    ludus__free(s->rate_nz);
    ludus__free(s->median);
    memset(s, 0, sizeof *s);
}

/* The entity of run r matching entity i of run 0 (sites by id and name,
 * paths by the ids along them), or -1. */
static int64_t find_in_run(const ludus_diff *d, int sd, uint32_t r, int64_t i, int is_path) {
    if (i < 0 || r == 0) return i;
    const ludus_analysis *R0 = d->runs[sd][0];
    return is_path ? index_path(&d->index[sd][r], R0->nodes[i].key, NULL)
                   : index_site(&d->index[sd][r], &R0->sites[i].pub, NULL);
}

static int side_build(const ludus_diff *d, int sd, int64_t i0, int is_path, side *s) {
    memset(s, 0, sizeof *s);
    s->exact = 1;
    uint32_t nruns = d->nruns[sd];
    const ludus_analysis *const *runs = d->runs[sd];
    size_t cells = 0;
    for (uint32_t r = 0; r < nruns; r++) {
        int64_t j = find_in_run(d, sd, r, i0, is_path);
        if (j >= 0) cells += is_path ? runs[r]->nodes[j].ncells : runs[r]->sites[j].ncells;
    }
    s->calls_nz = ludus__malloc((cells + 1) * sizeof *s->calls_nz);
    s->rate_nz = ludus__malloc((cells + 1) * sizeof *s->rate_nz);
    s->median = ludus__malloc((nruns + 1) * sizeof *s->median);
    if (!s->calls_nz || !s->rate_nz || !s->median) return -1;
    for (uint32_t r = 0; r < nruns; r++) {
        const ludus_analysis *R = runs[r];
        const run_index *x = &d->index[sd][r];
        int64_t j = find_in_run(d, sd, r, i0, is_path);
        const ludus__acc *ex = NULL, *in = NULL;
        const ludus__cell *c = NULL;
        uint32_t nc = 0;
        if (j >= 0 && !is_path) {
            const ludus__an_site *t = &R->sites[j];
            ex = &t->excl, in = &t->incl, nc = t->ncells;
            c = nc ? R->site_cells + t->cells_at : NULL;
        } else if (j >= 0) {
            const ludus__an_node *t = &R->nodes[j];
            ex = &t->excl, in = &t->incl, nc = t->ncells;
            c = nc ? R->node_cells + t->cells_at : NULL; /* no cells: the array may be NULL */
        }
        if (!R->sum.exact) s->exact = 0;
        /* the cells come in frame order: calls per frame, and per chunk of
         * RATE_CHUNK frames (a stall of the machine hits one chunk, not the
         * median of them) */
        uint64_t chunk = UINT64_MAX;
        double chunk_calls = 0;
        for (uint32_t k = 0; k <= nc; k++) {
            int in_win = k < nc && c[k].frame >= R->win_f0 && c[k].frame < R->win_f1;
            uint64_t f = in_win ? c[k].frame - R->win_f0 : 0, ch = in_win ? f / RATE_CHUNK : UINT64_MAX;
            if (in_win && ch >= x->nchunk) ch = x->nchunk - 1;
            if (k < nc && !in_win) continue;
            if (ch != chunk && chunk != UINT64_MAX) {
                double sec = x->chunk_sec[chunk];
                if (sec > 0 && chunk_calls > 0) s->rate_nz[s->nrate_nz++] = chunk_calls / sec;
                chunk_calls = 0;
            }
            if (k == nc) break;
            chunk = ch;
            double calls = (double)c[k].calls,
                   y = (double)(ludus__frame_end(R, c[k].frame) - ludus__frame_begin(R, c[k].frame)) / 1e9;
            chunk_calls += calls;
            s->calls += calls;
            if (calls > 0) s->calls_nz[s->ncalls_nz++] = calls;
            s->sx += calls;
            s->sxx += calls * calls;
            s->sxy += calls * y;
        }
        s->nframes += x->nw;
        s->nchunks += x->nchunk;
        s->seconds += x->seconds;
        s->sy += x->sy;
        s->syy += x->syy;
        if (!ex) continue;
        if (ludus__acc_merge(&s->excl, ex, R->sum.exact) != 0 || ludus__acc_merge(&s->incl, in, R->sum.exact) != 0)
            return -1;
        if (ex->n) {
            ludus__pts p;
            memset(&p, 0, sizeof p);
            if (ludus__pts_add_acc(&p, ex, R->sum.exact) != 0) {
                ludus__pts_free(&p);
                return -1;
            }
            ludus__pts_finish(&p);
            s->median[s->nmedian++] = ludus__pts_median(&p);
            ludus__pts_free(&p);
        }
    }
    return 0;
}

/* Hodges-Lehmann of b against a (log scale), z for the within-run
 * interval: 0, 1 when a side is empty, LUDUS_ENOMEM. */
static int shift_of(const ludus__acc *a, int ea, const ludus__acc *b, int eb, double z, ludus__shift *out) {
    ludus__pts pa, pb;
    memset(&pa, 0, sizeof pa);
    memset(&pb, 0, sizeof pb);
    int exact = ea && eb; /* both sides exact, or both binned: one rule for the pair */
    int rc = ludus__pts_add_acc(&pa, a, exact) || ludus__pts_add_acc(&pb, b, exact) ? LUDUS_ENOMEM : 0;
    if (!rc) {
        ludus__pts_finish(&pa);
        ludus__pts_finish(&pb);
        if (ludus__hl_shift(&pa, &pb, z, out) != 0) rc = 1;
    }
    ludus__pts_free(&pa);
    ludus__pts_free(&pb);
    return rc;
}

/* Widens [lo, hi] around est by the run term b (in quadrature), then log ratio -> relative change. */
static void widen(const ludus__shift *s, double b, double *est, double *lo, double *hi) {
    double dl = s->est - s->lo, dh = s->hi - s->est;
    *est = expm1(s->est);
    *lo = isfinite(dl) ? expm1(s->est - sqrt(dl * dl + b * b)) : -HUGE_VAL;
    *hi = isfinite(dh) ? expm1(s->est + sqrt(dh * dh + b * b)) : HUGE_VAL;
}

/* The run-to-run term of an interval (log scale) from one value per run on
 * each side: t x the SD between runs (pooled over the sides) x sqrt(1/ka +
 * 1/kb); with one run per side the SD is unknown and run_noise is assumed
 * (with the normal quantile). *sd: the measured SD, NAN when unknown. */
static double run_term(ludus_diff *d, const double *a, uint32_t ka, const double *b, uint32_t kb, double *sd) {
    double ss = 0;
    const double *v[2] = {a, b};
    uint32_t k[2] = {ka, kb};
    for (int s = 0; s < 2; s++) {
        double m = 0;
        for (uint32_t r = 0; r < k[s]; r++) m += v[s][r];
        if (k[s]) m /= k[s];
        for (uint32_t r = 0; r < k[s]; r++) ss += (v[s][r] - m) * (v[s][r] - m);
    }
    double scale = sqrt(1.0 / (ka ? ka : 1) + 1.0 / (kb ? kb : 1));
    if (ka + kb >= 3) {
        uint32_t df = ka + kb - 2; /* <= the runs: the quantile of each df is computed once (a bisection) */
        *sd = sqrt(ss / df);
        if (!(d->run_t_df[df] > 0)) d->run_t_df[df] = ludus__t_two_sided(d->desc.run_alpha, (double)df);
        return d->run_t_df[df] * *sd * scale;
    }
    *sd = NAN;
    return d->run_z * log1p(d->desc.run_noise) * scale;
}

/* Pearson correlation of calls per frame with the frame's duration, from
 * the side's sums over n frames (0 when either is constant). */
static double correlation(const side *s) {
    double n = (double)s->nframes;
    if (!(n > 0)) return 0;
    double sxx = s->sxx - s->sx * s->sx / n, syy = s->syy - s->sy * s->sy / n, sxy = s->sxy - s->sx * s->sy / n;
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* The median of `zeros` zeros and the n values of x (sorted here, all > 0),
 * the mean of the middle two when there is an even number. */
static double median_z(size_t zeros, double *x, size_t n) {
    size_t all = zeros + n;
    if (!all) return 0;
    qsort(x, n, sizeof *x, ludus__cmp_double);
    size_t k = all / 2;
    double hi = k < zeros ? 0 : x[k - zeros];
    if (all % 2) return hi;
    double lo = k - 1 < zeros ? 0 : x[k - 1 - zeros];
    return (lo + hi) / 2;
}

static uint32_t work_says(double p, double z, double r, double alpha, double m) {
    if (p < alpha && z > 0 && r >= m) return LUDUS_DIFF_MORE_WORK;
    if (p < alpha && z < 0 && r <= -m) return LUDUS_DIFF_LESS_WORK;
    return 0;
}

/* Mann-Whitney U over nx values (the nnx of x, the rest zeros) against ny
 * (the nny of y, the rest zeros); x and y are sorted here. */
static double mw_values(size_t nx, double *x, size_t nnx, size_t ny, double *y, size_t nny, double *z) {
    *z = 0;
    if (nx < 2 || ny < 2) return 1.0;
    qsort(x, nnx, sizeof *x, ludus__cmp_double);
    qsort(y, nny, sizeof *y, ludus__cmp_double);
    return mw_sorted_z(nx - nnx, x, nnx, ny - nny, y, nny, z);
}

/* Everything of one matched entry: pooled statistics, tests, shifts, verdict. */
static int compare_entry(ludus_diff *d, ludus_diff_entry *e) {
    side a, b;
    memset(&b, 0, sizeof b); /* freed at done even when a's build failed */
    int rc = side_build(d, 0, e->base_index, e->is_path, &a);
    if (!rc) rc = side_build(d, 1, e->new_index, e->is_path, &b);
    if (rc) goto done;
    int exact = a.exact && b.exact;
    ludus__acc_stats(&a.excl, exact, &e->base_excl);
    ludus__acc_stats(&a.incl, exact, &e->base_incl);
    ludus__acc_stats(&b.excl, exact, &e->new_excl);
    ludus__acc_stats(&b.incl, exact, &e->new_incl);
    e->base_calls_per_frame = a.nframes ? a.calls / (double)a.nframes : 0;
    e->new_calls_per_frame = b.nframes ? b.calls / (double)b.nframes : 0;
    e->base_calls_per_s = median_z(a.nchunks - a.nrate_nz, a.rate_nz, a.nrate_nz);
    e->new_calls_per_s = median_z(b.nchunks - b.nrate_nz, b.rate_nz, b.nrate_nz);
    e->rel_calls_per_s = rel(e->base_calls_per_s, e->new_calls_per_s);
    fill_rel(e);
    double alpha = d->info.alpha_per_test;
    double zc, zs, zt = 0, zi = 0;
    e->frame_time_r = fmax(correlation(&a), correlation(&b));
    e->p_calls = mw_values(a.nframes, a.calls_nz, a.ncalls_nz, b.nframes, b.calls_nz, b.ncalls_nz, &zc);
    e->p_calls_per_s = mw_values(a.nchunks, a.rate_nz, a.nrate_nz, b.nchunks, b.rate_nz, b.nrate_nz, &zs);
    e->p_time = e->p_incl = 1;
    if (a.excl.n && b.excl.n) {
        e->p_time = (exact ? mw_exact : mw_hist)(&a.excl, &b.excl, &zt);
        e->p_incl = (exact ? mw_exact : mw_hist)(&a.incl, &b.incl, &zi);
    }
    e->work_per_frame = work_says(e->p_calls, zc, e->rel[LUDUS_METRIC_CALLS], alpha, d->desc.min_change);
    e->work_per_second = work_says(e->p_calls_per_s, zs, e->rel_calls_per_s, alpha, d->desc.min_change);
    /* Both measures agree: the verdict rests on both. Otherwise on the one
     * that fits how the site runs: on time when its calls per frame follow
     * the frame's length on either side (correlation >= TIME_BOUND_R: a
     * worker on a timer), else per frame. */
    e->work_time_bound = e->frame_time_r >= TIME_BOUND_R;
    uint32_t rests = e->work_time_bound ? e->work_per_second : e->work_per_frame;
    if (e->work_per_frame && e->work_per_frame == e->work_per_second)
        e->work_basis = 3;
    else if (rests)
        e->work_basis = e->work_time_bound ? 2 : 1;
    if (e->work_basis) e->verdict |= e->work_basis == 2 ? e->work_per_second : e->work_per_frame;
    /* time: the interval of the robust shift, widened by the runs' disagreement */
    double bterm = run_term(d, a.median, a.nmedian, b.median, b.nmedian, &e->run_sd);
    ludus__shift se, si;
    double z = d->z;
    int sh = a.excl.n && b.excl.n ? shift_of(&a.excl, exact, &b.excl, exact, z, &se) : 1, shi = 1;
    if (sh == 0 && (shi = shift_of(&a.incl, exact, &b.incl, exact, z, &si)) == 0)
        widen(&si, bterm, &e->incl_shift, &e->incl_shift_lo, &e->incl_shift_hi);
    if (sh == LUDUS_ENOMEM || shi == LUDUS_ENOMEM) { /* a verdict on part of the data is no verdict */
        rc = LUDUS_ENOMEM;
        goto done;
    }
    if (sh == 0) {
        widen(&se, bterm, &e->shift, &e->shift_lo, &e->shift_hi);
        /* practical significance: what the estimated change costs per frame (or per call) */
        double floor_ns = d->base->sum.median_frame_ns > 0
                              ? d->desc.min_frame_share * (double)d->base->sum.median_frame_ns
                              : d->desc.min_call_ns;
        double per_frame =
            d->base->sum.median_frame_ns > 0 ? fmax(e->base_calls_per_frame, e->new_calls_per_frame) : 1.0;
        double m = d->desc.min_shift;
        int material = fabs(e->shift) * (double)e->base_excl.p50_ns * per_frame >= floor_ns;
        int material_incl = fabs(e->incl_shift) * (double)e->base_incl.p50_ns * per_frame >= floor_ns;
        if (material && e->shift_lo >= m) e->verdict |= LUDUS_DIFF_SLOWER;
        if (material && e->shift_hi <= -m) e->verdict |= LUDUS_DIFF_FASTER;
        if (material_incl && !(e->verdict & LUDUS_DIFF_SLOWER) && e->incl_shift_lo >= m)
            e->verdict |= LUDUS_DIFF_SLOWER_INSIDE;
    } else {
        e->shift_lo = -HUGE_VAL;
        e->shift_hi = HUGE_VAL;
        e->incl_shift_lo = -HUGE_VAL;
        e->incl_shift_hi = HUGE_VAL;
    }
done:
    side_free(&a);
    side_free(&b);
    return rc;
}

/* ---- counters ---- */

/* A per-frame statistic's values over the window's frames, sorted (malloc'd). */
static double *window_values(const ludus_analysis *a, const ludus__an_counter *k, size_t *n) {
    double *x = ludus__malloc((k->n ? k->n : 1) * sizeof *x);
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
    d->counters = ludus__calloc(A->ncounters + B->ncounters + 1, sizeof *d->counters);
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
            ludus__free(xa);
            ludus__free(xb);
            return -1;
        }
        double z = 0;
        c->p = mw_sorted(xa, na, xb, nb, &z);
        ludus__free(xa);
        ludus__free(xb);
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

/* "Slower inside" says a child got slower: it stands only where a path below
 * the entry changed (slower work, more work, or new). An inclusive time that
 * grew with no such child grew by waiting or preemption inside the scope,
 * which a loaded machine adds to every long scope. Below: in the path tree
 * of either side (for a site: the site encloses such a path). Each changed
 * path marks its ancestors, stopping at one already marked: linear. */
static int explain_inside(ludus_diff *d) {
    const uint32_t cause = LUDUS_DIFF_SLOWER | LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_NEW;
    const ludus_analysis *T[2] = {d->base, d->newer};
    uint8_t *below[2], *site_above[2];
    int rc = 0;
    for (int sd = 0; sd < 2; sd++) {
        below[sd] = ludus__calloc(T[sd]->nnodes + 1, 1);
        site_above[sd] = ludus__calloc(T[sd]->nsites + 1, 1);
        if (!below[sd] || !site_above[sd]) rc = -1;
    }
    for (uint32_t k = 0; k < d->n && rc == 0; k++) {
        const ludus_diff_entry *e = &d->e[k];
        if (!e->is_path || !(e->verdict & cause)) continue;
        int sd = e->base_index >= 0 ? 0 : 1;
        int64_t node = sd ? e->new_index : e->base_index;
        for (uint32_t x = T[sd]->nodes[node].pub.parent; x != UINT32_MAX && !below[sd][x];
             x = T[sd]->nodes[x].pub.parent) {
            below[sd][x] = 1;
            site_above[sd][T[sd]->nodes[x].pub.site] = 1;
        }
    }
    for (uint32_t i = 0; i < d->n && rc == 0; i++) {
        ludus_diff_entry *e = &d->e[i];
        if (!(e->verdict & LUDUS_DIFF_SLOWER_INSIDE)) continue;
        uint8_t *const *m = e->is_path ? below : site_above;
        int found = (e->base_index >= 0 && m[0][e->base_index]) || (e->new_index >= 0 && m[1][e->new_index]);
        if (!found) e->verdict &= ~LUDUS_DIFF_SLOWER_INSIDE;
    }
    for (int sd = 0; sd < 2; sd++) {
        ludus__free(below[sd]);
        ludus__free(site_above[sd]);
    }
    return rc;
}

int ludus_diff_create(const ludus_analysis *A, const ludus_analysis *B, const ludus_diff_desc *desc, ludus_diff **out) {
    return ludus_diff_create_runs(&A, 1, &B, 1, desc, out);
}

int ludus_diff_create_runs(const ludus_analysis *const *base, uint32_t nbase, const ludus_analysis *const *newer,
                           uint32_t nnewer, const ludus_diff_desc *desc, ludus_diff **out) {
    if (!out || !base || !newer || !nbase || !nnewer) return ludus__fail(LUDUS_EINVAL, "NULL argument or no runs");
    *out = NULL;
    for (uint32_t r = 0; r < nbase; r++)
        if (!base[r]) return ludus__fail(LUDUS_EINVAL, "NULL analysis");
    for (uint32_t r = 0; r < nnewer; r++)
        if (!newer[r]) return ludus__fail(LUDUS_EINVAL, "NULL analysis");
    const ludus_analysis *A = base[0], *B = newer[0];
    ludus_diff *d = ludus__calloc(1, sizeof *d);
    uint32_t cap = A->nsites + B->nsites + A->nnodes + B->nnodes + 1;
    if (d) d->e = ludus__calloc(cap, sizeof *d->e);
    if (d && d->e) d->names = ludus__calloc(cap, sizeof *d->names);
    if (!d || !d->e || !d->names) goto oom;
    d->base = A;
    d->newer = B;
    d->runs[0] = ludus__malloc(nbase * sizeof *d->runs[0]);
    d->runs[1] = ludus__malloc(nnewer * sizeof *d->runs[1]);
    if (!d->runs[0] || !d->runs[1]) goto oom;
    memcpy(d->runs[0], base, nbase * sizeof *base);
    memcpy(d->runs[1], newer, nnewer * sizeof *newer);
    d->nruns[0] = nbase;
    d->nruns[1] = nnewer;
    if (desc) d->desc = *desc;
    if (!(d->desc.alpha > 0)) d->desc.alpha = 0.01;
    if (!(d->desc.min_change > 0)) d->desc.min_change = 0.05;
    if (!(d->desc.min_frame_share > 0)) d->desc.min_frame_share = 0.002;
    if (!(d->desc.min_call_ns > 0)) d->desc.min_call_ns = 1000;
    if (!(d->desc.min_shift > 0)) d->desc.min_shift = 0.02;
    if (!(d->desc.run_alpha > 0 && d->desc.run_alpha < 1)) d->desc.run_alpha = 0.05;
    if (!(d->desc.run_noise > 0)) d->desc.run_noise = 0.01;
    /* the runs' lookups; match: sites by id and name; paths by the site ids along them */
    for (int sd = 0; sd < 2; sd++) {
        d->index[sd] = ludus__calloc(d->nruns[sd], sizeof *d->index[sd]);
        if (!d->index[sd]) goto oom;
        for (uint32_t r = 0; r < d->nruns[sd]; r++)
            if (index_build(&d->index[sd][r], d->runs[sd][r]) != 0) goto oom;
    }
    int64_t *bmatch_s = ludus__malloc((B->nsites + 1) * sizeof *bmatch_s);
    int64_t *bmatch_p = ludus__malloc((B->nnodes + 1) * sizeof *bmatch_p);
    if (!bmatch_s || !bmatch_p) {
        ludus__free(bmatch_s);
        ludus__free(bmatch_p);
        goto oom;
    }
    for (uint32_t j = 0; j < B->nsites; j++) bmatch_s[j] = -1;
    for (uint32_t j = 0; j < B->nnodes; j++) bmatch_p[j] = -1;
    for (uint32_t i = 0; i < A->nsites; i++) {
        const ludus_site_stats *s = &A->sites[i].pub;
        ludus_diff_entry *e = &d->e[d->n++];
        e->name = s->name;
        e->base_index = i;
        e->new_index = index_site(&d->index[1][0], s, bmatch_s);
        if (e->new_index >= 0) bmatch_s[e->new_index] = i;
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
        e->new_index = index_path(&d->index[1][0], A->nodes[i].key, bmatch_p);
        if (e->new_index >= 0) bmatch_p[e->new_index] = i;
    }
    for (uint32_t j = 0; j < B->nnodes; j++)
        if (bmatch_p[j] < 0) {
            ludus_diff_entry *e = &d->e[d->n++];
            e->is_path = 1;
            e->base_index = -1;
            e->new_index = j;
        }
    ludus__free(bmatch_s);
    ludus__free(bmatch_p);
    for (uint32_t k = first_path; k < d->n; k++) {
        ludus_diff_entry *e = &d->e[k];
        char buf[1024];
        if (e->base_index >= 0)
            ludus__path_text(A, (uint32_t)e->base_index, buf, sizeof buf);
        else
            ludus__path_text(B, (uint32_t)e->new_index, buf, sizeof buf);
        d->names[k] = ludus__strdup(buf);
        if (!d->names[k]) goto oom;
        e->name = d->names[k];
    }
    for (uint32_t k = 0; k < d->n; k++)
        if (d->e[k].base_index >= 0 && d->e[k].new_index >= 0) d->tests += 4; /* calls/frame, calls/s, excl, incl */
    d->info.base_runs = nbase;
    d->info.new_runs = nnewer;
    d->info.run_noise_known = nbase + nnewer >= 3;
    d->info.alpha_per_test = d->desc.alpha / (d->tests ? d->tests : 1);
    d->z = ludus__z_two_sided(d->info.alpha_per_test);
    d->run_z = ludus__z_two_sided(d->desc.run_alpha);
    if (!(d->run_t_df = ludus__calloc(nbase + nnewer + 1, sizeof *d->run_t_df))) goto oom;
    d->info.run_t = d->info.run_noise_known ? ludus__t_two_sided(d->desc.run_alpha, (double)(nbase + nnewer - 2))
                                            : ludus__z_two_sided(d->desc.run_alpha);
    double *sds = ludus__malloc((d->n + 1) * sizeof *sds);
    uint32_t nsds = 0;
    if (!sds) goto oom;
    for (uint32_t k = 0; k < d->n; k++) {
        ludus_diff_entry *e = &d->e[k];
        e->run_sd = NAN;
        e->shift_lo = e->incl_shift_lo = -HUGE_VAL;
        e->shift_hi = e->incl_shift_hi = HUGE_VAL;
        e->p_calls = e->p_time = e->p_incl = e->p_calls_per_s = 1;
        if (e->base_index < 0 || e->new_index < 0) { /* statistics of the side that has it */
            const ludus_analysis *S = e->base_index >= 0 ? A : B;
            int64_t i = e->base_index >= 0 ? e->base_index : e->new_index;
            const ludus_duration_stats *x = e->is_path ? &S->nodes[i].pub.exclusive : &S->sites[i].pub.exclusive;
            const ludus_duration_stats *y = e->is_path ? &S->nodes[i].pub.inclusive : &S->sites[i].pub.inclusive;
            double cpf = e->is_path ? 0 : S->sites[i].pub.calls_per_frame;
            if (e->base_index >= 0)
                e->base_excl = *x, e->base_incl = *y, e->base_calls_per_frame = cpf;
            else
                e->new_excl = *x, e->new_incl = *y, e->new_calls_per_frame = cpf;
            fill_rel(e);
            e->verdict = e->base_index < 0 ? LUDUS_DIFF_NEW : LUDUS_DIFF_GONE;
            continue;
        }
        if (compare_entry(d, e) != 0) {
            ludus__free(sds);
            goto oom;
        }
        if (isfinite(e->run_sd) && e->base_excl.count && e->new_excl.count) sds[nsds++] = e->run_sd;
    }
    if (explain_inside(d) != 0) {
        ludus__free(sds);
        goto oom;
    }
    if (nsds) {
        qsort(sds, nsds, sizeof *sds, ludus__cmp_double);
        d->info.run_sd_median = expm1(sds[(nsds - 1) / 2]);
        d->info.run_sd_max = expm1(sds[nsds - 1]);
    }
    ludus__free(sds);
    d->info.desc = d->desc;
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
        for (uint32_t i = 0; i < d->n; i++) ludus__free(d->names[i]);
    ludus__free(d->names);
    ludus__free(d->e);
    ludus__free(d->counters);
    for (int sd = 0; sd < 2; sd++) {
        for (uint32_t r = 0; d->index[sd] && r < d->nruns[sd]; r++) index_free(&d->index[sd][r]);
        ludus__free(d->index[sd]);
    }
    ludus__free(d->run_t_df);
    ludus__free(d->runs[0]);
    ludus__free(d->runs[1]);
    ludus__locks_diff_free(&d->locks);
    ludus__free(d);
}

void ludus_diff_get_info(const ludus_diff *d, ludus_diff_info *out) {
    *out = d->info;
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
                char line[400], name[128];
                int n = snprintf(line, sizeof line, "gate '%s' tripped: counter %s %s mean %+.1f%% (%s)\n", gt->text,
                                 ludus__text_name(name, sizeof name, c->name, 100), c->series,
                                 c->rel == HUGE_VAL ? 1e11 : c->rel * 100, counter_verdict(c));
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
                char line[1400], name[1100];
                int n = snprintf(line, sizeof line, "gate '%s' tripped: %s %s %s %+.1f%%\n", gt->text,
                                 e->is_path ? "path" : "site", ludus__text_name(name, sizeof name, e->name, 1024),
                                 metric_names[gt->metric], r * 100);
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

/* "+12.3% [+10.1%, +14.6%]": a shift and its interval; "?" for an unbounded end. */
static const char *interval(char *buf, size_t cap, double est, double lo, double hi) {
    char l[32], h[32];
    if (isfinite(lo) && lo > -1)
        snprintf(l, sizeof l, "%+.1f%%", lo * 100);
    else
        snprintf(l, sizeof l, "?");
    if (isfinite(hi))
        snprintf(h, sizeof h, "%+.1f%%", hi * 100);
    else
        snprintf(h, sizeof h, "?");
    snprintf(buf, cap, "%+.1f%% [%s, %s]", est * 100, l, h);
    return buf;
}

static const char *work_word(uint32_t v) {
    return v == LUDUS_DIFF_MORE_WORK ? "more work" : v == LUDUS_DIFF_LESS_WORK ? "less work" : "no change";
}

static void text_line(ludus__writer *w, const ludus_diff_entry *e) {
    char v[128], b1[32], b2[32], b3[32], b4[32], b5[32], si[80], ii[80], name[256];
    int tested = e->base_index >= 0 && e->new_index >= 0 && e->base_excl.count && e->new_excl.count;
    ludus__w_fmt(w,
                 "  %-40s %-26s calls/frame %.2f -> %.2f (%s, per s %s)  excl p50 %s -> %s  shift %s  mean %s  "
                 "incl shift %s  p(work) %.2g p(time) %.2g\n",
                 ludus__text_name(name, sizeof name, e->name, e->is_path ? 200 : 40),
                 verdict_text(e->verdict, v, sizeof v), e->base_calls_per_frame, e->new_calls_per_frame,
                 pct(b1, 32, e->rel[LUDUS_METRIC_CALLS]), pct(b5, 32, e->rel_calls_per_s),
                 ludus__dur(b2, 32, (double)e->base_excl.p50_ns), ludus__dur(b3, 32, (double)e->new_excl.p50_ns),
                 tested ? interval(si, sizeof si, e->shift, e->shift_lo, e->shift_hi) : "-",
                 pct(b4, 32, e->rel[LUDUS_METRIC_MEAN]),
                 tested ? interval(ii, sizeof ii, e->incl_shift, e->incl_shift_lo, e->incl_shift_hi) : "-", e->p_calls,
                 e->p_time);
}

/* A finite JSON number for an interval end: -1 (ratio 0) or 1e9 when unbounded. */
static double jend(double x) {
    return isfinite(x) ? x : x > 0 ? 1e9 : -1;
}

void ludus__diff_json(const ludus_diff *d, ludus__writer *w) {
    const ludus_diff_info *I = &d->info;
    ludus__w_fmt(w,
                 "{\"method\":\"time per call: Hodges-Lehmann shift of the exclusive time (median of the NEW/BASE "
                 "ratios of all pairs of calls) with its distribution-free interval%s, widened by the run-to-run "
                 "term; work: Mann-Whitney U over calls per frame and calls per second of the window's frames, both "
                 "must agree\",\"alpha\":%g,\"tests\":%u,\"alpha_per_test\":%g,\"min_change\":%g,\"min_shift\":%g,"
                 "\"runs\":{\"base\":%u,\"new\":%u,\"noise_known\":%s,\"sd_median\":%.6g,\"sd_max\":%.6g,"
                 "\"quantile\":%.6g,\"run_alpha\":%g,\"assumed_sd\":%g},\"entries\":[",
                 d->base->sum.exact && d->newer->sum.exact ? " (exact durations)"
                                                           : " (durations binned <= 0.78% apart)",
                 d->desc.alpha, d->tests, I->alpha_per_test, d->desc.min_change, d->desc.min_shift, I->base_runs,
                 I->new_runs, I->run_noise_known ? "true" : "false", I->run_sd_median, I->run_sd_max, I->run_t,
                 d->desc.run_alpha, d->desc.run_noise);
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
        ludus__w_fmt(w,
                     ",\"shift\":[%.6f,%.6f,%.6f],\"incl_shift\":[%.6f,%.6f,%.6f],\"run_sd\":%.6g,"
                     "\"calls_per_s\":[%.6g,%.6g],\"rel_calls_per_s\":%.6f,\"p_calls_per_s\":%.6g,"
                     "\"work_per_frame\":\"%s\",\"work_per_second\":\"%s\",\"frame_time_r\":%.4f,"
                     "\"work_basis\":\"%s\"}",
                     e->shift, jend(e->shift_lo), jend(e->shift_hi), e->incl_shift, jend(e->incl_shift_lo),
                     jend(e->incl_shift_hi), isfinite(e->run_sd) ? expm1(e->run_sd) : -1, e->base_calls_per_s,
                     e->new_calls_per_s, e->rel_calls_per_s == HUGE_VAL ? 1e9 : e->rel_calls_per_s, e->p_calls_per_s,
                     work_word(e->work_per_frame), work_word(e->work_per_second), e->frame_time_r,
                     e->work_basis == 3   ? "both"
                     : e->work_basis == 2 ? "per second"
                     : e->work_basis == 1 ? "per frame"
                                          : "");
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
    ludus__writer *w = ludus__malloc(sizeof *w);
    if (!w) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__w_init(w, write, ud);
    char b1[32], b2[32], b3[32], name[256], win[2][80];
    if (format == LUDUS_REPORT_JSON) {
        ludus__diff_json(d, w);
        ludus__w_ch(w, '\n');
    } else if (format == LUDUS_REPORT_CSV) {
        ludus__w_str(
            w, "kind,name,verdict,base_calls_per_frame,new_calls_per_frame,rel_calls,base_excl_p50_ns,"
               "new_excl_p50_ns,rel_mean,rel_p50,rel_p90,rel_p99,rel_incl_p50,p_work,p_time,p_incl,shift,shift_lo,"
               "shift_hi,rel_calls_per_s\n");
        char v[128];
        for (uint32_t i = 0; i < d->n; i++) {
            const ludus_diff_entry *e = &d->e[i];
            ludus__w_str(w, e->is_path ? "path," : "site,");
            ludus__w_csv(w, e->name);
            ludus__w_ch(w, ',');
            ludus__w_csv(w, verdict_text(e->verdict, v, sizeof v));
            ludus__w_fmt(w, ",%.4f,%.4f,%.6f,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g,%.6g,%.6f,%.6f,%.6f,%.6f\n",
                         e->base_calls_per_frame, e->new_calls_per_frame, e->rel[LUDUS_METRIC_CALLS],
                         (long long)e->base_excl.p50_ns, (long long)e->new_excl.p50_ns, e->rel[0], e->rel[1], e->rel[2],
                         e->rel[3], e->rel_incl_p50, e->p_calls, e->p_time, e->p_incl, e->shift, jend(e->shift_lo),
                         jend(e->shift_hi), e->rel_calls_per_s == HUGE_VAL ? 1e9 : e->rel_calls_per_s);
        }
    } else {
        const ludus_analysis_summary *A = &d->base->sum, *B = &d->newer->sum;
        ludus__w_fmt(w, "Ludus diff: BASE (%llu frames, window %s) vs NEW (%llu frames, window %s)\n",
                     (unsigned long long)A->frames_in_window, ludus__text_name(win[0], sizeof win[0], A->window, 64),
                     (unsigned long long)B->frames_in_window, ludus__text_name(win[1], sizeof win[1], B->window, 64));
        if (A->frames_in_window && B->frames_in_window)
            ludus__w_fmt(w, "Frame time p50 %s -> %s (%s)%s\n", ludus__dur(b1, 32, (double)A->median_frame_ns),
                         ludus__dur(b2, 32, (double)B->median_frame_ns),
                         pct(b3, 32, rel((double)A->median_frame_ns, (double)B->median_frame_ns)),
                         d->nruns[0] + d->nruns[1] > 2 ? " (the first run of each side)" : "");
        if (A->dropped || B->dropped || A->incomplete || B->incomplete)
            ludus__w_fmt(w,
                         "Loss: BASE %llu dropped, %llu incomplete; NEW %llu dropped, %llu incomplete "
                         "(incomplete slices are never durations)\n",
                         (unsigned long long)A->dropped, (unsigned long long)A->incomplete,
                         (unsigned long long)B->dropped, (unsigned long long)B->incomplete);
        const ludus_diff_info *I = &d->info;
        if (I->run_noise_known)
            ludus__w_fmt(w,
                         "Runs: %u BASE, %u NEW. The runs disagreed by %.2f%% (the SD between runs of a per-call "
                         "median,\nmedian over the sites and paths tested; largest %.2f%%); each time interval is "
                         "widened by\nt(%u df) = %.2f x that SD.\n",
                         I->base_runs, I->new_runs, I->run_sd_median * 100, I->run_sd_max * 100,
                         I->base_runs + I->new_runs - 2, I->run_t);
        else
            ludus__w_fmt(w,
                         "Runs: 1 BASE, 1 NEW: run-to-run noise is unknown. Each time interval assumes an SD between "
                         "runs\nof %.1f%% (--run-noise); give several runs per side (BASE1 BASE2 ... -- NEW1 NEW2 ...) "
                         "to measure it.\n",
                         d->desc.run_noise * 100);
        ludus__w_fmt(
            w,
            "Method: time per call: the Hodges-Lehmann shift of exclusive (and inclusive) time, the median "
            "of\nthe NEW/BASE ratios of all pairs of calls%s, with its distribution-free interval at 1 - %.2g\n"
            "(%g / %u tests) widened by the run-to-run term; slower/faster work only when the whole "
            "interval\nlies beyond %.1f%% and the change costs at least %.2g%% of BASE's median frame per "
            "frame. Work: Mann-Whitney U\nover calls per frame and calls per second of the window's frames "
            "(p < %.2g, change >= %.0f%%);\nmore/less work when both say so, else on the one that fits the "
            "site (listed below). The mean is shown,\nnever decides. Times are elapsed, not CPU time.\n",
            A->exact && B->exact ? "" : " (durations binned <= 0.78% apart)", I->alpha_per_test, d->desc.alpha,
            d->tests, d->desc.min_shift * 100, d->desc.min_frame_share * 100, I->alpha_per_test,
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
        for (uint32_t i = 0; i < d->n; i++) { /* where the two measures of work disagree */
            const ludus_diff_entry *e = &d->e[i];
            uint32_t fits = e->work_time_bound ? e->work_per_second : e->work_per_frame;
            if (e->work_per_frame == e->work_per_second || (!e->work_per_frame && !fits)) continue;
            if (k++ == 0)
                ludus__w_str(w, "\nWork where calls per frame and calls per second disagree (the verdict rests on the "
                                "one that fits\nthe site: per second when its calls follow the frame's length, "
                                "r >= 0.5; else per frame):\n");
            ludus__w_fmt(w, "  %-40s per frame: %s (%s), per second: %s (%s), r %.2f: %s\n",
                         ludus__text_name(name, sizeof name, e->name, e->is_path ? 200 : 40),
                         work_word(e->work_per_frame), pct(b1, 32, e->rel[LUDUS_METRIC_CALLS]),
                         work_word(e->work_per_second), pct(b2, 32, e->rel_calls_per_s), e->frame_time_r,
                         e->work_basis == 2   ? "rests on per second"
                         : e->work_basis == 1 ? "rests on per frame"
                                              : "no verdict");
        }
        k = 0;
        for (uint32_t i = 0; i < d->ncounters; i++) {
            const ludus_diff_counter *c = &d->counters[i];
            if (!c->verdict) continue;
            if (k++ == 0)
                ludus__w_fmt(w, "\nCounters per frame (Mann-Whitney U on per-frame values, p < %g / %u):\n",
                             d->desc.alpha, d->counter_tests);
            char both[160];
            snprintf(both, sizeof both, "%s %s", c->name, c->series);
            ludus__w_fmt(w, "  %-40s %-10s mean %.2f -> %.2f (%s)  p99 %.2f -> %.2f  p %.2g\n",
                         ludus__text_name(name, sizeof name, both, 0), counter_verdict(c), c->base_mean, c->new_mean,
                         pct(b1, 32, c->rel), c->base_p99, c->new_p99, c->p);
            shown++;
        }
        shown += ludus__locks_diff_text(&d->locks, &d->desc, w);
        shown += ludus__messages_diff_text(d->base, d->newer, w);
        if (!shown) ludus__w_str(w, "\nNo significant change.\n");
    }
    ludus__w_flush(w);
    int failed = w->failed;
    ludus__free(w);
    return failed ? ludus__fail(LUDUS_EIO, "the diff report could not be written") : 0;
}
