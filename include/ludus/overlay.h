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
LUDUS_API int ludus_live_frames(uint64_t *first, uint64_t *last);
/* Begin and end of a frame in the ring (monotonic clock, ns). */
LUDUS_API int ludus_live_frame_ns(uint64_t frame, int64_t *begin_ns, int64_t *end_ns);
/* One value of a frame in the ring. name: the counter's or gauge's name as
 * written in the macro (a string literal without its quotes), or
 * "Memory/<domain>"; stat: "per frame" (counters), "last", "min", "max"
 * (gauges), "live bytes", "live allocations", "peak live bytes", "bytes
 * allocated", "allocations", "bytes freed", "frees" (memory domains).
 * LUDUS_EINVAL: no such name or stat; LUDUS_ENODATA: the frame is not in
 * the ring, or the gauge had no value yet. */
LUDUS_API int ludus_live_value(uint64_t frame, const char *name, const char *stat, int64_t *out);

typedef struct ludus_overlay_desc {
    uint32_t window_frames; /* frames the statistics cover; 0: 120 */
    uint32_t max_lines;     /* counters, gauges and domains listed; 0: 16 */
} ludus_overlay_desc;

/* Writes a few lines of plain text (UTF-8, '\n' between lines, always
 * terminated when size > 0) for a corner of the screen:
 *   frame time over the window: p50, p99, max (nearest rank)
 *   each counter: mean and max per frame over the window
 *   each gauge: last, and min and max over the window
 *   each memory domain: live and peak bytes, churn per frame
 * It reads the ring under a lock the frame thread takes once per frame and
 * computes nothing from events. desc may be NULL. Returns the length of the
 * full text (like snprintf: larger than size - 1 when cut), or a negative
 * LUDUS_E* code. */
LUDUS_API int ludus_overlay_format(char *buf, size_t size, const ludus_overlay_desc *desc);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LUDUS_OVERLAY_H */
