/* The normaliser's two paths give one stream. normalize.c pairs most events
 * in an inline loop (scan_run_k, fast_other) and the rest through step() and
 * the on_* handlers; ludus__nev_slow_path sends every event through step().
 * Every capture here (a frame loop with every kind of event on several
 * threads, deep recursion, span lanes, unwinds, fibers, losses, slices open
 * at capture end, a category filter; each saved and read back; a streamed
 * capture's file; the format's old files) is read both ways, with and
 * without begins, and the streams must be the same event for event, with
 * each thread's frames numbered 1, 2, ...; a difference names the event
 * (index, thread, kind, site) and the field. */
#define _GNU_SOURCE /* pthread_barrier_t */
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/nev.h"
#include "nev_check.h"
#include "test_util.h"

/* Reads every thread of c four ways (fast and slow, with and without
 * begins) and checks the slow stream equals the fast one; returns the
 * events compared (with begins). */
static size_t compare_paths(ludus_capture *c, const char *label) {
    lt_check_i64(lt_what("%s: ludus__prepare", label), 0, ludus__prepare(c));
    size_t events = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        for (unsigned nb = 0; nb <= LT_NEV_NO_BEGINS; nb += LT_NEV_NO_BEGINS) {
            size_t nf, ns;
            ludus__nev *fast = lt_nev_stream(c, t, nb, &nf), *slow = lt_nev_stream(c, t, nb | LT_NEV_SLOW, &ns);
            char fast_name[160], slow_name[160];
            snprintf(fast_name, sizeof fast_name, "the fast path%s of \"%s\"", nb ? " (no begins)" : "", label);
            snprintf(slow_name, sizeof slow_name, "the slow path%s", nb ? " (no begins)" : "");
            lt_nev_same(c, t, fast_name, fast, nf, slow_name, slow, ns);
            /* and both right where they agree: a thread's frames numbered 1, 2, ... */
            uint64_t frame = 0;
            for (size_t i = 0; i < nf; i++)
                if (fast[i].kind == LUDUS_NEV_FRAME)
                    lt_check_u64(lt_what("%s: its frame number", lt_nev_where(c, t, i, &fast[i])), ++frame,
                                 fast[i].value);
            if (!nb) events += nf;
            free(fast);
            free(slow);
        }
    }
    printf("%-34s %u threads, %zu events the same on both paths\n", label, c->nthreads, events);
    return events;
}

/* The capture c as a .ludus file read back (events loaded run by run). */
static size_t compare_saved(ludus_capture *c, const char *label) {
    char dir[512], path[600];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "nev_paths"), 0);
    snprintf(path, sizeof path, "%s/c.ludus", dir);
    lt_check_i64(lt_what("%s: save", label), 0, ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path));
    ludus_capture *f = NULL;
    lt_check_i64(lt_what("%s: open the saved file", label), 0, ludus_capture_open(path, &f));
    size_t n = compare_paths(f, lt_what("%s, saved", label));
    ludus_capture_release(f);
    lt_remove_dir(dir);
    return n;
}

static ludus_capture *end_capture(void) {
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_end(&c), 0);
    assert_non_null(c);
    return c;
}

static void check_both(ludus_capture *c, const char *label, size_t at_least) {
    size_t n = compare_paths(c, label);
    lt_check(lt_what("%s: at least %zu events compared (got %zu)", label, at_least, n), n >= at_least);
    lt_check_u64(lt_what("%s, saved: events compared", label), n, compare_saved(c, label));
    ludus_capture_release(c);
}

