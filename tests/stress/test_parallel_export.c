/* Captures are objects: four threads export and report four different
 * captures at once (two in-memory captures, a file, a cut of it), each
 * holding every kind of event, through every exporter and every report,
 * with no shared state in the exporters or the analysis (run under
 * ThreadSanitizer by make test-tsan). Each output equals the same work done
 * alone. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static jmp_buf env;

static void unwinds(void) {
    LUDUS_PROFILE_SCOPE(Skipped); /* left by longjmp */
    longjmp(env, 1);
}

/* *half: CLOCK_MONOTONIC ns when half the frames were recorded. Every kind
 * of event the recorder has: scopes, spans (one closed out of order), a
 * run-time name, flows, marks, counters, gauges, a memory domain, plots,
 * messages (a literal, a formatted one, a deferred one), async zones (many,
 * so their lanes take sorting), a fiber, an unwind point, a lock wait,
 * annotations of every type, GPU samples. */
static ludus_capture *record(int frames, int64_t *half) {
    lt_begin(NULL);
    uint32_t q = ludus_intern_name("queue"), a = ludus_intern_name("SpanA"), b = ludus_intern_name("SpanB");
    uint32_t track = ludus_async_track("Loading"), zone = ludus_intern_name("Chunk");
    static ludus_memory_domain dom;
    if (!dom) dom = ludus_memory_domain_register("Parallel");
    ludus_gpu_context_desc gd = {"Parallel GPU", NULL, LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 0};
    ludus_gpu_context *gpu = NULL;
    assert_int_equal(ludus_gpu_context_create(&gd, &gpu), 0);
    int64_t t0 = ludus_gpu_cpu_now_ns();
    assert_int_equal(ludus_gpu_calibrate(gpu, (uint64_t)t0, t0, 0), 0);
    for (int f = 0; f < frames; f++) {
        LUDUS_PROFILE_SCOPE(Frame);
        LUDUS_PROFILE_ANNOTATE(FrameNo, f);
        for (int i = 0; i < 20; i++) {
            LUDUS_PROFILE_SCOPE(Work, jobs);
            LUDUS_PROFILE_ANNOTATE(Index, (unsigned)i);
            LUDUS_PROFILE_ANNOTATE(Scale, i * 0.5);
            LUDUS_PROFILE_ANNOTATE_TEXT(Name, i % 2 ? "odd" : "even");
            ludus_sample_counter(q, i);
            ludus_sample_counter_f64(q, i * 0.25);
            LUDUS_PROFILE_PLOT(Plot, i);
            uint64_t fl = LUDUS_PROFILE_FLOW_OUT(Hand);
            LUDUS_PROFILE_FLOW_IN(fl);
            ludus_async_begin(track, (uint64_t)(f * 20 + i), zone);
            if (i >= 4) ludus_async_end(track, (uint64_t)(f * 20 + i - 4));
        }
        for (int i = 16; i < 20; i++) ludus_async_end(track, (uint64_t)(f * 20 + i));
        ludus_begin_site(a);
        ludus_begin_site(b);
        ludus_end_site_id(a); /* out of order: SpanA closes with SpanB open */
        ludus_end_site();
        { LUDUS_PROFILE_SCOPE_DYN(f % 2 ? "DynOdd" : "DynEven"); }
        ludus_fiber_enter("Fiber");
        { LUDUS_PROFILE_SCOPE(OnFiber); }
        ludus_fiber_leave();
        ludus_unwind_point up = ludus_unwind_here();
        if (setjmp(env) == 0)
            unwinds();
        else
            ludus_unwound_to(up);
        { LUDUS_PROFILE_LOCK_WAIT(ParallelLock); }
        LUDUS_PROFILE_MARK(Marked);
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "literal");
        ludus_log(LUDUS_LOG_ERROR, "formatted %d", f);
        LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "deferred %d %s", f, "text");
        LUDUS_PROFILE_COUNT(Draws, 10 + f);
        LUDUS_PROFILE_GAUGE(Level, f % 7);
        ludus_memory_alloc(dom, 64);
        ludus_memory_free(dom, 64);
        ludus_record_memory_gauges();
        int64_t t = ludus_gpu_cpu_now_ns();
        ludus_gpu_sample smp = {
            f % 2 ? "Pass" : NULL, (uint64_t)f, (uint64_t)(t - 5000), (uint64_t)(t - 1000), 0.0, t - 6000, 0};
        assert_int_equal(ludus_gpu_submit(gpu, &smp, 1), 0);
        LUDUS_PROFILE_FRAME();
        if (f == frames / 2) *half = lt_now_ns();
    }
    lt_end();
    ludus_gpu_context_destroy(gpu);
    ludus_capture *c;
    assert_int_equal(ludus_capture_get_last(&c), 0);
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_summarize(c, &sum), 0);
    assert_int_equal(sum.dropped, 0);
    return c;
}

