/* Scopes on one thread: single, nested, recursive, early exits (return,
 * break, continue, goto), frames, marks, incomplete spans, orphan ends,
 * restart, and the macro spellings (token, literal, category, FUNCTION). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#define spin_ns lt_spin_ns

static void test_single_scope(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Single);
        spin_ns(20000);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 2, s.events);
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    lt_check_u64("th.events", 2, th.events);
    lt_check_u64("th.exited", 0, th.exited);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_B", 1, t.n_B);
    lt_check_u64("t.n_E", 1, t.n_E);
    long b = lt_find(&t, 0, 'B', "Single");
    assert_true(b >= 0);
    assert_string_equal(t.ev[b].cat, "default"); /* no category: the kind's, as .pftrace has it */
    lt_check_i64("t.ev[b].tid", lt_gettid(), t.ev[b].tid);
    long e = lt_match_end(&t, (size_t)b);
    assert_true(e > b);
    assert_false(t.ev[e].incomplete);
    assert_true(t.ev[e].ts_ns - t.ev[b].ts_ns >= 20000); /* it spun 20 us */
    assert_true(t.ev[e].ts_ns <= s.end_ns - s.start_ns);
    lt_trace_free(&t);
}

static void named_function(void) {
    LUDUS_PROFILE_FUNCTION();
}

static void test_macro_spellings(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE("Render scene", render);
        LUDUS_PROFILE_SCOPE(Token, "Cat Literal");
        named_function();
        LUDUS_PROFILE_MARK(Marked);
        LUDUS_PROFILE_MARK("Mark literal");
        LUDUS_PROFILE_SCOPE_FINE(FineAtLevel1); /* compiled out at level 1 */
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    long b = lt_find(&t, 0, 'B', "Render scene");
    assert_true(b >= 0);
    assert_string_equal(t.ev[b].cat, "render");
    b = lt_find(&t, 0, 'B', "Token");
    assert_true(b >= 0);
    assert_string_equal(t.ev[b].cat, "Cat Literal");
    lt_check_u64("lt_count(&t, 'B', \"named_function\")", 1, lt_count(&t, 'B', "named_function"));
    lt_check_u64("lt_count(&t, 'I', \"Marked\")", 1, lt_count(&t, 'I', "Marked"));
    lt_check_u64("lt_count(&t, 'I', \"Mark literal\")", 1, lt_count(&t, 'I', "Mark literal"));
    lt_check_u64("lt_count(&t, 'B', \"FineAtLevel1\")", 0, lt_count(&t, 'B', "FineAtLevel1"));
    lt_check_u64("t.n_B", 3, t.n_B);
    lt_check_u64("lt_summary().events", 8, lt_summary().events);
    lt_trace_free(&t);
}

/* Several scope macros on one line (a macro of the program's that opens
 * two, a one-line function): each is its own scope, nested in order, and
 * both end with the block. */
#define TWO_SCOPES(a, b)    \
    LUDUS_PROFILE_SCOPE(a); \
    LUDUS_PROFILE_SCOPE(b)
static void test_scopes_on_one_line(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        /* clang-format off */
        LUDUS_PROFILE_SCOPE(OuterA); LUDUS_PROFILE_SCOPE(InnerB); LUDUS_PROFILE_SCOPE_DYN("InnerC");
        /* clang-format on */
        TWO_SCOPES(InnerD, InnerE);
        spin_ns(1000);
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_B", 5, t.n_B);
    long a = lt_find(&t, 0, 'B', "OuterA"), b = lt_find(&t, 0, 'B', "InnerB"), c = lt_find(&t, 0, 'B', "InnerC");
    long d = lt_find(&t, 0, 'B', "InnerD"), e = lt_find(&t, 0, 'B', "InnerE");
    assert_true(a >= 0 && b > a && c > b && d > c && e > d);
    assert_true(lt_match_end(&t, (size_t)e) < lt_match_end(&t, (size_t)d));
    assert_true(lt_match_end(&t, (size_t)b) < lt_match_end(&t, (size_t)a));
    lt_trace_free(&t);
}

