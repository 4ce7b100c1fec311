/* Cost of ludus_capture_end with 8 threads whose chunks are full: it must
 * publish, not copy, so it does not grow with the number of events; with
 * --flooding the 8 producers are still emitting while it runs. Also the
 * restart: ludus_capture_begin right after, reusing the pool. A small pool
 * and a large one (16x the events); medians and maxima of R runs. The CPU
 * time of end tells its own work from time the scheduler gave the
 * producers (8 of them on fewer cores preempt the caller now and then).
 *
 *   bench_end [--runs R] [--flooding] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#define THREADS 8

static pthread_barrier_t filled, ended;
static int flooding, round_no, quit; /* round_no and quit: atomics */

static void *worker(void *p) {
    (void)p;
    ludus_thread_register("filler");
    for (int round = 0;; round++) {
        /* Fill: scopes until the pool drops them (a full pool is cheap to hit). */
        for (int i = 0; i < 2000000; i++) {
            LUDUS_PROFILE_SCOPE(Fill);
        }
        /* Read before the barrier: the controller moves to the next round
         * only after it (and after ending the capture). */
        int mine = __atomic_load_n(&round_no, __ATOMIC_ACQUIRE);
        pthread_barrier_wait(&filled);
        while (flooding && __atomic_load_n(&round_no, __ATOMIC_ACQUIRE) == mine) {
            LUDUS_PROFILE_SCOPE(Flood);
        }
        pthread_barrier_wait(&ended);
        if (__atomic_load_n(&quit, __ATOMIC_ACQUIRE)) break;
    }
    return NULL;
}

typedef struct figures {
    double end_med, end_max, end_cpu_max, begin_med, begin_max;
    uint64_t events;
} figures;

static double max_of(const double *v, int n) {
    double m = v[0];
    for (int i = 1; i < n; i++)
        if (v[i] > m) m = v[i];
    return m;
}

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static figures run(uint32_t chunks, int runs) {
    double v[64], b[64], cpu[64];
    figures f;
    memset(&f, 0, sizeof f);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = chunks;
    pthread_t tid[THREADS];
    pthread_barrier_init(&filled, NULL, THREADS + 1);
    pthread_barrier_init(&ended, NULL, THREADS + 1);
    __atomic_store_n(&quit, 0, __ATOMIC_RELEASE);
    ludus_capture_begin(&d);
    for (int i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, worker, NULL);
    for (int r = 0; r < runs; r++) {
        pthread_barrier_wait(&filled);
        int64_t c0 = thread_cpu_ns();
        int64_t t0 = bench_now_ns();
        ludus_capture_end(NULL);
        int64_t t1 = bench_now_ns();
        cpu[r] = (double)(thread_cpu_ns() - c0) / 1000.0;
        v[r] = (double)(t1 - t0) / 1000.0;
        __atomic_store_n(&round_no, round_no + 1, __ATOMIC_RELEASE); /* floods stop */
        ludus_capture_summary s;
        bench_last_summary(&s);
        f.events = s.events;
        t0 = bench_now_ns();
        ludus_capture_begin(&d);
        b[r] = (double)(bench_now_ns() - t0) / 1000.0;
        __atomic_store_n(&quit, r + 1 == runs, __ATOMIC_RELEASE);
        pthread_barrier_wait(&ended);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    ludus_capture_end(NULL);
    pthread_barrier_destroy(&filled);
    pthread_barrier_destroy(&ended);
    f.end_max = max_of(v, runs);
    f.end_cpu_max = max_of(cpu, runs);
    f.begin_max = max_of(b, runs);
    f.end_med = bench_median(v, runs);
    f.begin_med = bench_median(b, runs);
    return f;
}

int main(int argc, char **argv) {
    int runs = 20;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--flooding"))
            flooding = 1;
        else {
            fprintf(stderr, "usage: bench_end [--runs R] [--flooding]\n");
            return 1;
        }
    }
    if (runs > 64) runs = 64;
    if (runs < 1) runs = 1;
    printf("bench_end: %d threads with full chunks, %d runs, producers %s\n", THREADS, runs,
           flooding ? "still emitting" : "idle");
    const uint32_t pools[2] = {64, 1024};
    for (int i = 0; i < 2; i++) {
        figures f = run(pools[i], runs);
        printf("  %8llu events (%4u chunks): end median %.1f us, max %.1f us (target <= 100 us in every run);"
               " its CPU time max %.1f us\n",
               (unsigned long long)f.events, pools[i], f.end_med, f.end_max, f.end_cpu_max);
        printf("  %8s        restart (pool reused): median %.1f us, max %.1f us (target <= 1 ms)\n", "", f.begin_med,
               f.begin_max);
    }
    return 0;
}
