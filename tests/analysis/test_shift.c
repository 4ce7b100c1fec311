/* Robust diff verdicts on synthetic captures: the Hodges-Lehmann shift and
 * its interval find a known per-call change and keep identical workloads at
 * "no change"; binned and exact modes agree within the histogram's error;
 * several runs per side widen the interval by how much the runs disagree;
 * a worker on a timer is not "more work" when frames get longer, a site
 * called twice per frame is; a hitch's explanation includes the unlogged
 * remainder and a scope crossing the frame mark. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_FRAME, "Frame");
SITE(S_A, "A");
SITE(S_B, "B");
SITE(S_TICK, "Tick");
SITE(S_LOAD, "Load");

static uint64_t rng(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* 300 frames: Frame { A ~1000 x a_calls, B ~3000 x b_scale } with +-5%
 * noise and a gap of gap to 2 x gap ns (frames vary in length); a worker (thread 1) runs Tick (500 ns) every
 * 2000 ns of wall time, whatever the frames do. */
static syn *workload(uint64_t seed, double b_scale, int a_calls, uint64_t gap) {
    syn *s = syn_new(2, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        for (int k = 0; k < a_calls + 1; k++) {
            int is_b = k == a_calls;
            double noise = 0.95 + 0.1 * (double)(rng(&x) % 1000) / 1000.0;
            uint64_t d = (uint64_t)((is_b ? 3000 * b_scale : 1000) * noise);
            syn_scope(s, 0, t, t + d, is_b ? &S_B : &S_A);
            t += d;
        }
        t += gap + rng(&x) % (gap + 1);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    for (uint64_t w = 0; w + 500 < t; w += 2000) syn_scope(s, 1, w, w + 500, &S_TICK);
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

typedef struct pair {
    syn *sa, *sb;
    ludus_analysis *a, *b;
    ludus_diff *d;
} pair;

static void pair_make(pair *p, syn *sa, syn *sb, int exact) {
    ludus_analysis_desc ad;
    memset(&ad, 0, sizeof ad);
    ad.exact = exact;
    p->sa = sa;
    p->sb = sb;
    p->a = syn_analyze(sa, &ad);
    p->b = syn_analyze(sb, &ad);
    assert_non_null(p->a);
    assert_non_null(p->b);
    assert_int_equal(ludus_diff_create(p->a, p->b, NULL, &p->d), 0);
}

static void pair_free(pair *p, int keep_captures) {
    ludus_diff_destroy(p->d);
    ludus_analysis_destroy(p->a);
    ludus_analysis_destroy(p->b);
    if (!keep_captures) {
        syn_free(p->sa);
        syn_free(p->sb);
    }
}

static uint32_t time_verdicts(const ludus_diff *d) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ludus_diff_entry_count(d); i++)
        if (ludus_diff_entry(d, i)->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER | LUDUS_DIFF_SLOWER_INSIDE)) n++;
    return n;
}

static void test_shift_finds_change(void **st) {
    (void)st;
    pair p;
    pair_make(&p, workload(7, 1.0, 1, 100), workload(8, 1.10, 1, 100), 0);
    const ludus_site_diff *e = syn_diff_find(p.d, "B", 0);
    assert_non_null(e);
    assert_true(e->shift > 0.08 && e->shift < 0.12);
    assert_true(e->shift_lo < e->shift && e->shift < e->shift_hi);
    assert_true(e->shift_lo > 0.02); /* beyond the default minimum: a verdict */
    assert_true(e->verdict & LUDUS_DIFF_SLOWER);
    /* A is untouched: its interval holds 0, no verdict */
    const ludus_site_diff *a = syn_diff_find(p.d, "A", 0);
    assert_true(a->shift_lo < 0 && a->shift_hi > 0);
    assert_false(a->verdict & LUDUS_DIFF_CHANGED);
    /* one run per side: the run-to-run noise is assumed, not measured */
    ludus_diff_info info;
    ludus_diff_get_info(p.d, &info);
    assert_int_equal(info.base_runs, 1);
    assert_false(info.run_noise_known);
    assert_true(isnan(e->run_sd));
    pair_free(&p, 0);
}

