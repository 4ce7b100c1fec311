/* Options and outputs shared by report and diff (an_opts.h). */
#define _POSIX_C_SOURCE 200809L
#include "an_opts.h"

#include <errno.h>
#include <ludus/capture_file.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lt_an_exit_code(int rc) {
    if (rc == LUDUS_EIO) return LT_IO;
    if (rc == LUDUS_ENODATA || rc == LUDUS_EINVAL) return LT_USAGE;
    return LT_BAD_INPUT;
}

int lt_an_stdout_failed(const char *verb) {
    fprintf(stderr, "ludus-trace %s: writing the output failed: %s\n", verb, errno ? strerror(errno) : "I/O error");
    return LT_IO;
}

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
    if (!strcmp(a, "--source")) {
        if (!val || (strcmp(val, "cpu") && strcmp(val, "gpu") && strcmp(val, "both"))) {
            *rc = lt_usage(v, "--source takes cpu, gpu or both");
            return 1;
        }
        (*i)++;
        o->source = !strcmp(val, "cpu") ? LT_SOURCE_CPU : !strcmp(val, "gpu") ? LT_SOURCE_GPU : LT_SOURCE_BOTH;
        return 1;
    }
    if (!strcmp(a, "--top") || !strcmp(a, "--window") || !strcmp(a, "--hitch-k") || !strcmp(a, "--html") ||
        !strcmp(a, "--budget")) {
        if (!val) {
            *rc = lt_missing_value(v, a);
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
            if (*end || !isfinite(k) || !(k > 0)) *rc = lt_usage(v, "--hitch-k needs a positive finite number");
            o->desc.hitch_k = k;
        } else if (!strcmp(a, "--budget")) {
            double ms = strtod(val, &end);
            if (*end || !isfinite(ms) || !(ms > 0) || ms > 3600000)
                *rc = lt_usage(v, "--budget takes a frame budget in ms (16.7 for 60 Hz), > 0");
            o->desc.budget_ns = (int64_t)(ms * 1e6 + 0.5);
        } else {
            o->html = val;
        }
        return 1;
    }
    return 0;
}

int lt_an_load(const char *verb, const char *path, const ludus_analysis_desc *desc, ludus_analysis **out,
               ludus_gpu_stats **gpu) {
    ludus_capture *c = NULL;
    *out = NULL;
    if (gpu) *gpu = NULL;
    int rc = lt_capture_open(verb, path, &c);
    if (rc) return rc;
    if (out != NULL && desc != NULL) {
        lt_busy_begin(verb, "analysing", path);
        rc = ludus_analysis_create(c, desc, out);
        lt_busy_end();
    }
    if (rc == 0 && gpu && ludus_capture_gpu_span_count(c)) rc = ludus_gpu_stats_create(c, gpu);
    lt_capture_release(c);
    if (rc) {
        lt_error(verb, path, rc);
        ludus_analysis_destroy(*out);
        *out = NULL;
        return lt_an_exit_code(rc);
    }
    return LT_OK;
}

int lt_an_gpu_print(const char *verb, const ludus_gpu_stats *s, const ludus_gpu_stats *base, int format, lt_out *out) {
    if (ludus_gpu_report(s, base, format, lt_out_write, out) != 0) return lt_an_stdout_failed(verb);
    return LT_OK;
}

int lt_an_write_html(const char *verb, const char *path, const ludus_analysis *a, const ludus_diff *d,
                     const ludus_report_options *o) {
    lt_out out;
    int rc = lt_out_open(verb, path, &out);
    if (rc) return rc;
    int failed = ludus_analysis_report(a, d, LUDUS_REPORT_HTML, o, lt_out_write, &out) != 0;
    rc = lt_out_close(verb, &out, failed);
    if (rc) {
        fprintf(stderr, "ludus-trace %s: cannot write %s: %s\n", verb, path, ludus_last_error_detail());
        return rc;
    }
    if (strcmp(path, "-")) fprintf(stderr, "ludus-trace: wrote %s\n", path);
    return LT_OK;
}
