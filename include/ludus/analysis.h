/* Ludus Profiling: off-line analysis of an ended capture.
 *
 * Streams a capture once (plus one pass over the frame thread's marks) and
 * keeps memory bounded by distinct sites, caller-context paths, threads and
 * frames, never by events (except with desc.exact). Produces per-site and
 * per-path statistics of inclusive and exclusive elapsed time over a named
 * window, frame times, hitches and the unlogged remainder, and compares two
 * analyses (diff) with a noise-aware verdict. docs/analysis.md states every
 * definition; the text report repeats the ones that are easy to misread.
 *
 * Not thread-safe per object: one analysis or diff is used by one thread at
 * a time. Every call that can fail returns 0 or a negative LUDUS_E* code. */
#ifndef LUDUS_ANALYSIS_H
#define LUDUS_ANALYSIS_H

#include <ludus/capture.h>
#include <ludus/gpu.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
 * Windows. A scope belongs to the window when its begin lies in it; frame
 * statistics use the complete frames whose begin lies in it. */
enum ludus_window_kind {
    LUDUS_WINDOW_ALL = 0,         /* the whole capture */
    LUDUS_WINDOW_LAST_FRAMES = 1, /* the last N complete frames */
    LUDUS_WINDOW_RANGE = 2        /* [range_begin_ns, range_end_ns) since capture start */
};

/* Zero-initialise; every 0 field takes its default. */
typedef struct ludus_analysis_desc {
    int window;             /* enum ludus_window_kind; default ALL */
    uint32_t last_frames;   /* LAST_FRAMES: N (>= 1) */
    int64_t range_begin_ns; /* RANGE: since capture start */
    int64_t range_end_ns;
    double hitch_k;    /* hitch: frame time > max(k x median of the window, budget_ns); default 2 */
    int exact;         /* keep every duration: exact percentiles, memory grows with events */
    int64_t budget_ns; /* the frame budget: no frame within it is a hitch (16.7 ms for 60 Hz); 0: none */
} ludus_analysis_desc;

/* Parses "all", "last:N" or "range:T0-T1" (T with unit ns, us, ms or s; a bare
 * number is ms) into desc's window fields. LUDUS_EINVAL on malformed text. */
LUDUS_API int ludus_window_parse(const char *text, ludus_analysis_desc *desc);

typedef struct ludus_analysis ludus_analysis;

/* Analyses a capture (the last ended one, a file, a cut), streaming one
 * block at a time. LUDUS_ENOMEM, LUDUS_EINVAL for a bad desc, LUDUS_EFORMAT
 * / LUDUS_EIO when a file's block fails to load (ludus_last_error_detail()
 * names it). *out is owned by the caller; the capture may be released. */
LUDUS_API int ludus_analysis_create(ludus_capture *capture, const ludus_analysis_desc *desc, ludus_analysis **out);
/* NULL is a no-op. */
LUDUS_API void ludus_analysis_destroy(ludus_analysis *a);

/* ---------------------------------------------------------------------------
 * Results. Durations are elapsed wall-clock ns (not CPU time). count, total,
 * min and max are exact; p50/p90/p99 come from a log-linear histogram with a
 * relative error of at most summary.percentile_rel_error (exact with desc.exact).
 * Percentiles use the nearest-rank definition. */
typedef struct ludus_duration_stats {
    uint64_t count;
    int64_t total_ns, min_ns, max_ns; /* min/max 0 when count is 0 */
    double mean_ns;
    int64_t p50_ns, p90_ns, p99_ns;
} ludus_duration_stats;

/* Flags: LOSSY: seen on a thread that dropped events, counts are lower
 * bounds. EXCL_PARTIAL: some activations ran while their thread was losing
 * events; their children may be missing, so their exclusive time is left out
 * (excl_unknown counts them) and never absorbs the lost children. */
#define LUDUS_STAT_LOSSY 1u
#define LUDUS_STAT_EXCL_PARTIAL 2u
#define LUDUS_STAT_FOLDED 4u /* a path: some of its activations began deeper than LUDUS_PATH_DEPTH (folded) */

typedef struct ludus_site_stats {
    const char *name;     /* owned by the analysis, NUL-terminated */
    const char *category; /* "" when none */
    const char *file;
    uint32_t line;
    uint32_t id;                    /* stable site id (FNV-1a of name, file, line) */
    uint64_t calls;                 /* complete activations begun in the window */
    uint64_t incomplete;            /* activations closed at capture end: no duration, not in calls */
    uint64_t recursive;             /* activations inside an open activation of the same site (same thread) */
    double calls_per_frame;         /* over the window's complete frames; 0 without frames */
    ludus_duration_stats inclusive; /* outermost activations only: recursion never double counts */
    ludus_duration_stats exclusive; /* every activation whose children are all known: inclusive minus
                                       same-thread children */
    int64_t median_frame_excl_ns;   /* median over window frames of this site's exclusive time */
    uint32_t threads;               /* threads it ran on */
    uint32_t flags;                 /* LUDUS_STAT_* */
    uint64_t excl_unknown;          /* calls left out of exclusive: their thread was losing events */
    uint64_t unwound;               /* activations cut short by a non-local exit: no duration, not in calls */
    uint64_t annotated;             /* calls in the window with an annotation (LUDUS_PROFILE_ANNOTATE) */
} ludus_site_stats;

/* An annotated call (LUDUS_PROFILE_ANNOTATE) of a site: one of its slowest
 * in the window, by inclusive time. */
#define LUDUS_SLOWEST_CALLS 3
typedef struct ludus_annotated_call {
    int64_t begin_ns, duration_ns; /* since capture start; inclusive */
    uint64_t frame;                /* the frame its begin lies in (0: the lead-in) */
    const char *thread;            /* the thread's name; owned by the analysis */
    const char *annotations;       /* "Key=value, Key=\"text\"" (the last value of each key; cut at 255
                                      bytes); owned by the analysis */
} ludus_annotated_call;

/* A caller-context path: the sequence of enclosing sites on the thread,
 * merged across threads. Paths form a tree (parent). A path holds at most
 * LUDUS_PATH_DEPTH sites: a scope that begins deeper (deep recursion) is
 * counted on the path of its first LUDUS_PATH_DEPTH - 2 enclosing scopes
 * and itself, the levels between folded away (flag LUDUS_STAT_FOLDED, "/.../"
 * in the path's text; the summary counts them), so the paths of any capture
 * are at most as many as its sites times the paths LUDUS_PATH_DEPTH - 2 deep.
 * Calls count every activation; inclusive time counts a folded path's
 * outermost activations only (it may nest in itself), as a site's does. */
