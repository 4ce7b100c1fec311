/* A capture with refusals of every kind the recorder counts, for
 * check_refusals.py: counters past the counters' table (distinct names at
 * run time), run-time names past a capture's name table, a thread past the
 * thread table is not made (4096 threads at once is too many for a test).
 *   refusals OUT.ludus */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <string.h>

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    if (ludus_capture_begin(NULL) != 0) return 1;
    static ludus_counter_site cs[200];
    static char names[200][32];
    for (int i = 0; i < 200; i++) { /* 128 counters at most: the rest refused */
        snprintf(names[i], sizeof names[i], "Counter %d", i);
        cs[i].site =
            (ludus_site){names[i], "", __FILE__, "count", (uint32_t)__LINE__, LUDUS_SITE_COUNT | LUDUS_SITE_TEXT};
        ludus__count(&cs[i], 1);
    }
    char name[32];
    for (int i = 0; i < 16384 + 100; i++) { /* 16,384 run-time names per capture: 100 refused */
        snprintf(name, sizeof name, "Name %d", i);
        LUDUS_PROFILE_SCOPE_DYN(name);
    }
    LUDUS_PROFILE_FRAME();
    ludus_capture *c = NULL;
    if (ludus_capture_end(&c) != 0) return 1;
    int rc = ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, argv[1]);
    ludus_capture_release(c);
    return rc == 0 ? 0 : 1;
}
