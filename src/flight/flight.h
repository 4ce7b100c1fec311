/* The flight recorder's side for the live view and the tests (rolling.c;
 * its public side is include/ludus/rolling.h). */
#ifndef LUDUS_FLIGHT_H
#define LUDUS_FLIGHT_H

#include "../capture/capture_model.h"

/* The guest's rolling window (src/flight/rolling.c): begin refuses while
 * anyone holds the recorder; end ends only the guest's; runs: 1 while it
 * runs (0 once the program took the recorder). A snapshot of whichever
 * window runs, the program's or the guest's (the live view reads both). */
struct ludus_rolling_desc;
LUDUS_HIDDEN int ludus__rolling_begin_guest(const ludus_capture_desc *capture,
                                            const struct ludus_rolling_desc *rolling);
LUDUS_HIDDEN void ludus__rolling_end_guest(void);
LUDUS_HIDDEN int ludus__rolling_guest_runs(void);
LUDUS_HIDDEN int ludus__rolling_snapshot_any(ludus_capture **out);
/* The clock the rolling window's hitch detector reads at a frame mark
 * (src/flight/rolling.c), set by a test; NULL: the monotonic clock. */
LUDUS_HIDDEN extern int64_t (*ludus__rolling_frame_clock)(void);

#endif
