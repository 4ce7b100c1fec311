/* The normalised event stream (ludus__nev_iter): what every exporter and
 * the analysis read a capture through. Ends paired with their begins by
 * identity, scopes skipped by a non-local exit closed and flagged unwound,
 * spans placed on lanes where they nest, orphan ends dropped and counted,
 * begins left open closed at capture end and flagged incomplete, ticks
 * converted to ns since capture start. The read side of a capture is this
 * header and capture_model.h, which it includes. */
#ifndef LUDUS_NEV_H
#define LUDUS_NEV_H

#include "async_zones.h"
#include "capture_model.h"

#define LUDUS_NEV_INCOMPLETE 1u /* END synthesised at capture end (or at a cut) */
#define LUDUS_NEV_CLIPPED 2u    /* BEGIN or END moved to the bound of a time cut */
#define LUDUS_NEV_UNWOUND 4u    /* END synthesised where a non-local exit was found */
#define LUDUS_NEV_SPAN 8u       /* a span (BEGIN/END, ludus_span_begin), not a lexical scope */
#define LUDUS_NEV_FIBER 16u     /* a span: the thread ran a fiber (its work is on the fiber's track) */

typedef struct ludus__nev {
    uint8_t kind; /* LUDUS_NEV_* (event_table.h) */
    uint8_t lane; /* 0: the thread's track; k: its k-th span lane */
    uint16_t flags;
    uint32_t site;    /* index into c->sites; UINT32_MAX for none */
    uint32_t depth;   /* open slices of the lane below this event */
    uint32_t series;  /* counters: 0 for samples, 1 + LUDUS__STAT_* for a frame statistic */
    int64_t ts_ns;    /* since capture start */
    int64_t begin_ns; /* END: its begin's time */
    uint64_t value;   /* flow id, counter value, frame number, lost events */
} ludus__nev;

/* An open slice: a lexical scope or a span. */
typedef struct ludus__open {
    uint32_t site; /* UINT32_MAX: filtered */
    uint8_t lane;
    uint8_t span;
    uint16_t unused;
    int64_t ts_ns;
    uint64_t seq;     /* slot ordinal of its begin: begin order on the thread (lexical and spans), and identity */
    uintptr_t addr;   /* lexical: the begin's recorded address (what its end names) */
    uint64_t ordinal; /* span: span ordinal (its lane's index) */
    uint32_t d0;      /* span: lexical depth at its begin */
    uint32_t match;   /* span: its site index, filtered or not (ends find it by site) */
    uint64_t seq0;    /* span: seq of the lexical top at its begin */
} ludus__open;

/* A slice a time cut holds open (cut.c). */
typedef struct ludus__cut_open {
    uint32_t site;
    uint8_t lane, span, clipped;
    int64_t ts_ns;
} ludus__cut_open;

/* 128-bit products of tick conversion (GCC and Clang on 64-bit targets);
 * __extension__ keeps -Wpedantic quiet where the single file is built. */
__extension__ typedef unsigned __int128 ludus__u128;

/* Tick to ns conversion without a 128-bit division per event: a rounded
 * fixed-point fraction of the calibration ratio (within 1 ns). */
typedef struct ludus__tick_conv {
    uint64_t range; /* ticks - t0 - 1 below this: the fast path applies (0: never) */
    uint64_t t0, m; /* m: ns per tick as a 0.64 fixed-point fraction */
    int64_t base;
} ludus__tick_conv;
LUDUS_HIDDEN void ludus__tick_conv_init(ludus__tick_conv *v, const ludus_capture *c);

/* ns since capture start: within 1 ns of ludus__ticks_to_ns (exact for the
 * monotonic clock) at one multiply instead of a division. */
