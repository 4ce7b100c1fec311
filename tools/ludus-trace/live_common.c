/* The live verbs' shared pieces (live_common.h). */
#define _POSIX_C_SOURCE 200809L
#include "live_common.h"

#include <stdio.h>
#include <time.h>
#ifdef _WIN32
#include <windows.h>
#endif

#include "verbs.h"

int lt_live_parse_pid(const char *s, uint64_t *pid) {
    uint64_t v = 0;
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > 0x7fffffffu) return -1;
    }
    if (v == 0) return -1;
    *pid = v;
    return 0;
}

int lt_live_open(const char *verb, uint64_t pid, ludus_watch **out) {
    int rc = ludus_watch_open(pid, out);
    if (rc == 0) return LT_OK;
    fprintf(stderr, "ludus-trace %s: %s\n", verb, ludus_last_error_detail()); /* the library's detail names the pid */
    return rc == LUDUS_ENODATA || rc == LUDUS_EINVAL || rc == LUDUS_EFORMAT ? LT_USAGE : LT_IO;
}

void lt_live_sleep_ms(unsigned ms) {
#ifdef _WIN32
    Sleep(ms);
#else
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
#endif
}
