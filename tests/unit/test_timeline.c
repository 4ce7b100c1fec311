/* Log messages, async zones and fibers: exact counts through every export
 * and the analysis, across threads, through a .ludus round trip. */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "test_util.h"

#define THREADS 4
#define PER_THREAD (LT_TSAN ? 500 : 2500)

static void *flood(void *arg) {
    int t = (int)(intptr_t)arg;
    for (int i = 0; i < PER_THREAD; i++) /* every text distinct: nothing is interned */
        ludus_log(i % 4, "thread %d message %d %s", t, i, i % 7 == 0 ? "with \"quotes\" and \\ and \n" : "");
    return NULL;
}

static uint64_t meta_u64_of(const lt_trace *t, const char *key) {
    json_object *v;
    if (!json_object_object_get_ex(t->metadata, key, &v)) fail_msg("metadata has no \"%s\"", key);
    return (uint64_t)json_object_get_int64(v);
}

/* The analysis of a capture (asserts success). */
static ludus_analysis *analyze(ludus_capture *c) {
    ludus_analysis *a = NULL;
    ludus_analysis_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(ludus_analysis_create(c, &d, &a), 0);
    return a;
}

static ludus_capture *reopen(ludus_capture *c, const char *path) {
    assert_int_equal(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *f = NULL;
    assert_int_equal(ludus_capture_open(path, &f), 0);
    return f;
}

/* c through a .ludus file at path exports the same JSON byte for byte
 * (texts, levels, zones and fiber tracks survive); releases c. */
static void same_through_file(ludus_capture *c, const char *path) {
    ludus_capture *f = reopen(c, path);
    char *j1 = lt_capture_json(c), *j2 = lt_capture_json(f);
    assert_string_equal(j1, j2);
    free(j1);
    free(j2);
    ludus_capture_release(f);
    ludus_capture_release(c);
    remove(path);
}

static void test_message_flood(void **state) {
    (void)state;
    lt_begin(NULL);
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, flood, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    LUDUS_PROFILE_MESSAGE(LUDUS_LOG_ERROR, "a literal: no formatting, no copy");
    char big[LUDUS_MESSAGE_MAX + 500];
    memset(big, 'x', sizeof big);
    ludus_log_text(LUDUS_LOG_INFO, big, sizeof big); /* cut at LUDUS_MESSAGE_MAX */
    lt_end();
    ludus_capture_summary sum = lt_summary();
    assert_int_equal(sum.dropped, 0);
    uint64_t total = (uint64_t)THREADS * PER_THREAD + 2;

    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 0);
    size_t logs = 0, literal = 0, cut = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'I' || strcmp(t.ev[i].cat, "log") != 0) continue;
        logs++;
        literal += strcmp(t.ev[i].name, "a literal: no formatting, no copy") == 0;
        cut += strlen(t.ev[i].name) == LUDUS_MESSAGE_MAX;
    }
    assert_int_equal(logs, total);
    assert_int_equal(literal, 1);
    assert_int_equal(cut, 1);
    lt_trace_free(&t);

    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    uint64_t per_level = (uint64_t)THREADS * PER_THREAD / 4;
    ludus_analysis *a = analyze(c);
    ludus_message_stats m;
    ludus_analysis_get_messages(a, &m);
    assert_int_equal(m.count[LUDUS_LOG_ERROR], per_level + 1);
    assert_int_equal(m.count[LUDUS_LOG_INFO], per_level + 1);
    ludus_analysis_destroy(a);

    /* The same through a .ludus file: texts and levels survive. */
    same_through_file(c, "test_timeline_flood.ludus");
}

/* LUDUS_PROFILE_LOG formats when the capture is read: the same text as
 * snprintf at the call, through the JSON and through a .ludus file; what
 * cannot be formatted (%n) stops with a mark, never reads past the
 * arguments. */
