/* Clocks and joins: every combination of LUDUS_CLOCK_{AUTO,MONOTONIC,TSC}
 * (TSC only where the CPU has an invariant one) and LUDUS_JOIN_{AUTO,FENCE}.
 * Per mode: the clock name, durations against CLOCK_MONOTONIC, timestamps
 * inside the capture window, per-thread order, and cross-thread order (A
 * records then signals B through an atomic; B records: B.ts >= A.ts). */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "platform/platform.h"
#include "test_util.h"

enum { ROUNDS = 200 };

static int turn; /* atomic: whose turn (0 = main, 1 = partner), ROUNDS*2 = done */

static void *partner_main(void *arg) {
    uint64_t *tid = arg;
    *tid = lt_gettid();
    ludus_thread_register("partner");
    for (int r = 0; r < ROUNDS; r++) {
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 2 * r + 1) {
            sched_yield();
        }
        { LUDUS_PROFILE_SCOPE(PartnerTurn); }
        LUDUS_PROFILE_MARK(Pong);
        __atomic_store_n(&turn, 2 * r + 2, __ATOMIC_RELEASE);
    }
    return NULL;
}

static int tsc_supported(void) {
    ludus_capture_desc d = lt_small_desc(1);
    d.clock = LUDUS_CLOCK_TSC;
    int rc = ludus_capture_begin(&d);
    if (rc == 0) {
        ludus_capture_end(NULL);
        return 1;
    }
    assert_int_equal(rc, LUDUS_EUNSUPPORTED);
    return 0;
}

static void run_mode(int clock, int join) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.clock = clock;
    d.join = join;
    int want_tsc = clock == LUDUS_CLOCK_TSC || (clock == LUDUS_CLOCK_AUTO && tsc_supported());
    __atomic_store_n(&turn, 0, __ATOMIC_RELAXED);
    int64_t t0 = lt_now_ns();
    lt_begin(&d);
    pthread_t th;
    uint64_t partner_tid = 0;
    assert_int_equal(pthread_create(&th, NULL, partner_main, &partner_tid), 0);
    {
        LUDUS_PROFILE_SCOPE(Timed);
        lt_spin_ns(2000000); /* 2 ms */
    }
    for (int r = 0; r < ROUNDS; r++) {
        { LUDUS_PROFILE_SCOPE(MainTurn); }
        LUDUS_PROFILE_MARK(Ping);
        __atomic_store_n(&turn, 2 * r + 1, __ATOMIC_RELEASE);
        while (__atomic_load_n(&turn, __ATOMIC_ACQUIRE) != 2 * r + 2) sched_yield();
    }
    pthread_join(th, NULL);
    lt_end();
    int64_t t1 = lt_now_ns();

    ludus_capture_summary s = lt_summary();
    assert_string_equal(s.clock_name, want_tsc ? "tsc" : "monotonic");
    assert_true(s.start_ns >= t0 && s.end_ns <= t1 && s.start_ns <= s.end_ns);
    assert_int_equal(s.events, 2 + ROUNDS * 3 * 2);
    assert_int_equal(s.dropped, 0);

    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1); /* per-tid order, pairs, durations >= 0 */
    const int64_t window = s.end_ns - s.start_ns;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph == 'M') continue;
        assert_true(t.ev[i].ts_ns >= 0 && t.ev[i].ts_ns <= window);
    }
    long b = lt_find(&t, 0, 'B', "Timed");
    int64_t dur = t.ev[lt_match_end(&t, (size_t)b)].ts_ns - t.ev[b].ts_ns;
    /* 2 ms measured by the capture's clock: allow calibration error */
    assert_true(dur >= 1900000);
    assert_true(dur <= window);

    /* Cross-thread: the marks alternate Ping, Pong, Ping... in real time;
     * each Pong happened after its Ping and before the next Ping. */
    int64_t *ping = calloc(ROUNDS, sizeof *ping), *pong = calloc(ROUNDS, sizeof *pong);
    int np = 0, nq = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'I') continue;
        if (strcmp(t.ev[i].name, "Ping") == 0) ping[np++] = t.ev[i].ts_ns;
        if (strcmp(t.ev[i].name, "Pong") == 0) {
            assert_int_equal(t.ev[i].tid, partner_tid);
            pong[nq++] = t.ev[i].ts_ns;
        }
    }
    assert_int_equal(np, ROUNDS);
    assert_int_equal(nq, ROUNDS);
    for (int r = 0; r < ROUNDS; r++) {
        if (pong[r] < ping[r])
            fail_msg("round %d: Pong at %lld ns before Ping at %lld ns", r, (long long)pong[r], (long long)ping[r]);
        if (r + 1 < ROUNDS && ping[r + 1] < pong[r])
            fail_msg("round %d: Ping at %lld ns before the previous Pong at %lld ns", r + 1, (long long)ping[r + 1],
                     (long long)pong[r]);
    }
    free(ping);
    free(pong);
    lt_trace_free(&t);
}

