/* Mutexes and once-flags: the only locking the layers above the platform
 * use (besides atomics). POSIX threads here; a port replaces this file. */
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
/* 0 when it took the lock, else the lock is held. */
static inline int ludus__mutex_trylock(ludus__mutex *m) {
    return pthread_mutex_trylock(m);
}
static inline void ludus__mutex_unlock(ludus__mutex *m) {
    pthread_mutex_unlock(m);
}
/* Runs fn once in the process, whichever thread comes first; the others wait for it. */
static inline void ludus__once_run(ludus__once *o, void (*fn)(void)) {
    pthread_once(o, fn);
}

#endif
