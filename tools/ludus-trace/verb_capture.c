/* ludus-trace capture: makes a running process (started with LUDUS_LIVE=1,
 * or one that called ludus_live_start) record the next N seconds and write
 * them where asked, then go on as before (include/ludus/live.h). */
#include <ludus/live.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live_common.h"
#include "verbs.h"

static const lt_verb capture_verb;

int lt_live_wait_capture(const char *verb, ludus_watch *w, uint64_t id, uint32_t ms, ludus_watch_view *v) {
    /* the process takes the command within 250 ms, records ms, then writes
     * the file: a minute for that beyond the seconds asked */
    uint64_t waited_ms = 0, limit_ms = (uint64_t)ms + 60000;
    for (;;) {
        int rc = ludus_watch_read(w, 0, 0, v);
        if (rc == LUDUS_ENODATA) {
            fprintf(stderr, "ludus-trace %s: process %llu exited before the capture was written\n", verb,
                    (unsigned long long)v->pid);
            return LT_IO;
        }
        if (rc == 0 && v->capture_id == id &&
            (v->capture_state == LUDUS_WATCH_CAPTURE_DONE || v->capture_state == LUDUS_WATCH_CAPTURE_FAILED))
            return LT_OK;
        if (waited_ms > limit_ms) {
            fprintf(stderr, "ludus-trace %s: process %llu did not finish the capture within %llu s\n", verb,
                    (unsigned long long)v->pid, (unsigned long long)(limit_ms / 1000));
            return LT_IO;
        }
        lt_live_sleep_ms(100);
        waited_ms += 100;
    }
}

static int run_capture(int argc, char **argv) {
    const char *pid_arg = NULL, *out = NULL;
    double seconds = 1;
    for (int i = 1; i < argc; i++) {
        int rc;
        if (lt_output_option(&capture_verb, argc, argv, &i, &out, &rc)) {
            if (rc) return rc;
        } else if (!strcmp(argv[i], "--seconds")) {
            if (i + 1 >= argc) return lt_missing_value(&capture_verb, argv[i]);
            char *end;
            seconds = strtod(argv[++i], &end);
            if (*end || !(seconds >= 0.001 && seconds <= 3600))
                return lt_usage(&capture_verb, "--seconds takes a number in 0.001 .. 3600");
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_unknown_option(&capture_verb, argv[i]);
        } else if (!pid_arg) {
            pid_arg = argv[i];
        } else {
            return lt_usage(&capture_verb, "one process id only");
        }
    }
    if (!pid_arg) return lt_usage(&capture_verb, "no process id given");
    if (!out) return lt_usage(&capture_verb, "no output given (-o OUT.ludus, .json or .pftrace)");
    if (!strcmp(out, "-")) return lt_usage(&capture_verb, "the process writes the file: -o needs a path");
    if (!ludus_format_from_path(out))
        return lt_usage(&capture_verb, "-o OUT: the extension names the format (.ludus, .json, .pftrace)");
    uint64_t pid;
    if (lt_live_parse_pid(pid_arg, &pid) != 0) return lt_usage(&capture_verb, "the process id is not a number");
    ludus_watch *w;
    int rc = lt_live_open("capture", pid, &w);
    if (rc) return rc;
    ludus_watch_view *v = calloc(1, sizeof *v);
    if (!v) {
        ludus_watch_close(w);
        return LT_IO;
    }
    uint32_t ms = (uint32_t)(seconds * 1000 + 0.5);
    uint64_t id;
    int lrc = ludus_watch_capture(w, ms, out, &id);
    if (lrc) {
        lt_error("capture", "asking for the capture", lrc);
        rc = lrc == LUDUS_EBUSY ? LT_IO : LT_USAGE;
    } else {
        rc = lt_live_wait_capture("capture", w, id, ms, v);
    }
    /* The watched process wrote these texts: shown, never sent raw (it
     * could retitle or clear the terminal of whoever captures it). */
    char name[256], msg[1024], path[4200];
    if (rc == LT_OK && v->capture_state == LUDUS_WATCH_CAPTURE_FAILED) {
        fprintf(stderr, "ludus-trace capture: process %llu: %s\n", (unsigned long long)pid,
                ludus_text_show(msg, sizeof msg, v->capture_message, 0));
        rc = LT_IO;
    } else if (rc == LT_OK) {
        printf("ludus-trace capture: process %llu (%s) wrote %s: %.3f s, %llu frames, %llu events, %llu dropped\n",
               (unsigned long long)pid, ludus_text_show(name, sizeof name, v->process, 0),
               ludus_text_show(path, sizeof path, v->capture_path, 0),
               (double)(v->capture_end_ns - v->capture_begin_ns) / 1e9, (unsigned long long)v->capture_frames,
               (unsigned long long)v->capture_events, (unsigned long long)v->capture_dropped);
    }
    free(v);
    ludus_watch_close(w);
    return rc;
}

static const lt_verb capture_verb = {
    "capture", "make a running process (LUDUS_LIVE=1) record N seconds and write them to a file",
    "usage: ludus-trace capture PID [--seconds N] -o OUT\n"
    "  PID: a process started with LUDUS_LIVE=1 (or that called ludus_live_start), of this user\n"
    "  --seconds N   record the next N seconds (default 1; 0.001 .. 3600); a process that runs its\n"
    "                own rolling window writes its last N seconds instead\n"
    "  -o OUT        the file the process writes (.ludus, .json or .pftrace), made absolute here;\n"
    "                it is created beside it and renamed into place, never through a link\n"
    "The process goes on unchanged afterwards; docs/live.md says what it costs.\n",
    "--seconds N, -o OUT, --help", run_capture};
LUDUS_TRACE_VERB(capture_verb)
