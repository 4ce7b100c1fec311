/* <ludus/locks.h> under the hygiene flags of header_hygiene.c (-Wall -Wextra
 * -Wpedantic -Wdeclaration-after-statement -Wredundant-decls -Wshadow
 * -Wconversion -Wsign-conversion -Werror) at LUDUS_PROFILE_LEVEL 0, 1 and 2:
 * as C99 (strict ISO C: <pthread.h> declares no rwlock, the rwlock wrappers
 * are left out), as C11 with _POSIX_C_SOURCE (all of it) and as C++11 and
 * C++20; every macro and function, inside if/else too, and
 * LUDUS_PROFILE_LOCK_WAIT of <ludus/profiling.h>. Run as a program it locks
 * and unlocks each once in a capture and checks the results. */
#include <ludus/capture.h>
#include <ludus/locks.h>
#include <ludus/profiling.h>
#include <stdio.h>

static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
#ifdef PTHREAD_RWLOCK_INITIALIZER
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
#endif
static int own;

static int own_try(void) {
    int expected = 0;
    return __atomic_compare_exchange_n(&own, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

static int locks(int x) {
    LUDUS_PROFILE_FUNCTION();
    int rc = LUDUS_PROFILE_MUTEX_LOCK(&mtx);
    uintptr_t token;
    rc |= pthread_mutex_unlock(&mtx);
    if (x)
        rc |= LUDUS_PROFILE_MUTEX_LOCK(&mtx);
    else
        rc |= ludus_mutex_lock(&mtx, NULL);
    rc |= pthread_mutex_unlock(&mtx);
#ifdef PTHREAD_RWLOCK_INITIALIZER
    if (x)
        rc |= LUDUS_PROFILE_RWLOCK_RDLOCK(&rw);
    else
        rc |= LUDUS_PROFILE_RWLOCK_WRLOCK(&rw);
    rc |= pthread_rwlock_unlock(&rw);
    rc |= ludus_rwlock_rdlock(&rw, NULL) | pthread_rwlock_unlock(&rw);
    rc |= ludus_rwlock_wrlock(&rw, NULL) | pthread_rwlock_unlock(&rw);
#endif
    if (!own_try()) {
        LUDUS_PROFILE_LOCK_WAIT(Own);
        while (!own_try()) {
        }
    }
    __atomic_store_n(&own, 0, __ATOMIC_RELEASE);
    token = ludus_lock_wait_begin(&own, NULL);
    ludus_lock_wait_end(token);
    return rc;
}

int main(void) {
    int rc;
    const ludus_site *s;
    if (ludus_lock_name(&mtx, "Mutex") != 0) return 1;
    s = ludus_lock_site(&mtx);
#if LUDUS_PROFILE_LEVEL == 0 /* naming a lock is compiled out */
    if (s) return 1;
#else
    if (!s || !s->category || s->category[0] != 'l') return 1;
#endif
    if (ludus_capture_begin(NULL) != 0) return 1;
    rc = locks(1) | locks(0);
    if (ludus_capture_end(NULL) != 0 || ludus_lock_forget(&mtx) != 0 || ludus_lock_names_refused() != 0) return 1;
    if (rc != 0) {
        fprintf(stderr, "a lock call failed\n");
        return 1;
    }
    printf("ok\n");
    return 0;
}