/* The same workload with other noise: no time verdict anywhere, and every
 * interval holds 0. */
static void test_same_workload(void **st) {
    (void)st;
    for (uint64_t seed = 1; seed <= 5; seed++) {
        pair p;
        pair_make(&p, workload(seed, 1.0, 1, 100), workload(seed + 100, 1.0, 1, 100), 0);
        assert_int_equal(time_verdicts(p.d), 0);
        for (uint32_t i = 0; i < ludus_diff_entry_count(p.d); i++) {
            const ludus_site_diff *e = ludus_diff_entry(p.d, i);
            if (e->base_excl.count && e->new_excl.count) assert_true(e->shift_lo <= 0 && e->shift_hi >= 0);
        }
        pair_free(&p, 0);
    }
}

/* The verdict needs the whole interval beyond min_shift: a 3% change with a
 * 5% minimum is no verdict, with 1% it is (the interval itself is the same). */
static void test_min_shift_rule(void **st) {
    (void)st;
    syn *sa = workload(7, 1.0, 1, 100), *sb = workload(8, 1.03, 1, 100);
    ludus_analysis *a = syn_analyze(sa, NULL), *b = syn_analyze(sb, NULL);
    ludus_diff_desc dd;
    memset(&dd, 0, sizeof dd);
    dd.run_noise = 0.001;
    dd.min_shift = 0.05;
    ludus_diff *d5, *d1;
    assert_int_equal(ludus_diff_create(a, b, &dd, &d5), 0);
    dd.min_shift = 0.01;
    assert_int_equal(ludus_diff_create(a, b, &dd, &d1), 0);
    const ludus_site_diff *e5 = syn_diff_find(d5, "B", 0), *e1 = syn_diff_find(d1, "B", 0);
    assert_true(e5->shift_lo == e1->shift_lo && e5->shift_hi == e1->shift_hi);
    assert_true(e1->shift_lo > 0.01 && e1->shift_lo < 0.05);
    assert_false(e5->verdict & LUDUS_DIFF_SLOWER);
    assert_true(e1->verdict & LUDUS_DIFF_SLOWER);
    ludus_diff_destroy(d5);
    ludus_diff_destroy(d1);
    ludus_analysis_destroy(a);
    ludus_analysis_destroy(b);
    syn_free(sa);
    syn_free(sb);
}

/* Outliers move the mean, not the verdict: 10% of B's calls preempted for
 * 20x their time in NEW only. */
static void test_outliers_do_not_decide(void **st) {
    (void)st;
    syn *sa = workload(7, 1.0, 1, 100), *sb = workload(8, 1.0, 1, 100);
    ludus__event *ev = sb->ev[0];
    int n = 0;
    for (size_t i = 0; i < sb->run[0].n; i++) { /* stretch every 10th B: shift its end and all after it */
        if ((ev[i].word & ~(uintptr_t)LUDUS__K_MASK) != (uintptr_t)&S_B ||
            (ev[i].word & LUDUS__K_MASK) != LUDUS__K_BEGIN)
            continue;
        if (n++ % 10) continue;
        for (size_t j = i + 1; j < sb->run[0].n; j++) ev[j].ticks += 60000; /* its end and everything after */
    }
    assert_int_equal(n, 300);
    sb->c.end_ns += 60000 * 30;
    pair p;
    pair_make(&p, sa, sb, 0);
    const ludus_site_diff *e = syn_diff_find(p.d, "B", 0);
    assert_true(e->rel[LUDUS_METRIC_MEAN] > 1.0); /* the mean more than doubled */
    assert_true(e->shift_lo < 0.02);              /* the robust shift did not move */
    assert_false(e->verdict & LUDUS_DIFF_SLOWER);
    pair_free(&p, 0);
}

/* Binned and exact: the estimates and interval ends agree within two
 * bucket errors (each value's bucket middle is within 1/128 of it), so the
 * verdicts agree wherever the exact interval ends are further than that
 * from the minimum change. */
