/* A program of another project that uses the library: a scope, a counter,
 * a frame, a capture written as JSON. Built against the installed package,
 * through pkg-config, from a bare libludus.a and as a subproject
 * (tests/package/check_consume.sh).
 *   consumer OUT.json   its own capture, written to OUT.json
 *   consumer --launch   no capture of its own: run with LUDUS_TRACE=PATH,
 *                       the library's launch-to-exit capture writes PATH */
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if LUDUS_PROFILE_LEVEL != 2
#error "the consumer sets LUDUS_PROFILE_LEVEL=2 for its own target"
#endif

static int work(int n) {
    LUDUS_PROFILE_FUNCTION();
    LUDUS_PROFILE_SCOPE_FINE(Fine);
    LUDUS_PROFILE_COUNT(Items, n);
    return n * 2;
}

int main(int argc, char **argv) {
    ludus_capture *c = NULL;
    if (argc != 2) return 2;
    if (!strcmp(argv[1], "--launch")) {
        int sum = 0;
        for (int f = 0; f < 5; f++) {
            sum += work(f);
            LUDUS_PROFILE_FRAME();
        }
        printf("consumer ok: %d, LUDUS_TRACE=%s\n", sum, getenv("LUDUS_TRACE") ? getenv("LUDUS_TRACE") : "");
        return 0;
    }
    if (ludus_capture_begin(NULL) != 0) return 1;
    int sum = 0;
    for (int f = 0; f < 5; f++) {
        sum += work(f);
        LUDUS_PROFILE_FRAME();
    }
    if (ludus_capture_end(&c) != 0 || ludus_capture_save(c, 0, 0, argv[1]) != 0) {
        fprintf(stderr, "consumer: %s\n", ludus_last_error_detail());
        return 1;
    }
    uint64_t last;
    int64_t items = -1;
    if (ludus_frame_ring_frames(NULL, &last) != 0 || ludus_frame_ring_value(last, "Items", "per frame", &items) != 0 ||
        items != 4)
        return 1;
    printf("consumer ok: %d, wrote %s\n", sum, argv[1]);
    ludus_capture_release(c);
    return 0;
}
