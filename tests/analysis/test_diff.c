/* Diff verdicts on synthetic captures: identical workloads (same or other
 * noise) diff to no change; one site 20% slower diffs to exactly that site
 * as slower work; one site run twice per frame diffs to more work; gates
 * trip only on significant changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "synth.h"

SITE(S_FRAME, "Frame");
SITE(S_A, "A");
SITE(S_B, "B");
SITE(S_C, "C");

/* 300 frames: Frame { A ~1000, B ~2000 x b_calls, C ~500 } with +-5% noise. */
static syn *workload(uint64_t seed, double b_scale, int b_calls) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        const ludus_site *order[4] = {&S_A, &S_B, &S_B, &S_C};
        for (int k = 0; k < 4; k++) {
            if (k == 2 && b_calls < 2) continue;
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double noise = 0.95 + 0.1 * (double)(x % 1000) / 1000.0;
            double base = order[k] == &S_A ? 1000 : order[k] == &S_B ? 2000 * b_scale : 500;
            uint64_t d = (uint64_t)(base * noise);
            syn_scope(s, 0, t, t + d, order[k]);
            t += d;
        }
        t += 10;
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static ludus_diff *diff_of(syn *a, syn *b, ludus_analysis **aa, ludus_analysis **bb) {
    *aa = syn_analyze(a, NULL);
    *bb = syn_analyze(b, NULL);
    assert_non_null(*aa);
    assert_non_null(*bb);
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create(*aa, *bb, NULL, &d), 0);
    return d;
}

static uint32_t changed_entries(const ludus_diff *d) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ludus_diff_count(d); i++)
        if (ludus_diff_entry_at(d, i)->verdict & (LUDUS_DIFF_CHANGED | LUDUS_DIFF_NEW | LUDUS_DIFF_GONE)) n++;
    return n;
}

static void check_no_change(uint64_t seed_a, uint64_t seed_b) {
    syn *a = workload(seed_a, 1.0, 1), *b = workload(seed_b, 1.0, 1);
    ludus_analysis *aa, *bb;
    ludus_diff *d = diff_of(a, b, &aa, &bb);
    assert_int_equal(changed_entries(d), 0);
    const ludus_diff_entry *e = ludus_diff_find(d, "B", 0);
    assert_non_null(e);
    if (seed_a == seed_b) {
        assert_true(e->p_time == 1.0);
        assert_true(e->rel[LUDUS_METRIC_P90] == 0.0);
    }
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("p90 > +5%", &g), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), 0);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(aa);
    ludus_analysis_destroy(bb);
    syn_free(a);
    syn_free(b);
}

static void test_identical(void **st) {
    (void)st;
    check_no_change(7, 7);
}
static void test_same_workload_other_noise(void **st) {
    (void)st;
    check_no_change(7, 8);
}

static void test_slower(void **st) {
    (void)st;
    syn *a = workload(7, 1.0, 1), *b = workload(8, 1.2, 1);
    ludus_analysis *aa, *bb;
    ludus_diff *d = diff_of(a, b, &aa, &bb);
    const ludus_diff_entry *e = ludus_diff_find(d, "B", 0);
    assert_true(e->verdict & LUDUS_DIFF_SLOWER);
    assert_false(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    assert_true(e->rel[LUDUS_METRIC_P50] > 0.15 && e->rel[LUDUS_METRIC_P50] < 0.25);
    assert_true(e->rel[LUDUS_METRIC_MEAN] > 0.17 && e->rel[LUDUS_METRIC_MEAN] < 0.23);
    /* exactly that site (and its path): nothing else changed */
    for (uint32_t i = 0; i < ludus_diff_count(d); i++) {
        const ludus_diff_entry *x = ludus_diff_entry_at(d, i);
        if (!strcmp(x->name, "B") || !strcmp(x->name, "Frame/B")) {
            assert_true(x->verdict & LUDUS_DIFF_SLOWER);
            continue;
        }
        assert_false(x->verdict & LUDUS_DIFF_CHANGED);
    }
    /* the parent is flagged as slower inside, not slower work */
    assert_true(ludus_diff_find(d, "Frame", 0)->verdict & LUDUS_DIFF_SLOWER_INSIDE);
    ludus_gate g[2];
    assert_int_equal(ludus_gate_parse("p90 > +5%", &g[0]), 0);
    assert_int_equal(ludus_gate_parse("calls>+5", &g[1]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 2); /* site B and path Frame/B */
    assert_int_equal(ludus_diff_check_gates(d, &g[1], 1, NULL, NULL), 0);
    assert_int_equal(ludus_gate_parse("p90 > +30%", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 0);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(aa);
    ludus_analysis_destroy(bb);
    syn_free(a);
    syn_free(b);
}

static void test_more_work(void **st) {
    (void)st;
    syn *a = workload(7, 1.0, 1), *b = workload(8, 1.0, 2);
    ludus_analysis *aa, *bb;
    ludus_diff *d = diff_of(a, b, &aa, &bb);
    const ludus_diff_entry *e = ludus_diff_find(d, "B", 0);
    assert_true(e->verdict & LUDUS_DIFF_MORE_WORK);
    assert_false(e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER));
    assert_true(e->base_calls_per_frame == 1.0 && e->new_calls_per_frame == 2.0);
    assert_true(e->rel[LUDUS_METRIC_CALLS] == 1.0);
    assert_false(ludus_diff_find(d, "A", 0)->verdict & LUDUS_DIFF_CHANGED);
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("calls > +50%", &g), 0);
    assert_true(ludus_diff_check_gates(d, &g, 1, NULL, NULL) >= 1);
    assert_int_equal(ludus_gate_parse("p50 > +5%", &g), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), 0);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(aa);
    ludus_analysis_destroy(bb);
    syn_free(a);
    syn_free(b);
}

static void test_gate_parse(void **st) {
    (void)st;
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("p99 < -10%", &g), 0);
    assert_int_equal(g.metric, LUDUS_METRIC_P99);
    assert_false(g.greater);
    assert_true(g.rel == -0.10);
    assert_int_equal(ludus_gate_parse("mean>+2.5%", &g), 0);
    assert_true(g.greater && g.rel == 0.025);
    assert_int_equal(ludus_gate_parse("p95 > 5%", &g), LUDUS_EINVAL);
    assert_int_equal(ludus_gate_parse("p90 = 5%", &g), LUDUS_EINVAL);
    assert_int_equal(ludus_gate_parse("p90 > 5% x", &g), LUDUS_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),  cmocka_unit_test(test_same_workload_other_noise),
        cmocka_unit_test(test_slower),     cmocka_unit_test(test_more_work),
        cmocka_unit_test(test_gate_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
