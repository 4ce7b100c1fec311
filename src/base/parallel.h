/* Work split over the machine's cores (parallel.c): fn(arg, worker, i) for
 * every i below n, on the calling thread (worker 0) and up to threads - 1
 * library threads (workers 1 ..) that take the next i as each finishes
 * one. For work whose items write only their own results: the caller reads
 * them after the return. A worker runs one item at a time, so its scratch
 * (indexed by worker) is its own. */
#ifndef LUDUS_PARALLEL_H
#define LUDUS_PARALLEL_H

#include <stddef.h>
#include <stdint.h>

#include "../platform/platform.h"

/* threads: at most this many (the calling thread included; capped by the
 * processors online and by n: ludus__parallel_workers); 1, or a thread
 * that cannot start, runs the rest on the calling thread, in order. */
#define LUDUS__PARALLEL_MAX 16u
LUDUS_HIDDEN void ludus__parallel_for(uint32_t n, unsigned threads, void (*fn)(void *arg, unsigned worker, uint32_t i),
                                      void *arg);
/* The workers ludus__parallel_for(n, threads, ...) runs on at most (1 or more). */
LUDUS_HIDDEN unsigned ludus__parallel_workers(uint32_t n, unsigned threads);

#endif
