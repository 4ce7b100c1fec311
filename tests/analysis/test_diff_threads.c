/* Verdicts across threads: a job system whose jobs run on the caller or on
 * a worker, the share stolen drawn per run (placement unstable between
 * runs), with a lock wait whose count follows the scheduler. A against A'
 * (other seeds), 1 and 3 runs per side, 20 pairs each: no work verdict and
 * no default gate ('slower', 'more time per frame') tripped; one site made
 * 15% slower is found by 'slower' in every pair with 3 runs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_FRAME, "Frame");
SITE(S_UPDATE, "Update");
SITE(S_JOB, "Job");
SITE(S_LOOP, "WorkerLoop");
static const ludus_site S_WAIT = {"JobQueue", "fn", "synth.c", "lock", __LINE__, 0};

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}
static double noise(uint64_t *x) {
    return 0.95 + 0.1 * (double)(next(x) % 1000) / 1000.0;
}

/* 300 frames on thread 0: Frame { Update { own work, the jobs it keeps,
 * JobQueue waits until the worker is done } }; thread 1: WorkerLoop { the
 * jobs it stole }. 8 jobs of ~1000 ns x job_scale per frame. With
 * plain_wait, Update waits for the worker in its own time (no JobQueue
 * scope): a parent that only waits for its children's work elsewhere. */
static int plain_wait;
static syn *stealing(uint64_t seed, double job_scale) {
    syn *s = syn_new(2, 0);
    uint64_t x = seed * 2654435761u + 12345, t = 0;
    next(&x);
    double steal = 0.2 + 0.6 * (double)(next(&x) % 1000) / 1000.0; /* this run's share */
    for (int f = 0; f < 300; f++) {
        uint64_t t0 = t, w = t0 + 20;
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        syn_b(s, 0, t, &S_UPDATE);
        t += (uint64_t)(200 * noise(&x));
        syn_b(s, 1, w, &S_LOOP);
        w += 10;
        for (int j = 0; j < 8; j++) {
            uint64_t d = (uint64_t)(1000 * job_scale * noise(&x));
            if ((double)(next(&x) % 1000) / 1000.0 < steal) {
                syn_scope(s, 1, w, w + d, &S_JOB);
                w += d;
            } else {
                syn_scope(s, 0, t, t + d, &S_JOB);
                t += d;
            }
        }
        w += 10;
        syn_e(s, 1, w);
        /* waits until the worker is done, in 1 to 3 waits (the scheduler's count) */
        int waits = 1 + (int)(next(&x) % 3);
        for (int k = 0; k < waits && t < w + 5; k++) {
            if (plain_wait) {
                t = w + 5;
                break;
            }
            uint64_t until = k == waits - 1 ? w + 5 : t + (w + 5 - t) / 2;
            syn_scope(s, 0, t, until, &S_WAIT);
            t = until;
        }
        t += 10;
        syn_e(s, 0, t);
        t += 10;
        syn_e(s, 0, t);
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

typedef struct verdicts {
    uint32_t work;    /* entries with more or less work */
    uint32_t tripped; /* the default gates */
    uint32_t job_slower;
    uint32_t update; /* site Update's verdict */
} verdicts;

static verdicts compare(uint64_t seed, uint32_t runs, double new_scale) {
    syn *c[6];
    ludus_analysis *a[6];
    for (uint32_t r = 0; r < 2 * runs; r++) {
        c[r] = stealing(seed * 16 + r, r < runs ? 1.0 : new_scale);
        a[r] = syn_analyze(c[r], NULL);
        assert_non_null(a[r]);
    }
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create_runs((const ludus_analysis *const *)a, runs,
                                            (const ludus_analysis *const *)a + runs, runs, NULL, &d),
                     0);
    verdicts v = {0, 0, 0, 0};
    const ludus_site_diff *up = syn_diff_find(d, "Update", 0);
    assert_non_null(up);
    v.update = up->verdict;
    for (uint32_t i = 0; i < ludus_diff_entry_count(d); i++)
        if (ludus_diff_entry(d, i)->verdict & (LUDUS_DIFF_MORE_WORK | LUDUS_DIFF_LESS_WORK)) v.work++;
    ludus_gate g[2];
    assert_int_equal(ludus_gate_parse("slower", &g[0]), 0);
    assert_int_equal(ludus_gate_parse("more time per frame", &g[1]), 0);
    v.tripped = ludus_diff_check_gates(d, g, 2, NULL, NULL);
    assert_int_equal(ludus_gate_parse("slower Job", &g[0]), 0);
    v.job_slower = ludus_diff_check_gates(d, g, 1, NULL, NULL);
    if (getenv("SHOW_DIFF") && (v.work || v.tripped)) {
        mem m = {NULL, 0};
        ludus_diff_report(d, LUDUS_REPORT_TEXT, mem_write, &m);
        fprintf(stderr, "seed %llu runs %u:\n%s\n", (unsigned long long)seed, runs, m.p);
        free(m.p);
    }
    ludus_diff_destroy(d);
    for (uint32_t r = 0; r < 2 * runs; r++) {
        ludus_analysis_destroy(a[r]);
        syn_free(c[r]);
    }
    return v;
}

static void check_same_code(uint32_t runs) {
    uint32_t work = 0, tripped = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        verdicts v = compare(seed, runs, 1.0);
        work += v.work != 0;
        tripped += v.tripped != 0;
    }
    fprintf(stderr, "A vs A', %u run(s) per side: %u of 20 pairs with a work verdict, %u with a tripped gate\n", runs,
            work, tripped);
    assert_int_equal(work, 0);
    assert_int_equal(tripped, 0);
}

