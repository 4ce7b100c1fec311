/* What the rolling window's background threads need from the OS: a wakeup a
 * signal handler may post, a signal that triggers (chained to the
 * program's handler), a hook in the child of a fork, a lower priority, the
 * wall clock and local time, a short sleep (posix_background.c,
 * win32_background.c). Threads and locks are pthreads on both. */
#ifndef LUDUS_BACKGROUND_H
#define LUDUS_BACKGROUND_H

#include <stdint.h>
#include <time.h>

#include "platform.h"

/* A counting semaphore (storage for the OS's own). */
typedef struct ludus__wakeup {
    union {
        void *handle;
        unsigned char bytes[64];
        long double align;
    } u;
} ludus__wakeup;
LUDUS_HIDDEN int ludus__wakeup_init(ludus__wakeup *w);
LUDUS_HIDDEN void ludus__wakeup_destroy(ludus__wakeup *w);
/* Async-signal-safe. */
LUDUS_HIDDEN void ludus__wakeup_post(ludus__wakeup *w);
/* Returns after a post or timeout_ns, whichever is first; a negative
 * timeout_ns waits for a post however long it takes. */
LUDUS_HIDDEN void ludus__wakeup_wait(ludus__wakeup *w, int64_t timeout_ns);

/* The signal that triggers by default (SIGUSR2), or 0 where there is none. */
LUDUS_HIDDEN int ludus__trigger_signal_default(void);
/* 1 when signo can be caught (not SIGKILL or SIGSTOP, in range). */
LUDUS_HIDDEN int ludus__trigger_signal_valid(int signo);
/* Installs fn for signo; after fn the handler the program had runs, and
 * restore puts it back. One at a time. 0, or -1 when it could not. */
LUDUS_HIDDEN int ludus__trigger_signal_install(int signo, void (*fn)(void));
LUDUS_HIDDEN void ludus__trigger_signal_restore(void);

/* fn runs in the child after fork (registered once; no-op where there is
 * no fork). */
LUDUS_HIDDEN void ludus__at_fork_child(void (*fn)(void));
/* The calling thread runs when a CPU is idle, where the OS offers that. */
LUDUS_HIDDEN void ludus__thread_background(void);
/* Wall-clock time in ns since 1970, and its local calendar time. */
LUDUS_HIDDEN int64_t ludus__wall_ns(void);
LUDUS_HIDDEN void ludus__local_time(int64_t wall_ns, struct tm *out);
LUDUS_HIDDEN void ludus__sleep_ns(int64_t ns);

#endif
