/* Lock waits in the analysis, on synthetic captures with known answers:
 * 100 frames of exactly 10 us (marks on the main thread); worker 1 waits
 * 500 ns on JobQueue in every frame, worker 2 waits 1000 ns on it in every
 * even frame and 3000 ns on Assets in frame 3, plus one wait on JobQueue
 * before the first mark (in the totals, not in any frame). So JobQueue:
 * 151 waits, 1000 ns per frame, 10% of the frame, 1500 ns in its worst
 * frame, 2 threads; Assets: 30 ns per frame. The reports say so in text,
 * JSON and HTML; the diff against a capture where worker 1 waits twice as
 * long finds JobQueue "more waiting" (+50%) and nothing else, and the
 * "lock NAME" gates trip on it alone. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

#define LOCK_SITE(var, nm) static const ludus_site var = {nm, "", "", "lock", 0, LUDUS_SITE_TEXT}
LOCK_SITE(S_QUEUE, "JobQueue");
LOCK_SITE(S_ASSETS, "Assets");
LOCK_SITE(S_OLD, "OldLock");
LOCK_SITE(S_NEWL, "NewLock");
SITE(S_WORK, "Work");

#define FRAMES 100
#define F 10000

/* q1: worker 1's wait per frame; extra: the lock only this capture has. */
static syn *capture(uint64_t q1, const ludus_site *extra) {
    syn *s = syn_new(3, (int64_t)(FRAMES + 2) * F);
    syn_scope(s, 1, 10, 60, &S_QUEUE); /* before the first mark */
    for (uint64_t k = 1; k <= FRAMES; k++) {
        uint64_t t = k * F;
        syn_frame(s, 0, t);
        syn_scope(s, 0, t + 10, t + 9000, &S_WORK);
        syn_scope(s, 1, t + 100, t + 100 + q1, &S_QUEUE);
        if (k % 2 == 0) syn_scope(s, 2, t + 200, t + 1200, &S_QUEUE);
        if (k == 3) syn_scope(s, 2, t + 2000, t + 5000, &S_ASSETS);
        if (k == 5 && extra) syn_scope(s, 2, t + 2000, t + 2400, extra);
    }
    syn_frame(s, 0, (FRAMES + 1) * F);
    return s;
}

static void test_lock_stats(void **st) {
    (void)st;
    syn *s = capture(500, NULL);
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_in_window, FRAMES);
    assert_true(sum.frame_time.mean_ns == F);

    assert_int_equal(ludus_analysis_lock_count(a), 2); /* Work is no lock */
    assert_int_equal(ludus_analysis_find_lock(a, "Work"), -1);
    const ludus_lock_stats *q = ludus_analysis_lock(a, 0); /* the most waited first */
    assert_string_equal(q->name, "JobQueue");
    assert_int_equal(q->wait.count, 151);
    assert_int_equal(q->wait.total_ns, 50 + 100 * 500 + 50 * 1000);
    assert_int_equal(q->wait.min_ns, 50);
    assert_int_equal(q->wait.max_ns, 1000);
    assert_true(llabs(q->wait.p50_ns - 500) <= 4);  /* histogram: within 1/128 */
    assert_true(llabs(q->wait.p99_ns - 1000) <= 8); /* 151 values: rank 150 is a 1000 */
    assert_true(q->waits_per_frame == 1.5);
    assert_true(q->wait_per_frame_ns == 1000.0);
    assert_true(fabs(q->share_of_frame - 0.1) < 1e-12);
    assert_int_equal(q->max_frame_wait_ns, 1500);
    assert_int_equal(q->threads, 2);
    assert_string_equal(q->file, "");

    int64_t k = ludus_analysis_find_lock(a, "Assets");
    assert_int_equal(k, 1);
    const ludus_lock_stats *as = ludus_analysis_lock(a, 1);
    assert_int_equal(as->wait.count, 1);
    assert_true(as->wait_per_frame_ns == 30.0);
    assert_true(fabs(as->share_of_frame - 0.003) < 1e-12);
    assert_int_equal(as->max_frame_wait_ns, 3000);
    assert_null(ludus_analysis_lock(a, 2));

    /* the reports */
    mem m = {NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\nLock waits ("));
    const char *line = strstr(m.p, "\nJobQueue ");
    assert_non_null(line);
    assert_non_null(strstr(line, "151"));
    assert_non_null(strstr(line, "1.50"));
    assert_non_null(strstr(line, "1.00 us")); /* wait per frame */
    assert_non_null(strstr(line, "10.00%"));
    assert_non_null(strstr(line, "named"));
    free(m.p);
    m = (mem){NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"locks\":[\n{\"name\":\"JobQueue\",\"file\":\"\",\"line\":0,"));
    assert_non_null(strstr(m.p, "\"waits\":151,\"waits_per_frame\":1.5000,\"wait_per_frame_ns\":1000.0,"
                                "\"share_of_frame\":0.100000,\"max_frame_wait_ns\":1500,\"threads\":2,\"wait\":{"
                                "\"count\":151,\"total_ns\":100050,"));
    free(m.p);
    m = (mem){NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_HTML, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "<h2>Lock waits</h2>"));
    assert_non_null(strstr(m.p, "<tr><td>JobQueue</td><td>151</td><td>1.50</td>"));
    assert_non_null(strstr(m.p, "<td>10.00%</td>"));
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* No lock waits: no section in the text report, an empty list in JSON. */
static void test_no_locks(void **st) {
    (void)st;
    syn *s = syn_new(1, 3 * F);
    syn_frame(s, 0, F);
    syn_scope(s, 0, F + 10, F + 100, &S_WORK);
    syn_frame(s, 0, 2 * F);
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_int_equal(ludus_analysis_lock_count(a), 0);
    mem m = {NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, mem_write, &m), 0);
    assert_null(strstr(m.p, "Lock waits"));
    free(m.p);
    m = (mem){NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"locks\":[]"));
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

