/* ludus__sleep_ns (background.h) on POSIX systems: a file of its own, so
 * that a caller (the recovery's wait for a writer) takes none of the
 * background thread's signal state with it. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <errno.h>
#include <time.h>

#include "background.h"

void ludus__sleep_ns(int64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
