/* ludus-trace convert IN OUT: a capture file to Chrome JSON (.json),
 * Perfetto protobuf (.pftrace) or a native file again (.ludus), optionally
 * cut to a time range and/or a subset of threads. Streams: one event block
 * in memory at a time, output through the 64 KiB writer into OUT.tmp,
 * renamed into place when complete. */
#define _POSIX_C_SOURCE 200809L
#include <ludus/capture_file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/native_format.h"
#include "export/export_formats.h"
#include "export/export_internal.h"
#include "verbs.h"

static const lt_verb convert_verb;

/* "12", "12ns", "3.5us", "20ms", "1.25s" -> ns; -1 when malformed. */
static int parse_time(const char *s, int64_t *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || v < 0) return -1;
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

static int ends_with(const char *s, const char *suffix) {
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && !strcmp(s + n - k, suffix);
}

/* Output file with a progress bar driven by the bytes written (an estimate
 * of output bytes per input slot gives the total). */
typedef struct progress_sink {
    ludus__file file;
    lt_progress bar;
    uint64_t bytes, per_slot;
} progress_sink;

static int sink_write(void *ud, const void *data, size_t n) {
    progress_sink *s = ud;
    if (ludus__file_write(&s->file, data, n) != 0) return -1;
    s->bytes += n;
    lt_progress_update(&s->bar, s->bytes / s->per_slot);
    return 0;
}

static ludus__writer out_writer;

/* Marks the threads named in LIST (tids or names, comma-separated). */
static int select_threads(ludus_capture_file *f, const char *list, unsigned char *keep, uint32_t n) {
    char *copy = strdup(list);
    if (!copy) return -1;
    int bad = 0;
    for (char *save = NULL, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        int found = 0;
        char *end;
        unsigned long long tid = strtoull(item, &end, 10);
        for (uint32_t t = 0; t < n; t++) {
            ludus_thread_summary ts;
            ludus_capture_file_get_thread(f, t, &ts);
            if ((*end == 0 && end != item && ts.tid == tid) || !strcmp(ts.name, item)) keep[t] = 1, found = 1;
        }
        if (!found) {
            fprintf(stderr, "ludus-trace convert: no thread has tid or name '%s'\n", item);
            bad = 1;
        }
    }
    free(copy);
    return bad ? -1 : 0;
}

