/* A program that takes Ludus Profiling as one file: ludus_profiling.h next
 * to it, impl.c defining the implementation (tests/package/check_single_file.sh
 * builds it as C and as C++ against the C implementation).
 *   single OUT.json   its own capture, written to OUT.json
 *   single --launch   none of its own: LUDUS_TRACE=PATH writes PATH at exit */
#include "ludus_profiling.h"

#include <stdio.h>
#include <string.h>

static int work(int n) {
    LUDUS_PROFILE_FUNCTION();
    LUDUS_PROFILE_SCOPE(Inner, Work);
    LUDUS_PROFILE_COUNT(Items, n);
    return n * 2;
}

int main(int argc, char **argv) {
    ludus_capture *c = NULL;
    int sum = 0;
    uint64_t last;
    int64_t items = -1;
    if (argc != 2) return 2;
    if (!strcmp(argv[1], "--launch")) {
        for (int f = 0; f < 5; f++) {
            sum += work(f);
            LUDUS_PROFILE_FRAME();
        }
        printf("single ok: %d\n", sum);
        return 0;
    }
    if (ludus_capture_begin(NULL) != 0) return 1;
    for (int f = 0; f < 5; f++) {
        sum += work(f);
        LUDUS_PROFILE_FRAME();
    }
    if (ludus_capture_end(&c) != 0 || ludus_capture_save(c, 0, 0, argv[1]) != 0) {
        fprintf(stderr, "single: %s\n", ludus_last_error_detail());
        return 1;
    }
    if (ludus_frame_ring_frames(NULL, &last) != 0 || ludus_frame_ring_value(last, "Items", "per frame", &items) != 0 ||
        items != 4)
        return 1;
    printf("single ok: %d, wrote %s\n", sum, argv[1]);
    ludus_capture_release(c);
    return 0;
}
