/* The README's minimal program: a frame loop with a scope and a counter,
 * captured and saved as a Perfetto trace (ctest runs it: example_minimal;
 * docs_readme_example checks the README shows this file as it is). */
#include <stdio.h>

#include <ludus/capture.h>

static void update(int frame) {
    LUDUS_PROFILE_SCOPE(Update); /* closes at the end of the block */
    for (volatile int i = 0; i < 10000 * (frame % 3 + 1); i++) {
    }
}

int main(void) {
    ludus_thread_register("Main");                 /* names the thread's track */
    ludus_capture_desc desc = {.chunk_count = 64}; /* fields not named: defaults */
    int rc = ludus_capture_begin(&desc);
    for (int frame = 0; rc == 0 && frame < 100; frame++) {
        LUDUS_PROFILE_FRAME(); /* a frame lies between two marks */
        update(frame);
        LUDUS_PROFILE_COUNT(DrawCalls, 3); /* summed per frame */
    }
    ludus_capture *c = NULL;
    if (rc == 0) rc = ludus_capture_end(&c);
    if (rc == 0) rc = ludus_capture_save(c, 0, 0, "minimal.pftrace"); /* format 0: by the extension */
    if (rc) fprintf(stderr, "%s: %s\n", ludus_error_string(rc), ludus_last_error_detail());
    ludus_capture_release(c); /* NULL: a no-op */
    return rc != 0;
}
