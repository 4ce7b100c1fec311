/* The capture object as its readers see it (struct ludus_capture): an ended
 * in-memory capture, a capture file opened from a path or from memory, or a
 * cut of either. Exporters and the analysis read it through the normalised
 * stream (nev.h), which includes this; how a capture is built is
 * capture_build.h, the session's side src/session/session.h, GPU data
 * src/gpu/gpu_data.h. Nothing here is process-wide state: two threads can
 * read two captures at once. */
#ifndef LUDUS_CAPTURE_MODEL_H
#define LUDUS_CAPTURE_MODEL_H

#include <ludus/capture_file.h>
#include <ludus/gpu.h>

#include "../base/arena.h"
#include "../record/record.h"
#include "event_table.h"

/* A run of recorded slots: a piece of the pool, or a block of a file. base
 * is the address the first slot had when it was recorded (ends name their
 * begins by address). */
typedef struct ludus__run {
    const ludus__event *ev;
    size_t n; /* slots */
    uintptr_t base;
} ludus__run;

#define LUDUS__NO_DROP INT64_MIN
/* Lanes of a thread: its own track and up to 31 span lanes (ludus__cap_thread.lanes). */
#define LUDUS__MAX_LANES 32

#define LUDUS__LOST_BEGINS 8

typedef struct ludus__cap_thread {
    char name[64];
    uint64_t tid;
    uint32_t serial; /* in-memory captures: the registration it came from (a rolling window joins segments by it) */
    int exited;
    uint64_t dropped;
    int64_t first_drop_ns; /* since capture start; LUDUS__NO_DROP without losses */
    uint64_t spans;        /* span begins: the reader places spans on lanes only when there are some */
    uint64_t recorder_orphans;
    /* Slots of events left out of their capture (in flight when it ended,
     * counted as dropped with their end when a begin): an end that names one
     * is dropped with it, not an orphan. A rolling window's next segment
     * holds such ends (rolling.c carries the slots). */
    uintptr_t lost_begin[LUDUS__LOST_BEGINS];
    uint32_t nlost_begin;
    ludus__run *runs;           /* in-memory captures (built on first use) */
    struct ludus__chunk *first; /* in-memory captures: the thread's pieces */
    uint32_t nruns;
    uint64_t load_first; /* capture files: offset of the thread's first block */
    uint64_t slots;      /* capture files: slots in its blocks */
    /* counts of the prepared view */
    uint64_t events, incomplete, unwound, orphan_ends, filtered, frames, mismatched;
    /* its async begins and ends, when async_counted (prepared here, or a file's thread table since it
     * says them): ludus__async_ensure reads only the threads that have some */
    uint64_t async_events;
    int async_counted;
    uint32_t lanes; /* span lanes besides the thread's own track */
    /* 1: counted, and the stream has no flow end (JSON places each by its
     * neighbours' times, begins included); 0: it has, or not counted (a
     * file's counts are its own) */
    int no_flows;
    /* The lane of each span, decided once (a first pass over the thread) and
     * kept: owned by this entry when lanes_owned (a cut's copy borrows its
     * parent's, or decides its own). */
    uint8_t *span_lane;
    uint64_t span_lane_n;
    int lanes_decided, lanes_owned;
    /* Its frame marks (`frames` of them; frame_marks.c), a reference: noted
     * when the view was prepared here, or a file's MARKS (MARK_RUN) records;
     * NULL when none gave them (a file without the records, a thread
     * without marks). */
    struct ludus__mark_set *marks;
} ludus__cap_thread;

/* Site-table key of a flow name: the name's address shifted left with a 1
 * in the low bits. Descriptors are 16-aligned (low 4 bits 0) and names are
 * byte-aligned, so the two kinds of key never collide. */
#define LUDUS__FLOW_NAME_KEY(name_word) (((uintptr_t)(name_word) << 4) | 1u)
#define LUDUS__FLOW_NAME_PTR(key) ((const char *)((uintptr_t)(key) >> 4))

/* A site as exported: name and category are display text (a C literal's
 * escapes resolved, valid UTF-8), owned by the capture's site arena. */
typedef struct ludus__site_info {
    uintptr_t key;    /* descriptor address, or flow-name key */
    const char *name; /* NUL-terminated */
    size_t name_len;
    const char *function;
    const char *file;
    const char *category; /* NULL: none; NUL-terminated */
    size_t category_len;
    uint32_t line;
    uint32_t id;      /* stable: FNV-1a of name, file and line */
    int enabled;      /* category enabled in this capture */
    int live_unknown; /* a memory domain's site whose live figures the manifest says are unknown: its live,
                         live-allocation and peak values are not read (files of older recorders hold them) */
} ludus__site_info;

