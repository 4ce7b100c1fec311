/* ludus-trace convert IN OUT: a capture file (or standard input) to Chrome JSON (.json),
 * Perfetto protobuf (.pftrace) or a native file again (.ludus), optionally
 * cut to a time range (a .ludus cut too) and/or a subset of threads. Streams: one event block
 * in memory at a time, output through the library's safe file (a temporary
 * of its own, renamed into place when complete). Uses the public API only. */
#define _POSIX_C_SOURCE 200809L
#include <ludus/analysis.h>
#include <ludus/capture_file.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verbs.h"

static const lt_verb convert_verb;

/* "12", "12ns", "3.5us", "20ms", "1.25s" -> ns; -1 when malformed (NaN,
 * infinities and negative times included). */
static int parse_time(const char *s, int64_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || !isfinite(v) || v < 0) return -1;
    double mul = 1;
    if (!strcmp(end, "") || !strcmp(end, "ns"))
        mul = 1;
    else if (!strcmp(end, "us"))
        mul = 1e3;
    else if (!strcmp(end, "ms"))
        mul = 1e6;
    else if (!strcmp(end, "s"))
        mul = 1e9;
    else
        return -1;
    v *= mul;
    if (v > 9e18) return -1;
    *out = (int64_t)(v + 0.5);
    return 0;
}

/* --frames SPEC ("A-B": frames A to B as `report` and the sql frame table
 * number them, 1 the first complete one; "last:N": the last N complete
 * frames) as a time range: the first frame's begin to the last one's end,
 * found by an analysis of the capture at path. An exit code; said. */
static int frames_range(const char *path, const char *spec, int64_t *from, int64_t *to) {
    unsigned long long a = 0, b = 0, n = 0;
    char tail;
    int last = sscanf(spec, "last:%llu%c", &n, &tail) == 1 && n > 0;
    if (!last && (sscanf(spec, "%llu-%llu%c", &a, &b, &tail) != 2 || a > b))
        return lt_usage(&convert_verb, "--frames takes A-B (frame numbers, A <= B) or last:N");
    ludus_capture *c;
    int rc = lt_capture_open("convert", path, &c);
    if (rc != LT_OK) return rc;
    ludus_analysis *an = NULL;
    lt_busy_begin("convert", "finding the frames of", path);
    rc = ludus_analysis_create(c, NULL, &an);
    lt_busy_end();
    if (rc) {
        lt_error("convert", path, rc);
        lt_capture_release(c);
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    uint64_t marks = ludus_analysis_frame_count(an) - 1; /* complete frames: 1 .. marks - 1 */
    if (last) a = n < marks ? marks - n : 1, b = marks - 1;
    ludus_frame_info fa, fb;
    int ok = marks >= 2 && a >= 1 && b <= marks - 1 && ludus_analysis_frame(an, a, &fa) == 0 &&
             ludus_analysis_frame(an, b, &fb) == 0;
    if (ok) *from = fa.begin_ns, *to = fb.end_ns;
    ludus_analysis_destroy(an);
    lt_capture_release(c);
    if (!ok) {
        fprintf(stderr, "ludus-trace convert: --frames %s: the capture's complete frames are 1 to %llu\n", spec,
                (unsigned long long)(marks >= 2 ? marks - 1 : 0));
        return LT_USAGE;
    }
    return LT_OK;
}

/* The output with a progress bar driven by the bytes written (an estimate
 * of output bytes per input slot gives the total). */
typedef struct progress_sink {
    lt_out out;
    lt_progress bar;
    uint64_t bytes, per_slot;
} progress_sink;

static int sink_write(void *ud, const void *data, size_t n) {
    progress_sink *s = ud;
    if (lt_out_write(&s->out, data, n) != 0) return -1;
    s->bytes += n;
    lt_progress_update(&s->bar, s->bytes / s->per_slot);
    return 0;
}

/* The indexes of the threads named in LIST (tids or names, comma-separated). */
static int select_threads(ludus_capture *c, uint32_t n, const char *list, uint32_t **out, uint32_t *count) {
    char *copy = strdup(list);
    uint32_t *idx = calloc(n ? n : 1, sizeof *idx);
    unsigned char *keep = calloc(n ? n : 1, 1);
    if (!copy || !idx || !keep) {
        free(copy);
        free(idx);
        free(keep);
        return -1;
    }
    int bad = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int found = 0;
        char *end;
        unsigned long long tid = strtoull(item, &end, 10);
        for (uint32_t t = 0; t < n; t++) {
            ludus_thread_summary ts;
            ludus_capture_thread(c, t, &ts);
            if ((*end == 0 && end != item && ts.tid == tid) || !strcmp(ts.name, item)) keep[t] = 1, found = 1;
        }
        if (!found) {
            fprintf(stderr, "ludus-trace convert: no thread has tid or name '%s'\n", item);
            bad = 1;
        }
    }
    *count = 0;
    for (uint32_t t = 0; t < n; t++)
        if (keep[t]) idx[(*count)++] = t;
    free(copy);
    free(keep);
    if (bad || *count == 0) {
        if (!bad) fprintf(stderr, "ludus-trace convert: --threads selects no thread\n");
        free(idx);
        return -1;
    }
    *out = idx;
    return 0;
}