static void test_binned_agrees_with_exact(void **st) {
    (void)st;
    const double tol = 2 * log1p(1.0 / 128);
    for (int k = 0; k < 4; k++) {
        double scale = 1.0 + 0.04 * k;
        syn *sa = workload(11 + k, 1.0, 1, 100), *sb = workload(21 + k, scale, 1, 100);
        pair pe, pb;
        pair_make(&pe, sa, sb, 1);
        pair_make(&pb, sa, sb, 0);
        for (uint32_t i = 0; i < ludus_diff_entry_count(pe.d); i++) {
            const ludus_site_diff *x = ludus_diff_entry(pe.d, i);
            const ludus_site_diff *y = syn_diff_find(pb.d, x->name, x->is_path);
            assert_non_null(y);
            if (!x->base_excl.count || !x->new_excl.count) continue;
            assert_true(fabs(log1p(x->shift) - log1p(y->shift)) <= tol);
            assert_true(fabs(log1p(x->shift_lo) - log1p(y->shift_lo)) <= tol);
            assert_true(fabs(log1p(x->shift_hi) - log1p(y->shift_hi)) <= tol);
            double m = log1p(0.02);
            int clear = fabs(log1p(x->shift_lo) - m) > tol && fabs(log1p(x->shift_hi) + m) > tol;
            if (clear)
                assert_int_equal(x->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER),
                                 y->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER));
        }
        pair_free(&pe, 1);
        pair_free(&pb, 0);
    }
}

/* Several runs per side: runs that disagree (one BASE run 8% slower than the
 * others) widen the interval past a 5% change; runs that agree do not. */
static void test_runs_widen(void **st) {
    (void)st;
    syn *s[6];
    ludus_analysis *an[6];
    double base_scale[3] = {1.0, 1.0, 1.08};
    for (int r = 0; r < 6; r++) {
        s[r] = workload(31 + r, r < 3 ? base_scale[r] : 1.05 * 1.027, 1, 100);
        an[r] = syn_analyze(s[r], NULL);
        assert_non_null(an[r]);
    }
    ludus_diff *d;
    assert_int_equal(ludus_diff_create_runs((const ludus_analysis *const *)an, 3, (const ludus_analysis *const *)an + 3,
                                            3, NULL, &d),
                     0);
    ludus_diff_info info;
    ludus_diff_get_info(d, &info);
    assert_int_equal(info.base_runs, 3);
    assert_int_equal(info.new_runs, 3);
    assert_true(info.run_noise_known);
    const ludus_site_diff *e = syn_diff_find(d, "B", 0);
    assert_true(isfinite(e->run_sd) && e->run_sd > 0.03); /* 8% between runs of one side */
    assert_false(e->verdict & LUDUS_DIFF_SLOWER);
    assert_true(e->shift_lo < 0.02);
    ludus_diff_destroy(d);
    /* the same NEW against three agreeing BASE runs */
    ludus_analysis *agree[3] = {an[0], an[1], an[1]};
    assert_int_equal(ludus_diff_create_runs((const ludus_analysis *const *)agree, 3,
                                            (const ludus_analysis *const *)an + 3, 3, NULL, &d),
                     0);
    e = syn_diff_find(d, "B", 0);
    assert_true(e->run_sd < 0.01);
    assert_true(e->verdict & LUDUS_DIFF_SLOWER);
    assert_true(e->shift > 0.06 && e->shift < 0.10);
    ludus_diff_destroy(d);
    for (int r = 0; r < 6; r++) {
        ludus_analysis_destroy(an[r]);
        syn_free(s[r]);
    }
}

/* Frames about 40% longer (more unlogged time): the timed worker runs more
 * times per frame but not per second: no verdict, and the diff says its
 * calls follow the frame's length. A called twice per frame is more work
 * (per frame; per second it rises too). */
