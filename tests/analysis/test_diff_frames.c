/* The diff per frame, on synthetic captures with known answers: a site whose
 * few heavy calls per frame got heavier is "more time per frame" from its
 * tail; an inner loop doing its work twice is slower work and more time per
 * frame from its typical call; one long frame does not make a frame-bound
 * site's calls "follow the frame's length"; with one run per side a site
 * that switches between two speeds within the run, or a run whose second
 * half drifts slower, is near the line, not a verdict; the frame time's
 * percentiles have verdicts of their own; the text names the cause. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_FRAME, "Frame");
SITE(S_BATCH, "Batch");
SITE(S_OTHER, "Other");
SITE(S_INNER, "Inner");
SITE(S_COPY, "Copy");
SITE(S_LOAD, "Load");
SITE(S_DRAW, "Draw");
SITE(S_SUBMIT, "Submit");

static uint64_t rng(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

static double noise(uint64_t *x, double spread) {
    return 1.0 - spread + 2 * spread * (double)(rng(x) % 10000) / 10000.0;
}

/* A closed scope of about ns (noise +-spread) at *t; *t moves past it. */
static void scope(syn *s, uint64_t *t, const ludus_site *site, double ns, uint64_t *x, double spread) {
    uint64_t d = (uint64_t)(ns * noise(x, spread));
    syn_scope(s, 0, *t, *t + d, site);
    *t += d;
}

static const ludus_site_diff *site(const syn_pair *p, const char *name) {
    const ludus_site_diff *e = syn_diff_find(p->d, name, 0);
    assert_non_null(e);
    return e;
}

/* 300 frames of Frame { Batch x 100, Other }: Batch ~1 us, every 20th call
 * (5 per frame) ~20 us x heavy; Other ~5 us. */
static syn *tail_workload(uint64_t seed, double heavy) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        for (int k = 0; k < 100; k++) scope(s, &t, &S_BATCH, k % 20 == 0 ? 20000 * heavy : 1000, &x, 0.05);
        scope(s, &t, &S_OTHER, 5000, &x, 0.05);
        t += 10;
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* 5 of 100 calls per frame 2x heavier: the per-call shift does not move
 * (95% of the calls did not change), the time per frame does, and its cause
 * is the tail; the frame time is slower at every percentile. */
static void test_tail_heavier(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, tail_workload(7, 1.0), tail_workload(8, 2.0)), 0);
    const ludus_site_diff *e = site(&p, "Batch");
    assert_false(e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER)); /* the typical call did not change */
    assert_true(fabs(e->shift) < 0.02);
    assert_false(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    assert_true(e->verdict & LUDUS_DIFF_MORE_TIME);
    assert_true(e->rel_total > 0.45 && e->rel_total < 0.57); /* 195 us -> 295 us per frame: +51% */
    assert_true(e->total_lo > 0.3);
    assert_true(e->time_cause & LUDUS_DIFF_CAUSE_TAIL);
    assert_false(e->time_cause & (LUDUS_DIFF_CAUSE_CALLS | LUDUS_DIFF_CAUSE_TYPICAL));
    /* the heaviest 5% of the calls: the 5 heavy ones per frame, twice the time */
    assert_true(e->tail_share == 0.05);
    assert_true(fabs(e->base_tail_calls - 5) < 0.05 && fabs(e->new_tail_calls - 5) < 0.05);
    assert_true(e->new_tail_ns / e->base_tail_ns > 1.9 && e->new_tail_ns / e->base_tail_ns < 2.1);
    assert_true(e->p_total < 1e-6);
    /* Other did not change: no verdict */
    assert_false(site(&p, "Other")->verdict & LUDUS_DIFF_CHANGED);
    /* the frame time: 200 us -> 300 us at p50, p90, p99 */
    ludus_diff_info info;
    ludus_diff_get_info(p.d, &info);
    for (int q = 0; q < 3; q++) {
        assert_int_equal(info.frame_pct[q].verdict, LUDUS_DIFF_SLOWER);
        assert_true(info.frame_pct[q].rel > 0.4 && info.frame_pct[q].rel < 0.6);
        assert_true(info.frame_pct[q].lo > 0.02);
    }
    /* the text names the site, the verdict and its cause */
    mem m = {0};
    assert_int_equal(ludus_diff_report(p.d, LUDUS_REPORT_TEXT, mem_write, &m), 0);
    const char *at = strstr(m.p, "  Batch ");
    assert_non_null(at);
    assert_non_null(strstr(at, "more time per frame"));
    assert_non_null(strstr(at, "heavier tail"));
    assert_non_null(strstr(m.p, "p50 "));
    free(m.p);
    /* a gate on the time per frame */
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("total > +50%", &g), 0);
    assert_int_equal(g.metric, LUDUS_METRIC_TOTAL);
    assert_true(ludus_diff_check_gates(p.d, &g, 1, NULL, NULL) >= 1); /* Batch (and Frame/Batch) */
    assert_int_equal(ludus_gate_parse("total > +100%", &g), 0);
    assert_int_equal(ludus_diff_check_gates(p.d, &g, 1, NULL, NULL), 0);
    syn_pair_free(&p);
}

