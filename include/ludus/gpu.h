/* Ludus Profiling: GPU timing, transport-neutral (no graphics API here).
 *
 * A GPU context stands for one queue of one device (graphics, compute,
 * copy). A backend (<ludus/vulkan.h>, or your own over D3D12, Metal, a
 * console SDK) writes timestamp queries around passes, reads them back once
 * the GPU has finished them (never waiting for it), and hands the results
 * over as samples: pass name, the frame number the CPU submitted it in, the
 * queue, begin and end in GPU ticks, the tick period, and the CPU submission
 * it belongs to. Pairs of CPU and GPU timestamps taken together
 * (ludus_gpu_calibrate) place the passes on the CPU timeline:
 *
 *   P1  a frame sample (pass NULL) per frame: "GPU frame time" per queue
 *   P2  named pass durations, from device ticks (no clock mapping needed)
 *   P3  pass spans on the CPU timeline through the calibration: linear
 *       between calibration points (drift corrected), with the error bound
 *       of the mapping stated per span; spans that overlap on one queue go
 *       on separate lanes, never nested. A context never calibrated is
 *       named "(uncalibrated)" and each frame's passes are anchored at the
 *       frame's CPU submission (its begin), spaced by device time.
 *
 * Coverage is explicit: frames whose results were not ready at a
 * collection, were lost, or were not timed because the query ring was
 * full, counters that wrapped, samples submitted before the capture began,
 * and rejected calibration points are counted per context and written into
 * every export. A capture takes the samples handed over while it runs (it
 * needs no CPU instrumentation: a GPU-only capture works). docs/gpu.md has
 * the details.
 *
 * Thread-safety: every call here takes the GPU store's lock (these are per
 * frame or per pass calls made after readback, not the hot path); a context
 * may be used from any thread. */
#ifndef LUDUS_GPU_H
#define LUDUS_GPU_H

#include <ludus/profiling.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ludus_gpu_context ludus_gpu_context;

enum ludus_gpu_queue { LUDUS_GPU_QUEUE_GRAPHICS = 0, LUDUS_GPU_QUEUE_COMPUTE = 1, LUDUS_GPU_QUEUE_COPY = 2 };

typedef struct ludus_gpu_context_desc {
    const char *name;      /* the track's name, copied (63 bytes); NULL: "GPU <queue>" */
    const char *device;    /* the device's name, copied (63 bytes); NULL: none */
    int queue;             /* enum ludus_gpu_queue */
    double tick_period_ns; /* ns per GPU tick (Vulkan timestampPeriod); required, > 0 */
    uint32_t valid_bits;   /* bits of a timestamp (it wraps at 2^bits); 0: 64 */
} ludus_gpu_context_desc;

/* LUDUS_EINVAL (bad desc), LUDUS_ENOMEM, LUDUS_ETHREADS (64 contexts live). */
LUDUS_API int ludus_gpu_context_create(const ludus_gpu_context_desc *desc, ludus_gpu_context **out);
/* What it handed over stays in the running capture. NULL is a no-op. */
LUDUS_API void ludus_gpu_context_destroy(ludus_gpu_context *ctx);

/* CLOCK_MONOTONIC ns, the CPU trace clock (what submit_ns and
 * ludus_gpu_calibrate's cpu_ns are in). */
LUDUS_API int64_t ludus_gpu_cpu_now_ns(void);

typedef struct ludus_gpu_sample {
    const char *pass;      /* the pass's name (copied); NULL: the frame's own sample (P1) */
    uint64_t frame;        /* the frame number the CPU submitted it in */
    uint64_t begin_ticks;  /* GPU timestamps, modulo 2^valid_bits */
    uint64_t end_ticks;    /* an end below its begin wrapped (counted) */
    double tick_period_ns; /* 0: the context's */
    int64_t submit_ns;     /* CPU submission (ludus_gpu_cpu_now_ns): attribution, not execution start */
    uint64_t flow_id;      /* 0, or a caller flow (LUDUS_CALLER_FLOW_ID_BIT) its submitter started:
                              the exports link the pass's span to it */
} ludus_gpu_sample;

