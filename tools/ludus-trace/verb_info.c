/* ludus-trace info FILE: what a capture file holds (clock, calibration,
 * threads with their event and loss counts, duration, frames), read from its
 * tables; every record's checksum is verified on the way. */
#include <ludus/analysis.h>
#include <ludus/capture_file.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

static const lt_verb info_verb;

static int info_run(int argc, char **argv) {
    if (argc != 2) return lt_usage(&info_verb, argc < 2 ? "missing FILE" : "too many arguments");
    const char *path = argv[1];
    ludus_capture *f;
    int rc = ludus_capture_open(path, &f);
    ludus_capture_info in;
    if (rc == 0) rc = ludus_capture_get_info(f, &in);
    if (rc) {
        lt_error("info", path, rc);
        ludus_capture_release(f);
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    const ludus_capture_summary *s = &in.summary;
    char name[256]; /* every name of the file is shown through ludus_text_show: a file may hold anything */
    double dur_ms = (double)(in.end_ns - in.start_ns) / 1e6;
    printf("file:        %s (%llu bytes, format v%u, %s blocks)\n", ludus_text_show(name, sizeof name, path, 0),
           (unsigned long long)in.file_bytes, in.version, in.compact ? "compact" : "raw");
    printf("process:     %s (pid %d)\n", ludus_text_show(name, sizeof name, in.process_name, 0), in.pid);
    printf("clock:       %s\n", in.clock_name);
    printf("calibration: %llu ticks @ %lld ns, %llu ticks @ %lld ns", (unsigned long long)in.calib_ticks[0],
           (long long)in.calib_ns[0], (unsigned long long)in.calib_ticks[1], (long long)in.calib_ns[1]);
    if (in.calib_ns[1] > in.calib_ns[0])
        printf(" (%.6f ticks/ns)",
               (double)(in.calib_ticks[1] - in.calib_ticks[0]) / (double)(in.calib_ns[1] - in.calib_ns[0]));
    printf("\n");
    printf("capture:     %lld .. %lld ns (CLOCK_MONOTONIC), duration %.3f ms\n", (long long)in.start_ns,
           (long long)in.end_ns, dur_ms);
    printf("events:      %llu (dropped %llu, filtered %llu, incomplete %llu, unwound %llu, orphan ends %llu, "
           "mismatched span ends %llu)\n",
           (unsigned long long)s->events, (unsigned long long)s->dropped, (unsigned long long)s->filtered,
           (unsigned long long)s->incomplete, (unsigned long long)s->unwound, (unsigned long long)s->orphan_ends,
           (unsigned long long)s->mismatched);
    /* frames as `report` counts them: a frame lies between two marks of the
     * frame thread, so N marks make N - 1 frames */
    ludus_analysis *a = NULL;
    ludus_analysis_summary as;
    memset(&as, 0, sizeof as);
    if (ludus_analyze(f, NULL, &a) == 0) ludus_analysis_get_summary(a, &as);
    if (!a)
        printf("frames:      ? (the capture could not be analysed: %s); %llu frame marks\n", ludus_last_error_detail(),
               (unsigned long long)s->frames);
    else if (as.frame_marks)
        printf("frames:      %llu complete (a frame lies between two marks: %llu marks on thread \"%s\"%s), as "
               "`report` counts them\n",
               (unsigned long long)as.frames_complete, (unsigned long long)as.frame_marks,
               ludus_text_show(name, sizeof name, as.frame_thread, 0),
               as.frame_marks_elsewhere ? "; marks on other threads are ignored" : "");
    else
        printf("frames:      0 (no frame mark)\n");
    if (in.recovered)
        printf("ended by:    nothing: recovered from a pool file its process left behind (open slices are "
               "incomplete)\n");
    if (in.crash_signal) {
        printf("ended by:    a crash, %s (signal %d) in thread %llu",
               ludus_text_show(name, sizeof name, in.crash_signal_name, 0), in.crash_signal,
               (unsigned long long)in.crash_tid);
        printf(", %.3f ms into the capture", (double)(in.crash_ns - in.start_ns) / 1e6);
        printf("\n");
    }
    if (in.trigger_reason) {
        printf("triggered:   %s", ludus_text_show(name, sizeof name, in.trigger_reason, 0));
        printf(", %.3f ms into the capture", (double)(in.trigger_ns - in.start_ns) / 1e6);
        if (in.trigger_detail && in.trigger_detail[0])
            printf(": %s", ludus_text_show(name, sizeof name, in.trigger_detail, 0));
        printf(" (the rolling window wrote this file for it)\n");
    }
    const char *categories = in.categories ? in.categories : "(all)";
    printf("categories:  %s\n", ludus_text_show(name, sizeof name, categories, 0));
    printf("sites:       %u; blocks: %llu; slots: %llu (%.2f bytes/event)\n", in.sites, (unsigned long long)in.blocks,
           (unsigned long long)in.slots, s->events ? (double)in.file_bytes / (double)s->events : 0.0);
    if (s->interner_drops || s->unregistered_thread_drops || s->site_id_collisions || s->nonfinite_counter_samples)
        printf("also:        %u run-time names refused, %llu events of unregistered threads lost, "
               "%u site id collisions, %llu NaN/inf counter samples\n",
               s->interner_drops, (unsigned long long)s->unregistered_thread_drops, s->site_id_collisions,
               (unsigned long long)s->nonfinite_counter_samples);
    printf("threads:     %u\n", in.threads);
    printf("  %-10s %-24s %12s %10s %11s %8s %8s\n", "tid", "name", "events", "dropped", "incomplete", "unwound",
           "exited");
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        ludus_capture_thread_summary(f, t, &ts);
        printf("  %-10llu %-24s %12llu %10llu %11llu %8llu %8s", (unsigned long long)ts.tid,
               ludus_text_show(name, sizeof name, ts.name, 0), (unsigned long long)ts.events,
               (unsigned long long)ts.dropped, (unsigned long long)ts.incomplete, (unsigned long long)ts.unwound,
               ts.exited ? "yes" : "no");
        if (ts.first_drop_ns >= 0) printf("  (losses from %.3f ms)", (double)ts.first_drop_ns / 1e6);
        if (ts.span_lanes) printf("  (%u span lanes)", ts.span_lanes);
        printf("\n");
    }
    uint32_t ncov = ludus_capture_memory_coverage_count(f);
    if (ncov) printf("memory coverage (at capture end):\n");
    for (uint32_t i = 0; i < ncov; i++) {
        ludus_memory_coverage m;
        ludus_capture_memory_coverage(f, i, &m);
        if (m.outside) {
            printf("  outside every domain: %-40s %14lld bytes\n", ludus_text_show(name, sizeof name, m.name, 0),
                   (long long)m.live_bytes);
            continue;
        }
        printf("  domain %-20s live %lld bytes%s, peak %lld, %lld allocs / %lld frees (%lld / %lld bytes); tracked "
               "since %.3f ms%s\n",
               ludus_text_show(name, sizeof name, m.name, 0), (long long)m.live_bytes,
               m.unknown ? " (unknown: frees of untracked memory)" : "", (long long)m.peak_bytes, (long long)m.allocs,
               (long long)m.frees, (long long)m.alloc_bytes, (long long)m.free_bytes, (double)m.since_ns / 1e6,
               m.has_baseline ? " with a declared baseline" : " (earlier memory not counted)");
    }
    if (a && ludus_analysis_counter_count(a)) {
        printf("counters:    %u tracks (ludus-trace report gives their statistics)\n", ludus_analysis_counter_count(a));
        for (uint32_t i = 0; i < ludus_analysis_counter_count(a); i++) {
            const ludus_counter_stats *c = ludus_analysis_counter(a, i);
            printf("  %-28s %-18s %-7s %10llu %s\n", ludus_text_show(name, sizeof name, c->name, 0), c->series, c->kind,
                   (unsigned long long)c->values, strcmp(c->kind, "plot") ? "frames" : "samples");
        }
    }
    ludus_analysis_destroy(a);
    ludus_capture_release(f);
    if (ferror(stdout) || fflush(stdout) != 0) {
        fprintf(stderr, "ludus-trace info: writing to stdout failed: %s\n", strerror(errno));
        return LT_IO;
    }
    return LT_OK;
}

static const lt_verb info_verb = {
    "info",
    "summarise a capture file (.ludus): clock, threads, events, losses",
    "usage: ludus-trace info FILE.ludus\n"
    "  Prints the clock and calibration, the capture's duration, and per thread\n"
    "  the events, losses, incomplete and unwound slices; the memory coverage\n"
    "  manifest and the counter tracks. Every record's checksum\n"
    "  is verified. Exit 2 on a malformed or damaged file (the offset is named).\n",
    info_run,
};
LUDUS_TRACE_VERB(info_verb)
