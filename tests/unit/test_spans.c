/* LUDUS_PROFILE_BEGIN/END spans: nesting with lexical scopes, spans by
 * site id, and an END whose BEGIN was recorded in an earlier capture (an
 * orphan end: dropped and counted). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static void test_spans_nest_with_scopes(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_BEGIN(SpanA);
    {
        LUDUS_PROFILE_SCOPE(Lexical);
        LUDUS_PROFILE_BEGIN(SpanB);
        LUDUS_PROFILE_END(); /* closes SpanB */
    }
    LUDUS_PROFILE_END(); /* closes SpanA */
    LUDUS_PROFILE_END(); /* nothing open: ignored */
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, 6);
    assert_int_equal(s.incomplete, 0);
    assert_int_equal(s.orphan_ends, 0);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    long a = lt_find(&t, 0, 'B', "SpanA"), l = lt_find(&t, 0, 'B', "Lexical");
    long b = lt_find(&t, 0, 'B', "SpanB");
    assert_true(a >= 0 && l == a + 1 && b == l + 1);
    assert_int_equal(lt_match_end(&t, (size_t)b), b + 1);
    assert_int_equal(lt_match_end(&t, (size_t)l), b + 2);
    assert_int_equal(lt_match_end(&t, (size_t)a), b + 3);
    lt_trace_free(&t);
}

/* An END whose BEGIN was recorded in an earlier capture is an orphan of the
 * new capture: dropped from the export, counted in orphan_ends. */
static void test_orphan_span_end(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_BEGIN(SpansCaptures);
    lt_end();
    assert_int_equal(lt_summary().incomplete, 1);
    lt_begin(NULL);
    LUDUS_PROFILE_END();
    LUDUS_PROFILE_MARK(Second);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.orphan_ends, 1);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    assert_int_equal(th.orphan_ends, 1);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(t.n_E, 0);
    lt_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_spans_nest_with_scopes, lt_teardown),
        cmocka_unit_test_teardown(test_orphan_span_end, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