static void test_deferred_format(void **state) {
    (void)state;
    char want[3][512];
    lt_begin(NULL);
#define BOTH(i, ...)                                       \
    do {                                                   \
        LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, __VA_ARGS__); \
        snprintf(want[i], sizeof want[i], __VA_ARGS__);    \
    } while (0)
    BOTH(0, "frame %d took %.2f ms (%s) %5.1f%% %llu %zu %x %c %-8s| %*d %.*s %+e %#o %hhd %ld", 36, 16.25, "stall",
         99.5, 123456789012ULL, (size_t)42, 255u, 'Z', "left", 6, -7, 3, "abcdef", -1.5e-7, 8u, (signed char)-3,
         -40000L);
    BOTH(1, "no arguments at all");
    char big[2000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    LUDUS_PROFILE_LOG(LUDUS_LOG_ERROR, "long: %s", big); /* the argument is cut to fit the message */
    int sink = 0;
    LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "before %n after %d", &sink, 5);
#undef BOTH
    lt_end();
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_capture *f = reopen(c, "test_timeline_fmt.ludus");
    for (int pass = 0; pass < 2; pass++) {
        char *json = lt_capture_json(pass ? f : c);
        lt_trace t;
        lt_trace_parse(&t, json);
        assert_true(lt_find(&t, 0, 'I', want[0]) >= 0);
        assert_true(lt_find(&t, 0, 'I', want[1]) >= 0);
        assert_true(lt_find(&t, 0, 'I', "before <?>%n after %d") >= 0);
        size_t longs = 0;
        for (size_t i = 0; i < t.n; i++)
            if (t.ev[i].ph == 'I' && !strncmp(t.ev[i].name, "long: yyy", 9)) {
                longs++;
                assert_true(strlen(t.ev[i].name) <= LUDUS_MESSAGE_MAX && strlen(t.ev[i].name) > 900);
            }
        assert_int_equal(longs, 1);
        lt_trace_free(&t);
        free(json);
    }
    ludus_capture_release(f);
    ludus_capture_release(c);
    remove("test_timeline_fmt.ludus");
}

/* diff: warnings and errors per frame, BASE against NEW, and the 'errors'
 * and 'warnings' gates (no frames here: the counts are the rates). */
static ludus_analysis *logged(int warnings, int errors) {
    lt_begin(NULL);
    for (int i = 0; i < warnings; i++) LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "w");
    for (int i = 0; i < errors; i++) ludus_log(LUDUS_LOG_ERROR, "e%d", i);
    { LUDUS_PROFILE_SCOPE(Something); /* a site: the analysis needs one */ }
    lt_end();
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_analysis *a = analyze(c);
    ludus_capture_release(c);
    return a;
}

static void test_messages_diff(void **state) {
    (void)state;
    ludus_analysis *base = logged(1, 0), *newer = logged(3, 1);
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create(base, newer, NULL, &d), 0);
    static const struct {
        const char *gate;
        int trips;
    } cases[] = {{"errors > +0%", 1},     /* none in BASE, one in NEW */
                 {"warnings > +100%", 1}, /* 1 -> 3: +200% */
                 {"warnings > +300%", 0},
                 {"warnings < -10%", 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ludus_gate g;
        assert_int_equal(ludus_gate_parse(cases[i].gate, &g), 0);
        assert_int_equal(ludus_diff_check_gates(d, &g, 1, NULL, NULL), (uint32_t)cases[i].trips);
    }
    lt_buf out = {0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_JSON, lt_buf_write, &out), 0);
    assert_non_null(strstr(out.data, "\"messages\":{\"base\":{\"debug\":0,\"info\":0,\"warning\":1,\"error\":0"));
    assert_non_null(strstr(out.data, "\"new\":{\"debug\":0,\"info\":0,\"warning\":3,\"error\":1"));
    lt_buf_free(&out);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(base);
    ludus_analysis_destroy(newer);
}

/* ---- async zones ---- */

typedef struct handoff {
    uint32_t track;
    uint64_t id;
} handoff;

static void *end_elsewhere(void *arg) {
    const handoff *h = arg;
    ludus_thread_register("finisher");
    ludus_async_end(h->track, h->id);
    return NULL;
}

static const ludus_async_stats *find_async(const ludus_analysis *a, const char *name) {
    for (uint32_t i = 0; i < ludus_analysis_async_count(a); i++)
        if (strcmp(ludus_analysis_async(a, i)->name, name) == 0) return ludus_analysis_async(a, i);
    fail_msg("no async site %s", name);
    return NULL;
}

