/* Diff verdicts on synthetic captures: identical workloads (same or other
 * noise) diff to no change; one site 20% slower diffs to exactly that site
 * as slower work; one site run twice per frame diffs to more work; gates
 * trip only on significant changes. */
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

/* 300 frames of Frame { X } plus an uninstrumented gap: X ~1000 ns; with
 * skew, 9 frames in 10 take 500 ns and the tenth 10000 ns (the mean per
 * frame up 45%, the typical frame's total down 50%). */
static syn *skewed(uint64_t seed, int skew, uint64_t gap) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double noise = 0.95 + 0.1 * (double)(x % 1000) / 1000.0;
        uint64_t d = (uint64_t)((!skew ? 1000 : f % 10 ? 500 : 10000) * noise);
        syn_scope(s, 0, t, t + d, &S_A);
        t += d + 10;
        syn_e(s, 0, t);
        t += gap; /* outside every scope */
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

/* The diff's text report (the caller frees it). */
static char *text_of(const ludus_diff *d) {
    mem m = {NULL, 0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_TEXT, mem_write, &m), 0);
    return m.p;
}

static uint32_t changed_entries(const ludus_diff *d) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < ludus_diff_entry_count(d); i++)
        if (ludus_diff_entry(d, i)->verdict & (LUDUS_DIFF_CHANGED | LUDUS_DIFF_NEW | LUDUS_DIFF_GONE)) n++;
    return n;
}

static void check_no_change(uint64_t seed_a, uint64_t seed_b) {
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, workload(seed_a, 1.0, 1), workload(seed_b, 1.0, 1)), 0);
    ludus_diff *d = p.d;
    assert_int_equal(changed_entries(d), 0);
    const ludus_site_diff *e = syn_diff_find(d, "B", 0);
    assert_non_null(e);
    if (seed_a == seed_b) {
        assert_true(e->p_time == 1.0);
        assert_true(e->rel[LUDUS_METRIC_P90] == 0.0);
    }
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("p90 > +5%", &g), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), 0);
    syn_pair_free(&p);
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
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, workload(7, 1.0, 1), workload(8, 1.2, 1)), 0);
    ludus_diff *d = p.d;
    const ludus_site_diff *e = syn_diff_find(d, "B", 0);
    assert_true(e->verdict & LUDUS_DIFF_SLOWER);
    assert_false(e->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK));
    assert_true(e->rel[LUDUS_METRIC_P50] > 0.15 && e->rel[LUDUS_METRIC_P50] < 0.25);
    assert_true(e->rel[LUDUS_METRIC_MEAN] > 0.17 && e->rel[LUDUS_METRIC_MEAN] < 0.23);
    /* exactly that site (and its path): nothing else changed */
    for (uint32_t i = 0; i < ludus_diff_entry_count(d); i++) {
        const ludus_site_diff *x = ludus_diff_entry(d, i);
        if (!strcmp(x->name, "B") || !strcmp(x->name, "Frame/B")) {
            assert_true(x->verdict & LUDUS_DIFF_SLOWER);
            continue;
        }
        assert_false(x->verdict & LUDUS_DIFF_CHANGED);
    }
    /* the parent is flagged as slower inside, not slower work */
    assert_true(syn_diff_find(d, "Frame", 0)->verdict & LUDUS_DIFF_SLOWER_INSIDE);
    ludus_gate g[2];
    assert_int_equal(ludus_gate_parse("p90 > +5%", &g[0]), 0);
    assert_int_equal(ludus_gate_parse("calls>+5", &g[1]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 2); /* site B and path Frame/B */
    assert_int_equal(ludus_diff_check_gates(d, &g[1], 1, NULL, NULL), 0);
    assert_int_equal(ludus_gate_parse("p90 > +30%", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 0);
    syn_pair_free(&p);
}

static void test_more_work(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, workload(7, 1.0, 1), workload(8, 1.0, 2)), 0);
    ludus_diff *d = p.d;
    const ludus_site_diff *e = syn_diff_find(d, "B", 0);
    assert_true(e->verdict & LUDUS_DIFF_MORE_WORK);
    assert_false(e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_FASTER));
    assert_true(e->base_calls_per_frame == 1.0 && e->new_calls_per_frame == 2.0);
    assert_true(e->rel[LUDUS_METRIC_CALLS] == 1.0);
    assert_false(syn_diff_find(d, "A", 0)->verdict & LUDUS_DIFF_CHANGED);
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("calls > +50%", &g), 0);
    assert_true(ludus_diff_check_gates(d, &g, 1, NULL, NULL) >= 1);
    assert_int_equal(ludus_gate_parse("p50 > +5%", &g), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), 0);
    syn_pair_free(&p);
}

