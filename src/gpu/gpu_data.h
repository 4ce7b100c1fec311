/* The GPU data of a capture (ludus__gpu_data) apart
 * from the recorder's store: what gpu.c (the store), gpu_data.c (placement,
 * appending, the capture's GPU accessors) and src/format/gpu_codec.c (the
 * .ludus GPU record) share. gpu_data.c holds no state: the analysis
 * library takes a copy of it (CMake's ludus_analysis_shared), and a copy of
 * the store would be a second store. */
#ifndef LUDUS_GPU_DATA_H
#define LUDUS_GPU_DATA_H

#include <stdint.h>

#include "../capture/capture_gpu.h"

/* Derives the placement, lanes and per-context figures (after a take, a
 * file read, a join); 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__gpu_place(ludus__gpu_data *g);
/* The GPU data a capture shows (a view's parent's), or NULL. */
LUDUS__SIBLING const ludus__gpu_data *ludus__gpu_of(const ludus_capture *c);
/* The name a track (lane 0) or its lane k shows: "<name>", "<name>
 * (uncalibrated)", then " lane k+1" for k > 0. */
LUDUS_HIDDEN void ludus__gpu_track_name(const ludus__gpu_ctx *k, uint32_t lane, char *buf, size_t n);
/* 1 when a sample is in c (a time cut shows the spans that meet its range). */
static inline int ludus__gpu_shown(const ludus_capture *c, const ludus__gpu_sample *s) {
    return !c->cut || (s->end_ns >= c->cut_from_ns && s->begin_ns <= c->cut_to_ns);
}
/* Appends src (times shifted by shift_ns) to *dst, contexts matched by name
 * and queue (a rolling window's join); 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__gpu_append(ludus__gpu_data **dst, const ludus__gpu_data *src, int64_t shift_ns);
/* The .ludus GPU record (file_format.h): encode into a malloc'd buffer,
 * decode back (-1 with why, -2 out of memory). */
LUDUS_HIDDEN uint8_t *ludus__gpu_encode(const ludus__gpu_data *g, size_t *n);
LUDUS__SIBLING int ludus__gpu_decode(ludus_capture *c, const uint8_t *p, size_t n, char *why, size_t why_cap);

/* The longest pass name kept, in bytes (a file's longest string:
 * src/format/gpu_codec.c checks the two agree). */
#define LUDUS__GPU_NAME_MAX 4096u

/* GPU times and durations stay within +-2^62 ns (146 years): a file's
 * ticks and periods may be anything, and the difference of any two such
 * times (a span's length) is then never a signed overflow. */
#define LUDUS__GPU_TIME_LIMIT (((int64_t)1 << 62) - 1)
static inline int64_t ludus__gpu_clamp_time(int64_t t) {
    return t > LUDUS__GPU_TIME_LIMIT ? LUDUS__GPU_TIME_LIMIT : t < -LUDUS__GPU_TIME_LIMIT ? -LUDUS__GPU_TIME_LIMIT : t;
}
static inline int ludus__gpu_finite_positive(double x) {
    return x > 0 && x <= 1e300; /* false for NaN and infinity */
}
/* t - ref in ticks modulo 2^bits, as a signed distance (half the range each way). */
static inline int64_t ludus__gpu_tick_delta(uint64_t t, uint64_t ref, uint32_t bits) {
    uint64_t d = t - ref;
    if (bits >= 64) return (int64_t)d;
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    d &= mask;
    return d >> (bits - 1) ? (int64_t)(d | ~mask) : (int64_t)d;
}

/* A context appended to g (its coverage zeroed); its index in *slot. -1 out of memory. */
LUDUS_HIDDEN int ludus__gpu_add_ctx(ludus__gpu_data *g, const ludus__gpu_ctx *info, uint32_t *slot);
/* The index of the pass name that `name` shows as (its UTF-8 made valid,
 * as every name is kept), added when new; UINT32_MAX out of memory. */
LUDUS_HIDDEN uint32_t ludus__gpu_name_index(ludus__gpu_data *g, const char *name);

#endif