/* Buffers a run loader fills; owned by the iterator (one block at a time). */
typedef struct ludus__run_buf {
    ludus__event *ev;
    size_t cap; /* slots */
    uint8_t *bytes;
    size_t bytes_cap;
} ludus__run_buf;

/* Loads the run at *cursor into buf, sets *out and advances *cursor; 0 or a
 * negative LUDUS_E* code (the detail is set). */
typedef int (*ludus__run_loader)(const struct ludus_capture *c, uint64_t *cursor, ludus__run *out, ludus__run_buf *buf);

/* capture_build.h: where a capture's runs come from; threads still to publish */
struct ludus__source_ops;
struct ludus__late;
struct ludus__straggler;

/* The .ludus format this library writes (file_format.h), and the oldest it
 * reads: versions 3 and 4 only added event kinds (the kinds table's
 * `since`), and 5 put the extension kind where 4 had MESSAGE (the reader
 * turns a format 4 message into the MESSAGE extension), so an older file
 * reads as it always did. */
#define LUDUS__FORMAT_VERSION 5u
#define LUDUS__FORMAT_OLDEST 2u

/* One line of the memory coverage manifest (memory_coverage.c). */
enum { LUDUS__MEM_COV_DOMAIN, LUDUS__MEM_COV_OUTSIDE };
#define LUDUS__MEM_COV_BASELINE 1u /* the domain declared what it held before its hooks ran */
#define LUDUS__MEM_COV_UNKNOWN 2u  /* a free of older memory: live figures are not known */
/* The fields of a manifest line after the kind, in order (docs/format.md). */
#define LUDUS__MEM_COV_FIELDS(X) \
    X(since_ns)                  \
    X(baseline_bytes)            \
    X(live_bytes)                \
    X(peak_bytes)                \
    X(allocs)                    \
    X(frees)                     \
    X(alloc_bytes)               \
    X(free_bytes)
typedef struct ludus__mem_cov {
    int kind;
    uint32_t flags;
    char name[64];
    int64_t since_ns;                               /* relative to capture start (negative: before it) */
    int64_t baseline_bytes, live_bytes, peak_bytes; /* at capture end; outside: live_bytes only */
    int64_t allocs, frees, alloc_bytes, free_bytes; /* since registration */
} ludus__mem_cov;

/* The parts of a capture, each owned by one source or attachment. */

/* Ended by a crash (crash.c): the signal (0: not), the thread it hit, when. */
typedef struct ludus__capture_crash {
    int signal;
    char signal_name[16];
    uint64_t tid;
    int64_t ns; /* when (CLOCK_MONOTONIC, within the capture) */
} ludus__capture_crash;

/* Written by a trigger of the rolling window: its reason ("" none), when it
 * fired (CLOCK_MONOTONIC) and what it saw (a hitch's frame and median, a
 * counter's value). */
typedef struct ludus__capture_trigger {
    char reason[40];
    int64_t ns;
    char detail[320]; /* with the reason and time, under the 400 bytes a reader takes (file_reader.c) */
} ludus__capture_trigger;

/* What an in-memory capture owns (the session's source, a recovered pool file's). */
typedef struct ludus__capture_pool {
    void *mem;
    uint64_t bytes;
    ludus_allocator allocator;
    int mapped;                    /* mem came from ludus__pages_map (1) or a pool file (2) */
    struct ludus__pool_file *file; /* desc.pool_file: the file the pool is (released with the pool) */
    int recovered;                 /* read back from a pool file (recover.c): the process never ended it */
    struct ludus__prefault *prefault;
    size_t prefault_done; /* bytes of the pool faulted in when prefault is NULL */
    ludus__name_table *names;
    struct ludus__straggler *stragglers;
    uint32_t nstragglers;
    struct ludus__late *late; /* threads still to publish (registry lock) */
    uint32_t nlate;
} ludus__capture_pool;

/* What a capture file says of itself (file_reader.c; views share it). */
typedef struct ludus__capture_file {
    uint32_t version; /* the .ludus format */
    uint64_t bytes, blocks, slots;
    int compact;
    int compressed; /* a block is zstd-compressed (LUDUS__NF_ZSTD) */
    int streamed;   /* a streamed file (format 6, written while the capture ran) */
    int stream_cut; /* ... cut short (kill -9, a crash): no tables, no summary, no end record */
    /* the file's SUMMARY record (format.md): what `info` prints without reading the blocks */
    int has_footer;
    uint64_t footer_frame_marks, footer_marks_elsewhere;
    uint32_t footer_frame_thread; /* UINT32_MAX: no frame mark */
    /* opened through the file's index (ludus_capture_open_index): its tables
     * and summary only, no event (index_sites: the header's site count) */
    int index_only;
    uint32_t index_sites;
    /* a file that holds a time cut (META "cut"): the range of its source
     * it holds, ns since the source's start, and the source's duration */
    int cut;
    int64_t cut_from_ns, cut_to_ns, cut_of_ns;
} ludus__capture_file;

