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
    const char *out = NULL, *format_word = NULL;
    int nin = 0, rc;
    const char **in = calloc((size_t)argc, sizeof *in);
    if (!in) return LT_IO;
    for (int i = 1; i < argc; i++) {
        if (lt_output_option(&merge_verb, argc, argv, &i, &out, &rc)) {
            if (rc) {
                free(in);
                return rc;
            }
        } else if (!strcmp(argv[i], "--format")) {
            if (i + 1 >= argc) {
                free(in);
                return lt_missing_value(&merge_verb, argv[i]);
            }
            format_word = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            free(in);
            return lt_unknown_option(&merge_verb, argv[i]);
        } else {
            in[nin++] = argv[i];
        }
    }
    if (!out || nin < 1) {
        free(in);
        return lt_usage(&merge_verb, "IN files and -o OUT are required");
    }
    int format;
    if ((rc = lt_output_format(&merge_verb, out, format_word, &format)) != LT_OK) {
        free(in);
        return rc;
    }
    if (format != LUDUS_FORMAT_JSON && format != LUDUS_FORMAT_PFTRACE) {
        free(in);
        return lt_usage(&merge_verb, "OUT must be .json or .pftrace (a .ludus file holds one process)");
    }
    ludus_capture **cs = calloc((size_t)nin, sizeof *cs);
    int code = cs ? LT_OK : LT_IO;
    for (int i = 0; i < nin && code == LT_OK; i++) code = lt_capture_open("merge", in[i], &cs[i]);
    if (code == LT_OK) {
        lt_out o;
        code = lt_out_open("merge", out, &o);
        if (code == LT_OK) {
            lt_busy_begin("merge", "writing", out);
            rc = ludus_captures_write_merged(cs, (uint32_t)nin, format, lt_out_write, &o);
            lt_busy_end();
            if (rc) lt_error("merge", rc == LUDUS_EIO ? out : "the captures", rc);
            code = lt_out_close("merge", &o, rc != 0);
            if (rc && rc != LUDUS_EIO) code = LT_BAD_INPUT;
        }
        if (code == LT_OK) {
            /* what was merged: on stdout, or stderr when the trace went there */
            FILE *say = strcmp(out, "-") ? stdout : stderr;
            int64_t origin = INT64_MAX;
            ludus_capture_info info;
            for (int i = 0; i < nin; i++)
                if (ludus_capture_get_info(cs[i], &info) == 0 && info.start_ns < origin) origin = info.start_ns;
            fprintf(say, "merged %d capture(s) into %s (ts 0: the earliest start):\n", nin, out);
            for (int i = 0; i < nin; i++) {
                if (ludus_capture_get_info(cs[i], &info) != 0) continue;
                char name[256]; /* a file may hold anything: shown, not sent */
                fprintf(say, "  %s: %s (pid %d), %llu events, starts at %.3f ms\n", in[i],
                        ludus_text_show(name, sizeof name, info.process_name, 0), info.pid,
                        (unsigned long long)info.summary.events, (double)(info.start_ns - origin) / 1e6);
            }
        }
    }
    for (int i = 0; cs && i < nin; i++) lt_capture_release(cs[i]);
    free(cs);
    free(in);
    return code;
}

static const lt_verb merge_verb = {
    "merge",
    "several processes' capture files on one timeline (.json or .pftrace)",
    "usage: ludus-trace merge IN IN ... -o OUT [--format json|pftrace]\n"
    "  Captures of processes of one machine (their CLOCK_MONOTONIC is the same) on one\n"
    "  timeline: a process track each, ts 0 at the earliest capture's start, every\n"
    "  capture's counts in the metadata; flows with ids the program gave in both\n"
    "  processes link across them. IN: .ludus files (one may be -: standard input).\n"
    "  OUT: .json or .pftrace, or - for standard output (JSON unless --format pftrace).\n",
    "-o OUT, --format json|pftrace, --help, --version",
    merge_run,
};
LUDUS_TRACE_VERB(merge_verb)
