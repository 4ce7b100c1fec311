/* Spans (LUDUS_PROFILE_BEGIN/END, ludus_span_begin/ludus_span_end/_id) pair
 * by identity, never by position: an end closes its own span even when
 * lexical scopes are open inside or around it; spans closed out of order
 * (a script VM) export as they were opened, on a lane of their own where
 * they cannot nest; an end with no span is recorded, flagged and counted;
 * an end of a span begun in an earlier capture is an orphan. */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

/* The B/E of the slice named name on any track: [b, e] in ns and the tid. */
static void slice_of(const lt_trace *t, const char *name, int64_t *b, int64_t *e, uint64_t *tid) {
    long k = lt_find(t, 0, 'B', name);
    if (k < 0) fail_msg("no slice named %s", name);
    long m = lt_match_end(t, (size_t)k);
    assert_true(m > k);
    *b = t->ev[k].ts_ns;
    *e = t->ev[m].ts_ns;
    *tid = t->ev[k].tid;
}

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
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 6, s.events);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    lt_check_u64("s.mismatched", 0, s.mismatched);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    long a = lt_find(&t, 0, 'B', "SpanA"), l = lt_find(&t, 0, 'B', "Lexical");
    long b = lt_find(&t, 0, 'B', "SpanB");
    assert_true(a >= 0 && l == a + 1 && b == l + 1);
    lt_check_i64("lt_match_end(&t, (size_t)b)", b + 1, lt_match_end(&t, (size_t)b));
    lt_check_i64("lt_match_end(&t, (size_t)l)", b + 2, lt_match_end(&t, (size_t)l));
    lt_check_i64("lt_match_end(&t, (size_t)a)", b + 3, lt_match_end(&t, (size_t)a));
    /* all on the thread's own track: they nest */
    assert_true(t.ev[a].tid == lt_gettid() && t.ev[b].tid == lt_gettid());
    lt_trace_free(&t);
}

/* BEGIN(Streaming) { SCOPE(Frame); END(); }: Streaming ends at END, Frame
 * at its block's end: they overlap, so Streaming goes on a span lane and
 * each keeps its own times. */
static void test_end_closes_its_span_not_the_scope(void **state) {
    (void)state;
    lt_begin(NULL);
    int64_t t0 = lt_now_ns();
    LUDUS_PROFILE_BEGIN(Streaming);
    {
        LUDUS_PROFILE_SCOPE(Frame);
        lt_spin_ns(200000);
        LUDUS_PROFILE_END(); /* Streaming */
        lt_spin_ns(300000);
    }
    int64_t t1 = lt_now_ns();
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 4, s.events);
    lt_check_u64("s.incomplete + s.unwound + s.mismatched", 0, s.incomplete + s.unwound + s.mismatched);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    int64_t sb, se, fb, fe;
    uint64_t stid, ftid;
    slice_of(&t, "Streaming", &sb, &se, &stid);
    slice_of(&t, "Frame", &fb, &fe, &ftid);
    assert_true(fb >= sb);          /* Frame began inside Streaming */
    assert_true(se - sb >= 200000); /* Streaming: up to END, 200 us */
    assert_true(fe - se >= 300000); /* ... and before the second spin (a bound on se - sb failed when preempted) */
    assert_true(fe - fb >= 500000); /* Frame: both spins */
    assert_true(fe > se);
    assert_true(fe - fb <= t1 - t0);
    lt_check_i64("ftid", lt_gettid(), ftid); /* the scope stays on the thread's track */
    assert_true(stid != ftid);               /* the span that does not nest moves to a lane */
    ludus_thread_summary th;
    lt_thread_index(lt_gettid(), &th);
    lt_check_u64("th.span_lanes", 1, th.span_lanes);
    lt_trace_free(&t);
}

/* A script VM: zones by site id opened and closed out of order, inside
 * instrumented C functions. Each zone keeps the times it was given. */
