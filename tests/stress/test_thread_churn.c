/* Thread churn. 10,000 threads, each recording one scope during a capture
 * with the default pool (16 MiB): all of them are recorded (a thread's first
 * piece is 1 KiB), with exact counts, and the thread table (4,096 slots)
 * never fills because an exited thread's slot is freed as soon as its
 * events are handed to the capture. A thread that registers and records
 * nothing still appears. Threads the table refuses are counted, begin and
 * end. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static void *one_scope(void *arg) {
    (void)arg;
    LUDUS_PROFILE_SCOPE(Short);
    return NULL;
}

static void test_ten_thousand_threads(void **state) {
    (void)state;
    enum { THREADS = LT_TSAN ? 2000 : 10000, BATCH = 50 };
    lt_begin(NULL);
    for (int i = 0; i < THREADS; i += BATCH) {
        pthread_t th[BATCH];
        for (int k = 0; k < BATCH; k++) assert_int_equal(pthread_create(&th[k], NULL, one_scope, NULL), 0);
        for (int k = 0; k < BATCH; k++) pthread_join(th[k], NULL);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.dropped, 0);
    assert_int_equal(s.events, 2 * THREADS);
    assert_true(s.threads >= THREADS);
    uint32_t with_events = 0;
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary th;
        assert_int_equal(lt_last_thread(i, &th), 0);
        if (th.events) {
            assert_int_equal(th.events, 2);
            assert_int_equal(th.exited, 1);
            with_events++;
        }
    }
    assert_int_equal(with_events, THREADS);
    assert_true(s.bytes_used <= (uint64_t)THREADS * 1024 + 65536);
}

/* Registered, then idle for the whole capture: a track with no events. */
static pthread_barrier_t idle_bar;
static void *idle_worker(void *arg) {
    (void)arg;
    ludus_thread_register("Idle worker");
    pthread_barrier_wait(&idle_bar); /* registered */
    pthread_barrier_wait(&idle_bar); /* capture ended */
    return NULL;
}

static void test_idle_registered_thread_appears(void **state) {
    (void)state;
    pthread_barrier_init(&idle_bar, NULL, 2);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, idle_worker, NULL), 0);
    pthread_barrier_wait(&idle_bar);
    lt_begin(NULL);
    LUDUS_PROFILE_MARK(OnMain);
    lt_end();
    pthread_barrier_wait(&idle_bar);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&idle_bar);
    ludus_capture_summary s = lt_summary();
    int found = 0;
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary t;
        assert_int_equal(lt_last_thread(i, &t), 0);
        if (!strcmp(t.name, "Idle worker")) {
            found = 1;
            assert_int_equal(t.events, 0);
        }
    }
    assert_true(found);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1); /* every thread of the table has a named track */
    lt_trace_free(&t);
}

/* More threads at once than the table holds: the refused ones lose their
 * events, and every one is counted (a refused begin counts its end). */
static pthread_barrier_t full_bar;
static void *hold_slot(void *arg) {
    (void)arg;
    ludus_thread_register(NULL);
    pthread_barrier_wait(&full_bar);
    {
        LUDUS_PROFILE_SCOPE(Crowded);
        LUDUS_PROFILE_MARK(Mark);
    }
    pthread_barrier_wait(&full_bar);
    return NULL;
}

static void test_table_full_counted(void **state) {
    (void)state;
    if (LT_TSAN) skip();     /* 4,200 live threads: accounting, not races, and slow under TSan */
    enum { THREADS = 4200 }; /* more than the 4,096 slots */
    pthread_barrier_init(&full_bar, NULL, THREADS + 1);
    pthread_t *th = calloc(THREADS, sizeof *th);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 64 * 1024);
    lt_begin(NULL);
    int started = 0;
    for (int i = 0; i < THREADS; i++)
        if (pthread_create(&th[i], &attr, hold_slot, NULL) == 0) started++;
    if (started < THREADS) { /* the machine refused threads: the test cannot fill the table */
        fail_msg("only %d threads started", started);
    }
    pthread_barrier_wait(&full_bar); /* all registered (or refused) */
    pthread_barrier_wait(&full_bar); /* all recorded */
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    lt_end();
    pthread_attr_destroy(&attr);
    pthread_barrier_destroy(&full_bar);
    free(th);
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events + s.dropped, 3u * THREADS);
    assert_true(s.unregistered_thread_drops >= 3u * (THREADS - 4096));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ten_thousand_threads, lt_teardown),
        cmocka_unit_test_teardown(test_idle_registered_thread_appears, lt_teardown),
        cmocka_unit_test_teardown(test_table_full_counted, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
