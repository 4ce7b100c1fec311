/* The analysis's sorts and selections (src/analysis/sort.c) against plain
 * references, on arrays made to break them: negative numbers, -0.0 beside
 * +0.0, subnormals, infinities, long runs of one value, keys that differ
 * only in their low bits or only in their high bits, sizes around the radix
 * sort's threshold, and a NaN (left to qsort). The reference is a stable
 * insertion sort with ludus__cmp_double's order, so the radix sort must give
 * the same array bit for bit, ties in their input order. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "analysis/analysis_internal.h"

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint64_t next(void) { /* xorshift64 */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A value of shape `shape` (0 .. 5). */
static double value(int shape) {
    uint64_t r = next();
    switch (shape) {
    case 0: /* small integers: long runs of one value */
        return (double)(r % 7) - 3;
    case 1: { /* specials among ordinary values */
        static const double sp[] = {0.0, -0.0, INFINITY, -INFINITY, 5e-324, -5e-324, 1.0, -1.0};
        return r % 3 ? sp[r % 8] : (double)(int64_t)r / 1e9;
    }
    case 2: /* same high bits, different low bits */
        return 1.0 + (double)(r % 4096) * 2.220446049250313e-16;
    case 3: /* any bit pattern that is not a NaN */
    {
        double d;
        memcpy(&d, &r, sizeof d);
        return isnan(d) ? 0.5 : d;
    }
    case 4: /* log1p of durations, as the diff sorts them */
        return log1p((double)(r % 10000000));
    default: /* one value */
        return 42.0;
    }
}

static void insertion_pairs(ludus__pt *p, size_t n) {
    for (size_t i = 1; i < n; i++) {
        ludus__pt x = p[i];
        size_t j = i;
        while (j > 0 && ludus__cmp_double(&p[j - 1].v, &x.v) > 0) {
            p[j] = p[j - 1];
            j--;
        }
        p[j] = x;
    }
}

static void test_sort_matches_stable_reference(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 2, 63, 64, 65, 257, 5000};
    for (int shape = 0; shape < 6; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            ludus__pt *p = malloc((n + 1) * sizeof *p), *ref = malloc((n + 1) * sizeof *ref);
            double *v = malloc((n + 1) * sizeof *v), *vref = malloc((n + 1) * sizeof *vref);
            assert_non_null(p);
            assert_non_null(ref);
            assert_non_null(v);
            assert_non_null(vref);
            for (size_t i = 0; i < n; i++) {
                p[i] = (ludus__pt){value(shape), i}; /* w: the input position, to see ties' order */
                v[i] = p[i].v;
            }
            memcpy(ref, p, n * sizeof *p);
            insertion_pairs(ref, n);
            ludus__sort_f64_pairs(p, n);
            ludus__sort_f64(v, n);
            for (size_t i = 0; i < n; i++) {
                vref[i] = ref[i].v;
                if (memcmp(&p[i], &ref[i], sizeof p[i]) != 0)
                    fail_msg("shape %d, n %zu: pair %zu is (%g, %llu), the stable order has (%g, %llu)", shape, n, i,
                             p[i].v, (unsigned long long)p[i].w, ref[i].v, (unsigned long long)ref[i].w);
            }
            if (n && memcmp(v, vref, n * sizeof *v) != 0) fail_msg("shape %d, n %zu: the doubles differ", shape, n);
            /* the k-th smallest: the sorted array's k-th (any of three k) */
            for (int q = 0; q < 3 && n; q++) {
                size_t k = q == 0 ? 0 : q == 1 ? (n - 1) / 2 : n - 1;
                for (size_t i = 0; i < n; i++) v[i] = ref[(i * 7919) % n].v; /* another order */
                double kth = ludus__kth_f64(v, n, k);
                if (ludus__cmp_double(&kth, &vref[k]) != 0)
                    fail_msg("shape %d, n %zu: k-th %zu is %g, sorted says %g", shape, n, k, kth, vref[k]);
            }
            free(p);
            free(ref);
            free(v);
            free(vref);
        }
}

/* An array with a NaN is sorted by qsort (the radix sort refuses it), so
 * the numbers around it still come out in order. */
