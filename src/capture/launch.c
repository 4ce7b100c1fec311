/* Launch-to-exit capture: with LUDUS_TRACE=PATH in the environment a capture
 * starts when the library loads and is written to PATH at exit (.json, .pftrace
 * or .ludus by extension; anything else gets JSON). LUDUS_TRACE_CHUNKS sets
 * the pool size in 64 KiB chunks (default 1024 = 64 MiB). A program that
 * never calls the control API can still be traced. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

static char trace_path[4096];

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static void write_at_exit(void) {
    if (!ludus_capture_active()) return; /* the program ended it itself */
    int rc = ludus_end_capture();
    if (rc == 0) {
        if (ends_with(trace_path, ".pftrace"))
            rc = ludus_export_pftrace(trace_path);
        else if (ends_with(trace_path, ".ludus"))
            rc = ludus_save_capture(trace_path);
        else
            rc = ludus_export_perfetto_trace(trace_path);
    }
    ludus_capture_summary s;
    if (rc == 0 && ludus_capture_get_summary(&s) == 0)
        fprintf(stderr, "ludus: wrote %s (%llu events, %llu dropped)\n", trace_path, (unsigned long long)s.events,
                (unsigned long long)s.dropped);
    else
        fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", trace_path, ludus_error_string(rc),
                ludus_last_error_detail());
}

__attribute__((constructor)) void ludus__launch_init(void) {
    const char *path = getenv("LUDUS_TRACE");
    if (!path || !*path) return;
    if (strlen(path) >= sizeof trace_path) {
        fprintf(stderr, "ludus: LUDUS_TRACE path too long; not tracing\n");
        return;
    }
    strcpy(trace_path, path);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    const char *chunks = getenv("LUDUS_TRACE_CHUNKS");
    d.chunk_count = chunks ? (uint32_t)strtoul(chunks, NULL, 10) : 1024;
    int rc = ludus_begin_capture(&d);
    if (rc) {
        fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", path, ludus_error_string(rc), ludus_last_error_detail());
        return;
    }
    atexit(write_at_exit);
}
