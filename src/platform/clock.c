/* TSC calibration (platform.h), the same on every OS and CPU: the counter
 * read bracketed by the tightest pair of monotonic reads of a few tries. */
#include "platform.h"

ludus__calib_point ludus__calibrate_point(void) {
    ludus__calib_point best = {0, 0, INT64_MAX};
    for (int i = 0; i < 16; i++) {
        int64_t a = ludus__mono_ns();
        uint64_t t = ludus__read_tsc();
        int64_t b = ludus__mono_ns();
        if (b - a < best.window_ns) {
            best.ticks = t;
            best.ns = a + (b - a) / 2;
            best.window_ns = b - a;
        }
    }
    return best;
}
