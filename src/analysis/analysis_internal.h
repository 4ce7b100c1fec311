/* Analysis internals shared by the files of src/analysis: the accumulators
 * (log-linear histogram, exact vectors), the analysis object, and the entry
 * point over any prepared ludus__captured (in-memory or read from a file). */
#ifndef LUDUS_ANALYSIS_INTERNAL_H
#define LUDUS_ANALYSIS_INTERNAL_H

#include <ludus/analysis.h>

#include "../capture/nev.h"
#include "../gpu/gpu_data.h"
#include "../base/text.h"
#include "../base/writer.h"
#include "../export/export_internal.h" /* the per-lane store of open slices' annotations */
#include "cell_run.h"
#include "counter_run.h"

/* ---- histogram (hist.c) ----
 * Log-linear: values below 64 ns have one bucket each; [2^e, 2^(e+1)) for
 * e >= 6 is split into 64 equal buckets. A bucket is reported by its middle,
 * so the error is at most half a bucket: 2^(e-7) / 2^e = 1/128 of the value. */
#define LUDUS__HIST_SUB 64
#define LUDUS__HIST_OCT 59
#define LUDUS__HIST_REL_ERROR (1.0 / 128.0)

typedef struct ludus__hist {
    uint64_t **oct; /* LUDUS__HIST_OCT octaves, each allocated on first use; the table itself comes with the
                       second value (a single value is min == max: a path met once costs no histogram) */
} ludus__hist;

static inline uint32_t ludus__hist_bucket_inline(int64_t v) {
    if (v < LUDUS__HIST_SUB) return (uint32_t)v;
    int e = 63 - __builtin_clzll((uint64_t)v);
    return (uint32_t)(e - 5) * LUDUS__HIST_SUB + (uint32_t)(((uint64_t)v >> (e - 6)) & 63u);
}

typedef struct ludus__acc {
    uint64_t n;
    int64_t total, min, max;
    ludus__hist h;
    int64_t *exact; /* with desc.exact */
    size_t nexact, cap;
} ludus__acc;

/* Out of line: a first value in an octave, and --exact. */
LUDUS_HIDDEN int ludus__acc_add_slow(ludus__acc *a, int64_t v, uint32_t b, int exact);
LUDUS_HIDDEN uint32_t ludus__hist_bucket(int64_t v);

/* a + b of two totals of durations (>= 0), saturating: a file's durations may
 * be anything, and their sum went past 2^63 (undefined) */
static inline int64_t ludus__total_add(int64_t a, int64_t b) {
    int64_t t;
    return __builtin_add_overflow(a, b, &t) ? INT64_MAX : t;
}
static inline int ludus__acc_add(ludus__acc *a, int64_t v, int exact) {
    if (v < 0) v = 0;
    uint32_t b = ludus__hist_bucket_inline(v);
    uint64_t *o = a->h.oct ? a->h.oct[b / LUDUS__HIST_SUB] : NULL;
    if (__builtin_expect(o == NULL || exact, 0)) return ludus__acc_add_slow(a, v, b, exact);
    if (v < a->min) a->min = v;
    if (v > a->max) a->max = v;
    a->n++;
    a->total = ludus__total_add(a->total, v);
    o[b % LUDUS__HIST_SUB]++;
    return 0;
}
LUDUS_HIDDEN void ludus__acc_free(ludus__acc *a);
/* Fills s (sorts the exact vector). */
LUDUS_HIDDEN void ludus__acc_stats(ludus__acc *a, int exact, ludus_duration_stats *s);
LUDUS_HIDDEN int64_t ludus__hist_bucket_mid(uint32_t b);
/* sort.c: the k-th smallest of v[0, n) (k < n), v reordered: a median
 * without sorting (quickselect, the rest sorted after 128 partitions); and
 * v sorted as qsort with ludus__cmp_double sorts it, element for element,
 * by radix. */
LUDUS_HIDDEN int64_t ludus__kth_i64(int64_t *v, size_t n, size_t k);
/* The k-th smallest (k < nw) of nw values: nw - n zeros, sorted first, then
 * v[0, n) (reordered): a figure over the window frames from the cells of
 * the frames that have one. */
