/* The kind tables of src/record/event_kinds.h and event_table.h as arrays. */
#include "event_table.h"

const ludus__payload_info ludus__payloads[LUDUS__P_COUNT] = {
#define LUDUS__PAYLOAD_ROW(name, value, word) [LUDUS__P_##name] = {LUDUS__F_##value, LUDUS__F_##word},
    LUDUS__PAYLOADS(LUDUS__PAYLOAD_ROW)
#undef LUDUS__PAYLOAD_ROW
};

/* A kind's payload fields, by payload name (for the rows below). */
#define LUDUS__VF(payload) LUDUS__PAYLOAD_VALUE_##payload
#define LUDUS__WF(payload) LUDUS__PAYLOAD_WORD_##payload
enum {
#define LUDUS__PAYLOAD_FIELDS(name, value, word) \
    LUDUS__PAYLOAD_VALUE_##name = LUDUS__F_##value, LUDUS__PAYLOAD_WORD_##name = LUDUS__F_##word,
    LUDUS__PAYLOADS(LUDUS__PAYLOAD_FIELDS)
#undef LUDUS__PAYLOAD_FIELDS
};

#define LUDUS__KIND_ROW(name, value, word, payload, role, nev, since) \
    [value] = {1,                                                     \
               LUDUS__W_##word,                                       \
               LUDUS__P_##payload,                                    \
               LUDUS__R_##role,                                       \
               LUDUS_NEV_##nev,                                       \
               LUDUS__P_##payload == LUDUS__P_NONE ? 1 : 2,           \
               since,                                                 \
               LUDUS__VF(payload),                                    \
               LUDUS__WF(payload)},

const ludus__kind_info ludus__kinds[16] = {LUDUS__EVENT_KINDS(LUDUS__KIND_ROW)};

#undef LUDUS__KIND_ROW

/* Format 4 and older: value 13 was MESSAGE, {level, text length} and the
 * text; the reader turns each into the MESSAGE extension it is now. */
const ludus__kind_info ludus__kind_message_v4 = {
    1, LUDUS__W_SITE, LUDUS__P_TEXT, LUDUS__R_PASS, LUDUS_NEV_MESSAGE, 2, 4, LUDUS__VF(TEXT), LUDUS__WF(TEXT)};

const ludus__ext_info ludus__exts[256] = {
#define LUDUS__EXT_ROW(name, code, data, nev) [code] = {1, LUDUS__D_##data, LUDUS_NEV_##nev, #name},
    LUDUS__EXT_KINDS(LUDUS__EXT_ROW)
#undef LUDUS__EXT_ROW
};

const ludus__nev_info ludus__nevs[LUDUS_NEV_COUNT] = {
    [LUDUS_NEV_NONE] = {"none", LUDUS__TR_NONE, LUDUS__TR_NONE, LUDUS__TR_NONE, "", NULL, 0, LUDUS__V_NONE},
#define LUDUS__NEV_ROW(name, json, pftrace, analysis, category, label, attach, value)                   \
    [LUDUS_NEV_##name] = {#name, LUDUS__TR_##json, LUDUS__TR_##pftrace, LUDUS__TR_##analysis, category, \
                          label, attach,           LUDUS__V_##value},
    LUDUS__NEV_KINDS(LUDUS__NEV_ROW)
#undef LUDUS__NEV_ROW
};
