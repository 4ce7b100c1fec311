/* The exporters' number formatting against printf: integers at every digit
 * count and microsecond timestamps with three decimals (from integers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

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

static void check_us(int64_t ns) {
    char a[48], b[48];
    *ludus__fmt_us(a, ns) = 0;
    snprintf(b, sizeof b, "%lld.%03d", (long long)(ns / 1000), (int)(ns % 1000));
    assert_string_equal(a, b);
}

/* Below 10^12 ns a branch-free path, above it the general one. */
static void test_us(void **state) {
    (void)state;
    const int64_t ns[] = {0, 1, 999, 1000, 1001, 12345, 999999, 4398046511103999LL, INT64_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) check_us(ns[i]);
    int64_t p = 1;
    for (int d = 0; d < 19; d++) { /* each power of ten, its neighbours, and runs of nines */
        check_us(p - 1);
        check_us(p);
        check_us(p + 1);
        check_us(p * 9 / 10 * 10 / 9);
        if (d < 18) p *= 10;
    }
    for (int64_t v = 0; v < 3000000; v += 7) check_us(v);
    uint64_t x = 88172645463325252ull; /* xorshift: values of every length */
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_us((int64_t)((x >> 1) >> (x % 40)));
    }
    char a[16];
    *ludus__fmt_us(a, -5) = 0; /* viewers drop negative times: clamped */
    assert_string_equal(a, "0.000");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u64), cmocka_unit_test(test_us)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