/* Frame { Inner x 20..39, each 0.5-5.5 us x scale }: heavy-tailed calls. */
static syn *inner_workload(uint64_t seed, double scale) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        int n = 20 + (int)(rng(&x) % 20);
        for (int k = 0; k < n; k++) scope(s, &t, &S_INNER, (500.0 + (double)(rng(&x) % 5000)) * scale, &x, 0.02);
        scope(s, &t, &S_OTHER, 5000, &x, 0.05);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* The inner loop does its work twice: slower work, and more time per frame
 * whose cause is the typical call (not more calls). */
static void test_inner_loop_twice(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, inner_workload(7, 1.0), inner_workload(8, 2.0)), 0);
    const ludus_site_diff *e = site(&p, "Inner");
    assert_true(e->verdict & LUDUS_DIFF_SLOWER);
    assert_true(e->verdict & LUDUS_DIFF_MORE_TIME);
    assert_false(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    assert_true(e->rel_total > 0.8 && e->rel_total < 1.2);
    assert_true(e->time_cause & LUDUS_DIFF_CAUSE_TYPICAL);
    assert_false(e->time_cause & LUDUS_DIFF_CAUSE_CALLS);
    assert_false(site(&p, "Other")->verdict & LUDUS_DIFF_CHANGED);
    syn_pair_free(&p);
}

/* 300 frames of Frame { Copy, Draw ~draw_ns }, the first window frame a
 * load: Copy x 100 and Load ~50 ms (a screen wipe). */
static syn *long_frame_workload(uint64_t seed, double draw_ns) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        int load = f == 1;
        for (int k = 0; k < (load ? 100 : 1); k++) scope(s, &t, &S_COPY, 1000, &x, 0.05);
        if (load) scope(s, &t, &S_LOAD, 5e7, &x, 0.01);
        scope(s, &t, &S_DRAW, draw_ns, &x, 0.3);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* One long frame with many calls made Pearson's correlation of Copy's calls
 * with the frame's length 1.00, and the diff judged Copy per second: frames
 * 20% longer in NEW made it "less work" at unchanged calls per frame. The
 * rank correlation is near 0: Copy is judged per frame, no verdict. */
static void test_single_long_frame(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, long_frame_workload(7, 10000), long_frame_workload(8, 12000)), 0);
    const ludus_site_diff *e = site(&p, "Copy");
    assert_true(e->rel[LUDUS_METRIC_CALLS] == 0.0);
    assert_true(e->frame_time_r < 0.5);
    assert_false(e->work_time_bound);
    assert_false(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    assert_true(e->rel_calls_per_s < -0.1); /* per second it did fall: the frames are longer */
    /* Draw got slower: that is the change */
    assert_true(site(&p, "Draw")->verdict & LUDUS_DIFF_SLOWER);
    syn_pair_free(&p);
}

/* 400 frames of Frame { Submit, Draw }: Submit waits ~10 us or ~250 us
 * (+-5%), the same for 50 frames at a time (a vsync phase); slow[k] says
 * which of the 8 stretches wait long. */
