/* Cost of ludus_end_capture with 8 threads whose chunks are full: it must
 * publish, not copy, so it does not grow with the number of events. Runs a
 * small pool and a large pool (16x the events) and prints both medians.
 *
 *   bench_end [--runs R] [--flooding] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <string.h>

#include "bench_common.h"

#define THREADS 8

static pthread_barrier_t filled, ended;
static int flooding, round_no, quit; /* round_no and quit: atomics */

static void *worker(void *p) {
    (void)p;
    ludus_register_thread_for_trace("filler");
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

static double run(uint32_t chunks, int runs, uint64_t *events) {
    double v[31];
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = chunks;
    pthread_t tid[THREADS];
    pthread_barrier_init(&filled, NULL, THREADS + 1);
    pthread_barrier_init(&ended, NULL, THREADS + 1);
    __atomic_store_n(&quit, 0, __ATOMIC_RELEASE);
    ludus_begin_capture(&d);
    for (int i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, worker, NULL);
    for (int r = 0; r < runs; r++) {
        pthread_barrier_wait(&filled);
        int64_t t0 = bench_now_ns();
        ludus_end_capture();
        int64_t t1 = bench_now_ns();
        v[r] = (double)(t1 - t0) / 1000.0;
        __atomic_store_n(&round_no, round_no + 1, __ATOMIC_RELEASE); /* floods stop */
        ludus_capture_summary s;
        ludus_capture_get_summary(&s);
        *events = s.events;
        ludus_begin_capture(&d);
        __atomic_store_n(&quit, r + 1 == runs, __ATOMIC_RELEASE);
        pthread_barrier_wait(&ended);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    ludus_end_capture();
    pthread_barrier_destroy(&filled);
    pthread_barrier_destroy(&ended);
    return bench_median(v, runs);
}

int main(int argc, char **argv) {
    int runs = 7;
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
    if (runs > 31) runs = 31;
    uint64_t ev_small = 0, ev_large = 0;
    double small = run(64, runs, &ev_small);
    double large = run(1024, runs, &ev_large);
    printf("bench_end: ludus_end_capture with %d threads and full chunks, median of %d runs%s\n", THREADS, runs,
           flooding ? ", producers still emitting" : ", producers idle");
    printf("  %8llu events (64 chunks):   %.1f us\n", (unsigned long long)ev_small, small);
    printf("  %8llu events (1024 chunks): %.1f us  (target <= 100 us, independent of the event count)\n",
           (unsigned long long)ev_large, large);
    return 0;
}
