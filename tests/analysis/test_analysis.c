/* Analysis correctness on synthetic captures with known answers: nesting and
 * exclusive time, recursion, zero-length scopes, children that overlap in
 * time on one thread, scopes spanning frame boundaries, threads without
 * frames, incomplete and dropped data, hitches, windows, percentile error,
 * and the report formats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_A, "A");
SITE(S_B, "B");
SITE(S_C, "C");
SITE(S_R, "R");
SITE(S_Z, "Z");
SITE(S_F, "F");
SITE(S_S, "S");
SITE(S_W, "W");
SITE(S_H, "H");

static const ludus_site_stats *site(const ludus_analysis *a, const char *name) {
    int64_t i = ludus_analysis_find_site(a, name);
    assert_true(i >= 0);
    return ludus_analysis_site(a, (uint32_t)i);
}
static const ludus_path_stats *path(const ludus_analysis *a, const char *p) {
    int64_t i = ludus_analysis_find_path(a, p);
    assert_true(i >= 0);
    return ludus_analysis_path(a, (uint32_t)i);
}

static void test_nesting(void **st) {
    (void)st;
    syn *s = syn_new(1, 1000);
    syn_b(s, 0, 0, &S_A);
    syn_scope(s, 0, 10, 30, &S_B);
    syn_scope(s, 0, 40, 70, &S_C);
    syn_e(s, 0, 100);
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    const ludus_site_stats *A = site(a, "A");
    assert_int_equal(A->calls, 1);
    assert_int_equal(A->inclusive.total_ns, 100);
    assert_int_equal(A->exclusive.total_ns, 50);
    assert_int_equal(site(a, "B")->exclusive.total_ns, 20);
    assert_int_equal(site(a, "C")->inclusive.total_ns, 30);
    assert_int_equal(path(a, "A/B")->inclusive.total_ns, 20);
    assert_int_equal(path(a, "A/C")->calls, 1);
    assert_int_equal(path(a, "A")->exclusive.total_ns, 50);
    assert_int_equal(ludus_analysis_path(a, (uint32_t)ludus_analysis_find_path(a, "A/B"))->depth, 1);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_complete, 0);
    assert_int_equal(sum.incomplete, 0);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* R { R { R } }: calls count every activation, inclusive only the outermost
 * (no double counting), exclusive every activation (sums to the outer's
 * inclusive). */
static void test_recursion(void **st) {
    (void)st;
    syn *s = syn_new(1, 1000);
    syn_b(s, 0, 0, &S_R);
    syn_b(s, 0, 10, &S_R);
    syn_scope(s, 0, 20, 30, &S_R);
    syn_e(s, 0, 60);
    syn_e(s, 0, 100);
    ludus_analysis *a = syn_analyze(s, NULL);
    const ludus_site_stats *R = site(a, "R");
    assert_int_equal(R->calls, 3);
    assert_int_equal(R->recursive, 2);
    assert_int_equal(R->inclusive.count, 1);
    assert_int_equal(R->inclusive.total_ns, 100);
    assert_int_equal(R->exclusive.count, 3);
    assert_int_equal(R->exclusive.total_ns, 100);
    assert_int_equal(R->exclusive.max_ns, 50);
    assert_int_equal(path(a, "R/R")->inclusive.total_ns, 50);
    assert_int_equal(path(a, "R/R/R")->exclusive.total_ns, 10);
    ludus_analysis_destroy(a);
    syn_free(s);
}

