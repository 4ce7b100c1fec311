/* The flight recorder under thread churn (issue 32): four worker slots
 * doing jobs (~60 ns of arithmetic each), beside a frame thread (a frame
 * mark, a counter and a scope every millisecond), in two phases of SECONDS
 * each with the recorder running: long-lived workers (no churn), and each
 * slot's thread replaced every JOBS jobs (churn). Each worker alternates
 * batches of 100 jobs with a scope around each and 100 without, timed
 * apart in the same thread: the cost per scope is the difference (a
 * thread's registration and first pieces fall in its first batch with
 * scopes, as they do in a program). A snapshot every 500 ms: events lost
 * in it (0 means the window of every live thread is whole), the threads it
 * lists, its events, the frame thread's events, the time it covers.
 *   bench_flight_churn [SECONDS] [JOBS] [WINDOW_MS] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

enum { SLOTS = 4 };

static int stop, churn;
static int64_t jobs_per_thread;
static uint32_t frame_site;
static int64_t with_ns_sum, without_ns_sum, jobs_sum, threads_sum; /* atomic */

static volatile uint64_t sink;

static void work(void) {
    uint64_t x = sink;
    for (int i = 0; i < 20; i++) x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

static void job(void) {
    LUDUS_PROFILE_SCOPE(Job);
    work();
}

static void *worker(void *p) {
    (void)p;
    for (int k = 0; k < 200; k++) work(); /* the new thread's stack and caches: not the recorder's */
    int64_t with = 0, without = 0, n = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) && (!churn || n < jobs_per_thread)) {
        int64_t t0 = bench_now_ns();
        for (int k = 0; k < 100; k++) job();
        int64_t t1 = bench_now_ns();
        for (int k = 0; k < 100; k++) work();
        int64_t t2 = bench_now_ns();
        with += t1 - t0;
        without += t2 - t1;
        n += 100;
    }
    __atomic_add_fetch(&with_ns_sum, with, __ATOMIC_RELAXED);
    __atomic_add_fetch(&without_ns_sum, without, __ATOMIC_RELAXED);
    __atomic_add_fetch(&jobs_sum, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&threads_sum, 1, __ATOMIC_RELAXED);
    return NULL;
}

static void *slot(void *p) {
    (void)p;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        pthread_t th;
        if (pthread_create(&th, NULL, worker, NULL) != 0) break;
        pthread_join(th, NULL);
    }
    return NULL;
}

