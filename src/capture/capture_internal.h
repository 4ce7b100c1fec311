/* Captures as objects (struct ludus_capture): an ended in-memory capture, a
 * capture file opened from a path or from memory, or a cut of either. Every
 * exporter and the analysis read one through the normalised event stream
 * (ludus__nev_iter): ends paired with their begins by identity, scopes
 * skipped by a non-local exit closed and flagged unwound, spans placed on
 * lanes where they nest, orphan ends dropped and counted, begins left open
 * closed at capture end and flagged incomplete, ticks converted to ns since
 * capture start. Nothing here is process-wide state: two threads can read
 * two captures at once. */
#ifndef LUDUS_CAPTURE_INTERNAL_H
#define LUDUS_CAPTURE_INTERNAL_H

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

#define LUDUS__LOST_BEGINS 8
/* Adds slot to a thread's lost begins (the oldest goes when full). */
static inline void ludus__lost_begin_add(uintptr_t *slots, uint32_t *n, uintptr_t slot) {
    if (*n == LUDUS__LOST_BEGINS) {
        for (uint32_t i = 1; i < LUDUS__LOST_BEGINS; i++) slots[i - 1] = slots[i];
        --*n;
    }
    slots[(*n)++] = slot;
}

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

/* A thread that was inside an out-of-line event when the capture ended: it
 * is published when that event is over (ludus__capture_resolve_late). */
typedef struct ludus__late {
    uint32_t record, serial; /* registry slot and its owner then */
    uint32_t thread;         /* index in c->threads */
    int resolved;
} ludus__late;

typedef struct ludus__straggler {
    uint32_t record, serial;
    uintptr_t cur; /* the busy cursor seen at capture end */
    int in_piece;  /* its slot lies in the thread's piece (else the event goes out of line: no slot of its own) */
} ludus__straggler;

/* A capture's source: where its runs come from and what it owns. Each
 * variant is one of these (the session's in-memory capture, a file, a
 * recovered pool file, a rolling window's snapshot, a cut); nothing else
 * in the library asks which variant a capture is.
 *   settle    before the capture is first read (NULL: nothing to do): the
 *             session publishes the threads still inside an event at its end
 *   build     turns what was recorded into what reading needs (runs, fibers,
 *             sites); NULL: the source gave them (a file's tables)
 *   load_run  loads the run at *cursor into buf (files); NULL: the runs are
 *             in memory (threads[t].runs)
 *   free      frees what the source owns (its pool, its file, its parent, its
 *             segments); the capture frees its view and attachments itself
 *   borrows   1: the sites, their text, the categories, the memory manifest,
 *             the GPU data and the runs are the parent's (a cut) */
typedef struct ludus__source_ops {
    const char *kind;
    void (*settle)(struct ludus_capture *c);
    int (*build)(struct ludus_capture *c);
    ludus__run_loader load_run;
    void (*free)(struct ludus_capture *c);
    int borrows;
} ludus__source_ops;

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

