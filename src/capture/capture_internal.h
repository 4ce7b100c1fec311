/* The ended capture as the exporters see it: per-thread runs of raw events
 * (still in the pool, published not copied), clock calibration, and a view
 * prepared on first use (site table, per-thread counts). The normalised event
 * stream (ludus__nev_iter) is what every exporter reads: pairs matched,
 * orphan ends dropped and counted, begins left open closed at capture end and
 * flagged incomplete, ticks converted to ns since capture start. */
#ifndef LUDUS_CAPTURE_INTERNAL_H
#define LUDUS_CAPTURE_INTERNAL_H

#include "../record/record.h"

typedef struct ludus__run {
    const ludus__event *ev;
    size_t n; /* slots */
} ludus__run;

typedef struct ludus__cap_thread {
    char name[64];
    uint64_t tid;
    int exited;
    uint64_t dropped;
    ludus__run *runs;                 /* built from first_chunk on first use (ludus__build_runs) */
    struct ludus__chunk *first_chunk; /* in-memory captures: the thread's chunk list */
    uint64_t recorder_orphans;        /* orphan ends the recorder dropped (never written) */
    uint32_t nruns;
    uint64_t load_first; /* capture files: offset of the thread's first block */
    /* from the prepared view */
    uint64_t events, incomplete, orphan_ends, filtered, frames;
} ludus__cap_thread;

/* Site-table key of a flow name: the name's address shifted left with a 1
 * in the low bits. Descriptors are 16-aligned (low 4 bits 0) and names are
 * byte-aligned, so the two kinds of key never collide (user-space addresses
 * are below 2^47, so the shift loses nothing). */
#define LUDUS__FLOW_NAME_KEY(name_word) (((uintptr_t)(name_word) << 4) | 1u)
#define LUDUS__FLOW_NAME_PTR(key) ((const char *)((uintptr_t)(key) >> 4))

/* A site as exported: strings are borrowed (static descriptors, the run-time
 * table or flow-name literals), valid while the library is loaded. */
typedef struct ludus__site_info {
    uintptr_t key;    /* descriptor address, or flow-name address | 1 */
    const char *name; /* display name, quotes of a literal stripped */
    size_t name_len;
    const char *function;
    const char *file;
    const char *category; /* NULL: none; not NUL-terminated at category_len */
    size_t category_len;
    uint32_t line;
    uint32_t id; /* stable: FNV-1a of name, file and line */
    int enabled; /* category enabled in this capture */
} ludus__site_info;

/* Buffers a run loader fills; owned by the iterator (one block at a time). */
typedef struct ludus__run_buf {
    ludus__event *ev;
    size_t cap; /* slots */
    uint8_t *bytes;
    size_t bytes_cap;
} ludus__run_buf;

struct ludus__captured;
/* Loads the run at *cursor into buf, sets *out and advances *cursor; 0 or a
 * negative LUDUS_E* code (the detail is set). */
typedef int (*ludus__run_loader)(const struct ludus__captured *c, uint64_t *cursor, ludus__run *out,
                                 ludus__run_buf *buf);

typedef struct ludus__captured {
    int valid;
    uint32_t gen;
    int clock_tsc;
    ludus__calib_point c0, c1;
    int64_t start_ns, end_ns;
    void *pool_mem;
    ludus_allocator allocator;
    uint32_t chunks_used;
    ludus__cap_thread *threads;
    uint32_t nthreads;
    uint64_t unregistered_drops;
    uint32_t interner_drops;
    char *categories; /* copy of desc.categories or NULL */
    int pid;
    char process_name[64];
    /* prepared view */
    int prepared;
    ludus__site_info *sites;
    uint32_t nsites;
    uint32_t *site_hash; /* open addressing: index + 1 */
    uint32_t site_hash_cap;
    uint32_t id_collisions;
    uint64_t events, dropped, incomplete, orphan_ends, filtered, frames;
    /* Capture files (capture_file.c): runs are loaded on demand by load_run
     * (threads' runs are NULL, nruns counts blocks); the site table and the
     * counts come from the file (prepared is set by the reader). */
    ludus__run_loader load_run;
    void *loader;
    /* Time cut (views made by the reader): only [cut_from_ns, cut_to_ns] is
     * streamed; scopes open across a bound are clipped to it. */
    int cut;
    int64_t cut_from_ns, cut_to_ns;
} ludus__captured;

