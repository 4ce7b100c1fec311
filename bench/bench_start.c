/* Starting a capture of any pool size: ludus_capture_begin returns before
 * the pool is touched (a background thread faults its pages in ahead of
 * the producers), so what remains is the cost of the first events, which
 * may fault a page themselves. For each pool size, in a fresh mapping:
 * begin's latency, the first scope, and the first 100 000 scopes against
 * the next 100 000. Medians of R runs. --pool-file DIR: the pool is a file
 * in DIR (ludus_capture_desc.pool_file), whose blocks begin reserves.
 *
 *   bench_start [--runs R] [--pool-file DIR] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <string.h>

#include "bench_common.h"

#define FIRST 100000

__attribute__((noinline)) static void scopes(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Inner);
            __asm__ __volatile__("");
        }
    }
}

int main(int argc, char **argv) {
    int runs = 5;
    const char *pool_dir = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pool-file") && i + 1 < argc)
            pool_dir = argv[++i];
        else {
            fprintf(stderr, "usage: bench_start [--runs R] [--pool-file DIR]\n");
            return 1;
        }
    }
    char pool[4096];
    if (pool_dir) snprintf(pool, sizeof pool, "%s/bench_start.pool", pool_dir);
    if (runs > 31) runs = 31;
    if (runs < 1) runs = 1;
    ludus_thread_register("main");
    const uint32_t sizes[3] = {256, 4096, 16384}; /* x 64 KiB: 16 MiB (the default), 256 MiB, 1 GiB */
    printf("bench_start: a fresh pool each run%s%s, 1 thread, median of %d runs\n", pool_dir ? ", a file in " : "",
           pool_dir ? pool_dir : "", runs);
    for (int k = 0; k < 3; k++) {
        double begin[31], first[31], early[31], later[31];
        for (int r = 0; r < runs; r++) {
            ludus_capture_desc d;
            memset(&d, 0, sizeof d);
            d.chunk_count = sizes[k] + (uint32_t)(r & 1); /* another size: never the last capture's pool */
            if (pool_dir) d.pool_file = pool;
            int64_t t0 = bench_now_ns();
            if (ludus_capture_begin(&d) != 0) {
                fprintf(stderr, "begin: %s\n", ludus_last_error_detail());
                return 1;
            }
            int64_t t1 = bench_now_ns();
            scopes(1);
            int64_t t2 = bench_now_ns();
            scopes(FIRST);
            int64_t t3 = bench_now_ns();
            scopes(FIRST);
            int64_t t4 = bench_now_ns();
            ludus_capture_end(NULL);
            begin[r] = (double)(t1 - t0) / 1000.0;
            first[r] = (double)(t2 - t1) / 1000.0;
            early[r] = (double)(t3 - t2) / (2.0 * FIRST);
            later[r] = (double)(t4 - t3) / (2.0 * FIRST);
            /* Frees the pool: the next run maps a fresh one. */
            ludus_capture *c;
            if (ludus_capture_last(&c) == 0) ludus_capture_release(c);
            ludus_capture_begin(&(ludus_capture_desc){.chunk_count = 1});
            ludus_capture_end(NULL);
        }
        printf("  pool %5u MiB: begin %.1f us, first scope %.1f us, first %d scopes %.2f ns/scope, the next %d "
               "%.2f ns/scope\n",
               sizes[k] / 16, bench_median(begin, runs), bench_median(first, runs), FIRST, bench_median(early, runs),
               FIRST, bench_median(later, runs));
    }
    return 0;
}
