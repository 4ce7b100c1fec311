/* The Tracy backend's cost per scope (bench/tracy.sh, make bench-tracy):
 * LUDUS_PROFILE_SCOPE in a Tracy build against Tracy's own C zone
 * (TracyCZoneN / TracyCZoneEnd) and C++ zone (ZoneScopedN,
 * bench_tracy_cpp.cpp), in the same process, with the clock floor (two TSC
 * reads) measured in the same run.
 *
 *   bench_tracy [--wait-viewer] [--scopes N] [--reps R]
 *       ns per scope, the median of R runs of N scopes per variant; with
 *       --wait-viewer it first waits (up to 30 s) until a viewer (tracy-capture)
 *       is connected, so every zone is sent
 *   bench_tracy --callgrind N ludus|tracy_c|tracy_cpp|empty
 *       runs N scopes of one variant in run_<variant> (callgrind counts it) */
#include <ludus/profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"
#include "tracy/TracyC.h"

void run_tracy_cpp(int n);

__attribute__((noinline)) void run_ludus(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(LudusScope);
        __asm__ __volatile__("");
    }
}

__attribute__((noinline)) void run_tracy_c(int n) {
    for (int i = 0; i < n; i++) {
        TracyCZoneN(ctx, "TracyCZone", 1);
        __asm__ __volatile__("");
        TracyCZoneEnd(ctx);
    }
}

__attribute__((noinline)) void run_empty(int n) {
    for (int i = 0; i < n; i++) __asm__ __volatile__("");
}

typedef void (*runner)(int);
static const struct {
    const char *name;
    runner fn;
} variants[] = {
    {"ludus", run_ludus},
    {"tracy_c", run_tracy_c},
    {"tracy_cpp", run_tracy_cpp},
    {"empty", run_empty},
};
#define NVARIANTS (sizeof variants / sizeof variants[0])

int main(int argc, char **argv) {
    int scopes = 100000, reps = 7, wait_viewer = 0;
    if (argc == 4 && !strcmp(argv[1], "--callgrind")) {
        int n = atoi(argv[2]);
        for (size_t v = 0; v < NVARIANTS; v++) {
            if (!strcmp(argv[3], variants[v].name)) {
                variants[v].fn(1); /* first use: the site's location, the thread's queue (not counted) */
                variants[v].fn(n);
                return 0;
            }
        }
        fprintf(stderr, "bench_tracy: unknown variant %s\n", argv[3]);
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--wait-viewer"))
            wait_viewer = 1;
        else if (!strcmp(argv[i], "--scopes") && i + 1 < argc)
            scopes = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "usage: bench_tracy [--wait-viewer] [--scopes N] [--reps R] | --callgrind N VARIANT\n");
            return 1;
        }
    }
    if (scopes < 1 || reps < 1 || reps > 101) return 1;
    ludus_thread_register("bench");
    if (wait_viewer) {
        int64_t until = bench_now_ns() + 30000000000LL;
        while (!___tracy_connected() && bench_now_ns() < until) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
        if (!___tracy_connected()) {
            fprintf(stderr, "bench_tracy: no viewer connected within 30 s\n");
            return 1;
        }
    }
    double ns[NVARIANTS][101], floor_tsc[101];
    for (size_t v = 0; v < NVARIANTS; v++) variants[v].fn(1000); /* warm: locations, queues */
    for (int r = 0; r < reps; r++) { /* interleaved: each run of the variants sees the same machine */
        for (size_t v = 0; v < NVARIANTS; v++) {
            int64_t t0 = bench_now_ns();
            variants[v].fn(scopes);
            ns[v][r] = (double)(bench_now_ns() - t0) / scopes;
        }
        floor_tsc[r] = bench_two_tsc_ns(scopes);
    }
    double tsc = bench_median(floor_tsc, reps), empty = bench_median(ns[NVARIANTS - 1], reps);
    printf("bench_tracy: %d scopes x %d runs per variant, viewer %s; two TSC reads %.2f ns; empty loop %.2f ns/iter\n",
           scopes, reps, ___tracy_connected() ? "connected" : "not connected", tsc, empty);
    for (size_t v = 0; v + 1 < NVARIANTS; v++) {
        double m = bench_median(ns[v], reps) - empty;
        printf("bench_tracy %-9s %6.2f ns/scope (%.1f x two TSC reads)\n", variants[v].name, m, tsc > 0 ? m / tsc : 0);
    }
    return 0;
}
