/* The Tracy backend's entry points for the library's own calls (tracy.c).
 * A Tracy build (-DLUDUS_BACKEND=tracy) compiles the library with
 * LUDUS_WITH_TRACY=1: the integration API (begin_site, log, async, fibers,
 * thread names) forwards to these, and the built-in capture refuses to
 * start (the recorder is linked and receives nothing). Instrumented code
 * reaches tracy.c through the LUDUS__TRACY seam of <ludus/profiling.h>. */
#ifndef LUDUS_BACKEND_TRACY_H
#define LUDUS_BACKEND_TRACY_H

#include <ludus/profiling.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../platform/platform.h"

#if defined(LUDUS_WITH_TRACY) && LUDUS_WITH_TRACY
#define LUDUS__WITH_TRACY 1
/* What the refused capture calls say (ludus_last_error_detail). */
#define LUDUS__TRACY_NO_CAPTURE \
    "this library was built with -DLUDUS_BACKEND=tracy: events go to Tracy, not to a capture"
LUDUS_HIDDEN void ludus__tracy_begin_site(uint32_t site_id);
LUDUS_HIDDEN void ludus__tracy_end_site(void);
LUDUS_HIDDEN void ludus__tracy_end_site_id(uint32_t site_id);
LUDUS_HIDDEN void ludus__tracy_sample(uint32_t site_id, int64_t value, double fvalue, int is_double);
LUDUS_HIDDEN ludus_unwind_point ludus__tracy_unwind_here(void);
LUDUS_HIDDEN void ludus__tracy_unwound_to(ludus_unwind_point point);
LUDUS_HIDDEN void ludus__tracy_log_text(int level, const char *text, size_t len);
LUDUS_HIDDEN void ludus__tracy_vlog(int level, const char *fmt, va_list args);
LUDUS_HIDDEN void ludus__tracy_async_by_id(uint32_t track, uint64_t id, uint32_t site_id, int begin);
LUDUS_HIDDEN void ludus__tracy_fiber_enter(const char *name);
LUDUS_HIDDEN void ludus__tracy_fiber_leave(void);
LUDUS_HIDDEN void ludus__tracy_thread_name(const char *name);
/* GPU timing (<ludus/gpu.h>): each context a Tracy GPU context, keyed by
 * the ludus_gpu_context's address; name, period and valid bits its own. */
struct ludus_gpu_sample;
LUDUS_HIDDEN int ludus__tracy_gpu_submit(const void *key, const char *name, double period_ns, uint32_t valid_bits,
                                         const struct ludus_gpu_sample *samples, uint32_t n);
LUDUS_HIDDEN int ludus__tracy_gpu_calibrate(const void *key, const char *name, double period_ns, uint32_t valid_bits,
                                            uint64_t gpu_ticks, int64_t cpu_ns);
LUDUS_HIDDEN void ludus__tracy_gpu_forget(const void *key);
#else
#define LUDUS__WITH_TRACY 0
#endif

#endif