static void test_nested(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Outer);
        spin_ns(1000);
        {
            LUDUS_PROFILE_SCOPE(Middle);
            spin_ns(1000);
            {
                LUDUS_PROFILE_SCOPE(Inner);
                spin_ns(1000);
            }
            spin_ns(1000);
        }
        { LUDUS_PROFILE_SCOPE(Sibling); }
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    long o = lt_find(&t, 0, 'B', "Outer"), m = lt_find(&t, 0, 'B', "Middle");
    long i = lt_find(&t, 0, 'B', "Inner"), s = lt_find(&t, 0, 'B', "Sibling");
    assert_true(o >= 0 && m > o && i > m && s > i);
    long oe = lt_match_end(&t, (size_t)o), me = lt_match_end(&t, (size_t)m);
    long ie = lt_match_end(&t, (size_t)i), se = lt_match_end(&t, (size_t)s);
    /* stream order: B O, B M, B I, E I, E M, B S, E S, E O */
    lt_check_i64("ie", i + 1, ie);
    lt_check_i64("me", ie + 1, me);
    lt_check_i64("s", me + 1, s);
    lt_check_i64("se", s + 1, se);
    lt_check_i64("oe", se + 1, oe);
    /* containment in time */
    assert_true(t.ev[o].ts_ns <= t.ev[m].ts_ns && t.ev[m].ts_ns <= t.ev[i].ts_ns);
    assert_true(t.ev[ie].ts_ns <= t.ev[me].ts_ns && t.ev[me].ts_ns <= t.ev[oe].ts_ns);
    assert_true(t.ev[me].ts_ns - t.ev[m].ts_ns >= 3000);
    lt_trace_free(&t);
}

static int recurse(int n) {
    LUDUS_PROFILE_SCOPE(Recurse);
    return n <= 1 ? 1 : 1 + recurse(n - 1);
}

static void test_recursive(void **state) {
    (void)state;
    enum { DEPTH = 100 };
    lt_begin(NULL);
    lt_check_i64("recurse(DEPTH)", DEPTH, recurse(DEPTH));
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"Recurse\")", DEPTH, lt_count(&t, 'B', "Recurse"));
    /* DEPTH nested slices: all begins first, then all ends, each B's end is
     * the mirror position */
    long first = lt_find(&t, 0, 'B', "Recurse");
    for (long k = 0; k < DEPTH; k++) {
        lt_check_i64("t.ev[first + k].ph", 'B', t.ev[first + k].ph);
        lt_check_i64("lt_match_end(&t, (size_t)(first + k))", first + 2 * DEPTH - 1 - k,
                     lt_match_end(&t, (size_t)(first + k)));
    }
    lt_check_u64("lt_summary().events", 2 * DEPTH, lt_summary().events);
    lt_trace_free(&t);
}

static int early_return(int x) {
    LUDUS_PROFILE_SCOPE(EarlyReturn);
    if (x) return 1;
    LUDUS_PROFILE_MARK(NotReached);
    return 0;
}

