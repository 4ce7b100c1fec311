/* Mutexes, condition variables, once-flags and the library's own threads:
 * the only locking and threading the layers above the platform use
 * (besides atomics). POSIX threads here (mingw-w64's on Windows); with
 * MSVC's C runtime, which has none, Windows' own (first half). */
#ifndef LUDUS_SYNC_H
#define LUDUS_SYNC_H

#ifdef _MSC_VER
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>

#include <stdlib.h>

typedef SRWLOCK ludus__mutex;
typedef INIT_ONCE ludus__once;
#define LUDUS__MUTEX_INIT SRWLOCK_INIT
#define LUDUS__ONCE_INIT INIT_ONCE_STATIC_INIT

static inline void ludus__mutex_init(ludus__mutex *m) {
    InitializeSRWLock(m);
}
static inline void ludus__mutex_destroy(ludus__mutex *m) {
    (void)m; /* an SRW lock holds no resource */
}
static inline void ludus__mutex_lock(ludus__mutex *m) {
    AcquireSRWLockExclusive(m);
}
static inline void ludus__mutex_unlock(ludus__mutex *m) {
    ReleaseSRWLockExclusive(m);
}
static inline int ludus__mutex_trylock(ludus__mutex *m) {
    return TryAcquireSRWLockExclusive(m) ? 0 : 1;
}

typedef CONDITION_VARIABLE ludus__cond;
#define LUDUS__COND_INIT CONDITION_VARIABLE_INIT
static inline void ludus__cond_init(ludus__cond *c) {
    InitializeConditionVariable(c);
}
static inline void ludus__cond_destroy(ludus__cond *c) {
    (void)c;
}
static inline void ludus__cond_wait(ludus__cond *c, ludus__mutex *m) {
    SleepConditionVariableSRW(c, m, INFINITE, 0);
}
static inline void ludus__cond_broadcast(ludus__cond *c) {
    WakeAllConditionVariable(c);
}

/* A thread runs fn(arg) through a start routine of Windows' signature. */
typedef HANDLE ludus__thread;
struct ludus__thread_start_args {
    void *(*fn)(void *);
    void *arg;
};
static DWORD WINAPI ludus__thread_main(LPVOID p) {
    struct ludus__thread_start_args a = *(struct ludus__thread_start_args *)p;
    free(p);
    a.fn(a.arg);
    return 0;
}
static inline int ludus__thread_start(ludus__thread *t, void *(*fn)(void *), void *arg) {
    struct ludus__thread_start_args *a = (struct ludus__thread_start_args *)malloc(sizeof *a);
    if (!a) return -1;
    a->fn = fn;
    a->arg = arg;
    *t = CreateThread(NULL, 0, ludus__thread_main, a, 0, NULL);
    if (*t == NULL) {
        free(a);
        return -1;
    }
    return 0;
}
static inline void ludus__thread_join(ludus__thread t) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
}

static BOOL CALLBACK ludus__once_main(PINIT_ONCE o, PVOID fn, PVOID *ctx) {
    (void)o;
    (void)ctx;
    ((void (*)(void))fn)();
    return TRUE;
}
static inline void ludus__once_run(ludus__once *o, void (*fn)(void)) {
    InitOnceExecuteOnce(o, ludus__once_main, (PVOID)fn, NULL);
}

#else /* POSIX threads */
#include <pthread.h>

#include "platform.h"

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
#define LUDUS__COND_INIT PTHREAD_COND_INITIALIZER
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

/* The library's own threads (journal, rolling window, live view, stream
 * writer, block loader, diff helpers): 0 when fn runs on a new thread,
 * which blocks every signal, so the program's signals go to the program's
 * threads (docs/capture.md). posix.c: the signal calls want a feature
 * macro that not every includer defines. */
typedef pthread_t ludus__thread;
#ifdef _WIN32 /* mingw-w64: no signal to block */
static inline int ludus__thread_start(ludus__thread *t, void *(*fn)(void *), void *arg) {
    return pthread_create(t, NULL, fn, arg);
}
#else
LUDUS_HIDDEN int ludus__thread_start(ludus__thread *t, void *(*fn)(void *), void *arg);
#endif
static inline void ludus__thread_join(ludus__thread t) {
    pthread_join(t, NULL);
}

/* Runs fn once in the process, whichever thread comes first; the others wait for it. */
static inline void ludus__once_run(ludus__once *o, void (*fn)(void)) {
    pthread_once(o, fn);
}
#endif

#endif
