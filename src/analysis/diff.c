/* Diff of two sides (one or several runs each): per site and per
 * caller-context path, more or less work (calls per frame and per second,
 * Mann-Whitney U tests) versus slower or faster work (the Hodges-Lehmann
 * shift of the exclusive time per call, shift.c, whose interval, widened by
 * the runs' disagreement, must lie beyond min_shift). The mean is reported,
 * never decides: preempted calls move it. Counters, locks and messages
 * compare the first run of each side. docs/analysis.md, "diff". */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/parallel.h"

struct ludus_diff {
    const ludus_analysis *base, *newer; /* the first run of each side */
    const ludus_analysis **runs[2];     /* BASE's runs, NEW's runs */
    uint32_t nruns[2];
    ludus_diff_info info;
    double z; /* the within-run interval's normal quantile */
    ludus_diff_desc desc;
    ludus_site_diff *e;
    uint32_t n;
    char **names; /* path entries' names, and shared sites' labels (name (file:line)) */
    uint32_t tests;
    ludus_counter_diff *counters;
    uint32_t ncounters, counter_tests;
    ludus__lock_diff locks;     /* locks.c */
    struct run_index *index[2]; /* per run of each side */
    double run_z;               /* the normal quantile of run_alpha */
    double *run_t_df;           /* t quantiles of run_alpha by degrees of freedom (1 .. runs), filled first */
    char *gate_lines;           /* ludus_diff_set_gates: the tripped gates' lines */
    size_t gate_len;
    uint32_t gates_tripped;
};

const ludus__lock_diff *ludus__diff_locks(const ludus_diff *d) {
    return &d->locks;
}