static inline int64_t ludus__tick_conv_ns(const ludus__tick_conv *v, const ludus_capture *c, uint64_t ticks) {
    uint64_t x = ticks - v->t0;
    if (__builtin_expect(x - 1 >= v->range, 0)) return ludus__ticks_to_ns(c, ticks);
    return (int64_t)(uint64_t)(((ludus__u128)x * v->m) >> 64) + v->base;
}

typedef struct ludus__seen_run {
    uintptr_t base;
    uint64_t n, ordinal;
} ludus__seen_run;

typedef struct ludus__lane_iv {
    int64_t t0, t1;
} ludus__lane_iv;

/* A site key resolved: its index, and the index shown (UINT32_MAX when its
 * category is disabled). A direct-mapped cache in front of the site table. */
typedef struct ludus__site_memo {
    uintptr_t key;
    uint32_t site, shown;
} ludus__site_memo;

#define LUDUS__NEV_BATCH 256u /* events produced per refill */
#define LUDUS__SITE_MEMO 256u

typedef struct ludus__orphan_end {
    uintptr_t ref;      /* a scope's end: its begin's address (0: a span's) */
    uintptr_t span_key; /* a span's end: its site's key (1: the end named none) */
} ludus__orphan_end;

typedef struct ludus__nev_iter {
    const ludus_capture *c;
    ludus__tick_conv conv;
    const ludus__cap_thread *th;
    /* what the reader takes: the current batch (the raw one, or the cut's) */
    const ludus__nev *ob;
    uint32_t opos, on;
    /* raw reading */
    uint32_t run;
    size_t pos;
    uint64_t ordinal; /* of the current run's first slot */
    uint64_t cursor;  /* capture files: where the next block is */
    ludus__run lrun;
    int loaded;
    ludus__run_buf rbuf;
    struct ludus__run_ahead *ahead; /* the runs loading on another core (run_ahead.h); NULL: here */
    int ahead_tried;
    int load_here; /* tests: no loader (ludus__nev_load_here) */
    ludus__seen_run *seen;
    uint32_t nseen, seen_cap;
    ludus__site_memo *memo; /* LUDUS__SITE_MEMO entries */
    /* the raw batch: what the pairing emits (one raw event may emit many) */
    ludus__nev *rb;
    uint32_t rpos, rn, rcap;
    /* pairing */
    ludus__open *lex, *span;
    uint32_t nlex, lex_cap, nspan, span_cap;
    uint32_t lane_depth[LUDUS__MAX_LANES];
    uint64_t span_ordinal;
    uint8_t fast[16]; /* per raw kind: what the pairing loop does inline (normalize.c) */
    /* lanes: decided in a first pass (deciding = 1) when the thread has spans */
    int deciding;
    int no_begins;      /* no BEGIN is emitted (ludus__nev_no_begins) */
    int slow_path;      /* tests: every event through step() (ludus__nev_slow_path) */
    uint8_t *span_lane; /* the thread's (ludus__cap_thread.span_lane) */
    uint64_t span_lane_n;
    ludus__lane_iv *lane_iv[LUDUS__MAX_LANES];
    uint32_t lane_n[LUDUS__MAX_LANES], lane_cap[LUDUS__MAX_LANES];
    uint32_t lanes_used;
    int done;
    int64_t loss_at; /* the "losses began" marker comes before the first event at or after this; INT64_MAX: none */
    uint64_t frame_no;
    int oom;
    ludus__nev sink; /* where events go when the batch cannot grow */
    int load_error;  /* LUDUS_E* code when a run could not be loaded */
    /* counts of this pass (prepare.c reads them) */
    uint64_t orphan_ends, filtered, mismatched, unknown;
    /* time cut state (cut.c) */
    int cut_state;
    uint32_t cut_i, cut_n;
    ludus__cut_open *cut_open;
    uint32_t cut_open_cap;
    ludus__nev held;
    ludus__nev *cb; /* the cut's batch */
    /* the texts of the stream's messages (kept for the iterator's life) */
    char *text;
    size_t text_n, text_cap;
    /* ring_start.c: the ends whose begin is not in the stream, in stream
     * order (a scope's by its begin's address, a span's by its site key) */
    ludus__orphan_end *orphans;
    uint32_t norphans, orphans_cap;
    int collect_orphans;
} ludus__nev_iter;

