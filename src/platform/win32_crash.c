/* crash.h on Windows: not built yet (an unhandled-exception filter that
 * writes from a helper process would be the way); ludus_crash_install
 * says so with LUDUS_ENOTSUP. */
#include "crash.h"

#include <io.h>

int ludus__crash_install(ludus__crash_writer writer, uint32_t timeout_ms) {
    (void)writer;
    (void)timeout_ms;
    return -2;
}

void ludus__crash_uninstall(void) {}

void ludus__crash_thread_setup(void) {}

const char *ludus__crash_signal_name(int signo) {
    (void)signo;
    return "signal";
}

void ludus__crash_say(const char *text, size_t n) {
    _write(2, text, (unsigned)n);
}