static void test_zero_length(void **st) {
    (void)st;
    syn *s = syn_new(1, 1000);
    syn_b(s, 0, 0, &S_A);
    for (int i = 0; i < 3; i++) syn_scope(s, 0, 50, 50, &S_Z);
    syn_e(s, 0, 100);
    ludus_analysis *a = syn_analyze(s, NULL);
    const ludus_site_stats *Z = site(a, "Z");
    assert_int_equal(Z->calls, 3);
    assert_int_equal(Z->inclusive.total_ns, 0);
    assert_int_equal(Z->inclusive.p99_ns, 0);
    assert_int_equal(Z->inclusive.max_ns, 0);
    assert_int_equal(site(a, "A")->exclusive.total_ns, 100);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Children whose intervals overlap in time (ticks that ran backwards between
 * them): exclusive subtracts their union, not their sum; an end before its
 * begin is clamped to 0 and counted. */
static void test_overlapping_children(void **st) {
    (void)st;
    syn *s = syn_new(1, 1000);
    syn_b(s, 0, 0, &S_A);
    syn_scope(s, 0, 10, 60, &S_B);
    syn_scope(s, 0, 40, 80, &S_C); /* overlaps B by 20 */
    syn_e(s, 0, 100);
    syn_b(s, 0, 200, &S_A);
    syn_scope(s, 0, 250, 240, &S_B); /* ends before it begins */
    syn_e(s, 0, 300);
    ludus_analysis *a = syn_analyze(s, NULL);
    const ludus_site_stats *A = site(a, "A");
    assert_int_equal(A->exclusive.min_ns, 30); /* 100 - |[10,80)| */
    assert_int_equal(A->exclusive.max_ns, 100);
    assert_int_equal(site(a, "B")->inclusive.min_ns, 0);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.clock_anomalies, 1);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Frames: marks at 100, 200, 300 on main; end 350. S spans the mark at 200
 * and belongs to frame 1; a worker without frames is attributed by time. */
static syn *frames_capture(void) {
    syn *s = syn_new(2, 350);
    syn_scope(s, 0, 0, 90, &S_F);
    syn_frame(s, 0, 100);
    syn_scope(s, 0, 100, 150, &S_F);
    syn_b(s, 0, 150, &S_S);
    syn_frame(s, 0, 200);
    syn_e(s, 0, 250);
    syn_frame(s, 0, 300);
    syn_scope(s, 0, 310, 320, &S_F); /* in the open last frame */
    syn_scope(s, 1, 120, 130, &S_W);
    syn_scope(s, 1, 220, 230, &S_W);
    syn_scope(s, 1, 240, 245, &S_W);
    return s;
}

static void test_frames(void **st) {
    (void)st;
    syn *s = frames_capture();
    ludus_analysis *a = syn_analyze(s, NULL);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frame_marks, 3);
    /* three marks make two frames: [0, 100) is the lead-in, not a frame */
    assert_int_equal(sum.frames_complete, 2);
    assert_int_equal(sum.frames_in_window, 2);
    assert_string_equal(sum.frame_thread, "main");
    assert_int_equal(sum.frame_time.p50_ns, 100);
    assert_int_equal(sum.median_frame_ns, 100);
    assert_int_equal(ludus_analysis_frame_count(a), 4);
    ludus_frame_info fi;
    assert_int_equal(ludus_analysis_frame(a, 0, &fi), 0);
    assert_int_equal(fi.begin_ns, 0);
    assert_int_equal(fi.end_ns, 100);
    assert_int_equal(fi.unlogged_ns, 10);
    assert_true(fi.lead_in);
    assert_false(fi.complete);
    assert_false(fi.in_window);
    ludus_analysis_frame(a, 1, &fi);
    assert_true(fi.complete && fi.in_window && !fi.lead_in);
    assert_int_equal(fi.unlogged_ns, 0);
    ludus_analysis_frame(a, 2, &fi);
    assert_int_equal(fi.unlogged_ns, 50); /* S covers [200, 250) */
    ludus_analysis_frame(a, 3, &fi);
    assert_false(fi.complete);
    assert_int_equal(sum.unlogged_total_ns, 50); /* frames 1 and 2 only */
    /* S began in frame 1: attributed there, not to frame 2 */
    uint32_t si = (uint32_t)ludus_analysis_find_site(a, "S");
    uint64_t calls;
    int64_t excl;
    ludus_analysis_site_in_frame(a, si, 1, &calls, &excl);
    assert_int_equal(calls, 1);
    assert_int_equal(excl, 100);
    ludus_analysis_site_in_frame(a, si, 2, &calls, &excl);
    assert_int_equal(calls, 0);
    assert_true(site(a, "S")->calls_per_frame == 0.5);
    /* the worker has no frames: per-site stats, frames by time */
    const ludus_site_stats *W = site(a, "W");
    assert_int_equal(W->calls, 3);
    assert_int_equal(W->threads, 1);
    uint32_t wi = (uint32_t)ludus_analysis_find_site(a, "W");
    ludus_analysis_site_in_frame(a, wi, 2, &calls, &excl);
    assert_int_equal(calls, 2);
    assert_int_equal(excl, 15);
    /* F: 1 call in a complete frame, 1 in the lead-in, 1 in the tail (counted in calls, not per frame) */
    assert_int_equal(site(a, "F")->calls, 3);
    assert_true(site(a, "F")->calls_per_frame == 1.0 / 2.0);
    ludus_analysis_destroy(a);
    syn_free(s);
}

