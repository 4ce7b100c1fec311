/* A tool that reads captures links the analysis library (ludus::analysis,
 * pkg-config ludus-analysis or ludus-analysis-shared): it records a
 * capture, saves it, opens the file and analyses it.
 *   analysis OUT.ludus */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <stdio.h>

int main(int argc, char **argv) {
    ludus_capture *c = NULL, *f = NULL;
    ludus_analysis *a = NULL;
    ludus_analysis_summary s;
    int i, rc;
    if (argc != 2) return 2;
    if (ludus_capture_begin(NULL) != 0) return 1;
    for (i = 0; i < 5; i++) {
        LUDUS_PROFILE_SCOPE(Work);
        LUDUS_PROFILE_FRAME();
    }
    if (ludus_capture_end(&c) != 0) return 1;
    rc = ludus_capture_save(c, 0, 0, argv[1]);
    ludus_capture_release(c);
    if (rc == 0) rc = ludus_capture_open(argv[1], &f);
    if (rc == 0) rc = ludus_analysis_create(f, NULL, &a);
    ludus_capture_release(f);
    if (rc != 0) {
        fprintf(stderr, "analysis: %s: %s\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }
    ludus_analysis_get_summary(a, &s);
    ludus_analysis_destroy(a);
    if (s.frames_complete != 4) {
        fprintf(stderr, "analysis: %llu frames, expected 4\n", (unsigned long long)s.frames_complete);
        return 1;
    }
    printf("analysis ok: %llu frames\n", (unsigned long long)s.frames_complete);
    return 0;
}
