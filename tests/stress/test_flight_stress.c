/* The flight recorder under load: three threads flood numbered scopes into
 * a pool that their window overflows many times over (each thread writes
 * over its own oldest pieces constantly) while the main thread takes
 * snapshots as fast as it can. Every snapshot must be whole: every end has
 * its begin (given one at the thread's first event when it was written
 * over), and each thread's numbers are contiguous from its first to its
 * last (a piece written over while it was copied is left out with the older
 * ones, never kept half old and half new). Run under TSan too. */
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

#include <cmocka.h>

#include "test_util.h"

enum { THREADS = 3, SNAPSHOTS = 40 };

static int stop;
static uint32_t seq_site[THREADS];

static void *flood(void *p) {
    int k = (int)(intptr_t)p;
    char name[32];
    snprintf(name, sizeof name, "flood %d", k);
    ludus_thread_register(name);
    for (int64_t n = 0; !__atomic_load_n(&stop, __ATOMIC_ACQUIRE); n++) {
        LUDUS_PROFILE_SCOPE(Outer);
        ludus_counter_sample(seq_site[k], n);
        LUDUS_PROFILE_SCOPE(Inner);
    }
    return NULL;
}

static void check_snapshot(ludus_capture *snap) {
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    assert_int_equal(s.orphan_ends, 0);
    assert_int_equal(s.mismatched, 0);
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    int64_t last[THREADS];
    uint64_t seen[THREADS] = {0};
    for (int k = 0; k < THREADS; k++) last[k] = -1;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strncmp(t.ev[i].name, "seq ", 4) != 0) continue;
        int k = t.ev[i].name[4] - '0';
        assert_true(k >= 0 && k < THREADS);
        if (last[k] >= 0 && s.dropped == 0) assert_int_equal(t.ev[i].ivalue, last[k] + 1);
        last[k] = t.ev[i].ivalue;
        seen[k]++;
    }
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'B') assert_true(lt_match_end(&t, (long)i) >= 0);
    if (getenv("LT_VERBOSE"))
        print_message("dropped %llu, samples %llu %llu %llu\n", (unsigned long long)s.dropped,
                      (unsigned long long)seen[0], (unsigned long long)seen[1], (unsigned long long)seen[2]);
    lt_trace_free(&t);
    free(json);
}

static void test_snapshots_while_written_over(void **state) {
    (void)state;
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_bytes = 4096;
    cd.chunk_count = 48; /* 192 KiB: a few ms of these threads */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 1000;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
    for (int k = 0; k < THREADS; k++) {
        char name[16];
        snprintf(name, sizeof name, "seq %d", k);
        seq_site[k] = ludus_site_intern(name);
    }
    pthread_t th[THREADS];
    for (int k = 0; k < THREADS; k++) assert_int_equal(pthread_create(&th[k], NULL, flood, (void *)(intptr_t)k), 0);
    ludus_rolling_stats st;
    do { /* until every piece was written over at least once */
        assert_int_equal(ludus_rolling_get_stats(&st), 0);
    } while (st.evicted_in_window < 100000);
    for (int i = 0; i < SNAPSHOTS; i++) {
        ludus_capture *snap = NULL;
        assert_int_equal(ludus_rolling_snapshot(&snap), 0);
        check_snapshot(snap);
        ludus_capture_release(snap);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    print_message("written over: %llu events, all inside the window\n", (unsigned long long)st.evicted_in_window);
    assert_int_equal(ludus_rolling_end(), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshots_while_written_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