static inline int64_t ludus__kth_after_zeros(int64_t *v, uint64_t n, uint64_t nw, uint64_t k) {
    uint64_t zeros = nw - n;
    return k < zeros ? 0 : ludus__kth_i64(v, n, k - zeros);
}
LUDUS_HIDDEN double ludus__kth_f64(double *v, size_t n, size_t k);
LUDUS_HIDDEN void ludus__sort_f64(double *v, size_t n);
LUDUS_HIDDEN void ludus__sort_i64(int64_t *v, size_t n); /* ascending, by radix */
/* v: n records of 16 bytes whose first 8 are a double, sorted by it as
 * above (stable: equal keys keep their order, as glibc's qsort keeps it). */
LUDUS_HIDDEN void ludus__sort_f64_pairs(void *v, size_t n);
/* The counts of octave `oct` of a's histogram (a single value's in tmp), or
 * NULL when the octave holds none. */
LUDUS_HIDDEN const uint64_t *ludus__acc_octave(const ludus__acc *a, uint32_t oct, uint64_t tmp[LUDUS__HIST_SUB]);
#define LUDUS__HIST_BUCKETS (LUDUS__HIST_OCT * LUDUS__HIST_SUB)

/* Pools src's values into dst (both histograms; the exact vector when both
 * keep one): several runs of one side as one sample. */
LUDUS_HIDDEN int ludus__acc_merge(ludus__acc *dst, const ludus__acc *src, int exact);

/* ---- the robust shift (shift.c) ----
 * A sample of durations as sorted weighted points on a log scale
 * (log(1 + ns)): exact durations, or histogram buckets' middles with their
 * counts. */
typedef struct ludus__pt {
    double v;
    uint64_t w;
} ludus__pt;
typedef struct ludus__pts {
    ludus__pt *p;
    size_t n, cap;
    uint64_t total;
} ludus__pts;
/* Appends a's durations (exact ones when exact and a kept them all). */
LUDUS_HIDDEN int ludus__pts_add_acc(ludus__pts *p, const ludus__acc *a, int exact);
/* Sorts and merges equal values; call before the functions below. */
LUDUS_HIDDEN void ludus__pts_finish(ludus__pts *p);
LUDUS_HIDDEN void ludus__pts_free(ludus__pts *p);
/* The lower median (log scale). */
LUDUS_HIDDEN double ludus__pts_median(const ludus__pts *p);
/* Hodges-Lehmann shift of b against a (log ratio) and its distribution-free
 * interval for the normal quantile z: [D(c), D(N+1-c)] of the N sorted
 * pairwise differences, c = floor(N/2 - z sqrt(var U)) with the tie-corrected
 * variance of U; lo/hi are -/+HUGE_VAL when c < 1. -1 when a side is empty. */
typedef struct ludus__shift {
    double est, lo, hi;
} ludus__shift;
LUDUS_HIDDEN int ludus__hl_shift(const ludus__pts *a, const ludus__pts *b, double z, ludus__shift *out);
/* z with P(|Z| > z) = alpha; t with P(|T_df| > t) = alpha. */
LUDUS_HIDDEN double ludus__z_two_sided(double alpha);
LUDUS_HIDDEN double ludus__t_two_sided(double alpha, double df);

/* ---- the analysis object ---- */
/* A site's slowest annotated calls (annotations.c), slowest first. */
typedef struct ludus__an_slowest {
    ludus_annotated_call call[LUDUS_SLOWEST_CALLS];
    char text[LUDUS_SLOWEST_CALLS][256];
    char thread[LUDUS_SLOWEST_CALLS][64];
    uint32_t n;
} ludus__an_slowest;

/* What the hitches read of a cell of a hitch frame: its exclusive time, frame, site and thread (hitches.c). */
typedef struct ludus__cellref {
    int64_t excl;
    uint32_t frame, ent, thread;
} ludus__cellref;
/* v by (frame, ent, thread), where the references of one frame already come
 * in (ent, thread) order (runs, each in frame order, appended in that
 * order): a stable radix sort by frame (sort.c). */
LUDUS_HIDDEN void ludus__sort_cellrefs(ludus__cellref *v, size_t n);
/* A run of cells per (thread, site), frame order; med: its median over the
 * window frames (threads.c). A site that ran on one thread shares its
 * site's run, a site on one path its path's (tree.c). */
typedef struct ludus__trun {
    uint32_t thread, site;
    ludus__crun run;
    int64_t med;
} ludus__trun;

