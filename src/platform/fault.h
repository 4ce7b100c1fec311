/* Fault injection for the tests (SQLite's test_malloc): the n-th
 * allocation (ludus__malloc and friends) or the n-th file write
 * (ludus__file_write) the arming thread makes from now on fails, once. Per
 * thread, so other threads of the library never shift the count and a sweep
 * over n is deterministic. Off (0) in normal use: one thread-local load per
 * allocation or write. */
#ifndef LUDUS_FAULT_H
#define LUDUS_FAULT_H

#include <stdint.h>

#include "platform.h"

enum { LUDUS__FAULT_ALLOC = 0, LUDUS__FAULT_WRITE = 1, LUDUS__FAULT_KINDS };

/* Arms (n >= 1) or disarms (0) the calling thread's fault of this kind; the count restarts. */
LUDUS_HIDDEN void ludus__fault_set(int kind, uint64_t n);
/* Calls of that kind the thread made since it was armed. */
LUDUS_HIDDEN uint64_t ludus__fault_calls(int kind);
/* 1 when the armed call came (and failed). */
LUDUS_HIDDEN int ludus__fault_fired(int kind);
/* Called when an armed call fails (a test's backtrace), when set. */
LUDUS_HIDDEN extern void (*ludus__fault_hook)(int kind);
/* For the seams: 1 when this call is to fail. */
LUDUS_HIDDEN int ludus__fault_now(int kind);

#endif
