/* Ludus Profiling: lock waits.
 *
 * A lock wait is a zone on the waiting thread, recorded only when the lock
 * was contended: the wrappers try the lock first, and an uncontended lock
 * costs that one try-lock and nothing else (no clock read, no event, no
 * table lookup). When the try-lock finds the lock taken, the wait (the
 * blocking call) is recorded as a scope of category "lock" named after the
 * lock (ludus_lock_name) or, for a lock without a name, after the call site
 * (the macro's argument as written). ludus-trace report gives wait time per
 * lock, per frame and as a share of the frame; diff compares it.
 *
 *     static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
 *     ludus_lock_name(&queue_lock, "JobQueue");     once, anywhere
 *     LUDUS_PROFILE_MUTEX_LOCK(&queue_lock);        instead of pthread_mutex_lock
 *     ...
 *     pthread_mutex_unlock(&queue_lock);            unlocking is unchanged
 *
 * Any other lock (a spin lock, an engine's own mutex): try it yourself and
 * open LUDUS_PROFILE_LOCK_WAIT (<ludus/profiling.h>) in the block that
 * blocks, only when the try failed:
 *
 *     if (!my_trylock(&l)) {
 *         LUDUS_PROFILE_LOCK_WAIT(MyLock);
 *         my_lock(&l);
 *     }
 *
 * or, to use the name given to the lock with ludus_lock_name, bracket the
 * blocking call with ludus_lock_wait_begin / ludus_lock_wait_end.
 *
 * This header includes <pthread.h>; <ludus/profiling.h> stays freestanding.
 * The rwlock wrappers exist where <pthread.h> declares rwlocks (POSIX 2001:
 * glibc hides them under -std=c11 unless _POSIX_C_SOURCE >= 200112L, or
 * _GNU_SOURCE, is defined before the first system header).
 *
 * LUDUS_PROFILE_LEVEL 0: the macros are the plain pthread calls. */
#ifndef LUDUS_LOCKS_H
#define LUDUS_LOCKS_H

#include <errno.h>
/* MSVC has no POSIX threads: there, the naming and the waits of any lock
 * (ludus_lock_wait_begin/end around your SRWLOCK or critical section), and
 * none of the pthread wrappers and macros; clang-cl keeps them where a
 * <pthread.h> for Windows is found (pthreads4w, or the tests' shim). */
#if !defined(_MSC_VER)
#define LUDUS__POSIX_LOCKS 1
#elif defined(__clang__) && defined(__has_include)
#if __has_include(<pthread.h>)
#define LUDUS__POSIX_LOCKS 1
#endif
#endif
#ifndef LUDUS__POSIX_LOCKS
#define LUDUS__POSIX_LOCKS 0
#endif
#if LUDUS__POSIX_LOCKS
#include <pthread.h>
#endif

#include <ludus/profiling.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The category of every lock-wait zone. */
#define LUDUS_LOCK_CATEGORY "lock"

/* Names a lock by its address (any lock: a pthread mutex or rwlock, or one
 * of your own), for the life of the process or until ludus_lock_forget.
 * Thread-safe; name is copied (at most 119 bytes, cut on a character
 * boundary). Naming it again renames it. Locks with the same name share one
 * entry in the report: a wait is a scope of category "lock" interned in the
 * running capture's table of run-time names, so names take no room for good
 * (per capture, past 16,384 distinct names, a wait is recorded under its
 * call site and counted as a refused run-time name). At most 1024 named
 * locks at a time: past that the lock is not named, its waits are recorded
 * under the call site, and the refusal is counted (ludus_lock_names_refused,
 * and as a refused run-time name of a running capture). Returns 0,
 * LUDUS_EINVAL (lock or name NULL or empty) or LUDUS_ENOMEM (refused). */
LUDUS_API int ludus_lock_name(const void *lock, const char *name);
/* Forgets a lock's name (call it before destroying a named lock whose
 * memory will be reused); its slot becomes free again. Waits already
 * recorded keep the name. Returns 0, or LUDUS_ENODATA when it had none. */
LUDUS_API int ludus_lock_forget(const void *lock);
/* The lock's name as a site of category "lock" (a copy, the calling
 * thread's until its next call), or NULL when it has none. Lock-free. */
LUDUS_API const ludus_site *ludus_lock_site(const void *lock);
/* Names refused because the table of named locks was full, since the
 * process started. */
LUDUS_API uint64_t ludus_lock_names_refused(void);

