/* Linux implementation of pages.h: mmap, and a prefault
 * thread that uses MADV_POPULATE_WRITE (Linux 5.14) or, where the kernel
 * lacks it, a locked add of 0 to one byte per page (which faults the page
 * in and cannot lose a producer's concurrent store to that byte). */
#include "pages.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

#define STEP ((size_t)2 << 20) /* per step; stop is checked between steps */

/* The thread is detached (a capture that is never freed must not leave a
 * thread to join at exit); stop waits for `finished` instead of joining. */
struct ludus__prefault {
    char *base;
    size_t bytes;
    size_t done;  /* atomic: bytes faulted in */
    int stop;     /* atomic */
    int finished; /* atomic: the thread touches nothing any more */
};

void *ludus__pages_map(size_t bytes) {
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    /* No MADV_HUGEPAGE: with the kernel's default defrag policy a huge-page
     * fault may compact memory synchronously, a stall of milliseconds in
     * whichever producer touches the page first. Small pages fault fast,
     * and the prefault thread takes most of them. */
    return p == MAP_FAILED ? NULL : p;
}

void ludus__pages_unmap(void *p, size_t bytes) {
    if (p) munmap(p, bytes);
}

static void *prefault_main(void *arg) {
    ludus__prefault *pf = arg;
    long page = 4096;
    char *begin = (char *)(((uintptr_t)(pf->base + pf->done) + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1));
    char *end = pf->base + pf->bytes;
    int populate = 1;
    for (char *p = begin; p < end && !__atomic_load_n(&pf->stop, __ATOMIC_RELAXED); p += STEP) {
        size_t n = (size_t)(end - p) < STEP ? (size_t)(end - p) & ~(size_t)(page - 1) : STEP;
        if (n == 0) break;
        if (populate && madvise(p, n, MADV_POPULATE_WRITE) != 0) populate = 0;
        if (!populate)
            for (size_t k = 0; k < n; k += (size_t)page) __atomic_fetch_add(p + k, (char)0, __ATOMIC_RELAXED);
        __atomic_store_n(&pf->done, (size_t)(p + n - pf->base), __ATOMIC_RELAXED);
    }
    __atomic_store_n(&pf->finished, 1, __ATOMIC_RELEASE);
    return NULL;
}

ludus__prefault *ludus__prefault_start(void *p, size_t bytes, size_t from) {
    if (from >= bytes) return NULL; /* all in already */
    ludus__prefault *pf = calloc(1, sizeof *pf);
    if (!pf) return NULL;
    pf->base = p;
    pf->bytes = bytes;
    pf->done = from;
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
        free(pf);
        return NULL;
    }
    return pf;
}

void ludus__prefault_request_stop(ludus__prefault *pf) {
    if (pf) __atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
}

void ludus__prefault_stop(ludus__prefault *pf) {
    if (!pf) return;
    __atomic_store_n(&pf->stop, 1, __ATOMIC_RELAXED);
    while (!__atomic_load_n(&pf->finished, __ATOMIC_ACQUIRE)) sched_yield(); /* at most one 2 MiB step */
    free(pf);
}

void ludus__prefault_after_fork(ludus__prefault *pf) {
    if (pf) __atomic_store_n(&pf->finished, 1, __ATOMIC_RELEASE);
}

size_t ludus__prefault_done(const ludus__prefault *pf) {
    return pf ? __atomic_load_n(&pf->done, __ATOMIC_RELAXED) : 0;
}