typedef struct ludus__an_site {
    ludus_site_stats pub;
    ludus__an_slowest *slow; /* NULL until its first annotated call */
    ludus__acc incl, excl;
    uint32_t last_thread;    /* thread index + 1 */
    ludus__crun run;         /* its cells (its one path's when it ran on one) */
    int on_frame_thread;     /* ran on the frame thread (hitches: its time can explain a frame's) */
    uint8_t name_shared;     /* another site has its name: reports add file:line (ludus_analysis_site_label) */
    uint8_t wait_kind;       /* 1 a wait, 2 a sleep (a limiter, vsync), by category or name (hitches.c) */
    uint8_t waits_on_others; /* its own time waits on other threads' work (threads.c, ludus__site_waits) */
} ludus__an_site;

typedef struct ludus__an_node {
    ludus_path_stats pub;
    ludus__acc incl, excl;
    uint64_t key;                  /* FNV of the site ids along the path: matches paths across captures */
    uint32_t memo_site, memo_node; /* last child looked up: siblings repeat */
    ludus__crun run;               /* its cells */
    uint32_t open;                 /* activations open on the current thread (a folded path nests in itself) */
} ludus__an_node;

/* ---- hitches: what each thread did in the worst hitch frames (hitches.c) ----
 * Known before the pass: the window's frame times give the median and the
 * threshold, so the pass (tree.c) gathers, for the LUDUS_HITCH_DETAILED
 * worst hitch frames only, each thread's exclusive time per bin of the
 * frame (the sites with the most of it in each bin), the frame thread's
 * top-level coverage per bin, and the flows that arrive in those frames
 * (with how long their receiver had waited) and leave in them. */
#define LUDUS__HBINS 32
#define LUDUS__HSLOTS 4
typedef struct ludus__hslot {
    uint32_t site; /* UINT32_MAX: empty */
    int64_t ns;
} ludus__hslot;
typedef struct ludus__hblock { /* one thread in one detailed hitch frame */
    uint32_t plan, thread;
    ludus__hslot bin[LUDUS__HBINS][LUDUS__HSLOTS];
} ludus__hblock;
typedef struct ludus__hplan { /* a detailed hitch frame */
    uint64_t frame;
    int64_t b, e;                  /* the frame's span */
    int64_t ft_busy[LUDUS__HBINS]; /* the frame thread's top-level coverage per bin */
} ludus__hplan;
typedef struct ludus__hflow {
    uint64_t id;
    uint32_t plan, thread, site; /* site: the innermost scope open on the thread's track (UINT32_MAX: none) */
    int64_t waited;              /* a flow's arrival: how long that scope had been in exclusive time */
} ludus__hflow;
/* Finds the detailed plans [lo, hi) whose frames overlap [t0, t1). */
LUDUS_HIDDEN void ludus__hplans_in(const ludus_analysis *a, int64_t t0, int64_t t1, uint32_t *lo, uint32_t *hi);
/* The window's frame statistics, the threshold and the hitch frames, before the pass. */
LUDUS_HIDDEN int ludus__frames_plan(ludus_analysis *a);
/* After the pass (frames_finish): each hitch's items, roles and kind. */
LUDUS_HIDDEN int ludus__hitches_explain(ludus_analysis *a, int64_t med_unlogged, int64_t med_carried);
LUDUS_HIDDEN int ludus__site_is_wait(const char *name, const char *category);
/* A parent whose own time is the time between its children (hitches.c). */
LUDUS_HIDDEN int ludus__site_parentish(const ludus__an_site *s);
/* "work", "waited on another thread", ... (enum ludus_hitch_kind); "work", "waiting", "beside". */
LUDUS_HIDDEN const char *ludus__hitch_kind_text(int kind);
LUDUS_HIDDEN const char *ludus__hitch_role_text(int role);
LUDUS_HIDDEN void ludus__hitches_free(ludus_analysis *a);
/* The frame thread's time in frame f outside its top-level scopes, or -1
 * for a frame whose figures are not kept (ludus__frame_kept). */
LUDUS_HIDDEN int64_t ludus__frame_unlogged(const ludus_analysis *a, uint64_t f);
/* The frame thread's CPU time in frame f, or -1. */
LUDUS_HIDDEN int64_t ludus__frame_cpu(const ludus_analysis *a, uint64_t f);