/* The out-of-line half of a wait, after a failed try-lock: a lock-wait
 * scope on the lock's named site, else on site, else on a default per kind
 * (LUDUS__LOCK_*). Called only while a capture runs. Not API: names may
 * change. */
enum { LUDUS__LOCK_OTHER = 0, LUDUS__LOCK_MUTEX = 1, LUDUS__LOCK_READ = 2, LUDUS__LOCK_WRITE = 3 };
LUDUS_API uintptr_t ludus__lock_wait_begin(const void *lock, const ludus_site *site, unsigned kind);

#if LUDUS__TRACY /* a zone named after the lock (src/backend/tracy.c) */
LUDUS__INLINE uintptr_t ludus__lock_wait_check(const void *lock, const ludus_site *site, unsigned kind) {
    return ludus__tracy_lock_wait(lock, site, kind);
}
#else
LUDUS__INLINE uintptr_t ludus__lock_wait_check(const void *lock, const ludus_site *site, unsigned kind) {
    if (LUDUS__LIKELY(!ludus__is_armed())) return 0;
    return ludus__lock_wait_begin(lock, site, kind);
}
#endif

/* Any other lock, named with ludus_lock_name or not: call begin after your
 * own try-lock failed and end once the blocking call returned. site: the
 * descriptor to use when the lock has no name (category "lock"; NULL:
 * "lock"). begin returns a token for end (0 when no capture runs: nothing
 * is recorded). */
LUDUS__INLINE uintptr_t ludus_lock_wait_begin(const void *lock, const ludus_site *site) {
    return ludus__lock_wait_check(lock, site, LUDUS__LOCK_OTHER);
}
LUDUS__INLINE void ludus_lock_wait_end(uintptr_t token) {
    ludus__scope_end(token);
}

/* pthread_mutex_lock that records a wait when the mutex was taken, and is
 * one pthread_mutex_trylock when it was free. site: the call site's
 * descriptor (category "lock"), used when the mutex has no name; NULL:
 * "mutex". The result is pthread_mutex_lock's (an error-checking mutex's
 * EDEADLK too). Inline: the library itself makes no pthread call. */
#if LUDUS__POSIX_LOCKS
LUDUS__INLINE int ludus_mutex_lock(pthread_mutex_t *m, const ludus_site *site) {
    uintptr_t token;
    int rc = pthread_mutex_trylock(m);
    if (LUDUS__LIKELY(rc != EBUSY)) return rc;
    token = ludus__lock_wait_check(m, site, LUDUS__LOCK_MUTEX);
    rc = pthread_mutex_lock(m);
    ludus__scope_end(token);
    return rc;
}

#endif
#if LUDUS__POSIX_LOCKS && defined(PTHREAD_RWLOCK_INITIALIZER)
/* The same for a rwlock's read (shared) and write (exclusive) side. A
 * named rwlock records both under its one name, an unnamed one under each
 * call site (NULL: "rwlock read", "rwlock write"). */
LUDUS__INLINE int ludus_rwlock_rdlock(pthread_rwlock_t *l, const ludus_site *site) {
    uintptr_t token;
    int rc = pthread_rwlock_tryrdlock(l);
    if (LUDUS__LIKELY(rc != EBUSY)) return rc;
    token = ludus__lock_wait_check(l, site, LUDUS__LOCK_READ);
    rc = pthread_rwlock_rdlock(l);
    ludus__scope_end(token);
    return rc;
}
LUDUS__INLINE int ludus_rwlock_wrlock(pthread_rwlock_t *l, const ludus_site *site) {
    uintptr_t token;
    int rc = pthread_rwlock_trywrlock(l);
    if (LUDUS__LIKELY(rc != EBUSY)) return rc;
    token = ludus__lock_wait_check(l, site, LUDUS__LOCK_WRITE);
    rc = pthread_rwlock_wrlock(l);
    ludus__scope_end(token);
    return rc;
}
#endif

/* LUDUS_PROFILE_LEVEL 0: naming, waits and the wrappers compile to nothing
 * but the plain pthread call (as <ludus/level0.h> does for the rest of the
 * API); "none" (0) is returned where a value is. */