struct ludus_capture {
    int refs; /* atomic */
    const ludus__source_ops *src;
    void *src_data; /* the source's own: a file's reader, a pool file's mapping */
    uint32_t gen;
    int clock_tsc;
    ludus__calib_point c0, c1;
    int64_t start_ns, end_ns;
    int pid;
    char process_name[64];
    /* ended by a crash (crash.c): the signal (0: not), the thread it hit, when */
    int crash_signal;
    char crash_signal_name[16];
    uint64_t crash_tid;
    int64_t crash_ns; /* when (CLOCK_MONOTONIC, within the capture) */
    /* written by a trigger of the rolling window: its reason ("" none),
     * when it fired (CLOCK_MONOTONIC) and what it saw (a hitch's frame and
     * median, a counter's value) */
    char trigger_reason[40];
    int64_t trigger_ns;
    char trigger_detail[320]; /* with the reason and time, under the 400 bytes a reader takes (file_reader.c) */
    char *categories;         /* enabled list or NULL (owned) */
    ludus__cap_thread *threads;
    uint32_t nthreads;
    uint64_t unregistered_drops;
    uint32_t interner_drops;
    uint32_t counters_refused;  /* counters, gauges and memory domains the full tables refused while it ran */
    uint64_t counter_adds_lost; /* counts of threads that got no shard (no memory) while it ran */
    uint64_t bytes_used;        /* pool bytes handed out */
    /* in-memory captures: what they own */
    void *pool_mem;
    uint64_t pool_bytes;
    ludus_allocator allocator;
    int pool_mapped;                    /* pool_mem came from ludus__pages_map (1) or a pool file (2) */
    struct ludus__pool_file *pool_file; /* desc.pool_file: the file the pool is (released with the pool) */
    int recovered;                      /* read back from a pool file (recover.c): the process never ended it */
    struct ludus__prefault *prefault;
    size_t prefault_done; /* bytes of the pool faulted in when prefault is NULL */
    ludus__name_table *names;
    ludus__straggler *stragglers;
    uint32_t nstragglers;
    ludus__late *late; /* threads still to publish (registry lock) */
    uint32_t nlate;
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
    /* capture files and views of them */
    uint32_t format_version;
    uint64_t file_bytes, blocks, slots;
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
    int file_cut;
    int64_t file_cut_from_ns, file_cut_to_ns, file_cut_of_ns;
    struct ludus_capture *parent; /* views: the capture they cut (a reference) */
    int cut;                      /* views: only [cut_from_ns, cut_to_ns] is streamed */
    int64_t cut_from_ns, cut_to_ns;
    ludus__mem_cov *mem_cov; /* the memory coverage manifest */
    uint32_t nmem_cov;
    /* the async zones (async.c), built when the capture is prepared */
    struct ludus__async_zone *async;
    uint32_t nasync;
    struct ludus__async_track *async_tracks;
    uint32_t nasync_tracks, async_tracks_cap;
    uint64_t async_unmatched;           /* ends with no open zone of their track and id */
    struct ludus__async_raw *async_raw; /* while preparing: the events */
    size_t nasync_raw, async_raw_cap;
    int async_ready, async_error;
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

/* An async zone: [begin_ns, end_ns] on a lane of its track. Zones of one
 * track and id nest (depth); a zone and the zones inside it share a lane,
 * and zones on one lane never overlap unless nested. */
typedef struct ludus__async_zone {
    uint32_t track;                    /* index in c->async_tracks */
    uint32_t site;                     /* the zone's site (UINT32_MAX: not known, its begin was cut away) */
    uint32_t lane, depth;              /* lane of the track; open zones of its id around it */
    uint32_t begin_thread, end_thread; /* thread indexes; UINT32_MAX where it was not seen */
    uint16_t flags;                    /* LUDUS_NEV_INCOMPLETE (never ended), LUDUS_NEV_CLIPPED (begin cut),
                                          LUDUS__ASYNC_END_CLIPPED (end cut) */
    uint64_t id;
    int64_t begin_ns, end_ns;
} ludus__async_zone;

#define LUDUS__ASYNC_END_CLIPPED 0x100u

typedef struct ludus__async_track {
    uint32_t site;  /* a site with the track's name */
    uint32_t lanes; /* lanes used */
} ludus__async_track;

typedef struct ludus__async_raw {
    int64_t ts;
    uint32_t thread, track_site, site, end; /* track_site: the track's site, then its track index */
    uint64_t id, seq;
} ludus__async_raw;

struct ludus__nev;
/* async.c: prepare collects each ASYNC event of the streams, then builds
 * the zones (a view clips its parent's); free releases them. */
LUDUS_HIDDEN int ludus__async_note(ludus_capture *c, uint32_t thread, const struct ludus__nev *ev);
LUDUS_HIDDEN int ludus__async_build(ludus_capture *c);
/* The zones ready to use (0), or why not: what exporters and the analysis
 * call first (a capture file finds its zones on first use). */
LUDUS__SIBLING int ludus__async_ensure(ludus_capture *c);
LUDUS_HIDDEN void ludus__async_free(ludus_capture *c);

/* ---- GPU timing (gpu.c, docs/gpu.md) ---- */

/* A context as the capture keeps it. */
typedef struct ludus__gpu_ctx {
    char name[64], device[64];
    uint32_t queue, valid_bits;
    double period_ns;
    uint64_t cov[LUDUS_GPU_COVERAGE_COUNT];
    uint64_t handed; /* samples and points handed over (the store's, while the capture runs) */
    /* derived by ludus__gpu_place */
    int calibrated;
    uint32_t ncal, lanes, breaks; /* breaks: neighbouring points that disagree (no line drawn between them) */
    int64_t max_error_ns;
    uint64_t samples, passes;
} ludus__gpu_ctx;

/* A sample: raw fields (what the file keeps), then the placement. */
typedef struct ludus__gpu_sample {
    uint32_t ctx;
    uint32_t name; /* index in names; UINT32_MAX: the frame's own sample */
    uint64_t frame, begin_ticks, end_ticks, flow_id;
    double period_ns;
    int64_t submit_ns; /* since capture start */
    /* derived */
    int64_t begin_ns, end_ns, device_ns, error_ns;
    uint32_t lane, flags;
} ludus__gpu_sample;

typedef struct ludus__gpu_cal {
    uint32_t ctx;
    uint64_t ticks;
    int64_t cpu_ns; /* since capture start */
    int64_t dev_ns;
} ludus__gpu_cal;

typedef struct ludus__gpu_data {
    ludus__gpu_ctx *ctx;
    uint32_t nctx;
    char **names; /* pass names, valid UTF-8, each once */
    uint32_t nnames, names_cap;
    uint32_t *name_hash;       /* open addressing: index + 1 (gpu.c name_index) */
    uint32_t hash_cap, hashed; /* names[0, hashed) are in it */
    ludus__gpu_sample *s;      /* sorted by ctx, then begin_ns, once placed */
    uint64_t ns, s_cap;
    ludus__gpu_cal *cal;
    uint64_t ncal, cal_cap;
} ludus__gpu_data;

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
/* Derives the placement, lanes and per-context figures (after a take, a
 * file read, a join); 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__gpu_place(ludus__gpu_data *g);
LUDUS_HIDDEN void ludus__gpu_free(ludus__gpu_data *g);
/* The GPU data a capture shows (a view's parent's), or NULL. */
LUDUS__SIBLING const ludus__gpu_data *ludus__gpu_of(const ludus_capture *c);
/* The name a track (lane 0) or its lane k shows: "<name>", "<name>
 * (uncalibrated)", then " lane k+1" for k > 0. */
LUDUS_HIDDEN void ludus__gpu_track_name(const ludus__gpu_ctx *k, uint32_t lane, char *buf, size_t n);
/* 1 when a sample is in c (a time cut shows the spans that meet its range). */
static inline int ludus__gpu_shown(const ludus_capture *c, const ludus__gpu_sample *s) {
    return !c->cut || (s->end_ns >= c->cut_from_ns && s->begin_ns <= c->cut_to_ns);
}
/* Appends src (times shifted by shift_ns) to *dst, contexts matched by name
 * and queue (a rolling window's join); 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__gpu_append(ludus__gpu_data **dst, const ludus__gpu_data *src, int64_t shift_ns);
/* The .ludus GPU record (file_format.h): encode into a malloc'd buffer,
 * decode back (-1 with why, -2 out of memory). */
LUDUS_HIDDEN uint8_t *ludus__gpu_encode(const ludus__gpu_data *g, size_t *n);
LUDUS__SIBLING int ludus__gpu_decode(ludus_capture *c, const uint8_t *p, size_t n, char *why, size_t why_cap);

/* memory_coverage.c. take: at capture end, from the live domains; text:
 * the .ludus metadata value (malloc'd); parse: back from it (-1 with why,
 * -2 out of memory). src/export/memory_json.c, json: the manifest as a JSON
 * metadata member. */
LUDUS_HIDDEN int ludus__mem_cov_take(ludus_capture *c, int64_t pool_bytes);
LUDUS_HIDDEN char *ludus__mem_cov_text(const ludus_capture *c);
LUDUS__SIBLING int ludus__mem_cov_parse(ludus_capture *c, const char *v, size_t n, char *why, size_t why_cap);
struct ludus__writer;
LUDUS_HIDDEN void ludus__mem_cov_json(struct ludus__writer *w, const ludus_capture *c);

/* The last ended in-memory capture (session.c), or NULL. */
LUDUS_HIDDEN ludus_capture *ludus__last_capture(void);
/* Frees a capture whose last reference went (capture.c). */
LUDUS_HIDDEN void ludus__capture_free(ludus_capture *c);
LUDUS__SIBLING ludus_capture *ludus__capture_new(const ludus__source_ops *src);
/* What an in-memory capture's source builds (prepare.c): runs from its
 * threads' pieces, fibers split off, the sites its events name. */
LUDUS_HIDDEN int ludus__build_recorded(ludus_capture *c);
/* The session's captures (session.c): their pool is theirs until released. */
LUDUS_HIDDEN extern const ludus__source_ops ludus__memory_source;
/* A flight recorder's capture (c->ring): gives each end whose begin is not
 * in its thread's events a begin at the thread's first event, named for
 * what it is when the begin is gone (a scope) or by its site (a span).
 * Part of building the capture (prepare.c), after its sites are known. */
LUDUS_HIDDEN int ludus__ring_start(ludus_capture *c);
/* The running flight recorder's events as a capture, copied while the
 * producers go on (src/session/ring_snapshot.c); the copy is a capture
 * with c->ring set. */
LUDUS_HIDDEN int ludus__session_ring_snapshot(ludus_capture **out);
/* A test hook (NULL otherwise): a snapshot calls it in mid-copy, after
 * its first thread's copy, without the registry lock (a thread that
 * registers, records and exits then is not held up). */
LUDUS_HIDDEN extern void (*ludus__snapshot_copying)(void);
/* Frees the copy memory kept for the next snapshot (the recorder ended). */
LUDUS_HIDDEN void ludus__session_ring_forget(void);
/* Makes the running capture a flight recorder (window: ticks, UINT64_MAX
 * until the tick rate is known; 0 to stop). */
LUDUS_HIDDEN void ludus__session_set_ring(uint64_t window_ticks);
/* Waits until no producer can still write into c's pool (session.c). */
LUDUS_HIDDEN void ludus__capture_quiesce(ludus_capture *c);
/* ---- the recorder's one owner (session.c; docs/live.md, "One owner of the
 * recorder") ----
 * Every begin, end and snapshot of every kind (the program's captures and
 * rolling windows, the live view's, the flight recorder's) runs under one
 * control lock, so a check and an arm are one step. The recorder is held by
 * the program or by a guest (the live view, src/live): a guest only takes
 * it when nobody holds it, and yields it whenever the program begins
 * anything, so a watcher never changes what the program's calls return.
 * Lock order: the control lock, then the window's (rolling.c), then the
 * registry's. */
enum { LUDUS__OWNER_NONE = 0, LUDUS__OWNER_PROGRAM = 1, LUDUS__OWNER_GUEST = 2 };
LUDUS_HIDDEN void ludus__control_lock(void);
LUDUS_HIDDEN void ludus__control_unlock(void);
/* Who holds the recorder now (LUDUS__OWNER_*). */
LUDUS_HIDDEN int ludus__owner(void);
/* Begins a capture for owner (the control lock held, nobody holding the
 * recorder). */
LUDUS_HIDDEN int ludus__capture_begin_locked(const ludus_capture_desc *desc, int owner);
/* The control lock held: ends what a guest records (its capture is kept for
 * it, ludus__guest_capture_end; its rolling window ends through
 * ludus__rolling_yield, which rolling.c sets). */
LUDUS_HIDDEN void ludus__guest_yield(void);
LUDUS_HIDDEN extern void (*ludus__rolling_yield)(void);
/* The guest's captures: begin refuses (LUDUS_EBUSY) while anyone holds the
 * recorder; end returns the guest's capture, quiesced (*yielded: 1 when the
 * program took the recorder first and the capture was ended then). */
LUDUS_HIDDEN int ludus__guest_capture_begin(const ludus_capture_desc *desc);
LUDUS_HIDDEN int ludus__guest_capture_end(ludus_capture **out, int *yielded);
/* 1 when the guest's capture was ended for the program (lock-free). */
LUDUS_HIDDEN int ludus__guest_capture_yielded(void);
/* The guest's rolling window (src/flight/rolling.c): begin refuses while
 * anyone holds the recorder; end ends only the guest's; runs: 1 while it
 * runs (0 once the program took the recorder). A snapshot of whichever
 * window runs, the program's or the guest's (the live view reads both). */
struct ludus_rolling_desc;
LUDUS_HIDDEN int ludus__rolling_begin_guest(const ludus_capture_desc *capture,
                                            const struct ludus_rolling_desc *rolling);
LUDUS_HIDDEN void ludus__rolling_end_guest(void);
LUDUS_HIDDEN int ludus__rolling_guest_runs(void);
LUDUS_HIDDEN int ludus__rolling_snapshot_any(ludus_capture **out);
/* Ends the running capture whatever owns it (rolling.c; the control lock
 * held). A guest's ended capture is released. */
LUDUS_HIDDEN int ludus__session_end(void);
/* 1 while a rolling capture runs (ludus_capture_begin and ludus_capture_end
 * refuse then); rolling.c sets it. */
LUDUS_HIDDEN int ludus__rolling_owns_session(void);
LUDUS_HIDDEN void ludus__session_rolling(int on);
/* Stops c's prefault thread and frees its pool (session.c). */
LUDUS_HIDDEN void ludus__capture_release_pool(ludus_capture *c);
/* The child's side of fork: the running capture restarts as the child's
 * (session.c); fork.c installs it when the first capture begins. */
LUDUS_HIDDEN void ludus__session_after_fork(void);
/* In the child that writes a crash (crash.c): no other thread runs and
 * none comes back; the locks are made anew, ending never waits, and what
 * a thread had in flight is lost and counted. */
LUDUS_HIDDEN void ludus__session_crashed(void);
/* In the copy writing a crash: the capture the crash ends, as a
 * reference (0), or LUDUS_ENOCAPTURE when none was running. A thread of
 * the crashed process may have been in the middle of ending one (it is
 * not in the copy): the end is finished from where it stopped, or its
 * capture object taken as it stands once it holds everything. */
LUDUS_HIDDEN int ludus__session_crash_end(ludus_capture **out);
/* The steps of begin and end that a test may stop a thread at (through
 * ludus__session_step, NULL otherwise), to crash another thread there. */
enum {
    LUDUS__STEP_ARMING = 1, /* begin: the session being filled, not armed */
    LUDUS__STEP_ARMED,      /* begin: armed, the registry still locked */
    LUDUS__STEP_ENDING,     /* end: disarmed, no thread published yet */
    LUDUS__STEP_PUBLISHED,  /* end: every thread published, no capture object yet */
    LUDUS__STEP_ENDED,      /* end: the capture object holds it all, the session not yet cleared */
    LUDUS__STEP_INACTIVE    /* end: no capture active, the ended one not yet the last */
};
LUDUS_HIDDEN extern void (*ludus__session_step)(int step);
/* The clock the rolling window's hitch detector reads at a frame mark
 * (src/flight/rolling.c), set by a test; NULL: the monotonic clock. */
LUDUS_HIDDEN extern int64_t (*ludus__rolling_frame_clock)(void);
/* Set by a rolling window while it runs: writes the window into its
 * directory in a crash's child (reason "crash-<signal>"); *path the file. */
LUDUS_HIDDEN extern int (*ludus__crash_rolling)(int signo, uint64_t tid, int64_t at_ns, int in_copy, char *path,
                                                size_t cap);
/* Marks c as ended by signo in thread tid at at_ns (CLOCK_MONOTONIC). */
LUDUS_HIDDEN void ludus__capture_mark_crash(ludus_capture *c, int signo, uint64_t tid, int64_t at_ns);
/* What triggered the window c was taken for (rolling.c): written into its file. */
LUDUS_HIDDEN void ludus__capture_mark_trigger(ludus_capture *c, const char *reason, int64_t at_ns, const char *detail);
/* pattern with "%p" replaced by pid. */
LUDUS_HIDDEN void ludus__expand_pid(const char *pattern, int pid, char *out, size_t cap);
LUDUS_HIDDEN void ludus__fork_session_install(void);

/* In-memory captures: turns each thread's pieces into runs (once). */
LUDUS_HIDDEN int ludus__build_runs(ludus_capture *c);
/* Builds the site table and the counts (once); 0 or a LUDUS_E* code with the
 * detail set. */
LUDUS__SIBLING int ludus__prepare(ludus_capture *c);
LUDUS_HIDDEN void ludus__thread_summary_fill(const ludus__cap_thread *th, ludus_thread_summary *out);
LUDUS__SIBLING int64_t ludus__ticks_to_ns(const ludus_capture *c, uint64_t ticks);
/* NULL when c0 and c1 can calibrate a capture; else the problem, with the
 * field it lies in (c0_ns, c1_ticks, ...: the names of both file headers)
 * in *field (calibration.c). */
LUDUS__SIBLING const char *ludus__calib_check(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1,
                                              const char **field);
/* Ticks on either side of [c0, c1] an event of the capture may lie (one
 * second's worth; no bound when too short to calibrate). */
LUDUS__SIBLING uint64_t ludus__calib_margin(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1);
/* Calls fn for every site key the n slots at e name (site_table.c: the
 * kind table's word and payload columns); stops at fn's first non-zero. */
LUDUS__SIBLING int ludus__run_keys(ludus_capture *c, const ludus__event *e, size_t n,
                                   int (*fn)(ludus_capture *c, uintptr_t key));
/* Adds a site by its text (site_table.c): name, function, file and
 * category as the descriptor holds them (plain: no C literal to resolve;
 * flow: a flow's name, category "flow"); nothing when key is known. */
LUDUS__SIBLING int ludus__site_add_described(ludus_capture *c, uintptr_t key, const char *name, const char *function,
                                             const char *file, const char *category, uint32_t line, int plain,
                                             int flow);
LUDUS__SIBLING uint32_t ludus__site_index(const ludus_capture *c, uintptr_t key);
/* Adds a fully described site whose strings the caller owns for the
 * capture's life. 0, LUDUS_ENOMEM, or LUDUS_EFORMAT when the key is present. */
LUDUS__SIBLING int ludus__site_insert(ludus_capture *c, const ludus__site_info *si);
/* In-memory captures: the sites their events name (site_table.c). */
LUDUS_HIDDEN int ludus__sites_collect(ludus_capture *c);
/* The same for one run of events (sites already known are skipped). */
LUDUS_HIDDEN int ludus__sites_collect_run(ludus_capture *c, const ludus__event *e, size_t n);
/* Counts the pairs of different sites with one id. */
LUDUS__SIBLING int ludus__sites_check_ids(ludus_capture *c);
/* The stable id of a site: FNV-1a of name, file and line. */
LUDUS_HIDDEN uint32_t ludus__site_id(const char *name, size_t name_len, const char *file, uint32_t line);

/* ---- the normalised stream ---- */

#define LUDUS_NEV_INCOMPLETE 1u /* END synthesised at capture end (or at a cut) */
#define LUDUS_NEV_CLIPPED 2u    /* BEGIN or END moved to the bound of a time cut */
#define LUDUS_NEV_UNWOUND 4u    /* END synthesised where a non-local exit was found */
#define LUDUS_NEV_SPAN 8u       /* a span (BEGIN/END, ludus_span_begin), not a lexical scope */
#define LUDUS_NEV_FIBER 16u     /* a span: the thread ran a fiber (its work is on the fiber's track) */

typedef struct ludus__nev {
    uint8_t kind; /* LUDUS_NEV_* (event_table.h) */
    uint8_t lane; /* 0: the thread's track; k: its k-th span lane */
    uint16_t flags;
    uint32_t site;    /* index into c->sites; UINT32_MAX for none */
    uint32_t depth;   /* open slices of the lane below this event */
    uint32_t series;  /* counters: 0 for samples, 1 + LUDUS__STAT_* for a frame statistic */
    int64_t ts_ns;    /* since capture start */
    int64_t begin_ns; /* END: its begin's time */
    uint64_t value;   /* flow id, counter value, frame number, lost events */
} ludus__nev;

/* An open slice: a lexical scope or a span. */
typedef struct ludus__open {
    uint32_t site; /* UINT32_MAX: filtered */
    uint8_t lane;
    uint8_t span;
    uint16_t unused;
    int64_t ts_ns;
    uint64_t seq;     /* slot ordinal of its begin: begin order on the thread (lexical and spans), and identity */
    uintptr_t addr;   /* lexical: the begin's recorded address (what its end names) */
    uint64_t ordinal; /* span: span ordinal (its lane's index) */
    uint32_t d0;      /* span: lexical depth at its begin */
    uint32_t match;   /* span: its site index, filtered or not (ends find it by site) */
    uint64_t seq0;    /* span: seq of the lexical top at its begin */
} ludus__open;

/* A slice a time cut holds open (cut.c). */
typedef struct ludus__cut_open {
    uint32_t site;
    uint8_t lane, span, clipped;
    int64_t ts_ns;
} ludus__cut_open;

/* 128-bit products of tick conversion (GCC and Clang on 64-bit targets);
 * __extension__ keeps -Wpedantic quiet where the single file is built. */
__extension__ typedef unsigned __int128 ludus__u128;

/* Tick to ns conversion without a 128-bit division per event: a rounded
 * fixed-point fraction of the calibration ratio (within 1 ns). */
typedef struct ludus__tick_conv {
    uint64_t range; /* ticks - t0 - 1 below this: the fast path applies (0: never) */
    uint64_t t0, m; /* m: ns per tick as a 0.64 fixed-point fraction */
    int64_t base;
} ludus__tick_conv;
LUDUS_HIDDEN void ludus__tick_conv_init(ludus__tick_conv *v, const ludus_capture *c);

/* ns since capture start: within 1 ns of ludus__ticks_to_ns (exact for the
 * monotonic clock) at one multiply instead of a division. */
static inline int64_t ludus__tick_conv_ns(const ludus__tick_conv *v, const ludus_capture *c, uint64_t ticks) {
    uint64_t x = ticks - v->t0;
    if (__builtin_expect(x - 1 >= v->range, 0)) return ludus__ticks_to_ns(c, ticks);
    return (int64_t)(uint64_t)(((ludus__u128)x * v->m) >> 64) + v->base;
}

typedef struct ludus__seen_run {
    uintptr_t base;
    uint64_t n, ordinal;
} ludus__seen_run;

typedef struct ludus__lane_iv {
    int64_t t0, t1;
} ludus__lane_iv;

/* A site key resolved: its index, and the index shown (UINT32_MAX when its
 * category is disabled). A direct-mapped cache in front of the site table. */
typedef struct ludus__site_memo {
    uintptr_t key;
    uint32_t site, shown;
} ludus__site_memo;

#define LUDUS__MAX_LANES 32
#define LUDUS__NEV_BATCH 256u /* events produced per refill */
#define LUDUS__SITE_MEMO 256u

typedef struct ludus__orphan_end {
    uintptr_t ref;      /* a scope's end: its begin's address (0: a span's) */
    uintptr_t span_key; /* a span's end: its site's key (1: the end named none) */
} ludus__orphan_end;

typedef struct ludus__nev_iter {
    const ludus_capture *c;
    ludus__tick_conv conv;
    const ludus__cap_thread *th;
    /* what the reader takes: the current batch (the raw one, or the cut's) */
    const ludus__nev *ob;
    uint32_t opos, on;
    /* raw reading */
    uint32_t run;
    size_t pos;
    uint64_t ordinal; /* of the current run's first slot */
    uint64_t cursor;  /* capture files: where the next block is */
    ludus__run lrun;
    int loaded;
    ludus__run_buf rbuf;
    ludus__seen_run *seen;
    uint32_t nseen, seen_cap;
    ludus__site_memo *memo; /* LUDUS__SITE_MEMO entries */
    /* the raw batch: what the pairing emits (one raw event may emit many) */
    ludus__nev *rb;
    uint32_t rpos, rn, rcap;
    /* pairing */
    ludus__open *lex, *span;
    uint32_t nlex, lex_cap, nspan, span_cap;
    uint32_t lane_depth[LUDUS__MAX_LANES];
    uint64_t span_ordinal;
    uint8_t fast[16]; /* per raw kind: what the pairing loop does inline (normalize.c) */
    /* lanes: decided in a first pass (deciding = 1) when the thread has spans */
    int deciding;
    int no_begins;      /* no BEGIN is emitted (ludus__nev_no_begins) */
    int slow_path;      /* tests: every event through step() (ludus__nev_slow_path) */
    uint8_t *span_lane; /* the thread's (ludus__cap_thread.span_lane) */
    uint64_t span_lane_n;
    ludus__lane_iv *lane_iv[LUDUS__MAX_LANES];
    uint32_t lane_n[LUDUS__MAX_LANES], lane_cap[LUDUS__MAX_LANES];
    uint32_t lanes_used;
    int done;
    int64_t loss_at; /* the "losses began" marker comes before the first event at or after this; INT64_MAX: none */
    uint64_t frame_no;
    int oom;
    ludus__nev sink; /* where events go when the batch cannot grow */
    int load_error;  /* LUDUS_E* code when a run could not be loaded */
    /* counts of this pass (prepare.c reads them) */
    uint64_t orphan_ends, filtered, mismatched, unknown;
    /* time cut state (cut.c) */
    int cut_state;
    uint32_t cut_i, cut_n;
    ludus__cut_open *cut_open;
    uint32_t cut_open_cap;
    ludus__nev held;
    ludus__nev *cb; /* the cut's batch */
    /* the texts of the stream's messages (kept for the iterator's life) */
    char *text;
    size_t text_n, text_cap;
    /* ring_start.c: the ends whose begin is not in the stream, in stream
     * order (a scope's by its begin's address, a span's by its site key) */
    ludus__orphan_end *orphans;
    uint32_t norphans, orphans_cap;
    int collect_orphans;
} ludus__nev_iter;

/* 0, or a LUDUS_E* code (LUDUS_ENOMEM) when lanes could not be prepared. */
/* Moves what threads recorded while running fibers to a track per fiber
 * (fibers.c); in-memory captures, after their runs are built. */
LUDUS_HIDDEN int ludus__fibers_split(ludus_capture *c);
LUDUS__SIBLING int ludus__nev_init(ludus__nev_iter *it, const ludus_capture *c, uint32_t thread);
/* Refills it->ob (the next batch of the stream, time cut applied); 0 at the
 * end of the thread's stream (then check ludus__nev_error). */
LUDUS__SIBLING int ludus__nev_fill(ludus__nev_iter *it);
LUDUS__SIBLING void ludus__nev_free(ludus__nev_iter *it);
/* After init: a reader that takes no BEGIN (its slices need only the END,
 * which carries the begin's time and depth) asks for the stream without
 * them. Kept for a cut (it pairs them) and for a thread with flows (a
 * flow's neighbours' times count), so what the reader writes is the same. */
LUDUS_HIDDEN void ludus__nev_no_begins(ludus__nev_iter *it);
/* For tests, after init: every event paired by step() and the on_* handlers,
 * none by the inline loop (scan_run_k), so a test can compare the two paths'
 * streams (tests/unit/test_nev_paths.c). Same stream, slower. */
LUDUS_HIDDEN void ludus__nev_slow_path(ludus__nev_iter *it);
/* The stream without a time cut, one event at a time (the cut reads it). */
LUDUS_HIDDEN int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out);
LUDUS_HIDDEN int ludus__nev_next_cut(ludus__nev_iter *it, ludus__nev *out);
/* LUDUS_PROFILE_LOG's text: fmt formatted with the packed arguments
 * (log_format.c), at most cap - 1 bytes and a NUL; returns the length. */