/* Gates on the verdict itself: any site or path, or one by NAME. */
static void test_verdict_gates(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, workload(7, 1.0, 1), workload(8, 1.2, 1)), 0);
    syn *c = workload(9, 1.0, 1);
    ludus_analysis *aa2, *cc;
    ludus_diff *d = p.d, *same = diff_of(p.sa, c, &aa2, &cc);
    ludus_gate g[4];
    assert_int_equal(ludus_gate_parse("slower", &g[0]), 0);
    assert_int_equal(g[0].metric, LUDUS_METRIC_VERDICT);
    assert_int_equal(g[0].verdict, LUDUS_DIFF_SLOWER);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 2); /* site B and path Frame/B */
    assert_int_equal(ludus_diff_check_gates(same, &g[0], 1, NULL, NULL), 0);
    assert_int_equal(ludus_gate_parse("slower B", &g[1]), 0);
    assert_string_equal(g[1].counter, "B");
    assert_int_equal(ludus_diff_check_gates(d, &g[1], 1, NULL, NULL), 1);
    assert_int_equal(ludus_gate_parse("slower A", &g[2]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[2], 1, NULL, NULL), 0);
    assert_int_equal(ludus_gate_parse("more time per frame B", &g[3]), 0);
    assert_int_equal(g[3].verdict, LUDUS_DIFF_MORE_TIME);
    assert_int_equal(ludus_diff_check_gates(d, &g[3], 1, NULL, NULL),
                     (syn_diff_find(d, "B", 0)->verdict & LUDUS_DIFF_MORE_TIME) ? 1 : 0);
    assert_true(syn_diff_find(d, "B", 0)->verdict & LUDUS_DIFF_MORE_TIME);
    assert_int_equal(ludus_gate_parse("faster", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 0);
    assert_int_equal(ludus_gate_parse("more work", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 0);
    /* a metric gate on one site */
    assert_int_equal(ludus_gate_parse("p50 B > +10%", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 1);
    assert_int_equal(ludus_gate_parse("p50 Frame/B > +10%", &g[0]), 0);
    assert_int_equal(ludus_diff_check_gates(d, &g[0], 1, NULL, NULL), 1);
    /* the text report lists the tripped gates first */
    assert_int_equal(ludus_gate_parse("slower", &g[0]), 0);
    assert_int_equal(ludus_diff_set_gates(d, g, 1), 2);
    char *text = text_of(d);
    assert_true(!strncmp(text, "Gates tripped: 2\ngate 'slower' tripped: ", 40));
    free(text);
    /* and the HTML report of NEW: the tripped gates, then the diff, then NEW's own report */
    mem m = {NULL, 0};
    assert_int_equal(ludus_analysis_report(p.b, d, LUDUS_REPORT_HTML, NULL, mem_write, &m), 0);
    const char *gates = strstr(m.p, "<h2>Gates tripped</h2>"), *diff = strstr(m.p, "<h2>Diff against BASE</h2>"),
               *frames = strstr(m.p, "<h2>Frame time</h2>"), *capture = strstr(m.p, "Capture ");
    assert_true(gates && diff && frames && capture);
    assert_true(gates < diff && diff < capture && capture < frames);
    assert_non_null(strstr(gates, "tripped: site B: more time per frame + slower work\n"));
    free(m.p);
    ludus_diff_destroy(same);
    ludus_analysis_destroy(aa2);
    ludus_analysis_destroy(cc);
    syn_free(c);
    syn_pair_free(&p);
}

/* A gate naming what neither side has would guard nothing: refused, with
 * the nearest names. */
static void test_gate_unknown_name(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, workload(7, 1.0, 1), workload(8, 1.0, 1)), 0);
    ludus_diff *d = p.d;
    ludus_gate g;
    const char *known[] = {"slower B", "p90 Frame/B > +5%", "more work", "p90 > +5%", "errors > +0%"};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        assert_int_equal(ludus_gate_parse(known[i], &g), 0);
        assert_int_equal(ludus_diff_gate_validate(d, &g), 0);
    }
    assert_int_equal(ludus_gate_parse("slower Fram", &g), 0);
    assert_int_equal(ludus_diff_gate_validate(d, &g), LUDUS_EINVAL);
    assert_non_null(strstr(ludus_last_error_detail(), "no site or path named 'Fram'"));
    assert_non_null(strstr(ludus_last_error_detail(), "nearest: 'Frame'"));
    assert_int_equal(ludus_gate_parse("p50 Frame/b > +5%", &g), 0);
    assert_int_equal(ludus_diff_gate_validate(d, &g), LUDUS_EINVAL);
    assert_non_null(strstr(ludus_last_error_detail(), "'Frame/B'"));
    assert_int_equal(ludus_gate_parse("lock JobQeue > +10%", &g), 0);
    assert_int_equal(ludus_diff_gate_validate(d, &g), LUDUS_EINVAL);
    assert_non_null(strstr(ludus_last_error_detail(), "no lock named 'JobQeue'"));
    assert_int_equal(ludus_gate_parse("counter Memory/Jobs peak live byte > +1%", &g), 0);
    assert_int_equal(ludus_diff_gate_validate(d, &g), LUDUS_EINVAL);
    assert_non_null(strstr(ludus_last_error_detail(), "no counter named"));
    syn_pair_free(&p);
}