static void test_same_code_one_run(void **st) {
    (void)st;
    check_same_code(1);
}

static void test_same_code_three_runs(void **st) {
    (void)st;
    check_same_code(3);
}

static void test_job_slower_found(void **st) {
    (void)st;
    uint32_t found = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) found += compare(seed, 3, 1.15).job_slower != 0;
    fprintf(stderr, "+15%% in Job, 3 runs per side: 'slower Job' tripped in %u of 20 pairs\n", found);
    assert_true(found >= 19);
}

/* A parent that only waits (plain_wait: Update's own time is the wait for
 * the worker): the worker's share moves between runs, and with it the
 * wait; same code gives no verdict on Update (no work, no slower, no more
 * time per frame), and Job made 15% slower makes Update wait longer, not
 * work slower. */
static void check_waiting_parent(uint32_t runs) {
    plain_wait = 1;
    uint32_t work = 0, tripped = 0, update = 0, waited = 0, found = 0, longer = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        verdicts v = compare(seed, runs, 1.0);
        work += v.work != 0;
        tripped += v.tripped != 0;
        update += (v.update & LUDUS_DIFF_CHANGED) != 0;
        verdicts s = compare(seed, runs, 1.15);
        waited += (s.update & LUDUS_DIFF_CHANGED) != 0;
        longer += (s.update & LUDUS_DIFF_WAITED_LONGER) != 0;
        found += s.job_slower != 0;
    }
    plain_wait = 0;
    fprintf(stderr,
            "waiting parent, %u run(s) per side: A vs A' %u of 20 pairs with a work verdict, %u with a tripped "
            "gate, %u with a verdict on Update; Job +15%%: %u with a verdict on Update, %u with 'waited longer', "
            "Job found in %u\n",
            runs, work, tripped, update, waited, longer, found);
    assert_int_equal(work, 0);
    assert_int_equal(tripped, 0);
    assert_int_equal(update, 0);
    assert_int_equal(waited, 0);
    if (runs == 1) assert_true(longer >= 1); /* judged as a wait, not as work */
    if (runs == 3) assert_true(found >= 19);
}

static void test_waiting_parent_one_run(void **st) {
    (void)st;
    check_waiting_parent(1);
}

static void test_waiting_parent_three_runs(void **st) {
    (void)st;
    check_waiting_parent(3);
}

/* --gate-sites-only: gates judge sites, never paths (a named path still). */
static void test_sites_only(void **st) {
    (void)st;
    syn *a = stealing(1, 1.0), *b = stealing(2, 1.15);
    ludus_analysis *aa = syn_analyze(a, NULL), *bb = syn_analyze(b, NULL);
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create(aa, bb, NULL, &d), 0);
    ludus_gate g;
    assert_int_equal(ludus_gate_parse("slower", &g), 0);
    uint32_t all = ludus_diff_check_gates(d, &g, 1, NULL, NULL);
    g.sites_only = 1;
    uint32_t sites = ludus_diff_check_gates(d, &g, 1, NULL, NULL);
    assert_true(sites >= 1 && sites < all); /* site Job; its paths only without sites_only */
    assert_int_equal(ludus_gate_parse("slower WorkerLoop/Job", &g), 0);
    g.sites_only = 1;
    assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), 1);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(aa);
    ludus_analysis_destroy(bb);
    syn_free(a);
    syn_free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_code_one_run),      cmocka_unit_test(test_same_code_three_runs),
        cmocka_unit_test(test_job_slower_found),       cmocka_unit_test(test_sites_only),
        cmocka_unit_test(test_waiting_parent_one_run), cmocka_unit_test(test_waiting_parent_three_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
