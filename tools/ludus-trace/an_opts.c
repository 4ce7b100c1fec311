/* Options and outputs shared by report and diff (an_opts.h). */
#define _POSIX_C_SOURCE 200809L
#include "an_opts.h"

#include <errno.h>
#include <ludus/capture_file.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stdout_errno;

int lt_an_exit_code(int rc) {
    if (rc == LUDUS_EIO) return LT_IO;
    if (rc == LUDUS_ENODATA || rc == LUDUS_EINVAL) return LT_USAGE;
    return LT_BAD_INPUT;
}

int lt_an_stdout(void *ud, const void *data, size_t n) {
    if (fwrite(data, 1, n, (FILE *)ud) == n) return 0;
    stdout_errno = errno;
    return -1;
}

int lt_an_stdout_flush(void) {
    if (fflush(stdout) == 0) return 0;
    stdout_errno = errno;
    return -1;
}

int lt_an_stdout_failed(const char *verb) {
    fprintf(stderr, "ludus-trace %s: writing to stdout failed: %s\n", verb,
            stdout_errno ? strerror(stdout_errno) : "I/O error");
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
            if (*end || !isfinite(k) || !(k > 0)) *rc = lt_usage(v, "--hitch-k needs a positive finite number");
            o->desc.hitch_k = k;
        } else {
            o->html = val;
        }
        return 1;
    }
    return 0;
}

int lt_an_load(const char *verb, const char *path, const ludus_analysis_desc *desc, ludus_analysis **out) {
    ludus_capture *c = NULL;
    int rc = ludus_capture_open(path, &c);
    if (rc == 0) rc = ludus_analysis_create(c, desc, out);
    ludus_capture_release(c);
    if (rc) {
        lt_error(verb, path, rc);
        return lt_an_exit_code(rc);
    }
    return LT_OK;
}

int lt_an_gpu(const char *verb, const char *path, ludus_gpu_stats **out) {
    ludus_capture *c = NULL;
    *out = NULL;
    int rc = ludus_capture_open(path, &c);
    if (rc == 0 && ludus_capture_gpu_span_count(c)) rc = ludus_gpu_stats_create(c, out);
    ludus_capture_release(c);
    if (rc) {
        lt_error(verb, path, rc);
        return lt_an_exit_code(rc);
    }
    return LT_OK;
}

int lt_an_gpu_print(const char *verb, const ludus_gpu_stats *s, const ludus_gpu_stats *base, int format) {
    if (ludus_gpu_report(s, base, format, lt_an_stdout, stdout) != 0 || lt_an_stdout_flush() != 0)
        return lt_an_stdout_failed(verb);
    return LT_OK;
}

int lt_an_write_html(const char *verb, const char *path, const ludus_analysis *a, const ludus_diff *d,
                     const ludus_report_options *o) {
    ludus_output *out;
    int rc = ludus_output_open(path, &out);
    if (rc == 0) {
        rc = ludus_analysis_report(a, d, LUDUS_REPORT_HTML, o, ludus_output_write, out);
        if (rc == 0)
            rc = ludus_output_commit(out);
        else
            ludus_output_abort(out);
    }
    if (rc) {
        fprintf(stderr, "ludus-trace %s: cannot write %s: %s\n", verb, path, ludus_last_error_detail());
        return LT_IO;
    }
    fprintf(stderr, "ludus-trace: wrote %s\n", path);
    return LT_OK;
}
