/* Whether two calibration points can describe a capture: the one check the
 * .ludus reader (src/format/file_reader.c) and recover (src/postmortem)
 * share, so recover never writes a file its own reader refuses, and the
 * margin of ticks an event may lie outside them. */
#include "capture_build.h"
#include "nev.h"

#define TIME_OK(v) ((v) > -(INT64_C(1) << 62) && (v) < (INT64_C(1) << 62))
/* The TSC of any machine that runs this counts between 1 MHz and 100 GHz. */
#define MIN_TICKS_PER_NS 0.001
#define MAX_TICKS_PER_NS 100.0

const char *ludus__calib_check(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1,
                               const char **field) {
    if (!TIME_OK(c0->ns)) return *field = "c0_ns", "calibration time out of range";
    if (!TIME_OK(c1->ns)) return *field = "c1_ns", "calibration time out of range";
    if (c0->window_ns < 0 || !TIME_OK(c0->window_ns)) return *field = "c0_window", "calibration window out of range";
    if (c1->window_ns < 0 || !TIME_OK(c1->window_ns)) return *field = "c1_window", "calibration window out of range";
    if (c1->ns < c0->ns) return *field = "c1_ns", "calibration points out of order";
    if (c1->ticks < c0->ticks) return *field = "c1_ticks", "calibration points out of order";
    uint64_t dn = (uint64_t)(c1->ns - c0->ns), dt = c1->ticks - c0->ticks;
    if (clock_tsc && dn >= 1000000) { /* a millisecond or more: the rate is known */
        double rate = (double)dt / (double)dn;
        if (rate < MIN_TICKS_PER_NS || rate > MAX_TICKS_PER_NS)
            return *field = "c1_ticks", "implausible tick rate between the calibration points (not 1 MHz .. 100 GHz)";
    }
    *field = NULL;
    return NULL;
}

uint64_t ludus__calib_margin(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1) {
    uint64_t dt = c1->ticks - c0->ticks, dn = (uint64_t)(c1->ns - c0->ns);
    if (!clock_tsc) return 1000000000u;
    if (dn < 1000) return UINT64_MAX / 4; /* too short to calibrate: no range check */
    return (uint64_t)((ludus__u128)dt * 1000000000u / dn);
}
