/* ludus-trace diff: compares two captures per site and per caller-context
 * path: more work (calls per frame) versus slower work (time per call), with
 * a rank-test verdict, and --fail-if gates that exit with LT_FAILED_GATE so
 * CI can stop a regression. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_opts.h"

#define MAX_GATES 16

static int to_file(void *ud, const void *data, size_t n) {
    return fwrite(data, 1, n, (FILE *)ud) == n ? 0 : -1;
}

static const lt_verb diff_verb;

/* The files are read and analysed two at a time: each is its own capture
 * and analysis, and the statistics that compare them need them all. */
#define LOAD_THREADS 2u
typedef struct load_jobs {
    const char **paths;
    const ludus_analysis_desc *desc;
    ludus_analysis **an;
    ludus_gpu_stats **gb, **gn; /* the first BASE's and the first NEW's GPU statistics (NULL: not wanted) */
    unsigned split;
    int *rc;
} load_jobs;

static void load_one(void *arg, unsigned k) {
    load_jobs *j = arg;
    j->rc[k] = lt_an_load("diff", j->paths[k], j->desc, &j->an[k], k == 0 ? j->gb : k == j->split ? j->gn : NULL);
}

static int diff_files(int argc, char **argv, const char **paths) {
    lt_an_opts o;
    memset(&o, 0, sizeof o);
    ludus_diff_desc dd;
    memset(&dd, 0, sizeof dd);
    ludus_gate gates[MAX_GATES];
    uint32_t ngates = 0;
    int npaths = 0, split = -1, sites_only = 0;
    const char *o_out = NULL;
    for (int i = 1; i < argc; i++) {
        int rc;
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (lt_an_option(&diff_verb, &o, argc, argv, &i, &rc) ||
            lt_output_option(&diff_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) return rc;
        } else if (!strcmp(argv[i], "--fail-if")) {
            if (!val || ngates == MAX_GATES)
                return lt_usage(&diff_verb, "--fail-if takes a verdict ('slower', 'more work', 'more time per frame', "
                                            "... [NAME]) or 'METRIC [NAME] > +X%' (METRIC: mean, p50, p90, p99, calls, "
                                            "total, counter NAME, lock NAME; at most 16)");
            if (ludus_gate_parse(val, &gates[ngates]) != 0) return lt_usage(&diff_verb, ludus_last_error_detail());
            ngates++;
            i++;
        } else if (!strcmp(argv[i], "--gate-sites-only")) {
            sites_only = 1;
        } else if (!strcmp(argv[i], "--min-frame-share")) {
            char *end;
            double x = val ? strtod(val, &end) : 0;
            if (!val || *end || !isfinite(x) || !(x > 0) || x >= 100)
                return lt_usage(&diff_verb, "--min-frame-share takes a percentage of the median frame, > 0");
            dd.min_frame_share = x / 100.0;
            i++;
        } else if (!strcmp(argv[i], "--alpha") || !strcmp(argv[i], "--min-change")) {
            char *end;
            double x = val ? strtod(val, &end) : 0;
            if (!val || *end || !isfinite(x) || !(x > 0) || x >= (argv[i][2] == 'a' ? 1 : 1000))
                return lt_usage(&diff_verb, "--alpha takes 0 < A < 1, --min-change a percentage > 0");
            if (argv[i][2] == 'a')
                dd.alpha = x;
            else
                dd.min_change = x / 100.0;
            i++;
        } else if (!strcmp(argv[i], "--min-shift") || !strcmp(argv[i], "--run-noise")) {
            char *end;
            double x = val ? strtod(val, &end) : 0;
            if (!val || *end || !isfinite(x) || !(x > 0) || x >= 100)
                return lt_usage(&diff_verb, "--min-shift and --run-noise take a percentage, > 0");
            if (argv[i][2] == 'm')
                dd.min_shift = x / 100.0;
            else
                dd.run_noise = x / 100.0;
            i++;
        } else if (!strcmp(argv[i], "--")) {
            if (split >= 0) return lt_usage(&diff_verb, "one '--' between BASE runs and NEW runs");
            split = npaths;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_unknown_option(&diff_verb, argv[i]);
        } else {
            paths[npaths++] = argv[i];
        }
    }
    if (split < 0 && npaths == 2) split = 1;
    if (split < 1 || split >= npaths)
        return lt_usage(&diff_verb, "capture files: BASE NEW, or BASE1 BASE2 ... -- NEW1 NEW2 ...");
    if (o.source == LT_SOURCE_GPU && o.format == LUDUS_REPORT_CSV)
        return lt_usage(&diff_verb, "the GPU diff is text or --json");
    /* Each file is read once: its analysis, and for the first BASE and the
     * first NEW their GPU statistics. */
    ludus_analysis **an = calloc((size_t)npaths, sizeof *an);
    ludus_gpu_stats *gb = NULL, *gn = NULL;
    ludus_diff *d = NULL;
    int rc = an ? LT_OK : LT_BAD_INPUT;
    int want_gpu = o.source != LT_SOURCE_CPU;
    int *rcs = rc ? NULL : calloc((size_t)npaths, sizeof *rcs);
    if (!rc && !rcs) rc = LT_BAD_INPUT;
    if (!rc) {
        load_jobs j = {paths,
                       o.source == LT_SOURCE_GPU ? NULL : &o.desc,
                       an,
                       want_gpu ? &gb : NULL,
                       want_gpu ? &gn : NULL,
                       (unsigned)split,
                       rcs};
        int stdin_in = 0; /* standard input is read by one thread, as it comes */
        for (int k = 0; k < npaths; k++) stdin_in |= !strcmp(paths[k], "-");
        char what[32];
        snprintf(what, sizeof what, "%d captures", npaths);
        lt_busy_hold("diff", "reading and analysing", what);
        lt_parallel((unsigned)npaths, stdin_in ? 1 : LOAD_THREADS, load_one, &j);
        lt_busy_release();
        for (int k = 0; !rc && k < npaths; k++) rc = rcs[k]; /* the first file's failure, as one by one */
    }
    free(rcs);
    if (!rc && o.source == LT_SOURCE_GPU && (!gb || !gn)) {
        fprintf(stderr, "ludus-trace diff: %s has no GPU sample\n", gb ? paths[split] : paths[0]);
        rc = LT_USAGE;
    }
    if (!rc && o.source != LT_SOURCE_GPU &&
        ludus_diff_create_runs((const ludus_analysis *const *)an, (uint32_t)split,
                               (const ludus_analysis *const *)an + split, (uint32_t)(npaths - split), &dd, &d) != 0)
        rc = LT_BAD_INPUT;
    ludus_analysis *b = an ? an[split] : NULL;
    for (uint32_t g = 0; g < ngates; g++) gates[g].sites_only = sites_only;
    /* A gate whose NAME is on neither side would guard nothing: usage. */
    for (uint32_t g = 0; !rc && d && g < ngates; g++)
        if (ludus_diff_gate_validate(d, &gates[g]) != 0) {
            fprintf(stderr, "ludus-trace diff: %s\n", ludus_last_error_detail());
            rc = LT_USAGE;
        }
    /* Gates are checked first: the text and the HTML list the tripped ones on top. */
    uint32_t tripped = !rc && ngates && d ? ludus_diff_set_gates(d, gates, ngates) : 0;
    lt_out out;
    int opened = 0;
    if (!rc && (rc = lt_out_open("diff", o_out ? o_out : "-", &out)) == LT_OK) opened = 1;
    int failed = 0;
    if (!rc && o.source != LT_SOURCE_GPU && ludus_diff_report(d, o.format, lt_out_write, &out) != 0) failed = 1;
    /* GPU passes: alone (--source gpu), or beside the sites in the text */
    if (!rc && !failed && gb && gn && (o.source == LT_SOURCE_GPU || o.format == LUDUS_REPORT_TEXT) &&
        lt_an_gpu_print("diff", gn, gb, o.format, &out) != LT_OK)
        failed = 1;
    if (opened) {
        if (failed) lt_an_stdout_failed("diff");
        int crc = lt_out_close("diff", &out, failed);
        if (!rc) rc = crc;
    }
    if (!rc && o.html && o.source != LT_SOURCE_GPU) {
        o.ropt.title = paths[split];
        rc = lt_an_write_html("diff", o.html, b, d, &o.ropt);
    }
    if (!rc && tripped) { /* the lines again on standard error: a CI log shows why it failed */
        ludus_diff_check_gates(d, gates, ngates, to_file, stderr);
        fprintf(stderr, "ludus-trace diff: %u gate(s) tripped\n", tripped);
        rc = LT_FAILED_GATE;
    }
    ludus_diff_destroy(d);
    ludus_gpu_stats_destroy(gb);
    ludus_gpu_stats_destroy(gn);
    for (int k = 0; an && k < npaths; k++) ludus_analysis_destroy(an[k]);
    free(an);
    return rc;
}