static void test_work_on_time_and_per_frame(void **st) {
    (void)st;
    pair p;
    pair_make(&p, workload(7, 1.0, 1, 2000), workload(8, 1.0, 2, 3500), 0);
    const ludus_site_diff *t = syn_diff_find(p.d, "Tick", 0);
    assert_non_null(t);
    assert_true(t->rel[LUDUS_METRIC_CALLS] > 0.2);
    assert_int_equal(t->work_per_frame, LUDUS_DIFF_MORE_WORK);
    assert_int_equal(t->work_per_second, 0);
    assert_true(t->work_time_bound);
    assert_false(t->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    const ludus_site_diff *a = syn_diff_find(p.d, "A", 0);
    assert_false(a->work_time_bound);
    assert_true(a->verdict & LUDUS_DIFF_MORE_WORK);
    assert_int_equal(a->work_basis, 3);
    /* B: the same calls per frame, fewer per second (longer frames): no verdict */
    const ludus_site_diff *b = syn_diff_find(p.d, "B", 0);
    assert_int_equal(b->work_per_second, LUDUS_DIFF_LESS_WORK);
    assert_false(b->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    pair_free(&p, 0);
}

/* A hitch made of an unlogged gap (3000 ns) and a Load scope begun 100 ns
 * before the frame's mark that runs 4000 ns into the frame: both are listed
 * and explain the extra time. */
static void test_hitch_explained(void **st) {
    (void)st;
    syn *s = syn_new(1, 0);
    uint64_t t = 0;
    for (int f = 0; f < 40; f++) {
        int hitch = f == 20;
        syn_b(s, 0, t, &S_FRAME);
        syn_scope(s, 0, t + 10, t + 1010, &S_A);
        syn_e(s, 0, t + 1020);
        t += 1020;
        if (hitch) { /* Load crosses the mark: 100 ns before, 4000 ns after */
            syn_b(s, 0, t, &S_LOAD);
            syn_frame(s, 0, t + 100);
            syn_e(s, 0, t + 4100);
            t += 4100 + 3000; /* then 3000 ns of unlogged time */
        } else {
            syn_frame(s, 0, t);
        }
    }
    s->c.end_ns = (int64_t)t + 1;
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    assert_int_equal(ludus_analysis_hitch_count(a), 1);
    const ludus_hitch *h = ludus_analysis_hitch(a, 0);
    int unlogged = 0, carried = 0;
    int64_t listed = 0;
    for (int g = 0; g < LUDUS_HITCH_GREW && h->grew_site[g] != UINT32_MAX; g++) {
        listed += h->grew_ns[g];
        if (h->grew_site[g] == LUDUS_HITCH_UNLOGGED) {
            unlogged = 1;
            assert_true(h->grew_ns[g] >= 3000);
        }
        if (h->grew_site[g] == LUDUS_HITCH_CARRIED) {
            carried = 1;
            assert_int_equal(h->grew_ns[g], 4000);
        }
    }
    assert_true(unlogged && carried);
    assert_int_equal((int64_t)ludus_analysis_site_count(a) > 0, 1);
    assert_string_equal(ludus_analysis_site(a, h->carried_site)->name, "Load");
    assert_true(h->extra_ns > 6000);
    assert_true(fabs(h->explained - (double)listed / (double)h->extra_ns) < 1e-9);
    assert_true(h->explained > 0.9);
    /* the text report names them */
    mem m = {0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "(unlogged remainder)"));
    assert_non_null(strstr(m.p, "(crossing the mark: Load)"));
    assert_non_null(strstr(m.p, "explains"));
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* The quantiles the intervals use, against published values. */
static void test_quantiles(void **st) {
    (void)st;
    assert_true(fabs(ludus__z_two_sided(0.05) - 1.959964) < 1e-5);
    assert_true(fabs(ludus__z_two_sided(0.01) - 2.575829) < 1e-5);
    assert_true(fabs(ludus__t_two_sided(0.05, 4) - 2.776445) < 1e-5);
    assert_true(fabs(ludus__t_two_sided(0.05, 1) - 12.706205) < 1e-4);
    assert_true(fabs(ludus__t_two_sided(0.01, 10) - 3.169273) < 1e-5);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift_finds_change),
        cmocka_unit_test(test_same_workload),
        cmocka_unit_test(test_min_shift_rule),
        cmocka_unit_test(test_outliers_do_not_decide),
        cmocka_unit_test(test_binned_agrees_with_exact),
        cmocka_unit_test(test_runs_widen),
        cmocka_unit_test(test_work_on_time_and_per_frame),
        cmocka_unit_test(test_hitch_explained),
        cmocka_unit_test(test_quantiles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