static void test_lock_diff(void **st) {
    (void)st;
    syn *sa = capture(500, &S_OLD), *sb = capture(1000, &S_NEWL);
    ludus_analysis *a = syn_analyze(sa, NULL), *b = syn_analyze(sb, NULL);
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create(a, b, NULL, &d), 0);
    assert_int_equal(ludus_diff_lock_count(d), 4);
    const ludus_lock_diff *q = NULL, *as = NULL, *gone = NULL, *fresh = NULL;
    for (uint32_t i = 0; i < ludus_diff_lock_count(d); i++) {
        const ludus_lock_diff *l = ludus_diff_lock(d, i);
        if (!strcmp(l->name, "JobQueue")) q = l;
        if (!strcmp(l->name, "Assets")) as = l;
        if (!strcmp(l->name, "OldLock")) gone = l;
        if (!strcmp(l->name, "NewLock")) fresh = l;
    }
    assert_null(ludus_diff_lock(d, 4));
    assert_true(q && as && gone && fresh);
    assert_int_equal(q->verdict, LUDUS_DIFF_MORE_WORK);
    assert_true(q->base_wait_per_frame_ns == 1000.0 && q->new_wait_per_frame_ns == 1500.0);
    assert_true(fabs(q->rel - 0.5) < 1e-12);
    assert_true(fabs(q->base_share - 0.1) < 1e-12 && fabs(q->new_share - 0.15) < 1e-12);
    assert_int_equal(q->base_waits, 151);
    assert_int_equal(q->new_waits, 151);
    assert_true(q->p < 1e-6);
    assert_int_equal(as->verdict, 0);
    assert_true(as->p == 1.0 || as->p > 0.5); /* identical per-frame values */
    assert_int_equal(gone->verdict, LUDUS_DIFF_GONE);
    assert_int_equal(fresh->verdict, LUDUS_DIFF_NEW);

    /* gates */
    ludus_gate g[4];
    assert_int_equal(ludus_gate_parse("lock JobQueue > +20%", &g[0]), 0);
    assert_int_equal(g[0].metric, LUDUS_METRIC_LOCK);
    assert_string_equal(g[0].counter, "JobQueue");
    assert_int_equal(ludus_gate_parse("lock JobQueue > +60%", &g[1]), 0);
    assert_int_equal(ludus_gate_parse("lock Assets > +1%", &g[2]), 0);
    assert_int_equal(ludus_gate_parse("lock JobQueue < -5%", &g[3]), 0);
    assert_int_equal(ludus_gate_parse("lock > +5%", &g[3]), LUDUS_EINVAL);
    assert_int_equal(ludus_gate_parse("lock JobQueue < -5%", &g[3]), 0);
    mem m = {NULL, 0};
    assert_int_equal(ludus_diff_check_gates(d, g, 4, mem_write, &m), 1);
    assert_non_null(
        strstr(m.p, "gate 'lock JobQueue > +20%' tripped: lock JobQueue wait per frame +50.0% (more waiting)"));
    free(m.p);
    /* a counter gate of the same name does not look at locks, nor a lock gate at sites */
    ludus_gate c;
    assert_int_equal(ludus_gate_parse("counter JobQueue > +1%", &c), 0);
    assert_int_equal(ludus_diff_check_gates(d, &c, 1, NULL, NULL), 0);

    /* the diff's reports */
    m = (mem){NULL, 0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_TEXT, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\nLock waits per frame (Mann-Whitney U"));
    const char *line = strstr(m.p, "  JobQueue ");
    assert_non_null(line);
    assert_non_null(strstr(line, "more waiting"));
    assert_non_null(strstr(line, "wait/frame 1.00 us -> 1.50 us (+50.0%)"));
    assert_non_null(strstr(line, "of frame 10.00% -> 15.00%"));
    assert_null(strstr(m.p, "  Assets "));
    free(m.p);
    m = (mem){NULL, 0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_JSON, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"lock_tests\":2,\"locks\":["));
    assert_non_null(strstr(m.p, "{\"name\":\"JobQueue\",\"verdict\":\"more waiting\",\"flags\":1,\"waits\":[151,151],"
                                "\"wait_per_frame_ns\":[1000.0,1500.0],\"share_of_frame\":[0.100000,0.150000],"));
    assert_non_null(strstr(m.p, "{\"name\":\"OldLock\",\"verdict\":\"gone\""));
    free(m.p);
    m = (mem){NULL, 0};
    assert_int_equal(ludus_analysis_report(b, d, LUDUS_REPORT_HTML, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "<h3>Lock waits against BASE</h3>"));
    assert_non_null(strstr(m.p, "<tr><td>JobQueue</td><td class=\"bad\">more waiting</td>"));
    free(m.p);
    ludus_diff_destroy(d);

    /* the same capture against itself: no change, no gate */
    assert_int_equal(ludus_diff_create(a, a, NULL, &d), 0);
    for (uint32_t i = 0; i < ludus_diff_lock_count(d); i++) assert_int_equal(ludus_diff_lock(d, i)->verdict, 0);
    assert_int_equal(ludus_diff_check_gates(d, g, 4, NULL, NULL), 0);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(a);
    ludus_analysis_destroy(b);
    syn_free(sa);
    syn_free(sb);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lock_stats),
        cmocka_unit_test(test_no_locks),
        cmocka_unit_test(test_lock_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
