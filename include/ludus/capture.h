/* Ludus Profiling: capture control, thread registration, export and errors.
 *
 * Control calls (begin, end, export, save) are made from one coordinating
 * thread, or serialised by the caller. Producer threads may keep emitting
 * across any of them. Every call that can fail returns 0 or a negative
 * LUDUS_E* code; ludus_error_string() names it and ludus_last_error_detail()
 * gives this thread's detail for the last failure (which file, which offset). */
#ifndef LUDUS_CAPTURE_H
#define LUDUS_CAPTURE_H

#include <ludus/profiling.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LUDUS_VERSION_STRING "0.1.0"

/* Error codes: one table, X(name, value, message). */
#define LUDUS_ERRORS(X)                                                 \
    X(LUDUS_OK, 0, "success")                                           \
    X(LUDUS_EBUSY, -1, "a capture is already active")                   \
    X(LUDUS_EOVERFLOW, -2, "the requested pool size overflows")         \
    X(LUDUS_ENOMEM, -3, "the chunk pool could not be reserved")         \
    X(LUDUS_EINVAL, -4, "invalid argument")                             \
    X(LUDUS_ENOCAPTURE, -5, "no capture is active")                     \
    X(LUDUS_ENODATA, -6, "no data: the last capture recorded no event") \
    X(LUDUS_EIO, -7, "I/O error")                                       \
    X(LUDUS_EFORMAT, -8, "malformed input")                             \
    X(LUDUS_EUNSUPPORTED, -9, "not supported on this machine")          \
    X(LUDUS_ETHREADS, -10, "the thread table is full")

enum ludus_error {
#define LUDUS__ERROR_ENUM(name, value, message) name = value,
    LUDUS_ERRORS(LUDUS__ERROR_ENUM)
#undef LUDUS__ERROR_ENUM
};

/* Static text for a code; never NULL. */
const char *ludus_error_string(int code);
/* This thread's detail for its last failed call ("" when none). */
const char *ludus_last_error_detail(void);

/* Clock that timestamps events. */
enum ludus_clock {
    LUDUS_CLOCK_AUTO = 0,      /* TSC where invariant (x86-64), else monotonic */
    LUDUS_CLOCK_MONOTONIC = 1, /* clock_gettime(CLOCK_MONOTONIC) */
    LUDUS_CLOCK_TSC = 2        /* invariant TSC; begin fails with EUNSUPPORTED without it */
};

/* How end joins producers that are mid-event. */
enum ludus_join {
    LUDUS_JOIN_AUTO = 0, /* asymmetric barrier (membarrier) where available, else fence */
    LUDUS_JOIN_FENCE = 1 /* every event pays a sequentially consistent store */
};

/* Allocation hook for the chunk pool (sokol-style): NULL uses aligned_alloc. */
typedef struct ludus_allocator {
    void *(*alloc)(size_t size, size_t alignment, void *user_data);
    void (*free)(void *ptr, void *user_data);
    void *user_data;
} ludus_allocator;

/* Zero-initialise, set what you need; every 0 field takes its default. */
struct ludus_capture_desc {
    uint32_t chunk_bytes;   /* per chunk, a power of two >= 4096; default 65536 */
    uint32_t chunk_count;   /* chunks in the pool; default 256 (16 MiB) */
    const char *categories; /* comma-separated enabled categories; NULL = all.
                               Sites without a category are always kept. Events of
                               other categories are discarded when the capture ends
                               and counted as "filtered" (not a loss). */
    int clock;              /* enum ludus_clock; default LUDUS_CLOCK_AUTO */
    int join;               /* enum ludus_join; default LUDUS_JOIN_AUTO */
    ludus_allocator allocator;
};

/* Reads back the values a desc resolves to (defaults applied). */
void ludus_capture_desc_defaults(const ludus_capture_desc *in, ludus_capture_desc *out);

/* Starts a capture: reserves and touches the whole chunk pool, calibrates the
 * clock and arms recording. Fails and stays disarmed with LUDUS_EBUSY (a capture
 * is active), LUDUS_EOVERFLOW, LUDUS_EINVAL, LUDUS_ENOMEM or LUDUS_EUNSUPPORTED.
 * Discards the previous ended capture. desc may be NULL (defaults). */
