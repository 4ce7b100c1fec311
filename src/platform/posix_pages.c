/* pages.h on POSIX systems: mmap, and a prefault
 * thread that uses MADV_POPULATE_WRITE (Linux 5.14) or, where the kernel
 * lacks it, a locked add of 0 to one byte per page (which faults the page
 * in and cannot lose a producer's concurrent store to that byte).
 *
 * The thread never polls: it faults up to AHEAD past the producers'
 * cursor, asks to be woken when the cursor has come within AHEAD / 2 of
 * what it faulted (wake_at), and sleeps on a semaphore. The producer whose
 * piece crosses wake_at posts it (ludus__prefault_nudge: once per AHEAD / 2
 * of events, on the pool's out-of-line path). A capture that records
 * nothing leaves it asleep: no library thread wakes on a timer, which
 * would keep a CPU out of idle and change the program's own timing. */
#ifndef _POSIX_C_SOURCE /* POSIX alone when asked (the posix_only_* tests) */
#define _GNU_SOURCE     /* else Linux and GNU interfaces, each behind a check; before any system header */
#endif
#include "pages.h"
#include "alloc.h"
#include "background.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Linux's madvise(MADV_POPULATE_WRITE) where the headers have madvise
 * (MADV_NORMAL); elsewhere the page-by-page touch alone. */
#if defined(MADV_NORMAL) && !defined(MADV_POPULATE_WRITE)
#define MADV_POPULATE_WRITE 23
#endif
#ifdef MADV_POPULATE_WRITE
#define POPULATE(p, n) madvise(p, n, MADV_POPULATE_WRITE)
#else
#define POPULATE(p, n) (-1)
#endif
/* Memory that is committed as it is touched: MAP_NORESERVE (Linux) where
 * there is one; POSIX 2008 has no MAP_ANONYMOUS (2024 does): /dev/zero's
 * pages, private, where it is missing. */
#ifndef MAP_NORESERVE
#define MAP_NORESERVE 0
#endif

#define STEP ((size_t)512 << 10) /* per step (about 250 us): stop is checked between steps */
#define AHEAD ((size_t)8 << 20)  /* how far ahead of the pool's cursor it works */
#define NO_WAKE UINT64_MAX

/* The thread is detached (a capture that is never freed must not leave a
 * thread to join at exit); stop waits for `finished` instead of joining.
 * mu guards stop and cursor: once stop is set the thread never reads the
 * cursor again (its owner may reuse that memory at once). */
struct ludus__prefault {
    char *base;
    size_t bytes;
    size_t done; /* atomic: bytes faulted in */
    pthread_mutex_t mu;
    ludus__wakeup wake;     /* posted by the producer that crosses wake_at, and by stop */
    uint64_t wake_at;       /* atomic: the cursor at which to post wake; NO_WAKE: none asked */
    const uint64_t *cursor; /* the offset producers have taken up to (atomic) */
    int stop;
    int finished; /* atomic: the thread touches nothing any more */
    pid_t owner;  /* the process whose thread it is (a forked child has no such thread) */
};

void *ludus__pages_map(size_t bytes) {
#ifdef MAP_ANONYMOUS
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
#else
    int zero = open("/dev/zero", O_RDWR | O_CLOEXEC);
    if (zero < 0) return NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, zero, 0);
    close(zero);
#endif
    /* No MADV_HUGEPAGE: with the kernel's default defrag policy a huge-page
     * fault may compact memory synchronously, a stall of milliseconds in
     * whichever producer touches the page first. Small pages fault fast,
     * and the prefault thread takes most of them. */
    return p == MAP_FAILED ? NULL : p;
}

void ludus__pages_unmap(void *p, size_t bytes) {
    if (p) munmap(p, bytes);
}

/* Waits until the producers come within AHEAD of offset `at`, or stop;
 * returns stop. Sleeps without a timeout: the producer that crosses
 * wake_at, or stop, posts the semaphore. wake_at is stored before the
 * cursor is read again, and a producer moves the cursor before it reads
 * wake_at (both sequentially consistent), so one of the two sees the
 * other: a crossing is never missed. */
static int wait_for_producers(ludus__prefault *pf, size_t at) {
    for (;;) {
        pthread_mutex_lock(&pf->mu);
        int stop = pf->stop;
        uint64_t cur = stop ? 0 : __atomic_load_n(pf->cursor, __ATOMIC_SEQ_CST);
        if (!stop && at > cur + AHEAD) {
            __atomic_store_n(&pf->wake_at, (uint64_t)(at - AHEAD / 2), __ATOMIC_SEQ_CST);
            cur = __atomic_load_n(pf->cursor, __ATOMIC_SEQ_CST);
        }
        pthread_mutex_unlock(&pf->mu);
        if (stop) return 1;
        if (at <= cur + AHEAD) {
            __atomic_store_n(&pf->wake_at, NO_WAKE, __ATOMIC_RELAXED);
            return 0;
        }
        ludus__wakeup_wait(&pf->wake, -1);
    }
}