static int convert_run(int argc, char **argv) {
    const char *in = NULL, *out = NULL, *threads = NULL;
    int64_t from = 0, to = INT64_MAX;
    int cut = 0, compact = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--from") || !strcmp(a, "--to")) {
            if (i + 1 >= argc) return lt_usage(&convert_verb, "missing time after --from/--to");
            if (parse_time(argv[++i], a[2] == 'f' ? &from : &to) != 0)
                return lt_usage(&convert_verb, "bad time (ns, or a number with ns/us/ms/s)");
            cut = 1;
        } else if (!strcmp(a, "--threads")) {
            if (i + 1 >= argc) return lt_usage(&convert_verb, "missing LIST after --threads");
            threads = argv[++i];
        } else if (!strcmp(a, "--compact")) {
            compact = 1;
        } else if (a[0] == '-' && a[1]) {
            return lt_usage(&convert_verb, "unknown option");
        } else if (!in) {
            in = a;
        } else if (!out) {
            out = a;
        } else {
            return lt_usage(&convert_verb, "too many arguments");
        }
    }
    if (!in || !out) return lt_usage(&convert_verb, "IN and OUT are required");
    if (cut && from > to) return lt_usage(&convert_verb, "--from is after --to");
    enum { OUT_JSON, OUT_PFTRACE, OUT_LUDUS } kind;
    if (ends_with(out, ".json"))
        kind = OUT_JSON;
    else if (ends_with(out, ".pftrace"))
        kind = OUT_PFTRACE;
    else if (ends_with(out, ".ludus"))
        kind = OUT_LUDUS;
    else
        return lt_usage(&convert_verb, "OUT must end in .json, .pftrace or .ludus");
    if (kind == OUT_LUDUS && cut) return lt_usage(&convert_verb, "--from/--to need a .json or .pftrace output");
    if (compact && kind != OUT_LUDUS) return lt_usage(&convert_verb, "--compact needs a .ludus output");

    ludus_capture_file *f;
    int rc = ludus_capture_open(in, &f);
    if (rc) {
        fprintf(stderr, "ludus-trace convert: %s: %s: %s\n", in, ludus_error_string(rc), ludus_last_error_detail());
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    ludus_capture_file_info info;
    ludus_capture_file_get_info(f, &info);
    unsigned char *keep = NULL;
    if (threads) {
        keep = calloc(info.threads ? info.threads : 1, 1);
        if (!keep || select_threads(f, threads, keep, info.threads) != 0) {
            free(keep);
            ludus_capture_close(f);
            return LT_USAGE;
        }
    }
    ludus__captured *view;
    rc = ludus__capture_file_subview(f, keep, cut, from, to, &view);
    free(keep);
    if (rc) {
        ludus_capture_close(f);
        fprintf(stderr, "ludus-trace convert: %s\n", ludus_last_error_detail());
        return LT_IO;
    }
    progress_sink sink;
    if (ludus__file_create(&sink.file, out) != 0) {
        fprintf(stderr, "ludus-trace convert: cannot create %s.tmp\n", out);
        ludus__capture_view_free(view);
        ludus_capture_close(f);
        return LT_IO;
    }
    lt_progress_begin(&sink.bar, "converting", info.slots);
    sink.bytes = 0;
    sink.per_slot = kind == OUT_JSON ? 60 : kind == OUT_PFTRACE ? 12 : compact ? 3 : 16;
    ludus__w_init(&out_writer, sink_write, &sink);
    rc = kind == OUT_JSON      ? ludus__export_chrome_json(view, &out_writer)
         : kind == OUT_PFTRACE ? ludus__export_pftrace(view, &out_writer)
                               : ludus__save_native(view, &out_writer, compact ? LUDUS_SAVE_COMPACT : LUDUS_SAVE_RAW);
    lt_progress_end(&sink.bar);
    int status = LT_OK;
    int ferr = ludus__capture_file_error(f);
    if (ferr) {
        /* the detail names the offset of the damaged block */
        fprintf(stderr, "ludus-trace convert: %s: %s: %s\n", in, ludus_error_string(ferr), ludus_last_error_detail());
        status = ferr == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    } else if (rc) {
        fprintf(stderr, "ludus-trace convert: writing %s failed: %s\n", out, ludus_error_string(rc));
        status = LT_IO;
    }
    if (status != LT_OK) {
        ludus__file_abort(&sink.file);
    } else if (ludus__file_commit(&sink.file) != 0) {
        fprintf(stderr, "ludus-trace convert: cannot close or rename %s\n", out);
        status = LT_IO;
    }
    ludus__capture_view_free(view);
    ludus_capture_close(f);
    return status;
}

static const lt_verb convert_verb = {
    "convert",
    "convert a capture file to .json, .pftrace or .ludus, optionally cut",
    "usage: ludus-trace convert IN.ludus OUT [--from T0] [--to T1] [--threads LIST] [--compact]\n"
    "  OUT's extension picks the format: .json (Chrome JSON), .pftrace (Perfetto\n"
    "  protobuf) or .ludus (native; --compact for the compact encoding).\n"
    "  --from/--to: times since capture start, in ns or with a unit (ns, us, ms, s);\n"
    "    slices crossing a bound are clipped to it and flagged (incomplete/clipped).\n"
    "  --threads: comma-separated tids or thread names to keep.\n"
    "  Exit codes: 0 ok, 1 usage, 2 bad input (the offset is named), 3 I/O.\n",
    convert_run,
};
LUDUS_TRACE_VERB(convert_verb)
