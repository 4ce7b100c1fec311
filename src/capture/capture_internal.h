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
    ludus__run *runs;
    uint32_t nruns;
    /* from the prepared view */
    uint64_t events, incomplete, orphan_ends, filtered, frames;
} ludus__cap_thread;

/* A site as exported: strings are borrowed (static descriptors, the run-time
 * table or flow-name literals), valid while the library is loaded. */
typedef struct ludus__site_info {
    uintptr_t key;     /* descriptor address, or flow-name address | 1 */
    const char *name;  /* display name, quotes of a literal stripped */
    size_t name_len;
    const char *function;
    const char *file;
    const char *category; /* NULL: none; not NUL-terminated at category_len */
    size_t category_len;
    uint32_t line;
    uint32_t id;       /* stable: FNV-1a of name, file and line */
    int enabled;       /* category enabled in this capture */
} ludus__site_info;

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
} ludus__captured;

LUDUS_HIDDEN extern ludus__captured ludus__last;

/* Builds the site table and counts; 0 or LUDUS_ENOMEM. */
LUDUS_HIDDEN int ludus__prepare(ludus__captured *c);
LUDUS_HIDDEN int64_t ludus__ticks_to_ns(const ludus__captured *c, uint64_t ticks);
LUDUS_HIDDEN uint32_t ludus__site_index(const ludus__captured *c, uintptr_t key);

/* Normalised events. */
enum {
    LUDUS_NEV_BEGIN = 1,
    LUDUS_NEV_END,
    LUDUS_NEV_INSTANT,
    LUDUS_NEV_FRAME,
    LUDUS_NEV_FLOW_OUT,
    LUDUS_NEV_FLOW_IN,
    LUDUS_NEV_COUNTER,     /* value: int64 */
    LUDUS_NEV_COUNTER_F64  /* value: double bits */
};
#define LUDUS_NEV_INCOMPLETE 1u /* END synthesised at capture end */

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

typedef struct ludus__nev_iter {
    const ludus__captured *c;
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
} ludus__nev_iter;

LUDUS_HIDDEN void ludus__nev_init(ludus__nev_iter *it, const ludus__captured *c, uint32_t thread);
/* 1: *out holds the next event; 0: end of the thread's stream. */
LUDUS_HIDDEN int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out);
LUDUS_HIDDEN void ludus__nev_free(ludus__nev_iter *it);

#endif