static void check_async(ludus_capture *c) {
    ludus_analysis *a = analyze(c);
    const ludus_async_stats *load = find_async(a, "Load");
    assert_string_equal(load->track, "Loading");
    assert_int_equal(load->zones, 3); /* two interleaved, one handed over */
    assert_int_equal(load->incomplete, 0);
    assert_int_equal(load->cross_thread, 1);
    assert_int_equal(load->max_depth, 1);
    const ludus_async_stats *step = find_async(a, "Step");
    assert_int_equal(step->zones, 1);
    assert_int_equal(step->max_depth, 2); /* inside its id's Load */
    const ludus_async_stats *open = find_async(a, "NeverEnds");
    assert_int_equal(open->incomplete, 1);
    /* busy: exactly the top-level scope its thread ran while it was open */
    const ludus_async_stats *half = find_async(a, "Half");
    int64_t work = ludus_analysis_find_site(a, "Work");
    assert_true(work >= 0);
    assert_int_equal(half->thread_busy_ns, ludus_analysis_site(a, (uint32_t)work)->inclusive.total_ns);
    assert_true(half->thread_busy_ns < half->duration.total_ns);
    assert_int_equal(load->thread_busy_ns, 0); /* nothing ran in scopes while the loads were open */
    ludus_analysis_destroy(a);
}

static void test_async_zones(void **state) {
    (void)state;
    lt_begin(NULL);
    uint32_t track = ludus_async_track("Loading"), load = ludus_site_intern("Load"), step = ludus_site_intern("Step");
    /* interleaved on one thread: 1 and 2 overlap without nesting */
    ludus_async_begin(track, 1, load);
    ludus_async_begin(track, 2, load);
    ludus_async_begin(track, 1, step); /* nests in 1 */
    lt_spin_ns(20000);
    ludus_async_end(track, 1); /* the step */
    ludus_async_end(track, 1);
    ludus_async_end(track, 2);
    ludus_async_end(track, 99); /* nothing open: counted */
    /* handed across threads */
    ludus_async_begin(track, 3, load);
    handoff h = {track, 3};
    pthread_t th;
    pthread_create(&th, NULL, end_elsewhere, &h);
    pthread_join(th, NULL);
    LUDUS_PROFILE_ASYNC_BEGIN(Loading, 4, NeverEnds);
    LUDUS_PROFILE_ASYNC_BEGIN(Busy, 5, Half);
    {
        LUDUS_PROFILE_SCOPE(Work);
        lt_spin_ns(300000);
    }
    lt_spin_ns(300000);
    LUDUS_PROFILE_ASYNC_END(Busy, 5);
    lt_end();

    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 0);
    /* each zone a slice on its track's lane (a pseudo-thread) */
    assert_int_equal(lt_count(&t, 'B', "Load"), 3);
    assert_int_equal(lt_count(&t, 'B', "Step"), 1);
    assert_int_equal(lt_count(&t, 'B', "Half"), 1);
    long never = lt_find(&t, 0, 'B', "NeverEnds");
    assert_true(never >= 0);
    assert_true(t.ev[lt_match_end(&t, (size_t)never)].incomplete);
    long step_b = lt_find(&t, 0, 'B', "Step"), load1 = lt_find(&t, 0, 'B', "Load");
    assert_int_equal(t.ev[step_b].tid, t.ev[load1].tid); /* inside its id's zone, on its lane */
    assert_true(lt_count(&t, 'B', NULL) >= 6);
    assert_int_equal(meta_u64_of(&t, "async_unmatched_ends"), 1);
    lt_trace_free(&t);

    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    check_async(c);
    ludus_capture *f = reopen(c, "test_timeline_async.ludus");
    check_async(f); /* the file's zones, found by its own pass */
    ludus_capture_release(f);
    same_through_file(c, "test_timeline_async.ludus");
}

/* A time cut saved as .ludus keeps the async zones open at its start: one
 * begun before it and ended inside it on another thread, one never ended, and
 * one inside; the cut file reports them as the cut does (before, the first
 * two were lost: the one's end found no begin, the other was nowhere). */
