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
enum { LUDUS__P_NONE, LUDUS__P_FLOW, LUDUS__P_FLOW_NAMED, LUDUS__P_I64, LUDUS__P_F64, LUDUS__P_POINT };
enum { LUDUS__R_PASS, LUDUS__R_OPEN, LUDUS__R_CLOSE, LUDUS__R_SPAN_OPEN, LUDUS__R_SPAN_CLOSE, LUDUS__R_UNWIND };

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
    LUDUS__TR_COUNTER_F64
};

/* Normalised kinds: X(NAME, json, pftrace, analysis, category, label)
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
    X(COUNTER, COUNTER_I64, COUNTER_I64, NONE, "counter", NULL)                                \
    X(COUNTER_F64, COUNTER_F64, COUNTER_F64, NONE, "counter", NULL)                            \
    X(LOSS, INSTANT, INSTANT, NONE, "ludus", "ludus: events lost from here on (see metadata)") \
    X(MISMATCH, INSTANT, INSTANT, NONE, "ludus", "<span end without begin>")

enum {
    LUDUS_NEV_NONE = 0,
#define LUDUS__NEV_ENUM(name, json, pftrace, analysis, category, label) LUDUS_NEV_##name,
    LUDUS__NEV_KINDS(LUDUS__NEV_ENUM)
#undef LUDUS__NEV_ENUM
        LUDUS_NEV_COUNT
};

typedef struct ludus__kind_info {
    uint8_t valid, word, payload, role, nev, slots;
} ludus__kind_info;

typedef struct ludus__nev_info {
    const char *name;
    uint8_t json, pftrace, analysis;
    const char *category, *label;
} ludus__nev_info;

/* Indexed by the raw kind (0..15) and by LUDUS_NEV_*; built from the tables. */
LUDUS_HIDDEN extern const ludus__kind_info ludus__kinds[16];
LUDUS_HIDDEN extern const ludus__nev_info ludus__nevs[LUDUS_NEV_COUNT];

#endif