/* No line whose figures contradict its words: a time-per-frame verdict
 * agrees with the means per frame shown beside it, and "No significant
 * change." never follows a frame time that changed. */
static void test_one_statement_per_fact(void **st) {
    (void)st;
    syn_pair p;
    assert_int_equal(syn_pair_make(&p, skewed(7, 0, 10), skewed(8, 1, 10)), 0);
    const ludus_site_diff *e = syn_diff_find(p.d, "A", 0);
    assert_true(e->new_total_ns > e->base_total_ns * 1.3); /* the mean per frame up */
    assert_true(e->rel_total < -0.3);                      /* the typical frame's total down */
    assert_false(e->verdict & (LUDUS_DIFF_LESS_TIME | LUDUS_DIFF_MORE_TIME));
    char *text = text_of(p.d);
    if (getenv("SHOW_DIFF")) fputs(text, stderr);
    const char *line = strstr(text, "\n  A ");
    assert_non_null(line);
    const char *eol = strchr(line + 1, '\n');
    const char *less = strstr(line, "less time per frame");
    assert_true(!less || less > eol); /* the verdict column says no such thing */
    assert_non_null(strstr(text, "move apart: no verdict"));
    free(text);
    syn_pair_free(&p);
    /* frames 50% longer outside every scope: the frame time is slower, no site changed */
    assert_int_equal(syn_pair_make(&p, skewed(7, 0, 1000), skewed(8, 0, 2000)), 0);
    ludus_diff_info info;
    ludus_diff_get_info(p.d, &info);
    assert_int_equal(info.frame_pct[0].verdict, LUDUS_DIFF_SLOWER);
    assert_int_equal(changed_entries(p.d), 0);
    text = text_of(p.d);
    assert_null(strstr(text, "No significant change."));
    free(text);
    syn_pair_free(&p);
    /* one run per side: the verdict column says what it cannot conclude */
    assert_int_equal(syn_pair_make(&p, workload(7, 1.0, 1), workload(8, 1.2, 1)), 0);
    text = text_of(p.d);
    line = strstr(text, "\n  B ");
    assert_non_null(line);
    eol = strchr(line + 1, '\n');
    const char *note = strstr(line, "one run per side: these runs differ");
    assert_true(note && note < eol);
    free(text);
    syn_pair_free(&p);
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
    assert_int_equal(ludus_gate_parse("slower > +5%", &g), LUDUS_EINVAL); /* a verdict has no threshold */
    assert_int_equal(ludus_gate_parse("slowest", &g), LUDUS_EINVAL);
    assert_int_equal(ludus_gate_parse("verdict > 5%", &g), LUDUS_EINVAL);
    assert_int_equal(ludus_gate_parse("  less time per frame  Update ", &g), 0);
    assert_int_equal(g.verdict, LUDUS_DIFF_LESS_TIME);
    assert_string_equal(g.counter, "Update");
    assert_int_equal(ludus_gate_parse("slower work", &g), 0);
    assert_int_equal(g.verdict, LUDUS_DIFF_SLOWER);
    assert_string_equal(g.counter, "");
}

