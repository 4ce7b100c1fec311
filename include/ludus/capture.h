/* Ludus Profiling: capture control, thread registration, capture objects,
 * export and errors.
 *
 * Control calls (begin, end) are made from one coordinating thread, or
 * serialised by the caller. Producer threads may keep emitting across any of
 * them. A capture object is used by one thread at a time; two threads may
 * use two captures (or a capture and a cut of it) at once. Every call that
 * can fail returns 0 or a negative LUDUS_E* code; ludus_error_string() names
 * it and ludus_last_error_detail() gives this thread's detail for the last
 * failure (which file, which offset). */
#ifndef LUDUS_CAPTURE_H
#define LUDUS_CAPTURE_H

#include <ludus/profiling.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LUDUS_VERSION_STRING "0.3.0"

/* Error codes: one table, X(name, value, message). */
#define LUDUS_ERRORS(X)                                         \
    X(LUDUS_OK, 0, "success")                                   \
    X(LUDUS_EBUSY, -1, "a capture is already active")           \
    X(LUDUS_EOVERFLOW, -2, "the requested pool size overflows") \
    X(LUDUS_ENOMEM, -3, "out of memory")                        \
    X(LUDUS_EINVAL, -4, "invalid argument")                     \
    X(LUDUS_ENOCAPTURE, -5, "no capture is active")             \
    X(LUDUS_ENODATA, -6, "no data")                             \
    X(LUDUS_EIO, -7, "I/O error")                               \
    X(LUDUS_EFORMAT, -8, "malformed input")                     \
    X(LUDUS_EUNSUPPORTED, -9, "not supported on this machine")  \
    X(LUDUS_ETHREADS, -10, "the thread table is full")

enum ludus_error {
#define LUDUS__ERROR_ENUM(name, value, message) name = value,
    LUDUS_ERRORS(LUDUS__ERROR_ENUM)
#undef LUDUS__ERROR_ENUM
};

/* ludus_error_string(code): the code's static text (<ludus/profiling.h>). */
/* This thread's detail for its last failed call ("" when none). */
LUDUS_API const char *ludus_last_error_detail(void);

/* Clock that timestamps events. */
enum ludus_clock {
    LUDUS_CLOCK_AUTO = 0,      /* TSC where invariant (x86-64), else monotonic */
    LUDUS_CLOCK_MONOTONIC = 1, /* clock_gettime(CLOCK_MONOTONIC) */
    LUDUS_CLOCK_TSC = 2        /* invariant TSC; begin fails with EUNSUPPORTED without it */
};

/* How end joins producers that are mid-event. */
enum ludus_join {
    LUDUS_JOIN_AUTO = 0, /* asymmetric barrier (membarrier) where available, else fence */
    LUDUS_JOIN_FENCE = 1 /* every event takes the out-of-line path and pays a fence */
};

/* Allocation hook for the chunk pool (sokol-style): NULL (both) maps pages. */
typedef struct ludus_allocator {
    void *(*alloc)(size_t size, size_t alignment, void *user_data);
    void (*free)(void *ptr, void *user_data);
    void *user_data;
} ludus_allocator;

