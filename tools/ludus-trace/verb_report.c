/* ludus-trace report: a capture file's summary for terminals (top sites by
 * exclusive time, frame-time percentiles, hitches, loss), JSON or CSV for
 * machines, and a self-contained HTML report. The work is in src/analysis;
 * this file parses options and opens files. The option and output helpers
 * (lt_an_*) are shared with verb_diff.c. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ludus/analysis.h>
#include <ludus/capture_file.h>

#include "verbs.h"

typedef struct lt_an_opts {
    ludus_analysis_desc desc;
    ludus_report_options ropt;
    int format; /* stdout format */
    const char *html;
} lt_an_opts;

int lt_an_exit_code(int rc);
int lt_an_option(const lt_verb *v, lt_an_opts *o, int argc, char **argv, int *i, int *rc);
int lt_an_load(const char *path, const ludus_analysis_desc *desc, ludus_analysis **out);
int lt_an_stdout(void *ud, const void *data, size_t n);
int lt_an_write_html(const char *path, const ludus_analysis *a, const ludus_diff *d, const ludus_report_options *o);

int lt_an_exit_code(int rc) {
    if (rc == LUDUS_EIO) return LT_IO;
    return LT_BAD_INPUT;
}

int lt_an_stdout(void *ud, const void *data, size_t n) {
    return fwrite(data, 1, n, (FILE *)ud) == n ? 0 : -1;
}

/* Consumes a shared option at argv[*i]; 1 when it was one (*rc set on a usage error). */
int lt_an_option(const lt_verb *v, lt_an_opts *o, int argc, char **argv, int *i, int *rc) {
    const char *a = argv[*i];
    const char *val = *i + 1 < argc ? argv[*i + 1] : NULL;
    *rc = 0;
    if (!strcmp(a, "--json")) {
        o->format = LUDUS_REPORT_JSON;
        return 1;
    }
    if (!strcmp(a, "--csv")) {
        o->format = LUDUS_REPORT_CSV;
        return 1;
    }
    if (!strcmp(a, "--exact")) {
        o->desc.exact = 1;
        return 1;
    }
    if (!strcmp(a, "--top") || !strcmp(a, "--window") || !strcmp(a, "--hitch-k") || !strcmp(a, "--html")) {
        if (!val) {
            *rc = lt_usage(v, "an option is missing its value");
            return 1;
        }
        (*i)++;
        char *end;
        if (!strcmp(a, "--top")) {
            long n = strtol(val, &end, 10);
            if (*end || n < 1 || n > 1000000) *rc = lt_usage(v, "--top needs a positive number");
            o->ropt.top = (uint32_t)n;
        } else if (!strcmp(a, "--window")) {
            if (ludus_window_parse(val, &o->desc) != 0)
                *rc = lt_usage(v, "--window takes all, last:N or range:T0-T1 (e.g. range:10ms-250ms)");
        } else if (!strcmp(a, "--hitch-k")) {
            double k = strtod(val, &end);
            if (*end || !(k > 0)) *rc = lt_usage(v, "--hitch-k needs a positive number");
            o->desc.hitch_k = k;
        } else {
            o->html = val;
        }
        return 1;
    }
    return 0;
}

int lt_an_load(const char *path, const ludus_analysis_desc *desc, ludus_analysis **out) {
    ludus_capture_file *f = NULL;
    int rc = ludus_capture_open(path, &f);
    if (rc) {
        fprintf(stderr, "ludus-trace: %s: %s (%s)\n", path, ludus_error_string(rc), ludus_last_error_detail());
        return lt_an_exit_code(rc);
    }
    rc = ludus_analyze_capture_file(f, desc, out);
    ludus_capture_close(f);
    if (rc) {
        fprintf(stderr, "ludus-trace: %s: %s (%s)\n", path, ludus_error_string(rc), ludus_last_error_detail());
        return rc == LUDUS_ENODATA || rc == LUDUS_EINVAL ? LT_USAGE : lt_an_exit_code(rc);
    }
    return LT_OK;
}

static int file_cb(void *ud, const void *data, size_t n) {
    return lt_an_stdout(ud, data, n);
}

/* Written to PATH.tmp and renamed: PATH is never left half written. */
int lt_an_write_html(const char *path, const ludus_analysis *a, const ludus_diff *d, const ludus_report_options *o) {
    size_t n = strlen(path) + 5;
    char *tmp = malloc(n);
    if (!tmp) return LT_IO;
    snprintf(tmp, n, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int rc = f ? ludus_analysis_report(a, d, LUDUS_REPORT_HTML, o, file_cb, f) : LUDUS_EIO;
    if (f && fclose(f) != 0) rc = LUDUS_EIO;
    if (rc == 0 && rename(tmp, path) != 0) rc = LUDUS_EIO;
    if (rc) {
        remove(tmp);
        fprintf(stderr, "ludus-trace: cannot write %s\n", path);
    } else {
        fprintf(stderr, "ludus-trace: wrote %s\n", path);
    }
    free(tmp);
    return rc ? LT_IO : LT_OK;
}

static const lt_verb report_verb;

static int run_report(int argc, char **argv) {
    lt_an_opts o;
    memset(&o, 0, sizeof o);
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        int rc;
        if (lt_an_option(&report_verb, &o, argc, argv, &i, &rc)) {
            if (rc) return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_usage(&report_verb, "unknown option");
        } else if (!path) {
            path = argv[i];
        } else {
            return lt_usage(&report_verb, "one capture file only");
        }
    }
    if (!path) return lt_usage(&report_verb, "no capture file given");
    ludus_analysis *a = NULL;
    int rc = lt_an_load(path, &o.desc, &a);
    if (rc) return rc;
    o.ropt.title = path;
    rc = LT_OK;
    if (ludus_analysis_report(a, NULL, o.format, &o.ropt, lt_an_stdout, stdout) != 0 || fflush(stdout) != 0) rc = LT_IO;
    if (rc == LT_OK && o.html) rc = lt_an_write_html(o.html, a, NULL, &o.ropt);
    ludus_analysis_destroy(a);
    return rc;
}

static const lt_verb report_verb = {
    "report", "summarise a capture: top sites, frame times, hitches (text, --json, --csv, --html)",
    "usage: ludus-trace report FILE [options]\n"
    "  --top N            sites listed in the text summary (default 20)\n"
    "  --window W         all (default) | last:N (last N complete frames) | range:T0-T1\n"
    "                     (times since capture start, unit ns/us/ms/s, bare numbers are ms)\n"
    "  --hitch-k K        a hitch is a frame longer than K x the window's median (default 2)\n"
    "  --exact            keep every duration: exact percentiles (memory grows with the events)\n"
    "  --json | --csv     machine-readable output on stdout instead of the text summary\n"
    "  --html OUT         also write a self-contained HTML report (frame chart, flame graph, tables)\n"
    "Times are elapsed wall-clock, not CPU time; see docs/analysis.md for every definition.\n",
    run_report};
LUDUS_TRACE_VERB(report_verb)