LUDUS_HIDDEN size_t ludus__log_format(const char *fmt, const unsigned char *args, size_t nargs, char *out, size_t cap);
/* A MESSAGE event's text (valid UTF-8, NUL-terminated, len bytes): its
 * own, or its site's name. Valid until the iterator is freed. */
LUDUS__SIBLING const char *ludus__nev_text(const ludus__nev_iter *it, const ludus__nev *e, size_t *len);
/* The error a stream ended with: 0, or a LUDUS_E* code (detail set). */
LUDUS__SIBLING int ludus__nev_error(const ludus__nev_iter *it);

/* The next event, valid until the next call; NULL at the end. */
static inline const ludus__nev *ludus__nev_get(ludus__nev_iter *it) {
    if (it->opos == it->on && !ludus__nev_fill(it)) return NULL;
    return &it->ob[it->opos++];
}

/* 1: *out holds the next event; 0: end of the thread's stream. */
static inline int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out) {
    const ludus__nev *e = ludus__nev_get(it);
    if (!e) return 0;
    *out = *e;
    return 1;
}

/* The time of the event after the one just taken (INT64_MAX at the end);
 * the event just taken must have been copied first: this may refill. */
static inline int64_t ludus__nev_peek_ts(ludus__nev_iter *it) {
    if (it->opos == it->on && !ludus__nev_fill(it)) return INT64_MAX;
    return it->ob[it->opos].ts_ns;
}

