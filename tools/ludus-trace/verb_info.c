/* ludus-trace info FILE: what a capture file holds (clock, calibration,
 * threads with their event and loss counts, duration, frames), read from its
 * header, tables and summary through the file's index (the blocks are not
 * read); a file without an index is read whole, every record checked. */
#include <ludus/analysis.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

static const lt_verb info_verb;
static int out_failed;

/* printf to the verb's output (a file or standard output). */
static lt_out *out_of_info;
__attribute__((format(printf, 1, 2))) static void say(const char *fmt, ...) {
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n > 0 && lt_out_write(out_of_info, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1) != 0)
        out_failed = 1;
}

static int info_run(int argc, char **argv) {
    const char *path = NULL, *o_out = NULL;
    int rc;
    for (int i = 1; i < argc; i++) {
        if (lt_output_option(&info_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_unknown_option(&info_verb, argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return lt_usage(&info_verb, "one FILE only");
        }
    }
    if (!path) return lt_usage(&info_verb, "missing FILE");
    ludus_capture *f;
    if ((rc = lt_capture_open_index("info", path, &f)) != LT_OK) return rc;
    ludus_capture_info in;
    rc = ludus_capture_get_info(f, &in);
    if (rc == 0 && in.index_only && !in.has_summary) { /* an index but no summary: the frames need the events */
        lt_capture_release(f);
        if ((rc = lt_capture_open("info", path, &f)) != LT_OK) return rc;
        rc = ludus_capture_get_info(f, &in);
    }
    if (rc) {
        lt_error("info", path, rc);
        lt_capture_release(f);
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    lt_out out;
    if ((rc = lt_out_open("info", o_out ? o_out : "-", &out)) != LT_OK) {
        lt_capture_release(f);
        return rc;
    }
    out_of_info = &out;
    out_failed = 0;
    const ludus_capture_summary *s = &in.summary;
    char name[256]; /* every name of the file is shown through ludus_text_show: a file may hold anything */
    double dur_ms = (double)(in.end_ns - in.start_ns) / 1e6;
    say("file:        %s (%llu bytes, format v%u, %s blocks)\n", ludus_text_show(name, sizeof name, path, 0),
        (unsigned long long)in.file_bytes, in.version,
        in.compressed ? "compact, zstd"
        : in.compact  ? "compact"
                      : "raw");
    if (in.index_only)
        say("read:        the header, tables and summary, through the index at the file's end (checksums "
            "checked; the blocks are read and checked by report, convert ...)\n");
    else
        say("read:        every record, checksums checked (the file has no index at its end: written before "
            "it, or a streamed capture cut short)\n");
    say("process:     %s (pid %d)\n", ludus_text_show(name, sizeof name, in.process_name, 0), in.pid);
    say("clock:       %s\n", in.clock_name);
    say("calibration: %llu ticks @ %lld ns, %llu ticks @ %lld ns", (unsigned long long)in.calib_ticks[0],
        (long long)in.calib_ns[0], (unsigned long long)in.calib_ticks[1], (long long)in.calib_ns[1]);
    if (in.calib_ns[1] > in.calib_ns[0])
        say(" (%.6f ticks/ns)",
            (double)(in.calib_ticks[1] - in.calib_ticks[0]) / (double)(in.calib_ns[1] - in.calib_ns[0]));
    say("\n");
    say("capture:     %lld .. %lld ns (CLOCK_MONOTONIC), duration %.3f ms\n", (long long)in.start_ns,
        (long long)in.end_ns, dur_ms);
    say("events:      %llu (dropped %llu, filtered %llu, incomplete %llu, unwound %llu, orphan ends %llu, "
        "mismatched span ends %llu)\n",
        (unsigned long long)s->events, (unsigned long long)s->dropped, (unsigned long long)s->filtered,
        (unsigned long long)s->incomplete, (unsigned long long)s->unwound, (unsigned long long)s->orphan_ends,
        (unsigned long long)s->mismatched);
    if (s->pool_bytes_needed) { /* the one advice, bounded by this machine (ludus_pool_advice) */
        char advice[320];
        ludus_pool_advice(s->pool_bytes_needed, advice, sizeof advice);
        say("pool:        %llu events dropped: %s\n", (unsigned long long)s->dropped, advice);
    }
    /* frames as `report` counts them: a frame lies between two marks of the
     * frame thread, so N marks make N - 1 frames */
    ludus_analysis *a = NULL;
    ludus_analysis_summary as;
    memset(&as, 0, sizeof as);
    if (!in.has_summary) { /* an older file: the frames come from an analysis of the capture */
        lt_busy_begin("info", "analysing", path);
        if (ludus_analysis_create(f, NULL, &a) == 0) ludus_analysis_get_summary(a, &as);
        lt_busy_end();
    }
    if (in.has_summary && in.summary_frame_marks)
        say("frames:      %llu complete (a frame lies between two marks: %llu marks on thread \"%s\"%s), from "
            "the file's summary\n",
            (unsigned long long)(in.summary_frame_marks - 1), (unsigned long long)in.summary_frame_marks,
            ludus_text_show(name, sizeof name, in.summary_frame_thread, 0),
            in.summary_marks_elsewhere ? "; marks on other threads are ignored" : "");
    else if (in.has_summary)
        say("frames:      0 (no frame mark), from the file's summary\n");
    else if (!a)
        say("frames:      ? (the capture could not be analysed: %s); %llu frame marks\n", ludus_last_error_detail(),
            (unsigned long long)s->frames);
    else if (as.frame_marks)
        say("frames:      %llu complete (a frame lies between two marks: %llu marks on thread \"%s\"%s), as "
            "`report` counts them\n",
            (unsigned long long)as.frames_complete, (unsigned long long)as.frame_marks,
            ludus_text_show(name, sizeof name, as.frame_thread, 0),
            as.frame_marks_elsewhere ? "; marks on other threads are ignored" : "");
    else
        say("frames:      0 (no frame mark)\n");
    if (in.streamed && in.stream_cut)
        say("ended by:    nothing: a streamed capture cut short (kill -9 or a crash); every whole block is read, "
            "its losses, thread table and summary were never written\n");
    else if (in.streamed)
        say("streamed:    written while it recorded; thread events as the writer counted them\n");
    if (in.file_cut)
        say("cut:         %.3f .. %.3f ms of a capture of %.3f ms (ludus-trace convert --from/--to): scopes open at "
            "its start begin there, those open at its end are incomplete; GPU timing and the memory manifest are "
            "left out\n",
            (double)in.file_cut_from_ns / 1e6, (double)in.file_cut_to_ns / 1e6, (double)in.file_cut_of_ns / 1e6);
    if (in.recovered)
        say("ended by:    nothing: recovered from a pool file its process left behind (open slices are "
            "incomplete)\n");
    if (in.crash_signal) {
        say("ended by:    a crash, %s (signal %d) in thread %llu",
            ludus_text_show(name, sizeof name, in.crash_signal_name, 0), in.crash_signal,
            (unsigned long long)in.crash_tid);
        say(", %.3f ms into the capture", (double)(in.crash_ns - in.start_ns) / 1e6);
        say("\n");
    }
    if (in.trigger_reason) {
        say("triggered:   %s", ludus_text_show(name, sizeof name, in.trigger_reason, 0));
        say(", %.3f ms into the capture", (double)(in.trigger_ns - in.start_ns) / 1e6);
        if (in.trigger_detail && in.trigger_detail[0])
            say(": %s", ludus_text_show(name, sizeof name, in.trigger_detail, 0));
        say(" (the rolling window wrote this file for it)\n");
    }
    say("categories:  %s\n", ludus_text_show(name, sizeof name, in.categories ? in.categories : "(all)", 0));
    say("sites:       %u; blocks: %llu; slots: %llu (%.2f bytes/event)\n", in.sites, (unsigned long long)in.blocks,
        (unsigned long long)in.slots, s->events ? (double)in.file_bytes / (double)s->events : 0.0);
    if (s->interner_drops || s->unregistered_thread_drops || s->site_id_collisions || s->nonfinite_counter_samples ||
        s->counters_refused || s->counter_adds_lost || s->annotation_texts_cut || s->annotation_keys_dropped)
        say("also:        %u run-time names refused, %llu events of unregistered threads lost, "
            "%u site id collisions, %llu NaN/inf counter samples, %u counters/gauges/domains refused (tables "
            "full), %llu counts lost (no shard), %llu annotation texts cut (1024 bytes), %llu annotations past "
            "a scope's 16th key dropped\n",
            s->interner_drops, (unsigned long long)s->unregistered_thread_drops, s->site_id_collisions,
            (unsigned long long)s->nonfinite_counter_samples, s->counters_refused,
            (unsigned long long)s->counter_adds_lost, (unsigned long long)s->annotation_texts_cut,
            (unsigned long long)s->annotation_keys_dropped);
    say("threads:     %u\n", in.threads);
    say("  %-10s %-24s %12s %10s %11s %8s %8s\n", "tid", "name", "events", "dropped", "incomplete", "unwound",
        "exited");
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        ludus_capture_thread(f, t, &ts);
        say("  %-10llu %-24s %12llu %10llu %11llu %8llu %8s", (unsigned long long)ts.tid,
            ludus_text_show(name, sizeof name, ts.name, 0), (unsigned long long)ts.events,
            (unsigned long long)ts.dropped, (unsigned long long)ts.incomplete, (unsigned long long)ts.unwound,
            ts.exited ? "yes" : "no");
        if (ts.first_drop_ns >= 0) say("  (losses from %.3f ms)", (double)ts.first_drop_ns / 1e6);
        if (ts.span_lanes) say("  (%u span lanes)", ts.span_lanes);
        say("\n");
    }
    /* GPU timing: what each context handed over, and what was left out */
    uint32_t ngpu = ludus_capture_gpu_track_count(f);
    if (ngpu) say("gpu:         %u contexts\n", ngpu);
    for (uint32_t g = 0; g < ngpu; g++) {
        ludus_gpu_track_info ti;
        if (ludus_capture_gpu_track(f, g, &ti) != 0) continue;
        say("  %-24s %llu samples, %llu passes%s", ludus_text_show(name, sizeof name, ti.name, 0),
            (unsigned long long)ti.samples, (unsigned long long)ti.passes, ti.calibrated ? ", calibrated" : "");
        static const char *const cov_name[] = {
#define X_COV_NAME(name, text, meaning) text,
            LUDUS_GPU_COVERAGE(X_COV_NAME)
#undef X_COV_NAME
        };
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++)
            if (ti.coverage[v]) say(", %s %llu", cov_name[v], (unsigned long long)ti.coverage[v]);
        say("\n");
    }
    uint32_t ncov = ludus_capture_memory_coverage_count(f);
    if (ncov) say("memory coverage (at capture end):\n");
    for (uint32_t i = 0; i < ncov; i++) {
        ludus_memory_coverage m;
        ludus_capture_memory_coverage(f, i, &m);
        if (m.outside) {
            say("  outside every domain: %-40s %14lld bytes\n", ludus_text_show(name, sizeof name, m.name, 0),
                (long long)m.live_bytes);
            continue;
        }
        say("  domain %-20s live %lld bytes%s, peak %lld, %lld allocs / %lld frees (%lld / %lld bytes); tracked "
            "since %.3f ms%s\n",
            ludus_text_show(name, sizeof name, m.name, 0), (long long)m.live_bytes,
            m.unknown ? " (unknown: frees of untracked memory)" : "", (long long)m.peak_bytes, (long long)m.allocs,
            (long long)m.frees, (long long)m.alloc_bytes, (long long)m.free_bytes, (double)m.since_ns / 1e6,
            m.has_baseline ? " with a declared baseline" : " (earlier memory not counted)");
    }
    if (!a && in.has_summary)
        say("counters:    ludus-trace report gives their tracks and statistics (info reads the summary only)\n");
    if (a && ludus_analysis_counter_count(a)) {
        say("counters:    %u tracks (ludus-trace report gives their statistics)\n", ludus_analysis_counter_count(a));
        for (uint32_t i = 0; i < ludus_analysis_counter_count(a); i++) {
            const ludus_counter_stats *c = ludus_analysis_counter(a, i);
            say("  %-28s %-18s %-7s %10llu %s\n", ludus_text_show(name, sizeof name, c->name, 0), c->series, c->kind,
                (unsigned long long)c->values, strcmp(c->kind, "plot") ? "frames" : "samples");
        }
    }
    ludus_analysis_destroy(a);
    lt_capture_release(f);
    return lt_out_close("info", &out, out_failed);
}

static const lt_verb info_verb = {
    "info",
    "summarise a capture file (.ludus): clock, threads, events, losses",
    "usage: ludus-trace info FILE [-o OUT]\n"
    "  FILE: a .ludus file, or - for standard input; OUT: where the summary goes\n"
    "  (default standard output).\n"
    "  Prints the clock and calibration, the capture's duration, and per thread\n"
    "  the events, losses, incomplete and unwound slices; the memory coverage\n"
    "  manifest. Reads the header, tables and summary through the index at the\n"
    "  file's end (milliseconds at any size; their checksums are verified, the\n"
    "  blocks' when a verb reads them); a file without one is read whole, every\n"
    "  record's checksum verified. Exit 2 on a malformed or damaged file (the\n"
    "  offset is named).\n",
    "-o OUT, --help, --version",
    info_run,
};
LUDUS_TRACE_VERB(info_verb)
