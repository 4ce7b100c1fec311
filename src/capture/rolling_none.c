/* The rolling window where it is not ported (Windows today): every call
 * says LUDUS_EUNSUPPORTED, so a program that offers it still builds and
 * runs. rolling.c needs POSIX signals, semaphores and threads, which it
 * calls itself; once those are behind src/platform/ this file goes. */
#if defined(_WIN32)
#include <ludus/rolling.h>
#include <string.h>

#include "../record/record.h"

int ludus_rolling_begin(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling) {
    (void)capture, (void)rolling;
    return ludus__fail(LUDUS_EUNSUPPORTED, "the rolling window is not ported to this platform");
}
int ludus_rolling_end(void) {
    return LUDUS_EUNSUPPORTED;
}
int ludus_rolling_active(void) {
    return 0;
}
int ludus_snapshot(ludus_capture **out) {
    if (out) *out = NULL;
    return LUDUS_EUNSUPPORTED;
}
void ludus_trigger(const char *reason) {
    (void)reason;
}
int ludus_rolling_get_stats(ludus_rolling_stats *out) {
    if (out) memset(out, 0, sizeof *out);
    return LUDUS_EUNSUPPORTED;
}
int ludus_rolling_flush(uint32_t timeout_ms) {
    (void)timeout_ms;
    return LUDUS_EUNSUPPORTED;
}
#endif
