/* The exporters' number formatting: integers at every digit count against
 * printf, and JSON times on their binary grid (writer.h) read back as
 * viewers read them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "base/writer.h"

static void check_u64(uint64_t v) {
    char a[32], b[32];
    *ludus__fmt_u64(a, v) = 0;
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    assert_string_equal(a, b);
}

static void test_u64(void **state) {
    (void)state;
    uint64_t p = 1;
    for (int d = 0; d < 20; d++) { /* each power of ten and its neighbours */
        check_u64(p - 1);
        check_u64(p);
        check_u64(p + 1);
        if (d < 19) p *= 10;
    }
    check_u64(UINT64_MAX);
    for (uint64_t v = 0; v < 2000000; v += 13) check_u64(v);
}

/* A time as the exporter writes it, read back as viewers do (strtod, a
 * correctly rounded double): it is the grid point exactly, gives the ns
 * back through round(x * 1000), and lies strictly between the points of
 * the ns next to it, so a slice's end (one below) too. */
static double read_us(const char *s) {
    char *end;
    double v = strtod(s, &end);
    assert_true(*end == 0);
    return v;
}

static void check_us(int64_t ns) {
    char a[48];
    *ludus__fmt_us(a, ns) = 0;
    double v = read_us(a);
    uint64_t g = ludus__grid(ns);
    assert_true(v * 4096.0 == (double)g); /* exactly the point (g < 2^53: times below 25 days) */
    assert_true(llround(v * 1000.0) == ns);
    if (ns > 0) assert_true(ludus__grid(ns - 1) + 2 < g); /* an end's point (g - 1) is after every earlier time's */
}

/* A slice from b to e as written: ts + dur, in double, is exactly its end's
 * point (every viewer's sum is exact) and rounds to e's ns, round(dur * 1000)
 * is e - b, its end is before any begin at e and after any time before e,
 * and a zero-length slice lasts one unit from its ns's begins. */
static void check_slice(int64_t b, int64_t e) {
    uint64_t pb, pe;
    ludus__slice_grid(b, e, &pb, &pe);
    char ts[48], dur[48];
    *ludus__fmt_grid(ts, pb) = 0;
    *ludus__fmt_grid(dur, pe - pb) = 0;
    double t = read_us(ts), d = read_us(dur);
    assert_true((t + d) * 4096.0 == (double)pe);
    assert_true(t + d - t == d); /* the rebased sum (speedscope) is exact too */
    assert_true(llround(t * 1000.0) == b);
    assert_true(llround((t + d) * 1000.0) == (e > b ? e : b)); /* the end's ns, from the sum a viewer makes */
    assert_true(pb == ludus__grid(b));                         /* with every begin of its ns */
    if (e > b) {
        assert_true(llround(d * 1000.0) == e - b);
        assert_true(pe < ludus__grid(e) && pe > ludus__grid(e - 1)); /* before every begin of its ns */
    } else {                                                         /* zero-length: one unit, drawn */
        assert_true(pe == pb + 1 && llround(d * 1000.0) == 0);
        assert_true(pe < ludus__grid(b + 1) - 1); /* before the next ns's ends */
    }
}

static void test_us(void **state) {
    (void)state;
    const int64_t ns[] = {0, 1, 999, 1000, 1001, 12345, 999999, 99999999999LL, 100000000000LL, 2199023255551999LL};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) check_us(ns[i]);
    int64_t p = 1;
    for (int d = 0; d < 16; d++) { /* each power of ten, its neighbours, and runs of nines */
        check_us(p - 1);
        check_us(p);
        check_us(p + 1);
        check_us(p * 9 / 10 * 10 / 9);
        if (d < 15) p *= 10;
    }
    for (int64_t v = 0; v < 3000000; v += 1) check_us(v); /* every ns of the first 3 ms */
    uint64_t x = 88172645463325252ull;                    /* xorshift: values of every length up to 13 days */
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t b = (int64_t)((x >> 14) >> (x % 40)); /* < 2^50 ns (13 days) */
        check_us(b);
        check_slice(b, b + (int64_t)((x >> 20) % 5000)); /* zero-length ones among them */
        check_slice(b, b + (int64_t)(x >> 24));
    }
    for (int64_t b = 0; b < 5000; b++)
        for (int64_t d = 0; d < 5; d++) check_slice(b, b + d);
    char a[16];
    *ludus__fmt_us(a, -5) = 0; /* viewers drop negative times: clamped */
    assert_string_equal(a, "0");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u64), cmocka_unit_test(test_us)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
