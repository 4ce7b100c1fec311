/* Pool exhaustion under concurrency: threads flood scopes, marks and
 * counters into a pool far too small; every attempted event is either
 * recorded or counted as dropped (events + dropped == attempted, exactly),
 * whether the threads are still alive at end_capture or exited during the
 * capture, and the export stays well formed. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

enum { THREADS = 4, SCOPES = 1500, MARKS = 400, COUNTERS = 300 };
#define ATTEMPTED_PER_THREAD ((uint64_t)(2 * SCOPES + MARKS + COUNTERS))

static uint32_t counter_site;

typedef struct flood_arg {
    pthread_barrier_t *start, *done; /* done NULL: exit right away */
    int scopes;
} flood_arg;

static void *flood(void *p) {
    flood_arg *a = p;
    pthread_barrier_wait(a->start);
    for (int i = 0; i < a->scopes; i++) {
        LUDUS_PROFILE_SCOPE(Flood);
        if (i < MARKS) LUDUS_PROFILE_MARK(FloodMark);
        if (i < COUNTERS) ludus_counter_sample(counter_site, i);
    }
    if (a->done) {
        pthread_barrier_wait(a->done); /* flooded */
        pthread_barrier_wait(a->done); /* capture ended */
    }
    return NULL;
}

static void run(uint32_t chunk_count, int join, int keep_alive) {
    pthread_barrier_t start, done;
    pthread_barrier_init(&start, NULL, THREADS + 1);
    pthread_barrier_init(&done, NULL, THREADS + 1);
    flood_arg a = {&start, keep_alive ? &done : NULL, SCOPES};
    pthread_t th[THREADS];
    ludus_capture_desc d = lt_small_desc(chunk_count);
    d.join = join;
    lt_begin(&d);
    for (int i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, flood, &a), 0);
    pthread_barrier_wait(&start);
    if (keep_alive)
        pthread_barrier_wait(&done);
    else
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    lt_end();
    if (keep_alive) {
        pthread_barrier_wait(&done);
        for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    }
    pthread_barrier_destroy(&start);
    pthread_barrier_destroy(&done);
    ludus_capture_summary s = lt_summary();
    if (s.events + s.dropped != THREADS * ATTEMPTED_PER_THREAD)
        fail_msg("chunks %u join %d %s: events %llu + dropped %llu != attempted %llu", chunk_count, join,
                 keep_alive ? "alive" : "exited", (unsigned long long)s.events, (unsigned long long)s.dropped,
                 (unsigned long long)(THREADS * ATTEMPTED_PER_THREAD));
    assert_true(s.dropped > 0);
    assert_true(s.events <= (uint64_t)chunk_count * 4096 / 16);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_trace_free(&t);
}

static void test_flood_alive(void **state) {
    (void)state;
    for (uint32_t c = 1; c <= 8; c *= 2) {
        run(c, LUDUS_JOIN_AUTO, 1);
        run(c, LUDUS_JOIN_FENCE, 1);
    }
}

static void test_flood_exited(void **state) {
    (void)state;
    for (uint32_t c = 1; c <= 8; c *= 2) {
        run(c, LUDUS_JOIN_AUTO, 0);
        run(c, LUDUS_JOIN_FENCE, 0);
    }
}

/* Deterministic corner: the pool is already exhausted when a thread records
 * its first event; it drops everything and exits before end_capture. Its
 * drops must still be counted. */
static void *late_thread(void *p) {
    int *n = p;
    for (int i = 0; i < *n; i++) {
        LUDUS_PROFILE_SCOPE(Late);
    }
    return NULL;
}

static void test_exited_thread_without_chunk(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(1);
    lt_begin(&d);
    for (int i = 0; i < 1000; i++) LUDUS_PROFILE_MARK(FillsThePool); /* 16 KB into 4 KB */
    int n = 10;
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, late_thread, &n), 0);
    pthread_join(th, NULL);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events + s.dropped, 1000 + 2 * 10);
    assert_int_equal(s.threads, 2);
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary th_s;
        assert_int_equal(lt_last_thread(i, &th_s), 0);
        if (th_s.tid == lt_gettid()) continue;
        assert_int_equal(th_s.exited, 1);
        assert_int_equal(th_s.events, 0);
        assert_int_equal(th_s.dropped, 2 * 10);
    }
}

int main(void) {
    counter_site = ludus_site_intern("flood counter");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_flood_alive, lt_teardown),
        cmocka_unit_test_teardown(test_flood_exited, lt_teardown),
        cmocka_unit_test_teardown(test_exited_thread_without_chunk, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