#define LUDUS_PATH_DEPTH 256
typedef struct ludus_path_stats {
    uint32_t parent; /* path index; UINT32_MAX at a root */
    uint32_t site;   /* site index */
    uint32_t depth;  /* 0 at a root */
    uint64_t calls, incomplete;
    ludus_duration_stats inclusive, exclusive;
    uint32_t flags;
    uint64_t excl_unknown;
} ludus_path_stats;

/* Frame k (k >= 1) is [mark k, mark k+1) on the frame thread, marks counted
 * from 1: a frame lies between two marks, wherever the loop places them.
 * Index 0 is the lead-in [capture start, first mark) and the last index the
 * tail [last mark, capture end): neither is a frame, both are left out of
 * frame statistics. */
typedef struct ludus_frame_info {
    uint64_t index;
    int64_t begin_ns, end_ns; /* since capture start */
    int64_t unlogged_ns;      /* frame thread time in the frame outside its top-level scopes; -1 for a
                                 frame outside a window other than all (only the window's are kept) */
    int complete, in_window, hitch;
    int lead_in; /* index 0: the time before the first mark */
    /* The frame thread's CPU time in the frame (its thread clock read at
     * the two marks); -1 when the capture does not hold it (an older file,
     * an OS without a thread clock, the lead-in and the tail). Wall time
     * minus CPU time is time the thread did not run: waiting or preempted. */
    int64_t cpu_ns;
} ludus_frame_info;

/* A hitch's explanation: what grew in it against the window's median frame
 * (docs/analysis.md, "Hitches"), as items, each a scope on one thread:
 * candidates are each site's exclusive time in the frame against its
 * median per frame, split over the threads it grew on (each thread's part
 * against that thread's own median), the frame thread's unlogged remainder
 * against its median, and the frame-thread time carried into the frame by
 * top-level scopes begun in an earlier frame (crossing the mark). Each item
 * has a role:
 *   WORK     the time was spent there: on the frame thread, or on another
 *            thread that the frame thread waited for (grew_caused: 1);
 *   WAITING  the scope's growth is covered by another item's concurrent
 *            growth (or by a flow from it that the scope waited for):
 *            grew_waited_on names that item (its index here, or
 *            LUDUS_HITCH_NONE: it waited on nothing recorded: a sleep, vsync,
 *            a lock whose holder is not instrumented);
 *   BESIDE   another thread's growth that the frame thread did not wait for.
 * Items are listed WORK first (largest first), then WAITING, then BESIDE.
 * explained: the frame thread's listed items (and its waits on listed
 * work), summed, over extra_ns; it passes 1 when other scopes of the frame
 * ran below their own medians (each item is against its own median, not
 * the frame's): explained_over says so, and the reports say why. */
#define LUDUS_HITCH_GREW 6
#define LUDUS_HITCH_UNLOGGED (UINT32_MAX - 1) /* grew_site: the unlogged remainder */
#define LUDUS_HITCH_CARRIED (UINT32_MAX - 2)  /* grew_site: scopes crossing the frame's opening mark */
#define LUDUS_HITCH_NONE UINT32_MAX
enum ludus_hitch_role { LUDUS_HITCH_WORK = 1, LUDUS_HITCH_WAITING = 2, LUDUS_HITCH_BESIDE = 3 };
/* What the frame's extra time was, on the whole:
 *   WORK       the frame thread ran longer (its CPU time grew, or without CPU
 *              times: its own scopes grew and did not wait);
 *   WAITING    the frame thread waited on work of other threads (named first);
 *   PREEMPTED  its wall time grew and its CPU time did not, and no recorded
 *              work of another thread covers it: preempted, or blocked
 *              where nothing was recorded;
 *   LIMITED    the extra time is a sleep scope (a sleep, vsync, a frame
 *              limiter: by category or name, docs/analysis.md) that waited
 *              on nothing recorded: a frame clamped by vsync or a limiter;
 *   UNKNOWN    none of these covers half of the extra time. */
enum ludus_hitch_kind {
    LUDUS_HITCH_KIND_UNKNOWN = 0,
    LUDUS_HITCH_KIND_WORK,
    LUDUS_HITCH_KIND_WAITING,
    LUDUS_HITCH_KIND_PREEMPTED,
    LUDUS_HITCH_KIND_LIMITED
};
typedef struct ludus_hitch {
    uint64_t frame;
    int64_t frame_ns;
    double ratio;                         /* frame_ns / median frame of the window */
    uint32_t grew_site[LUDUS_HITCH_GREW]; /* site index, LUDUS_HITCH_UNLOGGED or _CARRIED; LUDUS_HITCH_NONE: none */
    int64_t grew_ns[LUDUS_HITCH_GREW];
    uint32_t carried_site;                  /* the largest scope crossing into the frame (UINT32_MAX: none) */
    int64_t extra_ns;                       /* frame_ns - the window's median frame */
    double explained;                       /* the frame thread's share of extra_ns the items account for (see above) */
    uint32_t grew_thread[LUDUS_HITCH_GREW]; /* thread index (ludus_analysis_thread) */
    uint8_t grew_role[LUDUS_HITCH_GREW];    /* enum ludus_hitch_role */
    uint8_t grew_caused[LUDUS_HITCH_GREW];  /* WORK on another thread that the frame thread waited for */
    uint32_t grew_waited_on[LUDUS_HITCH_GREW]; /* WAITING: the item it waited on, or LUDUS_HITCH_NONE */
    int explained_over;                        /* explained > 1: other scopes ran below their medians */
    int kind;                                  /* enum ludus_hitch_kind */
    int64_t cpu_ns;                            /* the frame thread's CPU time in the frame; -1: not recorded */
    int64_t cpu_extra_ns;                      /* cpu_ns - the median frame CPU time (0 when not recorded) */
    int detailed; /* 1: waits were looked for (the LUDUS_HITCH_DETAILED worst hitches); 0: roles by thread only */
} ludus_hitch;
/* Hitches whose threads' time is looked at bin by bin (waits, causes):
 * the worst this many; the others list what grew, WORK on the frame
 * thread and BESIDE elsewhere. */
#define LUDUS_HITCH_DETAILED 1024