static void *frames(void *p) {
    (void)p;
    ludus_thread_register("frames");
    for (int64_t n = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); n++) {
        LUDUS_PROFILE_FRAME();
        ludus_counter_sample(frame_site, n);
        { LUDUS_PROFILE_SCOPE(Frame); }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

typedef struct phase {
    double ns_per_scope;
    int64_t threads;
    /* snapshots (recording phases) */
    int snaps;
    uint64_t dropped_max, events_min;
    uint32_t listed_max, listed_min;
    uint64_t frame_events_min;
    double covered_ms_min;
} phase;

static void snapshot_into(phase *ph) {
    ludus_capture *c = NULL;
    if (ludus_rolling_snapshot(&c) != 0) return;
    ludus_capture_summary s;
    if (ludus_capture_get_summary(c, &s) == 0) {
        uint64_t fe = 0;
        for (uint32_t i = 0; i < s.threads; i++) {
            ludus_thread_summary t;
            if (ludus_capture_get_thread(c, i, &t) == 0 && strcmp(t.name, "frames") == 0) fe = t.events;
        }
        double covered = (double)(s.end_ns - s.start_ns) / 1e6;
        if (getenv("BENCH_VERBOSE"))
            printf("  snapshot: %u threads, %llu events, %llu lost, frame thread %llu events, %.0f ms (%lld workers "
                   "done)\n",
                   s.threads, (unsigned long long)s.events, (unsigned long long)s.dropped, (unsigned long long)fe,
                   covered, (long long)__atomic_load_n(&threads_sum, __ATOMIC_RELAXED));
        if (ph->snaps == 0 || s.dropped > ph->dropped_max) ph->dropped_max = s.dropped;
        if (ph->snaps == 0 || s.events < ph->events_min) ph->events_min = s.events;
        if (ph->snaps == 0 || s.threads > ph->listed_max) ph->listed_max = s.threads;
        if (ph->snaps == 0 || s.threads < ph->listed_min) ph->listed_min = s.threads;
        if (ph->snaps == 0 || fe < ph->frame_events_min) ph->frame_events_min = fe;
        if (ph->snaps == 0 || covered < ph->covered_ms_min) ph->covered_ms_min = covered;
        ph->snaps++;
    }
    ludus_capture_release(c);
}

static phase run_phase(int seconds, int with_churn, int recording, int window_ms) {
    phase ph;
    memset(&ph, 0, sizeof ph);
    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    churn = with_churn;
    with_ns_sum = without_ns_sum = jobs_sum = threads_sum = 0;
    pthread_t ft, st[SLOTS];
    pthread_create(&ft, NULL, frames, NULL);
    for (int k = 0; k < SLOTS; k++) pthread_create(&st[k], NULL, slot, NULL);
    int64_t t0 = bench_now_ns();
    while (bench_now_ns() - t0 < (int64_t)seconds * 1000000000) {
        struct timespec ts = {0, 500000000};
        nanosleep(&ts, NULL);
        /* the first window is still filling: not counted */
        if (recording && bench_now_ns() - t0 > 2 * (int64_t)window_ms * 1000000) snapshot_into(&ph);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < SLOTS; k++) pthread_join(st[k], NULL);
    pthread_join(ft, NULL);
    ph.ns_per_scope = jobs_sum ? (double)(with_ns_sum - without_ns_sum) / (double)jobs_sum : 0;
    ph.threads = threads_sum;
    return ph;
}

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 3;
    jobs_per_thread = argc > 2 ? atoll(argv[2]) : 2000;
    int window_ms = argc > 3 ? atoi(argv[3]) : 200;
    if (seconds < 1) seconds = 3;
    if (jobs_per_thread < 100) jobs_per_thread = 2000;
    if (window_ms < 20) window_ms = 200;
    frame_site = ludus_site_intern("frame seq");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 2048; /* 128 MiB of 64 KiB chunks */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = (uint32_t)window_ms;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    printf("bench_flight_churn: %d s per phase, %d worker slots (a thread per %lld jobs when churning), a %d ms "
           "window in a 128 MiB pool\n",
           seconds, SLOTS, (long long)jobs_per_thread, window_ms);
    phase rec[2];
    ludus_rolling_stats rs[2];
    for (int cc = 0; cc < 2; cc++) {
        int c = getenv("BENCH_CHURN_FIRST") ? 1 - cc : cc;
        if (ludus_rolling_begin(&cd, &rd) != 0) {
            fprintf(stderr, "rolling begin: %s\n", ludus_last_error_detail());
            return 1;
        }
        rec[c] = run_phase(seconds, c, 1, window_ms);
        ludus_rolling_get_stats(&rs[c]);
        ludus_rolling_end();
    }
    for (int c = 0; c < 2; c++) {
        printf("%-9s threads %7lld | %.2f ns per scope | snapshots %d: lost max %llu, threads listed %u..%u, "
               "events min %llu, frame thread events min %llu, covering min %.0f ms | evicted in window %llu\n",
               c ? "churn" : "no churn", (long long)rec[c].threads, rec[c].ns_per_scope, rec[c].snaps,
               (unsigned long long)rec[c].dropped_max, rec[c].listed_min, rec[c].listed_max,
               (unsigned long long)rec[c].events_min, (unsigned long long)rec[c].frame_events_min,
               rec[c].covered_ms_min, (unsigned long long)rs[c].evicted_in_window);
    }
    if (rec[0].ns_per_scope > 0)
        printf("per scope, churn / no churn: %.3f\n", rec[1].ns_per_scope / rec[0].ns_per_scope);
    return 0;
}
