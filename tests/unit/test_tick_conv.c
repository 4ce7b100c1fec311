/* The reader's tick-to-ns conversion (one multiply-high) against the exact
 * 128-bit division, for TSC captures of several rates and for the monotonic
 * clock (ticks are ns): within 1 ns, and exact for the monotonic clock, over
 * ticks from the first calibration point to hours past it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture/nev.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void check(ludus_capture *c, uint64_t from, uint64_t span, int64_t tolerance) {
    ludus__tick_conv v;
    ludus__tick_conv_init(&v, c);
    for (int i = 0; i < 200000; i++) {
        uint64_t t = from + (i < 1000 ? (uint64_t)i : next() % span);
        int64_t exact = ludus__ticks_to_ns(c, t), fast = ludus__tick_conv_ns(&v, c, t);
        int64_t d = fast > exact ? fast - exact : exact - fast;
        if (d > tolerance)
            fail_msg("ticks %llu: %lld ns, exactly %lld", (unsigned long long)t, (long long)fast, (long long)exact);
    }
}

static void test_tsc_rates(void **state) {
    (void)state;
    /* ticks per ns: 1.0001, 2.445 (this machine), 3.7, 5.2 */
    const double rates[] = {1.0001, 2.445430, 3.7, 5.2};
    for (size_t k = 0; k < sizeof rates / sizeof rates[0]; k++) {
        ludus_capture c;
        memset(&c, 0, sizeof c);
        c.clock_tsc = 1;
        c.start_ns = 5033316284325;
        c.c0.ns = c.start_ns + 120;
        c.c0.ticks = 12308860398083ull;
        c.c1.ns = c.c0.ns + 454279000;
        c.c1.ticks = c.c0.ticks + (uint64_t)(454279000 * rates[k]);
        check(&c, c.c0.ticks, (uint64_t)(3600e9 * rates[k]), 1); /* an hour */
    }
}

static void test_monotonic_exact(void **state) {
    (void)state;
    ludus_capture c;
    memset(&c, 0, sizeof c);
    c.clock_tsc = 0;
    c.start_ns = 5033316284325;
    c.c0.ns = c.start_ns;
    c.c0.ticks = (uint64_t)c.start_ns;
    c.c1.ns = c.start_ns + 1000000000;
    c.c1.ticks = (uint64_t)c.c1.ns;
    check(&c, (uint64_t)c.start_ns - 10, (uint64_t)36e11, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_tsc_rates), cmocka_unit_test(test_monotonic_exact)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