typedef struct job {
    ludus_capture *c;
    lt_buf json, pftrace, ludus, raw, report, report_json, html;
    int rc;
} job;

static void job_free(job *j) {
    lt_buf_free(&j->json), lt_buf_free(&j->pftrace), lt_buf_free(&j->ludus), lt_buf_free(&j->raw);
    lt_buf_free(&j->report), lt_buf_free(&j->report_json), lt_buf_free(&j->html);
}

/* Every exporter and every report of the analysis, several rounds. */
static void *work(void *arg) {
    job *j = arg;
    for (int round = 0; round < 6 && !j->rc; round++) {
        job_free(j);
        j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_JSON, 0, lt_buf_write, &j->json);
        if (!j->rc) j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_PFTRACE, 0, lt_buf_write, &j->pftrace);
        ludus_capture_info in;
        int time_cut = ludus_capture_get_info(j->c, &in) == 0 && in.cut; /* .ludus holds whole threads */
        if (!j->rc && !time_cut) j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_LUDUS, 0, lt_buf_write, &j->ludus);
        if (!j->rc && !time_cut)
            j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_RAW, lt_buf_write, &j->raw);
        ludus_analysis *a = NULL;
        if (!j->rc) j->rc = ludus_analyze(j->c, NULL, &a);
        if (!j->rc) j->rc = ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, lt_buf_write, &j->report);
        if (!j->rc) j->rc = ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, lt_buf_write, &j->report_json);
        if (!j->rc) j->rc = ludus_analysis_report(a, NULL, LUDUS_REPORT_HTML, NULL, lt_buf_write, &j->html);
        ludus_analysis_destroy(a);
    }
    return NULL;
}

static void same(const lt_buf *a, const lt_buf *b) {
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len);
}

static void test_two_captures_at_once(void **state) {
    (void)state;
    int64_t half, unused;
    ludus_capture *mem = record(30, &half);
    char path[64];
    snprintf(path, sizeof path, "/tmp/ludus-parallel-%d.ludus", (int)getpid());
    assert_int_equal(ludus_capture_save(mem, LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *other = record(50, &unused); /* the library moved on; mem is still ours */
    ludus_capture *file;
    assert_int_equal(ludus_capture_open(path, &file), 0);
    /* up to the middle of the frames: a fixed range could hold no event when
     * the capture started slowly (ThreadSanitizer on a loaded machine) */
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_summarize(file, &sum), 0);
    ludus_cut_desc cd = {1, 0, half - sum.start_ns, NULL, 0};
    ludus_capture *cut;
    assert_int_equal(ludus_capture_cut(file, &cd, &cut), 0);
    ludus_capture *caps[4] = {mem, other, file, cut};
    job alone[4], together[4];
    memset(alone, 0, sizeof alone);
    memset(together, 0, sizeof together);
    for (int i = 0; i < 4; i++) {
        alone[i].c = together[i].c = caps[i];
        work(&alone[i]);
        assert_int_equal(alone[i].rc, 0);
    }
    pthread_t th[4];
    for (int i = 0; i < 4; i++) assert_int_equal(pthread_create(&th[i], NULL, work, &together[i]), 0);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(together[i].rc, 0);
        same(&alone[i].json, &together[i].json);
        same(&alone[i].pftrace, &together[i].pftrace);
        same(&alone[i].ludus, &together[i].ludus);
        same(&alone[i].raw, &together[i].raw);
        same(&alone[i].report, &together[i].report);
        same(&alone[i].report_json, &together[i].report_json);
        same(&alone[i].html, &together[i].html);
    }
    /* a file and the capture it was saved from give the same JSON */
    same(&alone[0].json, &alone[2].json);
    for (int i = 0; i < 4; i++) {
        job_free(&alone[i]);
        job_free(&together[i]);
        ludus_capture_release(caps[i]);
    }
    unlink(path);
}

int main(void) {
    ludus_register_thread_for_trace("main");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_two_captures_at_once, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