LUDUS_HIDDEN extern ludus__captured ludus__last;

/* In-memory captures: turns each thread's chunk list into runs. End capture
 * only publishes the lists (its cost does not grow with the events); this
 * walks them on first use. 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__build_runs(ludus__captured *c);

/* Builds the site table and counts; 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__prepare(ludus__captured *c);
/* The public per-thread summary of a prepared thread. */
LUDUS_HIDDEN void ludus__thread_summary_fill(const ludus__cap_thread *th, ludus_thread_summary *out);
LUDUS_HIDDEN int64_t ludus__ticks_to_ns(const ludus__captured *c, uint64_t ticks);
LUDUS_HIDDEN uint32_t ludus__site_index(const ludus__captured *c, uintptr_t key);
/* Adds a fully described site (capture files); its strings are borrowed.
 * 0, LUDUS_ENOMEM, or LUDUS_EFORMAT when the key is already present. */
LUDUS_HIDDEN int ludus__site_insert(ludus__captured *c, const ludus__site_info *si);

/* Normalised events. */
enum {
    LUDUS_NEV_BEGIN = 1,
    LUDUS_NEV_END,
    LUDUS_NEV_INSTANT,
    LUDUS_NEV_FRAME,
    LUDUS_NEV_FLOW_OUT,
    LUDUS_NEV_FLOW_IN,
    LUDUS_NEV_COUNTER,    /* value: int64 */
    LUDUS_NEV_COUNTER_F64 /* value: double bits */
};
#define LUDUS_NEV_INCOMPLETE 1u /* END synthesised at capture end (or at a cut) */
#define LUDUS_NEV_CLIPPED 2u    /* BEGIN or END moved to the bound of a time cut */

typedef struct ludus__nev {
    uint32_t kind;
    uint32_t flags;
    uint32_t site;  /* index into c->sites; UINT32_MAX for none */
    uint32_t depth; /* open scopes below this event */
    int64_t ts_ns;  /* since capture start */
    uint64_t value; /* flow id, counter value, frame number */
} ludus__nev;

typedef struct ludus__open {
    uint32_t site; /* UINT32_MAX: filtered begin */
    int64_t ts_ns;
} ludus__open;

/* Tick to ns conversion without a 128-bit division per event: a rounded
 * fixed-point reciprocal of the calibration ratio (within 1 ns). */
typedef struct ludus__tick_conv {
    int fast; /* 0: use ludus__ticks_to_ns */
    uint64_t t0, dn, dt, m;
    unsigned shift;
    int64_t base;
} ludus__tick_conv;

typedef struct ludus__nev_iter {
    const ludus__captured *c;
    ludus__tick_conv conv;
    const ludus__cap_thread *th;
    uint32_t run;
    size_t pos;
    ludus__open *stack;
    uint32_t depth, cap;
    int closing; /* the stream ended: emitting incomplete ends */
    int oom;
    uint64_t frame_no;
    /* counts of this pass */
    uint64_t events, incomplete, orphan_ends, filtered, frames;
    /* capture files: the loaded run and where the next one is */
    uint64_t cursor;
    ludus__run lrun;
    int loaded;
    int load_error; /* LUDUS_E* code when a run could not be loaded (oom is set too) */
    ludus__run_buf rbuf;
    /* time cut state (capture_file.c) */
    int cut_state;
    uint32_t cut_i, cut_n;
    ludus__nev held;
} ludus__nev_iter;

LUDUS_HIDDEN void ludus__nev_init(ludus__nev_iter *it, const ludus__captured *c, uint32_t thread);
/* 1: *out holds the next event; 0: end of the thread's stream. */
LUDUS_HIDDEN int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out);
LUDUS_HIDDEN void ludus__nev_free(ludus__nev_iter *it);
/* The stream without a time cut (ludus__nev_next applies c->cut). */
LUDUS_HIDDEN int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out);
LUDUS_HIDDEN int ludus__nev_next_cut(ludus__nev_iter *it, ludus__nev *out);

#endif
