/* Memory for the chunk pool: reserved pages, touched ahead of the producers
 * by a background thread so starting a capture of any size returns at once
 * and recording rarely takes a page fault (posix_pages.c). */
#ifndef LUDUS_PAGES_H
#define LUDUS_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* Anonymous read-write pages, not touched; NULL on failure. */
LUDUS_HIDDEN void *ludus__pages_map(size_t bytes);
LUDUS_HIDDEN void ludus__pages_unmap(void *p, size_t bytes);

/* Faults [p, p + bytes) in on the calling thread, contents unchanged. */
LUDUS_HIDDEN void ludus__pages_touch(void *p, size_t bytes);

/* Faults [p + from, p + bytes) in from a background thread, front to back,
 * without changing its contents (producers may already be writing there),
 * staying at most 8 MiB ahead of *cursor (the offset the producers have
 * taken up to). NULL when there is nothing to do or no thread could be
 * started (then the producers fault the pages in). */
typedef struct ludus__prefault ludus__prefault;
LUDUS_HIDDEN ludus__prefault *ludus__prefault_start(void *p, size_t bytes, size_t from, const uint64_t *cursor);
/* From the pool's out-of-line path, after the cursor moved to `cursor`:
 * wakes the thread when it asked to be woken by then (a load and a
 * compare otherwise; the post is async-signal-safe). */
LUDUS_HIDDEN void ludus__prefault_nudge(ludus__prefault *pf, uint64_t cursor);
/* Asks the thread to stop after its current step (does not wait); it reads
 * the cursor no more once this returns. */
LUDUS_HIDDEN void ludus__prefault_request_stop(ludus__prefault *pf);
/* Stops the thread, waits for it, frees pf; NULL is a no-op. */
LUDUS_HIDDEN void ludus__prefault_stop(ludus__prefault *pf);
/* In a child after fork: the thread is not there; pf can be stopped (and
 * freed) without waiting for it. */
LUDUS_HIDDEN void ludus__prefault_after_fork(ludus__prefault *pf);
/* Bytes faulted in so far (for measurements). */
LUDUS_HIDDEN size_t ludus__prefault_done(const ludus__prefault *pf);

#endif
