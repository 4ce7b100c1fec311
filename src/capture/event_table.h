/* Event kinds as the readers see them. src/record/event_kinds.h says how each
 * raw kind is laid out; this header says what its columns mean to a reader,
 * and holds the two tables only readers have:
 *   - payloads: what each half of a kind's second slot is (a field type), so
 *     the block codec, the .ludus reader's checks, the pool file's journal,
 *     the site table and the normaliser each iterate fields, never kinds;
 *   - normalised kinds: how JSON, Perfetto protobuf and the analysis treat
 *     the event a raw one becomes.
 * A new kind is a row in event_kinds.h (an extension kind: LUDUS__EXT_KINDS)
 * and, when it is a new normalised kind, a row in LUDUS__NEV_KINDS here; a
 * new field type is the only thing that adds a case to a switch
 * (normalize.c's on_pass, block_codec.c). */
#ifndef LUDUS_EVENT_TABLE_H
#define LUDUS_EVENT_TABLE_H

#include "../platform/platform.h"
#include "../record/event_kinds.h"

/* The word column. */
enum { LUDUS__W_NONE, LUDUS__W_SITE, LUDUS__W_SITE0, LUDUS__W_REF };
/* The role column. */
enum {
    LUDUS__R_PASS,
    LUDUS__R_OPEN,
    LUDUS__R_CLOSE,
    LUDUS__R_SPAN_OPEN,
    LUDUS__R_SPAN_CLOSE,
    LUDUS__R_UNWIND,
    LUDUS__R_FIBER
};

/* Field types: how one half of a payload slot is held (the u64 "value"
 * half, or the word half). What a field type means is written once: here
 * (its site key, ludus__field_key; its data, ludus__field_has_data), in
 * normalize.c's on_pass (where the normalised event takes it) and in
 * block_codec.c (its compact encoding).
 *   ZERO       nothing (0)
 *   U64        a number
 *   I64        a signed number
 *   F64        a double's bits
 *   SITE       a site key, or 0 (the async zone's track)
 *   FLOW_NAME  the address of a flow's name (its site key: LUDUS__FLOW_NAME_KEY)
 *   SLOT       the address of a slot of the same thread, or 0 (an unwind point)
 *   STAT       a frame statistic, below LUDUS__STAT_COUNT
 *   EXT        an extension's sub-kind and data length (LUDUS__EXT_WORD);
 *              the data follows in LUDUS__TEXT_SLOTS(length) slots
 *   TEXT       a message's text length in format 4, the text following as
 *              for EXT: read as the MESSAGE extension (format 5 has no TEXT) */
enum {
    LUDUS__F_ZERO,
    LUDUS__F_U64,
    LUDUS__F_I64,
    LUDUS__F_F64,
    LUDUS__F_SITE,
    LUDUS__F_FLOW_NAME,
    LUDUS__F_SLOT,
    LUDUS__F_STAT,
    LUDUS__F_EXT,
    LUDUS__F_TEXT
};

/* Payloads: X(NAME, value field, word field). The compact encoding writes
 * the value field, then the word field (then an EXT's or TEXT's data). */
#define LUDUS__PAYLOADS(X)        \
    X(NONE, ZERO, ZERO)           \
    X(FLOW, U64, ZERO)            \
    X(FLOW_NAMED, U64, FLOW_NAME) \
    X(I64, I64, ZERO)             \
    X(F64, F64, ZERO)             \
    X(POINT, SLOT, U64)           \
    X(STAT, I64, STAT)            \
    X(ASYNC, U64, SITE)           \
    X(SWITCH, U64, ZERO)          \
    X(EXT, I64, EXT)              \
    X(TEXT, U64, TEXT)

enum {
#define LUDUS__PAYLOAD_ENUM(name, value, word) LUDUS__P_##name,
    LUDUS__PAYLOADS(LUDUS__PAYLOAD_ENUM)
#undef LUDUS__PAYLOAD_ENUM
        LUDUS__P_COUNT
};

/* What an extension's data bytes are. */
enum { LUDUS__D_NONE, LUDUS__D_TEXT, LUDUS__D_FORMAT_ARGS };

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
    LUDUS__TR_MESSAGE,
    LUDUS__TR_ARG,
    LUDUS__TR_FRAME_CPU /* the analysis: the frame thread's CPU time at the mark before it */
};

/* What a normalised event's value is (the arg exporters write for it). */
enum { LUDUS__V_NONE, LUDUS__V_I64, LUDUS__V_U64, LUDUS__V_F64, LUDUS__V_TEXT };

