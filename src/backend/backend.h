/* The backend seam: where the library hands instrumentation to the backend
 * the build chose (-DLUDUS_BACKEND=builtin or tracy). Each backend is one
 * file that defines the integration API's entry points (<ludus/profiling.h>:
 * ludus_begin_site ... ludus_register_thread_for_trace) and the hooks below:
 * builtin.c (the built-in recorder: the entry points call src/record) or
 * tracy.c (Tracy's client; captures refused). CMake compiles exactly one of
 * them; nothing else in the library knows which. The macros' inline path
 * has its own seam in <ludus/profiling.h> (LUDUS_BACKEND_TRACY). */
#ifndef LUDUS_BACKEND_H
#define LUDUS_BACKEND_H

#include <ludus/gpu.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/platform.h"

/* NULL when captures record (the built-in recorder), else why begin and
 * the rolling window refuse (ludus_last_error_detail). */
LUDUS_HIDDEN const char *ludus__backend_no_capture(void);

/* GPU timing (<ludus/gpu.h>): 1 when the backend took the call (its result
 * in *rc), 0 when the capture's GPU store takes it. key: the context; name,
 * period_ns and valid_bits its own. */
typedef struct ludus__backend_gpu_ctx {
    const void *key;
    const char *name;
    double period_ns;
    uint32_t valid_bits;
} ludus__backend_gpu_ctx;
LUDUS_HIDDEN int ludus__backend_gpu_submit(const ludus__backend_gpu_ctx *x, const ludus_gpu_sample *samples, uint32_t n,
                                           int *rc);
/* accepted: 0 when the point is less certain than the store accepts */
LUDUS_HIDDEN int ludus__backend_gpu_calibrate(const ludus__backend_gpu_ctx *x, uint64_t gpu_ticks, int64_t cpu_ns,
                                              int accepted, int *rc);
LUDUS_HIDDEN void ludus__backend_gpu_forget(const void *key);

#endif
