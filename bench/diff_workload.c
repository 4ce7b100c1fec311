/* The program the diff-accuracy benchmark (diff_accuracy.py) captures: a
 * frame loop whose sites do a fixed amount of CPU work per call, so a change
 * is known by construction. --slow PCT makes every call of "Steady" do PCT%
 * more work; --double calls "Twice" twice per frame; --remove drops
 * "Removed"; --add adds "Added". "Other" never changes; "Tick" runs on a
 * worker thread on time (every 300 us), not per frame. "Batch" runs 100
 * times a frame, 95 light calls and 5 heavy ones: --tail PCT makes the 5
 * heavy ones PCT% heavier (the typical call, the median, does not move).
 * --long-frame stalls one frame (the middle one) 200 ms inside "Frame",
 * outside every other site: calls per frame do not change.
 *   diff_workload OUT.ludus [--frames N] [--slow PCT] [--double] [--remove] [--add] [--tail PCT] [--long-frame] */
#include <ludus/capture.h>

#include "bench_common.h"
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;
static volatile int quit;

/* A fixed amount of work: iters steps of an LCG the compiler cannot fold;
 * one copy of the loop for every site (inlined copies ran at speeds that
 * differed by up to 10% from one run to the next). */
__attribute__((noinline)) static void work(uint64_t iters) {
    uint64_t x = sink | 1;
    for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

#define UNIT 1000u /* iterations: about 1 us on a 2-3 GHz core */

/* A timer-driven worker: one tick every 300 us of wall time (absolute
 * deadlines, so its rate does not depend on how late it wakes up). */
static void *ticker(void *arg) {
    (void)arg;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    while (!quit) {
        {
            LUDUS_PROFILE_SCOPE(Tick);
            work(3 * UNIT);
        }
        next.tv_nsec += 300000;
        if (next.tv_nsec >= 1000000000) next.tv_nsec -= 1000000000, next.tv_sec++;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: diff_workload OUT.ludus [--frames N] [--slow PCT] [--double] [--remove] [--add] "
                        "[--tail PCT] [--long-frame]\n");
        return 2;
    }
    const char *out = argv[1];
    int frames = 600, twice = 1, removed = 1, added = 0, long_frame = 0;
    double slow = 0, tail = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--slow") && i + 1 < argc)
            slow = atof(argv[++i]) / 100.0;
        else if (!strcmp(argv[i], "--double"))
            twice = 2;
        else if (!strcmp(argv[i], "--remove"))
            removed = 0;
        else if (!strcmp(argv[i], "--add"))
            added = 1;
        else if (!strcmp(argv[i], "--tail") && i + 1 < argc)
            tail = atof(argv[++i]) / 100.0;
        else if (!strcmp(argv[i], "--long-frame"))
            long_frame = 1;
        else {
            fprintf(stderr, "diff_workload: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    uint64_t steady = (uint64_t)(25.0 * UNIT * (1.0 + slow) + 0.5);
    uint64_t heavy = (uint64_t)(10.0 * UNIT * (1.0 + tail) + 0.5);
    ludus_capture_desc desc;
    memset(&desc, 0, sizeof desc);
    int rc = ludus_capture_begin(&desc);
    if (rc) {
        fprintf(stderr, "diff_workload: begin capture: %s\n", ludus_error_string(rc));
        return 1;
    }
    pthread_t worker;
    pthread_create(&worker, NULL, ticker, NULL);
    for (int f = 0; f < frames; f++) {
        {
            LUDUS_PROFILE_SCOPE(Frame);
            for (int k = 0; k < 8; k++) {
                {
                    LUDUS_PROFILE_SCOPE(Steady);
                    work(steady);
                }
                {
                    LUDUS_PROFILE_SCOPE(Other);
                    work(15 * UNIT);
                }
            }
            for (int k = 0; k < twice; k++) {
                LUDUS_PROFILE_SCOPE(Twice);
                work(40 * UNIT);
            }
            if (removed) {
                LUDUS_PROFILE_SCOPE(Removed);
                work(30 * UNIT);
            }
            if (added) {
                LUDUS_PROFILE_SCOPE(Added);
                work(30 * UNIT);
            }
            for (int k = 0; k < 100; k++) {
                LUDUS_PROFILE_SCOPE(Batch);
                work(k % 20 == 19 ? heavy : UNIT);
            }
            if (long_frame && f == frames / 2) {
                struct timespec stall = {0, 200000000};
                nanosleep(&stall, NULL);
            }
        }
        LUDUS_PROFILE_FRAME();
    }
    quit = 1;
    pthread_join(worker, NULL);
    rc = ludus_capture_end(NULL);
    if (rc == 0) rc = bench_save_last(out);
    if (rc) {
        fprintf(stderr, "diff_workload: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }
    return 0;
}