static void test_early_exits(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Outer);
        lt_check_i64("early_return(1)", 1, early_return(1));
        LUDUS_PROFILE_MARK(AfterReturn);
        for (int i = 0; i < 10; i++) {
            LUDUS_PROFILE_SCOPE(LoopBody);
            if (i == 1) continue;
            if (i == 3) break;
            spin_ns(500);
        }
        LUDUS_PROFILE_MARK(AfterBreak);
        {
            LUDUS_PROFILE_SCOPE(GotoScope);
            spin_ns(500);
            goto out;
        }
    out:
        LUDUS_PROFILE_MARK(AfterGoto);
        spin_ns(500);
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'I', \"NotReached\")", 0, lt_count(&t, 'I', "NotReached"));
    lt_check_u64("lt_count(&t, 'B', \"LoopBody\")", 4, lt_count(&t, 'B', "LoopBody")); /* i = 0..3 */
    long er = lt_find(&t, 0, 'B', "EarlyReturn");
    long ar = lt_find(&t, 0, 'I', "AfterReturn");
    assert_true(er >= 0 && ar > er);
    long ere = lt_match_end(&t, (size_t)er);
    assert_true(ere < ar); /* closed at the return, before the mark after it */
    assert_true(t.ev[ere].ts_ns <= t.ev[ar].ts_ns);
    long ab = lt_find(&t, 0, 'I', "AfterBreak");
    long lb = -1;
    for (long k = 0; (k = lt_find(&t, (size_t)k, 'B', "LoopBody")) >= 0; k++) {
        long ke = lt_match_end(&t, (size_t)k);
        lt_check_i64("ke", k + 1, ke); /* each iteration's scope closed in it */
        lb = ke;
    }
    assert_true(lb < ab);
    long g = lt_find(&t, 0, 'B', "GotoScope");
    long ag = lt_find(&t, 0, 'I', "AfterGoto");
    long ge = lt_match_end(&t, (size_t)g);
    lt_check_i64("ge", g + 1, ge);
    assert_true(ge < ag);
    assert_true(t.ev[ge].ts_ns - t.ev[g].ts_ns >= 500);
    long o = lt_find(&t, 0, 'B', "Outer");
    long oe = lt_match_end(&t, (size_t)o);
    lt_check_i64("oe", ag + 1, oe); /* Outer closes last */
    assert_true(t.ev[oe].ts_ns - t.ev[ag].ts_ns >= 500);
    lt_trace_free(&t);
}

static void test_frames(void **state) {
    (void)state;
    enum { FRAMES = 7 };
    lt_begin(NULL);
    for (int f = 0; f < FRAMES; f++) {
        { LUDUS_PROFILE_SCOPE(FrameWork); }
        LUDUS_PROFILE_FRAME();
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("frames in the summary", FRAMES, s.frames);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("frame marks in the JSON export", FRAMES, t.n_frame);
    int64_t want = 1;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'I' || t.ev[i].frame < 0) continue;
        lt_check_str(lt_what("the name of frame mark %lld (event %zu)", (long long)want, i), "Frame", t.ev[i].name);
        /* numbered 1.. in order */
        lt_check_i64(lt_what("the number of frame mark %lld (event %zu)", (long long)want, i), want, t.ev[i].frame);
        /* each frame mark follows its frame's work */
        lt_check_i64(lt_what("the phase of the event before frame mark %lld", (long long)want), 'E', t.ev[i - 1].ph);
        want++;
    }
    /* a second capture numbers its frames from 1 again */
    lt_begin(NULL);
    LUDUS_PROFILE_FRAME();
    LUDUS_PROFILE_FRAME();
    lt_end();
    lt_trace_free(&t);
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("frame marks of the second capture", 2, t.n_frame);
    long f = lt_find(&t, 0, 'I', "Frame");
    lt_check("the second capture has a frame mark", f >= 0);
    lt_check_i64("the second capture's first frame number", 1, t.ev[f].frame);
    lt_trace_free(&t);
}

static void test_incomplete(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_BEGIN(OpenSpan);
    { LUDUS_PROFILE_SCOPE(Closed); }
    {
        LUDUS_PROFILE_SCOPE(OpenLexical);
        lt_end(); /* ends while OpenSpan and OpenLexical are open */
    }
    LUDUS_PROFILE_END(); /* after the capture: pops the span, records nothing */
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.incomplete", 2, s.incomplete);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    lt_check_u64("th.incomplete", 2, th.incomplete);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_E_incomplete", 2, t.n_E_incomplete);
    long b = lt_find(&t, 0, 'B', "OpenSpan");
    long e = lt_match_end(&t, (size_t)b);
    assert_true(t.ev[e].incomplete);
    lt_check_i64("t.ev[e].ts_ns", s.end_ns - s.start_ns, t.ev[e].ts_ns); /* closed at capture end */
    long c = lt_find(&t, 0, 'B', "Closed");
    assert_false(t.ev[lt_match_end(&t, (size_t)c)].incomplete);
    long l = lt_find(&t, 0, 'B', "OpenLexical");
    assert_true(t.ev[lt_match_end(&t, (size_t)l)].incomplete);
    lt_trace_free(&t);
}