/* The async zones (async.c), built when the capture is prepared. */
typedef struct ludus__capture_async {
    struct ludus__async_zone *zones;
    uint32_t n;
    struct ludus__async_track *tracks;
    uint32_t ntracks, tracks_cap;
    uint64_t unmatched;           /* ends with no open zone of their track and id */
    struct ludus__async_raw *raw; /* while preparing: the events */
    size_t nraw, raw_cap;
    int ready, error;
} ludus__capture_async;

struct ludus_capture {
    int refs; /* atomic */
    const struct ludus__source_ops *src;
    void *src_data; /* the source's own: a file's reader, a pool file's mapping */
    uint32_t gen;
    int clock_tsc;
    ludus__calib_point c0, c1;
    int64_t start_ns, end_ns;
    int pid;
    char process_name[64];
    ludus__capture_crash crash;
    ludus__capture_trigger trigger;
    char *categories; /* enabled list or NULL (owned) */
    ludus__cap_thread *threads;
    uint32_t nthreads;
    uint64_t unregistered_drops;
    uint32_t interner_drops;
    uint32_t counters_refused;  /* counters, gauges and memory domains the full tables refused while it ran */
    uint64_t counter_adds_lost; /* counts of threads that got no shard (no memory) while it ran */
    uint64_t bytes_used;        /* pool bytes handed out */
    ludus__capture_pool pool;   /* in-memory captures: what they own */
    /* the prepared view: sites and counts (files bring their own) */
    int prepared;
    int prepare_error;
    ludus__site_info *sites;
    uint32_t nsites;
    uint32_t *site_hash; /* open addressing: index + 1 */
    uint32_t site_hash_cap;
    ludus__arena site_text; /* display strings of the sites */
    uint32_t id_collisions;
    uint64_t events, dropped, incomplete, unwound, orphan_ends, filtered, frames, mismatched, nonfinite;
    uint64_t texts_cut, keys_dropped; /* annotations: texts cut, keys past LUDUS__SLICE_ARGS_MAX (prepare.c) */
    uint64_t unknown; /* extension events of a sub-kind this library does not know (a later one's file): skipped */
    ludus__capture_file file;     /* capture files and views of them */
    struct ludus_capture *parent; /* views: the capture they cut (a reference) */
    int cut;                      /* views: only [cut_from_ns, cut_to_ns] is streamed */
    int64_t cut_from_ns, cut_to_ns;
    ludus__mem_cov *mem_cov; /* the memory coverage manifest */
    uint32_t nmem_cov;
    ludus__capture_async async;
    /* a flight recorder's (src/flight/rolling.c): its threads' oldest pieces
     * were written over, so an end whose begin went with them gets a begin
     * at its thread's first event (ring_start.c); ring_synth holds those
     * begins (owned) */
    int ring;
    ludus__event *ring_synth;
    /* GPU timing (gpu.c): the raw samples and calibration points handed over
     * while the capture ran, and what placing them derived */
    struct ludus__gpu_data *gpu; /* NULL: none (views share their parent's) */
};
typedef struct ludus_capture ludus__captured;
/* ludus_capture_summary.pool_bytes_needed (prepare.c): the pool that would
 * have held every event the capture dropped; 0 when none was. */
LUDUS__SIBLING uint64_t ludus__pool_bytes_needed(const ludus_capture *c);

/* Builds the site table and the counts (once); 0 or a LUDUS_E* code with the
 * detail set. */
LUDUS__SIBLING int ludus__prepare(ludus_capture *c);
LUDUS__SIBLING int64_t ludus__ticks_to_ns(const ludus_capture *c, uint64_t ticks);
LUDUS__SIBLING uint32_t ludus__site_index(const ludus_capture *c, uintptr_t key);
/* Thread t's run i, in order (i from 0, *cursor from the thread's
 * load_first): in memory, or loaded into buf from the capture's file
 * (capture.c). 0 or a negative LUDUS_E* code (the detail set). */
LUDUS_HIDDEN int ludus__capture_run(const ludus_capture *c, uint32_t t, uint32_t i, uint64_t *cursor, ludus__run *out,
                                    ludus__run_buf *buf);
/* The memory coverage manifest as the .ludus metadata value (malloc'd;
 * memory_coverage.c). */
LUDUS_HIDDEN char *ludus__mem_cov_text(const ludus_capture *c);

#endif