typedef struct ludus_analysis_summary {
    int64_t duration_ns; /* capture length */
    const char *clock_name;
    uint32_t threads;
    uint64_t events, dropped, incomplete, orphan_ends, filtered, interner_drops;
    uint64_t unwound, excl_unknown;
    uint64_t clock_anomalies; /* ends before their begin: clamped to 0 */
    const char *window;       /* "all", "last:N", "range:T0-T1" */
    int64_t window_begin_ns, window_end_ns;
    const char *frame_thread;          /* "" without frames */
    uint64_t frame_marks;              /* on the frame thread */
    uint64_t frame_marks_elsewhere;    /* marks on other threads (ignored) */
    uint64_t counter_values_elsewhere; /* frame snapshots recorded off the frame thread (ignored) */
    uint64_t frames_complete, frames_in_window;
    ludus_duration_stats frame_time; /* exact over the window's complete frames */
    int64_t median_frame_ns;
    double hitch_k;
    int64_t budget_ns;          /* the frame budget asked for (0: none) */
    int64_t hitch_threshold_ns; /* max(hitch_k x median_frame_ns, budget_ns) */
    uint32_t hitches;
    int64_t unlogged_total_ns; /* over window frames */
    uint32_t sites, paths;
    int exact;
    double percentile_rel_error; /* 0 with exact */
    int frame_thread_lossy;
    int crash_signal;           /* the capture was ended by a crash (0: it was not) */
    char crash_signal_name[16]; /* "SIGSEGV" and the like */
    uint64_t crash_tid;         /* the thread it hit */
    int recovered;              /* read back from a pool file its process left behind */
    uint64_t folded;            /* scopes begun deeper than LUDUS_PATH_DEPTH: on folded paths */
    uint64_t pool_bytes_needed; /* dropped events: the pool that would have held them (ludus_capture_summary) */
    /* A rolling window's file: the trigger it was written for (NULL reason:
     * none), when it fired (since capture start) and what it saw. */
    const char *trigger_reason, *trigger_detail;
    int64_t trigger_ns;
    uint64_t trigger_frame; /* the frame that ended last at (or up to 20 us after) the trigger; 0: none */
    /* The frame thread's CPU time per window frame (exact), over the
     * frames that hold it (frame_cpu.count; 0: the capture has none). */
    ludus_duration_stats frame_cpu;
    int64_t median_frame_cpu_ns;
    uint32_t hitches_detailed; /* hitches whose waits were looked for (the worst LUDUS_HITCH_DETAILED) */
} ludus_analysis_summary;

/* The summary, and the sites (ludus_site_stats, the analysis's; NULL past
 * the end). */
LUDUS_API void ludus_analysis_get_summary(const ludus_analysis *a, ludus_analysis_summary *out);
LUDUS_API uint32_t ludus_analysis_site_count(const ludus_analysis *a);
LUDUS_API const ludus_site_stats *ludus_analysis_site(const ludus_analysis *a, uint32_t index);
/* Index of the first site with this name, or -1. */
LUDUS_API int64_t ludus_analysis_find_site(const ludus_analysis *a, const char *name);
LUDUS_API uint32_t ludus_analysis_path_count(const ludus_analysis *a);
LUDUS_API const ludus_path_stats *ludus_analysis_path(const ludus_analysis *a, uint32_t index);
/* Index of the path "A/B/C" (site names joined by '/'; a site whose name
 * another shares by its label, "B (physics.c:12)", as reports write paths), or -1. */
LUDUS_API int64_t ludus_analysis_find_path(const ludus_analysis *a, const char *slash_path);
LUDUS_API uint64_t ludus_analysis_frame_count(const ludus_analysis *a); /* complete + the open last one */
LUDUS_API int ludus_analysis_frame(const ludus_analysis *a, uint64_t index, ludus_frame_info *out);
/* The site's slowest annotated calls in the window, slowest first: writes
 * up to cap of them to out (NULL: none), returns how many there are (at
 * most LUDUS_SLOWEST_CALLS; 0 for a site without annotated calls). */
LUDUS_API uint32_t ludus_analysis_site_slowest(const ludus_analysis *a, uint32_t site, ludus_annotated_call *out,
                                               uint32_t cap);
LUDUS_API uint32_t ludus_analysis_hitch_count(const ludus_analysis *a);
LUDUS_API const ludus_hitch *ludus_analysis_hitch(const ludus_analysis *a, uint32_t index);
/* A site's name as reports show it: the name, and " (file:line)" after it
 * when another site of the capture has the same name (written to buf,
 * NUL-terminated; returns buf). */
LUDUS_API const char *ludus_analysis_site_label(const ludus_analysis *a, uint32_t site, char *buf, size_t cap);

/* Threads: per thread of the capture, its busy time per window frame (the
 * time its top-level scopes on its own track cover in each frame, split at
 * the frame marks; a frame it did not run in counts 0) and its top scopes
 * by exclusive time in the window frames. */
#define LUDUS_THREAD_TOP 5
typedef struct ludus_thread_stats {
    const char *name; /* owned by the analysis */
    uint64_t tid;
    int is_frame_thread;
    uint64_t frames_busy;                          /* window frames in which it was busy at all */
    int64_t busy_total_ns;                         /* over the window frames */
    double busy_per_frame_ns;                      /* busy_total_ns / frames in the window */
    int64_t busy_p50_ns, busy_p90_ns, busy_max_ns; /* per window frame, exact, nearest rank */
    uint64_t busy_max_frame;                       /* the frame of busy_max_ns (0: none) */
    double busy_share;                             /* busy_total_ns / the window frames' total time */
    uint32_t top_site[LUDUS_THREAD_TOP];           /* site index; UINT32_MAX: none */
    int64_t top_excl_ns[LUDUS_THREAD_TOP];         /* its exclusive time on this thread over the window frames */
    uint64_t top_calls[LUDUS_THREAD_TOP];
    uint64_t dropped; /* events the thread lost: its figures are lower bounds */
} ludus_thread_stats;
LUDUS_API uint32_t ludus_analysis_thread_count(const ludus_analysis *a);
LUDUS_API const ludus_thread_stats *ludus_analysis_thread(const ludus_analysis *a, uint32_t index);
/* Calls and exclusive ns of a site in one frame (0 when absent; with a window other than
 * LUDUS_WINDOW_ALL, a frame outside the window keeps no cells: 0). */
LUDUS_API int ludus_analysis_site_in_frame(const ludus_analysis *a, uint32_t site, uint64_t frame, uint64_t *calls,
                                           int64_t *excl_ns);

/* Counters: one entry per counter track, a site and a series.
 *   per-frame statistics (a LUDUS_PROFILE_FRAME snapshot of a counter, a
 *   gauge or a memory domain): over the window's complete frames that hold
 *   a value (`frames` of `frames_in_window`: a frame without one lost its
 *   snapshot or came before the counter's first use); a frame's value is the
 *   one its closing mark recorded;
 *   timeline samples (LUDUS_PROFILE_PLOT, ludus_counter_sample, memory
 *   gauges): the samples taken in the window, on any thread.
 * Percentiles are exact (nearest rank). */
