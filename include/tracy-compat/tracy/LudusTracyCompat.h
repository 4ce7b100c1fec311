/* Ludus Profiling: what the Tracy-named headers (TracyC.h, Tracy.hpp) are
 * built on: static sites, the zone begin with Tracy's "active" flag, and
 * the helpers behind annotations, memory, frames, plots, messages and
 * locks. Included by those headers under TRACY_ENABLE; not API (names may
 * change). docs/from-tracy.md says what maps to what. */
#ifndef LUDUS_TRACY_COMPAT_H
#define LUDUS_TRACY_COMPAT_H

#include <stdarg.h>
#include <stdio.h>

#include <ludus/locks.h>
#include <ludus/profiling.h>

#if LUDUS__TRACY
#error "Tracy's names onto Ludus need Ludus's builtin recorder, not LUDUS_BACKEND=tracy (use Tracy's own headers there)"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A site whose name is a string literal's text (NULL: the function's). */
#define LUDUS__TC_SITE(var, name_str, cat_str)                                                                   \
    static const ludus_site var = {name_str,       __func__, __FILE__, cat_str, LUDUS__CAST(uint32_t, __LINE__), \
                                   LUDUS_SITE_TEXT}
#define LUDUS__TC_LOCK_SITE(var) LUDUS__TC_SITE(var, NULL, LUDUS_LOCK_CATEGORY)

/* Tracy's zone begin: nothing (a branch) when active is 0. */
LUDUS__INLINE uintptr_t ludus__tc_zone_begin(const ludus_site *site, int active) {
    if (!active) return 0;
    return ludus__scope_begin(site);
}

/* Annotation keys of a zone's text, name and value. */
enum { LUDUS__TC_KEY_TEXT = 0, LUDUS__TC_KEY_NAME = 1, LUDUS__TC_KEY_VALUE = 2 };
static inline const ludus_site *ludus__tc_key(int key) {
    static const ludus_site keys[3] = {{"text", "", "", NULL, 0, LUDUS_SITE_TEXT},
                                       {"name", "", "", NULL, 0, LUDUS_SITE_TEXT},
                                       {"value", "", "", NULL, 0, LUDUS_SITE_TEXT}};
    return &keys[key];
}

/* A text of size bytes (not NUL-terminated), cut at the annotation's
 * limit, as an annotation of the open zone. */
static inline void ludus__tc_annotate_text(int key, const char *txt, size_t size) {
    char buf[LUDUS_ANNOTATION_TEXT_MAX + 1];
    size_t n = size < LUDUS_ANNOTATION_TEXT_MAX ? size : LUDUS_ANNOTATION_TEXT_MAX;
    if (txt == NULL) return;
    __builtin_memcpy(buf, txt, n);
    buf[n] = 0;
    ludus__annotate_text_check(ludus__tc_key(key), buf);
}
LUDUS__INLINE void ludus__tc_zone_text(uintptr_t token, int key, const char *txt, size_t size) {
    if (token != 0) ludus__tc_annotate_text(key, txt, size);
}
#if defined(__GNUC__) || defined(__clang__)
static inline void ludus__tc_zone_textf(uintptr_t token, int key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
#endif
static inline void ludus__tc_zone_textf(uintptr_t token, int key, const char *fmt, ...) {
    char buf[LUDUS_ANNOTATION_TEXT_MAX + 1];
    va_list ap;
    int n;
    if (token == 0 || !ludus__is_armed()) return;
    va_start(ap, fmt);
    n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n >= 0) ludus__annotate_text_check(ludus__tc_key(key), buf);
}
LUDUS__INLINE void ludus__tc_zone_value(uintptr_t token, uint64_t value) {
    if (token != 0) ludus__annotate_u64_check(ludus__tc_key(LUDUS__TC_KEY_VALUE), value);
}

/* Memory domains: "heap" for Tracy's unnamed pool, one per pool name. The
 * domain is looked up once per translation unit (heap) or per call site
 * and name (named pools). */
