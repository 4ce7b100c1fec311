/* Ludus Profiling: the live side. The ring of recent frames that
 * LUDUS_PROFILE_FRAME closes (counters, gauges, memory domains, frame times),
 * read back by value or as a few lines of text for a corner of the screen.
 * Always available while counters are compiled in, with or without a
 * capture. Every figure names its window and its denominator. */
#ifndef LUDUS_OVERLAY_H
#define LUDUS_OVERLAY_H

#include <stddef.h>
#include <stdint.h>

#include "profiling.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Frames the ring keeps (default 256, 2 .. 65536). Call it before the first
 * LUDUS_PROFILE_FRAME; later it fails with LUDUS_EINVAL. */
LUDUS_API int ludus_frame_ring_configure(uint32_t frames);

/* Keeps frame times in the ring even when nothing is counted (the overlay
 * calls it; call it yourself to read frames before the first count). */
LUDUS_API void ludus_frame_ring_enable(void);

/* The frames in the ring: numbers [*first, *last]. Frame n lies between the
 * n-th and the (n+1)-th LUDUS_PROFILE_FRAME; frame 0 is the lead-in (the
 * time before the first mark, not a frame). LUDUS_ENODATA before the first
 * mark. */
LUDUS_API int ludus_frame_ring_frames(uint64_t *first, uint64_t *last);
/* Begin and end of a frame in the ring (monotonic clock, ns). */
LUDUS_API int ludus_frame_ring_frame_ns(uint64_t frame, int64_t *begin_ns, int64_t *end_ns);
/* One value of a frame in the ring. name: the counter's or gauge's name as
 * written in the macro (a string literal without its quotes), or
 * "Memory/<domain>"; stat: "per frame" (counters), "last", "min", "max"
 * (gauges), "live bytes", "live allocations", "peak live bytes", "bytes
 * allocated", "allocations", "bytes freed", "frees" (memory domains).
 * LUDUS_EINVAL: no such name or stat; LUDUS_ENODATA: the frame is not in
 * the ring, or the gauge had no value yet. */
LUDUS_API int ludus_frame_ring_value(uint64_t frame, const char *name, const char *stat, int64_t *out);

typedef struct ludus_overlay_desc {
    uint32_t window_frames; /* frames the statistics cover; 0: 120 */
    uint32_t max_lines;     /* counters, gauges and domains listed; 0: 16 */
    /* A capture to take the top scopes from (a rolling window's snapshot,
     * a cut, an ended capture; the caller keeps its reference); NULL: no
     * top scopes. */
    ludus_capture *scopes_from;
    uint32_t top_scopes; /* scopes listed; 0: 5 */
} ludus_overlay_desc;

/* One of the scopes with the most exclusive time (ludus_overlay_top_scopes).
 * Exclusive: the scope's time less that of the scopes directly inside it
 * on its thread (on its lane, for spans), the union of their time where
 * they overlap. A call belongs to the frame it began in (on a thread other
 * than the frame thread: the frame whose marks bracket its begin); only
 * calls that ended count (an unwound or never-ended one is counted in
 * ludus_top_window.incomplete). */
typedef struct ludus_top_scope {
    const char *name; /* the site's display text (valid UTF-8, any character); the capture's */
    const char *file;
    uint32_t line;
    int64_t exclusive_ns;          /* over the window */
    uint64_t calls;                /* over the window */
    double exclusive_ns_per_frame; /* exclusive_ns / frames (mean) */
    double calls_per_frame;
    int64_t last_exclusive_ns; /* in the window's last frame */
    uint64_t last_calls;
    const char *category; /* the site's category (lock waits: "lock"); NULL: none */
} ludus_top_scope;

/* The window the top scopes cover: the last complete frames of the
 * capture. Frames are numbered in the capture: frame k lies between the
 * k-th and the (k+1)-th mark of the frame thread (the thread with the most
 * marks); frame 0, before the first mark, is never in the window. */
typedef struct ludus_top_window {
    uint64_t first_frame, last_frame;
    uint32_t frames;
    int64_t begin_ns, end_ns; /* since the capture's start: the first frame's begin, the last one's end */
    int64_t last_frame_ns;    /* the last frame's length */
    uint64_t frame_marks;     /* marks of the frame thread in the capture */
    uint32_t scopes;          /* scopes with a call in the window (more than written when cap is smaller) */
    uint64_t calls;           /* calls in the window, all scopes */
    uint64_t incomplete;      /* calls begun in the window and not counted: unwound or never ended */
    uint64_t dropped;         /* events the capture lost: its figures may be short */
    char frame_thread[64];
} ludus_top_window;

/* The scopes with the most exclusive time per frame over the last
 * desc->window_frames (0: 120) complete frames of capture c, most first:
 * at most cap of them into out, and the window into *window (may be
 * NULL). Computed from c's events on the caller's thread (the frame thread
 * does nothing for it: take a rolling snapshot and call it from any
 * thread); one pass over c (bench/RESULTS.md gives its cost). Returns the
 * scopes written, LUDUS_ENODATA when c holds no complete frame (two marks
 * of one thread), LUDUS_EINVAL, or another negative LUDUS_E* code. Names
 * point into c: valid while c is held. */
LUDUS_API int ludus_overlay_top_scopes(ludus_capture *c, const ludus_overlay_desc *desc, ludus_top_scope *out,
                                       uint32_t cap, ludus_top_window *window);

/* Writes a few lines of plain text (UTF-8, '\n' between lines, always
 * terminated when size > 0) for a corner of the screen:
 *   frame time over the window: p50, p99, max (nearest rank)
 *   each counter: mean and max per frame over the window
 *   each gauge: last, and min and max over the window
 *   each memory domain: live and peak bytes, churn per frame
 *   with desc->scopes_from: the top scopes of that capture, exclusive time
 *   and calls per frame over its last window_frames frames, and in the
 *   last one (ludus_overlay_top_scopes)
 * Times: ms with 2 decimals from 1 ms, us below. It reads the ring under a
 * lock the frame thread takes once per frame; the top scopes are computed
 * before, without the lock. Control characters of names are written
 * escaped (\n, \xHH). desc may be NULL. Returns the length of the
 * full text (like snprintf: larger than size - 1 when cut), or a negative
 * LUDUS_E* code. */
LUDUS_API int ludus_overlay_format(char *buf, size_t size, const ludus_overlay_desc *desc);

/* ---------------------------------------------------------------------------
 * Old names (before 0.3), kept for one minor release; LUDUS_NO_DEPRECATED
 * leaves them out. */
#ifndef LUDUS_NO_DEPRECATED
LUDUS__DEPRECATED(ludus_frame_ring_frames) static inline int ludus_live_frames(uint64_t *first, uint64_t *last) {
    return ludus_frame_ring_frames(first, last);
}
LUDUS__DEPRECATED(ludus_frame_ring_frame_ns)
static inline int ludus_live_frame_ns(uint64_t frame, int64_t *begin_ns, int64_t *end_ns) {
    return ludus_frame_ring_frame_ns(frame, begin_ns, end_ns);
}
LUDUS__DEPRECATED(ludus_frame_ring_value)
static inline int ludus_live_value(uint64_t frame, const char *name, const char *stat, int64_t *out) {
    return ludus_frame_ring_value(frame, name, stat, out);
}
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LUDUS_OVERLAY_H */
