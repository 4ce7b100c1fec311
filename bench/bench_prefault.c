/* Where the pool's pages are first touched, and what each place costs
 * (ludus_capture_desc.prefault): for a fresh pool of 128 MiB, the time
 * begin takes its caller, then one producer writing scopes until the pool
 * is nearly full: its ns per scope and the process's CPU ns per scope
 * (every library thread included), and the whole process CPU of the round
 * (begin included). Each round takes a pool of a new size, so no pool is
 * reused (a reused one is in already, whatever is asked). Medians and
 * maxima of R rounds per place, the places interleaved.
 *   bench_prefault [ROUNDS] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#define SCOPES 3500000 /* 2 events of 16 bytes each: 112 MB of a 128 MiB pool */

static int64_t process_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 50) rounds = 5;
    static const char *const names[] = {"", "ahead (a library thread)", "at begin (the caller)",
                                        "none (the producers)"};
    double begin_us[4][50], wall[4][50], cpu[4][50], total_ms[4][50];
    ludus_thread_register("bench");
    double tsc2 = bench_two_tsc_ns(1000000);
    for (int r = 0; r < rounds; r++)
        for (int m = LUDUS_PREFAULT_AHEAD; m <= LUDUS_PREFAULT_NONE; m++) {
            ludus_capture_desc d;
            memset(&d, 0, sizeof d);
            d.chunk_count = 2048u + (uint32_t)(r * 3 + m); /* a size not seen before: a fresh pool */
            d.prefault = m;
            int64_t c0 = process_cpu_ns(), t0 = bench_now_ns();
            if (ludus_capture_begin(&d) != 0) return 1;
            int64_t t1 = bench_now_ns(), c1 = process_cpu_ns();
            for (int i = 0; i < SCOPES; i++) {
                LUDUS_PROFILE_SCOPE(Fill);
            }
            int64_t t2 = bench_now_ns(), c2 = process_cpu_ns();
            ludus_capture_end(NULL);
            ludus_capture_summary s;
            bench_last_summary(&s);
            if (s.dropped) fprintf(stderr, "dropped %llu\n", (unsigned long long)s.dropped);
            begin_us[m][r] = (double)(t1 - t0) / 1e3;
            wall[m][r] = (double)(t2 - t1) / SCOPES;
            cpu[m][r] = (double)(c2 - c1) / SCOPES;
            total_ms[m][r] = (double)(c2 - c0) / 1e6;
        }
    printf("rounds %d, %d scopes (%.0f MB of events) into a fresh 128 MiB pool; two rdtsc %.2f ns\n", rounds, SCOPES,
           SCOPES * 32.0 / 1e6, tsc2);
    printf("%-26s %22s %24s %26s %22s\n", "prefault", "begin us (median/max)", "producer ns/scope (med/max)",
           "process CPU ns/scope (med)", "process CPU ms (med)");
    for (int m = LUDUS_PREFAULT_AHEAD; m <= LUDUS_PREFAULT_NONE; m++) {
        double bmax = 0, wmax = 0;
        for (int r = 0; r < rounds; r++) {
            if (begin_us[m][r] > bmax) bmax = begin_us[m][r];
            if (wall[m][r] > wmax) wmax = wall[m][r];
        }
        printf("%-26s %12.0f / %-9.0f %14.2f / %-9.2f %26.2f %22.1f\n", names[m], bench_median(begin_us[m], rounds),
               bmax, bench_median(wall[m], rounds), wmax, bench_median(cpu[m], rounds),
               bench_median(total_ms[m], rounds));
    }
    return 0;
}