/* Scope annotations kept until their slice ends (slice_args.c). */
#define LUDUS__SLICE_ARGS_MAX 16 /* keys per slice */
typedef struct ludus__slice_args_lane {
    ludus__nev *e;
    uint32_t n, cap;
} ludus__slice_args_lane;
typedef struct ludus__slice_args {
    ludus__slice_args_lane lane[LUDUS__MAX_LANES];
    uint64_t dropped;    /* past LUDUS__SLICE_ARGS_MAX keys, or no memory */
    uint64_t over_max;   /* of them past LUDUS__SLICE_ARGS_MAX keys */
    uint64_t superseded; /* a value replaced by a later one of its key in its slice */
} ludus__slice_args;
/* ev: an attaching event (ludus__nevs[kind].attach) with its slice's lane
 * and depth. */
LUDUS__SIBLING void ludus__slice_args_add(ludus__slice_args *a, const ludus_capture *c, const ludus__nev *ev);
/* The annotations of the slice ending at (lane, depth), removed: *first
 * points at them until the next add. Inline for the common case: a lane
 * with none (every slice end of a capture without annotations). */
LUDUS__SIBLING uint32_t ludus__slice_args_take_some(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                                    const ludus__nev **first);
static inline uint32_t ludus__slice_args_take(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                              const ludus__nev **first) {
    if (__builtin_expect(a->lane[lane].n == 0, 1)) {
        *first = NULL;
        return 0;
    }
    return ludus__slice_args_take_some(a, lane, depth, first);
}
LUDUS__SIBLING void ludus__slice_args_reset(ludus__slice_args *a);
LUDUS__SIBLING void ludus__slice_args_free(ludus__slice_args *a);
/* An annotation's text (value kind TEXT): "" when empty. */
LUDUS__SIBLING const char *ludus__arg_text(const ludus__nev_iter *it, const ludus__nev *ev, size_t *len);

#endif
