/* Platform layer: the only place that includes OS headers. Clocks, TSC
 * calibration, the asymmetric barrier, thread identity, aligned memory and
 * files. Split by capability, files picked by name (CMake and
 * scripts/amalgamate.py): cpu_x86_64.c, cpu_arm64.c, cpu_other.c (the CPU's
 * counter, each for its CPU), clock.c and alloc.c (portable), posix.c and
 * posix_*.c (POSIX systems), linux.c and linux_*.c (Linux only: membarrier,
 * /proc, clone), win32.c and win32_*.c (Windows). */
#ifndef LUDUS_PLATFORM_H
#define LUDUS_PLATFORM_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define LUDUS_HIDDEN /* a DLL exports only what it declares exported */
#else
#define LUDUS_HIDDEN __attribute__((visibility("hidden")))
#endif
/* Retired: libludus.so exports no internal entry point (the analysis
 * library takes a private copy of what it shares with the runtime, CMake's
 * ludus_analysis_shared). The declarations of the capture headers keep the
 * word until that header's split; it means LUDUS_HIDDEN. */
#define LUDUS__SIBLING LUDUS_HIDDEN

/* 1 in a build under ThreadSanitizer (gcc's macro, clang's feature test). */
#if defined(__SANITIZE_THREAD__)
#define LUDUS__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LUDUS__TSAN 1
#endif
#endif

/* CLOCK_MONOTONIC in integer nanoseconds. */
LUDUS_HIDDEN int64_t ludus__mono_ns(void);
/* The calling thread's CPU time (user + system) in ns, or -1 when the OS
 * cannot say. A system call on Linux (no vDSO for the thread clock): read
 * once per frame, never on a scope's path. */
LUDUS_HIDDEN int64_t ludus__thread_cpu_ns(void);
/* 1 when the CPU has a constant-rate counter that the inline hot path can
 * read: an invariant TSC (x86-64), the virtual counter CNTVCT_EL0 (AArch64).
 * The "tsc" names below mean that counter. */
LUDUS_HIDDEN int ludus__tsc_invariant(void);
/* x86-64: 1 when the CPU has SSE 4.2 (its crc32 instruction), from cpuid: no
 * compiler runtime (__builtin_cpu_supports needs libgcc's or compiler-rt's). */
LUDUS_HIDDEN int ludus__cpu_has_sse42(void);
/* The counter's frequency where the architecture states it (CNTFRQ_EL0 on
 * AArch64), else 0 (the TSC's is measured). */
LUDUS_HIDDEN uint64_t ludus__counter_hz(void);
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
/* The environment variable name, or NULL when unset or when the process
 * runs set-user-ID or set-group-ID (or with other added privileges: Linux's
 * AT_SECURE): a privileged program never takes its switches (LUDUS_TRACE,
 * LUDUS_LIVE, ...) from the environment of whoever started it. Every
 * variable the libraries read goes through here. */
LUDUS_HIDDEN const char *ludus__getenv(const char *name);
/* The machine's physical memory in bytes (0: not known). */
LUDUS_HIDDEN uint64_t ludus__phys_bytes(void);
/* The processors online (1 when not known). */
LUDUS_HIDDEN unsigned ludus__cpu_count(void);
LUDUS_HIDDEN void ludus__yield(void);
LUDUS_HIDDEN void ludus__cpu_relax(void);

LUDUS_HIDDEN void *ludus__aligned_alloc(size_t size, size_t alignment);
LUDUS_HIDDEN void ludus__aligned_free(void *p);

/* Export files (posix_file.c). create resolves the destination once and picks
 * one of the ways below; the struct carries only what commit needs.
 *
 * Descriptor names ("/dev/stdout", "/dev/stderr", "/dev/fd/N", "/proc/self/fd/N")
 * write to a dup of that descriptor: a tty, a pipe and a file the shell
 * redirected all get the bytes at their offset, and no /dev link is renamed over.
 *
 * A FIFO or character device (after following symlinks) is opened in place,
 * without O_CREAT/O_TRUNC: renaming a regular file over /dev/null as root breaks
 * the system, and a FIFO's reader waits on that FIFO. Other non-regular targets
 * (block devices, sockets) are refused with -EINVAL; a directory with -EISDIR.
 *
 * Symlinks, chains of them and dangling ones are followed, never replaced: the
 * temporary is made in the final target's directory and renamed onto it, so
 * the link stays a link and whoever made it still sees the file through it; a
 * dangling link creates its target. */
