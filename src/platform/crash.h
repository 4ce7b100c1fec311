/* What crash capture needs from the OS (linux_crash.c, win32_crash.c).
 * Linux: handlers for the signals of a crash (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT) that, in the thread that crashed, run the writer in a
 * copy of the process (a child of a raw fork: one thread, the crashed
 * process's memory, none of its locks shared with a thread that could
 * release them), wait for it a bounded time, and then let the crash go on
 * as it would have: the handler the program had before runs, or the
 * default action (core dump, exit status). A thread that crashes while
 * another's capture is written waits for it, then goes on the same way. The
 * handler itself is async-signal-safe; the writer runs in the child.
 * Windows: an unhandled-exception filter (and a SIGABRT handler for abort)
 * runs the writer on a thread of its own (a stack overflow leaves the
 * crashed thread none), in the process, waits for it a bounded time, then
 * passes the exception to the filter the program had. */
#ifndef LUDUS_CRASH_PLATFORM_H
#define LUDUS_CRASH_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* Writes the capture; 0 when it did. at_ns: when the signal came
 * (CLOCK_MONOTONIC). in_copy: 1 in a copy of the crashed process (Linux:
 * one thread, nothing to wait for), 0 in the crashed process itself
 * (Windows: its other threads still run). */
typedef int (*ludus__crash_writer)(int signo, uint64_t tid, int64_t at_ns, int in_copy);

/* 0, or -1 when the handlers could not be installed (unsupported here:
 * -2). One writer at a time; installing again replaces writer and
 * timeout. The calling thread gets an alternate signal stack when it has
 * none, so that a stack overflow on it is caught too. */
LUDUS_HIDDEN int ludus__crash_install(ludus__crash_writer writer, uint32_t timeout_ms);
/* Puts the program's handlers back. */
LUDUS_HIDDEN void ludus__crash_uninstall(void);
/* Gives the calling thread an alternate signal stack when it has none
 * (freed when it exits), so that a stack overflow on it is caught: the
 * recorder calls it when a thread registers while the handlers are in. */
LUDUS_HIDDEN void ludus__crash_thread_setup(void);
/* "SIGSEGV" and the like ("signal" for one it does not name). */
LUDUS_HIDDEN const char *ludus__crash_signal_name(int signo);
/* write(2) to stderr: async-signal-safe. */
LUDUS_HIDDEN void ludus__crash_say(const char *text, size_t n);

/* The tests' seam into the Windows crash path (NULL in normal use; the
 * POSIX handler never calls it): CLAIMED, in the first crashing thread,
 * once it holds the write and before its writer thread starts; WRITE, in
 * the writer thread before the writer runs; SECOND, in a thread that
 * crashed while that write is under way, before it waits for it
 * (tests/ports/windows_crash_race.c). */
enum { LUDUS__CRASH_HOOK_CLAIMED, LUDUS__CRASH_HOOK_WRITE, LUDUS__CRASH_HOOK_SECOND };
LUDUS_HIDDEN extern void (*ludus__crash_hook)(int step);

#endif