/* Hands over n samples read back from the GPU. Kept only while a capture
 * runs (LUDUS_ENOCAPTURE otherwise, nothing kept); a sample submitted
 * before the capture began is left out and counted ("before_capture"). */
LUDUS_API int ludus_gpu_submit(ludus_gpu_context *ctx, const ludus_gpu_sample *samples, uint32_t n);

/* One calibration point: a GPU timestamp and the CPU time taken together,
 * max_deviation_ns the uncertainty of the pair (Vulkan's maxDeviation, or
 * half the CPU read gap around the GPU read). A point over 50 us is
 * rejected (counted). Kept only while a capture runs. */
LUDUS_API int ludus_gpu_calibrate(ludus_gpu_context *ctx, uint64_t gpu_ticks, int64_t cpu_ns, int64_t max_deviation_ns);

/* Coverage a backend reports, X(NAME, name in the exports, meaning). The
 * library counts wrapped, before_capture, calibration_rejected and (for
 * samples) invalid itself. */
#define LUDUS_GPU_COVERAGE(X)                                                                    \
    X(FRAMES, "frames", "frames whose results were handed over")                                 \
    X(NOT_READY, "not_ready", "frames not ready at a collection (read later: a late readback)")  \
    X(LOST, "lost", "frames whose results never came (device lost, invalid, context destroyed)") \
    X(RING_FULL, "ring_full", "frames not timed: every query slot was still in flight")          \
    X(WRAPPED, "wrapped", "samples whose end ticks wrapped past 2^valid_bits")                   \
    X(BEFORE_CAPTURE, "before_capture", "samples submitted before the capture began (left out)") \
    X(CALIBRATION_REJECTED, "calibration_rejected", "calibration points over 50 us (left out)")  \
    X(INVALID, "invalid", "passes not timed (beyond the backend's room, nested) or samples ending before they begin")

enum ludus_gpu_coverage {
#define LUDUS__GPU_COV_ENUM(name, text, meaning) LUDUS_GPU_##name,
    LUDUS_GPU_COVERAGE(LUDUS__GPU_COV_ENUM)
#undef LUDUS__GPU_COV_ENUM
        LUDUS_GPU_COVERAGE_COUNT
};

/* Adds n to a coverage count of the running capture (no-op without one). */
LUDUS_API void ludus_gpu_note_coverage(ludus_gpu_context *ctx, int what, uint64_t n);

/* LUDUS_PROFILE_LEVEL 0: handing samples over compiles to nothing (as
 * <ludus/level0.h> does for the rest of the API): a context is NULL,
 * creating one returns 0, the CPU clock reads 0, every other call nothing. */
#if LUDUS_PROFILE_LEVEL == 0 && !defined(LUDUS__LIBRARY) && !defined(LUDUS_IMPLEMENTATION)
LUDUS__INLINE int ludus__l0_gpu_create(const ludus_gpu_context_desc *desc, ludus_gpu_context **out) {
    (void)desc;
    if (out) *out = NULL;
    return 0;
}
LUDUS__INLINE void ludus__l0_gpu_destroy(ludus_gpu_context *ctx) {
    (void)ctx;
}
LUDUS__INLINE int64_t ludus__l0_gpu_now(void) {
    return 0;
}
LUDUS__INLINE int ludus__l0_gpu_submit(ludus_gpu_context *ctx, const ludus_gpu_sample *samples, uint32_t n) {
    (void)ctx;
    (void)samples;
    (void)n;
    return 0;
}
LUDUS__INLINE int ludus__l0_gpu_calibrate(ludus_gpu_context *ctx, uint64_t gpu_ticks, int64_t cpu_ns,
                                          int64_t max_deviation_ns) {
    (void)ctx;
    (void)gpu_ticks;
    (void)cpu_ns;
    (void)max_deviation_ns;
    return 0;
}
LUDUS__INLINE void ludus__l0_gpu_note_coverage(ludus_gpu_context *ctx, int what, uint64_t n) {
    (void)ctx;
    (void)what;
    (void)n;
}
#define ludus_gpu_context_create(desc, out) ludus__l0_gpu_create(desc, out)
#define ludus_gpu_context_destroy(ctx) ludus__l0_gpu_destroy(ctx)
#define ludus_gpu_cpu_now_ns() ludus__l0_gpu_now()
#define ludus_gpu_submit(ctx, samples, n) ludus__l0_gpu_submit(ctx, samples, n)
#define ludus_gpu_calibrate(ctx, gpu_ticks, cpu_ns, max_deviation_ns) \
    ludus__l0_gpu_calibrate(ctx, gpu_ticks, cpu_ns, max_deviation_ns)