const char *ludus__diff_gate_lines(const ludus_diff *d) {
    return d->gates_tripped ? d->gate_lines : NULL;
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
        ludus__sort_f64(x, a->nexact);
        ludus__sort_f64(y, b->nexact);
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

static void fill_rel(ludus_site_diff *e) {
    e->rel[LUDUS_METRIC_MEAN] = rel(e->base_excl.mean_ns, e->new_excl.mean_ns);
    e->rel[LUDUS_METRIC_P50] = rel((double)e->base_excl.p50_ns, (double)e->new_excl.p50_ns);
    e->rel[LUDUS_METRIC_P90] = rel((double)e->base_excl.p90_ns, (double)e->new_excl.p90_ns);
    e->rel[LUDUS_METRIC_P99] = rel((double)e->base_excl.p99_ns, (double)e->new_excl.p99_ns);
    e->rel[LUDUS_METRIC_CALLS] = rel(e->base_calls_per_frame, e->new_calls_per_frame);
    e->rel_incl_p50 = rel((double)e->base_incl.p50_ns, (double)e->new_incl.p50_ns);
}

/* A site whose calls per frame follow the frame's length this well (the
 * rank correlation within BASE's or NEW's frames) runs on time, not per
 * frame. */
#define TIME_BOUND_R 0.5
/* Frames per chunk of the calls-per-second measure. */
#define RATE_CHUNK 25
/* With one run per side, each run's window frames are cut into at most
 * NOISE_BLOCKS blocks of at least BLOCK_FRAMES frames: how much the blocks
 * of one run disagree stands for how much two runs would. */
#define NOISE_BLOCKS 8
#define BLOCK_FRAMES 10

/* One run's lookups and window figures, built once per diff: its sites by
 * (id, name) and its paths by key in open-addressing tables (index + 1, in
 * index order along a probe sequence, so the first match is the lowest
 * index), and what every entry's per-frame measures share. */
typedef struct run_index {
    const ludus_analysis *R;
    uint32_t *site, *path;
    uint32_t site_mask, path_mask;
    uint64_t nw, nchunk; /* window frames; chunks of RATE_CHUNK of them (the last takes the rest) */
    double seconds;      /* the chunks' seconds */
    double *chunk_sec;   /* per chunk */
    double *len_rank;    /* per window frame: the rank of its length (ties: their mean rank) */
    double rank_ss;      /* sum over the frames of (rank - mean rank)^2 */
    uint32_t blocks;     /* noise blocks (0: too few frames) */
    uint64_t block_frames[NOISE_BLOCKS];
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
    ludus__free(x->len_rank);
}

static int64_t frame_len(const ludus_analysis *R, uint64_t f) {
    return ludus__frame_end(R, f) - ludus__frame_begin(R, f);
}

/* The block of window frame f (0-based in the window) of x's run. */
static uint32_t block_of(const run_index *x, uint64_t f) {
    return x->blocks ? (uint32_t)(f * x->blocks / x->nw) : 0;
}

typedef struct len_at {
    double len;
    uint64_t f;
} len_at;

static int cmp_len_at(const void *p, const void *q) {
    const len_at *a = p, *b = q;
    return a->len < b->len ? -1 : a->len > b->len;
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
    x->len_rank = ludus__malloc((x->nw + 1) * sizeof *x->len_rank);
    len_at *order = ludus__malloc((x->nw + 1) * sizeof *order);
    if (!x->site || !x->path || !x->chunk_sec || !x->len_rank || !order) {
        ludus__free(order);
        return -1;
    }
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
    /* the frames' length ranks (Spearman's correlation takes them) */
    for (uint64_t f = 0; f < x->nw; f++) order[f] = (len_at){(double)frame_len(R, R->win_f0 + f), f};
    qsort(order, x->nw, sizeof *order, cmp_len_at);
    double mean = ((double)x->nw + 1) / 2;
    for (uint64_t i = 0; i < x->nw;) {
        uint64_t j = i;
        while (j < x->nw && order[j].len == order[i].len) j++;
        double r = ((double)i + 1 + (double)j) / 2; /* ranks i+1 .. j */
        for (uint64_t k = i; k < j; k++) {
            x->len_rank[order[k].f] = r;
            x->rank_ss += (r - mean) * (r - mean);
        }
        i = j;
    }
    ludus__free(order);
    for (uint64_t ch = 0; ch < x->nchunk; ch++) {
        uint64_t f0 = ch * RATE_CHUNK, f1 = ch + 1 == x->nchunk ? x->nw : f0 + RATE_CHUNK;
        x->chunk_sec[ch] =
            (double)(ludus__frame_end(R, R->win_f0 + f1 - 1) - ludus__frame_begin(R, R->win_f0 + f0)) / 1e9;
        x->seconds += x->chunk_sec[ch];
    }
    x->blocks = (uint32_t)(x->nw / BLOCK_FRAMES < NOISE_BLOCKS ? x->nw / BLOCK_FRAMES : NOISE_BLOCKS);
    if (x->blocks < 2) x->blocks = 0;
    for (uint64_t f = 0; f < x->nw && x->blocks; f++) x->block_frames[block_of(x, f)]++;
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

/* A window frame of one run that holds calls of the entry. */
typedef struct frame_rec {
    double calls, excl, incl; /* the entry's calls, exclusive and inclusive ns (the frame's ns: rec_time) */
    uint64_t f;               /* its window frame (0-based) */
} frame_rec;

/* One side of an entry: its runs pooled. Per-frame measures keep only the
 * frames (chunks) that hold calls: the others are zeros, counted, so an
 * entry costs what its cells hold, never the window's length. */
typedef struct side {
    ludus__acc excl, incl; /* every run's calls */
    int exact;             /* every run kept every duration */
    size_t nframes;        /* window frames, every run (those with calls: rec, in the same order) */
    double *rate_nz;       /* calls per second of each chunk with a rate > 0, every run */
    size_t nrate_nz, nchunks;
    double calls, seconds;
    double *median; /* per run with calls: the median exclusive time (log scale) */
    uint32_t nmedian;
    frame_rec *rec; /* the frames with calls, run after run, each run's in frame order */
    size_t nrec;
    size_t *run_at; /* per run: its first record; run_at[nruns] = nrec */
    uint32_t nruns;
    const ludus_analysis *const *runs; /* the side's analyses, run_at's runs */
} side;

static void side_free(side *s) {
    ludus__acc_free(&s->excl);
    ludus__acc_free(&s->incl);
    ludus__free(s->rate_nz);
    ludus__free(s->median);
    ludus__free(s->rec);
    ludus__free(s->run_at);
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
    size_t cells = 0, chunks = 0; /* a rate per chunk at most: a window's frames are hundreds of times more */
    for (uint32_t r = 0; r < nruns; r++) {
        int64_t j = find_in_run(d, sd, r, i0, is_path);
        if (j >= 0) cells += is_path ? runs[r]->nodes[j].run.n : runs[r]->sites[j].run.n;
        chunks += d->index[sd][r].nchunk;
    }
    s->nruns = nruns;
    s->runs = runs;
    s->rate_nz = ludus__malloc((chunks + 1) * sizeof *s->rate_nz);
    s->rec = ludus__malloc((cells + 1) * sizeof *s->rec);
    s->median = ludus__malloc((nruns + 1) * sizeof *s->median);
    s->run_at = ludus__malloc((nruns + 1) * sizeof *s->run_at);
    if (!s->rate_nz || !s->rec || !s->median || !s->run_at) return -1;
    for (uint32_t r = 0; r < nruns; r++) {
        const ludus_analysis *R = runs[r];
        const run_index *x = &d->index[sd][r];
        int64_t j = find_in_run(d, sd, r, i0, is_path);
        const ludus__acc *ex = NULL, *in = NULL;
        static const ludus__crun none;
        const ludus__crun *cells = &none;
        s->run_at[r] = s->nrec;
        if (j >= 0 && !is_path) {
            const ludus__an_site *t = &R->sites[j];
            ex = &t->excl, in = &t->incl;
            cells = &t->run;
        } else if (j >= 0) {
            const ludus__an_node *t = &R->nodes[j];
            ex = &t->excl, in = &t->incl;
            cells = &t->run;
        }
        if (!R->sum.exact) s->exact = 0;
        /* the cells come in frame order: calls per frame, and per chunk of
         * RATE_CHUNK frames (a stall of the machine hits one chunk, not the
         * median of them) */
        uint64_t chunk = UINT64_MAX;
        double chunk_calls = 0;
        ludus__crun_it it;
        ludus__crun_begin(cells, &it);
        for (;;) {
            int more = ludus__crun_next(&it);
            const ludus__cell *c = &it.c;
            int in_win = more && c->frame >= R->win_f0 && c->frame < R->win_f1;
            uint64_t f = in_win ? c->frame - R->win_f0 : 0, ch = in_win ? f / RATE_CHUNK : UINT64_MAX;
            if (in_win && ch >= x->nchunk) ch = x->nchunk - 1;
            if (more && !in_win) continue;
            if (ch != chunk && chunk != UINT64_MAX) {
                double sec = x->chunk_sec[chunk];
                if (sec > 0 && chunk_calls > 0) s->rate_nz[s->nrate_nz++] = chunk_calls / sec;
                chunk_calls = 0;
            }
            if (!more) break;
            chunk = ch;
            double calls = (double)c->calls;
            chunk_calls += calls;
            s->calls += calls;
            if (calls > 0) {
                s->rec[s->nrec++] = (frame_rec){calls, (double)c->excl, (double)c->incl, f};
            }
        }
        s->nframes += x->nw;
        s->nchunks += x->nchunk;
        s->seconds += x->seconds;
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
    s->run_at[nruns] = s->nrec;
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

/* The run-to-run noise of one measure of an entry (log scale), as the
 * half-widths it adds below and above an estimate (in quadrature).
 * Several runs: the SD between runs (per-run values a[ka], b[kb]) and the
 * term t x SD x sqrt(1/ka + 1/kb) on both sides. One run per side: the
 * blocks of each run stand for runs. Their values (ba[kba], bb[kbb]) are
 * compared as two samples: the Hodges-Lehmann shift of NEW's blocks against
 * BASE's, whose distribution-free interval at run_alpha (its distances
 * below and above the shift) is the term: a site that flips between two
 * speeds within a run, or a run that drifts, widens it as two runs would;
 * at least z x floor x sqrt(2) (floor alone with fewer than 4 blocks a
 * side). sd: an SD of one run's value that matches the term (reported);
 * measured: the SD between runs (NAN with one run per side). */
typedef struct noise {
    double sd, lo, hi, measured;
    double q; /* the quantile the terms were taken at */
    int from_runs;
} noise;

/* Pooled spread of one value per group member around the group's mean: *ss and *df accumulate. */
static void spread_add(const double *v, uint32_t k, double *ss, uint32_t *df) {
    if (k < 2) return;
    double m = 0;
    for (uint32_t i = 0; i < k; i++) m += v[i];
    m /= k;
    for (uint32_t i = 0; i < k; i++) *ss += (v[i] - m) * (v[i] - m);
    *df += k - 1;
}

static int blocks_shift(const double *ba, uint32_t kba, const double *bb, uint32_t kbb, double z, ludus__shift *out) {
    ludus__pt pa[NOISE_BLOCKS * 2], pb[NOISE_BLOCKS * 2];
    if (kba > NOISE_BLOCKS * 2 || kbb > NOISE_BLOCKS * 2) return -1;
    for (uint32_t i = 0; i < kba; i++) pa[i] = (ludus__pt){ba[i], 1};
    for (uint32_t i = 0; i < kbb; i++) pb[i] = (ludus__pt){bb[i], 1};
    ludus__pts xa = {pa, kba, kba, kba}, xb = {pb, kbb, kbb, kbb};
    ludus__pts_finish(&xa);
    ludus__pts_finish(&xb);
    return ludus__hl_shift(&xa, &xb, z, out);
}

static noise noise_of(ludus_diff *d, const double *a, uint32_t ka, const double *b, uint32_t kb, const double *ba,
                      uint32_t kba, const double *bb, uint32_t kbb, double floor) {
    noise n = {0, 0, 0, NAN, d->run_z, 0};
    if (d->info.run_noise_known) {
        double ss = 0;
        uint32_t df = 0;
        spread_add(a, ka, &ss, &df);
        spread_add(b, kb, &ss, &df);
        if (df == 0) df = 1; /* one run with values on a side: no spread there */
        uint32_t t_df = ka + kb >= 3 ? ka + kb - 2 : 1;
        n.measured = sqrt(ss / df);
        n.sd = n.measured;
        n.from_runs = 1;
        n.q = d->run_t_df[t_df]; /* all filled before the entries are compared */
        n.lo = n.hi = n.q * n.sd * sqrt(1.0 / (ka ? ka : 1) + 1.0 / (kb ? kb : 1));
        return n;
    }
    double least = d->run_z * floor * sqrt(2.0);
    n.lo = n.hi = least;
    ludus__shift s;
    if (kba >= 4 && kbb >= 4 && blocks_shift(ba, kba, bb, kbb, d->run_z, &s) == 0) {
        double dl = s.est - s.lo, dh = s.hi - s.est; /* unbounded: no decision from these blocks */
        n.lo = isfinite(dl) ? fmax(dl, least) : HUGE_VAL;
        n.hi = isfinite(dh) ? fmax(dh, least) : HUGE_VAL;
    }
    n.sd = isfinite(n.lo + n.hi) ? (n.lo + n.hi) / 2 / d->run_z / sqrt(2.0) : HUGE_VAL;
    return n;
}

/* Widens [lo, hi] around est by the run terms (in quadrature), then log ratio -> relative change. */
static void widen(const ludus__shift *s, const noise *n, double *est, double *lo, double *hi) {
    double dl = s->est - s->lo, dh = s->hi - s->est;
    *est = expm1(s->est);
    *lo = isfinite(dl) && isfinite(n->lo) ? expm1(s->est - sqrt(dl * dl + n->lo * n->lo)) : -HUGE_VAL;
    *hi = isfinite(dh) && isfinite(n->hi) ? expm1(s->est + sqrt(dh * dh + n->hi * n->hi)) : HUGE_VAL;
}

/* Spearman's rank correlation of a run's calls per frame (records [r0, r1)
 * of s, the other window frames 0) with its frames' lengths (x's ranks). */
typedef struct rank_pair {
    double calls, len_rank;
} rank_pair;

_Static_assert(sizeof(rank_pair) == 16 && offsetof(rank_pair, calls) == 0, "sorted by its double key first");

static double spearman(const side *s, size_t r0, size_t r1, const run_index *x, rank_pair *tmp) {
    double n = (double)x->nw;
    size_t nz = r1 - r0;
    if (x->nw < 3 || !(x->rank_ss > 0) || nz == 0) return 0;
    for (size_t i = 0; i < nz; i++) tmp[i] = (rank_pair){s->rec[r0 + i].calls, x->len_rank[s->rec[r0 + i].f]};
    ludus__sort_f64_pairs(tmp, nz);
    double zeros = n - (double)nz, mean = (n + 1) / 2;
    double rz = (zeros + 1) / 2; /* the zeros' mean rank */
    double sxy = 0, sxx = zeros * (rz - mean) * (rz - mean), sy_nz = 0;
    for (size_t i = 0; i < nz;) {
        size_t j = i;
        while (j < nz && tmp[j].calls == tmp[i].calls) j++;
        double r = zeros + ((double)i + 1 + (double)j) / 2;
        for (size_t k = i; k < j; k++) {
            sxy += (r - mean) * (tmp[k].len_rank - mean);
            sxx += (r - mean) * (r - mean);
            sy_nz += tmp[k].len_rank - mean;
        }
        i = j;
    }
    sxy += (rz - mean) * (0 - sy_nz); /* the zeros: their frames' ranks sum to the rest's negative */
    return sxx > 0 ? sxy / sqrt(sxx * x->rank_ss) : 0;
}

/* Average ranks (1-based, ties their mean) of v[0..n) into r, by the
 * order in `order` (scratch of n). */
static void ranks_of(const double *v, size_t n, len_at *order, double *r) {
    for (size_t i = 0; i < n; i++) order[i] = (len_at){v[i], i};
    qsort(order, n, sizeof *order, cmp_len_at);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && order[j].len == order[i].len) j++;
        for (size_t k = i; k < j; k++) r[order[k].f] = ((double)i + 1 + (double)j) / 2;
        i = j;
    }
}

/* Spearman's correlation of a run's calls per frame with what is left of
 * each frame once the entry's own (inclusive) time is taken out: a site
 * whose calls make the frame long (an inner loop on the frame thread) does
 * not "follow the frame's length"; a worker on a timer still does. All the
 * run's window frames: only for entries whose calls correlate with the
 * frame's length at all. 0 with *r, or LUDUS_ENOMEM (the diff then fails:
 * a result computed without it would differ). */
static int spearman_rest(const side *s, size_t r0, size_t r1, const run_index *x, double *out) {
    size_t n = (size_t)x->nw;
    *out = 0;
    if (n < 3) return 0;
    double *v = ludus__malloc(4 * n * sizeof *v);
    len_at *order = ludus__malloc(n * sizeof *order);
    double r = 0;
    int rc = v && order ? 0 : LUDUS_ENOMEM;
    if (v && order) {
        double *calls = v + n, *rv = v + 2 * n, *rc = v + 3 * n;
        for (size_t f = 0; f < n; f++) {
            v[f] = (double)frame_len(x->R, x->R->win_f0 + f);
            calls[f] = 0;
        }
        for (size_t i = r0; i < r1; i++) {
            v[s->rec[i].f] -= s->rec[i].incl;
            calls[s->rec[i].f] = s->rec[i].calls;
        }
        ranks_of(v, n, order, rv);
        ranks_of(calls, n, order, rc);
        double m = ((double)n + 1) / 2, sxy = 0, sxx = 0, syy = 0;
        for (size_t f = 0; f < n; f++) {
            sxy += (rc[f] - m) * (rv[f] - m);
            sxx += (rc[f] - m) * (rc[f] - m);
            syy += (rv[f] - m) * (rv[f] - m);
        }
        r = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
    }
    ludus__free(v);
    ludus__free(order);
    *out = r;
    return rc;
}

/* The median of `zeros` zeros and the n values of x (sorted here, all > 0),
 * the mean of the middle two when there is an even number. */
static double median_z(size_t zeros, double *x, size_t n) {
    size_t all = zeros + n;
    if (!all) return 0;
    ludus__sort_f64(x, n);
    size_t k = all / 2;
    double hi = k < zeros ? 0 : x[k - zeros];
    if (all % 2) return hi;
    double lo = k - 1 < zeros ? 0 : x[k - 1 - zeros];
    return (lo + hi) / 2;
}

/* The lower median of x[0..n) (reordered here), 0 when empty. */
static double lower_median(double *x, size_t n) {
    return n ? ludus__kth_f64(x, n, (n - 1) / 2) : 0;
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
    ludus__sort_f64(x, nnx);
    ludus__sort_f64(y, nny);
    return mw_sorted_z(nx - nnx, x, nnx, ny - nny, y, nny, z);
}

/* What a record's frame counts of the entry's time: exclusive (or
 * inclusive) ns, per second of the frame when the entry runs on time. */
/* A record's exclusive or inclusive time, per second of its frame (of run R) with per_second. */
static double rec_time(const frame_rec *r, const ludus_analysis *R, int incl, int per_second) {
    double v = incl ? r->incl : r->excl;
    if (!per_second) return v;
    double len = (double)frame_len(R, R->win_f0 + r->f);
    return len > 0 ? v * 1e9 / len : 0;
}

/* The measures of one side taken per run or per block of a run (log
 * scale): the typical call (the median over frames of a frame's exclusive
 * time per call), the frame total (the median over frames with calls of
 * their total, plus the log of the share of frames with calls), calls per
 * frame. Values of groups without calls are left out. */
typedef struct group_vals {
    double *call, *total, *itotal, *calls;
    uint32_t ncall, ntotal, nitotal, ncalls;
} group_vals;

/* The measures over the records [r0, r1) that fell in `frames` window
 * frames; tmp holds r1 - r0 values. The median of the logs is the log of
 * the median (log1p is monotone): one log a measure, not one a record.
 * known: the lower medians of the frame totals (exclusive, inclusive) where
 * total_shift found them (NaN: not found). */
static void group_add(group_vals *g, const side *s, const ludus_analysis *R, size_t r0, size_t r1, uint64_t frames,
                      int per_second, double *tmp, const double known[2]) {
    size_t n = r1 - r0;
    if (!n || !frames) return;
    double calls = 0;
    for (size_t i = 0; i < n; i++) {
        tmp[i] = s->rec[r0 + i].excl / s->rec[r0 + i].calls;
        calls += s->rec[r0 + i].calls;
    }
    g->call[g->ncall++] = log1p(lower_median(tmp, n));
    double share = log((double)n / (double)frames), med[2];
    for (int incl = 0; incl < 2; incl++) {
        med[incl] = known[incl];
        if (med[incl] == med[incl]) continue;
        for (size_t i = 0; i < n; i++) tmp[i] = rec_time(&s->rec[r0 + i], R, incl, per_second);
        med[incl] = lower_median(tmp, n);
    }
    g->total[g->ntotal++] = log1p(med[0]) + share;
    g->itotal[g->nitotal++] = log1p(med[1]) + share;
    g->calls[g->ncalls++] = log(calls / (double)frames);
}

/* The Hodges-Lehmann shift of the frame totals NEW against BASE (log
 * scale, over the frames that hold calls) plus the log ratio of the share
 * of frames that do, with that share's binomial error in quadrature (z):
 * 0, 1 when a side has no frame with calls, LUDUS_ENOMEM. */
static int total_shift(const side *a, const side *b, int incl, int per_second, double z, ludus__shift *out,
                       double med[2]) {
    if (!a->nrec || !b->nrec || !a->nframes || !b->nframes) return 1;
    ludus__pts p[2];
    memset(p, 0, sizeof p);
    const side *S[2] = {a, b};
    int rc = 0;
    for (int k = 0; k < 2 && !rc; k++) {
        /* the points: the values sorted, then their logs (log1p is
         * monotone: the logs come sorted), equal ones merged, as
         * ludus__pts_finish would merge them; a log only where the value
         * changes. The values go in the points' second half. */
        size_t n = S[k]->nrec;
        p[k].p = ludus__malloc(n * sizeof *p[k].p);
        if (!p[k].p) {
            rc = LUDUS_ENOMEM;
            break;
        }
        _Static_assert(sizeof(ludus__pt) == 2 * sizeof(double), "a point holds two values");
        double *v = (double *)(void *)p[k].p + n;
        for (uint32_t r = 0; r < S[k]->nruns; r++)
            for (size_t i = S[k]->run_at[r]; i < S[k]->run_at[r + 1]; i++)
                v[i] = rec_time(&S[k]->rec[i], S[k]->runs[r], incl, per_second);
        ludus__sort_f64(v, n);
        if (S[k]->nruns == 1) med[k] = v[(n - 1) / 2]; /* its one run's lower median, for group_add */
        size_t m = 0;
        double last = 0;
        for (size_t i = 0; i < n; i++) { /* p[m] (16 bytes) is written below v[i] (8): never over one unread */
            double x = v[i];
            if (m && x == last) {
                p[k].p[m - 1].w++;
                continue;
            }
            double lx = log1p(x);
            last = x;
            if (m && lx == p[k].p[m - 1].v) {
                p[k].p[m - 1].w++;
                continue;
            }
            p[k].p[m++] = (ludus__pt){lx, 1};
        }
        p[k].n = m;
        p[k].cap = n;
        p[k].total = n;
    }
    if (!rc && ludus__hl_shift(&p[0], &p[1], z, out) != 0) rc = 1;
    ludus__pts_free(&p[0]);
    ludus__pts_free(&p[1]);
    if (rc) return rc;
    double pa = (double)a->nrec / (double)a->nframes, pb = (double)b->nrec / (double)b->nframes;
    double ds = log(pb / pa), se = sqrt((1 - pa) / (double)a->nrec + (1 - pb) / (double)b->nrec);
    double dl = out->est - out->lo, dh = out->hi - out->est, w = z * se;
    out->est += ds;
    out->lo = isfinite(dl) ? out->est - sqrt(dl * dl + w * w) : -HUGE_VAL;
    out->hi = isfinite(dh) ? out->est + sqrt(dh * dh + w * w) : HUGE_VAL;
    return 0;
}

/* Two-sided p of a log ratio est whose within-run interval half-width
 * toward 0 is half (at the normal quantile z) against that and the
 * run-to-run noise n (its term toward 0, at its quantile). */
static double p_against(double est, double half, double z, const noise *n) {
    double term = est > 0 ? n->lo : n->hi;
    double se_w = isfinite(half) && z > 0 ? half / z : HUGE_VAL, se_r = isfinite(term) ? term / n->q : HUGE_VAL;
    double se = sqrt(se_w * se_w + se_r * se_r);
    return isfinite(se) && se > 0 ? erfc(fabs(est) / se / sqrt(2.0)) : (est == 0 || !isfinite(se) ? 1.0 : 0.0);
}

/* The sum of a's k largest durations (bucket middles when binned; a
 * bucket cut by k counts in part) and the smallest of them. The exact
 * vector is sorted (ludus__acc_stats). */
static double acc_top(const ludus__acc *a, int exact, double k, int64_t *smallest) {
    double sum = 0, left = k;
    *smallest = 0;
    if (k <= 0) return 0;
    if (exact && a->nexact == a->n) {
        for (size_t i = a->nexact; i-- > 0 && left > 0; left -= 1) {
            sum += (double)a->exact[i] * (left < 1 ? left : 1);
            *smallest = a->exact[i];
        }
        return sum;
    }
    uint64_t tmp[LUDUS__HIST_SUB];
    for (uint32_t oct = LUDUS__HIST_OCT; oct-- > 0 && left > 0;) {
        const uint64_t *o = ludus__acc_octave(a, oct, tmp);
        if (!o) continue;
        for (uint32_t j = LUDUS__HIST_SUB; j-- > 0 && left > 0;) {
            if (!o[j]) continue;
            int64_t mid = ludus__hist_bucket_mid(oct * LUDUS__HIST_SUB + j);
            if (mid < a->min) mid = a->min;
            if (mid > a->max) mid = a->max;
            double take = (double)o[j] < left ? (double)o[j] : left;
            sum += take * (double)mid;
            left -= take;
            *smallest = mid;
        }
    }
    return sum;
}

/* The tail of a change of the time per frame: the smallest share of each
 * side's heaviest calls (1%, 5%, 10%, 25%, 50%) whose time per frame
 * changed by at least three quarters of the whole change. */
static void tail_of(ludus_site_diff *e, const side *a, const side *b, int exact) {
    static const double shares[5] = {0.01, 0.05, 0.10, 0.25, 0.50};
    double whole =
        (double)e->new_excl.total_ns / (double)b->nframes - (double)e->base_excl.total_ns / (double)a->nframes;
    e->tail_share = 0;
    if (whole == 0 || !a->excl.n || !b->excl.n) return;
    for (int i = 0; i < 5; i++) {
        int64_t ta, tb;
        double sa = acc_top(&a->excl, exact, shares[i] * (double)a->excl.n, &ta) / (double)a->nframes;
        double sb = acc_top(&b->excl, exact, shares[i] * (double)b->excl.n, &tb) / (double)b->nframes;
        if ((sb - sa) / whole >= 0.75 || i == 4) {
            e->tail_share = shares[i];
            e->tail_ns = ta;
            e->base_tail_calls = shares[i] * (double)a->excl.n / (double)a->nframes;
            e->new_tail_calls = shares[i] * (double)b->excl.n / (double)b->nframes;
            e->base_tail_ns = sa;
            e->new_tail_ns = sb;
            return;
        }
    }
}

/* 1 when the entry is a lock wait (a scope of category "lock", on either side). */
static int entry_waits(const ludus_diff *d, const ludus_site_diff *e) {
    for (int sd = 0; sd < 2; sd++) {
        const ludus_analysis *R0 = d->runs[sd][0];
        int64_t i = sd ? e->new_index : e->base_index;
        if (i < 0) continue;
        uint32_t site = e->is_path ? R0->nodes[i].pub.site : (uint32_t)i;
        if (!strcmp(R0->sites[site].pub.category, "lock")) return 1;
    }
    return 0;
}

/* 1 when the entry's site waits rather than works (ludus__site_waits) in
 * at least half of the runs of both sides together. */
static int entry_only_waits(const ludus_diff *d, const ludus_site_diff *e) {
    uint32_t waits = 0, runs = 0;
    for (int sd = 0; sd < 2; sd++) {
        int64_t i0 = sd ? e->new_index : e->base_index;
        for (uint32_t r = 0; r < d->nruns[sd] && i0 >= 0; r++) {
            const ludus_analysis *R = d->runs[sd][r];
            int64_t i = find_in_run(d, sd, r, i0, e->is_path);
            if (i < 0) continue;
            runs++;
            waits += (uint32_t)ludus__site_waits(R, e->is_path ? R->nodes[i].pub.site : (uint32_t)i);
        }
    }
    return runs && 2 * waits >= runs;
}

/* Everything of one matched entry: pooled statistics, tests, shifts, verdict. */
static int compare_entry(ludus_diff *d, ludus_site_diff *e) {
    side a, b;
    memset(&b, 0, sizeof b); /* freed at done even when a's build failed */
    rank_pair *rp = NULL;
    double *tmp = NULL;
    group_vals g[2][2]; /* [side][0: per run, 1: per block] */
    memset(g, 0, sizeof g);
    int rc = side_build(d, 0, e->base_index, e->is_path, &a);
    if (!rc) rc = side_build(d, 1, e->new_index, e->is_path, &b);
    if (rc) goto done;
    const side *S[2] = {&a, &b};
    size_t most = a.nrec > b.nrec ? a.nrec : b.nrec;
    rp = ludus__malloc((most + 1) * sizeof *rp);
    tmp = ludus__malloc((most + 1) * sizeof *tmp);
    if (!rp || !tmp) goto oom;
    for (int sd = 0; sd < 2; sd++)
        for (int k = 0; k < 2; k++) {
            uint32_t cap = k ? S[sd]->nruns * NOISE_BLOCKS + 1 : S[sd]->nruns + 1;
            group_vals *x = &g[sd][k];
            x->call = ludus__malloc(4 * cap * sizeof *x->call);
            if (!x->call) goto oom;
            x->total = x->call + cap;
            x->itotal = x->total + cap;
            x->calls = x->itotal + cap;
        }
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
    /* does the entry run on time? Spearman's correlation of its calls per
     * frame with the frame's length, per run, the mean over a side's runs,
     * the larger side's */
    double r_side[2] = {0, 0};
    for (int sd = 0; sd < 2; sd++) {
        for (uint32_t r = 0; r < S[sd]->nruns; r++)
            r_side[sd] += spearman(S[sd], S[sd]->run_at[r], S[sd]->run_at[r + 1], &d->index[sd][r], rp);
        r_side[sd] /= S[sd]->nruns ? S[sd]->nruns : 1;
    }
    e->frame_time_r = fmax(r_side[0], r_side[1]);
    /* on the frame thread, its own time is part of the frame's length:
     * does it follow what is left of the frame? */
    int on_frame_thread = 0;
    for (int sd = 0; sd < 2; sd++) {
        const ludus_analysis *R0 = d->runs[sd][0];
        int64_t i = sd ? e->new_index : e->base_index;
        uint32_t site = e->is_path ? R0->nodes[i].pub.site : (uint32_t)i;
        on_frame_thread |= R0->sites[site].on_frame_thread;
    }
    if (e->frame_time_r >= TIME_BOUND_R && on_frame_thread) {
        for (int sd = 0; sd < 2; sd++) {
            r_side[sd] = 0;
            for (uint32_t r = 0; r < S[sd]->nruns; r++) {
                double rr;
                if (spearman_rest(S[sd], S[sd]->run_at[r], S[sd]->run_at[r + 1], &d->index[sd][r], &rr)) goto oom;
                r_side[sd] += rr;
            }
            r_side[sd] /= S[sd]->nruns ? S[sd]->nruns : 1;
        }
        e->frame_time_r = fmax(r_side[0], r_side[1]);
    }
    e->work_time_bound = e->frame_time_r >= TIME_BOUND_R;
    int per_second = e->work_time_bound;
    /* the frame totals' shifts (used below); on the way, each side's frame
     * totals sorted give the lower median of a side with one run, which the
     * measures per run then need not select again */
    double tot_med[2][2] = {{NAN, NAN}, {NAN, NAN}}; /* [incl][side]; total_shift sets a side's with one run */
    const double unknown[2] = {NAN, NAN};
    ludus__shift st, sti;
    double z = d->z;
    int tt = total_shift(&a, &b, 0, per_second, z, &st, tot_med[0]);
    int tti = e->is_path ? 1 : total_shift(&a, &b, 1, per_second, z, &sti, tot_med[1]);
    if (tt == LUDUS_ENOMEM || tti == LUDUS_ENOMEM) goto oom;
    /* the measures per run and per block of each run */
    for (int sd = 0; sd < 2; sd++)
        for (uint32_t r = 0; r < S[sd]->nruns; r++) {
            const run_index *x = &d->index[sd][r];
            size_t r0 = S[sd]->run_at[r], r1 = S[sd]->run_at[r + 1];
            const double run_known[2] = {tot_med[0][sd], tot_med[1][sd]}; /* NaN unless one run */
            group_add(&g[sd][0], S[sd], S[sd]->runs[r], r0, r1, x->nw, per_second, tmp, run_known);
            for (size_t i = r0; i < r1;) {
                uint32_t bk = block_of(x, S[sd]->rec[i].f);
                size_t j = i;
                while (j < r1 && block_of(x, S[sd]->rec[j].f) == bk) j++;
                if (x->blocks)
                    group_add(&g[sd][1], S[sd], S[sd]->runs[r], i, j, x->block_frames[bk], per_second, tmp, unknown);
                i = j;
            }
        }
    double floor = log1p(d->desc.run_noise);
    const group_vals *ga = &g[0][1], *gb = &g[1][1]; /* the blocks (one run per side) */
    noise n_call =
        noise_of(d, a.median, a.nmedian, b.median, b.nmedian, ga->call, ga->ncall, gb->call, gb->ncall, floor);
    noise n_total = noise_of(d, g[0][0].total, g[0][0].ntotal, g[1][0].total, g[1][0].ntotal, ga->total, ga->ntotal,
                             gb->total, gb->ntotal, floor);
    noise n_itotal = noise_of(d, g[0][0].itotal, g[0][0].nitotal, g[1][0].itotal, g[1][0].nitotal, ga->itotal,
                              ga->nitotal, gb->itotal, gb->nitotal, floor);
    noise n_calls = noise_of(d, g[0][0].calls, g[0][0].ncalls, g[1][0].calls, g[1][0].ncalls, ga->calls, ga->ncalls,
                             gb->calls, gb->ncalls, 0);
    e->run_sd = n_call.measured;
    e->noise_sd_call = n_call.sd;
    e->noise_sd_total = n_total.sd;
    e->noise_sd_calls = n_calls.sd;

    /* work */
    /* the frames' calls, each side's in the rank pairs' room (done with: two doubles each, most of them) */
    double *calls_a = (double *)(void *)rp, *calls_b = calls_a + a.nrec;
    for (size_t i = 0; i < a.nrec; i++) calls_a[i] = a.rec[i].calls;
    for (size_t i = 0; i < b.nrec; i++) calls_b[i] = b.rec[i].calls;
    e->p_calls = mw_values(a.nframes, calls_a, a.nrec, b.nframes, calls_b, b.nrec, &zc);
    e->p_calls_per_s = mw_values(a.nchunks, a.rate_nz, a.nrate_nz, b.nchunks, b.rate_nz, b.nrate_nz, &zs);
    e->p_time = e->p_incl = 1;
    if (a.excl.n && b.excl.n) {
        e->p_time = (exact ? mw_exact : mw_hist)(&a.excl, &b.excl, &zt);
        e->p_incl = (exact ? mw_exact : mw_hist)(&a.incl, &b.incl, &zi);
    }
    e->work_per_frame = work_says(e->p_calls, zc, e->rel[LUDUS_METRIC_CALLS], alpha, d->desc.min_change);
    e->work_per_second = work_says(e->p_calls_per_s, zs, e->rel_calls_per_s, alpha, d->desc.min_change);
    /* calls per frame must also move beyond the run-to-run noise of calls per frame */
    uint32_t per_frame_within = e->work_per_frame;
    if (e->work_per_frame && isfinite(e->rel[LUDUS_METRIC_CALLS]) && e->rel[LUDUS_METRIC_CALLS] > -1 &&
        (e->rel[LUDUS_METRIC_CALLS] > 0 ? log1p(e->rel[LUDUS_METRIC_CALLS]) <= n_calls.lo
                                        : -log1p(e->rel[LUDUS_METRIC_CALLS]) <= n_calls.hi))
        e->work_per_frame = 0;
    /* Both measures agree: the verdict rests on both. Otherwise on the one
     * that fits how the site runs: on time when its calls per frame follow
     * the frame's length on either side (rank correlation >= TIME_BOUND_R:
     * a worker on a timer), else per frame. */
    uint32_t rests = e->work_time_bound ? e->work_per_second : e->work_per_frame;
    if (e->work_per_frame && e->work_per_frame == e->work_per_second)
        e->work_basis = 3;
    else if (rests)
        e->work_basis = e->work_time_bound ? 2 : 1;
    if (e->work_basis) e->verdict |= e->work_basis == 2 ? e->work_per_second : e->work_per_frame;
    if (!e->work_time_bound && per_frame_within && !e->work_per_frame) e->verdict |= LUDUS_DIFF_UNDECIDED;

    /* practical significance: what the estimated change costs per frame (or per call) */
    double med_frame = (double)d->base->sum.median_frame_ns;
    double floor_ns = med_frame > 0 ? d->desc.min_frame_share * med_frame : d->desc.min_call_ns;
    double m = d->desc.min_shift, lm = log1p(m);

    /* time per call: the interval of the robust shift, widened by the run-to-run noise */
    ludus__shift se, si;
    int sh = a.excl.n && b.excl.n ? shift_of(&a.excl, exact, &b.excl, exact, z, &se) : 1, shi = 1;
    if (sh == 0 && (shi = shift_of(&a.incl, exact, &b.incl, exact, z, &si)) == 0)
        widen(&si, &n_call, &e->incl_shift, &e->incl_shift_lo, &e->incl_shift_hi);
    if (sh == LUDUS_ENOMEM || shi == LUDUS_ENOMEM) goto oom; /* a verdict on part of the data is no verdict */
    e->p_shift = 1;
    if (sh == 0) {
        widen(&se, &n_call, &e->shift, &e->shift_lo, &e->shift_hi);
        e->p_shift = p_against(se.est, se.est > 0 ? se.est - se.lo : se.hi - se.est, z, &n_call);
        double per_frame = med_frame > 0 ? fmax(e->base_calls_per_frame, e->new_calls_per_frame) : 1.0;
        int material = fabs(e->shift) * (double)e->base_excl.p50_ns * per_frame >= floor_ns;
        int material_incl = fabs(e->incl_shift) * (double)e->base_incl.p50_ns * per_frame >= floor_ns;
        if (material && e->shift_lo >= m) e->verdict |= LUDUS_DIFF_SLOWER;
        if (material && e->shift_hi <= -m) e->verdict |= LUDUS_DIFF_FASTER;
        if (material && !(e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER)) && (se.lo >= lm || se.hi <= -lm))
            e->verdict |= LUDUS_DIFF_UNDECIDED;
        if (material_incl && !(e->verdict & LUDUS_DIFF_SLOWER) && e->incl_shift_lo >= m)
            e->verdict |= LUDUS_DIFF_SLOWER_INSIDE;
    } else {
        e->shift_lo = -HUGE_VAL;
        e->shift_hi = HUGE_VAL;
        e->incl_shift_lo = -HUGE_VAL;
        e->incl_shift_hi = HUGE_VAL;
    }

    /* time per frame: the frames' totals */
    e->total_lo = e->incl_total_lo = -HUGE_VAL;
    e->total_hi = e->incl_total_hi = HUGE_VAL;
    e->p_total = 1;
    for (int sd = 0; sd < 2; sd++) {
        double sum = 0, isum = 0;
        for (uint32_t r = 0; r < S[sd]->nruns; r++)
            for (size_t i = S[sd]->run_at[r]; i < S[sd]->run_at[r + 1]; i++) {
                sum += rec_time(&S[sd]->rec[i], S[sd]->runs[r], 0, per_second);
                isum += rec_time(&S[sd]->rec[i], S[sd]->runs[r], 1, per_second);
            }
        double nf = S[sd]->nframes ? (double)S[sd]->nframes : 1;
        *(sd ? &e->new_total_ns : &e->base_total_ns) = sum / nf;
        *(sd ? &e->new_incl_total_ns : &e->base_incl_total_ns) = e->is_path ? 0 : isum / nf;
    }

    /* a frame's worth: per second of frame -> per median frame */
    double to_frame = per_second ? med_frame / 1e9 : 1.0;
    if (tt == 0) {
        widen(&st, &n_total, &e->rel_total, &e->total_lo, &e->total_hi);
        e->p_total = p_against(st.est, st.est > 0 ? st.est - st.lo : st.hi - st.est, z, &n_total);
        int material = med_frame > 0 && fabs(e->rel_total) * e->base_total_ns * to_frame >= floor_ns;
        /* the verdict must agree with the means per frame it is shown beside */
        if (material && e->total_lo >= m && e->new_total_ns > e->base_total_ns) e->verdict |= LUDUS_DIFF_MORE_TIME;
        if (material && e->total_hi <= -m && e->new_total_ns < e->base_total_ns) e->verdict |= LUDUS_DIFF_LESS_TIME;
        if (material && !(e->verdict & (LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_LESS_TIME)) && (st.lo >= lm || st.hi <= -lm))
            e->verdict |= LUDUS_DIFF_UNDECIDED;
        /* what the change consists of */
        double all = st.est;
        e->part_calls = per_second ? (e->base_calls_per_s > 0 && e->new_calls_per_s > 0
                                          ? log(e->new_calls_per_s / e->base_calls_per_s)
                                          : 0)
                                   : (e->base_calls_per_frame > 0 && e->new_calls_per_frame > 0
                                          ? log(e->new_calls_per_frame / e->base_calls_per_frame)
                                          : 0);
        e->part_typical = sh == 0 ? se.est : 0;
        e->part_tail = all - e->part_calls - e->part_typical;
        const double parts[3] = {e->part_calls, e->part_typical, e->part_tail};
        const uint32_t bits[3] = {LUDUS_DIFF_CAUSE_CALLS, LUDUS_DIFF_CAUSE_TYPICAL, LUDUS_DIFF_CAUSE_TAIL};
        for (int k = 0; k < 3; k++)
            if (all != 0 && parts[k] / all >= 0.25) e->time_cause |= bits[k];
    }
    if (tti == 0) {
        widen(&sti, &n_itotal, &e->rel_incl_total, &e->incl_total_lo, &e->incl_total_hi);
        int material = med_frame > 0 && fabs(e->rel_incl_total) * e->base_incl_total_ns * to_frame >= floor_ns;
        if (material && !(e->verdict & (LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_SLOWER)) && e->incl_total_lo >= m &&
            e->new_incl_total_ns > e->base_incl_total_ns)
            e->verdict |= LUDUS_DIFF_SLOWER_INSIDE;
    }
    /* the tail in figures: the heaviest calls that carry the change */
    if (a.nframes && b.nframes) tail_of(e, &a, &b, exact);
    if (e->verdict & LUDUS_DIFF_CHANGED) e->verdict &= ~LUDUS_DIFF_UNDECIDED; /* decided on another measure */
    /* A lock wait follows the scheduler, not the program: how often and how
     * long it waits is judged in the lock section ("more waiting"), never
     * as more work or slower work of a site. */
    if (entry_waits(d, e))
        e->verdict &= ~(LUDUS_DIFF_CHANGED | LUDUS_DIFF_UNDECIDED | LUDUS_DIFF_SLOWER_INSIDE);
    else if (entry_only_waits(d, e)) {
        /* A scope that waits: how long it waited follows the work it waited
         * on, whose own entries carry the verdict (threads.c). */
        uint32_t up = e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_MORE_TIME),
                 down = e->verdict & (LUDUS_DIFF_FASTER | LUDUS_DIFF_LESS_TIME);
        e->verdict &= ~(LUDUS_DIFF_CHANGED | LUDUS_DIFF_UNDECIDED);
        if (up && !down) e->verdict |= LUDUS_DIFF_WAITED_LONGER;
        if (down && !up) e->verdict |= LUDUS_DIFF_WAITED_LESS;
    }
done:
    for (int sd = 0; sd < 2; sd++)
        for (int k = 0; k < 2; k++) ludus__free(g[sd][k].call);
    ludus__free(rp);
    ludus__free(tmp);
    side_free(&a);
    side_free(&b);
    return rc;
oom:
    rc = LUDUS_ENOMEM;
    goto done;
}