static void test_windows(void **st) {
    (void)st;
    syn *s = frames_capture();
    ludus_analysis_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(ludus_window_parse("last:1", &d), 0);
    ludus_analysis *a = syn_analyze(s, &d);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_in_window, 1);
    assert_int_equal(sum.window_begin_ns, 200);
    assert_int_equal(sum.window_end_ns, 300);
    assert_int_equal(site(a, "W")->calls, 2);
    assert_int_equal(site(a, "S")->calls, 0); /* began before the window */
    ludus_analysis_destroy(a);

    memset(&d, 0, sizeof d);
    assert_int_equal(ludus_window_parse("range:100ns-200ns", &d), 0);
    a = syn_analyze(s, &d);
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_in_window, 1);
    assert_int_equal(site(a, "W")->calls, 1);
    assert_int_equal(site(a, "S")->calls, 1);
    assert_int_equal(site(a, "F")->calls, 1);
    ludus_analysis_destroy(a);

    assert_int_equal(ludus_window_parse("range:0.5-0.25", &d), LUDUS_EINVAL);
    assert_int_equal(ludus_window_parse("last:0", &d), LUDUS_EINVAL);
    assert_int_equal(ludus_window_parse("bogus", &d), LUDUS_EINVAL);
    assert_int_equal(ludus_window_parse("range:1ms-2s", &d), 0);
    assert_int_equal(d.range_begin_ns, 1000000);
    assert_int_equal(d.range_end_ns, 2000000000);
    syn_free(s);
}

static void test_no_frames(void **st) {
    (void)st;
    syn *s = syn_new(2, 1000);
    syn_scope(s, 1, 0, 10, &S_W);
    syn_scope(s, 1, 20, 40, &S_W);
    ludus_analysis *a = syn_analyze(s, NULL);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_complete, 0);
    assert_int_equal(sum.hitches, 0);
    assert_int_equal(site(a, "W")->calls, 2);
    assert_int_equal(site(a, "W")->inclusive.total_ns, 30);
    assert_true(site(a, "W")->calls_per_frame == 0);
    ludus_analysis_destroy(a);
    ludus_analysis_desc d = {LUDUS_WINDOW_LAST_FRAMES, 5, 0, 0, 0, 0, 0};
    ludus_analysis *b = NULL;
    assert_int_equal(ludus__analyze(&s->c, &d, &b), LUDUS_ENODATA);
    assert_null(b);
    syn_free(s);
}

/* A begin left open is closed at capture end and flagged: counted, never a
 * duration. Drops flag the thread's sites as lossy. */
static void test_incomplete_and_drops(void **st) {
    (void)st;
    syn *s = syn_new(2, 100);
    syn_b(s, 0, 10, &S_A);
    syn_scope(s, 0, 20, 30, &S_B);
    s->th[1].dropped = 5;
    syn_scope(s, 1, 0, 50, &S_W);
    ludus_analysis *a = syn_analyze(s, NULL);
    const ludus_site_stats *A = site(a, "A");
    assert_int_equal(A->incomplete, 1);
    assert_int_equal(A->calls, 0);
    assert_int_equal(A->inclusive.count, 0);
    assert_int_equal(A->exclusive.total_ns, 0);
    assert_int_equal(path(a, "A")->incomplete, 1);
    assert_int_equal(site(a, "B")->calls, 1);
    assert_false(A->flags & LUDUS_STAT_LOSSY);
    assert_true(site(a, "W")->flags & LUDUS_STAT_LOSSY);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.incomplete, 1);
    assert_int_equal(sum.dropped, 5);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Frames of 100 ns; frame 5 has an extra H of 200 ns. */
static syn *hitch_capture(void) {
    syn *s = syn_new(1, 2100);
    for (int f = 0; f < 20; f++) {
        uint64_t t = (uint64_t)f * 100 + (f > 5 ? 200 : 0);
        syn_scope(s, 0, t, t + 80, &S_F);
        if (f == 5) syn_scope(s, 0, t + 80, t + 280, &S_H);
        syn_frame(s, 0, t + (f == 5 ? 300 : 100));
    }
    return s;
}

