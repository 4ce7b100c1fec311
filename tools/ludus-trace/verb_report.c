/* ludus-trace report: a capture file's summary for terminals (top sites by
 * exclusive time, frame-time percentiles, hitches, loss), JSON or CSV for
 * machines, and a self-contained HTML report. The work is in src/analysis;
 * this file parses options; an_opts.c opens files. */
#include <stdio.h>
#include <string.h>

#include "an_opts.h"

static const lt_verb report_verb;

static int run_report(int argc, char **argv) {
    lt_an_opts o;
    memset(&o, 0, sizeof o);
    const char *path = NULL, *o_out = NULL;
    for (int i = 1; i < argc; i++) {
        int rc;
        if (lt_an_option(&report_verb, &o, argc, argv, &i, &rc) ||
            lt_output_option(&report_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) return rc;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_unknown_option(&report_verb, argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return lt_usage(&report_verb, "one capture file only");
        }
    }
    if (!path) return lt_usage(&report_verb, "no capture file given");
    if (o_out && o.html && !strcmp(o_out, "-") && !strcmp(o.html, "-"))
        return lt_usage(&report_verb, "the report and --html cannot both go to standard output");
    if (o.source == LT_SOURCE_BOTH && o.format != LUDUS_REPORT_TEXT) o.source = LT_SOURCE_CPU; /* one document */
    if (o.source == LT_SOURCE_GPU && o.format == LUDUS_REPORT_CSV)
        return lt_usage(&report_verb, "the GPU report is text or --json");
    int rc;
    ludus_gpu_stats *g = NULL;
    ludus_analysis *a = NULL;
    int cpu = o.source != LT_SOURCE_GPU || o.html;
    rc = lt_an_load("report", path, cpu ? &o.desc : NULL, &a, o.source != LT_SOURCE_CPU ? &g : NULL);
    if (rc) return rc;
    if (o.source == LT_SOURCE_GPU && !g) {
        fprintf(stderr, "ludus-trace report: %s has no GPU sample\n", path);
        ludus_analysis_destroy(a);
        return LT_USAGE;
    }
    o.ropt.title = path;
    o.ropt.gpu = g; /* the HTML report's GPU chart */
    /* the summary: to -o OUT, or standard output; none when the HTML report goes there */
    int summary = !(o.html && !strcmp(o.html, "-") && !o_out);
    lt_out out;
    if (summary && (rc = lt_out_open("report", o_out ? o_out : "-", &out)) != LT_OK) {
        ludus_analysis_destroy(a);
        ludus_gpu_stats_destroy(g);
        return rc;
    }
    int failed = 0;
    if (summary && a && o.source != LT_SOURCE_GPU &&
        ludus_analysis_report(a, NULL, o.format, &o.ropt, lt_out_write, &out) != 0)
        failed = 1;
    if (summary && !failed && g && lt_an_gpu_print("report", g, NULL, o.format, &out) != LT_OK) failed = 1;
    if (summary) {
        if (failed) lt_an_stdout_failed("report");
        rc = lt_out_close("report", &out, failed);
    }
    if (rc == LT_OK && o.html) rc = lt_an_write_html("report", o.html, a, NULL, &o.ropt);
    ludus_analysis_destroy(a);
    ludus_gpu_stats_destroy(g);
    return rc;
}

static const lt_verb report_verb = {
    "report", "summarise a capture: top sites, frame times, hitches (text, --json, --csv, --html)",
    "usage: ludus-trace report FILE [options]\n"
    "  FILE: a .ludus file, or - for standard input\n"
    "  -o OUT             the summary to OUT instead of standard output\n"
    "  --top N            sites listed in the text summary (default 20)\n"
    "  --window W         all (default) | last:N (last N complete frames) | range:T0-T1\n"
    "                     (times since capture start, unit ns/us/ms/s, bare numbers are ms)\n"
    "  --hitch-k K        a hitch is a frame longer than K x the window's median (default 2)\n"
    "  --budget MS        the frame budget: a hitch is longer than max(K x median, MS) (16.7 for 60 Hz)\n"
    "  --exact            keep every duration: exact percentiles (memory grows with the events)\n"
    "  --source S         cpu | gpu | both (default): CPU sites and frames, GPU queues and passes\n"
    "                     (--json and --csv give one source: cpu unless --source gpu; GPU: no CSV)\n"
    "  --json | --csv     machine-readable output on stdout instead of the text summary\n"
    "  --html OUT         also write a self-contained HTML report (frame chart, flame graph, tables);\n"
    "                     OUT - puts it on standard output (and the summary only with -o)\n"
    "Times are elapsed wall-clock (frames also show the frame thread's CPU time); see docs/analysis.md\n"
    "for every definition.\n",
    "--top N, --window W, --hitch-k K, --budget MS, --exact, --source cpu|gpu|both, --json, --csv, --html OUT, -o OUT, "
    "--help, --version",
    run_report};
LUDUS_TRACE_VERB(report_verb)
