/* The kind tables of profiling.h and nev_kinds.h as arrays. */
#include "nev_kinds.h"

const ludus__kind_info ludus__kinds[16] = {
#define LUDUS__KIND_ROW(name, value, word, payload, role, nev, since) \
    [value] = {1,                                                     \
               LUDUS__W_##word,                                       \
               LUDUS__P_##payload,                                    \
               LUDUS__R_##role,                                       \
               LUDUS_NEV_##nev,                                       \
               LUDUS__P_##payload == LUDUS__P_NONE ? 1 : 2,           \
               since},
    LUDUS__EVENT_KINDS(LUDUS__KIND_ROW)
#undef LUDUS__KIND_ROW
};

const ludus__nev_info ludus__nevs[LUDUS_NEV_COUNT] = {
    [LUDUS_NEV_NONE] = {"none", LUDUS__TR_NONE, LUDUS__TR_NONE, LUDUS__TR_NONE, "", NULL},
#define LUDUS__NEV_ROW(name, json, pftrace, analysis, category, label) \
    [LUDUS_NEV_##name] = {#name, LUDUS__TR_##json, LUDUS__TR_##pftrace, LUDUS__TR_##analysis, category, label},
    LUDUS__NEV_KINDS(LUDUS__NEV_ROW)
#undef LUDUS__NEV_ROW
};

const ludus__stat_info ludus__stats[LUDUS__STAT_COUNT] = {
#define LUDUS__STAT_ROW(name, series, owner, unit, per_frame) \
    [LUDUS__STAT_##name] = {#name, series, unit, LUDUS__OWNER_##owner, per_frame},
    LUDUS__FRAME_STATS(LUDUS__STAT_ROW)
#undef LUDUS__STAT_ROW
};
