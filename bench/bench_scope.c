/* Recording cost per scope, idle cost per scope, 1 and 2 threads, sustained
 * event rate, bytes per event and peak RSS, each as a median of several runs,
 * with the clock floor (two clock reads) measured in the same process.
 * Workload (as in shared/docs/PEERS.md): per thread N x outer{ inner{} }.
 * Also the cost of a scope the full pool refuses (counted, no clock read).
 *
 * With --pool-file PATH, also the cost per scope when the pool is that file
 * (ludus_capture_desc.pool_file: kill-safe), in the same runs as the
 * anonymous pool it is compared with.
 *
 *   bench_scope [--pairs N] [--runs R] [--monotonic] [--pool-file PATH] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <string.h>

#include "bench_common.h"

static int pairs = 500000;

__attribute__((noinline)) static void run_scopes(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Inner);
            __asm__ __volatile__("");
        }
    }
}

typedef struct worker_arg {
    pthread_barrier_t *start;
    double ns_per_scope;
} worker_arg;

static void *worker(void *p) {
    worker_arg *a = p;
    ludus_thread_register("bench worker");
    run_scopes(1000); /* attach to the capture, warm caches */
    pthread_barrier_wait(a->start);
    int64_t t0 = bench_now_ns();
    run_scopes(pairs);
    int64_t t1 = bench_now_ns();
    a->ns_per_scope = (double)(t1 - t0) / (2.0 * pairs);
    return NULL;
}

/* One run with `threads` recording threads; returns the mean per-thread ns/scope. */
static double run_threads(int threads) {
    pthread_t tid[8];
    worker_arg arg[8];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        arg[i].start = &start;
        pthread_create(&tid[i], NULL, worker, &arg[i]);
    }
    double sum = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        sum += arg[i].ns_per_scope;
    }
    pthread_barrier_destroy(&start);
    return sum / threads;
}

int main(int argc, char **argv) {
    int runs = 5, monotonic = 0;
    const char *pool_file = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--pairs") && i + 1 < argc)
            pairs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--monotonic"))
            monotonic = 1;
        else if (!strcmp(argv[i], "--pool-file") && i + 1 < argc)
            pool_file = argv[++i];
        else {
            fprintf(stderr, "usage: bench_scope [--pairs N] [--runs R] [--monotonic] [--pool-file PATH]\n");
            return 1;
        }
    }
    if (runs > 31) runs = 31;
    double floor_tsc[31], floor_mono[31], idle[31], rec1[31], rec2[31], refused[31], recf[31];
    double bytes_per_event = 0, chunk_bytes_per_event = 0;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    /* Room for 2 threads x (pairs + warm-up) x 2 scopes x 2 events x 16 B. */
    d.chunk_count = (uint32_t)((2.0 * (pairs + 1000) * 4 * 16) / 65536 * 1.1) + 8;
    d.clock = monotonic ? LUDUS_CLOCK_MONOTONIC : LUDUS_CLOCK_AUTO;
    ludus_thread_register("bench main");
    for (int r = 0; r < runs; r++) {
        floor_tsc[r] = bench_two_tsc_ns(pairs * 2);
        floor_mono[r] = bench_two_mono_ns(pairs * 2);
        int64_t t0 = bench_now_ns();
        run_scopes(pairs);
        idle[r] = (double)(bench_now_ns() - t0) / (2.0 * pairs);

        if (ludus_capture_begin(&d) != 0) {
            fprintf(stderr, "begin: %s\n", ludus_last_error_detail());
            return 1;
        }
        rec1[r] = run_threads(1);
        ludus_capture_end(NULL);
        ludus_capture_summary s;
        bench_last_summary(&s);
        if (s.dropped) fprintf(stderr, "warning: %llu events dropped\n", (unsigned long long)s.dropped);
        chunk_bytes_per_event = (double)s.chunks_used * 65536.0 / (double)s.events;
        bytes_per_event = sizeof(ludus__event);

        ludus_capture_begin(&d);
        rec2[r] = run_threads(2);
        ludus_capture_end(NULL);

        if (pool_file) { /* the same, the pool a file */
            ludus_capture_desc f = d;
            f.pool_file = pool_file;
            if (ludus_capture_begin(&f) != 0) {
                fprintf(stderr, "begin with a pool file: %s\n", ludus_last_error_detail());
                return 1;
            }
            recf[r] = run_threads(1);
            ludus_capture_end(NULL);
        }
    }
    /* A full pool: every scope is refused and counted, no clock read (after
     * the recording runs: a pool of another size is not reused). */
    ludus_capture_desc full = d;
    full.chunk_count = 1;
    for (int r = 0; r < runs; r++) {
        ludus_capture_begin(&full);
        run_scopes(20000);
        int64_t t0 = bench_now_ns();
        run_scopes(pairs);
        refused[r] = (double)(bench_now_ns() - t0) / (2.0 * pairs);
        ludus_capture_end(NULL);
    }
    double ft = bench_median(floor_tsc, runs), fm = bench_median(floor_mono, runs);
    double id = bench_median(idle, runs), r1 = bench_median(rec1, runs), r2 = bench_median(rec2, runs);
    double rf = bench_median(refused, runs);
    double fl = monotonic ? fm : ft;
    printf("bench_scope: %d x outer{inner{}} per thread, median of %d runs, clock %s\n", pairs, runs,
           monotonic ? "monotonic" : "tsc");
    printf("  clock floor: 2 x rdtsc %.2f ns, 2 x clock_gettime %.2f ns\n", ft, fm);
    printf("  idle (compiled in, no capture): %.3f ns/scope\n", id);
    printf("  recording, 1 thread:  %.2f ns/scope = %.2f x the clock floor (target <= 1.02)\n", r1, r1 / fl);
    printf("  recording, 2 threads: %.2f ns/scope per thread = %.2f x the 1-thread cost (target <= 1.05)\n", r2,
           r2 / r1);
    printf("  refused (pool full, counted): %.2f ns/scope = %.2f x a recorded scope\n", rf, rf / r1);
    if (pool_file) {
        double pf = bench_median(recf, runs);
        printf("  recording into a pool file (%s), 1 thread: %.2f ns/scope = %.2f x the anonymous pool\n", pool_file,
               pf, pf / r1);
    }
    printf("  sustained: %.1f M events/s per thread (target >= 50)\n", 2.0 / r1 * 1000.0);
    printf("  bytes/event: %.0f in the buffer, %.2f counting chunk headers and tails\n", bytes_per_event,
           chunk_bytes_per_event);
    printf("  peak RSS: %ld KiB (pool of %u x 64 KiB)\n", bench_peak_rss_kib(), d.chunk_count);
    return 0;
}
