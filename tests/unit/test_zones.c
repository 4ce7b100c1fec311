/* Zones with a context (LUDUS_ZONE_BEGIN / LUDUS_ZONE_END), the form C
 * engines and begin/end instrumentation use: zones nested across
 * functions, kept in structs, begun and ended by a small state machine,
 * ended before their block does, and an end that skips inner zones. Each
 * capture must read back with every zone paired: 0 orphan ends, 0
 * mismatched, 0 incomplete, 0 unwound (except where a test skips an end on
 * purpose). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

typedef struct job {
    ludus_zone zone;
    int step;
} job;

static void job_start(job *j) {
    LUDUS_ZONE_BEGIN_INTO(j->zone, JobRun, jobs);
    j->step = 0;
}

/* Ends the job's zone in a later call than the one that began it. */
static int job_step(job *j) {
    if (++j->step < 3) return 0;
    LUDUS_ZONE_END(j->zone);
    return 1;
}

static void assert_all_paired(void) {
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_check_u64("s.orphan_ends", 0, s.orphan_ends);
    lt_check_u64("s.mismatched", 0, s.mismatched);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    lt_check_u64("s.unwound", 0, s.unwound);
}

static void test_nested_across_functions(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int frame = 0; frame < 4; frame++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_ZONE_BEGIN(step, Step, physics);
        LUDUS_ZONE_BEGIN(broad, "Broad phase");
        lt_spin_ns(2000);
        LUDUS_ZONE_END(broad); /* ends before its block does */
        job j;
        job_start(&j);
        while (!job_step(&j)) lt_spin_ns(1000);
        {
            LUDUS_PROFILE_SCOPE(LexicalInside); /* a scope inside a zone */
            LUDUS_ZONE_BEGIN(inner, InnerOfScope);
            LUDUS_ZONE_END(inner);
        }
        LUDUS_ZONE_END(step);
    }
    LUDUS_PROFILE_FRAME();
    lt_end();
    assert_all_paired();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"Step\")", 4, lt_count(&t, 'B', "Step"));
    lt_check_u64("lt_count(&t, 'B', \"Broad phase\")", 4, lt_count(&t, 'B', "Broad phase"));
    lt_check_u64("lt_count(&t, 'B', \"JobRun\")", 4, lt_count(&t, 'B', "JobRun"));
    lt_check_u64("lt_count(&t, 'B', \"LexicalInside\")", 4, lt_count(&t, 'B', "LexicalInside"));
    lt_check_u64("lt_count(&t, 'B', \"InnerOfScope\")", 4, lt_count(&t, 'B', "InnerOfScope"));
    long b = lt_find(&t, 0, 'B', "Step");
    assert_true(b >= 0);
    assert_string_equal(t.ev[b].cat, "physics");
    long jb = lt_find(&t, 0, 'B', "JobRun");
    assert_true(jb > b);
    assert_string_equal(t.ev[jb].cat, "jobs");
    long je = lt_match_end(&t, (size_t)jb);
    long se = lt_match_end(&t, (size_t)b);
    assert_true(je > jb && se > je);                      /* JobRun nests inside Step */
    assert_true(t.ev[je].ts_ns - t.ev[jb].ts_ns >= 2000); /* two steps of 1 us spun inside */
    lt_trace_free(&t);
}

/* Many zones open at once, ended in reverse order from an array: a C
 * engine's explicit stack of contexts. */
static void test_explicit_stack(void **state) {
    (void)state;
    enum { DEPTH = 200 };
    static ludus_zone stack[DEPTH];
    lt_begin(NULL);
    for (int i = 0; i < DEPTH; i++) LUDUS_ZONE_BEGIN_INTO(stack[i], Level);
    for (int i = DEPTH - 1; i >= 0; i--) LUDUS_ZONE_END(stack[i]);
    lt_end();
    assert_all_paired();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"Level\")", DEPTH, lt_count(&t, 'B', "Level"));
    lt_check_u64("t.n_E", DEPTH, t.n_E);
    lt_trace_free(&t);
}

/* An end that names an outer zone while an inner one is still open closes
 * the inner one there, marked unwound (never a mismatch, never re-paired);
 * the inner zone's late end is then an orphan end, counted. */
static void test_end_skips_inner(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_ZONE_BEGIN(outer, Outer);
    LUDUS_ZONE_BEGIN(inner, Inner);
    LUDUS_ZONE_END(outer);
    LUDUS_ZONE_END(inner);
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.unwound", 1, s.unwound);
    lt_check_u64("s.mismatched", 0, s.mismatched);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"Outer\")", 1, lt_count(&t, 'B', "Outer"));
    lt_check_u64("lt_count(&t, 'B', \"Inner\")", 1, lt_count(&t, 'B', "Inner"));
    lt_check_u64("t.n_E_unwound", 1, t.n_E_unwound);
    lt_trace_free(&t);
}

/* A zone begun with no capture running holds 0 and records nothing at its
 * end, even when a capture has begun meanwhile. */
static void test_begun_before_capture(void **state) {
    (void)state;
    LUDUS_ZONE_BEGIN(before, Before);
    assert_true(before.token == 0);
    lt_begin(NULL);
    LUDUS_ZONE_END(before);
    LUDUS_ZONE_BEGIN(during, During);
    assert_true(during.token != 0);
    LUDUS_ZONE_END(during);
    lt_end();
    assert_all_paired();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.events", 2, s.events);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested_across_functions),
        cmocka_unit_test(test_explicit_stack),
        cmocka_unit_test(test_end_skips_inner),
        cmocka_unit_test(test_begun_before_capture),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