static void test_sort_with_nan(void **state) {
    (void)state;
    double v[200];
    for (int i = 0; i < 200; i++) v[i] = (double)((i * 37) % 200);
    v[100] = NAN;
    ludus__sort_f64(v, 200);
    int nans = 0;
    for (int i = 0; i < 200; i++) nans += isnan(v[i]) != 0;
    assert_int_equal(nans, 1);
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* Integers by radix: the order qsort gives, across the sign, at the ends
 * of the type, in runs of one value, keys apart only in their high or low
 * bytes, and the k-th smallest by selection. */
static void test_sort_i64(void **state) {
    (void)state;
    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, 5000};
    for (int shape = 0; shape < 5; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            int64_t *v = malloc((n + 1) * sizeof *v), *ref = malloc((n + 1) * sizeof *ref);
            assert_non_null(v);
            assert_non_null(ref);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = next();
                v[i] = shape == 0   ? (int64_t)r                /* anything */
                       : shape == 1 ? (int64_t)(r % 1000) - 500 /* small, both signs */
                       : shape == 2 ? (r & 1 ? INT64_MIN + (int64_t)(r % 3) : INT64_MAX - (int64_t)(r % 3))
                       : shape == 3 ? (int64_t)((r % 4) << 56) /* the high byte only */
                                    : 7;                       /* one value */
            }
            memcpy(ref, v, n * sizeof *v);
            qsort(ref, n, sizeof *ref, cmp_i64);
            ludus__sort_i64(v, n);
            if (n && memcmp(v, ref, n * sizeof *v) != 0) fail_msg("shape %d, n %zu: the integers differ", shape, n);
            for (int q = 0; q < 3 && n; q++) {
                size_t k = q == 0 ? 0 : q == 1 ? (n - 1) / 2 : n - 1;
                for (size_t i = 0; i < n; i++) v[i] = ref[(i * 7919) % n];
                int64_t kth = ludus__kth_i64(v, n, k);
                if (kth != ref[k])
                    fail_msg("shape %d, n %zu: k-th %zu is %lld, sorted says %lld", shape, n, k, (long long)kth,
                             (long long)ref[k]);
            }
            free(v);
            free(ref);
        }
}

/* Large arrays (the radix sort takes 11-bit digits from 65,536 elements):
 * the stable order, as a sort by (value, input position) gives it. */
static int cmp_pair_then_position(const void *x, const void *y) {
    const ludus__pt *a = x, *b = y;
    int c = ludus__cmp_double(&a->v, &b->v);
    return c ? c : (a->w > b->w) - (a->w < b->w);
}

static void test_sort_large(void **state) {
    (void)state;
    static const size_t sizes[] = {65535, 65536, 200000};
    for (int shape = 0; shape < 6; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            ludus__pt *p = malloc(n * sizeof *p), *ref = malloc(n * sizeof *ref);
            double *v = malloc(n * sizeof *v);
            int64_t *w = malloc(n * sizeof *w), *wref = malloc(n * sizeof *wref);
            assert_non_null(p);
            assert_non_null(ref);
            assert_non_null(v);
            assert_non_null(w);
            assert_non_null(wref);
            for (size_t i = 0; i < n; i++) {
                p[i] = (ludus__pt){value(shape), i};
                v[i] = p[i].v;
                double x = p[i].v * 1e3; /* an integer of the same shape, where it has one */
                w[i] = shape == 3 || !(fabs(x) < 9e18) ? (int64_t)next() : (int64_t)x;
            }
            memcpy(ref, p, n * sizeof *p);
            qsort(ref, n, sizeof *ref, cmp_pair_then_position);
            memcpy(wref, w, n * sizeof *w);
            qsort(wref, n, sizeof *wref, cmp_i64);
            ludus__sort_f64_pairs(p, n);
            ludus__sort_f64(v, n);
            ludus__sort_i64(w, n);
            for (size_t i = 0; i < n; i++) {
                if (memcmp(&p[i], &ref[i], sizeof p[i]) != 0)
                    fail_msg("shape %d, n %zu: pair %zu is (%g, %llu), the stable order has (%g, %llu)", shape, n, i,
                             p[i].v, (unsigned long long)p[i].w, ref[i].v, (unsigned long long)ref[i].w);
                if (memcmp(&v[i], &ref[i].v, sizeof v[i]) != 0)
                    fail_msg("shape %d, n %zu: double %zu is %g, the stable order has %g", shape, n, i, v[i], ref[i].v);
                if (w[i] != wref[i])
                    fail_msg("shape %d, n %zu: integer %zu is %lld, sorted says %lld", shape, n, i, (long long)w[i],
                             (long long)wref[i]);
            }
            free(p);
            free(ref);
            free(v);
            free(w);
            free(wref);
        }
}

/* hitches.c's cell references: runs (one per (ent, thread), appended in
 * that order), each in frame order, put in (frame, ent, thread) order by a
 * stable sort on the frame alone; small (qsort) to large (11-bit digits). */
