/* Mutexes, condition variables, once-flags and the library's own threads:
 * the only locking and threading the layers above the platform use
 * (besides atomics). POSIX threads here (mingw-w64's on Windows); a port
 * replaces this file. */
#ifndef LUDUS_SYNC_H
#define LUDUS_SYNC_H

#include <pthread.h>

typedef pthread_mutex_t ludus__mutex;
typedef pthread_once_t ludus__once;
#define LUDUS__MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define LUDUS__ONCE_INIT PTHREAD_ONCE_INIT

static inline void ludus__mutex_init(ludus__mutex *m) {
    pthread_mutex_init(m, NULL);
}
static inline void ludus__mutex_destroy(ludus__mutex *m) {
    pthread_mutex_destroy(m);
}
static inline void ludus__mutex_lock(ludus__mutex *m) {
    pthread_mutex_lock(m);
}
static inline void ludus__mutex_unlock(ludus__mutex *m) {
    pthread_mutex_unlock(m);
}
/* 0 when it took the lock, nonzero when another thread holds it. */
static inline int ludus__mutex_trylock(ludus__mutex *m) {
    return pthread_mutex_trylock(m);
}

/* Condition variables (for background threads that sleep until work comes). */
typedef pthread_cond_t ludus__cond;
static inline void ludus__cond_init(ludus__cond *c) {
    pthread_cond_init(c, NULL);
}
static inline void ludus__cond_destroy(ludus__cond *c) {
    pthread_cond_destroy(c);
}
static inline void ludus__cond_wait(ludus__cond *c, ludus__mutex *m) {
    pthread_cond_wait(c, m);
}
static inline void ludus__cond_broadcast(ludus__cond *c) {
    pthread_cond_broadcast(c);
}

/* The library's own threads (journal, rolling window, prefault): 0 when fn
 * runs on a new thread. */
typedef pthread_t ludus__thread;
static inline int ludus__thread_start(ludus__thread *t, void *(*fn)(void *), void *arg) {
    return pthread_create(t, NULL, fn, arg);
}
static inline void ludus__thread_join(ludus__thread t) {
    pthread_join(t, NULL);
}

/* Runs fn once in the process, whichever thread comes first; the others wait for it. */
static inline void ludus__once_run(ludus__once *o, void (*fn)(void)) {
    pthread_once(o, fn);
}

#endif
