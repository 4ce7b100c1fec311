/* The GPU store's side for the session (gpu.c): what a capture's begin,
 * end, snapshot, fork and crash do to the samples handed over while it runs. */
#ifndef LUDUS_GPU_STORE_H
#define LUDUS_GPU_STORE_H

#include "../capture/capture_model.h"

/* Session side: a capture begins (start: CLOCK_MONOTONIC ns) and ends (its
 * GPU data moves into c, placed). */
LUDUS_HIDDEN void ludus__gpu_capture_begin(int64_t start_ns, int record);
LUDUS_HIDDEN void ludus__gpu_capture_end(ludus_capture *c);
/* A flight recorder's GPU data (ring_snapshot.c): the store forgets what
 * was submitted before c's start, and a copy of the rest goes into c,
 * placed (none when out of memory). */
LUDUS_HIDDEN void ludus__gpu_ring_copy(ludus_capture *c);
/* The child's side of fork (session.c): the store restarts empty, for the
 * child's capture when capture is 1 (start: its CLOCK_MONOTONIC start). */
LUDUS_HIDDEN void ludus__gpu_after_fork(int capture, int64_t start_ns);
/* In the copy writing a crash: the store's lock made anew; when a thread
 * held it, the running capture's GPU samples are left out (gpu.c). */
LUDUS_HIDDEN void ludus__gpu_crashed(void);

#endif