/* ---- threads (threads.c) ---- */
/* A thread's busy time per frame it was busy in, frame order: while the
 * pass runs, the frame it is in (busy_last) and the frames before, packed
 * (busy_w); after it, the run busy (a cell's excl is the frame's ns). */
typedef struct ludus__an_thread {
    ludus_thread_stats pub;
    char name[64];
    ludus__crun_writer busy_w;
    ludus__cell busy_last; /* frame and excl; calls 1 once it holds a frame */
    ludus__crun busy;
} ludus__an_thread;
LUDUS_HIDDEN int ludus__thread_busy_add(ludus_analysis *a, uint32_t thread, uint32_t frame, int64_t b, int64_t e);
/* The runs of busy time, once the pass is over. */
LUDUS_HIDDEN int ludus__thread_busy_end(ludus_analysis *a);
/* The common case, inline: [b, e) within frame `frame`, which the thread is
 * already busy in; 0 when it is not that case (call ludus__thread_busy_add). */
static inline int ludus__thread_busy_fast(ludus__an_thread *t, const int64_t *marks, uint64_t nmarks, uint32_t frame,
                                          int64_t b, int64_t e) {
    if (!t->busy_last.calls || t->busy_last.frame != frame || (frame && marks[frame - 1] > b) ||
        (frame < nmarks && e > marks[frame]))
        return 0;
    t->busy_last.excl += e - b;
    return 1;
}
/* A site that waits rather than works (threads.c): a wait scope by
 * category or name (wait_kind, hitches.c's definition), or one whose own
 * time waits on other threads' work (waits_on_others): the diff judges its
 * time as a wait ("waited longer"), never as work. */
LUDUS_HIDDEN int ludus__site_waits(const ludus_analysis *a, uint32_t site);
/* The per-thread figures, once the pass made a->truns. */
LUDUS_HIDDEN int ludus__threads_finish(ludus_analysis *a);
LUDUS_HIDDEN void ludus__threads_free(ludus_analysis *a);
/* The text and JSON sections. */
LUDUS_HIDDEN int ludus__report_threads_text(const ludus_analysis *a, ludus__writer *w, uint32_t top);
LUDUS_HIDDEN void ludus__report_threads_json(const ludus_analysis *a, ludus__writer *w);
/* The median over window frames of (thread, site)'s exclusive time per frame. */
LUDUS_HIDDEN int64_t ludus__tcell_median(const ludus_analysis *a, uint32_t thread, uint32_t site);

/* A counter track (counters.c): values in stream order, one per frame for
 * a per-frame statistic (frame order), every sample in the window for a plot. */
typedef struct ludus__an_counter {
    ludus_counter_stats pub;
    uint32_t series; /* 0: plot samples; 1 + LUDUS__STAT_* */
    int real;        /* 1: f64 samples (summed as doubles); 0: integers (summed exactly, saturating) */
    ludus__vrun v;   /* its values (counter_run.h) */
} ludus__an_counter;