static int fail_with(const char *what, int rc) {
    lt_error("convert", what, rc);
    return rc == LUDUS_EIO ? LT_IO : rc == LUDUS_EINVAL || rc == LUDUS_EUNSUPPORTED ? LT_USAGE : LT_BAD_INPUT;
}

static int convert_run(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *threads = NULL, *format_word = NULL, *o_out = NULL, *frames = NULL;
    int64_t from = 0, to = INT64_MAX;
    int cut = 0, raw = 0, uncompressed = 0, rc;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (lt_output_option(&convert_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) return rc;
        } else if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            if (i + 1 >= argc) return lt_missing_value(&convert_verb, a);
            if (parse_time(argv[++i], a[2] == 'f' ? &from : &to) != 0)
                return lt_usage(&convert_verb, "bad time (a number >= 0, in ns or with ns/us/ms/s)");
            cut = 1;
        } else if (!strcmp(a, "--frames")) {
            if (i + 1 >= argc) return lt_missing_value(&convert_verb, a);
            frames = argv[++i];
        } else if (!strcmp(a, "--threads")) {
            if (i + 1 >= argc) return lt_missing_value(&convert_verb, a);
            threads = argv[++i];
        } else if (!strcmp(a, "--format")) {
            if (i + 1 >= argc) return lt_missing_value(&convert_verb, a);
            format_word = argv[++i];
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "--compact")) {
            raw = 0; /* the default; kept for scripts */
        } else if (!strcmp(a, "--uncompressed")) {
            uncompressed = 1;
        } else if (a[0] == '-' && a[1]) {
            return lt_unknown_option(&convert_verb, a);
        } else if (!in) {
            in = a;
        } else if (!out && !o_out) {
            out = a;
        } else {
            return lt_usage(&convert_verb, "too many arguments (IN and one OUT: positional or -o)");
        }
    }
    if (o_out && out) return lt_usage(&convert_verb, "one OUT: positional or -o, not both");
    if (o_out) out = o_out;
    if (!in || !out) return lt_usage(&convert_verb, "IN and OUT are required");
    if (cut && from > to) return lt_usage(&convert_verb, "--from is after --to");
    if (frames && cut) return lt_usage(&convert_verb, "--frames or --from/--to, not both");
    if (frames && !strcmp(in, "-")) return lt_usage(&convert_verb, "--frames needs IN as a file (it is read twice)");
    if (frames) {
        if ((rc = frames_range(in, frames, &from, &to)) != LT_OK) return rc;
        cut = 1;
    }
    int tables = lt_sql_export_kind(out, format_word);
    if (tables) {
        if (threads || raw || uncompressed)
            return lt_usage(&convert_verb, "--threads, --raw and --uncompressed need a capture output");
        if (!strcmp(out, "-"))
            return lt_usage(&convert_verb, "tables go to a file or a directory, not standard output");
        ludus_cut_desc cd = {1, from, to, NULL, 0}; /* the tables of the cut: its slices, frames and rows */
        return lt_sql_export("convert", in, out, tables, cut ? &cd : NULL);
    }
    int format;
    if ((rc = lt_output_format(&convert_verb, out, format_word, &format)) != LT_OK) return rc;
    if ((raw || uncompressed) && format != LUDUS_FORMAT_LUDUS)
        return lt_usage(&convert_verb, "--raw and --uncompressed need a .ludus output");

    ludus_capture *c = NULL, *view = NULL;
    if ((rc = lt_capture_open("convert", in, &c)) != LT_OK) return rc;
    ludus_capture_info info;
    ludus_capture_get_info(c, &info);
    uint32_t *keep = NULL, nkeep = 0;
    if (threads && select_threads(c, info.threads, threads, &keep, &nkeep) != 0) {
        lt_capture_release(c);
        return LT_USAGE;
    }
    if (cut || keep) {
        ludus_cut_desc cd = {cut, from, to, keep, nkeep};
        rc = ludus_capture_cut(c, &cd, &view);
        free(keep);
        if (rc) {
            lt_capture_release(c);
            return fail_with(in, rc);
        }
    } else {
        ludus_capture_retain(c);
        view = c;
    }
    progress_sink sink;
    if ((rc = lt_out_open("convert", out, &sink.out)) != LT_OK) {
        ludus_capture_release(view);
        lt_capture_release(c);
        return rc;
    }
    lt_progress_begin(&sink.bar, "ludus-trace convert: writing", info.slots);
    sink.bytes = 0;
    sink.per_slot = format == LUDUS_FORMAT_JSON      ? 45
                    : format == LUDUS_FORMAT_PFTRACE ? 12
                    : raw                            ? 16
                    : uncompressed                   ? 3
                                                     : 1;
    unsigned flags = (raw ? LUDUS_SAVE_RAW : 0u) | (uncompressed ? LUDUS_SAVE_UNCOMPRESSED : 0u);
    rc = ludus_capture_write(view, format, flags, sink_write, &sink);
    lt_progress_end(&sink.bar);
    int status = LT_OK;
    if (rc) {
        /* A damaged block names its offset; a write failure says why. */
        status = fail_with(rc == LUDUS_EIO ? out : in, rc);
        lt_out_close("convert", &sink.out, 1);
    } else {
        status = lt_out_close("convert", &sink.out, 0);
    }
    ludus_capture_release(view);
    lt_capture_release(c);
    return status;
}