static void test_auto_auto(void **state) {
    (void)state;
    run_mode(LUDUS_CLOCK_AUTO, LUDUS_JOIN_AUTO);
}
static void test_auto_fence(void **state) {
    (void)state;
    run_mode(LUDUS_CLOCK_AUTO, LUDUS_JOIN_FENCE);
}
static void test_monotonic_auto(void **state) {
    (void)state;
    run_mode(LUDUS_CLOCK_MONOTONIC, LUDUS_JOIN_AUTO);
}
static void test_monotonic_fence(void **state) {
    (void)state;
    run_mode(LUDUS_CLOCK_MONOTONIC, LUDUS_JOIN_FENCE);
}
static void test_tsc_auto(void **state) {
    (void)state;
    if (!tsc_supported()) skip();
    run_mode(LUDUS_CLOCK_TSC, LUDUS_JOIN_AUTO);
}
static void test_tsc_fence(void **state) {
    (void)state;
    if (!tsc_supported()) skip();
    run_mode(LUDUS_CLOCK_TSC, LUDUS_JOIN_FENCE);
}

/* A counter reading with the CLOCK_MONOTONIC time it was taken at: the
 * tightest of 32 brackets (a loaded machine may preempt the thread between
 * two reads; the slack of the check below is the bracket's width, so the
 * result does not depend on the scheduler). */
typedef struct clock_pair {
    uint64_t ticks;
    int64_t ns, bracket_ns;
} clock_pair;

static clock_pair clock_pair_read(void) {
    clock_pair best = {0, 0, INT64_MAX};
    for (int i = 0; i < 32; i++) {
        int64_t before = ludus__mono_ns();
        uint64_t t = ludus__read_tsc_ordered();
        int64_t after = ludus__mono_ns();
        if (after - before < best.bracket_ns) best = (clock_pair){t, before + (after - before) / 2, after - before};
    }
    return best;
}

/* Where the architecture states the counter's frequency (CNTFRQ_EL0 on
 * AArch64), the counter runs at it: ticks over 50 ms of CLOCK_MONOTONIC
 * within 1% (a wrong register or a ticking TSC would miss by far more).
 * x86-64 states none (0): the rate is only measured. */
static void test_counter_rate(void **state) {
    (void)state;
    uint64_t hz = ludus__counter_hz();
#if defined(__aarch64__)
    assert_true(hz > 0);
    assert_true(ludus__tsc_invariant());
#else
    if (hz == 0) skip();
#endif
    clock_pair a = clock_pair_read();
    struct timespec nap = {0, 50000000};
    nanosleep(&nap, NULL);
    clock_pair b = clock_pair_read();
    double span = (double)(b.ns - a.ns);
    double rate = (double)(b.ticks - a.ticks) * 1e9 / span;
    /* each pair's time is known to within its bracket: widen by that */
    double slack = 0.01 + (double)(a.bracket_ns + b.bracket_ns) / span;
    printf("counter: %llu Hz stated, %.0f Hz measured (brackets %lld + %lld ns)\n", (unsigned long long)hz, rate,
           (long long)a.bracket_ns, (long long)b.bracket_ns);
    assert_true(rate > (double)hz * (1 - slack) && rate < (double)hz * (1 + slack));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counter_rate),
        cmocka_unit_test_teardown(test_auto_auto, lt_teardown),
        cmocka_unit_test_teardown(test_auto_fence, lt_teardown),
        cmocka_unit_test_teardown(test_monotonic_auto, lt_teardown),
        cmocka_unit_test_teardown(test_monotonic_fence, lt_teardown),
        cmocka_unit_test_teardown(test_tsc_auto, lt_teardown),
        cmocka_unit_test_teardown(test_tsc_fence, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