int ludus_begin_capture(const ludus_capture_desc *desc);

/* Ends the active capture: disarms, waits for producers that are mid-event,
 * and publishes every thread's partial chunk, including threads that exited
 * during the capture. Every event accepted before it returns is in the capture.
 * LUDUS_ENOCAPTURE when none is active. */
int ludus_end_capture(void);

/* Launch to exit: with LUDUS_TRACE=PATH in the environment, a capture starts
 * when the library loads (pool: LUDUS_TRACE_CHUNKS x 64 KiB, default 1024) and
 * is written to PATH at exit, as JSON, Perfetto protobuf or a .ludus file by
 * PATH's extension; the program's own ludus_begin_capture gets LUDUS_EBUSY
 * meanwhile, and a capture the program ends itself is not written. */

/* 1 while a capture is active. */
int ludus_capture_active(void);

/* Writes the last ended capture as Chrome/Perfetto JSON. Writes to PATH.tmp
 * and renames, so PATH is never left truncated. LUDUS_ENODATA for an empty
 * capture (PATH untouched); LUDUS_EIO on a write failure (capture kept). */
int ludus_export_perfetto_trace(const char *path);

/* The same JSON through a write callback (return 0 on success, non-zero to
 * fail the export); for pipes, sockets or memory. */
int ludus_export_json_to(int (*write)(void *user_data, const void *data, size_t n), void *user_data);

/* Writes the last ended capture as a native capture file (.ludus, see
 * docs/format.md and ludus/capture_file.h to read it back): the raw events
 * as recorded plus the site and thread tables, close to a memory copy.
 * Same contract as the JSON export: PATH.tmp renamed into place,
 * LUDUS_ENODATA for an empty capture (PATH untouched), LUDUS_EIO on a write
 * failure (capture kept). */
int ludus_save_capture(const char *path);

/* Writes the last ended capture as a Perfetto protobuf trace (.pftrace):
 * one track per thread, slices, instants, counters, flows, interned names.
 * Same contract as ludus_export_perfetto_trace. */
int ludus_export_pftrace(const char *path);

/* Registers the calling thread under a name (copied, up to 63 bytes). Threads
 * that record without registering are registered as "thread <tid>". Calling
 * again renames. */
int ludus_register_thread_for_trace(const char *name);

/* Publishes the thread's partial chunk and releases its slot; thread exit
 * does the same. Events the thread records later register it again. */
int ludus_unregister_thread_for_trace(void);

/* Summary of the last ended capture, for reports and tests. */
typedef struct ludus_capture_summary {
    uint32_t threads;        /* threads with a table entry */
    uint64_t events;         /* events recorded (payload slots not counted) */
    uint64_t dropped;        /* events lost to a full pool, all threads */
    uint64_t filtered;       /* events of disabled categories */
    uint64_t incomplete;     /* begins with no end, closed at capture end */
    uint64_t orphan_ends;    /* ends whose begin predates the capture */
    uint64_t frames;         /* frame marks */
    int64_t start_ns;        /* capture start, CLOCK_MONOTONIC ns */
    int64_t end_ns;          /* capture end, CLOCK_MONOTONIC ns */
    uint32_t chunks_used;    /* chunks taken from the pool */
    uint32_t interner_drops; /* run-time names refused by the full site table */
    const char *clock_name;  /* "tsc" or "monotonic" */
} ludus_capture_summary;

/* LUDUS_ENODATA when no capture has ended yet. */
int ludus_capture_get_summary(ludus_capture_summary *out);

/* Per-thread counts of the last ended capture; index < summary.threads. */
typedef struct ludus_thread_summary {
    char name[64];
    uint64_t tid;
    uint64_t events;
    uint64_t dropped;
    uint64_t incomplete;
    uint64_t orphan_ends;
    int exited; /* the thread exited during the capture */
} ludus_thread_summary;
int ludus_capture_get_thread(uint32_t index, ludus_thread_summary *out);

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_CAPTURE_H */