static void check_cut_zones(ludus_capture *c, const char *what) {
    ludus_analysis *a = analyze(c);
    const ludus_async_stats *across = find_async(a, "Across"), *open = find_async(a, "StillOpen"),
                            *inside = find_async(a, "Inside");
    print_message("%s: across %llu/%llu, open %llu/%llu\n", what, (unsigned long long)across->zones,
                  (unsigned long long)across->cross_thread, (unsigned long long)open->zones,
                  (unsigned long long)open->incomplete);
    assert_int_equal(across->zones, 1);
    assert_int_equal(across->incomplete, 0);
    assert_int_equal(across->cross_thread, 1);
    assert_int_equal(open->zones, 1);
    assert_int_equal(open->incomplete, 1);
    assert_int_equal(inside->zones, 1);
    assert_int_equal(inside->incomplete, 0);
    ludus_analysis_destroy(a);
}

static void test_async_zones_cut(void **state) {
    (void)state;
    lt_begin(NULL);
    uint32_t track = ludus_async_track("Streaming"), across = ludus_site_intern("Across"),
             still = ludus_site_intern("StillOpen"), inside = ludus_site_intern("Inside");
    ludus_async_begin(track, 7, across);
    ludus_async_begin(track, 8, still);
    { LUDUS_PROFILE_SCOPE(Before); }
    lt_spin_ns(200000);
    int64_t middle = lt_now_ns(); /* the cut starts here (the capture's clock is CLOCK_MONOTONIC's) */
    lt_spin_ns(200000);
    handoff h = {track, 7};
    pthread_t th;
    pthread_create(&th, NULL, end_elsewhere, &h);
    pthread_join(th, NULL);
    ludus_async_begin(track, 9, inside);
    { LUDUS_PROFILE_SCOPE(After); }
    ludus_async_end(track, 9);
    lt_end();

    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_capture_info info;
    assert_int_equal(ludus_capture_get_info(c, &info), 0);
    ludus_cut_desc cd = {1, middle - info.start_ns, info.end_ns - info.start_ns, NULL, 0};
    ludus_capture *v = NULL;
    assert_int_equal(ludus_capture_cut(c, &cd, &v), 0);
    check_cut_zones(v, "the cut");
    ludus_capture *f = reopen(v, "test_timeline_async_cut.ludus");
    check_cut_zones(f, "the cut's file");
    ludus_capture_summary sv, sf;
    ludus_capture_get_summary(v, &sv);
    ludus_capture_get_summary(f, &sf);
    assert_int_equal(sf.incomplete, sv.incomplete);
    ludus_capture_release(f);
    ludus_capture_release(v);
    ludus_capture_release(c);
    remove("test_timeline_async_cut.ludus");
}

/* ---- fibers: one fiber's scope begun on one thread, ended on another ---- */

static pthread_mutex_t baton = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn = PTHREAD_COND_INITIALIZER;
static int stage;
static uintptr_t fiber_token; /* the fiber's open scope, carried between threads as a fiber's stack would */
static const ludus_site fiber_site = {"FiberWork", "fiber_body", __FILE__, NULL, __LINE__, 0};

static void wait_stage(int s) {
    pthread_mutex_lock(&baton);
    while (stage != s) pthread_cond_wait(&turn, &baton);
    pthread_mutex_unlock(&baton);
}

static void set_stage(int s) {
    pthread_mutex_lock(&baton);
    stage = s;
    pthread_cond_broadcast(&turn);
    pthread_mutex_unlock(&baton);
}

static void *second_thread(void *arg) {
    (void)arg;
    ludus_thread_register("runner 2");
    wait_stage(1);
    ludus_fiber_enter("Fiber X"); /* resumes on this thread */
    { LUDUS_PROFILE_SCOPE(OnSecondThread); }
    ludus__scope_end(fiber_token);
    ludus_fiber_leave();
    set_stage(2);
    return NULL;
}