typedef struct ludus_counter_stats {
    const char *name;   /* the site's name: "DrawCalls", "Memory/Render" */
    const char *series; /* "per frame", "last", "min", "max", "live bytes", ...; "samples" */
    const char *unit;   /* "" or "bytes" */
    const char *kind;   /* "count", "gauge", "memory", "plot" */
    uint32_t site;      /* site index */
    int per_frame;      /* 1: an amount of each frame (total is meaningful); 0: a level */
    uint64_t values;    /* frames with a value (per-frame statistics) or samples (plots) in the window */
    uint64_t frames_in_window;
    double mean, min, p50, p99, max, total;
    int saturated; /* 1: the integer sum `total` passed the int64 range and is held at INT64_MAX or INT64_MIN
                      (never wrapped); every report says "saturated" */
} ludus_counter_stats;
LUDUS_API uint32_t ludus_analysis_counter_count(const ludus_analysis *a);
LUDUS_API const ludus_counter_stats *ludus_analysis_counter(const ludus_analysis *a, uint32_t index);
/* Index of the counter track (name, series), or -1. */
LUDUS_API int64_t ludus_analysis_find_counter(const ludus_analysis *a, const char *name, const char *series);
/* A per-frame statistic's value in frame `frame` (LUDUS_ENODATA: none
 * recorded, or a frame outside a window other than all, whose values are
 * not kept; LUDUS_EINVAL: not a per-frame statistic). */
LUDUS_API int ludus_analysis_counter_in_frame(const ludus_analysis *a, uint32_t counter, uint64_t frame, double *value);

/* Lock waits (<ludus/locks.h>): one entry per site of category "lock"
 * that has waits in the window, i.e. per named lock (every wait on it,
 * wherever it was taken) and per call site of an unnamed lock, ordered by
 * total wait. A wait is the scope's inclusive time; per frame: the waits
 * begun in each of the window's complete frames (any thread), summed, as
 * the mean over those frames. share_of_frame = wait_per_frame_ns / mean
 * frame time: waits of several threads add up, so it can exceed 1. */
typedef struct ludus_lock_stats {
    const char *name; /* the lock's name, or the call site's text ("&queue->lock") */
    const char *file; /* "" for a named lock */
    uint32_t line;
    uint32_t site;             /* site index */
    ludus_duration_stats wait; /* per wait: count = waits, total, p50, p99, max */
    double waits_per_frame;    /* 0 without frames */
    double wait_per_frame_ns;  /* mean over the window's complete frames; 0 without frames */
    double share_of_frame;     /* wait_per_frame_ns / mean frame time; 0 without frames */
    int64_t max_frame_wait_ns; /* the largest wait total of one window frame */
    uint32_t threads;          /* threads that waited */
} ludus_lock_stats;
LUDUS_API uint32_t ludus_analysis_lock_count(const ludus_analysis *a);
LUDUS_API const ludus_lock_stats *ludus_analysis_lock(const ludus_analysis *a, uint32_t index);
/* Index of the first lock with this name, or -1. */
LUDUS_API int64_t ludus_analysis_find_lock(const ludus_analysis *a, const char *name);

/* Log messages (ludus_log, LUDUS_PROFILE_MESSAGE) in the window: counts by
 * level (LUDUS_LOG_*), the frames that had warnings or errors, and the
 * first warnings and errors as they came (at most 16). */
typedef struct ludus_message_stats {
    uint64_t count[4];               /* by level */
    uint64_t frames_with_warnings;   /* window frames with at least one warning */
    uint64_t frames_with_errors;     /* ... one error */
    uint64_t max_warnings_per_frame; /* warnings + errors of the worst frame */
} ludus_message_stats;
typedef struct ludus_message_info {
    int64_t ts_ns;      /* since capture start */
    uint64_t frame;     /* the frame it fell in (0: the lead-in) */
    int level;          /* LUDUS_LOG_* */
    const char *text;   /* owned by the analysis */
    const char *thread; /* the thread's name */
} ludus_message_info;
/* The window's message counts, and its first messages (the analysis's;
 * NULL past the end). */
LUDUS_API void ludus_analysis_get_messages(const ludus_analysis *a, ludus_message_stats *out);
LUDUS_API uint32_t ludus_analysis_first_message_count(const ludus_analysis *a);
LUDUS_API const ludus_message_info *ludus_analysis_first_message(const ludus_analysis *a, uint32_t index);
/* Messages of a frame by level (counts[4]); LUDUS_EINVAL past the last frame. */
LUDUS_API int ludus_analysis_messages_in_frame(const ludus_analysis *a, uint64_t frame, uint64_t counts[4]);

/* Async zones (ludus_async_begin) begun in the window, per (track, site):
 * their own tree, not the threads'. Durations are begin to end; zones still
 * open at capture end are counted as incomplete and left out of them. */
typedef struct ludus_async_stats {
    const char *track, *name;
    uint64_t zones, incomplete;
    uint64_t cross_thread; /* zones that ended on another thread (a fiber counts as one) */
    ludus_duration_stats duration;
    double frames_spanned_mean; /* frame marks inside a zone, + 1 */
    uint64_t frames_spanned_max;
    uint32_t max_depth; /* of zones of one id inside each other */
    /* The thread time they overlapped: of each complete zone, the time its
     * threads (the one that began it and the one that ended it) spent in
     * top-level scopes while it was open, summed; and that as a share of the
     * zones' duration (up to 2 when two threads were busy throughout). */
    int64_t thread_busy_ns;
    double thread_busy_share;
} ludus_async_stats;
LUDUS_API uint32_t ludus_analysis_async_count(const ludus_analysis *a);
LUDUS_API const ludus_async_stats *ludus_analysis_async(const ludus_analysis *a, uint32_t index);

/* ---------------------------------------------------------------------------
 * Rows: every event of the capture an analysis was made from, one at a
 * time, with what the analysis derived for it (its frame, the caller-context
 * path of a slice, its depth and enclosing slice), for tools that load events
 * into tables (ludus-trace sql). Streams like the analysis: one event block
 * and each thread's open slices in memory, never the events. */