/* Zero-initialise, set what you need; every 0 field takes its default. */
struct ludus_capture_desc {
    uint32_t chunk_bytes;   /* largest piece a thread takes, a power of two in [4096, 2^30]; default 65536 */
    uint32_t chunk_count;   /* pool = chunk_count x chunk_bytes; default 256 (16 MiB) */
    const char *categories; /* comma-separated enabled categories; NULL = all.
                               Sites without a category are always kept. Events of
                               other categories are discarded when the capture is read
                               and counted as "filtered" (not a loss). */
    int clock;              /* enum ludus_clock; default LUDUS_CLOCK_AUTO */
    int join;               /* enum ludus_join; default LUDUS_JOIN_AUTO */
    ludus_allocator allocator;
    const char *pool_file; /* NULL: the pool is memory. A path: the pool is that file, mapped shared, so
                              after kill -9 (or any death) the file holds every event recorded up to
                              then: `ludus-trace recover FILE OUT` (ludus_capture_recover) reads it back.
                              The file is new: anything at the path (a file, a link, dangling or not)
                              is never followed, truncated or replaced (begin fails, LUDUS_EIO); it is
                              readable by its owner only, and its blocks are reserved at begin (a disk
                              without room fails begin, LUDUS_EIO, never a fault at a store). Removed
                              when the capture is released, and at exit (exit, return from main) when
                              it is not; a process that dies (a signal, kill -9, _exit) leaves it.
                              Linux and Windows; not with the rolling window (LUDUS_EINVAL). */
    /* What it records: LUDUS_RECORD_CPU (the recorder: scopes, frames, counters, memory, locks, logs,
       flows, async zones), LUDUS_RECORD_GPU (what ludus_gpu_submit and ludus_gpu_calibrate hand over),
       or both; 0: both. A GPU-only capture leaves the recorder disarmed (a scope costs what it costs
       with no capture, and nothing of the CPU is in the capture); a CPU-only one takes GPU samples
       and drops them, returning 0 (not a loss: nothing is counted). */
    uint32_t record;
    /* Where the pool's pages are first touched (the kernel's page faults: bench/RESULTS.md, "Faulting
       the pool in"): LUDUS_PREFAULT_AHEAD, a library thread a few MiB ahead of the producers while the
       pool fills, then none (it competes with the program for a core while it works);
       LUDUS_PREFAULT_AT_BEGIN, begin touches the whole pool before it returns (its caller pays, once;
       no library thread runs); LUDUS_PREFAULT_NONE, each producer faults the pages it first writes.
       0: AHEAD (AT_BEGIN for the rolling window, whose whole pool is always written). A pool reused from
       the previous capture is in already, whichever is asked. */
    int prefault;
    /* NULL: the capture keeps its events in the pool until it ends. A path: a streamed capture. Each
       piece a thread fills goes to a library thread that appends it to this file (created or truncated
       there, written in place) and gives it back to the pool, so a capture of any length runs in the
       pool (chunk_count's default is then 1024: 64 MiB); it drops only when the disk cannot keep up
       (counted as every loss; ludus_capture_get_stream_result says the write rate it needed). The writer
       wakes when a piece is full, never on a timer. ludus_capture_end writes the last pieces, the tables
       and the summary, and hands back no capture: ludus_capture_open(path) reads the file. After kill -9
       or a crash the file holds every block written (docs/format.md, "Streamed files"). POSIX only
       (LUDUS_EUNSUPPORTED elsewhere); not with pool_file or the rolling window (LUDUS_EINVAL). */
    const char *stream_path;
};
#define LUDUS_RECORD_CPU 1u
#define LUDUS_RECORD_GPU 2u
enum ludus_prefault { LUDUS_PREFAULT_AHEAD = 1, LUDUS_PREFAULT_AT_BEGIN = 2, LUDUS_PREFAULT_NONE = 3 };

/* What the last streamed capture (ludus_capture_desc.stream_path) wrote, once it ended. */
typedef struct ludus_stream_result {
    uint64_t events;            /* events written to the file */
    uint64_t dropped;           /* events lost: the pool was full (the disk fell behind) and every other loss */
    uint64_t bytes;             /* the file's size */
    uint64_t blocks;            /* event blocks written */
    int64_t duration_ns;        /* the capture's length */
    double written_bytes_per_s; /* bytes / duration */
    double needed_bytes_per_s;  /* the write rate that would have kept the dropped events too (0: none dropped) */
    int error;                  /* 0, or LUDUS_EIO: a write failed; the file holds what was written before */
} ludus_stream_result;
/* The last streamed capture's result: 0 and *out filled, or LUDUS_ENODATA when no streamed capture has ended,
 * LUDUS_EINVAL for NULL. */
LUDUS_API int ludus_capture_get_stream_result(ludus_stream_result *out);

