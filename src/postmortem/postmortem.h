/* The post-mortem paths' side for the rooms above (crash.c): what a crash
 * leaves on a capture, the flight recorder's crash hook, the "%p" of an
 * output path. */
#ifndef LUDUS_POSTMORTEM_H
#define LUDUS_POSTMORTEM_H

#include "../capture/capture_model.h"

/* Set by a rolling window while it runs: writes the window into its
 * directory in a crash's child (reason "crash-<signal>"); *path the file. */
LUDUS_HIDDEN extern int (*ludus__crash_rolling)(int signo, uint64_t tid, int64_t at_ns, int in_copy, char *path,
                                                size_t cap);
/* Marks c as ended by signo in thread tid at at_ns (CLOCK_MONOTONIC). */
LUDUS_HIDDEN void ludus__capture_mark_crash(ludus_capture *c, int signo, uint64_t tid, int64_t at_ns);
/* pattern with "%p" replaced by pid. */
LUDUS_HIDDEN void ludus__expand_pid(const char *pattern, int pid, char *out, size_t cap);

#endif