/* Normalised kinds: X(NAME, json, pftrace, analysis, category, label, attach, value)
 * Fields a kind gives its own meaning: MESSAGE: value = level, series = the
 * text's length, begin_ns = where the text is (ludus__nev_text); ASYNC_*:
 * value = zone id, series = the track's site index (exports and the
 * analysis take async zones from the capture's zone list, src/capture/async.c,
 * not from the thread streams). An ASYNC raw event without a site is the
 * end (the kind after ASYNC_BEGIN).
 *   json, pftrace, analysis  the treatment (LUDUS__TR_*) each gives it
 *   category                 the category when the site names none
 *   label                    the name of an event without a site (NULL: none)
 *   attach                   1: it belongs to the slice open on its thread when
 *                            it was recorded (the innermost, lexical or span):
 *                            its lane and depth are that slice's, so the next
 *                            END of that lane and depth is that slice's end
 *                            (depth UINT32_MAX: none was open)
 *   value                    what its value (and text) is: LUDUS__V_* */
#define LUDUS__NEV_KINDS(X)                                                                             \
    X(BEGIN, SLICE_BEGIN, SLICE_BEGIN, SLICE_BEGIN, "default", NULL, 0, NONE)                           \
    X(END, SLICE_END, SLICE_END, SLICE_END, "default", NULL, 0, NONE)                                   \
    X(MARK, INSTANT, INSTANT, NONE, "mark", NULL, 0, NONE)                                              \
    X(FRAME, FRAME, FRAME, FRAME, "frame", NULL, 0, NONE)                                               \
    X(FLOW_OUT, FLOW_OUT, FLOW_OUT, NONE, "flow", NULL, 0, NONE)                                        \
    X(FLOW_IN, FLOW_IN, FLOW_IN, NONE, "flow", "flow in", 0, NONE)                                      \
    X(COUNTER, COUNTER_I64, COUNTER_I64, COUNTER_I64, "counter", NULL, 0, I64)                          \
    X(COUNTER_F64, COUNTER_F64, COUNTER_F64, COUNTER_F64, "counter", NULL, 0, F64)                      \
    X(FRAME_STAT, COUNTER_I64, COUNTER_I64, COUNTER_I64, "counter", NULL, 0, I64)                       \
    X(LOSS, INSTANT, INSTANT, NONE, "ludus", "ludus: events lost from here on (see metadata)", 0, NONE) \
    X(MISMATCH, INSTANT, INSTANT, NONE, "ludus", "<span end without begin>", 0, NONE)                   \
    X(CRASH, INSTANT, INSTANT, NONE, "ludus", "ludus: the process crashed here", 0, NONE)               \
    X(MESSAGE, MESSAGE, MESSAGE, MESSAGE, "log", NULL, 0, TEXT)                                         \
    X(ASYNC_BEGIN, NONE, NONE, NONE, "async", NULL, 0, NONE)                                            \
    X(ASYNC_END, NONE, NONE, NONE, "async", NULL, 0, NONE)                                              \
    X(ARG_I64, ARG, ARG, ARG, "annotation", NULL, 1, I64)                                               \
    X(ARG_U64, ARG, ARG, ARG, "annotation", NULL, 1, U64)                                               \
    X(ARG_F64, ARG, ARG, ARG, "annotation", NULL, 1, F64)                                               \
    X(ARG_TEXT, ARG, ARG, ARG, "annotation", NULL, 1, TEXT)                                             \
    X(FRAME_CPU, NONE, NONE, FRAME_CPU, "frame", NULL, 0, I64)

enum {
    LUDUS_NEV_NONE = 0,
#define LUDUS__NEV_ENUM(name, json, pftrace, analysis, category, label, attach, value) LUDUS_NEV_##name,
    LUDUS__NEV_KINDS(LUDUS__NEV_ENUM)
#undef LUDUS__NEV_ENUM
        LUDUS_NEV_COUNT
};

/* A raw kind as a reader uses it (the columns of event_kinds.h, resolved). */
typedef struct ludus__kind_info {
    uint8_t valid, word, payload, role, nev, slots, since;
    uint8_t value_field, word_field; /* LUDUS__F_*: the payload's */
} ludus__kind_info;

/* An extension kind as a reader uses it (valid 0: unknown to this reader). */
typedef struct ludus__ext_info {
    uint8_t valid, data, nev;
    const char *name;
} ludus__ext_info;

typedef struct ludus__nev_info {
    const char *name;
    uint8_t json, pftrace, analysis;
    const char *category, *label;
    uint8_t attach, value;
} ludus__nev_info;

typedef struct ludus__payload_info {
    uint8_t value_field, word_field;
} ludus__payload_info;

/* Counter tracks per site: 0 for plain samples (plots, sample_counter,
 * memory gauges), 1 + stat for the frame statistics (event_kinds.h). */
#define LUDUS__SERIES_PER_SITE (1u + LUDUS__STAT_COUNT)