static void test_hitches(void **st) {
    (void)st;
    syn *s = hitch_capture();
    ludus_analysis *a = syn_analyze(s, NULL);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.median_frame_ns, 100);
    assert_int_equal(sum.hitch_threshold_ns, 200);
    assert_int_equal(sum.hitches, 1);
    const ludus_hitch *h = ludus_analysis_hitch(a, 0);
    assert_int_equal(h->frame, 5);
    assert_int_equal(h->frame_ns, 300);
    assert_string_equal(ludus_analysis_site(a, h->grew_site[0])->name, "H");
    assert_int_equal(h->grew_ns[0], 200);
    ludus_analysis_destroy(a);
    ludus_analysis_desc d;
    memset(&d, 0, sizeof d);
    d.hitch_k = 4;
    a = syn_analyze(s, &d);
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.hitches, 0);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* 400 frames of 100 ns, 30 of them hitches of 300 + f ns, the worst (50 us)
 * the 380th: the text lists the worst first and says how many it left out
 * and how long they were. */
static void test_hitches_worst_first(void **st) {
    (void)st;
    syn *s = syn_new(1, 0);
    uint64_t t = 0;
    for (int f = 0; f < 400; f++) {
        uint64_t len = f == 380 ? 50000 : f % 13 == 0 && f ? 300 + (uint64_t)f : 100;
        syn_scope(s, 0, t, t + len - 10, &S_H);
        t += len;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    ludus_analysis *a = syn_analyze(s, NULL);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.hitches, 31);
    mem m = {0};
    ludus_report_options o = {5, "hitches", NULL};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, &o, mem_write, &m), 0);
    const char *at = strstr(m.p, "worst first");
    assert_non_null(at);
    const char *first = strstr(at, "  frame ");
    assert_non_null(first);
    assert_true(strncmp(first, "  frame    380 ", 15) ==
                0); /* frame 0 is the lead-in: the loop's 380th ends frame 380 */
    assert_non_null(strstr(first, "50.00 us"));
    /* 5 listed (--top), then the 26 more: 313 ns .. 669 ns */
    const char *more = strstr(at, "... 26 more hitches, ");
    assert_non_null(more);
    assert_true(strncmp(more, "... 26 more hitches, 313 ns to ", 31) == 0);
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Histogram percentiles within 1/128 of the exact nearest-rank value. */
static void test_percentile_error(void **st) {
    (void)st;
    ludus__acc h, e;
    memset(&h, 0, sizeof h);
    memset(&e, 0, sizeof e);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 100000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int64_t v = (int64_t)(x % 10000000) >> (x % 20);
        assert_int_equal(ludus__acc_add(&h, v, 0), 0);
        assert_int_equal(ludus__acc_add(&e, v, 1), 0);
    }
    ludus_duration_stats hs, es;
    ludus__acc_stats(&h, 0, &hs);
    ludus__acc_stats(&e, 1, &es);
    assert_int_equal(hs.count, es.count);
    assert_int_equal(hs.total_ns, es.total_ns);
    assert_int_equal(hs.max_ns, es.max_ns);
    assert_int_equal(hs.min_ns, es.min_ns);
    int64_t hp[3] = {hs.p50_ns, hs.p90_ns, hs.p99_ns}, ep[3] = {es.p50_ns, es.p90_ns, es.p99_ns};
    for (int i = 0; i < 3; i++) {
        double err = (double)(hp[i] > ep[i] ? hp[i] - ep[i] : ep[i] - hp[i]);
        assert_true(err <= (double)ep[i] / 128.0 + 0.5);
    }
    /* every bucket's middle is within 1/128 of every value in it */
    for (int64_t v = 1; v < ((int64_t)1 << 40); v = v * 3 / 2 + 1) {
        int64_t m = ludus__hist_bucket_mid(ludus__hist_bucket(v));
        assert_true((double)(m > v ? m - v : v - m) <= (double)v / 128.0);
    }
    ludus__acc_free(&h);
    ludus__acc_free(&e);
}

