/* Threads: N threads with known counts and names, a thread that exits
 * during the capture, a thread that unregisters, and flows between threads.
 * Producer threads never assert (cmocka is not thread-safe); they report
 * through their argument and the main thread checks. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

enum { NTHREADS = 4 };

typedef struct worker {
    int index;
    int scopes;
    uint64_t tid;
    pthread_barrier_t *recorded; /* all workers recorded */
    pthread_barrier_t *release;  /* the capture has ended: exit */
} worker;

static void *worker_main(void *arg) {
    worker *w = arg;
    char name[32];
    snprintf(name, sizeof name, "worker %d", w->index);
    ludus_thread_register(name);
    w->tid = lt_gettid();
    for (int i = 0; i < w->scopes; i++) {
        LUDUS_PROFILE_SCOPE(Work, jobs);
        LUDUS_PROFILE_MARK(Tick);
    }
    if (w->recorded) pthread_barrier_wait(w->recorded);
    if (w->release) pthread_barrier_wait(w->release);
    return NULL;
}

static void run_workers(int keep_alive) {
    pthread_t th[NTHREADS];
    worker w[NTHREADS];
    pthread_barrier_t recorded, release;
    pthread_barrier_init(&recorded, NULL, NTHREADS + 1);
    pthread_barrier_init(&release, NULL, NTHREADS + 1);
    lt_begin(NULL);
    for (int i = 0; i < NTHREADS; i++) {
        w[i] = (worker){i, 10 * (i + 1), 0, &recorded, keep_alive ? &release : NULL};
        assert_int_equal(pthread_create(&th[i], NULL, worker_main, &w[i]), 0);
    }
    pthread_barrier_wait(&recorded);
    if (!keep_alive)
        for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    lt_end();
    if (keep_alive) {
        pthread_barrier_wait(&release);
        for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);
    }
    pthread_barrier_destroy(&recorded);
    pthread_barrier_destroy(&release);

    ludus_capture_summary s = lt_summary();
    uint64_t total = 0;
    for (int i = 0; i < NTHREADS; i++) {
        ludus_thread_summary ts;
        assert_true(lt_thread_index(w[i].tid, &ts) >= 0);
        char name[32];
        snprintf(name, sizeof name, "worker %d", i);
        assert_string_equal(ts.name, name);
        assert_int_equal(ts.events, 3 * (uint64_t)w[i].scopes); /* B, E, mark */
        assert_int_equal(ts.dropped, 0);
        assert_int_equal(ts.exited, keep_alive ? 0 : 1);
        total += ts.events;
    }
    assert_int_equal(s.events, total);
    assert_int_equal(s.dropped, 0);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    for (int i = 0; i < NTHREADS; i++) {
        size_t n = 0;
        for (size_t k = 0; k < t.n; k++)
            if (t.ev[k].tid == w[i].tid && t.ev[k].ph == 'B') {
                assert_string_equal(t.ev[k].name, "Work");
                assert_string_equal(t.ev[k].cat, "jobs");
                n++;
            }
        assert_int_equal(n, (size_t)w[i].scopes);
    }
    lt_trace_free(&t);
}

static void test_threads_alive_at_end(void **state) {
    (void)state;
    run_workers(1);
}

static void test_threads_exit_during_capture(void **state) {
    (void)state;
    run_workers(0);
}

/* A thread that exits during the capture with a scope still open: the open
 * scope is incomplete, everything else is there. */
static void *exit_with_open_span(void *arg) {
    uint64_t *tid = arg;
    *tid = lt_gettid();
    for (int i = 0; i < 3; i++) {
        LUDUS_PROFILE_SCOPE(BeforeExit);
    }
    LUDUS_PROFILE_BEGIN(NeverEnded);
    return NULL;
}

static void test_exit_with_open_span(void **state) {
    (void)state;
    pthread_t th;
    uint64_t tid = 0;
    lt_begin(NULL);
    assert_int_equal(pthread_create(&th, NULL, exit_with_open_span, &tid), 0);
    pthread_join(th, NULL);
    lt_end();
    ludus_thread_summary ts;
    assert_true(lt_thread_index(tid, &ts) >= 0);
    assert_int_equal(ts.exited, 1);
    assert_int_equal(ts.events, 7);
    assert_int_equal(ts.incomplete, 1);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "BeforeExit"), 3);
    long b = lt_find(&t, 0, 'B', "NeverEnded");
    assert_true(b >= 0);
    assert_true(t.ev[lt_match_end(&t, (size_t)b)].incomplete);
    lt_trace_free(&t);
}

