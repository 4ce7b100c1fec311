/* Event kinds as the readers see them. The raw kinds (LUDUS__EVENT_KINDS in
 * profiling.h) say how an event is recorded and paired; each becomes one of
 * the normalised kinds below, and this table is the only place that says how
 * JSON, Perfetto protobuf and the analysis treat a normalised kind. Adding a
 * kind with an existing treatment is one row in each table. */
#ifndef LUDUS_NEV_KINDS_H
#define LUDUS_NEV_KINDS_H

#include <ludus/profiling.h>

#include "../platform/platform.h"

/* Columns of the raw table. */
enum { LUDUS__W_NONE, LUDUS__W_SITE, LUDUS__W_SITE0, LUDUS__W_REF };
enum {
    LUDUS__P_NONE,
    LUDUS__P_FLOW,
    LUDUS__P_FLOW_NAMED,
    LUDUS__P_I64,
    LUDUS__P_F64,
    LUDUS__P_POINT,
    LUDUS__P_STAT,
    LUDUS__P_TEXT,
    LUDUS__P_ASYNC,
    LUDUS__P_SWITCH
};
enum {
    LUDUS__R_PASS,
    LUDUS__R_OPEN,
    LUDUS__R_CLOSE,
    LUDUS__R_SPAN_OPEN,
    LUDUS__R_SPAN_CLOSE,
    LUDUS__R_UNWIND,
    LUDUS__R_FIBER
};

/* Treatments (the columns below). */
enum {
    LUDUS__TR_NONE,
    LUDUS__TR_SLICE_BEGIN,
    LUDUS__TR_SLICE_END,
    LUDUS__TR_INSTANT,
    LUDUS__TR_FRAME,
    LUDUS__TR_FLOW_OUT,
    LUDUS__TR_FLOW_IN,
    LUDUS__TR_COUNTER_I64,
    LUDUS__TR_COUNTER_F64,
    LUDUS__TR_MESSAGE
};

/* Normalised kinds: X(NAME, json, pftrace, analysis, category, label)
 * Fields a kind gives its own meaning: MESSAGE: value = level, series = the
 * text's length, begin_ns = where the text is (ludus__nev_text); ASYNC_*:
 * value = zone id, series = the track's site index (exports and the
 * analysis take async zones from the capture's zone list, src/capture/async.c,
 * not from the thread streams). An ASYNC raw event without a site is the
 * end (the kind after ASYNC_BEGIN).
 *   json, pftrace, analysis  the treatment (LUDUS__TR_*) each gives it
 *   category                 the category when the site names none
 *   label                    the name of an event without a site (NULL: none) */
#define LUDUS__NEV_KINDS(X)                                                                    \
    X(BEGIN, SLICE_BEGIN, SLICE_BEGIN, SLICE_BEGIN, "default", NULL)                           \
    X(END, SLICE_END, SLICE_END, SLICE_END, "default", NULL)                                   \
    X(MARK, INSTANT, INSTANT, NONE, "mark", NULL)                                              \
    X(FRAME, FRAME, FRAME, FRAME, "frame", NULL)                                               \
    X(FLOW_OUT, FLOW_OUT, FLOW_OUT, NONE, "flow", NULL)                                        \
    X(FLOW_IN, FLOW_IN, FLOW_IN, NONE, "flow", "flow in")                                      \
    X(COUNTER, COUNTER_I64, COUNTER_I64, COUNTER_I64, "counter", NULL)                         \
    X(COUNTER_F64, COUNTER_F64, COUNTER_F64, COUNTER_F64, "counter", NULL)                     \
    X(FRAME_STAT, COUNTER_I64, COUNTER_I64, COUNTER_I64, "counter", NULL)                      \
    X(LOSS, INSTANT, INSTANT, NONE, "ludus", "ludus: events lost from here on (see metadata)") \
    X(MISMATCH, INSTANT, INSTANT, NONE, "ludus", "<span end without begin>")                   \
    X(CRASH, INSTANT, INSTANT, NONE, "ludus", "ludus: the process crashed here")               \
    X(MESSAGE, MESSAGE, MESSAGE, MESSAGE, "log", NULL)                                         \
    X(ASYNC_BEGIN, NONE, NONE, NONE, "async", NULL)                                            \
    X(ASYNC_END, NONE, NONE, NONE, "async", NULL)

