/* The part of POSIX threads the demo, ludus-trace and the unit tests use,
 * on Windows' own primitives, for the MSVC-ABI build (check_msvc.sh): MSVC's
 * runtime has none. Never part of the library (src/platform/sync.h uses
 * Windows' primitives itself). */
#ifndef LUDUS_MSVC_PTHREAD_H
#define LUDUS_MSVC_PTHREAD_H
#include <errno.h>
#include <stdlib.h>
#include <windows.h>

typedef HANDLE pthread_t;
typedef struct {
    size_t stack;
} pthread_attr_t;
typedef SRWLOCK pthread_mutex_t;
typedef CONDITION_VARIABLE pthread_cond_t;
typedef struct {
    SRWLOCK lock;
    volatile LONG writer; /* 1 while held exclusively: unlock releases that side */
} pthread_rwlock_t;
typedef struct {
    SRWLOCK lock;
    CONDITION_VARIABLE cv;
    unsigned count, waiting, round;
} pthread_barrier_t;
#define PTHREAD_MUTEX_INITIALIZER SRWLOCK_INIT
#define PTHREAD_COND_INITIALIZER CONDITION_VARIABLE_INIT
#define PTHREAD_RWLOCK_INITIALIZER \
    { SRWLOCK_INIT, 0 }
#define PTHREAD_BARRIER_SERIAL_THREAD (-1)

static inline int pthread_attr_init(pthread_attr_t *a) {
    a->stack = 0;
    return 0;
}
static inline int pthread_attr_destroy(pthread_attr_t *a) {
    (void)a;
    return 0;
}
static inline int pthread_attr_setstacksize(pthread_attr_t *a, size_t n) {
    a->stack = n;
    return 0;
}
struct ludus_shim_start {
    void *(*fn)(void *);
    void *arg;
};
static DWORD WINAPI ludus_shim_thread(LPVOID p) {
    struct ludus_shim_start s = *(struct ludus_shim_start *)p;
    free(p);
    s.fn(s.arg);
    return 0;
}
static inline int pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg) {
    struct ludus_shim_start *s = (struct ludus_shim_start *)malloc(sizeof *s);
    if (!s) return EAGAIN;
    s->fn = fn;
    s->arg = arg;
    *t = CreateThread(NULL, a ? a->stack : 0, ludus_shim_thread, s, 0, NULL);
    if (!*t) {
        free(s);
        return EAGAIN;
    }
    return 0;
}
static inline int pthread_join(pthread_t t, void **ret) {
    WaitForSingleObject(t, INFINITE);
    CloseHandle(t);
    if (ret) *ret = NULL;
    return 0;
}

static inline int pthread_mutex_init(pthread_mutex_t *m, const void *attr) {
    (void)attr;
    InitializeSRWLock(m);
    return 0;
}
static inline int pthread_mutex_destroy(pthread_mutex_t *m) {
    (void)m;
    return 0;
}
static inline int pthread_mutex_lock(pthread_mutex_t *m) {
    AcquireSRWLockExclusive(m);
    return 0;
}
static inline int pthread_mutex_trylock(pthread_mutex_t *m) {
    return TryAcquireSRWLockExclusive(m) ? 0 : EBUSY;
}
static inline int pthread_mutex_unlock(pthread_mutex_t *m) {
    ReleaseSRWLockExclusive(m);
    return 0;
}

static inline int pthread_cond_init(pthread_cond_t *c, const void *attr) {
    (void)attr;
    InitializeConditionVariable(c);
    return 0;
}
static inline int pthread_cond_destroy(pthread_cond_t *c) {
    (void)c;
    return 0;
}
static inline int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
    SleepConditionVariableSRW(c, m, INFINITE, 0);
    return 0;
}
static inline int pthread_cond_signal(pthread_cond_t *c) {
    WakeConditionVariable(c);
    return 0;
}
static inline int pthread_cond_broadcast(pthread_cond_t *c) {
    WakeAllConditionVariable(c);
    return 0;
}

static inline int pthread_rwlock_init(pthread_rwlock_t *l, const void *attr) {
    (void)attr;
    InitializeSRWLock(&l->lock);
    l->writer = 0;
    return 0;
}
static inline int pthread_rwlock_destroy(pthread_rwlock_t *l) {
    (void)l;
    return 0;
}
static inline int pthread_rwlock_rdlock(pthread_rwlock_t *l) {
    AcquireSRWLockShared(&l->lock);
    return 0;
}
static inline int pthread_rwlock_tryrdlock(pthread_rwlock_t *l) {
    return TryAcquireSRWLockShared(&l->lock) ? 0 : EBUSY;
}
static inline int pthread_rwlock_wrlock(pthread_rwlock_t *l) {
    AcquireSRWLockExclusive(&l->lock);
    l->writer = 1;
    return 0;
}
static inline int pthread_rwlock_trywrlock(pthread_rwlock_t *l) {
    if (!TryAcquireSRWLockExclusive(&l->lock)) return EBUSY;
    l->writer = 1;
    return 0;
}
static inline int pthread_rwlock_unlock(pthread_rwlock_t *l) {
    if (l->writer) {
        l->writer = 0;
        ReleaseSRWLockExclusive(&l->lock);
    } else {
        ReleaseSRWLockShared(&l->lock);
    }
    return 0;
}

static inline int pthread_barrier_init(pthread_barrier_t *b, const void *attr, unsigned count) {
    (void)attr;
    InitializeSRWLock(&b->lock);
    InitializeConditionVariable(&b->cv);
    b->count = count;
    b->waiting = 0;
    b->round = 0;
    return 0;
}
static inline int pthread_barrier_destroy(pthread_barrier_t *b) {
    (void)b;
    return 0;
}
static inline int pthread_barrier_wait(pthread_barrier_t *b) {
    AcquireSRWLockExclusive(&b->lock);
    unsigned round = b->round;
    if (++b->waiting == b->count) {
        b->waiting = 0;
        b->round++;
        WakeAllConditionVariable(&b->cv);
        ReleaseSRWLockExclusive(&b->lock);
        return PTHREAD_BARRIER_SERIAL_THREAD;
    }
    while (round == b->round) SleepConditionVariableSRW(&b->cv, &b->lock, INFINITE, 0);
    ReleaseSRWLockExclusive(&b->lock);
    return 0;
}
#endif