enum ludus_row_kind {
    LUDUS_ROW_SLICE = 1, /* a scope or span, given when it ends (or is closed at capture end) */
    LUDUS_ROW_ARG,       /* an annotation of the slice slice_id (given just before that slice) */
    LUDUS_ROW_INSTANT,   /* a marker: LUDUS_PROFILE_MARK, events lost from here, a crash */
    LUDUS_ROW_COUNTER,   /* a counter, gauge or memory sample, or a frame snapshot of one */
    LUDUS_ROW_MESSAGE,   /* a log message */
    LUDUS_ROW_FLOW,      /* one end of a flow (LUDUS_ROW_FLOW_IN: the end that finishes it) */
    LUDUS_ROW_ASYNC      /* an async zone, after every thread's events */
};
#define LUDUS_ROW_INCOMPLETE 1u /* slice, async zone: still open at capture end (closed there) */
#define LUDUS_ROW_CLIPPED 2u    /* cut at the bound of a time cut */
#define LUDUS_ROW_UNWOUND 4u    /* slice: cut short by a non-local exit */
#define LUDUS_ROW_SPAN 8u       /* slice: a span (ludus_span_begin), not a lexical scope */
#define LUDUS_ROW_FIBER 16u     /* slice: the thread ran a fiber (its work is on the fiber's track) */
#define LUDUS_ROW_FLOW_IN 32u   /* flow: the finishing end */
#define LUDUS_ROW_NONE UINT64_MAX
typedef struct ludus_row {
    int kind;              /* enum ludus_row_kind */
    uint32_t flags;        /* LUDUS_ROW_* */
    uint32_t thread;       /* thread index (ludus_capture_thread); async: the thread that began it */
    uint32_t end_thread;   /* async: the thread that ended it (UINT32_MAX: not seen) */
    uint64_t id;           /* slice: its id, unique in the capture, in begin order per thread; async: zone id */
    uint64_t parent_id;    /* slice: the slice around it on its track; LUDUS_ROW_NONE at the top */
    uint64_t slice_id;     /* arg: its slice; instant, counter, message, flow: the innermost slice open on
                              the thread then (LUDUS_ROW_NONE: none) */
    int64_t ts_ns, dur_ns; /* since capture start; dur: slice and async zone (0 for the others) */
    uint32_t depth;        /* slice: slices open around it on its track; async: zones of its id around it */
    uint32_t lane;         /* slice: 0 the thread's own track, k its k-th span lane; async: lane of the track */
    uint32_t site;         /* site index (ludus_analysis_site); UINT32_MAX: none */
    uint32_t path;         /* slice: path index (ludus_analysis_path); UINT32_MAX: none (a fiber run) */
    uint32_t counter;      /* counter: track index (ludus_analysis_counter); UINT32_MAX: a frame snapshot
                              recorded off the frame thread, which the analysis ignores */
    uint64_t frame;        /* the frame its begin lies in, as the analysis counts (0: the lead-in); a
                              counter's frame snapshot: the frame it closes */
    int level;             /* message: LUDUS_LOG_* */
    int64_t int_value;     /* counter (integer), arg (integer), flow: its id */
    double real_value;     /* counter (every value as a double), arg (real) */
    int value_type;        /* counter, arg: 1 integer, 2 real, 3 text */
    const char *name;      /* site name (NULL: none); arg: its key */
    const char *category;  /* "" when none */
    const char *text;      /* message, text arg: the text (text_len bytes, valid UTF-8); async: its track */
    size_t text_len;
} ludus_row;
/* Calls fn for each row, thread by thread in the order of the capture's
 * threads, each thread's events in stream order, then the async zones; a
 * non-zero return of fn stops the walk and is returned. c must be the
 * capture a was created from (LUDUS_EINVAL otherwise); a's window does not
 * filter rows. A damaged file's block fails with LUDUS_EFORMAT (the detail
 * names its offset); LUDUS_ENOMEM. Strings are valid during the call. */
typedef int (*ludus_row_fn)(void *user_data, const ludus_row *row);
LUDUS_API int ludus_analysis_rows(const ludus_analysis *a, ludus_capture *c, ludus_row_fn fn, void *user_data);

/* ---------------------------------------------------------------------------
 * Reports, through a write callback (ludus_write_fn, capture.h: return 0 on
 * success, non-zero to fail: the report then returns LUDUS_EIO). */

enum ludus_report_format {
    LUDUS_REPORT_TEXT = 0,
    LUDUS_REPORT_JSON = 1,
    LUDUS_REPORT_CSV = 2,
    LUDUS_REPORT_HTML = 3 /* one self-contained file: inline CSS, JS and SVG */
};

typedef struct ludus_report_options {
    uint32_t top;                      /* text: sites listed; default 20 */
    const char *title;                 /* e.g. the capture file name; default "capture" */
    const struct ludus_gpu_stats *gpu; /* HTML: the GPU frame time chart (with the CPU's) and the
                                          pass table (ludus_gpu_stats_create); NULL: none */
} ludus_report_options;

typedef struct ludus_diff ludus_diff;

/* diff may be NULL; with HTML it adds the diff section (a is then the NEW side). */
LUDUS_API int ludus_analysis_report(const ludus_analysis *a, const ludus_diff *diff, int format,
                                    const ludus_report_options *opt, ludus_write_fn write, void *user_data);

/* ---------------------------------------------------------------------------
 * Diff of two sides, BASE and NEW, each one capture or several runs of the
 * same program (docs/analysis.md, "diff", states every definition).
 *   Time (slower / faster work): the per-call exclusive time's shift, the
 *   Hodges-Lehmann estimate of NEW / BASE (the median of the ratios of every
 *   pair of calls) with its distribution-free confidence interval at 1 -
 *   alpha / tests (Bonferroni), widened by the run-to-run variation of the
 *   per-run medians (measured with several runs on a side; assumed to be
 *   run_noise with one run per side). A verdict only when the whole interval
 *   lies beyond min_shift in one direction and the estimated change costs at
 *   least min_frame_share of BASE's median frame per frame (or min_call_ns
 *   per call without frames). The mean is reported, never decides.
 *   Time per frame (more / less time per frame): the site's exclusive time
 *   in each frame, summed over its calls: the Hodges-Lehmann shift of those
 *   per-frame totals (the frames that hold calls; the change of how many
 *   frames do is added) with its interval widened by the run-to-run term,
 *   under the same rule as the time per call; its cause split into more
 *   calls, slower typical calls and a heavier tail (time_cause).
 *   Work (more / less work): calls per frame and calls per second, each
 *   tested with a Mann-Whitney U test (over frames; over chunks of frames)
 *   at p < alpha / tests with a relative change >= min_change and beyond
 *   the run-to-run term; granted when both agree, else on the measure that
 *   fits the site (work_basis).
 *   Run-to-run noise: measured between the runs with several runs on a
 *   side; with one run per side estimated from blocks of each run's frames
 *   (at least run_noise): a verdict that holds within the runs but not
 *   beyond that noise is LUDUS_DIFF_UNDECIDED ("near the line"). */
typedef struct ludus_diff_desc {
    double alpha;           /* family-wise; default 0.01 */
    double min_change;      /* relative, work, counters and locks; default 0.05 (5%) */
    double min_frame_share; /* default 0.002 (0.2% of the median frame) */
    double min_call_ns;     /* without frames; default 1000 */
    double min_shift;       /* relative, time per call: the interval must lie beyond it; default 0.02 (2%) */
    double run_alpha;       /* the run-to-run widening's level (1 - confidence); default 0.05 */
    double run_noise;       /* assumed SD of a per-run median (relative) with one run per side; default 0.01 */
} ludus_diff_desc;