/* 0, or a LUDUS_E* code (LUDUS_ENOMEM) when lanes could not be prepared. */
LUDUS__SIBLING int ludus__nev_init(ludus__nev_iter *it, const ludus_capture *c, uint32_t thread);
/* Refills it->ob (the next batch of the stream, time cut applied); 0 at the
 * end of the thread's stream (then check ludus__nev_error). */
LUDUS__SIBLING int ludus__nev_fill(ludus__nev_iter *it);
LUDUS__SIBLING void ludus__nev_free(ludus__nev_iter *it);
/* After init: a reader that takes no BEGIN (its slices need only the END,
 * which carries the begin's time and depth) asks for the stream without
 * them. Kept for a cut (it pairs them) and for a thread with flows (a
 * flow's neighbours' times count), so what the reader writes is the same. */
LUDUS_HIDDEN void ludus__nev_no_begins(ludus__nev_iter *it);
/* For tests, after init: every event paired by step() and the on_* handlers,
 * none by the inline loop (scan_run_k), so a test can compare the two paths'
 * streams (tests/unit/test_nev_paths.c). Same stream, slower. */
LUDUS_HIDDEN void ludus__nev_slow_path(ludus__nev_iter *it);
/* For tests, after init: every run loaded on the reader's thread, none by
 * a loader on another (run_ahead.h), so a test can compare the two. */
LUDUS_HIDDEN void ludus__nev_load_here(ludus__nev_iter *it);
/* The stream without a time cut, one event at a time (the cut reads it). */
LUDUS_HIDDEN int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out);
LUDUS_HIDDEN int ludus__nev_next_cut(ludus__nev_iter *it, ludus__nev *out);
/* A MESSAGE event's text (valid UTF-8, NUL-terminated, len bytes): its
 * own, or its site's name. Valid until the iterator is freed. */
LUDUS__SIBLING const char *ludus__nev_text(const ludus__nev_iter *it, const ludus__nev *e, size_t *len);
/* The error a stream ended with: 0, or a LUDUS_E* code (detail set). */
LUDUS__SIBLING int ludus__nev_error(const ludus__nev_iter *it);

/* The next event, valid until the next call; NULL at the end. */
static inline const ludus__nev *ludus__nev_get(ludus__nev_iter *it) {
    if (it->opos == it->on && !ludus__nev_fill(it)) return NULL;
    return &it->ob[it->opos++];
}

/* 1: *out holds the next event; 0: end of the thread's stream. */
static inline int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out) {
    const ludus__nev *e = ludus__nev_get(it);
    if (!e) return 0;
    *out = *e;
    return 1;
}

/* The time of the event after the one just taken (INT64_MAX at the end);
 * the event just taken must have been copied first: this may refill. */
static inline int64_t ludus__nev_peek_ts(ludus__nev_iter *it) {
    if (it->opos == it->on && !ludus__nev_fill(it)) return INT64_MAX;
    return it->ob[it->opos].ts_ns;
}

/* A thread's frame marks as the analysis takes them (frame_marks.c): each
 * FRAME's time and the thread's CPU time at it (the FRAME_CPU after it with
 * a value >= 0; -1 when none). oom: a mark could not be kept. */
typedef struct ludus__marks {
    int64_t *ns, *cpu;
    uint64_t n, cap;
    int oom;
} ludus__marks;
/* Marks shared by a capture's thread and the analyses made of it (an
 * analysis may outlive its capture: it holds a reference, not a copy, so a
 * long capture's marks are in memory once). ns and cpu: n entries each. */