/* Reads back the values a desc resolves to (defaults applied); in may be
 * NULL (all defaults), out NULL is a no-op. */
LUDUS_API void ludus_capture_desc_defaults(const ludus_capture_desc *in, ludus_capture_desc *out);

/* Starts a capture and arms recording. Fails and stays disarmed with
 * LUDUS_EBUSY (a capture is active), LUDUS_EOVERFLOW, LUDUS_EINVAL,
 * LUDUS_ENOMEM or LUDUS_EUNSUPPORTED. desc may be NULL (defaults). Drops the
 * library's reference to the previous ended capture.
 *
 * Cost: the pool is reserved, not touched (begin returns in about 150 us
 * for any pool size); a background thread faults its pages in, front to
 * back, at most 8 MiB ahead of the threads that fill it (a thread that
 * outruns it takes the page faults itself), so the first events cost what
 * later ones do. A restart whose pool has the size of the previous
 * capture's (and no one holds that capture) reuses its pages: nothing is
 * allocated or touched (about 100 us). The first capture of a process that
 * already has several threads also registers for membarrier once, which the
 * kernel makes wait for an RCU grace period (about 10 ms). bench/RESULTS.md
 * has the figures.
 *
 * Recording: each thread takes pieces of the pool, the first 1 KiB, each
 * next one twice as large up to chunk_bytes, so a thread that records a few
 * events costs 1 KiB. 1/32 of the pool is kept for the ends of scopes whose
 * begins were recorded. When the pool is full, events are dropped and
 * counted per thread (a refused begin counts two: itself and its end),
 * never blocking; the time of each thread's first loss is kept and shown.
 * ludus_capture_begin and ludus_capture_end are in <ludus/profiling.h>, so
 * instrumented code drives a capture with one include. */

/* Launch to exit: with LUDUS_TRACE=PATH in the environment, a program linked
 * with the library (shared or static: instrumented code takes the launch
 * code in, <ludus/profiling.h>) starts a capture when it loads and writes it to PATH at exit,
 * as JSON, Perfetto protobuf or .ludus by PATH's extension. "%p" in PATH is
 * replaced by the process id (a forked child writes its own file).
 * LUDUS_TRACE_CHUNKS sets the pool in 64 KiB chunks (default 1024). Both
 * are checked when the library loads and a bad value is reported then, once,
 * on stderr. The program's own ludus_capture_begin gets LUDUS_EBUSY
 * meanwhile, and a capture the program ends itself is not written.
 * ludus_launch_cancel() ends that capture without writing it (a tool that
 * must never trace itself calls it first). */
LUDUS_API void ludus_launch_cancel(void);

/* 1 while a capture the program began (or LUDUS_TRACE's) is active; a
 * capture the live view records for a watcher is not the program's
 * (docs/live.md, "One owner of the recorder"). */
LUDUS_API int ludus_capture_active(void);

/* ludus_thread_register(name) and ludus_thread_unregister() name the
 * calling thread and end its registration (<ludus/profiling.h>). */

/* ---------------------------------------------------------------------------
 * Capture objects: the last ended capture, a capture file opened from a path
 * or from memory (<ludus/capture_file.h>), or a cut of either. Each holds a
 * reference; release it when done. */

/* A new reference to the last ended capture: LUDUS_ENODATA when none. It
 * stays valid after later captures begin (the library only drops its own
 * reference then; a held capture's pool is not reused). */
LUDUS_API int ludus_capture_last(ludus_capture **out);
LUDUS_API void ludus_capture_retain(ludus_capture *c);
/* NULL is a no-op. */
LUDUS_API void ludus_capture_release(ludus_capture *c);

/* A cut: some threads and/or a time range of a capture, as a capture of its
 * own (it holds a reference to its source). Slices open across a bound are
 * clipped to it and flagged; the cut's counts are what it holds. A range
 * outside the capture, an empty thread list or a bad index is LUDUS_EINVAL. */