enum {
    LUDUS_NEV_NONE = 0,
#define LUDUS__NEV_ENUM(name, json, pftrace, analysis, category, label) LUDUS_NEV_##name,
    LUDUS__NEV_KINDS(LUDUS__NEV_ENUM)
#undef LUDUS__NEV_ENUM
        LUDUS_NEV_COUNT
};

typedef struct ludus__kind_info {
    uint8_t valid, word, payload, role, nev, slots, since;
} ludus__kind_info;

typedef struct ludus__nev_info {
    const char *name;
    uint8_t json, pftrace, analysis;
    const char *category, *label;
} ludus__nev_info;

/* The per-frame statistics a frame's snapshot records (a FRAME_STAT event:
 * site, value, and its row here), one counter track each per site:
 *   X(NAME, series, owner, unit, per_frame)
 *   series     the track's name after the site's ("DrawCalls per frame")
 *   owner      what records it: COUNT (LUDUS_PROFILE_COUNT), GAUGE, MEMORY
 *   unit       "" or "bytes"
 *   per_frame  1: an amount of the frame (summed over frames); 0: a level */
#define LUDUS__FRAME_STATS(X)                                 \
    X(SUM, "per frame", COUNT, "", 1)                         \
    X(LAST, "last", GAUGE, "", 0)                             \
    X(MIN, "min", GAUGE, "", 0)                               \
    X(MAX, "max", GAUGE, "", 0)                               \
    X(MEM_LIVE, "live bytes", MEMORY, "bytes", 0)             \
    X(MEM_LIVE_ALLOCS, "live allocations", MEMORY, "", 0)     \
    X(MEM_PEAK, "peak live bytes", MEMORY, "bytes", 0)        \
    X(MEM_ALLOC_BYTES, "bytes allocated", MEMORY, "bytes", 1) \
    X(MEM_ALLOCS, "allocations", MEMORY, "", 1)               \
    X(MEM_FREE_BYTES, "bytes freed", MEMORY, "bytes", 1)      \
    X(MEM_FREES, "frees", MEMORY, "", 1)

enum { LUDUS__OWNER_COUNT, LUDUS__OWNER_GAUGE, LUDUS__OWNER_MEMORY };
enum {
#define LUDUS__STAT_ENUM(name, series, owner, unit, per_frame) LUDUS__STAT_##name,
    LUDUS__FRAME_STATS(LUDUS__STAT_ENUM)
#undef LUDUS__STAT_ENUM
        LUDUS__STAT_COUNT
};
/* Counter tracks per site: 0 for plain samples (plots, sample_counter,
 * memory gauges), 1 + stat for the statistics above. */
#define LUDUS__SERIES_PER_SITE (1u + LUDUS__STAT_COUNT)

typedef struct ludus__stat_info {
    const char *name, *series, *unit;
    uint8_t owner, per_frame;
} ludus__stat_info;
LUDUS_HIDDEN extern const ludus__stat_info ludus__stats[LUDUS__STAT_COUNT];

/* Indexed by the raw kind (0..15) and by LUDUS_NEV_*; built from the tables. */
LUDUS_HIDDEN extern const ludus__kind_info ludus__kinds[16];
LUDUS_HIDDEN extern const ludus__nev_info ludus__nevs[LUDUS_NEV_COUNT];

/* The slots of the event at e, of which avail (>= 1) are readable: the
 * kind's, plus the text of a TEXT payload. 0 for an unknown kind; more than
 * avail for an event cut by the end of its run (only a damaged file). */
static inline size_t ludus__event_slots(const ludus__event *e, size_t avail) {
    const ludus__kind_info *ki = &ludus__kinds[e->word & LUDUS__K_MASK];
    if (ki->payload != LUDUS__P_TEXT || avail < 2) return ki->slots;
    uint64_t len = (uint64_t)e[1].word;
    return len > LUDUS_MESSAGE_MAX ? (size_t)1 << 40 : 2 + LUDUS__TEXT_SLOTS(len);
}

#endif