struct ludus_analysis {
    ludus_analysis_desc desc;
    ludus_analysis_summary sum;
    char window_text[64];
    char frame_thread_name[64];
    char trigger_reason[40], trigger_detail[320]; /* the summary's (a rolling window's trigger) */
    char *strings;                                /* names, categories, files */
    ludus__an_site *sites;
    uint32_t nsites;
    ludus__an_node *nodes;
    uint32_t nnodes, nodes_cap;
    uint32_t *node_hash; /* (parent, site) -> node + 1 */
    uint32_t node_hash_cap;
    /* frames: marks[k] = begin of frame k+1 */
    const int64_t *marks; /* the mark set's: shared, never written */
    uint64_t nmarks;
    int64_t end_ns;
    int64_t *unlogged;          /* per frame (nmarks + 1) */
    int64_t *carried;           /* per frame: frame-thread top-level time begun in an earlier frame */
    struct ludus__carried_top { /* per hitch frame (hitch_frames): the largest such scope */
        int64_t ns;
        uint32_t site;
    } * carried_top;
    ludus_hitch *hitches;
    uint32_t nhitches;
    uint64_t *hitch_frames; /* the window's hitch frames, ascending (frames_plan) */
    ludus__hplan *hplan;    /* the detailed ones, ascending */
    uint32_t nhplan;
    ludus__hblock *hblocks;
    size_t nhblocks, hblocks_cap;
    ludus__hflow *flow_in, *flow_out;
    size_t nflow_in, flow_in_cap, nflow_out, flow_out_cap;
    const int64_t *mark_cpu;   /* per mark: the frame thread's CPU time there; -1 unknown */
    ludus__mark_set *mark_set; /* marks and mark_cpu: a reference (shared with the capture) */
    int64_t med_cpu, med_off;  /* window medians of a frame's CPU time and wall - CPU (cpu known) */
    uint32_t frame_thread;     /* its index, UINT32_MAX: none */
    void **run_mem;            /* what the runs of cells (nodes', sites', truns') point into */
    size_t nrun_mem;
    ludus__trun *truns; /* per (thread, site), sorted so; excl of the calls begun in each frame */
    uint32_t ntruns;
    ludus__an_thread *threads;
    uint32_t nthreads;
    uint64_t win_f0, win_f1; /* window frames [f0, f1) (complete frames only) */
    /* The frames whose per-frame figures the analysis keeps (unlogged and carried time, a thread's busy
     * time, counter snapshots): every frame [0, nmarks] for the window all, else the window's frames,
     * so a window's memory follows the window, not the capture (marks stay: 16 bytes a frame). */
    uint64_t keep_f0, keep_f1;
    ludus__an_counter *counters;
    uint32_t ncounters, counters_cap;
    uint32_t *counter_at;    /* (site, series) -> counter + 1 */
    ludus_lock_stats *locks; /* locks.c */
    uint32_t nlocks;
    /* timeline.c: messages (time and level of each in the window), the
     * first warnings and errors, async zone statistics */
    struct ludus__an_msg *msgs;
    size_t nmsgs, msgs_cap;
    uint64_t *warn_frames; /* warnings and errors as (frame << 1 | is_error), sorted: made once */
    size_t nwarn_frames;
    ludus_message_stats msg_stats;
    ludus_message_info first_msgs[16];
    uint32_t nfirst_msgs;
    ludus_async_stats *asyncs;
    uint32_t nasyncs;
    struct ludus__busy *busy; /* per thread, when the capture has async zones */
    uint32_t nbusy;
    char *cell_text; /* annotations.c: the cells' annotation texts, NUL-separated */
    size_t cell_text_n, cell_text_cap;
};

/* Whether frame f's per-frame figures are kept (keep_f0, keep_f1). */
static inline int ludus__frame_kept(const ludus_analysis *a, uint64_t f) {
    return f >= a->keep_f0 && f < a->keep_f1;
}

/* A thread's top-level scopes (its own track) as disjoint intervals in time
 * order, with the running total: how busy it was in any span of time. */
typedef struct ludus__busy {
    int64_t *t0, *t1, *cum; /* cum[i]: total of intervals before i */
    size_t n, cap;
} ludus__busy;

typedef struct ludus__an_msg {
    int64_t ts;
    int level;
} ludus__an_msg;
/* timeline.c: one message of thread t's stream (tree.c's pass); the zones
 * and per-frame figures once frames are known; the report sections. */
LUDUS_HIDDEN int ludus__message_event(ludus_analysis *a, const ludus__nev_iter *it, const ludus__nev *ev,
                                      const char *thread, int in_window);
LUDUS_HIDDEN int ludus__busy_init(ludus_analysis *a, ludus__captured *c);
LUDUS_HIDDEN int ludus__busy_add(ludus_analysis *a, uint32_t thread, int64_t t0, int64_t t1);
LUDUS_HIDDEN int ludus__timeline_finish(ludus_analysis *a, ludus__captured *c, int64_t w0, int64_t w1);
LUDUS_HIDDEN void ludus__timeline_free(ludus_analysis *a);
LUDUS_HIDDEN void ludus__report_timeline_text(const ludus_analysis *a, ludus__writer *w);
LUDUS_HIDDEN void ludus__report_timeline_json(const ludus_analysis *a, ludus__writer *w);
/* The diff's messages: warnings and errors per frame, BASE against NEW
 * (text: the lines written; JSON: ",\"messages\":{...}"), and the
 * 'errors' / 'warnings' gates (the gates tripped). */
LUDUS_HIDDEN uint32_t ludus__messages_diff_text(const ludus_analysis *base, const ludus_analysis *newer,
                                                ludus__writer *w);