/* A lexical scope begun in an earlier capture: its end is not recorded, and
 * it is counted as an end whose begin predates the capture. */
static void test_lexical_across_captures(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Straddles);
        lt_end();
        lt_begin(NULL);
        LUDUS_PROFILE_MARK(Inside);
    }
    LUDUS_PROFILE_MARK(After);
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.orphan_ends", 1, s.orphan_ends);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    lt_check_u64("s.events", 2, s.events);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("t.n_B + t.n_E", 0, t.n_B + t.n_E);
    lt_check_u64("t.n_i", 2, t.n_i);
    lt_trace_free(&t);
}

static void test_restart(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 3; i++) {
        LUDUS_PROFILE_SCOPE(First);
    }
    lt_end();
    lt_check_u64("lt_summary().events", 6, lt_summary().events);
    for (int i = 0; i < 5; i++) {
        LUDUS_PROFILE_SCOPE(BetweenCaptures); /* disarmed: not recorded anywhere */
    }
    lt_begin(NULL);
    for (int i = 0; i < 2; i++) {
        LUDUS_PROFILE_SCOPE(Second);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 4, s.events);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"First\")", 0, lt_count(&t, 'B', "First"));
    lt_check_u64("lt_count(&t, 'B', \"BetweenCaptures\")", 0, lt_count(&t, 'B', "BetweenCaptures"));
    lt_check_u64("lt_count(&t, 'B', \"Second\")", 2, lt_count(&t, 'B', "Second"));
    lt_trace_free(&t);
    /* many short captures back to back */
    for (int k = 0; k < 50; k++) {
        lt_begin(NULL);
        for (int i = 0; i <= k % 5; i++) {
            LUDUS_PROFILE_SCOPE(Again);
        }
        lt_end();
        lt_check_u64("lt_summary().events", 2 * (uint64_t)(k % 5 + 1), lt_summary().events);
    }
}

static void test_disarmed_records_nothing(void **state) {
    (void)state;
    lt_check_i64("ludus_capture_active()", 0, ludus_capture_active());
    {
        LUDUS_PROFILE_SCOPE(Idle);
        LUDUS_PROFILE_MARK(Idle);
        LUDUS_PROFILE_FRAME();
        lt_check_i64("LUDUS_PROFILE_FLOW_OUT(Idle)", 0, LUDUS_PROFILE_FLOW_OUT(Idle));
    }
    lt_begin(NULL);
    lt_check_i64("ludus_capture_active()", 1, ludus_capture_active());
    LUDUS_PROFILE_MARK(Only);
    lt_end();
    lt_check_i64("ludus_capture_active()", 0, ludus_capture_active());
    lt_check_u64("lt_summary().events", 1, lt_summary().events);
    lt_check_u64("lt_summary().frames", 0, lt_summary().frames);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_single_scope, lt_teardown),
        cmocka_unit_test_teardown(test_macro_spellings, lt_teardown),
        cmocka_unit_test_teardown(test_scopes_on_one_line, lt_teardown),
        cmocka_unit_test_teardown(test_nested, lt_teardown),
        cmocka_unit_test_teardown(test_recursive, lt_teardown),
        cmocka_unit_test_teardown(test_early_exits, lt_teardown),
        cmocka_unit_test_teardown(test_frames, lt_teardown),
        cmocka_unit_test_teardown(test_incomplete, lt_teardown),
        cmocka_unit_test_teardown(test_lexical_across_captures, lt_teardown),
        cmocka_unit_test_teardown(test_restart, lt_teardown),
        cmocka_unit_test_teardown(test_disarmed_records_nothing, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