static void test_exact_mode(void **st) {
    (void)st;
    syn *s = syn_new(1, 100000);
    for (int i = 0; i < 100; i++) syn_scope(s, 0, (uint64_t)i * 1000, (uint64_t)i * 1000 + 100 + (uint64_t)i * 7, &S_A);
    ludus_analysis_desc d;
    memset(&d, 0, sizeof d);
    d.exact = 1;
    ludus_analysis *a = syn_analyze(s, &d);
    const ludus_site_stats *A = site(a, "A");
    assert_int_equal(A->inclusive.p50_ns, 100 + 49 * 7);
    assert_int_equal(A->inclusive.p90_ns, 100 + 89 * 7);
    assert_int_equal(A->inclusive.p99_ns, 100 + 98 * 7);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_true(sum.exact);
    assert_true(sum.percentile_rel_error == 0);
    ludus_analysis_destroy(a);
    syn_free(s);
}

static int fail_write(void *ud, const void *d, size_t n) {
    (void)ud, (void)d, (void)n;
    return -1;
}

/* Every format names losses and the definitions. */
static void test_reports(void **st) {
    (void)st;
    syn *s = frames_capture();
    syn_b(s, 1, 300, &S_A); /* incomplete */
    s->th[1].dropped = 2;
    ludus_analysis *a = syn_analyze(s, NULL);
    for (int fmt = 0; fmt < 4; fmt++) {
        mem m = {NULL, 0};
        assert_int_equal(ludus_analysis_report(a, NULL, fmt, NULL, mem_write, &m), 0);
        assert_non_null(m.p);
        if (fmt == LUDUS_REPORT_TEXT) {
            assert_non_null(strstr(m.p, "2 dropped events, 1 incomplete slices"));
            assert_non_null(strstr(m.p, "not CPU time"));
            assert_non_null(strstr(m.p, "can exceed frame time"));
            assert_non_null(strstr(m.p, "relative error <= 0.78%"));
        } else if (fmt == LUDUS_REPORT_JSON) {
            assert_non_null(strstr(m.p, "\"dropped\":2,\"incomplete\":1"));
            assert_non_null(strstr(m.p, "\"rel_error\":0.007812"));
        } else if (fmt == LUDUS_REPORT_CSV) {
            assert_non_null(strstr(m.p, "site,W,,,synth.c"));
            assert_non_null(strstr(m.p, "path,S,S,"));
        } else {
            assert_non_null(strstr(m.p, "<svg id=\"frames\""));
            assert_null(strstr(m.p, "http://") == NULL ? NULL : strstr(m.p, "src=\"http"));
            assert_null(strstr(m.p, "<link"));
            assert_non_null(strstr(m.p, "2 dropped events, 1 incomplete slices"));
        }
        free(m.p);
    }
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, fail_write, NULL), LUDUS_EIO);
    ludus_analysis_destroy(a);
    syn_free(s);
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* The medians are selected, not sorted (ludus__kth_i64): every rank of
 * arrays with many ties, already sorted, reversed, organ-pipe and random,
 * against the sorted array. */
static void test_kth_is_sorted_rank(void **state) {
    (void)state;
    enum { N = 300 };
    int64_t v[N], sorted[N], work[N];
    uint64_t r = 12345;
    for (int shape = 0; shape < 5; shape++) {
        for (size_t n = 1; n <= N; n += n < 40 ? 1 : 37) {
            for (size_t i = 0; i < n; i++) {
                r = r * 6364136223846793005ull + 1442695040888963407ull;
                int64_t x = shape == 0   ? (int64_t)(r >> 33) % 5 /* ties */
                            : shape == 1 ? (int64_t)i
                            : shape == 2 ? (int64_t)(n - i)
                            : shape == 3 ? (int64_t)(i < n / 2 ? i : n - i)
                                         : (int64_t)(r >> 20) - (int64_t)(1ll << 42);
                v[i] = sorted[i] = x;
            }
            qsort(sorted, n, sizeof *sorted, cmp_i64);
            for (size_t k = 0; k < n; k++) {
                memcpy(work, v, n * sizeof *work);
                assert_int_equal(ludus__kth_i64(work, n, k), sorted[k]);
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nesting),          cmocka_unit_test(test_recursion),
        cmocka_unit_test(test_zero_length),      cmocka_unit_test(test_overlapping_children),
        cmocka_unit_test(test_frames),           cmocka_unit_test(test_windows),
        cmocka_unit_test(test_no_frames),        cmocka_unit_test(test_incomplete_and_drops),
        cmocka_unit_test(test_hitches),          cmocka_unit_test(test_hitches_worst_first),
        cmocka_unit_test(test_percentile_error), cmocka_unit_test(test_exact_mode),
        cmocka_unit_test(test_reports),          cmocka_unit_test(test_kth_is_sorted_rank),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