static void test_script_vm_out_of_order(void **state) {
    (void)state;
    uint32_t f = ludus_site_intern("vm f"), g = ludus_site_intern("vm g"), h = ludus_site_intern("vm h");
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Interpreter);
        ludus_span_begin(f);
        lt_spin_ns(50000);
        {
            LUDUS_PROFILE_SCOPE(CallHelper);
            ludus_span_begin(g);
            lt_spin_ns(50000);
        }
        ludus_span_begin(h);
        lt_spin_ns(50000);
        ludus_span_end_site(f); /* out of order: g and h are still open */
        lt_spin_ns(50000);
        ludus_span_end_site(h);
        ludus_span_end_site(g);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 2 + 2 + 6, s.events);
    lt_check_u64("s.incomplete + s.unwound + s.mismatched", 0, s.incomplete + s.unwound + s.mismatched);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    int64_t fb, fe, gb, ge, hb, he, ib, ie;
    uint64_t ft, gt, ht, it;
    slice_of(&t, "vm f", &fb, &fe, &ft);
    slice_of(&t, "vm g", &gb, &ge, &gt);
    slice_of(&t, "vm h", &hb, &he, &ht);
    slice_of(&t, "Interpreter", &ib, &ie, &it);
    assert_true(fb < gb && gb < hb);  /* opened f, g, h */
    assert_true(fe < he && he <= ge); /* closed f, h, g */
    assert_true(fe - fb >= 150000 && he - hb >= 100000 && ge - gb >= 150000);
    assert_true(ib <= fb && ge <= ie);
    lt_trace_free(&t);
}

/* An end with no span open: recorded, flagged (an instant on the track),
 * counted; it never closes anything else. */
static void test_mismatched_end(void **state) {
    (void)state;
    uint32_t a = ludus_site_intern("span a"), other = ludus_site_intern("never begun");
    lt_begin(NULL);
    ludus_span_begin(a);
    LUDUS_PROFILE_END(); /* closes span a */
    LUDUS_PROFILE_END(); /* nothing open */
    ludus_span_begin(a);
    ludus_span_end_site(other); /* not the open span: it stays open */
    ludus_span_end_site(a);
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.mismatched", 2, s.mismatched);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    lt_check_u64("s.events", 4 + 2, s.events); /* 2 spans (4), 2 mismatched ends recorded */
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_mismatch", 2, t.n_mismatch);
    lt_check_u64("lt_count(&t, 'B', \"span a\")", 2, lt_count(&t, 'B', "span a"));
    lt_check_u64("lt_count(&t, 'I', \"<span end without begin>\")", 1,
                 lt_count(&t, 'I', "<span end without begin>"));                             /* END with nothing open */
    lt_check_u64("lt_count(&t, 'I', \"never begun\")", 1, lt_count(&t, 'I', "never begun")); /* named by its site */
    lt_trace_free(&t);
}

/* An END whose BEGIN was recorded in an earlier capture is an orphan of the
 * new capture: not exported, counted in orphan_ends. */
static void test_orphan_span_end(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_BEGIN(SpansCaptures);
    lt_end();
    lt_check_u64("lt_summary().incomplete", 1, lt_summary().incomplete);
    lt_begin(NULL);
    LUDUS_PROFILE_END();
    LUDUS_PROFILE_MARK(Second);
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.orphan_ends", 1, s.orphan_ends);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    lt_check_u64("th.orphan_ends", 1, th.orphan_ends);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_E", 0, t.n_E);
    lt_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_spans_nest_with_scopes, lt_teardown),
        cmocka_unit_test_teardown(test_end_closes_its_span_not_the_scope, lt_teardown),
        cmocka_unit_test_teardown(test_script_vm_out_of_order, lt_teardown),
        cmocka_unit_test_teardown(test_mismatched_end, lt_teardown),
        cmocka_unit_test_teardown(test_orphan_span_end, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
