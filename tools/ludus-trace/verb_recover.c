/* ludus-trace recover POOL OUT: the capture a pool file holds
 * (ludus_capture_desc.pool_file) when its process died without ending it,
 * written as .ludus, .json or .pftrace. Uses the public API only. */
#include <ludus/capture_file.h>
#include <stdio.h>
#include <string.h>

#include "verbs.h"

static const lt_verb recover_verb;

static int recover_run(int argc, char **argv) {
    if (argc != 3) return lt_usage(&recover_verb, "POOL and OUT are required");
    int format = ludus_format_from_path(argv[2]);
    if (!format) return lt_usage(&recover_verb, "OUT must end in .ludus, .json or .pftrace");
    ludus_capture *c;
    int rc = ludus_capture_recover(argv[1], &c);
    if (rc) {
        lt_error("recover", argv[1], rc);
        return rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
    }
    rc = ludus_capture_save(c, format, 0, argv[2]);
    ludus_capture_info in;
    char name[256];
    if (rc == 0 && ludus_capture_get_info(c, &in) == 0)
        printf("recovered %s (pid %d): %u threads, %llu events, %llu incomplete slices, %.3f ms -> %s\n",
               ludus_text_show(name, sizeof name, in.process_name, 0), in.pid, in.threads,
               (unsigned long long)in.summary.events, (unsigned long long)in.summary.incomplete,
               (double)(in.end_ns - in.start_ns) / 1e6, argv[2]);
    else if (rc)
        lt_error("recover", argv[2], rc);
    ludus_capture_release(c);
    return rc == 0 ? LT_OK : rc == LUDUS_EIO ? LT_IO : LT_BAD_INPUT;
}

static const lt_verb recover_verb = {
    "recover",
    "read back the capture a pool file holds after its process was killed",
    "usage: ludus-trace recover POOL OUT\n"
    "  POOL: the file of ludus_capture_desc.pool_file, left behind by a process that\n"
    "  died without ending its capture (kill -9, a crash without the crash handler).\n"
    "  Every event the file holds is kept; slices open then are closed as incomplete.\n"
    "  OUT's extension picks the format: .ludus, .json or .pftrace.\n"
    "  Exit codes: 0 ok, 1 usage, 2 bad input (the offset is named), 3 I/O.\n",
    recover_run,
};
LUDUS_TRACE_VERB(recover_verb)