/* ---- frame time ---- */

/* The nearest-rank q-quantile of the sorted x[0..n) (rank k clamped to 1..n). */
static double rank_at(const double *x, size_t n, double k) {
    if (k < 1) k = 1;
    if (k > (double)n) k = (double)n;
    return x[(size_t)k - 1];
}

static double nearest_rank(const double *x, size_t n, double q) {
    return rank_at(x, n, ceil(q * (double)n - 1e-9));
}

/* Frame time p50, p90, p99 of both sides: each side's window frames of
 * every run pooled; the interval of each side's percentile from its order
 * statistics (ranks n q -+ z sqrt(n q (1 - q)), z for alpha / 3), the
 * difference's interval from both ends (on the log scale), widened by the
 * run-to-run SD of that percentile (between runs; one run per side:
 * between blocks of frames, at least run_noise). */
static int diff_frames(ludus_diff *d) {
    static const double qs[3] = {0.5, 0.9, 0.99};
    double *x[2] = {NULL, NULL}, *v[2][2] = {{NULL, NULL}, {NULL, NULL}}, *tmp = NULL;
    size_t n[2] = {0, 0}, most = 1;
    int rc = -1;
    for (int sd = 0; sd < 2; sd++)
        for (uint32_t r = 0; r < d->nruns[sd]; r++) {
            n[sd] += d->index[sd][r].nw;
            if (d->index[sd][r].nw > most) most = d->index[sd][r].nw;
        }
    tmp = ludus__malloc(most * sizeof *tmp);
    if (!tmp) goto done;
    for (int sd = 0; sd < 2; sd++) {
        x[sd] = ludus__malloc((n[sd] + 1) * sizeof *x[sd]);
        v[sd][0] = ludus__malloc((d->nruns[sd] + 1) * sizeof *v[sd][0]);
        v[sd][1] = ludus__malloc((d->nruns[sd] * NOISE_BLOCKS + 1) * sizeof *v[sd][1]);
        if (!x[sd] || !v[sd][0] || !v[sd][1]) goto done;
        size_t k = 0;
        for (uint32_t r = 0; r < d->nruns[sd]; r++) {
            const run_index *ix = &d->index[sd][r];
            for (uint64_t f = 0; f < ix->nw; f++) x[sd][k++] = (double)frame_len(ix->R, ix->R->win_f0 + f);
        }
        ludus__sort_f64(x[sd], n[sd]);
    }
    rc = 0;
    if (!n[0] || !n[1]) goto done;
    double z = ludus__z_two_sided(d->desc.alpha / 3), lm = log1p(d->desc.min_shift);
    for (int qi = 0; qi < 3; qi++) {
        double q = qs[qi];
        struct ludus_diff_frame_pct *P = &d->info.frame_pct[qi];
        P->q = q;
        double lo[2], hi[2], est[2];
        for (int sd = 0; sd < 2; sd++) {
            double nn = (double)n[sd], half = z * sqrt(nn * q * (1 - q));
            est[sd] = nearest_rank(x[sd], n[sd], q);
            lo[sd] = rank_at(x[sd], n[sd], floor(nn * q - half));
            hi[sd] = rank_at(x[sd], n[sd], ceil(nn * q + half) + 1);
        }
        P->base_ns = (int64_t)est[0];
        P->new_ns = (int64_t)est[1];
        if (!(est[0] > 0 && est[1] > 0 && lo[0] > 0 && lo[1] > 0)) continue;
        /* the percentile per run and per block of a run */
        uint32_t nv[2][2] = {{0, 0}, {0, 0}};
        for (int sd = 0; sd < 2; sd++)
            for (uint32_t r = 0; r < d->nruns[sd]; r++) {
                const run_index *ix = &d->index[sd][r];
                for (uint64_t f = 0; f < ix->nw; f++) tmp[f] = (double)frame_len(ix->R, ix->R->win_f0 + f);
                for (uint32_t bk = 0; bk < ix->blocks; bk++) {
                    uint64_t f0 = 0, f1;
                    for (uint32_t j = 0; j < bk; j++) f0 += ix->block_frames[j];
                    f1 = f0 + ix->block_frames[bk];
                    ludus__sort_f64(tmp + f0, f1 - f0);
                    double pv = nearest_rank(tmp + f0, f1 - f0, q);
                    if (pv > 0) v[sd][1][nv[sd][1]++] = log(pv);
                }
                ludus__sort_f64(tmp, ix->nw);
                double pv = ix->nw ? nearest_rank(tmp, ix->nw, q) : 0;
                if (pv > 0) v[sd][0][nv[sd][0]++] = log(pv);
            }
        noise nz = noise_of(d, v[0][0], nv[0][0], v[1][0], nv[1][0], v[0][1], nv[0][1], v[1][1], nv[1][1],
                            log1p(d->desc.run_noise));
        P->noise_sd = nz.sd;
        double e = log(est[1] / est[0]), l = log(lo[1] / hi[0]), h = log(hi[1] / lo[0]);
        double dl = e - l, dh = h - e;
        P->rel = expm1(e);
        P->lo = isfinite(nz.lo) ? expm1(e - sqrt(dl * dl + nz.lo * nz.lo)) : -1;
        P->hi = isfinite(nz.hi) ? expm1(e + sqrt(dh * dh + nz.hi * nz.hi)) : HUGE_VAL;
        if (P->lo >= d->desc.min_shift)
            P->verdict = LUDUS_DIFF_SLOWER;
        else if (P->hi <= -d->desc.min_shift)
            P->verdict = LUDUS_DIFF_FASTER;
        else if (l >= lm || h <= -lm)
            P->verdict = LUDUS_DIFF_UNDECIDED;
    }
done:
    for (int sd = 0; sd < 2; sd++) {
        ludus__free(x[sd]);
        ludus__free(v[sd][0]);
        ludus__free(v[sd][1]);
    }
    ludus__free(tmp);
    return rc;
}