/* ---- a frame loop with every kind of event, on three threads ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t frame_start, frame_done;

static void *worker(void *arg) {
    uint32_t site = *(const uint32_t *)arg;
    for (int f = 0; f < 40; f++) {
        pthread_barrier_wait(&frame_start);
        LUDUS_PROFILE_SCOPE(Job);
        for (int i = 0; i < 20; i++) {
            LUDUS_PROFILE_SCOPE(Task);
            {
                LUDUS_PROFILE_LOCK_WAIT(Queue);
                pthread_mutex_lock(&lock);
            }
            pthread_mutex_unlock(&lock);
            LUDUS_PROFILE_ANNOTATE(Item, i);
            if (i % 5 == 0) ludus_span_begin(site);
            if (i % 5 == 4) ludus_span_end();
        }
        LUDUS_PROFILE_COUNT(Jobs, 1);
        pthread_barrier_wait(&frame_done);
    }
    return NULL;
}

static void frame_loop(void) {
    static const char *const dyn[] = {"Dyn A", "Dyn B", "Dyn C"};
    ludus_site_desc sd = {"Registered", "cat", "nev_paths.c", 7};
    uint32_t site = ludus_site_register(&sd);
    uint32_t track = ludus_async_track("Loads");
    ludus_memory_domain dom = ludus_memory_domain_register("Paths heap");
    ludus_gpu_context_desc gd = {"GPU paths", NULL, LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 64};
    ludus_gpu_context *gpu = NULL;
    int64_t t0 = ludus_gpu_cpu_now_ns();
    if (ludus_gpu_context_create(&gd, &gpu) == 0) ludus_gpu_calibrate(gpu, 1000, t0, 0);
    pthread_t th[2];
    pthread_barrier_init(&frame_start, NULL, 3);
    pthread_barrier_init(&frame_done, NULL, 3);
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, worker, &site), 0);
    for (int f = 0; f < 40; f++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Frame);
        pthread_barrier_wait(&frame_start);
        {
            LUDUS_PROFILE_SCOPE(Update);
            LUDUS_PROFILE_SCOPE_DYN(dyn[f % 3]);
            uint64_t id = LUDUS_PROFILE_FLOW_OUT(Handoff);
            LUDUS_PROFILE_FLOW_IN(id);
        }
        ludus_span_begin(site);
        ludus_span_end();
        LUDUS_PROFILE_MARK(Tick);
        LUDUS_PROFILE_GAUGE(Entities, f);
        LUDUS_PROFILE_PLOT(Load, (double)f);
        ludus_memory_alloc(dom, 100);
        ludus_memory_free(dom, 40);
        ludus_async_begin(track, (uint64_t)f, site);
        if (f > 0) ludus_async_end(track, (uint64_t)f - 1); /* async zones overlap */
        LUDUS_PROFILE_ASYNC_BEGIN(Streams, (uint64_t)f, Stream);
        LUDUS_PROFILE_ASYNC_END(Streams, (uint64_t)f);
        ludus_log(LUDUS_LOG_WARNING, "warning %d", f);
        LUDUS_PROFILE_LOG(LUDUS_LOG_ERROR, "error %d", f);
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_INFO, "a message");
        LUDUS_PROFILE_ANNOTATE_TEXT(Level, "forest");
        if (gpu) {
            uint64_t b = 2000 + (uint64_t)f * 1000;
            ludus_gpu_sample s[2] = {{NULL, (uint64_t)f, b, b + 900, 0, t0 + 1, 0},
                                     {"Pass", (uint64_t)f, b + 10, b + 100, 0, t0 + 1, 0}};
            ludus_gpu_submit(gpu, s, 2);
        }
        pthread_barrier_wait(&frame_done);
    }
    LUDUS_PROFILE_FRAME();
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&frame_start);
    pthread_barrier_destroy(&frame_done);
    if (gpu) ludus_gpu_calibrate(gpu, 1000 + 100000, t0 + 100000, 0);
    ludus_gpu_context_destroy(gpu);
}

static void test_frame_loop(void **state) {
    (void)state;
    lt_begin(NULL);
    frame_loop();
    check_both(end_capture(), "frame loop, 3 threads", 40 * 100);
}

/* The same loop with only the category "cat" shown: lock waits and the
 * other categories' events are filtered (the fast loop leaves them to step()). */
static void test_category_filter(void **state) {
    (void)state;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.categories = "cat";
    lt_begin(&d);
    frame_loop();
    check_both(end_capture(), "frame loop, categories=cat", 40 * 20);
}

/* ---- deep recursion: stacks grown, batches full ---- */

static void recurse(int depth) {
    LUDUS_PROFILE_SCOPE(Recurse);
    if (depth % 100 == 0) LUDUS_PROFILE_MARK(Hundred);
    if (depth > 0) recurse(depth - 1);
}

static void test_deep_recursion(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int f = 0; f < 5; f++) {
        LUDUS_PROFILE_FRAME();
        recurse(3000);
    }
    check_both(end_capture(), "deep recursion", 5 * 6000);
}

/* ---- spans on lanes: ends out of order, across scopes, mismatched ---- */

static void test_span_lanes(void **state) {
    (void)state;
    uint32_t a = ludus_site_intern("Span A"), b = ludus_site_intern("Span B");
    lt_begin(NULL);
    for (int i = 0; i < 200; i++) {
        LUDUS_PROFILE_FRAME();
        ludus_span_begin(a);
        {
            LUDUS_PROFILE_SCOPE(Outer);
            ludus_span_begin(b);
            ludus_span_end_site(a); /* not the innermost: on a lane */
            LUDUS_PROFILE_SCOPE(Inner);
        }
        ludus_span_end();
        LUDUS_PROFILE_BEGIN(Streaming);
        {
            LUDUS_PROFILE_SCOPE(Work);
            LUDUS_PROFILE_END(); /* ends inside Work: a lane of its own */
        }
        if (i % 50 == 0) ludus_span_end_site(b); /* nothing open: a mismatched end */
        if (i % 70 == 0) ludus_span_begin(0);    /* an invalid id */
    }
    ludus_span_begin(a); /* left open: incomplete */
    check_both(end_capture(), "span lanes", 200 * 10);
}

