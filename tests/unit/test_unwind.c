/* Non-local exits, as an interpreter makes them: errors that longjmp out of
 * instrumented functions (a pcall), coroutines that switch stacks
 * (ucontext), and code that says where it unwound to. Scopes skipped by a
 * longjmp are closed where an enclosing end finds them (or where the code
 * says so), flagged unwound, counted per thread; no drop storm follows, and
 * every slice of the export nests. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
/* ucontext: not on Windows (the port's unit suite), and musl declares no
 * getcontext/makecontext/swapcontext (make test-musl): its test skips there. */
#if !defined(_WIN32) && !(defined(__linux__) && !defined(__GLIBC__))
#define HAVE_UCONTEXT 1
#include <ucontext.h>
#else
#define HAVE_UCONTEXT 0
#endif
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

/* ---- a tiny interpreter: call frames that can throw ---- */

static jmp_buf *handler; /* the innermost protected call */

static void vm_throw(void) {
    longjmp(*handler, 1);
}

static int vm_call(int depth, int throw_at) {
    LUDUS_PROFILE_SCOPE(vm_call);
    if (depth == throw_at) vm_throw();
    return depth == 0 ? 0 : 1 + vm_call(depth - 1, throw_at);
}

/* A protected call, as Lua's pcall: setjmp here, the error lands here. */
static int vm_pcall(int depth, int throw_at) {
    LUDUS_PROFILE_SCOPE(vm_pcall);
    jmp_buf jb, *prev = handler;
    handler = &jb;
    int failed = 0;
    if (setjmp(jb) == 0)
        vm_call(depth, throw_at);
    else
        failed = 1;
    handler = prev;
    return failed;
}

static size_t count_flag(const lt_trace *t, const char *name, int unwound) {
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].ph == 'E' && !strcmp(t->ev[i].name, name) && t->ev[i].unwound == unwound) k++;
    return k;
}

/* 1,000 pcalls that throw from 10 frames deep: the 10 (or 11) skipped scopes
 * of each are closed at the pcall's end, flagged; nothing is lost. */
static void test_pcall_errors_detected_at_enclosing_end(void **state) {
    (void)state;
    enum { CALLS = 1000, DEPTH = 10 };
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 32;
    lt_begin(&d);
    int failures = 0;
    for (int i = 0; i < CALLS; i++) failures += vm_pcall(DEPTH, i % 2 ? 3 : DEPTH + 1);
    lt_end();
    lt_check_i64("failures", CALLS / 2, failures);
    ludus_capture_summary s = lt_summary();
    /* A throw at depth 3 skips the ends of DEPTH - 3 + 1 vm_call scopes. */
    uint64_t skipped = (uint64_t)(CALLS / 2) * (DEPTH - 3 + 1);
    lt_check_u64("s.unwound", skipped, s.unwound);
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_check_u64("s.incomplete", 0, s.incomplete);
    ludus_thread_summary th;
    assert_true(lt_thread_index(lt_gettid(), &th) >= 0);
    lt_check_u64("th.unwound", skipped, th.unwound);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1); /* every slice nests */
    lt_check_i64("count_flag(&t, \"vm_call\", 1)", skipped, count_flag(&t, "vm_call", 1));
    lt_check_i64("count_flag(&t, \"vm_pcall\", 1)", 0, count_flag(&t, "vm_pcall", 1));
    /* each pcall's skipped scopes end where the pcall ends: nested inside it */
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'B' || strcmp(t.ev[i].name, "vm_pcall") != 0) continue;
        long e = lt_match_end(&t, i);
        for (long k = (long)i + 1; k < e; k++) assert_true(t.ev[k].ts_ns <= t.ev[e].ts_ns);
    }
    lt_trace_free(&t);
    /* The analysis counts them, without a duration. */
    ludus_analysis *a;
    lt_check_i64("lt_analyze_last(NULL, &a)", 0, lt_analyze_last(NULL, &a));
    const ludus_site_stats *vs = ludus_analysis_site(a, (uint32_t)ludus_analysis_find_site(a, "vm_call"));
    lt_check_i64("vs->unwound", skipped, vs->unwound);
    lt_check_i64("vs->calls", (uint64_t)CALLS / 2 * (DEPTH + 1), vs->calls); /* the calls that returned */
    ludus_analysis_destroy(a);
}

