/* The event kinds: how each event is laid out in a thread's buffer, one row
 * per kind. The recorder writes by these rows; every reader (the normalised
 * stream, the .ludus codec and reader, the pool file's journal, the site
 * table) derives what it does from them through src/capture/event_table.h,
 * which says what the columns mean to a reader. Only the values the inline
 * hot path writes are in <ludus/profiling.h> (LUDUS__K_END, _BEGIN, _MARK);
 * the rows below use them.
 *
 * Room: the kind is the low 4 bits of a 16-aligned word, so there are 15
 * kinds and all are taken. Kinds added from here on are extension kinds
 * (LUDUS__EXT_KINDS below): one raw kind, EXT, whose payload names the
 * sub-kind. docs/format.md, "Event kinds", has the rule for the next kind. */
#ifndef LUDUS_EVENT_KINDS_H
#define LUDUS_EVENT_KINDS_H

#include <ludus/profiling.h>

#include "../platform/platform.h"

/* X(NAME, value, word, payload, role, nev, since)
 *   value    the kind in the word's low 4 bits (0 is never written)
 *   word     SITE  a site descriptor's address
 *            SITE0 a site descriptor's address, or none (0)
 *            REF   a begin's token: the begin slot's address | 1
 *            NONE  nothing but the kind
 *   payload  the second slot {u64, word} (LUDUS__PAYLOADS in
 *            src/capture/event_table.h: how each half is held), NONE when
 *            the event has one slot
 *   role     how the reader pairs it: OPEN/CLOSE (lexical scopes, an end
 *            names its begin), SPAN_OPEN/SPAN_CLOSE (spans, by site),
 *            UNWIND (closes the scopes begun after a point), FIBER (a span
 *            on the thread's track while it runs the fiber; the reader
 *            moves what lies between to the fiber's track), PASS (as is)
 *   nev      the normalised event it becomes (src/capture/event_table.h);
 *            EXT: its sub-kind's
 *   since    the .ludus format version that added it (older files never
 *            hold it) */
#define LUDUS__EVENT_KINDS(X)                            \
    X(END, LUDUS__K_END, REF, NONE, CLOSE, END, 2)       \
    X(BEGIN, LUDUS__K_BEGIN, SITE, NONE, OPEN, BEGIN, 2) \
    X(MARK, LUDUS__K_MARK, SITE, NONE, PASS, MARK, 2)    \
    X(FRAME, 4, SITE, NONE, PASS, FRAME, 2)              \
    X(FLOW_OUT, 5, NONE, FLOW_NAMED, PASS, FLOW_OUT, 2)  \
    X(FLOW_IN, 6, NONE, FLOW, PASS, FLOW_IN, 2)          \
    X(COUNTER, 7, SITE, I64, PASS, COUNTER, 2)           \
    X(COUNTER_F64, 8, SITE, F64, PASS, COUNTER_F64, 2)   \
    X(SPAN_BEGIN, 9, SITE, NONE, SPAN_OPEN, BEGIN, 2)    \
    X(SPAN_END, 10, SITE0, NONE, SPAN_CLOSE, END, 2)     \
    X(UNWIND, 11, NONE, POINT, UNWIND, END, 2)           \
    X(FRAME_STAT, 12, SITE, STAT, PASS, FRAME_STAT, 3)   \
    X(EXT, 13, SITE0, EXT, PASS, NONE, 5)                \
    X(ASYNC, 14, SITE0, ASYNC, PASS, ASYNC_BEGIN, 4)     \
    X(FIBER, 15, SITE, SWITCH, FIBER, BEGIN, 4)

enum {
#define LUDUS__KIND_ENUM(name, value, word, payload, role, nev, since) LUDUS__KIND_##name = value,
    LUDUS__EVENT_KINDS(LUDUS__KIND_ENUM)
#undef LUDUS__KIND_ENUM
};

/* Extension kinds: an EXT event is {ticks, site or 0 | EXT}, then
 * {value, sub-kind | data length << 8}, then the data (length bytes, at
 * most LUDUS__EXT_DATA_MAX) in ceil(length / 16) more slots. Every
 * extension has that layout, so a reader that does not know a sub-kind
 * still knows its size and its one site key, and skips it (counted).
 * A new sub-kind needs no new format version: readers that do not know it
 * skip it and count it (docs/format.md, "Event kinds").
 *   X(NAME, code, data, nev)
 *   code   the sub-kind (1..255, never reused)
 *   data   what the data bytes are: NONE, TEXT (UTF-8 or not, cleaned when
 *          read), FORMAT_ARGS (LUDUS_PROFILE_LOG's packed arguments; the
 *          site's name is the format: src/record/printf_spec.h)
 *   nev    the normalised event it becomes; its value is the slot's value
 * ARG_*: a scope annotation (LUDUS_PROFILE_ANNOTATE): the site is the
 * annotation's name, the value a number (double bits for F64) or the data
 * a text; it belongs to the scope open on the thread.
 * FRAME_CPU: the frame mark's site; the value is the frame thread's CPU time (ns, its
 * thread clock) at the frame mark it follows, written with that mark in one
 * claim (ludus__frame_with_cpu): a frame's CPU time is the difference of
 * two marks' values. */
#define LUDUS__EXT_KINDS(X)                      \
    X(MESSAGE, 1, TEXT, MESSAGE)                 \
    X(MESSAGE_DEFERRED, 2, FORMAT_ARGS, MESSAGE) \
    X(ARG_I64, 3, NONE, ARG_I64)                 \
    X(ARG_U64, 4, NONE, ARG_U64)                 \
    X(ARG_F64, 5, NONE, ARG_F64)                 \
    X(ARG_TEXT, 6, TEXT, ARG_TEXT)               \
    X(FRAME_CPU, 7, NONE, FRAME_CPU)

enum {
#define LUDUS__EXT_ENUM(name, code, data, nev) LUDUS__EXT_##name = code,
    LUDUS__EXT_KINDS(LUDUS__EXT_ENUM)
#undef LUDUS__EXT_ENUM
};

/* The data of an extension event: at most this many bytes (a message's
 * text is cut to it: LUDUS_MESSAGE_MAX), in this many slots. */
#define LUDUS__EXT_DATA_MAX 1024u
_Static_assert(LUDUS_MESSAGE_MAX <= LUDUS__EXT_DATA_MAX, "a message's text fits an extension's data");
_Static_assert(LUDUS_ANNOTATION_TEXT_MAX <= LUDUS__EXT_DATA_MAX, "an annotation's text fits an extension's data");
/* An annotation text's value (unused by the text): bit 0 set when
 * LUDUS_ANNOTATION_TEXT_MAX cut it (files keep it; readers count it). */
#define LUDUS__ARG_TEXT_CUT 1u
#define LUDUS__TEXT_SLOTS(len) (((size_t)(len) + 15u) / 16u)
/* The payload word of an extension event. */
#define LUDUS__EXT_WORD(code, len) ((uintptr_t)(code) | ((uintptr_t)(len) << 8))
#define LUDUS__EXT_CODE(word) ((unsigned)((word)&0xffu))
#define LUDUS__EXT_LEN(word) ((size_t)((uintptr_t)(word) >> 8))

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

typedef struct ludus__stat_info {
    const char *name, *series, *unit;
    uint8_t owner, per_frame;
} ludus__stat_info;
LUDUS_HIDDEN extern const ludus__stat_info ludus__stats[LUDUS__STAT_COUNT];

#endif
