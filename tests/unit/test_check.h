/* Assertions that say what was compared: the name of the quantity, what was
 * expected and what was got, in decimal, at the caller's file and line
 * ("frames of thread 2: expected 6, got 5"), where cmocka's
 * assert_int_equal says "0x5 != 0x6". Header only, so a test that does not
 * link test_util.c can use them; call them from the test (main) thread, as
 * every cmocka assertion.
 *
 *   lt_check_u64(what, expected, got)   unsigned integers
 *   lt_check_i64(what, expected, got)   signed integers
 *   lt_check_str(what, expected, got)   strings (NULL shows as (null))
 *   lt_check(what, cond)                a condition that must hold
 *
 * `what` names the quantity; lt_what() formats one that carries values
 * (which thread, which frame). assert_int_equal is redefined on them (below). */
#ifndef LUDUS_TEST_CHECK_H
#define LUDUS_TEST_CHECK_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

/* Macros, so cmocka (and the ports' shim, tests/ports/shim/cmocka.h) report
 * the caller's file and line; each argument is evaluated once. */
#define lt_check_u64(what, expected, got)                                                             \
    do {                                                                                              \
        const uint64_t lt_e_ = (uint64_t)(expected), lt_g_ = (uint64_t)(got);                         \
        if (lt_e_ != lt_g_) fail_msg("%s: expected %" PRIu64 ", got %" PRIu64, (what), lt_e_, lt_g_); \
    } while (0)
#define lt_check_i64(what, expected, got)                                                             \
    do {                                                                                              \
        const int64_t lt_e_ = (int64_t)(expected), lt_g_ = (int64_t)(got);                            \
        if (lt_e_ != lt_g_) fail_msg("%s: expected %" PRId64 ", got %" PRId64, (what), lt_e_, lt_g_); \
    } while (0)
#define lt_check_str(what, expected, got)                                                                            \
    do {                                                                                                             \
        const char *lt_e_ = (expected), *lt_g_ = (got);                                                              \
        if (!lt_str_same(lt_e_, lt_g_))                                                                              \
            fail_msg("%s: expected \"%s\", got \"%s\"", (what), lt_e_ ? lt_e_ : "(null)", lt_g_ ? lt_g_ : "(null)"); \
    } while (0)
#define lt_check(what, cond)                                            \
    do {                                                                \
        if (!(cond)) fail_msg("%s: does not hold (%s)", (what), #cond); \
    } while (0)

/* Every test that includes this header: cmocka's assert_int_equal(got,
 * expected) says what it compared too, the expression as written and both
 * values in decimal ("ludus_capture_end(&c): expected 0, got -7"), not
 * "0xfffffffffffffff9 != 0". Equality as cmocka's (both sides as integers). */
#undef assert_int_equal
#define assert_int_equal(got, expected) lt_check_i64(#got, (expected), (got))

static inline int lt_str_same(const char *a, const char *b) {
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* A name with values in it, for the checks above: formatted into one of a
 * few rotating buffers (so two may be used in one call). */
#if (defined(__GNUC__) || defined(__clang__)) && !defined(_WIN32) /* mingw-w64 checks msvcrt's formats */
__attribute__((format(printf, 1, 2)))
#endif
static inline const char *
lt_what(const char *fmt, ...) {
    static char buf[4][256];
    static unsigned next;
    char *b = buf[next++ % 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b, sizeof buf[0], fmt, ap);
    va_end(ap);
    return b;
}

#endif