void ludus__prefault_nudge(ludus__prefault *pf, uint64_t cursor) {
    if (cursor < __atomic_load_n(&pf->wake_at, __ATOMIC_SEQ_CST)) return;
    if (__atomic_exchange_n(&pf->wake_at, NO_WAKE, __ATOMIC_ACQ_REL) != NO_WAKE) ludus__wakeup_post(&pf->wake);
}

void ludus__pages_touch(void *p, size_t bytes) {
    long page = 4096;
    char *b = (char *)(((uintptr_t)p + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1));
    char *e = (char *)p + bytes;
    if (b >= e) return;
    if (POPULATE(b, (size_t)(e - b) & ~(size_t)(page - 1)) == 0) return;
    for (char *q = b; q < e; q += page) __atomic_fetch_add(q, (char)0, __ATOMIC_RELAXED);
}

static void *prefault_main(void *arg) {
    ludus__prefault *pf = arg;
    long page = 4096;
    char *begin = (char *)(((uintptr_t)(pf->base + pf->done) + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1));
    char *end = pf->base + pf->bytes;
    int populate = 1;
    for (char *p = begin; p < end; p += STEP) {
        /* Far enough ahead of the producers: wait (a short run never pays
         * for faulting, and later freeing, pages it does not use). */
        if (wait_for_producers(pf, (size_t)(p - pf->base))) break;
        size_t n = (size_t)(end - p) < STEP ? (size_t)(end - p) & ~(size_t)(page - 1) : STEP;
        if (n == 0) break;
        if (populate && POPULATE(p, n) != 0) populate = 0;
        if (!populate)
            for (size_t k = 0; k < n; k += (size_t)page) __atomic_fetch_add(p + k, (char)0, __ATOMIC_RELAXED);
        __atomic_store_n(&pf->done, (size_t)(p + n - pf->base), __ATOMIC_RELAXED);
    }
    __atomic_store_n(&pf->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

ludus__prefault *ludus__prefault_start(void *p, size_t bytes, size_t from, const uint64_t *cursor) {
    if (from >= bytes) return NULL; /* all in already */
    ludus__prefault *pf = ludus__calloc(1, sizeof *pf);
    if (!pf) return NULL;
    pf->base = p;
    pf->bytes = bytes;
    pf->done = from;
    pf->cursor = cursor;
    pf->owner = getpid();
    pf->wake_at = NO_WAKE;
    if (ludus__wakeup_init(&pf->wake) != 0) {
        ludus__free(pf);
        return NULL;
    }
    pthread_mutex_init(&pf->mu, NULL);
    /* The thread must not take the program's signals. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t th;
    int rc = pthread_create(&th, &attr, prefault_main, pf);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_mutex_destroy(&pf->mu);
        ludus__wakeup_destroy(&pf->wake);
        ludus__free(pf);
        return NULL;
    }
    return pf;
}

/* In a forked child the thread is not there and its lock may look held:
 * whatever capture the child releases, it never waits for that thread. */
static void forget_if_forked(ludus__prefault *pf) {
    if (pf->owner != getpid()) {
        ludus__prefault_after_fork(pf);
        pf->owner = getpid();
    }
}

void ludus__prefault_request_stop(ludus__prefault *pf) {
    if (!pf) return;
    forget_if_forked(pf);
    pthread_mutex_lock(&pf->mu);
    pf->stop = 1;
    pf->cursor = NULL;
    pthread_mutex_unlock(&pf->mu);
    ludus__wakeup_post(&pf->wake);
}

void ludus__prefault_stop(ludus__prefault *pf) {
    if (!pf) return;
    forget_if_forked(pf); /* before request_stop takes the lock */
    ludus__prefault_request_stop(pf);
    while (!__atomic_load_n(&pf->finished, __ATOMIC_ACQUIRE)) sched_yield(); /* at most one step */
    pthread_mutex_destroy(&pf->mu);
    ludus__wakeup_destroy(&pf->wake);
    ludus__free(pf);
}

void ludus__prefault_after_fork(ludus__prefault *pf) {
    if (!pf) return; /* the thread is not in this process; its lock may look held */
    pthread_mutex_init(&pf->mu, NULL);
    ludus__wakeup_init(&pf->wake);
    pf->wake_at = NO_WAKE;
    pf->stop = 1;
    pf->cursor = NULL;
    __atomic_store_n(&pf->finished, 1, __ATOMIC_RELEASE);
}

size_t ludus__prefault_done(const ludus__prefault *pf) {
    return pf ? __atomic_load_n(&pf->done, __ATOMIC_RELAXED) : 0;
}
