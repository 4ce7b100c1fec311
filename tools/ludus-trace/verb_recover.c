/* ludus-trace recover POOL OUT: the capture a pool file holds
 * (ludus_capture_desc.pool_file) when its process died without ending it,
 * written as .ludus, .json or .pftrace. Uses the public API only. */
#include <ludus/capture_file.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

static const lt_verb recover_verb;

static int recover_run(int argc, char **argv) {
    const char *pool = NULL, *out = NULL, *o_out = NULL, *format_word = NULL;
    int rc;
    for (int i = 1; i < argc; i++) {
        if (lt_output_option(&recover_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) return rc;
        } else if (!strcmp(argv[i], "--format")) {
            if (i + 1 >= argc) return lt_missing_value(&recover_verb, argv[i]);
            format_word = argv[++i];
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return lt_unknown_option(&recover_verb, argv[i]);
        } else if (!pool) {
            pool = argv[i];
        } else if (!out && !o_out) {
            out = argv[i];
        } else {
            return lt_usage(&recover_verb, "too many arguments (POOL and one OUT: positional or -o)");
        }
    }
    if (o_out && out) return lt_usage(&recover_verb, "one OUT: positional or -o, not both");
    if (o_out) out = o_out;
    if (!pool || !out) return lt_usage(&recover_verb, "POOL and OUT are required");
    if (!strcmp(pool, "-"))
        return lt_usage(&recover_verb, "POOL is a file (it is mapped as its process wrote it), not standard input");
    int format;
    if ((rc = lt_output_format(&recover_verb, out, format_word, &format)) != LT_OK) return rc;
    ludus_capture *c;
    lt_busy_begin("recover", "reading", pool);
    rc = ludus_capture_recover(pool, &c);
    lt_busy_end();
    if (rc) {
        lt_error("recover", pool, rc);
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    lt_out o;
    int code = lt_out_open("recover", out, &o);
    if (code == LT_OK) {
        rc = ludus_capture_write(c, format, 0, lt_out_write, &o);
        if (rc) lt_error("recover", out, rc);
        code = lt_out_close("recover", &o, rc != 0);
    }
    ludus_capture_info in;
    char name[256]; /* a file may hold anything: shown, not sent */
    if (code == LT_OK && ludus_capture_get_info(c, &in) == 0)
        fprintf(strcmp(out, "-") ? stdout : stderr,
                "recovered %s (pid %d): %u threads, %llu events, %llu incomplete slices, %.3f ms -> %s\n",
                ludus_text_show(name, sizeof name, in.process_name, 0), in.pid, in.threads,
                (unsigned long long)in.summary.events, (unsigned long long)in.summary.incomplete,
                (double)(in.end_ns - in.start_ns) / 1e6, out);
    ludus_capture_release(c);
    return code;
}

static const lt_verb recover_verb = {
    "recover",
    "read back the capture a pool file holds after its process was killed",
    "usage: ludus-trace recover POOL OUT [--format F]\n"
    "       ludus-trace recover POOL -o OUT ...\n"
    "  POOL: the file of ludus_capture_desc.pool_file, left behind by a process that\n"
    "  died without ending its capture (kill -9, a crash without the crash handler).\n"
    "  Every event the file holds is kept; slices open then are closed as incomplete.\n"
    "  OUT's extension picks the format (.ludus, .json or .pftrace; --format json|pftrace|ludus\n"
    "  for any OUT); - is standard output (JSON unless --format says).\n",
    "-o OUT, --format json|pftrace|ludus, --help, --version",
    recover_run,
};
LUDUS_TRACE_VERB(recover_verb)