/* No drop storm: 200,000 leaked scopes in a small pool cost nothing after
 * they are found; flat scopes afterwards are all recorded. */
static void test_no_drop_storm(void **state) {
    (void)state;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 128; /* 8 MiB: the 300,000 events fit */
    lt_begin(&d);
    for (int i = 0; i < 20000; i++) vm_pcall(12, 2);
    for (int i = 0; i < 20000; i++) {
        LUDUS_PROFILE_SCOPE(after);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_check_u64("s.unwound", 20000u * 11u, s.unwound);
    lt_trace t;
    lt_trace_load(&t);
    lt_check_u64("lt_count(&t, 'B', \"after\")", 20000, lt_count(&t, 'B', "after"));
    lt_trace_free(&t);
}

/* One error thrown from 5,000 frames deep: a single end closes 5,000
 * unwound scopes at once (the reader's batch grows for it), between ordinary
 * scopes before and after; every slice is exported, in order. */
static void test_deep_throw_closes_thousands_at_once(void **state) {
    (void)state;
    enum { DEPTH = 5000, BEFORE = 300, AFTER = 300 };
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 64;
    lt_begin(&d);
    for (int i = 0; i < BEFORE; i++) {
        LUDUS_PROFILE_SCOPE(before);
    }
    lt_check_i64("vm_pcall(DEPTH, 0)", 1, vm_pcall(DEPTH, 0));
    for (int i = 0; i < AFTER; i++) {
        LUDUS_PROFILE_SCOPE(after);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_check_u64("s.unwound", (uint64_t)DEPTH + 1, s.unwound);
    for (int fmt = 0; fmt < 2; fmt++) { /* the in-memory capture, then the same saved and opened */
        lt_trace t;
        if (fmt == 0) {
            lt_trace_load(&t);
        } else {
            ludus_capture *c, *f;
            lt_check_i64("ludus_capture_last(&c)", 0, ludus_capture_last(&c));
            char path[] = "/tmp/ludus_deep_throw_XXXXXX";
            int fd = mkstemp(path);
            assert_true(fd >= 0);
            close(fd);
            lt_check_i64("ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path)", 0,
                         ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path));
            lt_check_i64("ludus_capture_open(path, &f)", 0, ludus_capture_open(path, &f));
            char *json = lt_capture_json(f);
            lt_trace_parse(&t, json);
            free(json);
            ludus_capture_release(f);
            ludus_capture_release(c);
            remove(path);
        }
        lt_trace_check(&t, 0);
        lt_check_i64("count_flag(&t, \"vm_call\", 1)", DEPTH + 1, count_flag(&t, "vm_call", 1));
        lt_check_u64("lt_count(&t, 'B', \"before\")", BEFORE, lt_count(&t, 'B', "before"));
        lt_check_u64("lt_count(&t, 'B', \"after\")", AFTER, lt_count(&t, 'B', "after"));
        lt_trace_free(&t);
    }
}

/* Code that knows it unwinds says so: the skipped scopes end right where
 * the longjmp landed, before anything else happens. */
static void test_explicit_unwind_point(void **state) {
    (void)state;
    lt_begin(NULL);
    static jmp_buf jb;
    volatile int landed = 0;
    {
        LUDUS_PROFILE_SCOPE(loop);
        for (int i = 0; i < 3; i++) {
            ludus_unwind_point up = ludus_unwind_here();
            jmp_buf *prev = handler;
            handler = &jb;
            if (setjmp(jb) == 0) {
                vm_call(5, 1);
            } else {
                ludus_unwound_to(up);
                landed++;
                LUDUS_PROFILE_SCOPE(after_error);
                lt_spin_ns(20000);
            }
            handler = prev;
        }
    }
    lt_end();
    lt_check_i64("landed", 3, landed);
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.unwound", 3 * 5, s.unwound);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    /* after_error is a sibling of the unwound calls, not their child: it
     * begins after they end */
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'B' || strcmp(t.ev[i].name, "after_error") != 0) continue;
        size_t depth = 0;
        for (size_t k = 0; k < i; k++) {
            if (t.ev[k].ph == 'B') depth++;
            if (t.ev[k].ph == 'E') depth--;
        }
        lt_check_i64("depth", 1, depth); /* only "loop" is open */
    }
    lt_trace_free(&t);
}