typedef struct ludus_cut_desc {
    int time;                /* 1: keep only [from_ns, to_ns] */
    int64_t from_ns, to_ns;  /* since capture start, inclusive */
    const uint32_t *threads; /* thread indexes to keep; NULL: all */
    uint32_t nthreads;
} ludus_cut_desc;
LUDUS_API int ludus_capture_cut(ludus_capture *c, const ludus_cut_desc *cut, ludus_capture **out);

/* Counts of a capture, for reports and tests. */
typedef struct ludus_capture_summary {
    uint32_t threads;                   /* threads with a table entry */
    uint64_t events;                    /* events recorded (payload slots not counted) */
    uint64_t dropped;                   /* events lost (full pool, signal handler nesting, thread table), all threads */
    uint64_t filtered;                  /* events of disabled categories */
    uint64_t incomplete;                /* slices still open at capture end, closed there */
    uint64_t orphan_ends;               /* ends whose begin is not in the capture */
    uint64_t frames;                    /* frame marks */
    int64_t start_ns;                   /* capture start, CLOCK_MONOTONIC ns */
    int64_t end_ns;                     /* capture end, CLOCK_MONOTONIC ns */
    uint32_t chunks_used;               /* pool bytes handed out, in 64 KiB */
    uint32_t interner_drops;            /* run-time names and sites refused while it ran */
    const char *clock_name;             /* "tsc" or "monotonic" */
    uint64_t unwound;                   /* scopes skipped by a non-local exit, closed where that was found */
    uint64_t mismatched;                /* span ends that matched no open span */
    uint64_t nonfinite_counter_samples; /* NaN/inf samples (left out of JSON only) */
    uint64_t unregistered_thread_drops; /* events of threads the thread table refused */
    uint32_t site_id_collisions;
    uint64_t bytes_used;
    uint64_t unknown_events;    /* events of a kind a later version of the library added, and annotations
                                   without their key (damaged): skipped when read */
    uint32_t counters_refused;  /* counters, gauges and memory domains refused while it ran (their tables full) */
    uint64_t counter_adds_lost; /* counts lost while it ran (a thread that got no memory for its shard) */
    /* When events were dropped: a pool of this many bytes would have held every one (the bytes used, the
     * dropped events at the bytes an event took on average, the end reserve and a 64 KiB piece per thread),
     * m x 2^k chunks of 64 KiB (m in 8 .. 15: at most 1/8 above the need): LUDUS_TRACE_CHUNKS=
     * pool_bytes_needed/65536, when this machine takes it (ludus_pool_advice). 0: none dropped. */
    uint64_t pool_bytes_needed;
    uint64_t annotation_texts_cut;    /* annotation texts cut at LUDUS_ANNOTATION_TEXT_MAX bytes (docs/limits.md) */
    uint64_t annotation_keys_dropped; /* annotations of a scope past its 16th key: in no export (docs/limits.md) */
} ludus_capture_summary;
LUDUS_API int ludus_capture_get_summary(ludus_capture *c, ludus_capture_summary *out);

/* The largest pool this machine takes, in 64 KiB chunks (LUDUS_TRACE_CHUNKS's
 * and ludus_capture_desc.chunk_count's bound): 2^24, and half its physical
 * memory. Thread-safe. */
LUDUS_API uint32_t ludus_pool_chunks_max(void);
/* The advice for a capture that dropped, as one sentence (no final period)
 * in buf, NUL-terminated and cut to cap: when pool_bytes_needed (the
 * summary's) is within ludus_pool_chunks_max(), the LUDUS_TRACE_CHUNKS that
 * would have held every event, and returns that chunk count; beyond it, that
 * no pool of this machine would, to record streaming
 * (LUDUS_TRACE_MODE=stream) or cut the session shorter, and returns 0. The
 * machine is the one this runs on. Thread-safe. */
LUDUS_API uint64_t ludus_pool_advice(uint64_t pool_bytes_needed, char *buf, size_t cap);

