/* Ludus Profiling: LUDUS_PROFILE_LEVEL 0 for the calls of the
 * instrumentation API (included by <ludus/profiling.h>; do not include it
 * yourself). The macros already compile to nothing; here the functions that
 * do work at run time (sites, spans, flows, samples, unwind points, log
 * messages, async zones, fibers, memory domains) become empty inline
 * functions: no code is left, a call that returns a value returns "none"
 * (0, as when nothing is recorded), and the arguments are evaluated as for
 * any call. ludus_log is a macro that evaluates no argument (a variadic
 * function is never inlined). Control calls (captures, threads, exports,
 * the overlay) stay calls. Not in the library's own sources (LUDUS__LIBRARY)
 * nor in the file that holds the single file's implementation
 * (LUDUS_IMPLEMENTATION). tests/compile/compiled_out.c proves no code is
 * left. */
#ifndef LUDUS_LEVEL0_H
#define LUDUS_LEVEL0_H

#ifndef LUDUS_PROFILING_H
#error "include <ludus/profiling.h>, which includes <ludus/level0.h> itself"
#endif

#if LUDUS_PROFILE_LEVEL == 0 && !defined(LUDUS__LIBRARY) && !defined(LUDUS_IMPLEMENTATION)
#ifdef __cplusplus
extern "C" {
#endif

LUDUS__INLINE uint32_t ludus__l0_register_site(const ludus_site_desc *desc) {
    (void)desc;
    return 0;
}
LUDUS__INLINE uint32_t ludus__l0_name(const char *name) {
    (void)name;
    return 0;
}
LUDUS__INLINE void ludus__l0_id(uint32_t id) {
    (void)id;
}
LUDUS__INLINE void ludus__l0_none(void) {}
LUDUS__INLINE void ludus__l0_flow(uint64_t flow) {
    (void)flow;
}
LUDUS__INLINE void ludus__l0_start_flow(uint32_t id, uint64_t flow) {
    (void)id;
    (void)flow;
}
LUDUS__INLINE void ludus__l0_sample(uint32_t id, int64_t value) {
    (void)id;
    (void)value;
}
LUDUS__INLINE void ludus__l0_sample_f64(uint32_t id, double value) {
    (void)id;
    (void)value;
}
LUDUS__INLINE ludus_unwind_point ludus__l0_unwind_here(void) {
    ludus_unwind_point p = {0, 0, 0};
    return p;
}
LUDUS__INLINE void ludus__l0_unwound_to(ludus_unwind_point p) {
    (void)p;
}
LUDUS__INLINE void ludus__l0_vlog(int level, const char *fmt, va_list args) {
    (void)level;
    (void)fmt;
    (void)args;
}
LUDUS__INLINE void ludus__l0_log_text(int level, const char *text, size_t len) {
    (void)level;
    (void)text;
    (void)len;
}
LUDUS__INLINE void ludus__l0_async_begin(uint32_t track, uint64_t id, uint32_t site_id) {
    (void)track;
    (void)id;
    (void)site_id;
}
LUDUS__INLINE void ludus__l0_async_end(uint32_t track, uint64_t id) {
    (void)track;
    (void)id;
}
LUDUS__INLINE void ludus__l0_fiber_enter(const char *name) {
    (void)name;
}
LUDUS__INLINE ludus_memory_domain ludus__l0_domain(const char *name) {
    (void)name;
    return 0;
}
LUDUS__INLINE void ludus__l0_memory(ludus_memory_domain domain, uint64_t bytes) {
    (void)domain;
    (void)bytes;
}
LUDUS__INLINE void ludus__l0_memory_ptr(ludus_memory_domain domain, const void *ptr, uint64_t bytes) {
    (void)domain;
    (void)ptr;
    (void)bytes;
}
LUDUS__INLINE void ludus__l0_baseline(ludus_memory_domain domain, uint64_t bytes, uint64_t allocs) {
    (void)domain;
    (void)bytes;
    (void)allocs;
}
LUDUS__INLINE int ludus__l0_note_outside(const char *what, uint64_t bytes) {
    (void)what;
    (void)bytes;
    return 0;
}
LUDUS__INLINE int ludus__l0_gauges(void) {
    return 0;
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#define ludus_site_register(desc) ludus__l0_register_site(desc)
#define ludus_site_intern(name) ludus__l0_name(name)
#define ludus_span_begin(site_id) ludus__l0_id(site_id)
#define ludus_span_end() ludus__l0_none()
#define ludus_span_end_site(site_id) ludus__l0_id(site_id)
#define ludus_flow_begin(site_id, flow_id) ludus__l0_start_flow(site_id, flow_id)
#define ludus_flow_end(flow_id) ludus__l0_flow(flow_id)
#define ludus_counter_sample(site_id, value) ludus__l0_sample(site_id, value)
#define ludus_counter_sample_f64(site_id, value) ludus__l0_sample_f64(site_id, value)
#define ludus_unwind_here() ludus__l0_unwind_here()
#define ludus_unwound_to(point) ludus__l0_unwound_to(point)
#define ludus_log(level, ...) ((void)sizeof(level))
#define ludus_vlog(level, fmt, args) ludus__l0_vlog(level, fmt, args)
#define ludus_log_text(level, text, len) ludus__l0_log_text(level, text, len)
#define ludus_async_track(name) ludus__l0_name(name)
#define ludus_async_begin(track, id, site_id) ludus__l0_async_begin(track, id, site_id)
#define ludus_async_end(track, id) ludus__l0_async_end(track, id)
#define ludus_fiber_enter(name) ludus__l0_fiber_enter(name)
#define ludus_fiber_leave() ludus__l0_none()
#define ludus_memory_domain_register(name) ludus__l0_domain(name)
#define ludus_memory_alloc(domain, bytes) ludus__l0_memory(domain, bytes)
#define ludus_memory_free(domain, bytes) ludus__l0_memory(domain, bytes)
#define ludus_memory_alloc_ptr(domain, ptr, bytes) ludus__l0_memory_ptr(domain, ptr, bytes)
#define ludus_memory_free_ptr(domain, ptr) ludus__l0_memory_ptr(domain, ptr, 0)
#define ludus_memory_baseline(domain, bytes, allocs) ludus__l0_baseline(domain, bytes, allocs)
#define ludus_memory_note_outside(what, bytes) ludus__l0_note_outside(what, bytes)
#define ludus_memory_sample() ludus__l0_gauges()

#endif /* LUDUS_PROFILE_LEVEL == 0 */

#endif /* LUDUS_LEVEL0_H */