#define LUDUS_DIFF_MORE_WORK 1u /* calls per frame up */
#define LUDUS_DIFF_LESS_WORK 2u
#define LUDUS_DIFF_SLOWER 4u /* exclusive time per call up */
#define LUDUS_DIFF_FASTER 8u
#define LUDUS_DIFF_SLOWER_INSIDE 16u /* inclusive per call up, exclusive not: a child is slower */
#define LUDUS_DIFF_NEW 32u           /* only in NEW */
#define LUDUS_DIFF_GONE 64u          /* only in BASE */
#define LUDUS_DIFF_MORE_TIME 128u    /* exclusive time per frame up (the calls of a frame summed) */
#define LUDUS_DIFF_LESS_TIME 256u
/* A time or work verdict within the runs that the run-to-run noise (measured,
 * or with one run per side estimated from blocks of frames) leaves
 * undecided: near the line, never counted as a change. */
#define LUDUS_DIFF_UNDECIDED 512u
/* A path whose calls (or time) per frame changed while its site's did not:
 * the work moved between callers or threads (a job system that steals),
 * never counted as a change. */
#define LUDUS_DIFF_MOVED 1024u
/* A site (or a path of it) that waits rather than works: a wait scope by
 * category or name, or one whose own time waits on other threads' work
 * (docs/analysis.md, "Scopes that wait"). Its time is judged as a wait:
 * the time per call or per frame that would have been slower (faster)
 * work or more (less) time per frame is "waited longer" ("waited less"),
 * never a change: the other threads' work it waited on carries the verdict. */
#define LUDUS_DIFF_WAITED_LONGER 2048u
#define LUDUS_DIFF_WAITED_LESS 4096u
#define LUDUS_DIFF_CHANGED                                                                                        \
    (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK | LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER | LUDUS_DIFF_MORE_TIME | \
     LUDUS_DIFF_LESS_TIME)
/* What a change of the time per frame consists of (ludus_site_diff.time_cause). */
#define LUDUS_DIFF_CAUSE_CALLS 1u   /* more (fewer) calls per frame */
#define LUDUS_DIFF_CAUSE_TYPICAL 2u /* the typical call slower (faster): the per-call shift */
#define LUDUS_DIFF_CAUSE_TAIL 4u    /* the rest: the heavy calls (above BASE's p90) heavier or more of them */

enum ludus_metric {
    LUDUS_METRIC_MEAN = 0,
    LUDUS_METRIC_P50,
    LUDUS_METRIC_P90,
    LUDUS_METRIC_P99,
    LUDUS_METRIC_CALLS,
    LUDUS_METRIC_COUNTER,  /* a gate on a counter's per-frame mean (ludus_gate.counter) */
    LUDUS_METRIC_LOCK,     /* a gate on a lock's wait per frame (ludus_gate.counter: the lock's name) */
    LUDUS_METRIC_ERRORS,   /* a gate on the errors logged per frame (ludus_log at LUDUS_LOG_ERROR) */
    LUDUS_METRIC_WARNINGS, /* the same for warnings */
    LUDUS_METRIC_TOTAL,    /* a gate on the exclusive time per frame (rel_total; verdict more/less time) */
    LUDUS_METRIC_VERDICT   /* a gate on the verdict itself (ludus_gate.verdict), no threshold */
};

typedef struct ludus_site_diff {
    const char *name; /* site name (followed by " (file:line)" when another site has that name), or path "A/B/C"
                         (each shared name in it so labelled) */
    int is_path;
    int64_t base_index, new_index; /* -1 when absent on that side */
    double base_calls_per_frame, new_calls_per_frame;
    ludus_duration_stats base_excl, new_excl, base_incl, new_incl;
    double rel[5]; /* relative change per enum ludus_metric (exclusive per call; calls per frame) */
    double rel_incl_p50;
    double p_calls, p_time, p_incl; /* two-sided p values (1 when not testable) */
    uint32_t verdict;               /* LUDUS_DIFF_* */
    /* Time per call: Hodges-Lehmann NEW/BASE - 1 and its interval (exclusive,
     * inclusive); -HUGE_VAL / HUGE_VAL ends when unbounded; 0 when untested. */
    double shift, shift_lo, shift_hi;
    double incl_shift, incl_shift_lo, incl_shift_hi;
    /* SD between runs of the per-run median exclusive time (log scale, about
     * a relative SD), pooled over both sides; NAN with one run per side. */
    double run_sd;
    /* Work: calls per second (the median over chunks of 25 window frames of
     * calls / their wall time), its relative change and p value; what each
     * measure alone says (MORE_WORK, LESS_WORK or 0); frame_time_r: the
     * correlation of a frame's calls with its length (the larger of BASE's
     * and NEW's); work_time_bound:
     * that is >= 0.5 (the site runs on time, not per frame). A work verdict
     * rests on both measures when they agree (work_basis 3), else on the one
     * that fits the site: per second when time bound (2), per frame (1). */
    double base_calls_per_s, new_calls_per_s, rel_calls_per_s, p_calls_per_s;
    uint32_t work_per_frame, work_per_second;
    double frame_time_r; /* Spearman's rank correlation (one outlier frame cannot make it) */
    int work_time_bound;
    uint32_t work_basis;
    /* Time per frame. A frame's total: the exclusive (inclusive: of the
     * outermost calls) ns of the entry's calls begun in it; per second of
     * the frame instead when work_time_bound. rel_total: the Hodges-Lehmann
     * shift (NEW/BASE - 1) of the totals of the frames that hold calls,
     * times the change of the share of frames that do, with its interval
     * [total_lo, total_hi] widened by the run-to-run term; the mean total
     * per window frame of each side is shown. incl_*: the same of
     * inclusive time (sites; 0 for paths). p_total: the p value of
     * rel_total against the within-run and run-to-run noise together. */
    double base_total_ns, new_total_ns; /* mean per window frame (ns; ns per s when time bound) */
    double rel_total, total_lo, total_hi, p_total;
    double base_incl_total_ns, new_incl_total_ns;
    double rel_incl_total, incl_total_lo, incl_total_hi;
    /* What the change consists of, on the log scale (they sum to
     * log(1 + rel_total)): calls per frame, the typical call (the per-call
     * shift), and the rest, the tail. time_cause: LUDUS_DIFF_CAUSE_* of the
     * parts that carry at least a quarter of the change in its direction.
     * The tail in figures: the heaviest tail_share of each side's calls
     * (the smallest of 1%, 5%, 10%, 25%, 50% whose time changed by at
     * least 3/4 of the whole change of the mean time per frame): their
     * calls and time per window frame, and tail_ns, BASE's lightest of
     * them. */
    double part_calls, part_typical, part_tail;
    uint32_t time_cause;
    double tail_share;
    int64_t tail_ns;
    double base_tail_calls, new_tail_calls, base_tail_ns, new_tail_ns;
    /* The run-to-run SD (log scale) each interval was widened with: per call,
     * per frame total, calls per frame; measured between runs, or with one
     * run per side estimated from blocks of frames (at least run_noise for
     * the times). p_shift: the per-call shift's p value against both. */
    double noise_sd_call, noise_sd_total, noise_sd_calls;
    double p_shift;
} ludus_site_diff;

