/* The part of cmocka's API the unit tests use, for the Windows port (no
 * cmocka for mingw-w64 in Debian): tests/ports/CMakeLists.txt builds the
 * unit suite against this and check_windows.sh runs it under Wine. A failed
 * assertion says where and longjmps out of the test; setup and teardown run
 * around each test as cmocka runs them; the exit status is the number of
 * failed tests. Only for the port: the host builds use cmocka itself. */
#ifndef LUDUS_CMOCKA_SHIM_H
#define LUDUS_CMOCKA_SHIM_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct CMUnitTest {
    const char *name;
    void (*test_func)(void **state);
    int (*setup_func)(void **state);
    int (*teardown_func)(void **state);
    void *initial_state;
};

#define cmocka_unit_test(f) \
    { #f, f, NULL, NULL, NULL }
#define cmocka_unit_test_teardown(f, t) \
    { #f, f, NULL, t, NULL }
#define cmocka_unit_test_setup_teardown(f, s, t) \
    { #f, f, s, t, NULL }

/* One for the whole program (the test and test_util.c), defined in
 * test_util.c: weak data is not portable to PE. */
#define LT_CMOCKA_SHIM 1
extern jmp_buf lt_cm_jump;

__attribute__((noreturn, format(printf, 3, 4))) static inline void lt_cm_fail(const char *file, int line,
                                                                              const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("[  ERROR   ] --- ");
    vprintf(fmt, ap);
    va_end(ap);
    printf("\n[   LINE   ] --- %s:%d: error: Failure!\n", file, line);
    fflush(stdout);
    longjmp(lt_cm_jump, 1);
}

/* Expressions, as cmocka's are (a test may use one in a comma or ?:). */
static inline void lt_cm_true(int ok, const char *what, const char *file, int line) {
    if (!ok) lt_cm_fail(file, line, "%s", what);
}
static inline void lt_cm_int_equal(uintmax_t a, uintmax_t b, const char *file, int line) {
    if (a != b) lt_cm_fail(file, line, "%#" PRIxMAX " != %#" PRIxMAX, a, b);
}
static inline void lt_cm_string_equal(const char *a, const char *b, const char *file, int line) {
    if (strcmp(a, b) != 0) lt_cm_fail(file, line, "\"%s\" != \"%s\"", a, b);
}
#define assert_true(c) lt_cm_true((c) ? 1 : 0, #c, __FILE__, __LINE__)
#define assert_false(c) lt_cm_true((c) ? 0 : 1, "!(" #c ")", __FILE__, __LINE__)
#define assert_int_equal(a, b) lt_cm_int_equal((uintmax_t)(a), (uintmax_t)(b), __FILE__, __LINE__)
#define assert_string_equal(a, b) lt_cm_string_equal((a), (b), __FILE__, __LINE__)
#define assert_ptr_equal(a, b) assert_true((const void *)(a) == (const void *)(b))
#define assert_non_null(p) assert_true((p) != NULL)
#define assert_null(p) assert_true((p) == NULL)
#define assert_string_not_equal(a, b) assert_true(strcmp((a), (b)) != 0)
#define assert_memory_equal(a, b, n) assert_true(memcmp((a), (b), (n)) == 0)
#define fail() lt_cm_fail(__FILE__, __LINE__, "fail()")
#define fail_msg(...) lt_cm_fail(__FILE__, __LINE__, __VA_ARGS__)
#define skip() longjmp(lt_cm_jump, 2)
#define print_message(...) (printf(__VA_ARGS__), fflush(stdout))

static inline int lt_cm_run(const struct CMUnitTest *t, size_t n, int (*setup)(void **), int (*teardown)(void **)) {
    void *group = NULL;
    int failed = 0, skipped = 0;
    printf("[==========] Running %u test(s).\n", (unsigned)n);
    if (setup && setup(&group) != 0) return (int)n;
    for (size_t i = 0; i < n; i++) {
        void *state = t[i].initial_state ? t[i].initial_state : group;
        printf("[ RUN      ] %s\n", t[i].name);
        fflush(stdout);
        int r = setjmp(lt_cm_jump);
        if (r == 0) {
            if (t[i].setup_func && t[i].setup_func(&state) != 0) r = 1;
            if (r == 0) t[i].test_func(&state);
        }
        /* teardown after a pass, a failure or a skip (cmocka runs it too) */
        if (setjmp(lt_cm_jump) == 0 && t[i].teardown_func) t[i].teardown_func(&state);
        if (r == 1) {
            failed++;
            printf("[  FAILED  ] %s\n", t[i].name);
        } else if (r == 2) {
            skipped++;
            printf("[  SKIPPED ] %s\n", t[i].name);
        } else {
            printf("[       OK ] %s\n", t[i].name);
        }
        fflush(stdout);
    }
    if (teardown) teardown(&group);
    printf("[==========] %u test(s) run.\n[  PASSED  ] %u test(s).\n", (unsigned)n, (unsigned)(n - failed - skipped));
    if (failed) printf("[  FAILED  ] %d test(s)\n", failed);
    return failed;
}
#define cmocka_run_group_tests(tests, setup, teardown) \
    lt_cm_run(tests, sizeof(tests) / sizeof((tests)[0]), setup, teardown)

#endif
