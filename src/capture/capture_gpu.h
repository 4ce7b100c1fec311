/* A capture's GPU data (docs/gpu.md): the raw samples and calibration
 * points handed over while it ran, and what placing them derived. The
 * capture owns it (c->gpu, freed with it); src/gpu fills and places it
 * (gpu_data.h). */
#ifndef LUDUS_CAPTURE_GPU_H
#define LUDUS_CAPTURE_GPU_H

#include "capture_model.h"

/* A context as the capture keeps it. */
typedef struct ludus__gpu_ctx {
    char name[64], device[64];
    uint32_t queue, valid_bits;
    double period_ns;
    uint64_t cov[LUDUS_GPU_COVERAGE_COUNT];
    uint64_t handed; /* samples and points handed over (the store's, while the capture runs) */
    /* derived by ludus__gpu_place */
    int calibrated;
    uint32_t ncal, lanes, breaks; /* breaks: neighbouring points that disagree (no line drawn between them) */
    int64_t max_error_ns;
    uint64_t samples, passes;
} ludus__gpu_ctx;

/* A sample: raw fields (what the file keeps), then the placement. */
typedef struct ludus__gpu_sample {
    uint32_t ctx;
    uint32_t name; /* index in names; UINT32_MAX: the frame's own sample */
    uint64_t frame, begin_ticks, end_ticks, flow_id;
    double period_ns;
    int64_t submit_ns; /* since capture start */
    /* derived */
    int64_t begin_ns, end_ns, device_ns, error_ns;
    uint32_t lane, flags;
} ludus__gpu_sample;

typedef struct ludus__gpu_cal {
    uint32_t ctx;
    uint64_t ticks;
    int64_t cpu_ns; /* since capture start */
    int64_t dev_ns;
} ludus__gpu_cal;

typedef struct ludus__gpu_data {
    ludus__gpu_ctx *ctx;
    uint32_t nctx;
    char **names; /* pass names, valid UTF-8, each once */
    uint32_t nnames, names_cap;
    uint32_t *name_hash;       /* open addressing: index + 1 (gpu.c name_index) */
    uint32_t hash_cap, hashed; /* names[0, hashed) are in it */
    ludus__gpu_sample *s;      /* sorted by ctx, then begin_ns, once placed */
    uint64_t ns, s_cap;
    ludus__gpu_cal *cal;
    uint64_t ncal, cal_cap;
} ludus__gpu_data;

LUDUS_HIDDEN void ludus__gpu_free(ludus__gpu_data *g);

#endif