/* Compares NEW (newer) with BASE: 0 and *out, or LUDUS_E* (desc NULL or
 * zeroed: the defaults above). Free it with ludus_diff_destroy. */
LUDUS_API int ludus_diff_create(const ludus_analysis *base, const ludus_analysis *newer, const ludus_diff_desc *desc,
                                ludus_diff **out);
/* The same over several runs per side (nbase, nnewer >= 1): sites and paths
 * are matched in every run; time and work pool the runs, and the time
 * interval is widened by how much the runs disagreed. Counters, locks,
 * messages and the HTML report use the first run of each side. The
 * analyses must outlive the diff. */
LUDUS_API int ludus_diff_create_runs(const ludus_analysis *const *base, uint32_t nbase,
                                     const ludus_analysis *const *newer, uint32_t nnewer, const ludus_diff_desc *desc,
                                     ludus_diff **out);
/* How many runs each side had and how much they disagreed. */
typedef struct ludus_diff_info {
    uint32_t base_runs, new_runs;
    int run_noise_known;   /* 0: one run per side, run_noise was assumed */
    double run_sd_median;  /* over the entries tested: SD between runs of the per-run median (relative) */
    double run_sd_max;     /* the largest one */
    double run_t;          /* the quantile the run term used (t, or z when assumed) */
    double alpha_per_test; /* the within-run interval's level: 1 - this */
    ludus_diff_desc desc;  /* with defaults resolved */
    /* One run per side: each run's window frames cut into `blocks` blocks
     * (0: too few frames, run_noise alone), whose disagreement estimates the
     * run-to-run noise the diff cannot see (docs/analysis.md). */
    uint32_t blocks;
    uint32_t undecided; /* entries near the line (LUDUS_DIFF_UNDECIDED) */
    /* Frame time: p50, p90 and p99 of the window frames (every run pooled),
     * each NEW/BASE - 1 with an interval from the order statistics of each
     * side (distribution-free, at 1 - alpha / 3 each) widened by the
     * run-to-run SD of that percentile; verdict LUDUS_DIFF_SLOWER, _FASTER,
     * _UNDECIDED or 0, under min_shift. */
    struct ludus_diff_frame_pct {
        double q;
        int64_t base_ns, new_ns;
        double rel, lo, hi, noise_sd;
        uint32_t verdict;
    } frame_pct[3];
    /* The machine changed between the sides: at least 3 in 4 of the sites
     * that cost 0.2% of a frame or more (and at least 3) moved their time
     * per call the way their median shift did, and that median lies beyond
     * min_shift. machine_shift is that median (NEW/BASE - 1; 0: no such
     * shift); every time verdict (per call, per frame, slower inside, the
     * frame-time percentiles) then stands only beyond it by machine_spread
     * (twice the sites' robust spread around it, at least min_shift), so the
     * common shift alone trips no gate and a site that moved further is
     * still found. machine_sites of machine_of sites moved its way. The
     * frame thread's median CPU time per frame of each side (-1 unknown)
     * says whether it ran longer or waited longer. */
    double machine_shift, machine_spread;
    uint32_t machine_sites, machine_of;
    int64_t base_frame_cpu_ns, new_frame_cpu_ns;
} ludus_diff_info;
LUDUS_API void ludus_diff_get_info(const ludus_diff *d, ludus_diff_info *out);
/* Frees a diff (NULL: nothing). */
LUDUS_API void ludus_diff_destroy(ludus_diff *d);
/* The entries: each site, then each path, present on either side; an
 * entry is the diff's (NULL past the end). */
LUDUS_API uint32_t ludus_diff_entry_count(const ludus_diff *d);
LUDUS_API const ludus_site_diff *ludus_diff_entry(const ludus_diff *d, uint32_t index);
/* Index of the entry of the site (is_path 0) or path (1) of this name, or
 * -1 (a site's plain name finds the first entry of that name when its entry
 * shows it with file:line). */
LUDUS_API int64_t ludus_diff_find_entry(const ludus_diff *d, const char *name, int is_path);

/* Counters: each per-frame statistic present on either side, compared by a
 * Mann-Whitney U test over its per-frame values in the two windows (alpha
 * split over the counters compared). Up is LUDUS_DIFF_MORE_WORK ("more
 * work" for a counter's per-frame amount: draw calls per frame +20% is
 * more work of its own kind; "higher" for a level), down LESS_WORK. */
typedef struct ludus_counter_diff {
    const char *name, *series, *kind; /* as in ludus_counter_stats */
    int per_frame;
    uint64_t base_frames, new_frames; /* window frames holding a value */
    double base_mean, new_mean, base_p99, new_p99;
    double rel; /* of the mean; HUGE_VAL when BASE is 0 and NEW is not */
    double p;
    uint32_t verdict; /* LUDUS_DIFF_MORE_WORK, LESS_WORK, NEW, GONE or 0 */
} ludus_counter_diff;
LUDUS_API uint32_t ludus_diff_counter_count(const ludus_diff *d);
LUDUS_API const ludus_counter_diff *ludus_diff_counter(const ludus_diff *d, uint32_t index);

/* Lock waits: each lock (ludus_lock_stats; matched by site id and name)
 * present on either side, its wait per frame compared by a Mann-Whitney U
 * test over the per-frame wait totals of the two windows (alpha split over
 * the locks compared). A change is significant when p is below that, the
 * relative change of the mean reaches min_change, and it moves the wait by
 * at least min_frame_share of BASE's median frame per frame. Up is
 * LUDUS_DIFF_MORE_WORK ("more waiting"), down LESS_WORK ("less waiting"). */
typedef struct ludus_lock_diff {
    const char *name;
    uint64_t base_waits, new_waits;
    double base_wait_per_frame_ns, new_wait_per_frame_ns;
    double base_share, new_share; /* of the frame */
    int64_t base_p99_ns, new_p99_ns;
    double rel; /* of wait per frame; HUGE_VAL when BASE is 0 and NEW is not */
    double p;
    uint32_t verdict; /* LUDUS_DIFF_MORE_WORK, LESS_WORK, NEW, GONE or 0 */
} ludus_lock_diff;
LUDUS_API uint32_t ludus_diff_lock_count(const ludus_diff *d);
LUDUS_API const ludus_lock_diff *ludus_diff_lock(const ludus_diff *d, uint32_t index);