/* ---- unwinds: longjmp, with and without ludus_unwound_to ---- */

static jmp_buf env;

static void thrower(void) {
    LUDUS_PROFILE_SCOPE(Thrown);
    {
        LUDUS_PROFILE_SCOPE(ThrownMiddle);
        {
            LUDUS_PROFILE_SCOPE(ThrownInner);
            longjmp(env, 1);
        }
    }
}

static void test_unwinds(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 300; i++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Outer);
        ludus_unwind_point up = ludus_unwind_here();
        if (setjmp(env) == 0)
            thrower();
        else if (i % 2 == 0)
            ludus_unwound_to(up); /* told */
        /* else: found when Outer ends (its end names its begin) */
    }
    check_both(end_capture(), "unwinds", 300 * 8);
}

/* ---- fibers: a thread runs several, each with its own scopes ---- */

static void test_fibers(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 100; i++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Scheduler);
        for (int k = 0; k < 3; k++) {
            static const char *const names[] = {"Fiber 1", "Fiber 2", "Fiber 3"};
            ludus_fiber_enter(names[k]);
            {
                LUDUS_PROFILE_SCOPE(FiberWork);
                LUDUS_PROFILE_MARK(Yield);
            }
            ludus_fiber_leave();
        }
    }
    check_both(end_capture(), "fibers", 100 * 4);
}

/* ---- losses: a small pool overflows, a loss marker in the stream ---- */

static void test_losses(void **state) {
    (void)state;
    ludus_capture_desc d = lt_small_desc(4);
    lt_begin(&d);
    for (int i = 0; i < 20000; i++) {
        if (i % 100 == 0) LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Flood);
        LUDUS_PROFILE_SCOPE(FloodInner);
    }
    ludus_capture *c = end_capture();
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(c, &s), 0);
    lt_check("events dropped by the small pool", s.dropped > 0);
    check_both(c, "losses", 500);
}

/* ---- a streamed capture (its file written while it ran, read back) ---- */

static void test_streamed(void **state) {
    (void)state;
    char dir[512], path[600];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "nev_paths_stream"), 0);
    snprintf(path, sizeof path, "%s/s.ludus", dir);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.stream_path = path;
    lt_begin(&d);
    frame_loop();
    for (int f = 0; f < 3; f++) recurse(1000);
    ludus_capture *none = NULL;
    assert_int_equal(ludus_capture_end(&none), 0);
    ludus_capture *c = NULL;
    lt_check_i64("open the streamed file", 0, ludus_capture_open(path, &c));
    size_t n = compare_paths(c, "streamed frame loop");
    lt_check(lt_what("streamed: at least %d events compared (got %zu)", 40 * 100, n), n >= 40 * 100);
    ludus_capture_release(c);
    lt_remove_dir(dir);
}

/* ---- scopes and spans left open at capture end (closed there, incomplete) ---- */

static void test_open_at_end(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 100; i++) {
        LUDUS_PROFILE_SCOPE(During);
        LUDUS_PROFILE_MARK(Step);
    }
    LUDUS_PROFILE_BEGIN(LeftOpen);
    {
        LUDUS_PROFILE_SCOPE(AlsoOpen);
        ludus_capture *c = end_capture();
        assert_int_equal(ludus__prepare(c), 0);
        lt_check_u64("slices closed at capture end (LeftOpen, AlsoOpen)", 2, c->incomplete);
        check_both(c, "open at capture end", 300);
    }
    LUDUS_PROFILE_END();
}

/* ---- the format's older files (events read from a file of version 4) ---- */

static void test_old_files(void **state) {
    (void)state;
    static const char *const names[] = {"v4-messages-compact.ludus", "v4-messages-raw.ludus"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", LUDUS_TEST_DATA_DIR, names[i]);
        ludus_capture *c = NULL;
        lt_check_i64(lt_what("open %s", path), 0, ludus_capture_open(path, &c));
        lt_check(lt_what("%s: events compared", names[i]), compare_paths(c, names[i]) > 0);
        ludus_capture_release(c);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_frame_loop, lt_teardown),
        cmocka_unit_test_teardown(test_category_filter, lt_teardown),
        cmocka_unit_test_teardown(test_deep_recursion, lt_teardown),
        cmocka_unit_test_teardown(test_span_lanes, lt_teardown),
        cmocka_unit_test_teardown(test_unwinds, lt_teardown),
        cmocka_unit_test_teardown(test_fibers, lt_teardown),
        cmocka_unit_test_teardown(test_losses, lt_teardown),
        cmocka_unit_test_teardown(test_open_at_end, lt_teardown),
        cmocka_unit_test_teardown(test_streamed, lt_teardown),
        cmocka_unit_test(test_old_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