/* BASE NEW, or BASE... -- NEW...: several runs per side. */
static int run_diff(int argc, char **argv) {
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) return LT_BAD_INPUT;
    int rc = diff_files(argc, argv, paths);
    free(paths);
    return rc;
}

static const lt_verb diff_verb = {
    "diff", "compare two captures: more work (calls/frame) vs slower work (time/call), --fail-if gates",
    "usage: ludus-trace diff BASE NEW [options]   (one of the files may be -: standard input)\n"
    "       ludus-trace diff BASE1 BASE2 ... -- NEW1 NEW2 ... [options]   several runs per side:\n"
    "                       their disagreement widens each time interval (one run per side:\n"
    "                       run-to-run noise is unknown and --run-noise is assumed)\n"
    "  --fail-if VERDICT    exit 4 when a site or path got that verdict (repeatable): 'slower',\n"
    "                       'faster', 'more work', 'less work', 'more time per frame', 'less time\n"
    "                       per frame'; 'slower NAME' for one site or path only\n"
    "  --fail-if 'M > +X%'  exit 4 when a significant site or path changed beyond X% (repeatable;\n"
    "                       M: mean, p50, p90, p99 of exclusive time per call, calls per frame,\n"
    "                       total: time per frame; 'M NAME > +X%' for one site or path;\n"
    "                       '<' with a negative X gates improvements; 'counter NAME > +X%'\n"
    "                       gates a counter's per-frame mean, e.g. 'counter DrawCalls > +10%';\n"
    "                       'lock NAME > +X%' a lock's wait per frame, e.g. 'lock JobQueue > +20%';\n"
    "                       'errors > +0%' / 'warnings > +X%' the messages logged per frame\n"
    "                       (errors where BASE had none count as any increase); a NAME on neither\n"
    "                       side is a usage error (exit 1) that names the nearest names)\n"
    "  --gate-sites-only    gates judge sites only (each scope over every caller and thread),\n"
    "                       never caller-context paths (a gate naming a path still may)\n"
    "  --alpha A            family-wise significance level (default 0.01, Bonferroni over the tests)\n"
    "  --min-change PCT     smallest relative change of calls per frame and per second, counters\n"
    "                       and lock waits reported as significant (default 5)\n"
    "  --min-shift PCT      time per call: a verdict only when the whole interval of the\n"
    "                       Hodges-Lehmann shift lies beyond it (default 2)\n"
    "  --run-noise PCT      assumed SD between runs of a per-call median with one run per side\n"
    "                       (default 1)\n"
    "  --min-frame-share PCT  smallest cost of a time change per frame, in % of BASE's median\n"
    "                       frame (default 0.2; without frames: 1 us per call)\n"
    "  --window W --hitch-k K --budget MS --exact   as for report, applied to both captures\n"
    "  --source S           cpu | gpu | both (default): with both the text adds the GPU queues'\n"
    "                       frame time and passes (first BASE against first NEW) when both have\n"
    "                       GPU samples; --json gives one source (cpu unless --source gpu)\n"
    "  --json | --csv       machine-readable diff on stdout\n"
    "  -o OUT               the diff to OUT instead of standard output\n"
    "  --html OUT           the HTML report of NEW with the diff added\n"
    "Verdicts: time per call from the Hodges-Lehmann shift and its interval; work from Mann-Whitney U\n"
    "over calls per frame and calls per second: both when they agree, else the one that fits the site\n"
    "(per second for a site whose calls follow the frame's length; docs/analysis.md).\n",
    "--fail-if GATE, --gate-sites-only, --alpha A, --min-change PCT, --min-shift PCT, --run-noise PCT, "
    "--min-frame-share PCT, "
    "--window W, --hitch-k K, --budget MS, --exact, --source cpu|gpu|both, --json, --csv, --html OUT, -o OUT, --, "
    "--help, --version",
    run_diff};
LUDUS_TRACE_VERB(diff_verb)
