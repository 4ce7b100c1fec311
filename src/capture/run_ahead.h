/* A thread's runs loaded ahead on a library thread (run_ahead.c): while
 * the normaliser and the pass read one run of a capture file, the next ones are
 * read, checked and decoded on another core. What a reader gets is what
 * the source's load_run gives, in the same order, errors included. */
#ifndef LUDUS_RUN_AHEAD_H
#define LUDUS_RUN_AHEAD_H

#include "capture_build.h"

typedef struct ludus__run_ahead ludus__run_ahead;

/* Starts loading the n runs from cursor on a library thread. NULL where
 * it does not (LUDUS_READ_AHEAD=0, fewer than 2 runs, no memory or thread):
 * then the caller loads them itself. */
LUDUS_HIDDEN ludus__run_ahead *ludus__run_ahead_start(const ludus_capture *c, uint64_t cursor, uint64_t n);
/* The next run, valid until the next take or the stop, and the cursor
 * after it; 0, or the LUDUS_E* code its loading failed with (the detail
 * set on the calling thread, as load_run sets it). */
LUDUS_HIDDEN int ludus__run_ahead_take(ludus__run_ahead *a, ludus__run *out, uint64_t *cursor);
/* Stops the thread (after the run it is loading) and frees everything. */
LUDUS_HIDDEN void ludus__run_ahead_stop(ludus__run_ahead *a);

#endif