/* Per-thread counts; index < summary.threads. */
typedef struct ludus_thread_summary {
    char name[64];
    uint64_t tid;
    uint64_t events;
    uint64_t dropped;
    uint64_t incomplete;
    uint64_t orphan_ends;
    int exited; /* the thread exited (or unregistered) during the capture */
    uint64_t unwound;
    uint64_t mismatched;
    int64_t first_drop_ns; /* since capture start; -1 without losses */
    uint32_t span_lanes;   /* lanes its spans needed beside its own track */
} ludus_thread_summary;
/* The capture's threads (summary.threads) and one thread's counts: 0 and
 * *out, or LUDUS_EINVAL past the end (or LUDUS_EFORMAT: a damaged file). */
LUDUS_API uint32_t ludus_capture_thread_count(ludus_capture *c);
LUDUS_API int ludus_capture_thread(ludus_capture *c, uint32_t index, ludus_thread_summary *out);

/* The memory coverage manifest (taken when the capture ended): each memory
 * domain (ludus_memory_domain_register) with since when it is tracked and
 * what it held, then what is known to lie outside every domain (the
 * profiler's own memory, ludus_memory_note_outside). */
typedef struct ludus_memory_coverage {
    const char *name; /* owned by the capture */
    int outside;      /* 1: memory outside every domain (only name and live_bytes) */
    int has_baseline; /* the domain declared what it held before its hooks ran */
    int unknown;      /* a free of memory allocated before tracking: live figures unknown */
    int64_t since_ns; /* registration, relative to capture start (negative: before it) */
    int64_t baseline_bytes, live_bytes, peak_bytes;
    int64_t allocs, frees, alloc_bytes, free_bytes; /* since registration */
} ludus_memory_coverage;
LUDUS_API uint32_t ludus_capture_memory_coverage_count(const ludus_capture *capture);
LUDUS_API int ludus_capture_memory_coverage(const ludus_capture *capture, uint32_t index, ludus_memory_coverage *out);

/* ---------------------------------------------------------------------------
 * Export. Every format goes through a write callback (return 0 on success,
 * non-zero to fail: the export then returns LUDUS_EIO and the capture is
 * kept for a retry) or to a path. */
typedef int (*ludus_write_fn)(void *user_data, const void *data, size_t n);

enum ludus_format {
    LUDUS_FORMAT_JSON = 1,    /* Chrome/Perfetto JSON (ui.perfetto.dev, speedscope, DevTools' Performance panel) */
    LUDUS_FORMAT_PFTRACE = 2, /* Perfetto protobuf (.pftrace): several times smaller */
    LUDUS_FORMAT_LUDUS = 3    /* native capture file: the input of ludus-trace */
};
/* The format a path's extension names (.json, .pftrace / .perfetto-trace,
 * .ludus), or 0. */
LUDUS_API int ludus_format_from_path(const char *path);

/* flags: LUDUS_SAVE_RAW writes .ludus event blocks as recorded (a memory
 * copy; compact delta/varint blocks are the default, 4-8x smaller: 2.6 B/event on a
 * frame-like loop, 4.5 on the demo; bench/RESULTS.md). */
#define LUDUS_SAVE_RAW 1u
/* LUDUS_SAVE_UNCOMPRESSED: compact blocks as they are. A library built with
 * zstd (LUDUS_ZSTD, the default where libzstd is found) compresses them by
 * default (0.3-0.6 B/event on a frame-like loop); a build without zstd
 * never compresses, and reads a compressed file as LUDUS_EFORMAT ("built
 * without zstd"). */
#define LUDUS_SAVE_UNCOMPRESSED 2u

/* LUDUS_ENODATA for a capture without events (nothing written), LUDUS_EIO on
 * a write failure, LUDUS_EFORMAT when a capture file's block is damaged. */
LUDUS_API int ludus_capture_write(ludus_capture *c, int format, unsigned flags, ludus_write_fn write, void *user_data);
/* To a path; format 0: the one its extension names (ludus_format_from_path,
 * LUDUS_EINVAL for another). A regular file is written to a temporary of its own in the same
 * directory and renamed into place (PATH is never left truncated, a killed
 * writer leaves no temporary, two writers of one PATH never mix); a symlink
 * is followed, a FIFO or character device (/dev/stdout) is written in place. */