LUDUS_HIDDEN void ludus__messages_diff_json(const ludus_analysis *base, const ludus_analysis *newer, ludus__writer *w);
LUDUS_HIDDEN uint32_t ludus__messages_check_gates(const ludus_analysis *base, const ludus_analysis *newer,
                                                  const ludus_gate *gates, uint32_t ngates, ludus_write_fn write,
                                                  void *ud);

/* annotations.c: an ended slice's annotations as text; a site's slowest
 * annotated calls (wants: 1 when a call of that duration would be kept);
 * the cells' texts (ref 0: none). */
LUDUS_HIDDEN size_t ludus__args_text(const ludus_capture *c, const ludus__nev_iter *it, const ludus__nev *args,
                                     uint32_t n, char *out, size_t cap);
LUDUS_HIDDEN int ludus__an_slowest_add(ludus_analysis *a, uint32_t site, const ludus_annotated_call *call);
LUDUS_HIDDEN int ludus__an_slowest_wants(const ludus_analysis *a, uint32_t site, int64_t dur);
LUDUS_HIDDEN int ludus__cell_text_add(ludus_analysis *a, const char *text, size_t n, uint32_t *ref);
LUDUS_HIDDEN const char *ludus__cell_text(const ludus_analysis *a, uint32_t ref);
LUDUS_HIDDEN void ludus__annotations_free(ludus_analysis *a);

/* Analyses c (prepared here when needed). */
LUDUS_HIDDEN int ludus__analyze(ludus__captured *c, const ludus_analysis_desc *desc, ludus_analysis **out);
/* The threads a diff compares its entries on, at most (diff.c; the
 * processors online bound it too): tests set 1 to compare. */
LUDUS_HIDDEN extern unsigned ludus__diff_threads;
/* The threads the finish reads its runs on, at most (threads.c, frames.c:
 * a median per run; the processors online bound it too), once the runs
 * hold enough cells (ludus__finish_threads_for): tests set 1 to compare. */
LUDUS_HIDDEN extern unsigned ludus__finish_threads;
LUDUS_HIDDEN unsigned ludus__finish_threads_for(uint64_t cells);
LUDUS_HIDDEN int64_t ludus__frame_begin(const ludus_analysis *a, uint64_t f);
LUDUS_HIDDEN int64_t ludus__frame_end(const ludus_analysis *a, uint64_t f);
/* frames.c: frame series, window frames, unlogged, hitches, per-frame medians. */
LUDUS_HIDDEN int ludus__frames_finish(ludus_analysis *a);
/* The name of a hitch's g-th grown item: "SITE on THREAD", with SITE a
 * site's label, "(unlogged remainder)" or "(crossing the mark: SITE)" (in buf). */
LUDUS_HIDDEN const char *ludus__hitch_item(const ludus_analysis *a, const ludus_hitch *h, int g, char *buf, size_t cap);
/* Per-frame values of an entity's run of cells over the window frames
 * (zeros for frames without calls); out has win_f1 - win_f0 slots. */
LUDUS_HIDDEN void ludus__cells_per_frame(const ludus_analysis *a, const ludus__crun *run, int calls, double *out);
/* counters.c: one counter event of a thread's stream (marks_seen: frame
 * marks met so far on the frame thread); the statistics once the window is
 * known; freeing. */
LUDUS_HIDDEN int ludus__counter_event(ludus_analysis *a, const ludus__nev *ev, int on_frame_thread, uint64_t marks_seen,
                                      int in_window);
LUDUS_HIDDEN int ludus__counters_finish(ludus_analysis *a);
LUDUS_HIDDEN void ludus__counters_free(ludus_analysis *a);
/* locks.c: lock-wait statistics (after frames and cells), the reports'
 * "Lock waits" sections (html: with the diff's, when d is given), and the
 * diff's comparison of locks (held by the diff, reached via diff.c). */
LUDUS_HIDDEN int ludus__locks_finish(ludus_analysis *a);
typedef struct ludus__lock_diff {
    ludus_lock_diff *v;
    uint32_t n, tests;
    double alpha_per_test;
} ludus__lock_diff;
LUDUS_HIDDEN int ludus__locks_diff(const ludus_analysis *base, const ludus_analysis *newer, const ludus_diff_desc *desc,
                                   ludus__lock_diff *out);