/* A gate: "METRIC > +X%" or "METRIC < -X%" (metric: mean, p50, p90, p99,
 * calls, total). Applies to the entries the verdict finds significant for
 * that metric (time metrics: slower/faster; calls: more/less work; total:
 * more/less time per frame); "METRIC NAME > +X%" to the site (or path) NAME
 * only. "counter NAME > +X%" gates a counter's per-frame mean: NAME is the
 * counter's name and series ("ReadyQueue max", "Memory/Render live bytes"),
 * or the name alone for its first series (a count's "per frame", a gauge's
 * "last", a domain's "live bytes"); it trips when the change is significant
 * and beyond X. "lock NAME > +X%" gates a lock's wait per frame the same
 * way (NAME: ludus_lock_diff.name).
 * A verdict gate names a verdict and no threshold: "slower", "faster",
 * "more work", "less work", "more time per frame", "less time per frame"
 * trip on every entry (site or path) whose verdict says so (never on one
 * near the line); followed by a NAME ("slower Animate"), on that site or
 * path only. */
typedef struct ludus_gate {
    int metric;  /* enum ludus_metric */
    int greater; /* 1: '>', 0: '<' */
    double rel;  /* 0.05 for +5% */
    char text[64];
    char counter[64]; /* NAME: of the counter, lock, site or path ("" for every site and path) */
    uint32_t verdict; /* LUDUS_METRIC_VERDICT: the LUDUS_DIFF_* bit it trips on */
    int sites_only;   /* 1: sites only, never caller-context paths (set after parsing) */
} ludus_gate;
LUDUS_API int ludus_gate_parse(const char *text, ludus_gate *out);
/* 0 when every name the gate gives exists on at least one side of the
 * diff (a site or path, a counter series, a lock); else LUDUS_EINVAL with
 * ludus_last_error_detail() naming it and the nearest names (edit
 * distance): a misspelt gate would otherwise guard nothing. */
LUDUS_API int ludus_diff_gate_validate(const ludus_diff *d, const ludus_gate *gate);
/* Number of (entry, gate) pairs that trip; each is reported through write
 * when write is non-NULL. */
LUDUS_API uint32_t ludus_diff_check_gates(const ludus_diff *d, const ludus_gate *gates, uint32_t ngates,
                                          ludus_write_fn write, void *user_data);
/* Checks the gates (as ludus_diff_check_gates) and keeps their lines: the
 * text report and the HTML report of the diff then list the tripped gates
 * first. Returns the number tripped; each call replaces the last one's. */
LUDUS_API uint32_t ludus_diff_set_gates(ludus_diff *d, const ludus_gate *gates, uint32_t ngates);
/* Text, JSON or CSV of the diff. */
LUDUS_API int ludus_diff_report(const ludus_diff *d, int format, ludus_write_fn write, void *user_data);

/* ---------------------------------------------------------------------------
 * GPU timing (<ludus/gpu.h>, docs/gpu.md): statistics of a capture's GPU
 * frames and passes, from device time (P1, P2: no clock mapping needed).
 * Per track (queue): its frames' GPU time, from frame samples, or where a
 * frame has none the envelope of its passes (first begin to last end). Per
 * pass (track, name): its durations, and calls per frame over the frames
 * that have GPU samples on that track. Percentiles are exact (nearest rank). */
typedef struct ludus_gpu_stats ludus_gpu_stats;
typedef struct ludus_gpu_duration_stats {
    uint64_t count;
    int64_t total_ns, mean_ns, min_ns, p50_ns, p95_ns, max_ns;
} ludus_gpu_duration_stats;
typedef struct ludus_gpu_track_stats {
    const char *track; /* owned by the stats */
    int calibrated;
    uint64_t frames, envelope_frames; /* frames; of them, timed by their passes' envelope */
    ludus_gpu_duration_stats frame_time;
    uint64_t coverage[LUDUS_GPU_COVERAGE_COUNT];
} ludus_gpu_track_stats;
typedef struct ludus_gpu_pass_stats {
    uint32_t track; /* index of its track */
    const char *pass;
    double calls_per_frame;
    ludus_gpu_duration_stats duration;
} ludus_gpu_pass_stats;
/* LUDUS_ENODATA when the capture has no GPU sample; LUDUS_ENOMEM. */
LUDUS_API int ludus_gpu_stats_create(ludus_capture *capture, ludus_gpu_stats **out);
LUDUS_API void ludus_gpu_stats_destroy(ludus_gpu_stats *s);
LUDUS_API uint32_t ludus_gpu_stats_track_count(const ludus_gpu_stats *s);
LUDUS_API const ludus_gpu_track_stats *ludus_gpu_stats_track(const ludus_gpu_stats *s, uint32_t index);
/* Passes by track, then by total time, largest first. */
LUDUS_API uint32_t ludus_gpu_stats_pass_count(const ludus_gpu_stats *s);
LUDUS_API const ludus_gpu_pass_stats *ludus_gpu_stats_pass(const ludus_gpu_stats *s, uint32_t index);
/* Text (LUDUS_REPORT_TEXT) or JSON of the GPU statistics; with base, a
 * comparison: each track's frame time and each pass (matched by track and
 * pass name) base -> new, the change of its median and mean, "slower" or
 * "faster" when both change the same way by more than 5% (device time has
 * little noise; this is no significance test: docs/gpu.md). */
LUDUS_API int ludus_gpu_report(const ludus_gpu_stats *s, const ludus_gpu_stats *base, int format, ludus_write_fn write,
                               void *user_data);

/* ---------------------------------------------------------------------------
 * Old names (before 0.3), kept for one minor release; LUDUS_NO_DEPRECATED
 * leaves them out. The diff's item
 * types were ludus_diff_entry, ludus_diff_counter and ludus_diff_lock:
 * those names are the accessors' now, so the types' old names have none. */
#ifndef LUDUS_NO_DEPRECATED
LUDUS__DEPRECATED(ludus_diff_entry_count) static inline uint32_t ludus_diff_count(const ludus_diff *d) {
    return ludus_diff_entry_count(d);
}
LUDUS__DEPRECATED(ludus_diff_entry)
static inline const ludus_site_diff *ludus_diff_entry_at(const ludus_diff *d, uint32_t index) {
    return ludus_diff_entry(d, index);
}
LUDUS__DEPRECATED(ludus_diff_find_entry)
static inline const ludus_site_diff *ludus_diff_find(const ludus_diff *d, const char *name, int is_path) {
    int64_t i = ludus_diff_find_entry(d, name, is_path);
    return i < 0 ? NULL : ludus_diff_entry(d, LUDUS__CAST(uint32_t, i));
}
LUDUS__DEPRECATED(ludus_diff_counter)
static inline const ludus_counter_diff *ludus_diff_counter_at(const ludus_diff *d, uint32_t index) {
    return ludus_diff_counter(d, index);
}
LUDUS__DEPRECATED(ludus_diff_lock)
static inline const ludus_lock_diff *ludus_diff_lock_at(const ludus_diff *d, uint32_t index) {
    return ludus_diff_lock(d, index);
}
LUDUS__DEPRECATED(ludus_analysis_get_messages)
static inline void ludus_analysis_messages(const ludus_analysis *a, ludus_message_stats *out) {
    ludus_analysis_get_messages(a, out);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_ANALYSIS_H */
