/* ludus-trace info FILE: what a capture file holds (clock, calibration,
 * threads with their event and drop counts, duration, frames), read from its
 * tables without loading the events. */
#include <ludus/capture_file.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

static const lt_verb info_verb;

static int info_run(int argc, char **argv) {
    if (argc != 2) return lt_usage(&info_verb, argc < 2 ? "missing FILE" : "too many arguments");
    const char *path = argv[1];
    ludus_capture_file *f;
    int rc = ludus_capture_open(path, &f);
    if (rc) {
        fprintf(stderr, "ludus-trace info: %s: %s: %s\n", path, ludus_error_string(rc), ludus_last_error_detail());
        return rc == LUDUS_EFORMAT ? LT_BAD_INPUT : rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    ludus_capture_file_info in;
    ludus_capture_file_get_info(f, &in);
    double dur_ms = (double)(in.end_ns - in.start_ns) / 1e6;
    printf("file:        %s (%llu bytes, format v%u, %s blocks)\n", path, (unsigned long long)in.file_bytes, in.version,
           in.compact ? "compact" : "raw");
    printf("process:     %s (pid %d)\n", in.process_name, in.pid);
    printf("clock:       %s\n", in.clock_name);
    printf("calibration: %llu ticks @ %lld ns, %llu ticks @ %lld ns", (unsigned long long)in.calib_ticks[0],
           (long long)in.calib_ns[0], (unsigned long long)in.calib_ticks[1], (long long)in.calib_ns[1]);
    if (in.calib_ns[1] > in.calib_ns[0])
        printf(" (%.6f ticks/ns)",
               (double)(in.calib_ticks[1] - in.calib_ticks[0]) / (double)(in.calib_ns[1] - in.calib_ns[0]));
    printf("\n");
    printf("capture:     %lld .. %lld ns (CLOCK_MONOTONIC), duration %.3f ms\n", (long long)in.start_ns,
           (long long)in.end_ns, dur_ms);
    printf("events:      %llu (dropped %llu, filtered %llu, incomplete %llu, orphan ends %llu)\n",
           (unsigned long long)in.events, (unsigned long long)in.dropped, (unsigned long long)in.filtered,
           (unsigned long long)in.incomplete, (unsigned long long)in.orphan_ends);
    printf("frames:      %llu\n", (unsigned long long)in.frames);
    printf("categories:  %s\n", in.categories ? in.categories : "(all)");
    printf("sites:       %u; blocks: %u; slots: %llu (%.2f bytes/event)\n", in.sites, in.blocks,
           (unsigned long long)in.slots, in.events ? (double)in.file_bytes / (double)in.events : 0.0);
    printf("threads:     %u\n", in.threads);
    printf("  %-10s %-24s %12s %10s %11s %8s\n", "tid", "name", "events", "dropped", "incomplete", "exited");
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        ludus_capture_file_get_thread(f, t, &ts);
        printf("  %-10llu %-24s %12llu %10llu %11llu %8s\n", (unsigned long long)ts.tid, ts.name,
               (unsigned long long)ts.events, (unsigned long long)ts.dropped, (unsigned long long)ts.incomplete,
               ts.exited ? "yes" : "no");
    }
    ludus_capture_close(f);
    return LT_OK;
}

static const lt_verb info_verb = {
    "info",
    "summarise a capture file (.ludus): clock, threads, events, drops",
    "usage: ludus-trace info FILE.ludus\n"
    "  Prints the clock and calibration, the capture's duration, and per thread\n"
    "  the events, drops and incomplete slices. Exit 2 on a malformed file.\n",
    info_run,
};
LUDUS_TRACE_VERB(info_verb)