/* Unregister: the thread's events before the call are published; events it
 * records later register it again (a new table entry, same OS tid). */
typedef struct unreg_arg {
    uint64_t tid;
    int rc1, rc2;
    pthread_barrier_t *step;
} unreg_arg;

static void *unregister_main(void *arg) {
    unreg_arg *u = arg;
    u->tid = lt_gettid();
    ludus_thread_register("unreg");
    for (int i = 0; i < 5; i++) {
        LUDUS_PROFILE_SCOPE(BeforeUnregister);
    }
    u->rc1 = ludus_thread_unregister();
    u->rc2 = ludus_thread_unregister(); /* not registered any more */
    for (int i = 0; i < 3; i++) {
        LUDUS_PROFILE_SCOPE(AfterUnregister);
    }
    pthread_barrier_wait(u->step); /* recorded */
    pthread_barrier_wait(u->step); /* capture ended */
    return NULL;
}

static void test_unregister(void **state) {
    (void)state;
    pthread_barrier_t step;
    pthread_barrier_init(&step, NULL, 2);
    unreg_arg u = {0, 1, 1, &step};
    pthread_t th;
    lt_begin(NULL);
    assert_int_equal(pthread_create(&th, NULL, unregister_main, &u), 0);
    pthread_barrier_wait(&step);
    lt_end();
    pthread_barrier_wait(&step);
    pthread_join(th, NULL);
    pthread_barrier_destroy(&step);
    assert_int_equal(u.rc1, 0);
    assert_int_equal(u.rc2, LUDUS_EINVAL);
    ludus_capture_summary s = lt_summary();
    uint64_t events = 0;
    int entries = 0;
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary ts;
        assert_int_equal(lt_last_thread(i, &ts), 0);
        if (ts.tid != u.tid) continue;
        entries++;
        events += ts.events;
    }
    assert_true(entries >= 1);
    assert_int_equal(events, 16);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "BeforeUnregister"), 5);
    assert_int_equal(lt_count(&t, 'B', "AfterUnregister"), 3);
    lt_trace_free(&t);
}

/* Flows between threads: OUT on the main thread, IN on a worker. */
typedef struct flow_arg {
    uint64_t ids[8];
    int n;
    uint64_t tid;
} flow_arg;

static void *flow_in_main(void *arg) {
    flow_arg *f = arg;
    f->tid = lt_gettid();
    for (int i = 0; i < f->n; i++) {
        LUDUS_PROFILE_SCOPE(Consume);
        LUDUS_PROFILE_FLOW_IN(f->ids[i]);
    }
    return NULL;
}

static void test_flows_across_threads(void **state) {
    (void)state;
    flow_arg f = {{0}, 8, 0};
    lt_begin(NULL);
    for (int i = 0; i < f.n; i++) {
        LUDUS_PROFILE_SCOPE(Produce);
        f.ids[i] = LUDUS_PROFILE_FLOW_OUT(Dispatch);
        assert_true(f.ids[i] != 0);
        assert_true((f.ids[i] & LUDUS_CALLER_FLOW_ID_BIT) == 0);
        for (int k = 0; k < i; k++) assert_true(f.ids[k] != f.ids[i]);
    }
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, flow_in_main, &f), 0);
    pthread_join(th, NULL);
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1); /* every s has exactly one f */
    assert_int_equal(t.n_s, 8);
    assert_int_equal(t.n_f, 8);
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph == 's') assert_int_equal(t.ev[i].tid, lt_gettid());
        if (t.ev[i].ph == 'f') assert_int_equal(t.ev[i].tid, f.tid);
    }
    assert_int_equal(lt_count(&t, 'X', "Dispatch"), 8);
    lt_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_threads_alive_at_end, lt_teardown),
        cmocka_unit_test_teardown(test_threads_exit_during_capture, lt_teardown),
        cmocka_unit_test_teardown(test_exit_with_open_span, lt_teardown),
        cmocka_unit_test_teardown(test_unregister, lt_teardown),
        cmocka_unit_test_teardown(test_flows_across_threads, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