static const lt_verb convert_verb = {
    "convert",
    "convert a capture file to .json, .pftrace or .ludus, optionally cut",
    "usage: ludus-trace convert IN OUT [--from T0] [--to T1] [--frames A-B|last:N] [--threads LIST] [--raw]\n"
    "       [--uncompressed] [--format F]\n"
    "       ludus-trace convert IN -o OUT ...\n"
    "  IN: a .ludus file, or - for standard input. OUT: a file, or - for standard output.\n"
    "  OUT's extension picks the format: .json (Chrome JSON), .pftrace (Perfetto\n"
    "  protobuf) or .ludus (native, compact, compressed with zstd when this build has it;\n"
    "  --uncompressed writes compact blocks as they are, which a build without zstd reads;\n"
    "  --raw writes the recorded events as they are);\n"
    "  --format json|pftrace|ludus picks it for any OUT; - and a path without an extension\n"
    "  (/dev/stdout) get JSON.\n"
    "  --from/--to: times since capture start, in ns or with a unit (ns, us, ms, s);\n"
    "    slices crossing a bound are clipped to it and flagged (clipped, incomplete).\n"
    "    A range outside the capture is refused. A .ludus cut is a capture of the range\n"
    "    (its times count from --from; info says what it was cut from).\n"
    "  --frames A-B | last:N: the time of frames A to B (numbered as report and the sql\n"
    "    frame table number them: 1 is the first complete frame) or of the last N, as\n"
    "    --from/--to (an analysis of IN finds them: IN is read twice).\n"
    "  --threads: comma-separated tids or thread names to keep.\n"
    "  Tables take --from/--to too: the tables of the cut (its slices, frames and rows).\n"
    "  Tables (ludus-trace sql's, docs/sql.md): OUT.sqlite (.sqlite3, .db, or --format sqlite) a\n"
    "    SQLite database; --format csv|jsonl: the directory OUT with a file per table, schema.sql\n"
    "    (DuckDB and Spark types), load-duckdb.sql and schema.json.\n",
    "--from T, --to T, --frames A-B|last:N, --threads LIST, --raw, --compact, --format "
    "json|pftrace|ludus|sqlite|csv|jsonl, -o OUT, "
    "--help, --version",
    convert_run,
};
LUDUS_TRACE_VERB(convert_verb)
