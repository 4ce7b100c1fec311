/* ludus-trace merge IN... -o OUT: capture files of several processes of one
 * machine on one timeline, a process track each (ludus_captures_save_merged:
 * aligned on CLOCK_MONOTONIC, which every capture records). Uses the public
 * API only. */
#include <ludus/capture_file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static const lt_verb merge_verb;

static int merge_run(int argc, char **argv) {
    const char *out = NULL;
    int nin = 0;
    const char **in = calloc((size_t)argc, sizeof *in);
    if (!in) return LT_IO;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 >= argc || out) {
                free(in);
                return lt_usage(&merge_verb, "-o takes one OUT");
            }
            out = argv[++i];
        } else if (argv[i][0] == '-') {
            free(in);
            return lt_usage(&merge_verb, "unknown option");
        } else {
            in[nin++] = argv[i];
        }
    }
    if (!out || nin < 1) {
        free(in);
        return lt_usage(&merge_verb, "IN files and -o OUT are required");
    }
    int format = ludus_format_from_path(out);
    if (format != LUDUS_FORMAT_JSON && format != LUDUS_FORMAT_PFTRACE) {
        free(in);
        return lt_usage(&merge_verb, "OUT must end in .json or .pftrace");
    }
    ludus_capture **cs = calloc((size_t)nin, sizeof *cs);
    int rc = cs ? 0 : LUDUS_ENOMEM, code = LT_OK;
    for (int i = 0; i < nin && rc == 0; i++) {
        rc = ludus_capture_open(in[i], &cs[i]);
        if (rc) {
            lt_error("merge", in[i], rc);
            code = rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
        }
    }
    if (rc == 0) {
        rc = ludus_captures_save_merged(cs, (uint32_t)nin, format, out);
        if (rc) {
            lt_error("merge", out, rc);
            code = rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
        } else {
            int64_t origin = INT64_MAX;
            ludus_capture_info info;
            for (int i = 0; i < nin; i++)
                if (ludus_capture_get_info(cs[i], &info) == 0 && info.start_ns < origin) origin = info.start_ns;
            printf("merged %d capture(s) into %s (ts 0: the earliest start):\n", nin, out);
            for (int i = 0; i < nin; i++) {
                if (ludus_capture_get_info(cs[i], &info) != 0) continue;
                char name[256];
                printf("  %s: %s (pid %d), %llu events, starts at %.3f ms\n", in[i],
                       ludus_text_show(name, sizeof name, info.process_name, 0), info.pid,
                       (unsigned long long)info.summary.events, (double)(info.start_ns - origin) / 1e6);
            }
        }
    }
    for (int i = 0; cs && i < nin; i++) ludus_capture_release(cs[i]);
    free(cs);
    free(in);
    return code;
}

static const lt_verb merge_verb = {
    "merge",
    "several processes' capture files on one timeline (.json or .pftrace)",
    "usage: ludus-trace merge IN.ludus IN.ludus ... -o OUT\n"
    "  Captures of processes of one machine (their CLOCK_MONOTONIC is the same) on one\n"
    "  timeline: a process track each, ts 0 at the earliest capture's start, every\n"
    "  capture's counts in the metadata; flows with ids the program gave in both\n"
    "  processes link across them. OUT: .json or .pftrace.\n"
    "  Exit codes: 0 ok, 1 usage, 2 bad input (the offset is named), 3 I/O.\n",
    merge_run,
};
LUDUS_TRACE_VERB(merge_verb)