typedef struct ludus__file {
    int fd;     /* what write() goes to */
    char *dest; /* resolved regular-file destination; NULL when written in place */
    char *tmp;  /* named temporary; NULL while an O_TMPFILE file is unnamed, or in place */
} ludus__file;
/* Regular files get a temporary private to the writer and renamed on commit:
 * readers never see a torn file, and two processes (a parent and its forked
 * child) exporting to one path end with one whole file, not a mix. It is
 * unnamed (O_TMPFILE) until commit, so a killed export leaves nothing; without
 * O_TMPFILE it is ".<base>.<pid>.<n>.ludus-tmp" and create removes such names
 * whose pid is dead. New files: 0666 & ~umask, as fopen; a replaced file keeps
 * its permission bits (and owner, where allowed). */
LUDUS_HIDDEN int ludus__file_create(ludus__file *f, const char *path);
/* Retries EINTR and short writes; EAGAIN (a full non-blocking pipe) is an
 * error, not a loop that spins until the reader catches up. */
LUDUS_HIDDEN int ludus__file_write(ludus__file *f, const void *data, size_t n);
/* create/write/commit return 0 or a negative errno, so a caller can say why
 * (ludus__os_strerror). A failed create holds nothing; commit (fsync-free
 * close + rename, or close in place) and abort (close; a named temporary is
 * unlinked) release everything, whatever they return. */
LUDUS_HIDDEN int ludus__file_commit(ludus__file *f);
LUDUS_HIDDEN void ludus__file_abort(ludus__file *f);
/* A file that must keep what was written if the process dies (a streamed
 * capture, src/session/stream.c): a regular file created or truncated at
 * path itself, no temporary (symlinks followed); anything else there is
 * refused (-EINVAL, -EISDIR). Closed with ludus__file_commit. */
LUDUS_HIDDEN int ludus__file_create_direct(ludus__file *f, const char *path);
/* Writes n bytes at offset off (the file's size and position unchanged
 * otherwise); 0 or a negative errno. */
LUDUS_HIDDEN int ludus__file_write_at(ludus__file *f, uint64_t off, const void *data, size_t n);
/* Test hook: nonzero makes create skip O_TMPFILE and take the named fallback. */
LUDUS_HIDDEN extern int ludus__file_no_tmpfile;

/* Text for an errno value (either sign) into buf, always terminated. Thread-safe
 * (strerror_r, GNU or XSI flavour, whichever libc gives), so a message like
 * "cannot create trace.json: Permission denied" can come from any thread. */
LUDUS_HIDDEN void ludus__os_strerror(int err, char *buf, size_t cap);

/* Thread-exit hook: fn(arg) runs when the calling thread exits (TRACY: the
 * Tracy backend's zone stack, src/backend/tracy.c). */
enum { LUDUS__EXIT_RECORDER, LUDUS__EXIT_COUNTERS, LUDUS__EXIT_TRACY, LUDUS__EXIT_ALTSTACK, LUDUS__EXIT_HOOKS };
LUDUS_HIDDEN int ludus__on_thread_exit(int which, void (*fn)(void *), void *arg);

/* Process name (from /proc/self/comm where available). */
LUDUS_HIDDEN void ludus__process_name(char *out, size_t cap);

#if defined(_WIN32)
/* The errno value nearest GetLastError() (positive; EIO for the rest);
 * _of: of an error code taken before (a DWORD). */
LUDUS_HIDDEN int ludus__win32_errno(void);
LUDUS_HIDDEN int ludus__win32_errno_of(unsigned long error);
#endif

#endif
