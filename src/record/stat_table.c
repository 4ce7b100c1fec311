/* The statistics' table (LUDUS__STATS, event_kinds.h): a file of its own,
 * so that what reads it (the exporters, the analysis library's private copy
 * of the capture model) takes none of the counters' state with it. */
#include "event_kinds.h"

const ludus__stat_info ludus__stats[LUDUS__STAT_COUNT] = {
#define LUDUS__STAT_ROW(name, series, owner, unit, per_frame) \
    [LUDUS__STAT_##name] = {#name, series, unit, LUDUS__OWNER_##owner, per_frame},
    LUDUS__FRAME_STATS(LUDUS__STAT_ROW)
#undef LUDUS__STAT_ROW
};
