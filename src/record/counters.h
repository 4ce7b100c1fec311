/* Counters, gauges, memory domains and the ring of recent frames
 * (counters.c): what the overlay, the live API and the capture's memory
 * manifest read. Readers take ludus__live_lock around every use. */
#ifndef LUDUS_COUNTERS_H
#define LUDUS_COUNTERS_H

#include <ludus/profiling.h>

#include "../platform/platform.h"

#define LUDUS__MAX_COUNTERS 128u
#define LUDUS__MAX_GAUGES 32u
#define LUDUS__MAX_DOMAINS 16u
#define LUDUS__MAX_OUTSIDE 8u
/* Shard slots: 0 unused, counters 1 each, domains 4 each, the last a sink
 * for counters beyond the table. */
#define LUDUS__SHARD_SLOTS (2u + LUDUS__MAX_COUNTERS + 4u * LUDUS__MAX_DOMAINS)
#define LUDUS__SINK_SLOT (LUDUS__SHARD_SLOTS - 1u)
#define LUDUS__RING_DEFAULT 256u
#define LUDUS__RING_MAX 65536u

/* One ring row: a closed frame's values. Counters: the frame's sum; gauges:
 * last, min, max (INT64_MIN: never set); domains: the LUDUS__STAT_MEM_*
 * statistics in table order. */
#define LUDUS__DOMAIN_VALUES 7u
#define LUDUS__ROW_COUNTER(i) (i)
#define LUDUS__ROW_GAUGE(i) (LUDUS__MAX_COUNTERS + 3u * (i))
#define LUDUS__ROW_DOMAIN(i) (LUDUS__MAX_COUNTERS + 3u * LUDUS__MAX_GAUGES + LUDUS__DOMAIN_VALUES * (i))
#define LUDUS__ROW_VALUES (LUDUS__MAX_COUNTERS + 3u * LUDUS__MAX_GAUGES + LUDUS__DOMAIN_VALUES * LUDUS__MAX_DOMAINS)

typedef struct ludus__ring_row {
    uint64_t number;          /* 1, 2, ...: frame n lies between marks n and n+1; 0: the lead-in */
    int64_t begin_ns, end_ns; /* monotonic clock; begin 0 for the lead-in */
    uint32_t ncounters, ngauges, ndomains;
    uint32_t gauges_set;      /* bit i: gauge i has a value in this frame (any int64 is a value: no sentinel) */
    uint32_t domains_unknown; /* bit i: domain i's live figures are unknown (a free of older memory) */
} ludus__ring_row;

/* Gauge i of row has a value. */
static inline int ludus__row_gauge_set(const ludus__ring_row *row, uint32_t i) {
    return i < row->ngauges && (row->gauges_set >> i & 1u);
}

typedef struct ludus__ring {
    ludus__ring_row *rows;
    int64_t *values; /* cap x LUDUS__ROW_VALUES */
    uint32_t cap;
    uint32_t want;   /* frames are kept even with nothing counted (the overlay's frame times) */
    uint64_t closed; /* rows written so far; the newest is (closed - 1) % cap */
} ludus__ring;

typedef struct ludus__domain_info {
    char name[64];
    uint32_t site_id; /* the site "Memory/<name>" */
    int has_baseline, underflow;
    int64_t since_ns; /* registration, monotonic clock */
    int64_t baseline_bytes, baseline_allocs;
    int64_t live_bytes, live_allocs, peak_bytes;
    int64_t alloc_bytes, allocs, free_bytes, frees; /* since registration */
} ludus__domain_info;

typedef struct ludus__outside_note {
    char what[64];
    uint64_t bytes;
} ludus__outside_note;

typedef struct ludus__live_item {
    int owner;  /* LUDUS__OWNER_* */
    uint32_t i; /* within its owner's table */
    const ludus_site *site;
    const char *domain; /* memory: its name */
} ludus__live_item;

LUDUS_HIDDEN void ludus__live_lock(void);
LUDUS_HIDDEN void ludus__live_unlock(void);
LUDUS_HIDDEN const ludus__ring *ludus__live_ring(void);
LUDUS_HIDDEN void ludus__live_want_frames(void);
LUDUS_HIDDEN int ludus__ring_configure(uint32_t frames);
LUDUS_HIDDEN uint32_t ludus__live_items(ludus__live_item *out, uint32_t cap);
LUDUS_HIDDEN uint32_t ludus__live_domains(ludus__domain_info *out, uint32_t cap);
LUDUS_HIDDEN uint32_t ludus__live_outside(ludus__outside_note *out, uint32_t cap);
LUDUS_HIDDEN uint32_t ludus__live_refused(void);
/* Counts and memory-hook calls of threads that could get no shard. */
LUDUS_HIDDEN uint64_t ludus__live_lost_adds(void);
LUDUS_HIDDEN uint64_t ludus__live_shard_bytes(void);
/* In the child that writes a crash (crash.c): the lock made anew, as any
 * thread of the crashed process may have held it. */
LUDUS_HIDDEN void ludus__counters_crash_reset(void);
/* Installs the counters' fork handlers (once; their first lock does too). */
LUDUS_HIDDEN void ludus__counters_fork_install(void);

/* emit.c: one event with a payload slot; 0 when dropped or idle. */

#endif