static syn *phase_workload(uint64_t seed, const int *slow) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 400; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        scope(s, &t, &S_SUBMIT, slow[f / 50] ? 250000 : 10000, &x, 0.05);
        scope(s, &t, &S_DRAW, 100000, &x, 0.05);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* The same program, one run per side, whose Submit is slow in 2 of 8
 * stretches in BASE and 6 of 8 in NEW: within each run the shift is huge
 * and tight (the old diff: "slower work" +2400%, p < 1e-300), but the run's
 * own blocks disagree as much: near the line, no verdict, a p value that is
 * not small. */
static void test_phases_one_run_cannot_decide(void **st) {
    (void)st;
    static const int base[8] = {1, 0, 0, 0, 1, 0, 0, 0}, newer[8] = {1, 1, 0, 1, 1, 1, 0, 1};
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, phase_workload(7, base), phase_workload(8, newer)), 0);
    const ludus_site_diff *e = site(&p, "Submit");
    assert_true(e->shift > 5); /* the pooled calls: a shift of several hundred percent */
    assert_false(e->verdict & LUDUS_DIFF_CHANGED);
    assert_true(e->verdict & LUDUS_DIFF_UNDECIDED);
    assert_true(e->p_shift > 1e-3 && e->p_total > 1e-3);
    assert_true(e->p_time < 1e-10); /* the within-run rank test alone would say otherwise */
    assert_true(e->noise_sd_call > 0.3);
    ludus_diff_info info;
    ludus_diff_get_info(p.d, &info);
    assert_int_equal(info.blocks, 8);
    assert_true(info.undecided >= 1);
    for (int q = 0; q < 3; q++) assert_false(info.frame_pct[q].verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER));
    mem m = {0};
    assert_int_equal(ludus_diff_report(p.d, LUDUS_REPORT_TEXT, mem_write, &m), 0);
    const char *near = strstr(m.p, "Near the line");
    assert_non_null(near);
    assert_non_null(strstr(near, "  Submit "));
    assert_non_null(strstr(m.p, "one run per side cannot show how much runs differ"));
    free(m.p);
    syn_pair_free(&p);
}

/* 400 frames of Frame { A-like work: Draw ~20 us, Other ~5 us }, the second
 * half drift x slower (the machine got busier half-way through NEW's run). */
static syn *drift_workload(uint64_t seed, double drift) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 400; f++) {
        double k = f >= 200 ? drift : 1.0;
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        scope(s, &t, &S_DRAW, 20000 * k, &x, 0.05);
        scope(s, &t, &S_OTHER, 5000 * k, &x, 0.05);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* Unchanged code, NEW's second half 10% slower: pooled, every site moves by
 * about +5% with a tight within-run interval (the old diff: slower work on
 * both); the blocks of NEW's run show the drift, so no time verdict. */
static void test_drift_in_one_run(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, drift_workload(7, 1.0), drift_workload(8, 1.10)), 0);
    for (uint32_t i = 0; i < ludus_diff_entry_count(p.d); i++) {
        const ludus_site_diff *e = ludus_diff_entry(p.d, i);
        assert_false(e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER | LUDUS_DIFF_MORE_TIME | LUDUS_DIFF_LESS_TIME |
                                   LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    }
    const ludus_site_diff *e = site(&p, "Draw");
    assert_true(e->shift > 0.03 && e->shift < 0.08);
    assert_true(e->verdict & LUDUS_DIFF_UNDECIDED);
    syn_pair_free(&p);
}

/* The same workload twice (other noise): no verdict of any kind, frame time
 * included. */
static void test_same_workload(void **st) {
    (void)st;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        syn_pair p;
        assert_int_equal(syn_pair_make(&p, tail_workload(seed, 1.0), tail_workload(seed + 50, 1.0)), 0);
        for (uint32_t i = 0; i < ludus_diff_entry_count(p.d); i++)
            assert_false(ludus_diff_entry(p.d, i)->verdict & LUDUS_DIFF_CHANGED);
        ludus_diff_info info;
        ludus_diff_get_info(p.d, &info);
        for (int q = 0; q < 3; q++) assert_false(info.frame_pct[q].verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER));
        syn_pair_free(&p);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tail_heavier),      cmocka_unit_test(test_inner_loop_twice),
        cmocka_unit_test(test_single_long_frame), cmocka_unit_test(test_phases_one_run_cannot_decide),
        cmocka_unit_test(test_drift_in_one_run),  cmocka_unit_test(test_same_workload),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