static int cmp_cellref_full(const void *x, const void *y) {
    const ludus__cellref *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    if (a->ent != b->ent) return a->ent < b->ent ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

static void test_sort_cellrefs(void **state) {
    (void)state;
    static const uint32_t runs_of[] = {1, 3, 40, 900};
    for (size_t ri = 0; ri < sizeof runs_of / sizeof *runs_of; ri++) {
        uint32_t runs = runs_of[ri], frames = 200 + runs * 3;
        size_t cap = (size_t)runs * frames, n = 0;
        ludus__cellref *v = malloc(cap * sizeof *v), *ref = malloc(cap * sizeof *ref);
        assert_non_null(v);
        assert_non_null(ref);
        for (uint32_t r = 0; r < runs; r++) /* ent r / 4, thread r % 4: (ent, thread) order */
            for (uint32_t f = 0; f < frames; f++)
                if (next() % 3 == 0) v[n++] = (ludus__cellref){(int64_t)(next() % 1000), f * 7, r / 4, r % 4};
        memcpy(ref, v, n * sizeof *v);
        qsort(ref, n, sizeof *ref, cmp_cellref_full);
        ludus__sort_cellrefs(v, n);
        for (size_t i = 0; i < n; i++)
            if (memcmp(&v[i], &ref[i], sizeof v[i]) != 0)
                fail_msg("%u runs, %zu references: %zu is (frame %u, ent %u, thread %u), sorted says (%u, %u, %u)",
                         runs, n, i, v[i].frame, v[i].ent, v[i].thread, ref[i].frame, ref[i].ent, ref[i].thread);
        free(v);
        free(ref);
    }
}

/* The k-th smallest of a large array (sort.c narrows it by the keys' bits
 * first): several k taken one after the other from one array, as the
 * analysis takes a run's percentiles, each the sorted array's, the array
 * still holding every element after each; durations spread over decades,
 * values apart only in their last bits, a NaN among them (the partitions
 * alone then). */
static int cmp_double_total(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return isnan(a) ? !isnan(b) : isnan(b) ? -1 : a < b ? -1 : a > b;
}

static void test_kth_large(void **state) {
    (void)state;
    static const size_t sizes[] = {4096, 16383, 16384, 16385, 100000};
    for (int shape = 0; shape < 4; shape++)
        for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
            size_t n = sizes[si];
            double *v = malloc(n * sizeof *v), *ref = malloc(n * sizeof *ref), *back = malloc(n * sizeof *back);
            int64_t *w = malloc(n * sizeof *w), *wref = malloc(n * sizeof *wref);
            assert_non_null(v);
            assert_non_null(ref);
            assert_non_null(back);
            assert_non_null(w);
            assert_non_null(wref);
            for (size_t i = 0; i < n; i++) {
                uint64_t r = next();
                v[i] = shape == 0   ? (double)(r % 1000000007) * exp2((double)(r >> 58)) /* decades of ns */
                       : shape == 1 ? 1e6 + (double)(r % 64) * 0.125                     /* the low bits only */
                       : shape == 2 ? (double)(r % 3)                                    /* three values */
                                    : (double)(int64_t)r / 1e3;                          /* both signs */
                w[i] = shape == 0   ? (int64_t)((r % 1000000007) << (r >> 60))           /* decades, in range */
                       : shape == 3 ? (int64_t)r
                                    : (int64_t)v[i];
            }
            if (shape == 3) v[n / 3] = NAN;
            memcpy(ref, v, n * sizeof *v);
            qsort(ref, n, sizeof *ref, cmp_double_total);
            memcpy(wref, w, n * sizeof *w);
            qsort(wref, n, sizeof *wref, cmp_i64);
            size_t ks[] = {0, n / 100, (n - 1) / 2, n - n / 100 - 1, n - 2};
            for (size_t q = 0; q < sizeof ks / sizeof *ks; q++) {
                size_t k = ks[q];
                double kth = ludus__kth_f64(v, n, k);
                if (shape != 3 && ludus__cmp_double(&kth, &ref[k]) != 0)
                    fail_msg("shape %d, n %zu: k-th %zu is %.17g, sorted says %.17g", shape, n, k, kth, ref[k]);
                int64_t wk = ludus__kth_i64(w, n, k);
                if (wk != wref[k])
                    fail_msg("shape %d, n %zu: integer k-th %zu is %lld, sorted says %lld", shape, n, k, (long long)wk,
                             (long long)wref[k]);
                memcpy(back, v, n * sizeof *v); /* every element still there */
                qsort(back, n, sizeof *back, cmp_double_total);
                if (memcmp(back, ref, n * sizeof *v) != 0)
                    fail_msg("shape %d, n %zu: after the k-th %zu the array lost an element", shape, n, k);
            }
            free(v);
            free(ref);
            free(back);
            free(w);
            free(wref);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_matches_stable_reference),
        cmocka_unit_test(test_sort_i64),
        cmocka_unit_test(test_sort_with_nan),
        cmocka_unit_test(test_kth_large),
        cmocka_unit_test(test_sort_large),
        cmocka_unit_test(test_sort_cellrefs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
