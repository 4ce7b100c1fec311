/* Work split over the machine's cores (parallel.c): fn(arg, worker, i) for
 * every i below n, on the calling thread (worker 0) and up to threads - 1
 * library threads (workers 1 ..) that take the next i as each finishes
 * one. For work whose items write only their own results: the caller reads
 * them after the return. A worker runs one item at a time, so its scratch
 * (ludus__scratch, by worker) is its own. */
#ifndef LUDUS_PARALLEL_H
#define LUDUS_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "../platform/alloc.h"
#include "../platform/platform.h"

/* threads: at most this many (the calling thread included; capped by the
 * processors online and by n: ludus__parallel_workers); 1, or a thread
 * that cannot start, runs the rest on the calling thread, in order. */
#define LUDUS__PARALLEL_MAX 16u
LUDUS_HIDDEN void ludus__parallel_for(uint32_t n, unsigned threads, void (*fn)(void *arg, unsigned worker, uint32_t i),
                                      void *arg);
/* The workers ludus__parallel_for(n, threads, ...) runs on at most (1 or more). */
LUDUS_HIDDEN unsigned ludus__parallel_workers(uint32_t n, unsigned threads);

/* Scratch per worker, allocated on the calling thread before the work (its
 * heap takes it back after, as it would a buffer of its own). */
typedef struct ludus__scratch {
    void *p[LUDUS__PARALLEL_MAX];
} ludus__scratch;

/* 0, or -1 when out of memory (then ludus__scratch_free all the same). */
static inline int ludus__scratch_alloc(ludus__scratch *s, unsigned workers, size_t bytes) {
    for (unsigned k = 0; k < workers && k < LUDUS__PARALLEL_MAX; k++)
        if ((s->p[k] = ludus__malloc(bytes ? bytes : 1)) == NULL) return -1;
    return 0;
}
static inline void ludus__scratch_free(ludus__scratch *s) {
    for (unsigned k = 0; k < LUDUS__PARALLEL_MAX; k++) {
        ludus__free(s->p[k]);
        s->p[k] = NULL;
    }
}

#endif
