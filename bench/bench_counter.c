/* Counters, gauges and memory hooks (seed gates G7 and G12), in one run:
 *   - LUDUS_PROFILE_COUNT (per-thread shards) against one shared atomic
 *     (__atomic_fetch_add, what a counter without shards would do), each
 *     with 1, 2 and 4 threads adding to the same counter at once;
 *   - LUDUS_PROFILE_GAUGE: a level that stays inside the frame's range (a
 *     store) and one that makes a new extreme every time (a CAS);
 *   - the memory hooks (ludus_memory_alloc + ludus_memory_free on one
 *     domain) with 1, 2 and 4 threads, without and with a capture running;
 *   - LUDUS_PROFILE_FRAME: the snapshot of 33 counters, 2 gauges and one
 *     domain over the shards of 5 threads; ludus_overlay_format.
 * ns per operation (wall time of the slowest thread / operations per thread),
 * median of --runs runs, and the ratio to two TSC reads measured in the same
 * run. With more threads than cores the threads time-share: read the 4-thread
 * rows as contention under oversubscription.
 *   bench_counter [--runs N] [--ops N] */
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <string.h>

#include "bench_common.h"

static int64_t ops = 20000000;
static int64_t shared_counter;
static ludus_memory_domain dom;
static volatile int go;

typedef enum { SHARDED, SHARED_ATOMIC, GAUGE_STORE, GAUGE_EXTREME, MEMORY } mode;
static const char *const mode_names[] = {"COUNT (shards)", "shared atomic add", "GAUGE in range", "GAUGE new extreme",
                                         "memory alloc+free"};

__attribute__((noinline)) static void run(mode m, int64_t n) {
    switch (m) {
    case SHARDED:
        for (int64_t i = 0; i < n; i++) LUDUS_PROFILE_COUNT(BenchDraws, 1);
        break;
    case SHARED_ATOMIC:
        for (int64_t i = 0; i < n; i++) __atomic_fetch_add(&shared_counter, 1, __ATOMIC_RELAXED);
        break;
    case GAUGE_STORE:
        LUDUS_PROFILE_GAUGE(BenchLevel, 0);
        LUDUS_PROFILE_GAUGE(BenchLevel, 1000);
        for (int64_t i = 0; i < n; i++) LUDUS_PROFILE_GAUGE(BenchLevel, i & 511);
        break;
    case GAUGE_EXTREME:
        for (int64_t i = 0; i < n; i++) LUDUS_PROFILE_GAUGE(BenchRising, i);
        break;
    case MEMORY:
        for (int64_t i = 0; i < n; i++) {
            ludus_memory_alloc(dom, 64);
            ludus_memory_free(dom, 64);
        }
        break;
    }
}

typedef struct job {
    mode m;
    int64_t t0, t1;
} job;

static void *thread_main(void *arg) {
    job *j = arg;
    run(j->m, 1000); /* first use: slot, shard */
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
    }
    j->t0 = bench_now_ns();
    run(j->m, ops);
    j->t1 = bench_now_ns();
    return NULL;
}

/* ns per operation with `threads` threads at once (slowest thread). */
static double measure(mode m, int threads) {
    pthread_t t[8];
    job j[8];
    go = 0;
    for (int i = 0; i < threads; i++) {
        j[i].m = m;
        pthread_create(&t[i], NULL, thread_main, &j[i]);
    }
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    double worst = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(t[i], NULL);
        double ns = (double)(j[i].t1 - j[i].t0) / (double)ops;
        if (ns > worst) worst = ns;
    }
    return worst;
}

/* 32 counters with names of their own, one shard per calling thread. */
#define C(k) LUDUS_PROFILE_COUNT(Counter##k, 1);
#define C8(k) C(k##0) C(k##1) C(k##2) C(k##3) C(k##4) C(k##5) C(k##6) C(k##7)
static void count_32(void) {
    C8(1) C8(2) C8(3) C8(4)
}

static void *shard_holder(void *arg) {
    (void)arg;
    count_32();
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
    }
    return NULL;
}

int main(int argc, char **argv) {
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = atoll(argv[++i]);
    }
    if (runs < 1 || runs > 64 || ops < 1000) {
        fprintf(stderr, "usage: bench_counter [--runs 1..64] [--ops N>=1000]\n");
        return 1;
    }
    dom = ludus_memory_domain_register("Bench");
    ludus_frame_ring_configure(4096);
    double tsc = bench_two_tsc_ns(10000000);
    printf("counters: %lld operations per thread, median of %d runs; two TSC reads: %.2f ns\n", (long long)ops, runs,
           tsc);
    printf("%-22s %8s %12s %12s %12s\n", "operation", "capture", "1 thread", "2 threads", "4 threads");
    const int nthreads[3] = {1, 2, 4};
    for (int m = SHARDED; m <= MEMORY; m++) {
        for (int cap = 0; cap < (m == MEMORY || m == SHARDED ? 2 : 1); cap++) {
            if (cap && ludus_capture_begin(NULL) != 0) return 1;
            printf("%-22s %8s", mode_names[m], cap ? "running" : "none");
            for (int k = 0; k < 3; k++) {
                double v[64];
                for (int r = 0; r < runs; r++) v[r] = measure((mode)m, nthreads[k]);
                double med = bench_median(v, runs);
                printf("  %7.2f ns", med);
                if (k == 0 && tsc > 0) printf(" (%.2fx)", med / tsc);
            }
            printf("\n");
            if (cap) ludus_capture_end(NULL);
        }
    }
    /* the frame: 33 counters, 2 gauges, 1 domain; the shards of this thread and 4 more */
    count_32();
    pthread_t holders[4];
    go = 0;
    for (int i = 0; i < 4; i++) pthread_create(&holders[i], NULL, shard_holder, NULL);
    for (int i = 0; i < 1000; i++) LUDUS_PROFILE_FRAME();
    double fv[64];
    for (int cap = 0; cap < 2; cap++) {
        if (cap && ludus_capture_begin(NULL) != 0) return 1;
        for (int r = 0; r < runs; r++) {
            int64_t t0 = bench_now_ns();
            for (int i = 0; i < 10000; i++) LUDUS_PROFILE_FRAME();
            fv[r] = (double)(bench_now_ns() - t0) / 10000.0;
        }
        if (cap) ludus_capture_end(NULL);
        printf("LUDUS_PROFILE_FRAME (33 counters, 2 gauges, 1 domain, 5 shards), capture %s: %.2f us per frame\n",
               cap ? "running (snapshot recorded)" : "none", bench_median(fv, runs) / 1000.0);
    }
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 4; i++) pthread_join(holders[i], NULL);
    char text[4096];
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < 1000; i++) ludus_overlay_format(text, sizeof text, NULL);
    int lines = 0;
    for (const char *p = text; *p; p++) lines += *p == '\n';
    printf("ludus_overlay_format (120-frame window, %d lines): %.2f us per call\n", lines,
           (double)(bench_now_ns() - t0) / 1000.0 / 1000.0);
    return 0;
}
