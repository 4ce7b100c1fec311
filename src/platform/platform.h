/* Platform layer: the only place that includes OS headers. Clocks, TSC
 * calibration, the asymmetric barrier, thread identity, aligned memory and
 * files. One implementation per OS (linux.c today). */
#ifndef LUDUS_PLATFORM_H
#define LUDUS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#define LUDUS_HIDDEN __attribute__((visibility("hidden")))

/* CLOCK_MONOTONIC in integer nanoseconds. */
LUDUS_HIDDEN int64_t ludus__mono_ns(void);
/* 1 when the CPU has an invariant TSC that the inline hot path can read. */
LUDUS_HIDDEN int ludus__tsc_invariant(void);
LUDUS_HIDDEN uint64_t ludus__read_tsc(void);
/* The TSC read after every earlier load has completed (lfence; rdtsc): an
 * event that follows what another thread published is stamped after it. */
LUDUS_HIDDEN uint64_t ludus__read_tsc_ordered(void);

/* One calibration point: a TSC read bracketed by the tightest pair of
 * monotonic reads found in a few tries; ns is the midpoint. */
typedef struct ludus__calib_point {
    uint64_t ticks;
    int64_t ns;
    int64_t window_ns; /* width of the bracketing monotonic reads */
} ludus__calib_point;
LUDUS_HIDDEN ludus__calib_point ludus__calibrate_point(void);

/* Asymmetric barrier. register returns 1 when membarrier(PRIVATE_EXPEDITED)
 * is usable; barrier then acts as a full fence on every thread of the
 * process that is running. */
LUDUS_HIDDEN int ludus__membarrier_register(void);
LUDUS_HIDDEN void ludus__membarrier(void);

LUDUS_HIDDEN uint64_t ludus__os_tid(void);
LUDUS_HIDDEN int ludus__os_pid(void);
LUDUS_HIDDEN void ludus__yield(void);
LUDUS_HIDDEN void ludus__cpu_relax(void);

LUDUS_HIDDEN void *ludus__aligned_alloc(size_t size, size_t alignment);
LUDUS_HIDDEN void ludus__aligned_free(void *p);

/* Files: writes go to "<path>.tmp" and are renamed into place on commit. */
typedef struct ludus__file {
    int fd;
    char *tmp_path;
    char *final_path;
} ludus__file;
LUDUS_HIDDEN int ludus__file_create(ludus__file *f, const char *path);
LUDUS_HIDDEN int ludus__file_write(ludus__file *f, const void *data, size_t n);
LUDUS_HIDDEN int ludus__file_commit(ludus__file *f); /* fsync-free close + rename */
LUDUS_HIDDEN void ludus__file_abort(ludus__file *f); /* close + unlink the temp */

/* Thread-exit hook: fn(arg) runs when the calling thread exits. */
LUDUS_HIDDEN int ludus__on_thread_exit(void (*fn)(void *), void *arg);

/* Process name (from /proc/self/comm where available). */
LUDUS_HIDDEN void ludus__process_name(char *out, size_t cap);

#endif