/* Indexed by the raw kind (0..15): the kinds of the format this library
 * writes, which every capture holds once read (a reader turns older kinds
 * into these). ludus__kind_in_format gives a kind as a file of that format
 * version holds it (format 4 and older had MESSAGE where EXT is). Then by
 * sub-kind, by payload and by LUDUS_NEV_*. */
LUDUS_HIDDEN extern const ludus__kind_info ludus__kinds[16];
LUDUS_HIDDEN extern const ludus__ext_info ludus__exts[256];
LUDUS_HIDDEN extern const ludus__payload_info ludus__payloads[LUDUS__P_COUNT];
LUDUS_HIDDEN extern const ludus__nev_info ludus__nevs[LUDUS_NEV_COUNT];
LUDUS_HIDDEN extern const ludus__kind_info ludus__kind_message_v4; /* format 4's kind 13: MESSAGE {level, length} */
/* Inline: the compact decoder asks it for every event. */
static inline const ludus__kind_info *ludus__kind_in_format(uint32_t format_version, unsigned kind) {
    kind &= LUDUS__K_MASK;
    return kind == LUDUS__KIND_EXT && format_version < 5 ? &ludus__kind_message_v4 : &ludus__kinds[kind];
}

/* 1 when a word field carries a length and data slots follow. */
static inline int ludus__field_has_data(unsigned f) {
    return f == LUDUS__F_EXT || f == LUDUS__F_TEXT;
}

/* The data length a word field says (EXT, TEXT), 0 for the others. */
static inline size_t ludus__field_data_len(unsigned f, uintptr_t word) {
    return f == LUDUS__F_EXT ? LUDUS__EXT_LEN(word) : f == LUDUS__F_TEXT ? (size_t)word : 0;
}

/* The slots of the event at e (kind info ki), of which avail (>= 1) are
 * readable: the kind's, plus the data of an EXT or TEXT payload. 0 for an
 * unknown kind; more than avail for an event cut by the end of its run
 * (only a damaged file). */
static inline size_t ludus__event_slots_in(const ludus__kind_info *ki, const ludus__event *e, size_t avail) {
    if (!ludus__field_has_data(ki->word_field) || avail < 2) return ki->slots;
    size_t len = ludus__field_data_len(ki->word_field, e[1].word);
    return len > LUDUS__EXT_DATA_MAX ? (size_t)1 << 40 : 2 + LUDUS__TEXT_SLOTS(len);
}

static inline size_t ludus__event_slots(const ludus__event *e, size_t avail) {
    return ludus__event_slots_in(&ludus__kinds[e->word & LUDUS__K_MASK], e, avail);
}

/* Site-table key of a flow name: the name's address shifted left with a 1
 * in the low bits. Descriptors are 16-aligned (low 4 bits 0) and names are
 * byte-aligned, so the two kinds of key never collide. */
#define LUDUS__FLOW_NAME_KEY(name_word) (((uintptr_t)(name_word) << 4) | 1u)
#define LUDUS__FLOW_NAME_PTR(key) ((const char *)((uintptr_t)(key) >> 4))

/* A format 4 message's payload {level (| 0x100: deferred), text length}
 * as the MESSAGE extension's {level, LUDUS__EXT_WORD(code, length)}. */
static inline void ludus__upgrade_text_payload(ludus__event *p) {
    unsigned code = (p->ticks & 0x100u) ? LUDUS__EXT_MESSAGE_DEFERRED : LUDUS__EXT_MESSAGE;
    p->ticks &= ~(uint64_t)0x100u;
    p->word = LUDUS__EXT_WORD(code, p->word);
}

/* The site key a field's value names, or 0. */
static inline uintptr_t ludus__field_key(unsigned f, uint64_t v) {
    if (f == LUDUS__F_SITE) return (uintptr_t)v;
    if (f == LUDUS__F_FLOW_NAME) return v ? LUDUS__FLOW_NAME_KEY(v) : 0;
    return 0;
}

/* The site keys an event names (at most three: its word's, and one per
 * payload field), from values the caller has read: w0 the event's word,
 * p the payload slot (ignored for one-slot kinds). Pure: it reads no
 * memory, so the pool file's journal, which reads words being written,
 * calls it on what it loaded itself. Returns how many keys it wrote. */
static inline unsigned ludus__event_keys(const ludus__kind_info *ki, uintptr_t w0, uint64_t p_value, uintptr_t p_word,
                                         uintptr_t keys[3]) {
    unsigned n = 0;
    uintptr_t k;
    if ((ki->word == LUDUS__W_SITE || ki->word == LUDUS__W_SITE0) && (k = w0 & ~(uintptr_t)LUDUS__K_MASK))
        keys[n++] = k;
    if (ki->slots < 2) return n;
    if ((k = ludus__field_key(ki->value_field, p_value))) keys[n++] = k;
    if ((k = ludus__field_key(ki->word_field, (uint64_t)p_word))) keys[n++] = k;
    return n;
}

#endif
