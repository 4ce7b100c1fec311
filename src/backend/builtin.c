/* The built-in backend (src/backend/backend.h): the integration API's entry
 * points go to the recorder (src/record), captures record, GPU timing goes
 * to the capture's store. */
#include <stdarg.h>

#include "../record/record.h"
#include "backend.h"

void ludus_begin_site(uint32_t site_id) {
    ludus__rec_begin_site(site_id);
}
void ludus_end_site(void) {
    ludus__rec_end_site();
}
void ludus_end_site_id(uint32_t site_id) {
    ludus__rec_end_site_id(site_id);
}
void ludus_sample_counter(uint32_t site_id, int64_t value) {
    ludus__rec_sample_counter(site_id, value);
}
void ludus_sample_counter_f64(uint32_t site_id, double value) {
    ludus__rec_sample_counter_f64(site_id, value);
}
ludus_unwind_point ludus_unwind_here(void) {
    return ludus__rec_unwind_here();
}
void ludus_unwound_to(ludus_unwind_point point) {
    ludus__rec_unwound_to(point);
}
void ludus_log_text(int level, const char *text, size_t len) {
    ludus__rec_log_text(level, text, len);
}
void ludus_vlog(int level, const char *fmt, va_list args) {
    ludus__rec_vlog(level, fmt, args);
}
void ludus_log(int level, const char *fmt, ...) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return; /* no formatting while idle */
    va_list ap;
    va_start(ap, fmt);
    ludus__rec_vlog(level, fmt, ap);
    va_end(ap);
}
void ludus_async_begin(uint32_t track, uint64_t id, uint32_t site_id) {
    ludus__rec_async_begin(track, id, site_id);
}
void ludus_async_end(uint32_t track, uint64_t id) {
    ludus__rec_async_end(track, id);
}
void ludus_fiber_enter(const char *name) {
    ludus__rec_fiber_enter(name);
}
void ludus_fiber_leave(void) {
    ludus__rec_fiber_leave();
}
int ludus_register_thread_for_trace(const char *name) {
    return ludus__rec_register_thread(name);
}

const char *ludus__backend_no_capture(void) {
    return NULL;
}
int ludus__backend_gpu_submit(const ludus__backend_gpu_ctx *x, const ludus_gpu_sample *samples, uint32_t n, int *rc) {
    (void)x, (void)samples, (void)n, (void)rc;
    return 0;
}
int ludus__backend_gpu_calibrate(const ludus__backend_gpu_ctx *x, uint64_t gpu_ticks, int64_t cpu_ns, int accepted,
                                 int *rc) {
    (void)x, (void)gpu_ticks, (void)cpu_ns, (void)accepted, (void)rc;
    return 0;
}
void ludus__backend_gpu_forget(const void *key) {
    (void)key;
}