LUDUS_HIDDEN void ludus__locks_diff_free(ludus__lock_diff *l);
LUDUS_HIDDEN const ludus__lock_diff *ludus__diff_locks(const ludus_diff *d); /* diff.c */
/* The lines of the gates ludus_diff_set_gates found tripped, or NULL (diff.c). */
LUDUS_HIDDEN const char *ludus__diff_gate_lines(const ludus_diff *d);
LUDUS_HIDDEN uint32_t ludus__locks_check_gates(const ludus__lock_diff *l, const ludus_gate *gates, uint32_t ngates,
                                               ludus_write_fn write, void *user_data);
/* Mann-Whitney U over two sorted arrays (diff.c): p, and *z > 0 when b tends larger. */
LUDUS_HIDDEN double ludus__mw_sorted(const double *a, size_t na, const double *b, size_t nb, double *z);
/* Whether frame f is one of the window's hitch frames (frames.c; after
 * frames_plan). *at: where the search begins (0 for the first frame of a
 * run), moved on: a run's frames ascend, so a run costs one walk. */
LUDUS_HIDDEN int ludus__is_hitch_frame(const ludus_analysis *a, uint32_t *at, uint64_t f);
/* qsort order of doubles (sort.c). */
LUDUS_HIDDEN int ludus__cmp_double(const void *x, const void *y);
/* The path of site under path parent (UINT32_MAX: a root), or UINT32_MAX (tree.c). */
LUDUS_HIDDEN uint32_t ludus__path_find(const ludus_analysis *a, uint32_t parent, uint32_t site);
/* Path text "A/B/C" into buf (names other sites share with their file:line). */
LUDUS_HIDDEN size_t ludus__path_text(const ludus_analysis *a, uint32_t node, char *buf, size_t cap);

/* ---- output helpers (report_text.c) ---- */
LUDUS_HIDDEN void ludus__w_fmt(ludus__writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Human duration: "12.3 us", "4.56 ms". */
LUDUS_HIDDEN const char *ludus__dur(char *buf, size_t cap, double ns);
LUDUS_HIDDEN void ludus__json_stats(ludus__writer *w, const ludus_duration_stats *s);
/* html: the HTML report's data, bounded (report_json.c; docs/analysis.md, "The HTML report's
 * size"): the worst LUDUS__HTML_HITCHES hitches, beyond 2 x LUDUS__HTML_BUCKETS frames the
 * frame series and counters' per-frame values as each bucket's smallest and largest, and the
 * per-frame cells of the frames shown only. */
#define LUDUS__HTML_HITCHES 500u
#define LUDUS__HTML_BUCKETS 5000u
LUDUS_HIDDEN int ludus__report_json(const ludus_analysis *a, ludus__writer *w, int html);
/* The hitches the HTML report leaves out (past the worst LUDUS__HTML_HITCHES) and the
 * longest frame among them (*cut_ns: a hitch is listed when longer, or as long and early). */
LUDUS_HIDDEN uint32_t ludus__html_hitches_cut(const ludus_analysis *a, int64_t *cut_ns, uint32_t *ties,
                                              int64_t *omitted_max_ns);
LUDUS_HIDDEN int ludus__report_html(const ludus_analysis *a, const ludus_diff *d, ludus__writer *w,
                                    const ludus_report_options *opt);
LUDUS_HIDDEN void ludus__diff_json(const ludus_diff *d, ludus__writer *w);
LUDUS_HIDDEN void ludus__report_locks_text(const ludus_analysis *a, ludus__writer *w);
LUDUS_HIDDEN void ludus__report_locks_json(const ludus_analysis *a, ludus__writer *w);
LUDUS_HIDDEN void ludus__report_locks_html(const ludus_analysis *a, const ludus_diff *d, ludus__writer *w);
/* gpu_stats.c: the GPU statistics as the HTML report's data: per track its
 * frames' series [frame, ns], its frame-time statistics; the passes. */
LUDUS_HIDDEN void ludus__gpu_stats_json(const struct ludus_gpu_stats *s, ludus__writer *w);
/* The diff's lock sections: text (returns the lines written), JSON (",\"locks\":[...]"). */
LUDUS_HIDDEN uint32_t ludus__locks_diff_text(const ludus__lock_diff *l, const ludus_diff_desc *desc, ludus__writer *w);
LUDUS_HIDDEN void ludus__locks_diff_json(const ludus__lock_diff *l, ludus__writer *w);

#endif
