/* Work split over the machine's cores (parallel.c): fn(arg, i) for every i
 * below n, on the calling thread and up to threads - 1 library threads
 * that take the next i as each finishes one. For work whose items write
 * only their own results: the caller reads them after the return. */
#ifndef LUDUS_PARALLEL_H
#define LUDUS_PARALLEL_H

#include <stdint.h>

#include "../platform/platform.h"

/* threads: at most this many (the calling thread included; capped by the
 * processors online); 1, or a thread that cannot start, runs the rest on
 * the calling thread, in order. */
LUDUS_HIDDEN void ludus__parallel_for(uint32_t n, unsigned threads, void (*fn)(void *arg, uint32_t i), void *arg);

#endif