typedef struct ludus__mark_set {
    uint32_t refs; /* atomic */
    uint64_t n;
    int64_t *ns, *cpu;
} ludus__mark_set;
/* A set of one reference owning m's arrays (m emptied, cut to their
 * number first); NULL when out of memory (m freed). */
LUDUS_HIDDEN ludus__mark_set *ludus__mark_set_of(ludus__marks *m);
LUDUS_HIDDEN ludus__mark_set *ludus__mark_set_retain(ludus__mark_set *s);
LUDUS_HIDDEN void ludus__mark_set_release(ludus__mark_set *s);
LUDUS_HIDDEN void ludus__marks_push(ludus__marks *m, int64_t ns);
LUDUS_HIDDEN void ludus__marks_free(ludus__marks *m);
/* Cut to their number (kept as they are when that fails). */
LUDUS_HIDDEN void ludus__marks_fit(ludus__marks *m);
/* Notes ev when it is a mark or a mark's CPU time (one compare for any other). */
static inline void ludus__marks_note(ludus__marks *m, const ludus__nev *ev) {
    const uint8_t tr = ludus__nevs[ev->kind].analysis;
    if (__builtin_expect(tr != LUDUS__TR_FRAME && tr != LUDUS__TR_FRAME_CPU, 1)) return;
    if (tr == LUDUS__TR_FRAME)
        ludus__marks_push(m, ev->ts_ns);
    else if (m->n && m->cpu[m->n - 1] < 0 && (int64_t)ev->value >= 0)
        m->cpu[m->n - 1] = (int64_t)ev->value;
}
/* The frame thread: the first of the threads with the most marks (their
 * `frames`), UINT32_MAX when none has one. */
LUDUS_HIDDEN uint32_t ludus__frame_thread_of(const ludus_capture *c);
/* Thread t's marks into *out, a reference (the caller releases it): what
 * preparing noted or the file's records held, else a pass over the
 * thread's stream. 0, or a LUDUS_E* code (detail set). */
LUDUS_HIDDEN int ludus__frame_marks(const ludus_capture *c, uint32_t t, ludus__mark_set **out);

/* Scope annotations kept until their slice ends (slice_args.c). */
#define LUDUS__SLICE_ARGS_MAX 16 /* keys per slice */
typedef struct ludus__slice_args_lane {
    ludus__nev *e;
    uint32_t n, cap;
} ludus__slice_args_lane;
typedef struct ludus__slice_args {
    ludus__slice_args_lane lane[LUDUS__MAX_LANES];
    uint64_t dropped;    /* past LUDUS__SLICE_ARGS_MAX keys, or no memory */
    uint64_t over_max;   /* of them past LUDUS__SLICE_ARGS_MAX keys */
    uint64_t superseded; /* a value replaced by a later one of its key in its slice */
} ludus__slice_args;
/* ev: an attaching event (ludus__nevs[kind].attach) with its slice's lane
 * and depth. */
LUDUS__SIBLING void ludus__slice_args_add(ludus__slice_args *a, const ludus_capture *c, const ludus__nev *ev);
/* The annotations of the slice ending at (lane, depth), removed: *first
 * points at them until the next add. Inline for the common case: a lane
 * with none (every slice end of a capture without annotations). */
LUDUS__SIBLING uint32_t ludus__slice_args_take_some(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                                    const ludus__nev **first);
static inline uint32_t ludus__slice_args_take(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                              const ludus__nev **first) {
    if (__builtin_expect(a->lane[lane].n == 0, 1)) {
        *first = NULL;
        return 0;
    }
    return ludus__slice_args_take_some(a, lane, depth, first);
}
LUDUS__SIBLING void ludus__slice_args_reset(ludus__slice_args *a);
LUDUS__SIBLING void ludus__slice_args_free(ludus__slice_args *a);
/* An annotation's text (value kind TEXT): "" when empty. */
LUDUS__SIBLING const char *ludus__arg_text(const ludus__nev_iter *it, const ludus__nev *ev, size_t *len);

#endif