#define ludus_gpu_note_coverage(ctx, what, n) ludus__l0_gpu_note_coverage(ctx, what, n)
#endif

/* ---------------------------------------------------------------------------
 * Reading a capture's GPU data (<ludus/capture.h> capture objects). */
struct ludus_capture;

typedef struct ludus_gpu_track_info {
    const char *name;   /* as given (owned by the capture) */
    const char *device; /* "" when none */
    int queue;
    double tick_period_ns;
    uint32_t valid_bits;
    int calibrated;              /* 1: spans placed through the calibration; 0: anchored at frame begins */
    uint32_t calibration_points; /* accepted */
    uint32_t calibration_breaks; /* neighbouring points that disagree by more than 0.1% plus their deviations
                                    (a clock reset, a suspend): no mapping is drawn across them */
    uint32_t lanes;              /* lanes its overlapping spans needed (>= 1 with spans) */
    int64_t max_error_ns;        /* largest error bound of a placed span (calibrated only) */
    uint64_t samples, passes;
    uint64_t coverage[LUDUS_GPU_COVERAGE_COUNT];
} ludus_gpu_track_info;

#define LUDUS_GPU_SPAN_UNCALIBRATED 1u /* placed at its frame's begin, not through a calibration */
#define LUDUS_GPU_SPAN_EXTRAPOLATED 2u /* outside the calibration points: the bound grows with the distance */
#define LUDUS_GPU_SPAN_WRAPPED 4u      /* its end ticks wrapped */

typedef struct ludus_gpu_span {
    uint32_t track;   /* index of its track */
    const char *pass; /* NULL: a frame sample */
    uint64_t frame;
    int64_t begin_ns; /* on the CPU timeline, ns since capture start */
    int64_t end_ns;
    int64_t device_ns; /* (end - begin) ticks x period: the measured duration */
    int64_t error_ns;  /* bound of the placement's error (0 when uncalibrated: not a placement) */
    int64_t submit_ns; /* CPU submission, ns since capture start */
    uint64_t flow_id;
    uint32_t lane;
    uint32_t flags; /* LUDUS_GPU_SPAN_* */
} ludus_gpu_span;

/* A capture's GPU tracks: 0 and *out, or LUDUS_EINVAL past the end. */
LUDUS_API uint32_t ludus_capture_gpu_track_count(struct ludus_capture *c);
LUDUS_API int ludus_capture_gpu_track(struct ludus_capture *c, uint32_t index, ludus_gpu_track_info *out);
/* Samples (frame samples and passes) in track, then begin order. */
LUDUS_API uint64_t ludus_capture_gpu_span_count(struct ludus_capture *c);
LUDUS_API int ludus_capture_gpu_span(struct ludus_capture *c, uint64_t index, ludus_gpu_span *out);

/* ---------------------------------------------------------------------------
 * Old names (before 0.3), kept for one minor release; LUDUS_NO_DEPRECATED
 * leaves them out. */
#ifndef LUDUS_NO_DEPRECATED
LUDUS__DEPRECATED(ludus_gpu_note_coverage)
static inline void ludus_gpu_count(ludus_gpu_context *ctx, int what, uint64_t n) {
    ludus_gpu_note_coverage(ctx, what, n);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_GPU_H */