/* ---- counters ---- */

/* A per-frame statistic's values over the window's frames, sorted (malloc'd). */
static double *window_values(const ludus_analysis *a, const ludus__an_counter *k, size_t *n) {
    double *x = ludus__malloc((k->v.n ? k->v.n : 1) * sizeof *x);
    *n = 0;
    if (!x) return NULL;
    ludus__vrun_it it;
    for (ludus__vrun_begin(&k->v, &it); ludus__vrun_next(&it);)
        if (it.v.frame >= a->win_f0 && it.v.frame < a->win_f1) x[(*n)++] = it.v.value;
    ludus__sort_f64(x, *n);
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
            ludus_counter_diff *c = &d->counters[d->ncounters++];
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
        ludus_counter_diff *c = &d->counters[i];
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

const ludus_counter_diff *ludus_diff_counter(const ludus_diff *d, uint32_t i) {
    return d && i < d->ncounters ? &d->counters[i] : NULL;
}

/* "more work" for an amount per frame, "higher" for a level. */
static const char *counter_verdict(const ludus_counter_diff *c) {
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
static int gate_names(const ludus_gate *g, const ludus_counter_diff *c) {
    size_t nl = strlen(c->name);
    if (!strncmp(g->counter, c->name, nl) && g->counter[nl] == ' ' && !strcmp(g->counter + nl + 1, c->series)) return 1;
    return !strcmp(g->counter, c->name) &&
           (!strcmp(c->series, "per frame") || !strcmp(c->series, "last") || !strcmp(c->series, "live bytes"));
}

/* Work that moves between callers or threads is the same work: a path's
 * more/less work and more/less time per frame stand only when its site
 * (the same scope over every caller and thread) changed the same way; else
 * the path is LUDUS_DIFF_MOVED. A job a worker steals in one run and the
 * caller runs in the next changes two paths in opposite ways, its site
 * not at all. */
static int settle_moved(ludus_diff *d) {
    const ludus_analysis *T[2] = {d->base, d->newer};
    int64_t *site_entry[2];
    int rc = 0;
    for (int sd = 0; sd < 2; sd++) {
        site_entry[sd] = ludus__malloc((T[sd]->nsites + 1) * sizeof *site_entry[sd]);
        if (!site_entry[sd]) rc = -1;
        for (uint32_t k = 0; site_entry[sd] && k <= T[sd]->nsites; k++) site_entry[sd][k] = -1;
    }
    for (uint32_t i = 0; i < d->n && rc == 0; i++) {
        const ludus_site_diff *e = &d->e[i];
        if (e->is_path) continue;
        if (e->base_index >= 0) site_entry[0][e->base_index] = i;
        if (e->new_index >= 0) site_entry[1][e->new_index] = i;
    }
    const uint32_t moves = LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK | LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_LESS_TIME;
    for (uint32_t i = 0; i < d->n && rc == 0; i++) {
        ludus_site_diff *e = &d->e[i];
        if (!e->is_path || !(e->verdict & moves) || e->base_index < 0 || e->new_index < 0) continue;
        int64_t s = site_entry[0][T[0]->nodes[e->base_index].pub.site];
        uint32_t site_v = s >= 0 ? d->e[s].verdict : 0, lost = e->verdict & moves & ~site_v;
        if (!lost) continue;
        e->verdict &= ~lost;
        e->verdict |= LUDUS_DIFF_MOVED;
    }
    for (int sd = 0; sd < 2; sd++) ludus__free(site_entry[sd]);
    return rc;
}

/* "Slower inside" says a child got slower: it stands only where a path below
 * the entry changed (slower work, more work, or new). An inclusive time that
 * grew with no such child grew by waiting or preemption inside the scope,
 * which a loaded machine adds to every long scope. Below: in the path tree
 * of either side (for a site: the site encloses such a path). Each changed
 * path marks its ancestors, stopping at one already marked: linear. */
static int explain_inside(ludus_diff *d) {
    const uint32_t cause = LUDUS_DIFF_SLOWER | LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_NEW;
    const ludus_analysis *T[2] = {d->base, d->newer};
    uint8_t *below[2], *site_above[2];
    int rc = 0;
    for (int sd = 0; sd < 2; sd++) {
        below[sd] = ludus__calloc(T[sd]->nnodes + 1, 1);
        site_above[sd] = ludus__calloc(T[sd]->nsites + 1, 1);
        if (!below[sd] || !site_above[sd]) rc = -1;
    }
    for (uint32_t k = 0; k < d->n && rc == 0; k++) {
        const ludus_site_diff *e = &d->e[k];
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
        ludus_site_diff *e = &d->e[i];
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

/* ---- the machine changed ----
 * One run per side on a machine whose load changes between the runs makes
 * nearly every site slower (faster) together: a shift of the whole run,
 * not of the code. Found when at least 3 in 4 of the sites that matter (at
 * least MACHINE_MIN_SITES) moved their time per call the way their median
 * did, and that median lies beyond min_shift (ludus_diff_info.machine_shift).
 * A load does not slow every site alike (a spinning wait not at all), so
 * every time verdict is then judged against the common shift widened by
 * how much the sites disagree about it: twice their robust spread (1.4826
 * x the median absolute deviation), at least min_shift. */
#define MACHINE_MIN_SITES 3

/* 1 when the relative interval [lo, hi] of a change, taken relative to the
 * common shift c (log scale), still lies beyond t (log scale) in the
 * direction dir. */
static int beyond(double lo, double hi, double c, double t, int dir) {
    if (dir > 0) return lo > -1 && log1p(lo) - c >= t;
    return isfinite(hi) && hi > -1 && log1p(hi) - c <= -t;
}

static int settle_machine(ludus_diff *d) {
    double *x = ludus__malloc((2 * d->n + 1) * sizeof *x);
    if (!x) return -1;
    double *dev = x + d->n;
    double med_frame = (double)d->base->sum.median_frame_ns;
    double floor_ns = d->desc.min_frame_share * med_frame, lm = log1p(d->desc.min_shift);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n; i++) {
        const ludus_site_diff *e = &d->e[i];
        if (e->is_path || e->base_index < 0 || e->new_index < 0 || !e->base_excl.count || !e->new_excl.count) continue;
        if (entry_waits(d, e) || (e->verdict & (LUDUS_DIFF_WAITED_LONGER | LUDUS_DIFF_WAITED_LESS))) continue;
        if (!(e->shift > -1) || !isfinite(e->shift)) continue;
        double per_frame = e->work_time_bound ? e->base_total_ns * med_frame / 1e9 : e->base_total_ns;
        if (!(med_frame > 0) || per_frame < floor_ns) continue; /* too small to move with the machine visibly */
        x[n++] = log1p(e->shift);
    }
    d->info.machine_of = n;
    d->info.base_frame_cpu_ns = d->base->sum.median_frame_cpu_ns > 0 ? d->base->sum.median_frame_cpu_ns : -1;
    d->info.new_frame_cpu_ns = d->newer->sum.median_frame_cpu_ns > 0 ? d->newer->sum.median_frame_cpu_ns : -1;
    if (n < MACHINE_MIN_SITES) goto done;
    ludus__sort_f64(x, n);
    double c = x[(n - 1) / 2];
    uint32_t together = 0;
    for (uint32_t k = 0; k < n; k++) {
        together += c > 0 ? x[k] > 0 : x[k] < 0;
        dev[k] = fabs(x[k] - c);
    }
    d->info.machine_sites = together;
    if (fabs(c) < lm || together < MACHINE_MIN_SITES || 4 * together < 3 * n) goto done;
    ludus__sort_f64(dev, n);
    double t = fmax(lm, 2 * 1.4826 * dev[(n - 1) / 2]);
    d->info.machine_shift = expm1(c);
    d->info.machine_spread = expm1(t);
    for (uint32_t i = 0; i < d->n; i++) {
        ludus_site_diff *e = &d->e[i];
        uint32_t v = e->verdict;
        if ((v & LUDUS_DIFF_SLOWER) && !beyond(e->shift_lo, e->shift_hi, c, t, 1)) v &= ~LUDUS_DIFF_SLOWER;
        if ((v & LUDUS_DIFF_FASTER) && !beyond(e->shift_lo, e->shift_hi, c, t, -1)) v &= ~LUDUS_DIFF_FASTER;
        if ((v & LUDUS_DIFF_MORE_TIME) && !beyond(e->total_lo, e->total_hi, c, t, 1)) v &= ~LUDUS_DIFF_MORE_TIME;
        if ((v & LUDUS_DIFF_LESS_TIME) && !beyond(e->total_lo, e->total_hi, c, t, -1)) v &= ~LUDUS_DIFF_LESS_TIME;
        if ((v & LUDUS_DIFF_SLOWER_INSIDE) && !beyond(e->incl_shift_lo, e->incl_shift_hi, c, t, 1) &&
            !beyond(e->incl_total_lo, e->incl_total_hi, c, t, 1))
            v &= ~LUDUS_DIFF_SLOWER_INSIDE;
        e->verdict = v;
    }
done:
    ludus__free(x);
    return 0;
}

/* The frame-time percentiles judged against the machine's common shift. */
static void settle_machine_frames(ludus_diff *d) {
    if (d->info.machine_shift == 0) return;
    double c = log1p(d->info.machine_shift), t = log1p(d->info.machine_spread);
    for (int q = 0; q < 3; q++) {
        struct ludus_diff_frame_pct *P = &d->info.frame_pct[q];
        if (P->verdict == LUDUS_DIFF_SLOWER && !beyond(P->lo, P->hi, c, t, 1)) P->verdict = 0;
        if (P->verdict == LUDUS_DIFF_FASTER && !beyond(P->lo, P->hi, c, t, -1)) P->verdict = 0;
    }
}

int ludus_diff_create(const ludus_analysis *A, const ludus_analysis *B, const ludus_diff_desc *desc, ludus_diff **out) {
    return ludus_diff_create_runs(&A, 1, &B, 1, desc, out);
}

/* One entry of the diff: both sides' statistics and verdict, or the one
 * side's where the other has none. */
typedef struct compare_job {
    ludus_diff *d;
    int *rc; /* per entry: 0 or LUDUS_ENOMEM */
} compare_job;
#define PARALLEL_CELLS 100000u /* frames x entries below which the cores are not worth their start */
unsigned ludus__diff_threads = 8u;

static void compare_one(void *arg, unsigned worker, uint32_t k) {
    (void)worker;
    compare_job *job = arg;
    ludus_diff *d = job->d;
    ludus_site_diff *e = &d->e[k];
    const ludus_analysis *A = d->base, *B = d->newer;
    e->run_sd = NAN;
    e->shift_lo = e->incl_shift_lo = -HUGE_VAL;
    e->shift_hi = e->incl_shift_hi = HUGE_VAL;
    e->p_calls = e->p_time = e->p_incl = e->p_calls_per_s = e->p_shift = e->p_total = 1;
    e->total_lo = e->incl_total_lo = -HUGE_VAL;
    e->total_hi = e->incl_total_hi = HUGE_VAL;
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
        return;
    }
    job->rc[k] = compare_entry(d, e);
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
        ludus_site_diff *e = &d->e[d->n++];
        e->name = s->name;
        e->base_index = i;
        e->new_index = index_site(&d->index[1][0], s, bmatch_s);
        if (e->new_index >= 0) bmatch_s[e->new_index] = i;
    }
    for (uint32_t j = 0; j < B->nsites; j++)
        if (bmatch_s[j] < 0) {
            ludus_site_diff *e = &d->e[d->n++];
            e->name = B->sites[j].pub.name;
            e->base_index = -1;
            e->new_index = j;
        }
    uint32_t first_path = d->n;
    for (uint32_t i = 0; i < A->nnodes; i++) {
        ludus_site_diff *e = &d->e[d->n++];
        e->is_path = 1;
        e->base_index = i;
        e->new_index = index_path(&d->index[1][0], A->nodes[i].key, bmatch_p);
        if (e->new_index >= 0) bmatch_p[e->new_index] = i;
    }
    for (uint32_t j = 0; j < B->nnodes; j++)
        if (bmatch_p[j] < 0) {
            ludus_site_diff *e = &d->e[d->n++];
            e->is_path = 1;
            e->base_index = -1;
            e->new_index = j;
        }
    ludus__free(bmatch_s);
    ludus__free(bmatch_p);
    /* sites whose name another site shares (on either side): their file:line after it */
    for (uint32_t k = 0; k < first_path; k++) {
        ludus_site_diff *e = &d->e[k];
        const ludus_analysis *side = e->base_index >= 0 ? A : B;
        uint32_t si = (uint32_t)(e->base_index >= 0 ? e->base_index : e->new_index);
        int shared = side->sites[si].name_shared ||
                     (e->base_index >= 0 && e->new_index >= 0 && B->sites[e->new_index].name_shared);
        if (!shared) continue;
        char buf[1024];
        d->names[k] = ludus__strdup(ludus_analysis_site_label(side, si, buf, sizeof buf));
        if (!d->names[k]) goto oom;
        e->name = d->names[k];
    }
    for (uint32_t k = first_path; k < d->n; k++) {
        ludus_site_diff *e = &d->e[k];
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
        if (d->e[k].base_index >= 0 && d->e[k].new_index >= 0)
            d->tests += 6; /* calls per frame and per s, excl and incl per call and per frame */
    d->info.base_runs = nbase;
    d->info.new_runs = nnewer;
    d->info.run_noise_known = nbase + nnewer >= 3;
    d->info.alpha_per_test = d->desc.alpha / (d->tests ? d->tests : 1);
    d->z = ludus__z_two_sided(d->info.alpha_per_test);
    d->run_z = ludus__z_two_sided(d->desc.run_alpha);
    if (!(d->run_t_df = ludus__calloc(nbase + nnewer + 1, sizeof *d->run_t_df))) goto oom;
    d->info.run_t = d->info.run_noise_known ? ludus__t_two_sided(d->desc.run_alpha, (double)(nbase + nnewer - 2))
                                            : ludus__z_two_sided(d->desc.run_alpha);
    /* the t quantiles every entry may need, before the entries share them */
    for (uint32_t t_df = 1; t_df <= nbase + nnewer; t_df++)
        d->run_t_df[t_df] = ludus__t_two_sided(d->desc.run_alpha, (double)t_df);
    double *sds = ludus__malloc((d->n + 1) * sizeof *sds);
    int *rcs = ludus__calloc(d->n + 1, sizeof *rcs);
    uint32_t nsds = 0;
    if (!sds || !rcs) {
        ludus__free(sds);
        ludus__free(rcs);
        goto oom;
    }
    /* Each entry reads the analyses and writes itself only: the entries are
     * compared on the machine's cores when there is enough to share (a few
     * thousand frames), on this thread otherwise (and a fault-injection
     * test's allocations stay the arming thread's). */
    compare_job job = {d, rcs};
    uint64_t frames = A->sum.frames_complete + B->sum.frames_complete;
    ludus__parallel_for(d->n, frames * d->n >= PARALLEL_CELLS ? ludus__diff_threads : 1u, compare_one, &job);
    for (uint32_t k = 0; k < d->n; k++) {
        ludus_site_diff *e = &d->e[k];
        if (rcs[k] != 0) {
            ludus__free(sds);
            ludus__free(rcs);
            goto oom;
        }
        if (e->base_index < 0 || e->new_index < 0) continue;
        if (isfinite(e->run_sd) && e->base_excl.count && e->new_excl.count) sds[nsds++] = e->run_sd;
        if (e->verdict & LUDUS_DIFF_UNDECIDED) d->info.undecided++;
    }
    ludus__free(rcs);
    if (settle_machine(d) != 0 || settle_moved(d) != 0 || explain_inside(d) != 0) {
        ludus__free(sds);
        goto oom;
    }
    if (nsds) {
        ludus__sort_f64(sds, nsds);
        d->info.run_sd_median = expm1(sds[(nsds - 1) / 2]);
        d->info.run_sd_max = expm1(sds[nsds - 1]);
    }
    ludus__free(sds);
    d->info.desc = d->desc;
    d->info.blocks = NOISE_BLOCKS;
    for (int sd = 0; sd < 2; sd++)
        for (uint32_t r = 0; r < d->nruns[sd]; r++)
            if (d->index[sd][r].blocks < d->info.blocks) d->info.blocks = d->index[sd][r].blocks;
    if (diff_frames(d) != 0 || diff_counters(d) != 0 || ludus__locks_diff(A, B, &d->desc, &d->locks) != 0) goto oom;
    settle_machine_frames(d);
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
    ludus__free(d->gate_lines);
    ludus__free(d->runs[0]);
    ludus__free(d->runs[1]);
    ludus__locks_diff_free(&d->locks);
    ludus__free(d);
}

void ludus_diff_get_info(const ludus_diff *d, ludus_diff_info *out) {
    *out = d->info;
}

uint32_t ludus_diff_entry_count(const ludus_diff *d) {
    return d->n;
}
const ludus_site_diff *ludus_diff_entry(const ludus_diff *d, uint32_t i) {
    return i < d->n ? &d->e[i] : NULL;
}
int64_t ludus_diff_find_entry(const ludus_diff *d, const char *name, int is_path) {
    for (uint32_t i = 0; i < d->n; i++)
        if (d->e[i].is_path == is_path && !strcmp(d->e[i].name, name)) return i;
    if (!is_path) /* a site's own name, when its entry shows it with file:line */
        for (uint32_t i = 0; i < d->n; i++) {
            const ludus_site_diff *e = &d->e[i];
            size_t n = strlen(name);
            if (!e->is_path && !strncmp(e->name, name, n) && !strncmp(e->name + n, " (", 2)) return i;
        }
    return -1;
}

/* ---- gates ---- */

static const char *verdict_text(uint32_t v, char *buf, size_t cap);

/* In LUDUS_METRIC_* order; "warnings" and "errors" compare the messages
 * logged per frame (timeline.c). */
static const char *metric_names[] = {"mean", "p50",    "p90",      "p99",   "calls",  "counter",
                                     "lock", "errors", "warnings", "total", "verdict"};

/* The verdict gates, longest phrase first ("slower work" before "slower"). */
static const struct {
    const char *t;
    uint32_t bit;
} verdict_gates[] = {{"more time per frame", LUDUS_DIFF_MORE_TIME},
                     {"less time per frame", LUDUS_DIFF_LESS_TIME},
                     {"slower work", LUDUS_DIFF_SLOWER},
                     {"faster work", LUDUS_DIFF_FASTER},
                     {"more work", LUDUS_DIFF_MORE_WORK},
                     {"less work", LUDUS_DIFF_LESS_WORK},
                     {"slower", LUDUS_DIFF_SLOWER},
                     {"faster", LUDUS_DIFF_FASTER}};

/* Copies [p, e) without its trailing blanks into g->counter: the NAME. */
static int gate_name(ludus_gate *g, const char *text, const char *p, const char *e, const char *what) {
    while (e > p && e[-1] == ' ') e--;
    if (e == p || (size_t)(e - p) >= sizeof g->counter)
        return ludus__fail(LUDUS_EINVAL, "gate '%s': '%s' takes a name (under 64 bytes)", text, what);
    memcpy(g->counter, p, (size_t)(e - p));
    g->counter[e - p] = 0;
    return 0;
}

int ludus_gate_parse(const char *text, ludus_gate *g) {
    if (!text || !g) return ludus__fail(LUDUS_EINVAL, "gate or its text is NULL");
    memset(g, 0, sizeof *g);
    snprintf(g->text, sizeof g->text, "%s", text);
    const char *p = text;
    while (*p == ' ') p++;
    for (size_t i = 0; i < sizeof verdict_gates / sizeof verdict_gates[0]; i++) {
        size_t l = strlen(verdict_gates[i].t);
        if (strncmp(p, verdict_gates[i].t, l) || (p[l] && p[l] != ' ')) continue;
        g->metric = LUDUS_METRIC_VERDICT;
        g->verdict = verdict_gates[i].bit;
        p += l;
        while (*p == ' ') p++;
        if (*p == '<' || *p == '>')
            return ludus__fail(LUDUS_EINVAL, "gate '%s': a verdict gate takes no threshold ('%s' or '%s NAME')", text,
                               verdict_gates[i].t, verdict_gates[i].t);
        return *p ? gate_name(g, text, p, p + strlen(p), verdict_gates[i].t) : 0;
    }
    int m = -1;
    for (int i = 0; i <= LUDUS_METRIC_TOTAL; i++) { /* "verdict" is no gate's word */
        size_t l = strlen(metric_names[i]);
        if (!strncmp(p, metric_names[i], l) && (!p[l] || strchr(" <>", p[l]))) {
            m = i;
            p += l;
            break;
        }
    }
    if (m < 0)
        return ludus__fail(LUDUS_EINVAL,
                           "gate '%s': starts with none of p50, p90, p99, mean, calls, total, counter, lock, errors, "
                           "warnings, slower, faster, more work, less work, more time per frame, less time per frame",
                           text);
    while (*p == ' ') p++;
    /* "counter NAME [SERIES] > ...", "lock NAME > ...", "p50 NAME > ..." */
    int named = m == LUDUS_METRIC_COUNTER || m == LUDUS_METRIC_LOCK;
    if (named || (m != LUDUS_METRIC_ERRORS && m != LUDUS_METRIC_WARNINGS && *p && *p != '<' && *p != '>')) {
        const char *op = p + strcspn(p, "<>");
        if (gate_name(g, text, p, op, metric_names[m]) != 0) return LUDUS_EINVAL;
        p = op;
    }
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

/* Levenshtein distance of a and b (b cut at 255 bytes), at most cap. */
static uint32_t edit_distance(const char *a, const char *b, uint32_t cap) {
    uint32_t row[256], la = (uint32_t)strlen(a), lb = (uint32_t)strnlen(b, 255);
    for (uint32_t j = 0; j <= lb; j++) row[j] = j;
    for (uint32_t i = 1; i <= la; i++) {
        uint32_t diag = row[0], best = row[0] = i;
        for (uint32_t j = 1; j <= lb; j++) {
            uint32_t up = row[j], v = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < v) v = up + 1;
            if (row[j - 1] + 1 < v) v = row[j - 1] + 1;
            diag = up;
            row[j] = v;
            if (v < best) best = v;
        }
        if (best > cap) return cap + 1; /* every later row is at least this */
    }
    return row[lb];
}

/* The three names nearest to the gate's NAME. */
typedef struct nearest {
    const char *name[3];
    char owned[3][128]; /* a counter's "NAME SERIES" */
    uint32_t dist[3];
} nearest;

static void nearest_add(nearest *n, const char *gate, const char *cand, int copy) {
    for (int k = 0; k < 3; k++)
        if (n->name[k] && !strcmp(n->name[k], cand)) return;
    uint32_t dd = edit_distance(gate, cand, n->name[2] ? n->dist[2] : UINT32_MAX - 1);
    int at = 3;
    while (at > 0 && (!n->name[at - 1] || dd < n->dist[at - 1])) at--;
    if (at == 3) return;
    for (int k = 2; k > at; k--) {
        n->dist[k] = n->dist[k - 1];
        if (n->name[k - 1] == n->owned[k - 1]) {
            memcpy(n->owned[k], n->owned[k - 1], sizeof n->owned[k]);
            n->name[k] = n->owned[k];
        } else {
            n->name[k] = n->name[k - 1];
        }
    }
    n->dist[at] = dd;
    if (copy) {
        snprintf(n->owned[at], sizeof n->owned[at], "%s", cand);
        n->name[at] = n->owned[at];
    } else {
        n->name[at] = cand;
    }
}

int ludus_diff_gate_validate(const ludus_diff *d, const ludus_gate *g) {
    if (!d || !g) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    if (!g->counter[0] || g->metric == LUDUS_METRIC_ERRORS || g->metric == LUDUS_METRIC_WARNINGS) return 0;
    nearest n;
    memset(&n, 0, sizeof n);
    const char *what;
    if (g->metric == LUDUS_METRIC_COUNTER) {
        what = "counter";
        for (uint32_t i = 0; i < d->ncounters; i++) {
            const ludus_counter_diff *c = &d->counters[i];
            if (gate_names(g, c)) return 0;
            char both[128];
            snprintf(both, sizeof both, "%s %s", c->name, c->series);
            nearest_add(&n, g->counter, c->name, 0);
            nearest_add(&n, g->counter, both, 1);
        }
    } else if (g->metric == LUDUS_METRIC_LOCK) {
        what = "lock";
        for (uint32_t i = 0; i < d->locks.n; i++) {
            if (!strcmp(d->locks.v[i].name, g->counter)) return 0;
            nearest_add(&n, g->counter, d->locks.v[i].name, 0);
        }
    } else {
        what = "site or path";
        for (uint32_t i = 0; i < d->n; i++) {
            if (!strcmp(d->e[i].name, g->counter)) return 0;
            nearest_add(&n, g->counter, d->e[i].name, 0);
        }
    }
    char list[400], name[3][96], gn[96];
    size_t k = 0;
    list[0] = 0;
    for (int i = 0; i < 3 && n.name[i]; i++)
        k += (size_t)snprintf(list + k, k < sizeof list ? sizeof list - k : 0, "%s'%s'", i ? ", " : "",
                              ludus__text_name(name[i], sizeof name[i], n.name[i], 80));
    return ludus__fail(LUDUS_EINVAL, "gate '%s': no %s named '%s' on either side%s%s%s", g->text, what,
                       ludus__text_name(gn, sizeof gn, g->counter, 80),
                       g->metric == LUDUS_METRIC_LOCK ? " (a lock is known by its contended waits)" : "",
                       n.name[0] ? "; nearest: " : "", list);
}

uint32_t ludus_diff_check_gates(const ludus_diff *d, const ludus_gate *gates, uint32_t ngates, ludus_write_fn write,
                                void *ud) {
    uint32_t tripped = ludus__locks_check_gates(&d->locks, gates, ngates, write, ud);
    tripped += ludus__messages_check_gates(d->base, d->newer, gates, ngates, write, ud);
    for (uint32_t i = 0; i < d->ncounters; i++) {
        const ludus_counter_diff *c = &d->counters[i];
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
        const ludus_site_diff *e = &d->e[i];
        for (uint32_t g = 0; g < ngates; g++) {
            const ludus_gate *gt = &gates[g];
            int total = gt->metric == LUDUS_METRIC_TOTAL, verdict = gt->metric == LUDUS_METRIC_VERDICT;
            if (gt->metric >= LUDUS_METRIC_COUNTER && !total && !verdict) continue; /* counters and locks: above */
            if (gt->counter[0] && strcmp(gt->counter, e->name)) continue;
            if (gt->sites_only && e->is_path && !gt->counter[0]) continue; /* a named path is still gated */
            uint32_t need = verdict                            ? gt->verdict
                            : total                            ? (LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_LESS_TIME)
                            : gt->metric == LUDUS_METRIC_CALLS ? (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK)
                                                               : (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER);
            if (!(e->verdict & need)) continue;
            double r = verdict ? 0 : total ? e->rel_total : e->rel[gt->metric];
            if (!verdict && !(gt->greater ? r > gt->rel : r < gt->rel)) continue;
            tripped++;
            if (write) {
                char line[1400], name[1100], v[160];
                int n = verdict
                            ? snprintf(line, sizeof line, "gate '%s' tripped: %s %s: %s\n", gt->text,
                                       e->is_path ? "path" : "site", ludus__text_name(name, sizeof name, e->name, 1024),
                                       verdict_text(e->verdict, v, sizeof v))
                            : snprintf(line, sizeof line, "gate '%s' tripped: %s %s %s %+.1f%%\n", gt->text,
                                       e->is_path ? "path" : "site", ludus__text_name(name, sizeof name, e->name, 1024),
                                       metric_names[gt->metric], r * 100);
                if (n > 0) write(ud, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
            }
        }
    }
    return tripped;
}

static int gate_line_write(void *ud, const void *data, size_t n) {
    ludus_diff *d = ud;
    char *p = ludus__realloc(d->gate_lines, d->gate_len + n + 1);
    if (!p) return -1;
    memcpy(p + d->gate_len, data, n);
    d->gate_lines = p;
    d->gate_len += n;
    p[d->gate_len] = 0;
    return 0;
}

uint32_t ludus_diff_set_gates(ludus_diff *d, const ludus_gate *gates, uint32_t ngates) {
    if (!d) return 0;
    ludus__free(d->gate_lines);
    d->gate_lines = NULL;
    d->gate_len = 0;
    d->gates_tripped = gates ? ludus_diff_check_gates(d, gates, ngates, gate_line_write, d) : 0;
    if (d->gates_tripped && !d->gate_lines) d->gates_tripped = 0; /* out of memory: nothing to list */
    return d->gates_tripped;
}

/* ---- reports ---- */

static const char *verdict_text(uint32_t v, char *buf, size_t cap) {
    buf[0] = 0;
    size_t n = 0;
    static const struct {
        uint32_t bit;
        const char *t;
    } names[] = {{LUDUS_DIFF_MORE_TIME, "more time per frame"},
                 {LUDUS_DIFF_LESS_TIME, "less time per frame"},
                 {LUDUS_DIFF_MORE_WORK, "more work"},
                 {LUDUS_DIFF_LESS_WORK, "less work"},
                 {LUDUS_DIFF_SLOWER, "slower work"},
                 {LUDUS_DIFF_FASTER, "faster work"},
                 {LUDUS_DIFF_SLOWER_INSIDE, "slower inside (a child)"},
                 {LUDUS_DIFF_NEW, "new"},
                 {LUDUS_DIFF_GONE, "gone"},
                 {LUDUS_DIFF_UNDECIDED, "near the line"},
                 {LUDUS_DIFF_MOVED, "moved (its site's calls and time did not change)"},
                 {LUDUS_DIFF_WAITED_LONGER, "waited longer (on other threads' work)"},
                 {LUDUS_DIFF_WAITED_LESS, "waited less (on other threads' work)"}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (v & names[i].bit) n += (size_t)snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", n ? " + " : "", names[i].t);
    if (!n) snprintf(buf, cap, "no change");
    return buf;
}

/* "more calls", "slower calls", "heavier tail" as the change goes, largest part first. */
static const char *cause_text(const ludus_site_diff *e, char *buf, size_t cap) {
    int up = e->rel_total > 0;
    const struct {
        uint32_t bit;
        double part;
        const char *t;
    } p[3] = {{LUDUS_DIFF_CAUSE_CALLS, e->part_calls, up ? "more calls" : "fewer calls"},
              {LUDUS_DIFF_CAUSE_TYPICAL, e->part_typical, up ? "slower calls" : "faster calls"},
              {LUDUS_DIFF_CAUSE_TAIL, e->part_tail, up ? "heavier tail" : "lighter tail"}};
    int order[3] = {0, 1, 2};
    for (int i = 0; i < 3; i++)
        for (int j = i + 1; j < 3; j++)
            if (fabs(p[order[j]].part) > fabs(p[order[i]].part)) {
                int t = order[i];
                order[i] = order[j];
                order[j] = t;
            }
    buf[0] = 0;
    size_t n = 0;
    for (int i = 0; i < 3; i++)
        if (e->time_cause & p[order[i]].bit)
            n += (size_t)snprintf(buf + n, cap > n ? cap - n : 0, "%s%s", n ? " and " : "", p[order[i]].t);
    if (!n) snprintf(buf, cap, "no part alone");
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

/* "p 0.012", "p < 1e-16" (the normal tail underflows past that). */
static const char *p_text(char *buf, size_t cap, double p) {
    if (p < 1e-16)
        snprintf(buf, cap, "p < 1e-16");
    else
        snprintf(buf, cap, "p %.2g", p);
    return buf;
}

static const char *work_word(uint32_t v) {
    return v == LUDUS_DIFF_MORE_WORK ? "more work" : v == LUDUS_DIFF_LESS_WORK ? "less work" : "no change";
}

/* A time per frame: ns, or for a site that runs on time its share of the frame. */
static const char *per_frame_text(char *buf, size_t cap, double v, int per_second) {
    if (per_second)
        snprintf(buf, cap, "%.2f%% of the frame", v / 1e7);
    else
        ludus__dur(buf, cap, v);
    return buf;
}

/* 1 when an interval that excludes 0 points one way and the means per
 * frame shown beside it moved the other: no verdict rests on it. */
static int apart_of(double est, double lo, double hi, double base_mean, double new_mean) {
    return (lo > 0 || hi < 0) && (est > 0) != (new_mean > base_mean);
}

/* With one run per side a verdict says these two runs differ, not that the
 * code does: said in the verdict column itself. */
#define ONE_RUN_NOTE " (one run per side: these runs differ; the code may not: give several runs)"

static void text_line(ludus__writer *w, const ludus_site_diff *e, int one_run) {
    char v[160], b1[32], b2[32], b3[32], b4[32], b5[32], si[80], ii[80], ti[80], name[256], cause[80], p1[32];
    int tested = e->base_index >= 0 && e->new_index >= 0 && e->base_excl.count && e->new_excl.count;
    int ps = e->work_time_bound;
    ludus__w_fmt(w, "  %-40s %s%s\n", ludus__text_name(name, sizeof name, e->name, e->is_path ? 200 : 40),
                 verdict_text(e->verdict, v, sizeof v),
                 one_run && (e->verdict & LUDUS_DIFF_CHANGED) ? ONE_RUN_NOTE : "");
    if (tested) {
        ludus__w_fmt(w, "      time per frame %s -> %s  %s  %s", per_frame_text(b1, 32, e->base_total_ns, ps),
                     per_frame_text(b2, 32, e->new_total_ns, ps),
                     isfinite(e->total_lo) || isfinite(e->total_hi)
                         ? interval(ti, sizeof ti, e->rel_total, e->total_lo, e->total_hi)
                         : "-",
                     p_text(p1, sizeof p1, e->p_total));
        int apart = apart_of(e->rel_total, e->total_lo, e->total_hi, e->base_total_ns, e->new_total_ns);
        if (!e->is_path && (isfinite(e->incl_total_lo) || isfinite(e->incl_total_hi))) {
            ludus__w_fmt(w, "  (inclusive %s -> %s  %s)", per_frame_text(b1, 32, e->base_incl_total_ns, ps),
                         per_frame_text(b2, 32, e->new_incl_total_ns, ps),
                         interval(ii, sizeof ii, e->rel_incl_total, e->incl_total_lo, e->incl_total_hi));
            apart |= apart_of(e->rel_incl_total, e->incl_total_lo, e->incl_total_hi, e->base_incl_total_ns,
                              e->new_incl_total_ns);
        }
        if (apart) ludus__w_str(w, "  the frames' typical total and the mean per frame move apart: no verdict on them");
        ludus__w_str(w, "\n");
        if (e->verdict & (LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_LESS_TIME)) {
            ludus__w_fmt(w, "      %s: calls %+.0f%%, typical call %+.0f%%, the rest (tail) %+.0f%%",
                         cause_text(e, cause, sizeof cause), expm1(e->part_calls) * 100, expm1(e->part_typical) * 100,
                         expm1(e->part_tail) * 100);
            if (e->time_cause & LUDUS_DIFF_CAUSE_TAIL && e->tail_share > 0)
                ludus__w_fmt(w,
                             "; the heaviest %.0f%% of the calls (%.2f -> %.2f per frame, from %s in BASE): %s -> %s "
                             "per frame; per call p90 %s, p99 %s",
                             e->tail_share * 100, e->base_tail_calls, e->new_tail_calls,
                             ludus__dur(b1, 32, (double)e->tail_ns), ludus__dur(b2, 32, e->base_tail_ns),
                             ludus__dur(b3, 32, e->new_tail_ns), pct(b4, 32, e->rel[LUDUS_METRIC_P90]),
                             pct(b5, 32, e->rel[LUDUS_METRIC_P99]));
            ludus__w_str(w, "\n");
        }
    }
    ludus__w_fmt(w, "      calls/frame %.2f -> %.2f (%s, per s %s)", e->base_calls_per_frame, e->new_calls_per_frame,
                 pct(b1, 32, e->rel[LUDUS_METRIC_CALLS]), pct(b5, 32, e->rel_calls_per_s));
    if (tested)
        ludus__w_fmt(w, "  per call: excl p50 %s -> %s, shift %s %s, p90 %s, p99 %s, mean %s; incl shift %s",
                     ludus__dur(b2, 32, (double)e->base_excl.p50_ns), ludus__dur(b3, 32, (double)e->new_excl.p50_ns),
                     interval(si, sizeof si, e->shift, e->shift_lo, e->shift_hi), p_text(p1, sizeof p1, e->p_shift),
                     pct(b1, 32, e->rel[LUDUS_METRIC_P90]), pct(b4, 32, e->rel[LUDUS_METRIC_P99]),
                     pct(b5, 32, e->rel[LUDUS_METRIC_MEAN]),
                     interval(ii, sizeof ii, e->incl_shift, e->incl_shift_lo, e->incl_shift_hi));
    ludus__w_str(w, "\n");
}

/* A finite JSON number for an interval end: -1 (ratio 0) or 1e9 when unbounded. */
static double jend(double x) {
    return isfinite(x) ? x : x > 0 ? 1e9 : -1;
}

static double jrel(double x) {
    return x == HUGE_VAL ? 1e9 : isfinite(x) ? x : 0;
}

static const char *frame_verdict(uint32_t v) {
    return v == LUDUS_DIFF_SLOWER      ? "slower"
           : v == LUDUS_DIFF_FASTER    ? "faster"
           : v == LUDUS_DIFF_UNDECIDED ? "near the line"
                                       : "no change";
}

void ludus__diff_json(const ludus_diff *d, ludus__writer *w) {
    const ludus_diff_info *I = &d->info;
    ludus__w_fmt(w,
                 "{\"method\":\"time per call: Hodges-Lehmann shift of the exclusive time (median of the NEW/BASE "
                 "ratios of all pairs of calls) with its distribution-free interval%s, widened by the run-to-run "
                 "term; time per frame: the same over the frames' totals of exclusive time (the frames that hold "
                 "calls, with the change of their share); work: Mann-Whitney U over calls per frame and calls per "
                 "second of the window's frames, both must agree\",\"alpha\":%g,\"tests\":%u,\"alpha_per_test\":%.17g,"
                 "\"min_change\":%g,\"min_shift\":%g,",
                 d->base->sum.exact && d->newer->sum.exact ? " (exact durations)"
                                                           : " (durations binned <= 0.78% apart)",
                 d->desc.alpha, d->tests, I->alpha_per_test, d->desc.min_change, d->desc.min_shift);
    ludus__w_fmt(w,
                 "\"runs\":{\"base\":%u,\"new\":%u,\"noise_known\":%s,\"sd_median\":%.6g,\"sd_max\":%.6g,"
                 "\"quantile\":%.6g,\"run_alpha\":%g,\"assumed_sd\":%g,\"blocks\":%u},\"undecided\":%u,",
                 I->base_runs, I->new_runs, I->run_noise_known ? "true" : "false", I->run_sd_median, I->run_sd_max,
                 I->run_t, d->desc.run_alpha, d->desc.run_noise, I->run_noise_known ? 0u : I->blocks, I->undecided);
    ludus__w_fmt(w,
                 "\"machine\":{\"changed\":%s,\"shift\":%.6f,\"beyond\":%.6f,\"sites\":%u,\"of\":%u,"
                 "\"frame_cpu_ns\":[%lld,%lld]},"
                 "\"frame_time\":[",
                 I->machine_shift != 0 ? "true" : "false", I->machine_shift, I->machine_spread, I->machine_sites,
                 I->machine_of, (long long)I->base_frame_cpu_ns, (long long)I->new_frame_cpu_ns);
    for (int q = 0; q < 3; q++) {
        const struct ludus_diff_frame_pct *P = &I->frame_pct[q];
        ludus__w_fmt(w,
                     "%s{\"q\":%g,\"base_ns\":%lld,\"new_ns\":%lld,\"rel\":[%.6f,%.6f,%.6f],\"noise_sd\":%.6g,"
                     "\"verdict\":\"%s\"}",
                     q ? "," : "", P->q, (long long)P->base_ns, (long long)P->new_ns, jrel(P->rel), jend(P->lo),
                     jend(P->hi), P->noise_sd, frame_verdict(P->verdict));
    }
    ludus__w_str(w, "],\"entries\":[");
    char v[160], cause[80];
    for (uint32_t i = 0; i < d->n; i++) {
        const ludus_site_diff *e = &d->e[i];
        ludus__w_fmt(w, "%s\n{\"kind\":\"%s\",\"name\":", i ? "," : "", e->is_path ? "path" : "site");
        ludus__w_jstr(w, e->name);
        ludus__w_str(w, ",\"verdict\":");
        ludus__w_jstr(w, verdict_text(e->verdict, v, sizeof v));
        ludus__w_fmt(w, ",\"flags\":%u,\"base_index\":%lld,\"new_index\":%lld,\"calls_per_frame\":[%.4f,%.4f],",
                     e->verdict, (long long)e->base_index, (long long)e->new_index, e->base_calls_per_frame,
                     e->new_calls_per_frame);
        ludus__w_str(w, "\"rel\":{");
        for (int m = 0; m < 5; m++) ludus__w_fmt(w, "%s\"%s\":%.6f", m ? "," : "", metric_names[m], jrel(e->rel[m]));
        ludus__w_fmt(w,
                     ",\"incl_p50\":%.6f,\"total\":%.6f},\"p_work\":%.6g,\"p_time\":%.6g,\"p_incl\":%.6g,"
                     "\"p_shift\":%.6g,\"p_total\":%.6g,\"base_excl\":",
                     jrel(e->rel_incl_p50), jrel(e->rel_total), e->p_calls, e->p_time, e->p_incl, e->p_shift,
                     e->p_total);
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
                     "\"work_basis\":\"%s\",",
                     e->shift, jend(e->shift_lo), jend(e->shift_hi), e->incl_shift, jend(e->incl_shift_lo),
                     jend(e->incl_shift_hi), isfinite(e->run_sd) ? expm1(e->run_sd) : -1, e->base_calls_per_s,
                     e->new_calls_per_s, jrel(e->rel_calls_per_s), e->p_calls_per_s, work_word(e->work_per_frame),
                     work_word(e->work_per_second), e->frame_time_r,
                     e->work_basis == 3   ? "both"
                     : e->work_basis == 2 ? "per second"
                     : e->work_basis == 1 ? "per frame"
                                          : "");
        ludus__w_fmt(
            w,
            "\"per_frame\":{\"unit\":\"%s\",\"excl\":[%.6g,%.6g],\"rel\":[%.6f,%.6f,%.6f],\"incl\":[%.6g,%.6g],"
            "\"incl_rel\":[%.6f,%.6f,%.6f],\"cause\":\"%s\",\"parts\":{\"calls\":%.6f,\"typical\":%.6f,"
            "\"tail\":%.6f},\"tail\":{\"share\":%.2f,\"from_ns\":%lld,\"calls\":[%.6g,%.6g],\"ns\":[%.6g,%.6g]}},"
            "\"noise_sd\":{\"call\":%.6g,\"total\":%.6g,\"calls\":%.6g}}",
            e->work_time_bound ? "ns per s of frame" : "ns", e->base_total_ns, e->new_total_ns, jrel(e->rel_total),
            jend(e->total_lo), jend(e->total_hi), e->base_incl_total_ns, e->new_incl_total_ns, jrel(e->rel_incl_total),
            jend(e->incl_total_lo), jend(e->incl_total_hi), e->time_cause ? cause_text(e, cause, sizeof cause) : "",
            e->part_calls, e->part_typical, e->part_tail, e->tail_share, (long long)e->tail_ns, e->base_tail_calls,
            e->new_tail_calls, e->base_tail_ns, e->new_tail_ns, expm1(e->noise_sd_call), expm1(e->noise_sd_total),
            expm1(e->noise_sd_calls));
    }
    ludus__w_fmt(w, "],\n\"counter_tests\":%u,\"counters\":[", d->counter_tests);
    for (uint32_t i = 0; i < d->ncounters; i++) {
        const ludus_counter_diff *c = &d->counters[i];
        ludus__w_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        ludus__w_jstr(w, c->name);
        ludus__w_fmt(w,
                     ",\"series\":\"%s\",\"kind\":\"%s\",\"verdict\":\"%s\",\"flags\":%u,\"frames\":[%llu,%llu],"
                     "\"mean\":[%.17g,%.17g],\"p99\":[%.17g,%.17g],\"rel\":%.6f,\"p\":%.6g}",
                     c->series, c->kind, counter_verdict(c), c->verdict, (unsigned long long)c->base_frames,
                     (unsigned long long)c->new_frames, c->base_mean, c->new_mean, c->base_p99, c->new_p99,
                     jrel(c->rel), c->p);
    }
    ludus__w_ch(w, ']');
    ludus__locks_diff_json(&d->locks, w);
    ludus__messages_diff_json(d->base, d->newer, w);
    ludus__w_ch(w, '}');
}

/* The frame-time lines: p50, p90, p99 with their intervals and verdicts. */
static void frames_text(const ludus_diff *d, ludus__writer *w) {
    const ludus_diff_info *I = &d->info;
    char b1[32], b2[32], iv[80];
    ludus__w_fmt(w,
                 "Frame time (window frames%s; interval: each side's order statistics, widened by the run-to-run "
                 "noise):\n",
                 d->nruns[0] + d->nruns[1] > 2 ? " of every run" : "");
    for (int q = 0; q < 3; q++) {
        const struct ludus_diff_frame_pct *P = &I->frame_pct[q];
        ludus__w_fmt(
            w, "  p%-3g %10s -> %-10s %-28s %s\n", P->q * 100, ludus__dur(b1, 32, (double)P->base_ns),
            ludus__dur(b2, 32, (double)P->new_ns), P->base_ns > 0 ? interval(iv, sizeof iv, P->rel, P->lo, P->hi) : "-",
            !P->verdict && I->machine_shift != 0 ? "no change beyond the machine's" : frame_verdict(P->verdict));
    }
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
               "shift_hi,rel_calls_per_s,base_excl_per_frame,new_excl_per_frame,rel_per_frame,per_frame_lo,"
               "per_frame_hi,p_per_frame,p_shift\n");
        char v[160];
        for (uint32_t i = 0; i < d->n; i++) {
            const ludus_site_diff *e = &d->e[i];
            ludus__w_str(w, e->is_path ? "path," : "site,");
            ludus__w_csv(w, e->name);
            ludus__w_ch(w, ',');
            ludus__w_csv(w, verdict_text(e->verdict, v, sizeof v));
            ludus__w_fmt(w, ",%.4f,%.4f,%.6f,%lld,%lld,%.6f,%.6f,%.6f,%.6f,%.6f,%.6g,%.6g,%.6g,%.6f,%.6f,%.6f,%.6f",
                         e->base_calls_per_frame, e->new_calls_per_frame, jrel(e->rel[LUDUS_METRIC_CALLS]),
                         (long long)e->base_excl.p50_ns, (long long)e->new_excl.p50_ns, jrel(e->rel[0]),
                         jrel(e->rel[1]), jrel(e->rel[2]), jrel(e->rel[3]), jrel(e->rel_incl_p50), e->p_calls,
                         e->p_time, e->p_incl, e->shift, jend(e->shift_lo), jend(e->shift_hi),
                         jrel(e->rel_calls_per_s));
            ludus__w_fmt(w, ",%.6g,%.6g,%.6f,%.6f,%.6f,%.6g,%.6g\n", e->base_total_ns, e->new_total_ns,
                         jrel(e->rel_total), jend(e->total_lo), jend(e->total_hi), e->p_total, e->p_shift);
        }
    } else {
        const ludus_analysis_summary *A = &d->base->sum, *B = &d->newer->sum;
        if (d->gates_tripped) /* what failed the run, first */
            ludus__w_fmt(w, "Gates tripped: %u\n%s\n", d->gates_tripped, d->gate_lines);
        ludus__w_fmt(w, "Ludus diff: BASE (%llu frames, window %s) vs NEW (%llu frames, window %s)\n",
                     (unsigned long long)A->frames_in_window, ludus__text_name(win[0], sizeof win[0], A->window, 64),
                     (unsigned long long)B->frames_in_window, ludus__text_name(win[1], sizeof win[1], B->window, 64));
        if (A->frames_in_window && B->frames_in_window) frames_text(d, w);
        if (d->info.machine_shift != 0) {
            const ludus_diff_info *M = &d->info;
            ludus__w_fmt(w,
                         "The machine changed: %s site %.1f%% %s together (%u of the %u sites that cost 0.2%% of a "
                         "frame or more;\nthe median of their shifts), not the code; each time verdict below is "
                         "judged beyond that shift\nby %.1f%% (twice the sites' spread around it, at least %.1f%%), "
                         "and the shift alone trips no gate.\n",
                         M->machine_sites == M->machine_of ? "every" : "nearly every", fabs(M->machine_shift) * 100,
                         M->machine_shift > 0 ? "slower" : "faster", M->machine_sites, M->machine_of,
                         M->machine_spread * 100, d->desc.min_shift * 100);
            if (M->base_frame_cpu_ns > 0 && M->new_frame_cpu_ns > 0)
                ludus__w_fmt(w, "  The frame thread's CPU time per frame (median): %s -> %s (%s).\n",
                             ludus__dur(b1, 32, (double)M->base_frame_cpu_ns),
                             ludus__dur(b2, 32, (double)M->new_frame_cpu_ns),
                             pct(b3, 32, rel((double)M->base_frame_cpu_ns, (double)M->new_frame_cpu_ns)));
        }
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
                         "median,\nmedian over the sites and paths tested; largest %.2f%%); each interval is "
                         "widened by\nt(%u df) = %.2f x the SD between runs of its own measure.\n",
                         I->base_runs, I->new_runs, I->run_sd_median * 100, I->run_sd_max * 100,
                         I->base_runs + I->new_runs - 2, I->run_t);
        else if (I->blocks)
            ludus__w_fmt(w,
                         "Runs: 1 BASE, 1 NEW: one run per side cannot show how much runs differ. The %u blocks of "
                         "each run's\nframes stand for runs: each interval is widened by the interval (%.0f%%) of "
                         "NEW's blocks against\nBASE's, at least %.2f x %.1f%% x sqrt(2) (--run-noise). A verdict "
                         "of one run per side is a lead:\nconfirm it with several runs (BASE1 BASE2 ... -- NEW1 "
                         "NEW2 ...). %u entr%s near the line (listed below).\n",
                         I->blocks, 100 * (1 - d->desc.run_alpha), I->run_t, d->desc.run_noise * 100, I->undecided,
                         I->undecided == 1 ? "y is" : "ies are");
        else
            ludus__w_fmt(w,
                         "Runs: 1 BASE, 1 NEW: one run per side cannot show how much runs differ, and the runs are "
                         "too short\nto estimate it from blocks of frames; each interval assumes an SD between runs of "
                         "%.1f%% (--run-noise).\nA verdict of one run per side is a lead: confirm it with several runs "
                         "(BASE1 BASE2 ... -- NEW1 NEW2 ...).\n",
                         d->desc.run_noise * 100);
        ludus__w_fmt(
            w,
            "Method: time per call: the Hodges-Lehmann shift of exclusive (and inclusive) time, the median "
            "of\nthe NEW/BASE ratios of all pairs of calls%s, with its distribution-free interval at 1 - %.2g\n"
            "(%g / %u tests) widened by the run-to-run term; slower/faster work only when the whole "
            "interval\nlies beyond %.1f%% and the change costs at least %.2g%% of BASE's median frame per "
            "frame.\n",
            A->exact && B->exact ? "" : " (durations binned <= 0.78% apart)", I->alpha_per_test, d->desc.alpha,
            d->tests, d->desc.min_shift * 100, d->desc.min_frame_share * 100);
        ludus__w_fmt(
            w,
            "Time per frame: the same over each frame's total of the site's exclusive time (more/less time "
            "per frame), its\nchange split into more calls, slower typical calls and the rest, the tail. Work: "
            "Mann-Whitney U\nover calls per frame and calls per second of the window's frames "
            "(p < %.2g, change >= %.0f%%);\nmore/less work when both say so, else on the one that fits the "
            "site (listed below). The mean is shown,\nnever decides. p values count the run-to-run noise. Times "
            "are elapsed, not CPU time.\n",
            I->alpha_per_test, d->desc.min_change * 100);
        uint32_t shown = 0; /* lines above that claim a change: the frame time's verdicts count */
        for (int q = 0; A->frames_in_window && B->frames_in_window && q < 3; q++)
            if (I->frame_pct[q].verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER)) shown++;
        for (int pass = 0; pass < 2; pass++) {
            uint32_t k = 0;
            for (uint32_t i = 0; i < d->n; i++) {
                const ludus_site_diff *e = &d->e[i];
                if (e->is_path != pass ||
                    !(e->verdict & (LUDUS_DIFF_CHANGED | LUDUS_DIFF_SLOWER_INSIDE | LUDUS_DIFF_NEW | LUDUS_DIFF_GONE)))
                    continue;
                if (k++ == 0) ludus__w_str(w, pass ? "\nCaller-context paths:\n" : "\nSites:\n");
                text_line(w, e, !I->run_noise_known);
                shown++;
            }
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < d->n; i++) { /* near the line: no verdict */
            const ludus_site_diff *e = &d->e[i];
            if (!(e->verdict & LUDUS_DIFF_UNDECIDED)) continue;
            if (k++ == 0)
                ludus__w_fmt(w,
                             "\nNear the line: a change within these runs that the run-to-run noise (%s) leaves "
                             "undecided;\nno verdict: %s\n",
                             I->run_noise_known ? "measured between the runs" : "estimated from blocks of frames",
                             I->run_noise_known ? "more runs narrow it" : "give several runs per side to decide");
            text_line(w, e, 0);
        }
        k = 0;
        for (uint32_t i = 0; i < d->n; i++) { /* work that moved between callers or threads */
            const ludus_site_diff *e = &d->e[i];
            if (!(e->verdict & LUDUS_DIFF_MOVED)) continue;
            if (k++ == 0)
                ludus__w_str(w, "\nMoved: paths whose calls or time per frame changed while their site's did not (the "
                                "work moved\nbetween callers or threads; no verdict):\n");
            ludus__w_fmt(w, "  %-40s calls/frame %.2f -> %.2f (%s)\n",
                         ludus__text_name(name, sizeof name, e->name, 200), e->base_calls_per_frame,
                         e->new_calls_per_frame, pct(b1, 32, e->rel[LUDUS_METRIC_CALLS]));
        }
        k = 0;
        for (uint32_t i = 0; i < d->n; i++) { /* scopes that wait: judged as waits */
            const ludus_site_diff *e = &d->e[i];
            if (!(e->verdict & (LUDUS_DIFF_WAITED_LONGER | LUDUS_DIFF_WAITED_LESS))) continue;
            if (k++ == 0)
                ludus__w_str(w, "\nWaited: scopes that wait on other threads' work (or are waits by name or "
                                "category);\ntheir time follows the work they waited on, which carries the verdict "
                                "(no verdict here):\n");
            text_line(w, e, 0);
        }
        k = 0;
        for (uint32_t i = 0; i < d->n; i++) { /* where the two measures of work disagree */
            const ludus_site_diff *e = &d->e[i];
            uint32_t fits = e->work_time_bound ? e->work_per_second : e->work_per_frame;
            if (e->work_per_frame == e->work_per_second || (!e->work_per_frame && !fits)) continue;
            if ((e->verdict & LUDUS_DIFF_MOVED) || entry_waits(d, e) || entry_only_waits(d, e))
                continue; /* no work verdict to rest */
            if (k++ == 0)
                ludus__w_str(w, "\nWork where calls per frame and calls per second disagree (the verdict rests on the "
                                "one that fits\nthe site: per second when its calls follow the frame's length, "
                                "rank correlation >= 0.5; else per frame):\n");
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
            const ludus_counter_diff *c = &d->counters[i];
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
        (void)b3;
        shown += ludus__locks_diff_text(&d->locks, &d->desc, w);
        shown += ludus__messages_diff_text(d->base, d->newer, w);
        if (!shown)
            ludus__w_str(w, I->machine_shift != 0 ? "\nNo significant change beyond the machine's.\n"
                                                  : "\nNo significant change.\n");
    }
    ludus__w_flush(w);
    int failed = w->failed;
    ludus__free(w);
    return failed ? ludus__fail(LUDUS_EIO, "the diff report could not be written") : 0;
}
