/* Pool exhaustion on one thread, with exact counts. A 4096-byte chunk holds
 * 4096/16 - 4 = 252 slots. A begin needs 2 free slots (its own and its end's
 * reservation); marks and frames take 1; flows and counters 2 (one event).
 * A dropped begin drops its end too (2 drops); an end whose begin was
 * recorded is never dropped. The export stays well formed. */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

enum { SLOTS = LT_SLOTS(4096) };

static void check_counts(uint64_t events, uint64_t dropped) {
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, events);
    assert_int_equal(s.dropped, dropped);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    assert_int_equal(th.events, events);
    assert_int_equal(th.dropped, dropped);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_trace_free(&t);
}

static void test_flat_scopes_one_chunk(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(1);
    lt_begin(&d);
    for (int i = 0; i < SLOTS / 2 + 4; i++) {
        LUDUS_PROFILE_SCOPE(Flat);
    }
    lt_end();
    check_counts(SLOTS, 2 * 4);
    assert_int_equal(lt_summary().chunks_used, 1);
}

static void test_flat_scopes_four_chunks(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(4);
    lt_begin(&d);
    for (int i = 0; i < 4 * (SLOTS / 2) + 6; i++) {
        LUDUS_PROFILE_SCOPE(Flat);
    }
    lt_end();
    check_counts(4 * SLOTS, 2 * 6);
    assert_int_equal(lt_summary().chunks_used, 4);
}

/* An open outer scope keeps one slot of every chunk reserved: 125 inner
 * scopes per chunk, and the outer end always lands. */
static void test_nested_across_chunks(void **state) {
    (void)state;
    enum { PER_CHUNK = (SLOTS - 1) / 2, CHUNKS = 4, EXTRA = 10 };
    ludus_capture_desc d = lt_small_desc(CHUNKS);
    lt_begin(&d);
    {
        LUDUS_PROFILE_SCOPE(Outer);
        for (int i = 0; i < CHUNKS * PER_CHUNK + EXTRA; i++) {
            LUDUS_PROFILE_SCOPE(Inner);
        }
    }
    lt_end();
    check_counts(2 + 2 * CHUNKS * PER_CHUNK, 2 * EXTRA);
    lt_trace t;
    lt_trace_load(&t);
    long o = lt_find(&t, 0, 'B', "Outer");
    assert_true(o >= 0);
    long oe = lt_match_end(&t, (size_t)o);
    assert_false(t.ev[oe].incomplete);
    assert_int_equal(lt_count(&t, 'B', "Inner"), CHUNKS * PER_CHUNK);
    lt_trace_free(&t);
}

/* Marks fill the chunk around an open scope; an inner scope is dropped
 * (2), the outer end is recorded in its reserved slot. */
static void test_end_never_dropped(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(1);
    lt_begin(&d);
    {
        LUDUS_PROFILE_SCOPE(Outer);
        for (int i = 0; i < SLOTS - 2 + 1; i++) LUDUS_PROFILE_MARK(Fill); /* one too many */
        {
            LUDUS_PROFILE_SCOPE(Dropped);
            LUDUS_PROFILE_MARK(AlsoDropped);
        }
    }
    lt_end();
    check_counts(SLOTS, 1 + 2 + 1);
    lt_trace t;
    lt_trace_load(&t);
    assert_int_equal(lt_count(&t, 'B', "Dropped"), 0);
    assert_int_equal(lt_count(&t, 'B', "Outer"), 1);
    assert_int_equal(lt_count(&t, 'E', NULL), 1);
    assert_int_equal(t.n_E_incomplete, 0);
    lt_trace_free(&t);
}

/* A scope begun while the pool was full: its end is dropped too, even when
 * space would exist by then (it never does here: no chunk is freed). Deep
 * nesting: of 200 nested scopes on a 1-chunk pool, the first 126 fit. */
static int deep(int n) {
    LUDUS_PROFILE_SCOPE(Deep);
    return n <= 1 ? 1 : 1 + deep(n - 1);
}

static void test_deep_nesting_exhaustion(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(1);
    lt_begin(&d);
    assert_int_equal(deep(200), 200);
    lt_end();
    check_counts(SLOTS, 2 * (200 - SLOTS / 2));
    lt_trace t;
    lt_trace_load(&t);
    assert_int_equal(lt_count(&t, 'B', "Deep"), SLOTS / 2);
    lt_trace_free(&t);
}

/* Two-slot events: a counter or flow with one free slot is dropped (one
 * event, one drop) and a mark still fits. */
static void test_two_slot_events(void **state) {
    (void)state;
    uint32_t site = ludus_intern_name("pool counter");
    assert_true(site != 0);
    ludus_capture_desc d = lt_small_desc(1);
    lt_begin(&d);
    for (int i = 0; i < SLOTS / 2 - 1; i++) {
        LUDUS_PROFILE_SCOPE(Fill);
    }
    LUDUS_PROFILE_MARK(One);                             /* 1 slot left */
    ludus_sample_counter(site, 1);                       /* dropped */
    assert_int_equal(LUDUS_PROFILE_FLOW_OUT(NoRoom), 0); /* dropped: id 0 */
    ludus_sample_counter_f64(site, 2.0);                 /* dropped */
    LUDUS_PROFILE_MARK(Last);                            /* fits */
    LUDUS_PROFILE_MARK(Over);                            /* dropped */
    LUDUS_PROFILE_FRAME();                               /* dropped */
    lt_end();
    check_counts(SLOTS - 2 + 2, 5);
    lt_trace t;
    lt_trace_load(&t);
    assert_int_equal(t.n_C, 0);
    assert_int_equal(lt_count(&t, 'i', "Last"), 1);
    assert_int_equal(lt_count(&t, 'i', "Over"), 0);
    lt_trace_free(&t);
    assert_int_equal(lt_summary().frames, 0);
}

/* A pool smaller than what one capture of a short loop needs, repeated:
 * each capture starts with an empty pool. */
static void test_pool_refilled_per_capture(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(1);
    for (int k = 0; k < 5; k++) {
        lt_begin(&d);
        for (int i = 0; i < SLOTS; i++) {
            LUDUS_PROFILE_SCOPE(Again);
        }
        lt_end();
        check_counts(SLOTS, SLOTS);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_flat_scopes_one_chunk, lt_teardown),
        cmocka_unit_test_teardown(test_flat_scopes_four_chunks, lt_teardown),
        cmocka_unit_test_teardown(test_nested_across_chunks, lt_teardown),
        cmocka_unit_test_teardown(test_end_never_dropped, lt_teardown),
        cmocka_unit_test_teardown(test_deep_nesting_exhaustion, lt_teardown),
        cmocka_unit_test_teardown(test_two_slot_events, lt_teardown),
        cmocka_unit_test_teardown(test_pool_refilled_per_capture, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