LUDUS__INLINE ludus_memory_domain ludus__tc_heap(void) {
    static ludus_memory_domain heap;
    ludus_memory_domain d = __atomic_load_n(&heap, __ATOMIC_RELAXED);
    if (LUDUS__UNLIKELY(d == 0)) {
        d = ludus_memory_domain_register("heap");
        __atomic_store_n(&heap, d, __ATOMIC_RELAXED);
    }
    return d;
}
typedef struct ludus__tc_domain_cache {
    const char *name; /* the pool name the domain was looked up for */
    ludus_memory_domain domain;
} ludus__tc_domain_cache;
LUDUS__INLINE ludus_memory_domain ludus__tc_domain(ludus__tc_domain_cache *c, const char *name) {
    ludus_memory_domain d = __atomic_load_n(&c->domain, __ATOMIC_ACQUIRE);
    if (LUDUS__UNLIKELY(d == 0 || __atomic_load_n(&c->name, __ATOMIC_RELAXED) != name)) {
        d = ludus_memory_domain_register(name);
        __atomic_store_n(&c->name, name, __ATOMIC_RELAXED);
        __atomic_store_n(&c->domain, d, __ATOMIC_RELEASE);
    }
    return d;
}
#define LUDUS__TC_DOMAIN(name)                                     \
    __extension__({                                                \
        static ludus__tc_domain_cache LUDUS__VAR(ludus__tc_pool_); \
        ludus__tc_domain(&LUDUS__VAR(ludus__tc_pool_), (name));    \
    })

/* Names known at run time (plots, named frames): a site id by name, during
 * a capture only. */
LUDUS__INLINE void ludus__tc_mark(const char *name) {
    uint32_t id;
    if (LUDUS__LIKELY(!ludus__is_armed())) return;
    id = ludus_site_intern(name);
    ludus_span_begin(id);
    ludus_span_end_site(id);
}
LUDUS__INLINE void ludus__tc_frame_start(const char *name) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_span_begin(ludus_site_intern(name));
}
LUDUS__INLINE void ludus__tc_frame_end(const char *name) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_span_end_site(ludus_site_intern(name));
}
LUDUS__INLINE void ludus__tc_plot_f64(const char *name, double value) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_counter_sample_f64(ludus_site_intern(name), value);
}
LUDUS__INLINE void ludus__tc_plot_i64(const char *name, int64_t value) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_counter_sample(ludus_site_intern(name), value);
}

/* Messages: info-level log messages, the text copied. */
LUDUS__INLINE void ludus__tc_message(const char *txt, size_t size) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_log_text(LUDUS_LOG_INFO, txt, size);
}
LUDUS__INLINE void ludus__tc_message_l(const char *txt) {
    if (LUDUS__UNLIKELY(ludus__is_armed())) ludus_log_text(LUDUS_LOG_INFO, txt, __builtin_strlen(txt));
}

LUDUS__INLINE int ludus__tc_connected(void) {
    return ludus__is_armed();
}

/* Locks of the C API: BeforeLock opens the wait, AfterLock (the next lock
 * event of the thread) ends it; the wait's token waits in between in a
 * thread-local slot (one per translation unit: a program brackets each
 * blocking call in one place). */
LUDUS__INLINE uintptr_t *ludus__tc_lock_slot(void) {
    static __thread uintptr_t token;
    return &token;
}
LUDUS__INLINE void ludus__tc_lock_before(const void *lock, const ludus_site *site) {
    *ludus__tc_lock_slot() = ludus_lock_wait_begin(lock, site);
}
LUDUS__INLINE void ludus__tc_lock_after(void) {
    uintptr_t *slot = ludus__tc_lock_slot();
    uintptr_t token = *slot;
    *slot = 0;
    ludus_lock_wait_end(token);
}
static inline void ludus__tc_lock_name(const void *lock, const char *name, size_t size) {
    char buf[120];
    size_t n = size < sizeof buf - 1 ? size : sizeof buf - 1;
    if (name == NULL) return;
    __builtin_memcpy(buf, name, n);
    buf[n] = 0;
    (void)ludus_lock_name(lock, buf);
}

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LUDUS_TRACY_COMPAT_H */