/* A point taken before the capture began: everything the thread opened in
 * the capture since is unwound. */
static void test_unwind_point_before_capture(void **state) {
    (void)state;
    ludus_unwind_point up = ludus_unwind_here(); /* no capture: at = 0 */
    assert_true(up.at == 0);
    lt_begin(NULL);
    static jmp_buf jb;
    jmp_buf *prev = handler;
    handler = &jb;
    if (setjmp(jb) == 0)
        vm_call(4, 0);
    else
        ludus_unwound_to(up);
    handler = prev;
    LUDUS_PROFILE_MARK(done);
    lt_end();
    lt_check_u64("lt_summary().unwound", 5, lt_summary().unwound);
}

/* ---- coroutines on stacks of their own (ucontext) ---- */

#if HAVE_UCONTEXT
static ucontext_t main_ctx, co_ctx;
static int co_steps;

static void co_yield_to_main(void) {
    swapcontext(&co_ctx, &main_ctx);
}

static void co_body(void) {
    for (int i = 0; i < 5; i++) {
        LUDUS_PROFILE_SCOPE(co_step);
        co_steps++;
        co_yield_to_main(); /* the scope stays open while the coroutine sleeps */
    }
}

/* A scope left open across a stack switch: the main side's end of "resume"
 * names its own begin, so the coroutine's open scope above it is closed
 * there, unwound; its real end, after the next switch, finds nothing and is
 * an orphan. Flagged and counted, never misnested. (Spans by site id keep
 * work that switches stacks; they do not depend on lexical order.) */
#endif
static void test_ucontext_coroutine(void **state) {
    (void)state;
#if !HAVE_UCONTEXT
    skip();
#else
    static char stack[1 << 16];
    getcontext(&co_ctx);
    co_ctx.uc_stack.ss_sp = stack;
    co_ctx.uc_stack.ss_size = sizeof stack;
    co_ctx.uc_link = &main_ctx;
    makecontext(&co_ctx, co_body, 0);
    lt_begin(NULL);
    for (int i = 0; i < 6; i++) {
        LUDUS_PROFILE_SCOPE(resume);
        swapcontext(&main_ctx, &co_ctx);
    }
    lt_end();
    lt_check_i64("co_steps", 5, co_steps);
    ludus_capture_summary s = lt_summary();
    lt_check_u64("s.dropped", 0, s.dropped);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    lt_check_u64("lt_count(&t, 'B', \"resume\")", 6, lt_count(&t, 'B', "resume"));
    lt_check_u64("lt_count(&t, 'B', \"co_step\")", 5, lt_count(&t, 'B', "co_step"));
    lt_trace_free(&t);
    lt_check_u64("s.events", 2 * 6 + 5, s.events); /* the co_step ends are orphans */
    lt_check_u64("s.unwound", 5, s.unwound);
    lt_check_u64("s.orphan_ends", 5, s.orphan_ends);
    lt_check_u64("s.incomplete", 0, s.incomplete);
#endif
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_pcall_errors_detected_at_enclosing_end, lt_teardown),
        cmocka_unit_test_teardown(test_no_drop_storm, lt_teardown),
        cmocka_unit_test_teardown(test_deep_throw_closes_thousands_at_once, lt_teardown),
        cmocka_unit_test_teardown(test_explicit_unwind_point, lt_teardown),
        cmocka_unit_test_teardown(test_unwind_point_before_capture, lt_teardown),
        cmocka_unit_test_teardown(test_ucontext_coroutine, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