LUDUS_API int ludus_capture_save(ludus_capture *c, int format, unsigned flags, const char *path);

/* Captures of several processes of one machine on one timeline: a process
 * track each (its pid and name), aligned on their common clock
 * (CLOCK_MONOTONIC: ts 0 is the earliest capture's start), every capture's
 * counts in the metadata; flows whose ids the caller gave in both processes
 * link across them. LUDUS_FORMAT_JSON or LUDUS_FORMAT_PFTRACE (a .ludus
 * file holds one process). `ludus-trace merge` runs it. */
LUDUS_API int ludus_captures_write_merged(ludus_capture *const *captures, uint32_t n, int format, ludus_write_fn write,
                                          void *user_data);
LUDUS_API int ludus_captures_save_merged(ludus_capture *const *captures, uint32_t n, int format, const char *path);

/* A file written by those rules, for output of your own (a report, a
 * converted capture with a progress display): write through
 * ludus_output_write (a ludus_write_fn whose user_data is the output), then
 * commit (the file appears complete under its name) or abort (nothing
 * appears). Both free the output; abort of NULL is a no-op. */
typedef struct ludus_output ludus_output;
LUDUS_API int ludus_output_open(const char *path, ludus_output **out);
LUDUS_API int ludus_output_write(void *output, const void *data, size_t n);
LUDUS_API int ludus_output_commit(ludus_output *o);
LUDUS_API void ludus_output_abort(ludus_output *o);

/* Crash capture: on SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT (abort,
 * assert, and std::terminate, which aborts), the running capture, or the
 * rolling window (<ludus/rolling.h>) while one runs, is written to a file
 * before the process dies: marked as ended by a crash, with the signal and
 * the thread it hit (`ludus-trace info`, every export, a marker on that
 * thread's track). The handler then lets the crash go on as it would have:
 * the handler the program installed before runs, or the default action
 * (core dump, exit status). The file is written by a copy of the crashed
 * process (a raw fork: nothing a crashed thread holds can block it) while
 * the crashing thread waits, at most timeout_ms; every thread's events up
 * to the crash are in it (an event being written then is lost and
 * counted, as at any capture's end). On Windows an unhandled-exception
 * filter (and a SIGABRT handler) writes it in the process, from a thread
 * of its own, while the other threads go on; then the exception goes to
 * the filter the program had. LUDUS_TRACE installs it for its path. */
typedef struct ludus_crash_desc {
    const char *path;    /* "%p" becomes the pid; NULL: "ludus-crash-%p.ludus". A rolling window
                          * writes into its directory instead, reason "crash-SIGSEGV" and the like */
    int format;          /* LUDUS_FORMAT_*; 0: by the path's extension */
    uint32_t timeout_ms; /* how long the crashing thread waits for the file; 0: 10000 */
} ludus_crash_desc;
/* Installs (or, called again, updates) the handlers; NULL desc: defaults. */
LUDUS_API int ludus_crash_capture_begin(const ludus_crash_desc *desc);
/* Puts the program's own handlers back. */
LUDUS_API void ludus_crash_capture_end(void);

/* ---------------------------------------------------------------------------
 * Old names (before 0.3), kept for one minor release; LUDUS_NO_DEPRECATED
 * leaves them out. */
#ifndef LUDUS_NO_DEPRECATED
LUDUS__DEPRECATED(ludus_capture_thread)
static inline int ludus_capture_get_thread(ludus_capture *c, uint32_t index, ludus_thread_summary *out) {
    return ludus_capture_thread(c, index, out);
}
LUDUS__DEPRECATED(ludus_capture_get_stream_result)
static inline int ludus_capture_stream_result(ludus_stream_result *out) {
    return ludus_capture_get_stream_result(out);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_CAPTURE_H */
