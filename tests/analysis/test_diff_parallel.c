/* A diff compares its entries on several threads when there is enough to
 * share (diff.c: frames x entries): the report is the one made on one
 * thread, byte for byte, in text and JSON, for one run a side and for
 * three (the run-to-run noise's t quantiles, shared by every entry). Run
 * under TSan (label concurrency): the entries read both analyses at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_FRAME, "Frame");
static const ludus_site S_WORK[12] = {
    {"Physics", "fn", "synth.c", NULL, 100, 0}, {"Animation", "fn", "synth.c", NULL, 101, 0},
    {"AI", "fn", "synth.c", NULL, 102, 0},      {"Audio", "fn", "synth.c", NULL, 103, 0},
    {"Culling", "fn", "synth.c", NULL, 104, 0}, {"Shadows", "fn", "synth.c", NULL, 105, 0},
    {"Lights", "fn", "synth.c", NULL, 106, 0},  {"Particles", "fn", "synth.c", NULL, 107, 0},
    {"UI", "fn", "synth.c", NULL, 108, 0},      {"Network", "fn", "synth.c", NULL, 109, 0},
    {"Scripts", "fn", "synth.c", NULL, 110, 0}, {"Streaming", "fn", "synth.c", NULL, 111, 0},
};

#define FRAMES 2000

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* FRAMES frames: Frame { 12 systems of ~1 us x their scale, in varying
 * order of cost }, a mark after each. */
static syn *engine(uint64_t seed, double slower_ai) {
    syn *s = syn_new(1, 0);
    uint64_t x = seed * 2654435761u + 7, t = 0;
    for (int f = 0; f < FRAMES; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 20;
        for (int k = 0; k < 12; k++) {
            double scale = (k == 2 ? slower_ai : 1.0) * (0.9 + 0.2 * (double)(next(&x) % 1000) / 1000.0);
            uint64_t d = (uint64_t)(1000 * (1 + k % 4) * scale);
            syn_scope(s, 0, t, t + d, &S_WORK[k]);
            t += d + 5;
        }
        t += 20;
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static char *report_of(const ludus_diff *d, int format) {
    mem m = {NULL, 0};
    assert_int_equal(ludus_diff_report(d, format, mem_write, &m), 0);
    return m.p;
}

static void check_runs(uint32_t runs) {
    syn *c[6];
    ludus_analysis *a[6];
    for (uint32_t r = 0; r < 2 * runs; r++) {
        c[r] = engine(r + 1, r < runs ? 1.0 : 1.2);
        a[r] = syn_analyze(c[r], NULL);
        assert_non_null(a[r]);
    }
    char *rep[2][2];
    uint32_t entries = 0;
    for (int one = 0; one < 2; one++) {
        unsigned keep = ludus__diff_threads;
        if (one) ludus__diff_threads = 1;
        ludus_diff *d = NULL;
        assert_int_equal(ludus_diff_create_runs((const ludus_analysis *const *)a, runs,
                                                (const ludus_analysis *const *)a + runs, runs, NULL, &d),
                         0);
        ludus__diff_threads = keep;
        entries = ludus_diff_entry_count(d);
        rep[one][0] = report_of(d, LUDUS_REPORT_TEXT);
        rep[one][1] = report_of(d, LUDUS_REPORT_JSON);
        const ludus_site_diff *ai = syn_diff_find(d, "AI", 0);
        assert_non_null(ai);
        assert_true(ai->verdict & LUDUS_DIFF_SLOWER); /* what the diff is for still holds */
        ludus_diff_destroy(d);
    }
    /* enough to share: the threads were used (where the machine has two cores) */
    lt_check(
        lt_what("%u runs a side: %u entries x %d frames reach the diff's bar for threads", runs, entries, 2 * FRAMES),
        (uint64_t)entries * 2 * FRAMES >= 100000);
    for (int f = 0; f < 2; f++) {
        lt_check_str(lt_what("%u runs a side: the %s report on threads", runs, f ? "JSON" : "text"), rep[1][f],
                     rep[0][f]);
        free(rep[0][f]);
        free(rep[1][f]);
    }
    printf("%u run(s) a side: %u entries, the reports on threads and on one the same\n", runs, entries);
    for (uint32_t r = 0; r < 2 * runs; r++) {
        ludus_analysis_destroy(a[r]);
        syn_free(c[r]);
    }
}

static void test_same_report(void **state) {
    (void)state;
    check_runs(1);
    check_runs(3);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_report)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