/* The machine changed: 300 frames of Frame { A, B, C, D, E } (1000, 2000,
 * 500, 1500, 800 ns, +-5% noise), every duration and gap times `machine`
 * (a run on a machine that got slower: the timestamps scaled), E's also
 * times e_scale (the code). */
SITE(S_D, "D");
SITE(S_E, "E");
static syn *machine_run(uint64_t seed, double machine, double e_scale) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 1, t = 0;
    const ludus_site *order[5] = {&S_A, &S_B, &S_C, &S_D, &S_E};
    const double base[5] = {1000, 2000, 500, 1500, 800};
    for (int f = 0; f < 300; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += (uint64_t)(10 * machine);
        for (int k = 0; k < 5; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            double noise = 0.95 + 0.1 * (double)(x % 1000) / 1000.0;
            uint64_t d = (uint64_t)(base[k] * noise * machine * (k == 4 ? e_scale : 1.0));
            syn_scope(s, 0, t, t + d, order[k]);
            t += d;
        }
        t += (uint64_t)(10 * machine);
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

/* The default gates and which sites trip 'slower' (a bit per site A..E). */
static uint32_t machine_diff(double e_scale, double *shift, uint32_t *tripped, int *said) {
    syn *a = machine_run(7, 1.0, 1.0), *b = machine_run(8, 1.2, e_scale);
    ludus_analysis *aa, *bb;
    ludus_diff *d = diff_of(a, b, &aa, &bb);
    ludus_diff_info info;
    ludus_diff_get_info(d, &info);
    *shift = info.machine_shift;
    ludus_gate g[2];
    assert_int_equal(ludus_gate_parse("slower", &g[0]), 0);
    assert_int_equal(ludus_gate_parse("more time per frame", &g[1]), 0);
    g[0].sites_only = g[1].sites_only = 1;
    *tripped = ludus_diff_check_gates(d, g, 2, NULL, NULL);
    uint32_t slower = 0;
    const char *names[5] = {"A", "B", "C", "D", "E"};
    for (int k = 0; k < 5; k++) {
        const ludus_site_diff *e = syn_diff_find(d, names[k], 0);
        assert_non_null(e);
        if (e->verdict & (LUDUS_DIFF_SLOWER | LUDUS_DIFF_MORE_TIME)) slower |= 1u << k;
    }
    mem m = {NULL, 0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_TEXT, mem_write, &m), 0);
    *said = strstr(m.p, "The machine changed: every site 2") != NULL; /* 20.x% slower */
    if (getenv("SHOW_DIFF")) fprintf(stderr, "%s\n", m.p);
    free(m.p);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(aa);
    ludus_analysis_destroy(bb);
    syn_free(a);
    syn_free(b);
    return slower;
}

static void test_machine_changed(void **st) {
    (void)st;
    double shift;
    uint32_t tripped;
    int said;
    /* every site 20% slower together: the machine, not the code */
    uint32_t slower = machine_diff(1.0, &shift, &tripped, &said);
    fprintf(stderr, "machine +20%%: shift %+.1f%%, %u gate(s) tripped, sites slower 0x%x\n", shift * 100, tripped,
            slower);
    assert_true(shift > 0.17 && shift < 0.23);
    assert_true(said);
    assert_int_equal(tripped, 0);
    assert_int_equal(slower, 0);
    /* and E 15% slower beyond it: E alone is found */
    slower = machine_diff(1.15, &shift, &tripped, &said);
    fprintf(stderr, "machine +20%%, E +15%%: shift %+.1f%%, %u gate(s) tripped, sites slower 0x%x\n", shift * 100,
            tripped, slower);
    assert_true(shift > 0.17 && shift < 0.23);
    assert_int_equal(slower, 1u << 4);
    assert_true(tripped >= 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical),
        cmocka_unit_test(test_same_workload_other_noise),
        cmocka_unit_test(test_slower),
        cmocka_unit_test(test_more_work),
        cmocka_unit_test(test_gate_parse),
        cmocka_unit_test(test_verdict_gates),
        cmocka_unit_test(test_gate_unknown_name),
        cmocka_unit_test(test_one_statement_per_fact),
        cmocka_unit_test(test_machine_changed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
