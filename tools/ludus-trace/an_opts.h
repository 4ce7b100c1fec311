/* Options and outputs shared by the verbs that analyse (report, diff). */
#ifndef LUDUS_TRACE_AN_OPTS_H
#define LUDUS_TRACE_AN_OPTS_H

#include <ludus/analysis.h>

#include "verbs.h"

typedef struct lt_an_opts {
    ludus_analysis_desc desc;
    ludus_report_options ropt;
    int format; /* stdout format */
    const char *html;
    int source; /* enum lt_source: what report and diff show */
} lt_an_opts;

/* --source cpu|gpu|both (default both): CPU sites and frames, GPU queues and passes. */
enum lt_source { LT_SOURCE_BOTH = 0, LT_SOURCE_CPU = 1, LT_SOURCE_GPU = 2 };

/* Exit code for a library error code. */
int lt_an_exit_code(int rc);
/* Consumes a shared option at argv[*i]; 1 when it was one (*rc set on a usage error). */
int lt_an_option(const lt_verb *v, lt_an_opts *o, int argc, char **argv, int *i, int *rc);
/* Opens a capture file (or "-") once, analyses it (out, when desc is not
 * NULL) and takes its GPU statistics (gpu, when asked: NULL when it has
 * none); an exit code, with the message said. */
int lt_an_load(const char *verb, const char *path, const ludus_analysis_desc *desc, ludus_analysis **out,
               ludus_gpu_stats **gpu);
/* Prints the GPU report of s (against base when non-NULL) to out; an exit code. */
int lt_an_gpu_print(const char *verb, const ludus_gpu_stats *s, const ludus_gpu_stats *base, int format, lt_out *out);
/* Says that writing the output failed (and why) and returns LT_IO. */
int lt_an_stdout_failed(const char *verb);
/* An HTML report written safely to path ("-": standard output); an exit code. */
int lt_an_write_html(const char *verb, const char *path, const ludus_analysis *a, const ludus_diff *d,
                     const ludus_report_options *o);

#endif
