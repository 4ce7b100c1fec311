/* Threads that come and go under a bounded flight recorder (issue 32): four
 * worker slots whose thread is replaced every few hundred jobs (a thread
 * per task) beside a frame thread that never exits, in a pool far smaller
 * than everything they record. Each snapshot holds the window of every
 * live thread: no event lost (dropped 0), the frame thread's numbered
 * frames contiguous over at least the window; and the snapshot's thread
 * list is bounded by the threads that lived in the window, not by all that
 * ever ran. The old recorder kept every exited thread's pieces until the
 * end: once the pool was full, new threads recorded nothing and the list
 * grew without bound. LUDUS_STRESS_SECONDS sets the length (3 s). */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_util.h"

enum { SLOTS = 4, JOBS = 300, MAX_STARTS = 1 << 20 };
#define WINDOW_MS 250

static int stop;
static uint32_t frame_site, job_site;
static int64_t starts[MAX_STARTS]; /* when each worker began (CLOCK_MONOTONIC ns) */
static uint32_t nstarts;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
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

static void *worker(void *p) {
    (void)p;
    for (int64_t n = 0; n < JOBS; n++) {
        LUDUS_PROFILE_SCOPE(Job);
        ludus_counter_sample(job_site, n);
        if (n % 50 == 49) { /* a task that waits now and then */
            struct timespec ts = {0, 500000};
            nanosleep(&ts, NULL);
        }
    }
    return NULL;
}

/* A slot: its worker replaced as soon as it is done. */
static void *slot(void *p) {
    (void)p;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        uint32_t k = __atomic_fetch_add(&nstarts, 1u, __ATOMIC_RELAXED);
        if (k < MAX_STARTS) __atomic_store_n(&starts[k], now_ns(), __ATOMIC_RELAXED);
        pthread_t th;
        if (pthread_create(&th, NULL, worker, NULL) != 0) break;
        pthread_join(th, NULL);
    }
    return NULL;
}

/* Workers that began after t. */
static uint32_t started_since(int64_t t) {
    uint32_t n = __atomic_load_n(&nstarts, __ATOMIC_RELAXED), k = 0;
    for (uint32_t i = 0; i < n && i < MAX_STARTS; i++) k += __atomic_load_n(&starts[i], __ATOMIC_RELAXED) >= t;
    return k;
}

static void check_snapshot(ludus_capture *snap, int64_t taken_ns, int64_t began_ns) {
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    /* every live thread's window: nothing lost to the recorder */
    if (s.dropped) fail_msg("the snapshot lost %llu events", (unsigned long long)s.dropped);
    /* the list: the threads of the window (and those still running), not all that ran */
    uint32_t bound = started_since(taken_ns - (int64_t)WINDOW_MS * 1000000 - 300000000) + SLOTS + 3;
    if (s.threads > bound)
        fail_msg("%u threads listed; %u began in the window (and margin) or were running", s.threads, bound);
    /* the frame thread: contiguous frames over at least the window */
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    int64_t last = -1, first_ts = -1, frames_seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strcmp(t.ev[i].name, "frame seq") != 0) continue;
        if (last >= 0) assert_int_equal(t.ev[i].ivalue, last + 1);
        if (first_ts < 0) first_ts = t.ev[i].ts_ns;
        last = t.ev[i].ivalue;
        frames_seen++;
    }
    assert_true(frames_seen > 0);
    int64_t span_ns = (s.end_ns - s.start_ns) - first_ts; /* from the first frame to the snapshot */
    if (taken_ns - began_ns > 3 * (int64_t)WINDOW_MS * 1000000 && span_ns < (int64_t)WINDOW_MS * 900000)
        fail_msg("the frame thread's frames cover %.1f ms of the %d ms window", (double)span_ns / 1e6, WINDOW_MS);
    if (getenv("LT_VERBOSE"))
        print_message("snapshot: %u threads (bound %u), %llu events, frames over %.1f ms\n", s.threads, bound,
                      (unsigned long long)s.events, (double)span_ns / 1e6);
    lt_trace_free(&t);
    free(json);
}

static void test_churn_keeps_every_window(void **state) {
    (void)state;
    const char *env = getenv("LUDUS_STRESS_SECONDS");
    int seconds = env && atoi(env) > 0 ? atoi(env) : 3;
    frame_site = ludus_site_intern("frame seq");
    job_site = ludus_site_intern("job seq");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_bytes = 16384;
    cd.chunk_count = 1024; /* 16 MiB: about 3 windows of these threads; they fill it many times over */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = WINDOW_MS;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
    int64_t began = now_ns();
    pthread_t ft, st[SLOTS];
    assert_int_equal(pthread_create(&ft, NULL, frames, NULL), 0);
    for (int k = 0; k < SLOTS; k++) assert_int_equal(pthread_create(&st[k], NULL, slot, NULL), 0);
    int snaps = 0;
    while (now_ns() - began < (int64_t)seconds * 1000000000) {
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
        ludus_capture *snap = NULL;
        int64_t taken = now_ns();
        assert_int_equal(ludus_rolling_snapshot(&snap), 0);
        check_snapshot(snap, taken, began);
        ludus_capture_release(snap);
        snaps++;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < SLOTS; k++) pthread_join(st[k], NULL);
    pthread_join(ft, NULL);
    ludus_rolling_stats rs;
    assert_int_equal(ludus_rolling_get_stats(&rs), 0);
    print_message("%u workers over %d s, %d snapshots; evicted %llu (in the window: %llu)\n",
                  __atomic_load_n(&nstarts, __ATOMIC_RELAXED), seconds, snaps, (unsigned long long)rs.events_evicted,
                  (unsigned long long)rs.evicted_in_window);
    assert_int_equal(ludus_rolling_end(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_churn_keeps_every_window)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