static void test_fiber_between_threads(void **state) {
    (void)state;
    stage = 0;
    lt_begin(NULL);
    ludus_thread_register("runner 1");
    pthread_t th;
    pthread_create(&th, NULL, second_thread, NULL);
    {
        LUDUS_PROFILE_SCOPE(SchedulerLoop);
        ludus_fiber_enter("Fiber X");
        fiber_token = ludus__scope_begin(&fiber_site);
        lt_spin_ns(10000);
        ludus_fiber_leave(); /* yields inside FiberWork */
    }
    set_stage(1);
    wait_stage(2);
    pthread_join(th, NULL);
    lt_end();

    ludus_capture_summary sum = lt_summary();
    assert_int_equal(sum.orphan_ends, 0);
    assert_int_equal(sum.unwound, 0);
    assert_int_equal(sum.incomplete, 0);
    int fiber = -1;
    for (uint32_t i = 0; i < sum.threads; i++) {
        ludus_thread_summary ts;
        assert_int_equal(lt_last_thread(i, &ts), 0);
        if (strcmp(ts.name, "Fiber X") == 0) fiber = (int)i;
    }
    assert_true(fiber >= 0);

    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 0);
    long b = lt_find(&t, 0, 'B', "FiberWork");
    assert_true(b >= 0);
    long e = lt_match_end(&t, (size_t)b);
    assert_true(e >= 0);
    long inner = lt_find(&t, 0, 'B', "OnSecondThread");
    assert_int_equal(t.ev[inner].tid, t.ev[b].tid);    /* on the fiber's track */
    assert_int_equal(lt_count(&t, 'B', "Fiber X"), 2); /* each thread's time running it */
    lt_trace_free(&t);

    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_analysis *a = analyze(c);
    int64_t s = ludus_analysis_find_site(a, "FiberWork");
    assert_true(s >= 0);
    assert_int_equal(ludus_analysis_site(a, (uint32_t)s)->calls, 1);
    /* the thread's slices for the time it ran the fiber are not a site of their own (their work is the
     * fiber's, counted on its track), but they are child time of the scope around them */
    int64_t run = ludus_analysis_find_site(a, "Fiber X");
    assert_true(run < 0 || ludus_analysis_site(a, (uint32_t)run)->calls == 0);
    int64_t loop = ludus_analysis_find_site(a, "SchedulerLoop");
    assert_true(loop >= 0);
    const ludus_site_stats *ls = ludus_analysis_site(a, (uint32_t)loop);
    assert_true(ls->exclusive.total_ns < ls->inclusive.total_ns); /* the fiber's run is not its own time */
    ludus_analysis_destroy(a);
    same_through_file(c, "test_timeline_fiber.ludus");
}

/* A coroutine whose yield is a longjmp (Lua's): the fiber's C frames are
 * gone, so its open scopes never end. With an unwind point taken after the
 * enter they end at the yield, flagged unwound, on the fiber's track;
 * without one they stay open to capture end (incomplete). */
static jmp_buf yield_to;

static void coroutine_body(void) {
    LUDUS_PROFILE_SCOPE(CoroutineBody);
    longjmp(yield_to, 1); /* yield: the frames of the body are discarded */
}

static void run_coroutine(int with_unwind_point) {
    ludus_fiber_enter("co");
    ludus_unwind_point up = ludus_unwind_here();
    if (setjmp(yield_to) == 0) coroutine_body();
    if (with_unwind_point) ludus_unwound_to(up);
    ludus_fiber_leave();
}

static void test_fiber_longjmp_yield(void **state) {
    (void)state;
    for (int with = 1; with >= 0; with--) {
        lt_begin(NULL);
        ludus_thread_register("resumer");
        run_coroutine(with);
        lt_end();
        ludus_capture_summary sum = lt_summary();
        assert_int_equal(sum.unwound, with ? 1 : 0);
        assert_int_equal(sum.incomplete, with ? 0 : 1);
        lt_trace t;
        lt_trace_load(&t);
        lt_trace_check(&t, 0);
        long b = lt_find(&t, 0, 'B', "CoroutineBody");
        assert_true(b >= 0);
        long e = lt_match_end(&t, (size_t)b);
        assert_true(with ? t.ev[e].unwound : t.ev[e].incomplete);
        long run = lt_find(&t, 0, 'B', "co"); /* the resumer's slice for the run */
        assert_true(run >= 0);
        assert_true(t.ev[run].tid != t.ev[b].tid); /* the body is on the fiber's track */
        lt_trace_free(&t);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_message_flood, lt_teardown),
        cmocka_unit_test_teardown(test_deferred_format, lt_teardown),
        cmocka_unit_test_teardown(test_messages_diff, lt_teardown),
        cmocka_unit_test_teardown(test_async_zones, lt_teardown),
        cmocka_unit_test_teardown(test_async_zones_cut, lt_teardown),
        cmocka_unit_test_teardown(test_fiber_between_threads, lt_teardown),
        cmocka_unit_test_teardown(test_fiber_longjmp_yield, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
