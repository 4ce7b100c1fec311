/* The exporters' number formatting against printf: integers at every digit
 * count and microsecond timestamps with three decimals (from integers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "export/writer.h"

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

static void test_us(void **state) {
    (void)state;
    const int64_t ns[] = {0, 1, 999, 1000, 1001, 12345, 999999, 4398046511103999LL};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) {
        char a[48], b[48];
        *ludus__fmt_us(a, ns[i]) = 0;
        snprintf(b, sizeof b, "%lld.%03d", (long long)(ns[i] / 1000), (int)(ns[i] % 1000));
        assert_string_equal(a, b);
    }
    char a[16];
    *ludus__fmt_us(a, -5) = 0; /* viewers drop negative times: clamped */
    assert_string_equal(a, "0.000");
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u64), cmocka_unit_test(test_us)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