#if LUDUS_PROFILE_LEVEL == 0 && !defined(LUDUS__LIBRARY) && !defined(LUDUS_IMPLEMENTATION)
LUDUS__INLINE int ludus__l0_lock_name(const void *lock, const char *name) {
    (void)lock;
    (void)name;
    return 0;
}
LUDUS__INLINE int ludus__l0_lock_forget(const void *lock) {
    (void)lock;
    return 0;
}
LUDUS__INLINE uintptr_t ludus__l0_lock_wait_begin(const void *lock, const ludus_site *site) {
    (void)lock;
    (void)site;
    return 0;
}
LUDUS__INLINE void ludus__l0_lock_wait_end(uintptr_t token) {
    (void)token;
}
#define ludus_lock_name(lock, name) ludus__l0_lock_name(lock, name)
#define ludus_lock_forget(lock) ludus__l0_lock_forget(lock)
#define ludus_lock_wait_begin(lock, site) ludus__l0_lock_wait_begin(lock, site)
#define ludus_lock_wait_end(token) ludus__l0_lock_wait_end(token)
#if LUDUS__POSIX_LOCKS
LUDUS__INLINE int ludus__l0_mutex_lock(pthread_mutex_t *m, const ludus_site *site) {
    (void)site;
    return pthread_mutex_lock(m);
}
#define ludus_mutex_lock(m, site) ludus__l0_mutex_lock(m, site)
#endif
#if LUDUS__POSIX_LOCKS && defined(PTHREAD_RWLOCK_INITIALIZER)
LUDUS__INLINE int ludus__l0_rwlock_rdlock(pthread_rwlock_t *l, const ludus_site *site) {
    (void)site;
    return pthread_rwlock_rdlock(l);
}
LUDUS__INLINE int ludus__l0_rwlock_wrlock(pthread_rwlock_t *l, const ludus_site *site) {
    (void)site;
    return pthread_rwlock_wrlock(l);
}
#define ludus_rwlock_rdlock(l, site) ludus__l0_rwlock_rdlock(l, site)
#define ludus_rwlock_wrlock(l, site) ludus__l0_rwlock_wrlock(l, site)
#endif
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---------------------------------------------------------------------------
 * Macros: each is an expression with the pthread call's result. The call
 * site's descriptor is static (name: the argument as written). */
#if LUDUS__POSIX_LOCKS
#if LUDUS_PROFILE_LEVEL > 0

#if LUDUS__TRACY
#define LUDUS__LOCK_SITE(var, text)                                                                                  \
    static ludus__tracy_site var = {{text, __func__, __FILE__, LUDUS_LOCK_CATEGORY, LUDUS__CAST(uint32_t, __LINE__), \
                                     LUDUS_SITE_TEXT | LUDUS_SITE_TRACY},                                            \
                                    NULL}
#else
#define LUDUS__LOCK_SITE(var, text) \
    static const ludus_site var = { \
        text, __func__, __FILE__, LUDUS_LOCK_CATEGORY, LUDUS__CAST(uint32_t, __LINE__), LUDUS_SITE_TEXT}
#endif
/* A statement expression (GCC and Clang; __extension__ keeps -Wpedantic
 * quiet) so the site can be static and the macro still yields a value. */
#define LUDUS__LOCK_CALL(fn, lock)                                  \
    __extension__({                                                 \
        LUDUS__LOCK_SITE(LUDUS__VAR(ludus__lock_site_), #lock);     \
        fn((lock), LUDUS__SITE_PTR(LUDUS__VAR(ludus__lock_site_))); \
    })
#define LUDUS_PROFILE_MUTEX_LOCK(m) LUDUS__LOCK_CALL(ludus_mutex_lock, m)
#ifdef PTHREAD_RWLOCK_INITIALIZER
#define LUDUS_PROFILE_RWLOCK_RDLOCK(l) LUDUS__LOCK_CALL(ludus_rwlock_rdlock, l)
#define LUDUS_PROFILE_RWLOCK_WRLOCK(l) LUDUS__LOCK_CALL(ludus_rwlock_wrlock, l)
#endif

#else /* LUDUS_PROFILE_LEVEL == 0: the plain calls */

#define LUDUS_PROFILE_MUTEX_LOCK(m) pthread_mutex_lock(m)
#ifdef PTHREAD_RWLOCK_INITIALIZER
#define LUDUS_PROFILE_RWLOCK_RDLOCK(l) pthread_rwlock_rdlock(l)
#define LUDUS_PROFILE_RWLOCK_WRLOCK(l) pthread_rwlock_wrlock(l)
#endif

#endif
#endif /* LUDUS__POSIX_LOCKS */

#endif /* LUDUS_LOCKS_H */
