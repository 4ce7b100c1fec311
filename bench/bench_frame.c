/* The frame mark's cost (bench/frame_mark.sh): LUDUS_PROFILE_FRAME with no
 * counter, gauge or memory domain, idle and while a capture records it.
 * Since issue 31 a recorded mark also reads the frame thread's CPU clock
 * and writes it beside the mark (the FRAME_CPU extension).
 *   bench_frame --callgrind MARKS idle|recording   run_frames is what
 *       callgrind counts (--toggle-collect), run_empty the loop alone
 *   bench_frame --time MARKS                        ns per mark, idle and
 *       recording: the median of 7 rounds */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

__attribute__((noinline)) void run_frames(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_FRAME();
        __asm__ __volatile__("");
    }
}

__attribute__((noinline)) void run_empty(int n) {
    for (int i = 0; i < n; i++) {
        __asm__ __volatile__("");
    }
}

static int begin(int n) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = (uint32_t)((double)n * 48 / 65536 * 1.2) + 8; /* a mark and its CPU time: 3 slots */
    return ludus_capture_begin(&d);
}

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_d(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double per_mark(int n, int recording) {
    double r[7];
    for (int k = 0; k < 7; k++) {
        if (recording && begin(n)) exit(1);
        run_frames(1); /* attach outside the timed loop */
        double t0 = now_ns();
        run_frames(n);
        r[k] = (now_ns() - t0) / n;
        if (recording) ludus_capture_end(NULL);
    }
    qsort(r, 7, sizeof r[0], cmp_d);
    return r[3];
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_frame --callgrind MARKS idle|recording | --time MARKS\n");
        return 1;
    }
    int n = atoi(argv[2]);
    ludus_thread_register("main");
    if (!strcmp(argv[1], "--time")) {
        printf("frame mark: idle %.1f ns, recording %.1f ns per mark (median of 7 rounds of %d)\n", per_mark(n, 0),
               per_mark(n, 1), n);
        return 0;
    }
    int recording = argc > 3 && !strcmp(argv[3], "recording");
    if (recording && begin(n)) return 1;
    run_frames(1); /* attach outside the counted call */
    run_frames(n);
    run_empty(n);
    if (recording) ludus_capture_end(NULL);
    return 0;
}
