/* Compiled out: at LUDUS_PROFILE_LEVEL 0 the lock macros of <ludus/locks.h>
 * are the plain pthread calls and LUDUS_PROFILE_LOCK_WAIT, naming a lock and
 * ludus_lock_wait_begin/end are nothing (the wrappers called by hand: the
 * pthread call):
 * work_fn with them compiles to exactly the code of work_fn written with
 * the pthread calls (compiled_out.sh builds it with -DWITH_MACROS=1 and =0
 * and compares). */
#define _POSIX_C_SOURCE 200809L /* rwlocks under -std=c11 */
#include <ludus/locks.h>
#include <ludus/profiling.h>

#if WITH_MACROS
#define MUTEX_LOCK(m) LUDUS_PROFILE_MUTEX_LOCK(m)
#define MUTEX_LOCK2(m) ludus_mutex_lock(m, NULL)
#define RDLOCK(l) LUDUS_PROFILE_RWLOCK_RDLOCK(l)
#define WRLOCK(l) LUDUS_PROFILE_RWLOCK_WRLOCK(l)
#define M(...) __VA_ARGS__
#else
#define MUTEX_LOCK(m) pthread_mutex_lock(m)
#define MUTEX_LOCK2(m) pthread_mutex_lock(m)
#define RDLOCK(l) pthread_rwlock_rdlock(l)
#define WRLOCK(l) pthread_rwlock_wrlock(l)
#define M(...)
#endif

int work_fn(pthread_mutex_t *m, pthread_rwlock_t *l, int *own, int n);
int work_fn(pthread_mutex_t *m, pthread_rwlock_t *l, int *own, int n) {
    int rc = 0, sum = 0;
    M((void)ludus_lock_name(m, "Mutex");)
    for (int i = 0; i < n; i++) {
        rc |= MUTEX_LOCK2(m);
        rc |= pthread_mutex_unlock(m);
        rc |= MUTEX_LOCK(m);
        sum += i;
        rc |= pthread_mutex_unlock(m);
        rc |= (i & 1) ? RDLOCK(l) : WRLOCK(l);
        rc |= pthread_rwlock_unlock(l);
        if (!__atomic_exchange_n(own, 1, __ATOMIC_ACQUIRE)) continue;
        {
            M(LUDUS_PROFILE_LOCK_WAIT(Own);)
            M(uintptr_t t = ludus_lock_wait_begin(own, NULL);)
            while (__atomic_exchange_n(own, 1, __ATOMIC_ACQUIRE)) {
            }
            M(ludus_lock_wait_end(t);)
        }
    }
    M((void)ludus_lock_forget(m);)
    return rc ? -1 : sum;
}
