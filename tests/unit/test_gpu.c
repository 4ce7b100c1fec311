/* GPU timing's transport-neutral core (<ludus/gpu.h>) with synthetic
 * samples whose truth is known:
 *   - a GPU clock that drifts (+50 ppm) against the CPU's, calibration points
 *     with a stated deviation and jitter inside it: every placed pass lies
 *     within its stated error bound of the truth; between points the bound
 *     is the points' deviation, beyond the last it grows and is flagged
 *   - passes that overlap on one queue go on separate lanes (JSON tracks)
 *   - a queue without calibration: named uncalibrated, each frame anchored
 *     at its CPU submission, spaced by device time
 *   - coverage: wrapped counters, samples from before the capture, rejected
 *     calibration points and what a backend counts, in the API and the JSON
 *   - a GPU-only capture (no CPU event) exports; JSON, pftrace and .ludus
 *     carry the same spans (the .ludus read back places them again)
 *   - hand-over without a capture is refused and kept nowhere
 *   - a forked child's capture keeps its own samples, not the parent's
 *   - a rolling window's snapshot joins its segments' GPU samples, each
 *     re-based to the window's start */
#define _GNU_SOURCE
#include <json.h>
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32 /* no fork on Windows (the port's unit suite): test_fork skips there */
#include <sys/wait.h>
#endif
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"

#define TRUE_PERIOD 1.00005 /* ns per tick: +50 ppm against the nominal 1.0 */
#define DEV_NS 200

static int64_t T0_CPU; /* CPU ns of GPU tick T0 */
static const uint64_t T0 = UINT64_C(5000000000);

static int64_t truth(uint64_t ticks) {
    return T0_CPU + (int64_t)llround((double)(ticks - T0) * TRUE_PERIOD);
}
static uint64_t ticks_at(int64_t cpu_ns) {
    return T0 + (uint64_t)llround((double)(cpu_ns - T0_CPU) / TRUE_PERIOD);
}

static ludus_gpu_context *make_ctx(const char *name, int queue, uint32_t bits) {
    ludus_gpu_context_desc d = {name, "synthetic", queue, 1.0, bits};
    ludus_gpu_context *x = NULL;
    assert_int_equal(ludus_gpu_context_create(&d, &x), 0);
    return x;
}

static char *json_of(ludus_capture *c) {
    lt_buf b = {0};
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, lt_buf_write, &b), 0);
    lt_buf_write(&b, "", 1);
    return b.data;
}

/* tid of the track named name in the JSON, or 0. */
static uint64_t track_tid(json_object *ev, const char *name) {
    for (size_t i = 0; i < json_object_array_length(ev); i++) {
        json_object *e = json_object_array_get_idx(ev, i), *v, *a, *n;
        if (!json_object_object_get_ex(e, "name", &v) || strcmp(json_object_get_string(v), "thread_name")) continue;
        if (json_object_object_get_ex(e, "args", &a) && json_object_object_get_ex(a, "name", &n) &&
            !strcmp(json_object_get_string(n), name)) {
            json_object_object_get_ex(e, "tid", &v);
            return (uint64_t)json_object_get_int64(v);
        }
    }
    return 0;
}

static size_t count_gpu_x(json_object *ev, uint64_t tid) {
    size_t n = 0;
    for (size_t i = 0; i < json_object_array_length(ev); i++) {
        json_object *e = json_object_array_get_idx(ev, i), *v;
        json_object_object_get_ex(e, "ph", &v);
        if (strcmp(json_object_get_string(v), "X")) continue;
        json_object_object_get_ex(e, "cat", &v);
        if (strcmp(json_object_get_string(v), "gpu")) continue;
        json_object_object_get_ex(e, "tid", &v);
        if (tid == 0 || (uint64_t)json_object_get_int64(v) == tid) n++;
    }
    return n;
}

static void test_calibrated_drift_overlap(void **state) {
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    lt_begin(NULL);
    int64_t start = lt_now_ns();
    T0_CPU = start + 1000000;
    /* calibration points every 10 ms for 60 ms, their CPU side off by up to
     * DEV_NS (inside the stated deviation) */
    static const int jitter[] = {150, -200, 90, -40, 200, -170, 0};
    for (int i = 0; i <= 6; i++) {
        int64_t cpu = T0_CPU + (int64_t)i * 10000000;
        assert_int_equal(ludus_gpu_calibrate(gfx, ticks_at(cpu), cpu + jitter[i], DEV_NS), 0);
    }
    /* a point too uncertain: rejected, counted */
    assert_int_equal(ludus_gpu_calibrate(gfx, ticks_at(T0_CPU), T0_CPU + 70000, 60000), 0);
    /* 20 frames of 3 passes, 3.5 ms apart; pass B overlaps pass A (async
     * compute on one queue); the last 3 frames lie beyond the last point */
    ludus_gpu_sample s[4 * 20];
    uint32_t n = 0;
    for (int f = 0; f < 20; f++) {
        int64_t fb = T0_CPU + 200000 + (int64_t)f * 3500000;
        uint64_t t = ticks_at(fb);
        s[n++] = (ludus_gpu_sample){NULL, (uint64_t)f, t, t + 3000000, 0, fb - 100000, 0};
        s[n++] = (ludus_gpu_sample){"Shadows", (uint64_t)f, t, t + 1000000, 0, fb - 100000, 0};
        s[n++] = (ludus_gpu_sample){"Lighting", (uint64_t)f, t + 500000, t + 2000000, 0, fb - 100000, 0};
        s[n++] = (ludus_gpu_sample){"Post", (uint64_t)f, t + 2000000, t + 3000000, 0, fb - 100000, 0};
    }
    assert_int_equal(ludus_gpu_submit(gfx, s, n), 0);
    ludus_gpu_note_coverage(gfx, LUDUS_GPU_FRAMES, 20);
    ludus_gpu_note_coverage(gfx, LUDUS_GPU_NOT_READY, 3);
    lt_spin_ns(T0_CPU + 80000000 - lt_now_ns()); /* the whole synthetic timeline lies inside the capture */
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_gpu_track_count(c), 1);
    ludus_gpu_track_info ti;
    assert_int_equal(ludus_capture_gpu_track(c, 0, &ti), 0);
    assert_string_equal(ti.name, "Graphics");
    assert_int_equal(ti.calibrated, 1);
    assert_int_equal(ti.calibration_points, 7);
    assert_int_equal(ti.calibration_breaks, 0);
    assert_int_equal(ti.lanes, 2); /* Lighting overlaps Shadows */
    assert_int_equal(ti.samples, 80);
    assert_int_equal(ti.passes, 60);
    assert_int_equal(ti.coverage[LUDUS_GPU_CALIBRATION_REJECTED], 1);
    assert_int_equal(ti.coverage[LUDUS_GPU_FRAMES], 20);
    assert_int_equal(ti.coverage[LUDUS_GPU_NOT_READY], 3);
    uint64_t ns = ludus_capture_gpu_span_count(c);
    assert_int_equal(ns, 80);
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_get_summary(c, &sum), 0);
    int64_t cs = sum.start_ns;
    int extrapolated = 0, interior = 0;
    for (uint64_t i = 0; i < ns; i++) {
        ludus_gpu_span sp;
        assert_int_equal(ludus_capture_gpu_span(c, i, &sp), 0);
        /* the synthetic truth of its begin, ns since capture start */
        int f = (int)sp.frame;
        int64_t fb = T0_CPU + 200000 + (int64_t)f * 3500000;
        uint64_t t = ticks_at(fb) + (sp.pass && !strcmp(sp.pass, "Lighting") ? 500000u
                                     : sp.pass && !strcmp(sp.pass, "Post")   ? 2000000u
                                                                             : 0u);
        int64_t want = truth(t) - cs;
        assert_true(llabs(sp.begin_ns - want) <= sp.error_ns + 1);
        assert_true(sp.error_ns >= DEV_NS);
        if (sp.flags & LUDUS_GPU_SPAN_EXTRAPOLATED) {
            extrapolated++;
            assert_true(sp.error_ns > DEV_NS); /* grows with the distance */
        } else {
            interior++;
            assert_int_equal(sp.error_ns, DEV_NS);
        }
        assert_false(sp.flags & LUDUS_GPU_SPAN_UNCALIBRATED);
        if (sp.pass && !strcmp(sp.pass, "Lighting")) assert_int_equal(sp.lane, 1);
        if (sp.pass && !strcmp(sp.pass, "Shadows")) {
            assert_int_equal(sp.lane, 0);
            assert_int_equal(sp.device_ns, 1000000);
        }
        if (!sp.pass) assert_int_equal(sp.device_ns, 3000000);
    }
    assert_true(extrapolated > 0 && interior > extrapolated);
    /* JSON: two lanes, 60 passes, frame counter, metadata */
    char *js = json_of(c);
    json_object *root = json_tokener_parse(js), *ev, *meta, *gpu;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "traceEvents", &ev));
    uint64_t l0 = track_tid(ev, "Graphics"), l1 = track_tid(ev, "Graphics lane 2");
    assert_true(l0 && l1 && l0 != l1);
    assert_int_equal(count_gpu_x(ev, l0), 40);
    assert_int_equal(count_gpu_x(ev, l1), 20);
    assert_true(strstr(js, "\"Graphics frame time (ns)\"") != NULL);
    assert_true(json_object_object_get_ex(root, "metadata", &meta));
    assert_true(json_object_object_get_ex(meta, "gpu", &gpu));
    json_object *g0 = json_object_array_get_idx(gpu, 0), *cov, *v;
    assert_true(json_object_object_get_ex(g0, "coverage", &cov));
    assert_true(json_object_object_get_ex(cov, "calibration_rejected", &v));
    assert_int_equal(json_object_get_int64(v), 1);
    json_object_put(root);
    free(js);
    /* .ludus: the same spans after a read back */
    lt_buf b = {0};
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, lt_buf_write, &b), 0);
    ludus_capture *f;
    assert_int_equal(ludus_capture_open_memory(b.data, b.len, &f), 0);
    assert_int_equal(ludus_capture_gpu_span_count(f), ns);
    for (uint64_t i = 0; i < ns; i++) {
        ludus_gpu_span x, y;
        assert_int_equal(ludus_capture_gpu_span(c, i, &x), 0);
        assert_int_equal(ludus_capture_gpu_span(f, i, &y), 0);
        assert_int_equal(x.begin_ns, y.begin_ns);
        assert_int_equal(x.end_ns, y.end_ns);
        assert_int_equal(x.error_ns, y.error_ns);
        assert_int_equal(x.lane, y.lane);
        assert_true((x.pass == NULL) == (y.pass == NULL));
        if (x.pass) assert_string_equal(x.pass, y.pass);
    }
    ludus_gpu_track_info fi;
    assert_int_equal(ludus_capture_gpu_track(f, 0, &fi), 0);
    assert_memory_equal(fi.coverage, ti.coverage, sizeof ti.coverage);
    assert_string_equal(fi.device, "synthetic");
    /* statistics and the report: device time per frame and per pass */
    ludus_gpu_stats *st;
    assert_int_equal(ludus_gpu_stats_create(f, &st), 0);
    assert_int_equal(ludus_gpu_stats_track_count(st), 1);
    const ludus_gpu_track_stats *ts = ludus_gpu_stats_track(st, 0);
    assert_int_equal(ts->frames, 20);
    assert_int_equal(ts->envelope_frames, 0);
    assert_int_equal(ts->frame_time.p50_ns, 3000000);
    assert_int_equal(ludus_gpu_stats_pass_count(st), 3);
    const ludus_gpu_pass_stats *ps = ludus_gpu_stats_pass(st, 0); /* largest total first */
    assert_string_equal(ps->pass, "Lighting");
    assert_int_equal(ps->duration.p50_ns, 1500000);
    assert_true(ps->calls_per_frame == 1.0);
    lt_buf rb = {0};
    assert_int_equal(ludus_gpu_report(st, NULL, LUDUS_REPORT_TEXT, lt_buf_write, &rb), 0);
    lt_buf_write(&rb, "", 1);
    assert_non_null(strstr(rb.data, "GPU frame time"));
    assert_non_null(strstr(rb.data, "Shadows"));
    lt_buf_free(&rb);
    lt_buf db = {0}; /* against itself: every row the same */
    assert_int_equal(ludus_gpu_report(st, st, LUDUS_REPORT_JSON, lt_buf_write, &db), 0);
    lt_buf_write(&db, "", 1);
    json_object *dj = json_tokener_parse(db.data);
    assert_non_null(dj);
    assert_null(strstr(db.data, "\"slower\""));
    assert_non_null(strstr(db.data, "\"verdict\":\"same\""));
    json_object_put(dj);
    lt_buf_free(&db);
    /* the HTML report carries the GPU chart's data */
    ludus_analysis *an;
    assert_int_equal(ludus_analysis_create(f, NULL, &an), 0);
    ludus_report_options ro = {0, "gpu", st};
    lt_buf hb = {0};
    assert_int_equal(ludus_analysis_report(an, NULL, LUDUS_REPORT_HTML, &ro, lt_buf_write, &hb), 0);
    lt_buf_write(&hb, "", 1);
    assert_non_null(strstr(hb.data, "id=\"gpuframes\""));
    assert_non_null(strstr(hb.data, "\"gpu\":{\"tracks\":[{\"track\":\"Graphics\""));
    lt_buf_free(&hb);
    ludus_analysis_destroy(an);
    ludus_gpu_stats_destroy(st);
    /* pftrace writes (its contents are checked by the format tests) */
    lt_buf pb = {0};
    assert_int_equal(ludus_capture_write(f, LUDUS_FORMAT_PFTRACE, 0, lt_buf_write, &pb), 0);
    assert_true(pb.len > 1000);
    lt_buf_free(&pb);
    ludus_capture_release(f);
    lt_buf_free(&b);
    ludus_capture_release(c);
    ludus_gpu_context_destroy(gfx);
}

static void test_uncalibrated_coverage_gpu_only(void **state) {
    (void)state;
    ludus_gpu_context *cq = make_ctx(NULL, LUDUS_GPU_QUEUE_COMPUTE, 32);
    ludus_gpu_sample early = {"Early", 0, 10, 20, 0, lt_now_ns() - 1000, 0};
    assert_int_equal(ludus_gpu_submit(cq, &early, 1), LUDUS_ENOCAPTURE); /* no capture: kept nowhere */
    lt_begin(NULL);
    int64_t t0 = lt_now_ns();
    assert_int_equal(ludus_gpu_submit(cq, &early, 1), 0); /* submitted before the capture: left out, counted */
    /* two frames; the second's counter wraps at 2^32 (period 2 ns) */
    uint64_t wrap = (UINT64_C(1) << 32) - 100;
    ludus_gpu_sample s[] = {
        {"Sim", 1, 1000, 1500, 2.0, t0 + 10000, 0},
        {"Integrate", 1, 1600, 2600, 2.0, t0 + 10000, 0},
        {"Sim", 2, wrap, wrap + 400, 2.0, t0 + 50000, 0}, /* end ticks wrap to 300 */
    };
    s[2].end_ticks &= 0xffffffffu;
    assert_int_equal(ludus_gpu_submit(cq, s, 3), 0);
    ludus_gpu_sample backwards = {"Backwards", 3, 5000, 4000, 2.0, t0 + 60000, 0}; /* left out, counted */
    assert_int_equal(ludus_gpu_submit(cq, &backwards, 1), 0);
    ludus_gpu_note_coverage(cq, LUDUS_GPU_RING_FULL, 2);
    ludus_gpu_note_coverage(cq, LUDUS_GPU_LOST, 1);
    lt_spin_ns(100000);
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_get_summary(c, &sum), 0);
    assert_int_equal(sum.events, 0); /* no CPU instrumentation at all */
    ludus_gpu_track_info ti;
    assert_int_equal(ludus_capture_gpu_track(c, 0, &ti), 0);
    assert_string_equal(ti.name, "GPU compute");
    assert_int_equal(ti.calibrated, 0);
    assert_int_equal(ti.coverage[LUDUS_GPU_BEFORE_CAPTURE], 1);
    assert_int_equal(ti.coverage[LUDUS_GPU_RING_FULL], 2);
    assert_int_equal(ti.coverage[LUDUS_GPU_LOST], 1);
    assert_int_equal(ti.coverage[LUDUS_GPU_WRAPPED], 1);
    assert_int_equal(ti.coverage[LUDUS_GPU_INVALID], 1); /* the sample that ends before it begins */
    assert_int_equal(ludus_capture_gpu_span_count(c), 3);
    int64_t anchor1 = t0 + 10000 - sum.start_ns, anchor2 = t0 + 50000 - sum.start_ns;
    for (uint64_t i = 0; i < 3; i++) {
        ludus_gpu_span sp;
        assert_int_equal(ludus_capture_gpu_span(c, i, &sp), 0);
        assert_true(sp.flags & LUDUS_GPU_SPAN_UNCALIBRATED);
        assert_int_equal(sp.error_ns, 0);
        if (sp.frame == 1 && !strcmp(sp.pass, "Sim")) {
            assert_int_equal(sp.begin_ns, anchor1);
            assert_int_equal(sp.device_ns, 1000);
        }
        if (sp.frame == 1 && !strcmp(sp.pass, "Integrate")) {
            assert_int_equal(sp.begin_ns, anchor1 + 1200); /* 600 ticks after the frame's first, 2 ns each */
            assert_int_equal(sp.end_ns, anchor1 + 3200);
        }
        if (sp.frame == 2) {
            assert_true(sp.flags & LUDUS_GPU_SPAN_WRAPPED);
            assert_int_equal(sp.device_ns, 800); /* 400 ticks across the wrap */
            assert_int_equal(sp.begin_ns, anchor2);
        }
    }
    /* a GPU-only capture exports; the track says it is uncalibrated */
    char *js = json_of(c);
    json_object *root = json_tokener_parse(js), *ev;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "traceEvents", &ev));
    uint64_t tid = track_tid(ev, "GPU compute (uncalibrated)");
    assert_true(tid != 0);
    assert_int_equal(count_gpu_x(ev, tid), 3);
    assert_true(strstr(js, "\"before_capture\":1") != NULL);
    assert_true(strstr(js, "\"ring_full\":2") != NULL);
    json_object_put(root);
    free(js);
    ludus_capture_release(c);
    ludus_gpu_context_destroy(cq);
}

/* Passes linked to their CPU submission by a caller flow. */
static void test_flow_link(void **state) {
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    uint32_t site = ludus_site_intern("submit pass");
    lt_begin(NULL);
    ludus_thread_register("render");
    int64_t now = lt_now_ns();
    assert_int_equal(ludus_gpu_calibrate(gfx, 1000000, now, 100), 0);
    uint64_t flow = LUDUS_CALLER_FLOW_ID_BIT | 0x4242u;
    LUDUS_PROFILE_SCOPE(Submit);
    ludus_flow_begin(site, flow);
    ludus_gpu_sample s = {"Blit", 7, 1000000 + 20000, 1000000 + 30000, 1.0, lt_now_ns(), flow};
    assert_int_equal(ludus_gpu_submit(gfx, &s, 1), 0);
    assert_int_equal(ludus_gpu_calibrate(gfx, 1000000 + 40000, now + 40000, 100), 0);
    lt_spin_ns(now + 60000 - lt_now_ns());
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    char *js = json_of(c);
    json_object *root = json_tokener_parse(js);
    assert_non_null(root);
    lt_trace t;
    lt_trace_parse(&t, js);
    /* one s (the CPU submission) and one f (the pass) with the same id */
    assert_int_equal(t.n_s, 1);
    assert_int_equal(t.n_f, 1);
    assert_int_equal(t.flows_unmatched, 0);
    lt_trace_free(&t);
    json_object_put(root);
    free(js);
    ludus_capture_release(c);
    ludus_gpu_context_destroy(gfx);
}

/* A GPU counter reset between two points (a suspend): a break, no line is
 * drawn across it; a pass after it is placed from the points on its side. */
static void test_calibration_break(void **state) {
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    lt_begin(NULL);
    int64_t t0 = lt_now_ns() + 1000000;
    assert_int_equal(ludus_gpu_calibrate(gfx, 100000000, t0, 100), 0);
    assert_int_equal(ludus_gpu_calibrate(gfx, 110000000, t0 + 10000000, 100), 0);
    /* the counter restarts near 0 here */
    assert_int_equal(ludus_gpu_calibrate(gfx, 5000000, t0 + 20000000, 100), 0);
    assert_int_equal(ludus_gpu_calibrate(gfx, 15000000, t0 + 30000000, 100), 0);
    ludus_gpu_sample sm[] = {
        {"Before", 1, 105000000, 105001000, 0, t0, 0},         /* between the first two points */
        {"After", 2, 10000000, 10001000, 0, t0 + 20000000, 0}, /* between the last two */
    };
    assert_int_equal(ludus_gpu_submit(gfx, sm, 2), 0);
    lt_spin_ns(t0 + 31000000 - lt_now_ns());
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_get_summary(c, &sum), 0);
    ludus_gpu_track_info ti;
    assert_int_equal(ludus_capture_gpu_track(c, 0, &ti), 0);
    assert_int_equal(ti.calibration_points, 4);
    assert_int_equal(ti.calibration_breaks, 1);
    for (uint64_t i = 0; i < 2; i++) {
        ludus_gpu_span sp;
        assert_int_equal(ludus_capture_gpu_span(c, i, &sp), 0);
        int64_t want = !strcmp(sp.pass, "Before") ? t0 + 5000000 : t0 + 25000000;
        assert_true(llabs(sp.begin_ns - (want - sum.start_ns)) <= sp.error_ns);
        assert_int_equal(sp.error_ns, 100);
        assert_false(sp.flags & LUDUS_GPU_SPAN_EXTRAPOLATED);
    }
    ludus_capture_release(c);
    ludus_gpu_context_destroy(gfx);
}

static void test_fork(void **state) {
#ifdef _WIN32
    (void)state;
    skip();
#else
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    lt_begin(NULL);
    ludus_gpu_sample parent = {"Parent", 1, 100, 200, 0, lt_now_ns(), 0};
    assert_int_equal(ludus_gpu_submit(gfx, &parent, 1), 0);
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) { /* the child: its capture restarted; only what it hands over is its own */
        ludus_gpu_sample child = {"Child", 2, 300, 400, 0, lt_now_ns(), 0};
        int ok = ludus_gpu_submit(gfx, &child, 1) == 0 && ludus_capture_end(NULL) == 0;
        ludus_capture *c = NULL;
        ok = ok && ludus_capture_last(&c) == 0 && ludus_capture_gpu_span_count(c) == 1;
        ludus_gpu_span sp;
        ok = ok && ludus_capture_gpu_span(c, 0, &sp) == 0 && !strcmp(sp.pass, "Child") && sp.submit_ns >= 0;
        _exit(ok ? 0 : 1);
    }
    int st = 0;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    assert_int_equal(WEXITSTATUS(st), 0);
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_gpu_span_count(c), 1);
    ludus_gpu_span sp;
    assert_int_equal(ludus_capture_gpu_span(c, 0, &sp), 0);
    assert_string_equal(sp.pass, "Parent");
    ludus_capture_release(c);
    ludus_gpu_context_destroy(gfx);
#endif
}

static void test_rolling_window(void **state) {
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    ludus_rolling_desc rd = {0};
    rd.window_ms = 400;
    rd.segments = 4;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    int rc = ludus_rolling_begin(NULL, &rd);
    if (rc == LUDUS_EUNSUPPORTED) skip(); /* Windows: no rolling window yet */
    assert_int_equal(rc, 0);
    /* a frame every 5 ms for 300 ms: it crosses several segment switches */
    enum { FRAMES = 60 };
    int64_t submitted[FRAMES];
    for (int f = 0; f < FRAMES; f++) {
        LUDUS_PROFILE_FRAME();
        submitted[f] = lt_now_ns();
        ludus_gpu_sample sm = {"Pass", (uint64_t)f, 1000u * (uint64_t)f, 1000u * (uint64_t)f + 500u, 0, submitted[f],
                               0};
        ludus_gpu_submit(gfx, &sm, 1); /* refused (counted nowhere) during a segment switch's pause */
        lt_spin_ns(5000000);
    }
    ludus_capture *c;
    assert_int_equal(ludus_rolling_snapshot(&c), 0);
    assert_int_equal(ludus_rolling_end(), 0);
    ludus_capture_summary sum;
    assert_int_equal(ludus_capture_get_summary(c, &sum), 0);
    uint64_t n = ludus_capture_gpu_span_count(c);
    assert_true(n >= FRAMES / 2); /* the window holds most of them */
    assert_int_equal(ludus_capture_gpu_track_count(c), 1);
    for (uint64_t i = 0; i < n; i++) {
        ludus_gpu_span sp;
        assert_int_equal(ludus_capture_gpu_span(c, i, &sp), 0);
        assert_true(sp.frame < FRAMES);
        assert_int_equal(sp.submit_ns, submitted[sp.frame] - sum.start_ns); /* re-based to the window */
        assert_int_equal(sp.begin_ns, sp.submit_ns); /* uncalibrated: anchored at its frame's submission */
        assert_int_equal(sp.device_ns, 500);
    }
    ludus_capture_release(c);
    ludus_gpu_context_destroy(gfx);
}

/* Contexts that come and go in one capture: 10,000 created and destroyed
 * one at a time with nothing handed over take no room (a slot is taken
 * again), and 5,000 that each hand one sample over stay, past the 4,096
 * the old reader accepted: the old code saved that capture with return 0
 * into a file its reader refused ("counts exceed"), losing every CPU event
 * with it. The file opens, with every context that holds something. */
static void test_context_churn(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 1000; i++) {
        LUDUS_PROFILE_SCOPE(CpuWork);
    }
    for (int i = 0; i < 10000; i++) ludus_gpu_context_destroy(make_ctx("Empty", LUDUS_GPU_QUEUE_GRAPHICS, 64));
    enum { KEPT = 5000 };
    for (int i = 0; i < KEPT; i++) {
        ludus_gpu_context *x = make_ctx("Short", LUDUS_GPU_QUEUE_COMPUTE, 64);
        ludus_gpu_sample sm = {"Pass", (uint64_t)i, 1000u, 2000u, 0, lt_now_ns(), 0};
        assert_int_equal(ludus_gpu_submit(x, &sm, 1), 0);
        ludus_gpu_context_destroy(x);
    }
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_gpu_track_count(c), KEPT);
    lt_buf b = {0};
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, lt_buf_write, &b), 0);
    ludus_capture_release(c);
    ludus_capture *f = NULL;
    int rc = ludus_capture_open_memory(b.data, b.len, &f);
    if (rc) print_message("open: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    assert_int_equal(ludus_capture_gpu_track_count(f), KEPT);
    assert_int_equal(ludus_capture_gpu_span_count(f), KEPT);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(f, &in), 0);
    assert_int_equal(in.summary.events, 2000);
    ludus_capture_release(f);
    free(b.data);
}

/* ludus_capture_desc.record: a GPU-only capture holds the GPU's spans and
 * nothing of the CPU (the recorder stays disarmed); a CPU-only one holds the
 * scopes, takes GPU samples (0) and keeps none; other bits are refused. */
static void test_record_cpu_or_gpu(void **state) {
    (void)state;
    ludus_gpu_context *gfx = make_ctx("Graphics", LUDUS_GPU_QUEUE_GRAPHICS, 64);
    ludus_capture_desc bad = {.record = 4};
    assert_int_equal(ludus_capture_begin(&bad), LUDUS_EINVAL);
    for (int mode = 0; mode < 2; mode++) {
        ludus_capture_desc d = {.record = mode ? LUDUS_RECORD_CPU : LUDUS_RECORD_GPU};
        lt_begin(&d);
        for (int i = 0; i < 100; i++) {
            LUDUS_PROFILE_SCOPE(CpuWork);
        }
        LUDUS_PROFILE_FRAME();
        ludus_gpu_sample sm = {"Pass", 1, 1000u, 2000u, 0, lt_now_ns(), 0};
        assert_int_equal(ludus_gpu_submit(gfx, &sm, 1), 0);
        assert_int_equal(ludus_gpu_calibrate(gfx, 1000u, lt_now_ns(), 1000), 0);
        ludus_capture *c = NULL;
        assert_int_equal(ludus_capture_end(&c), 0);
        ludus_capture_summary s;
        assert_int_equal(ludus_capture_get_summary(c, &s), 0);
        if (mode == 0) {
            assert_int_equal(s.events, 0);
            assert_int_equal(s.dropped, 0);
            assert_int_equal(ludus_capture_gpu_span_count(c), 1);
        } else {
            assert_int_equal(s.events, 201);
            assert_int_equal(ludus_capture_gpu_span_count(c), 0);
        }
        ludus_capture_release(c);
    }
    assert_int_equal(ludus_gpu_submit(gfx, &(ludus_gpu_sample){"Late", 2, 1, 2, 0, 0, 0}, 1), LUDUS_ENOCAPTURE);
    ludus_gpu_context_destroy(gfx);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_calibrated_drift_overlap, lt_teardown),
        cmocka_unit_test_teardown(test_uncalibrated_coverage_gpu_only, lt_teardown),
        cmocka_unit_test_teardown(test_flow_link, lt_teardown),
        cmocka_unit_test_teardown(test_calibration_break, lt_teardown),
        cmocka_unit_test_teardown(test_fork, lt_teardown),
        cmocka_unit_test_teardown(test_rolling_window, lt_teardown),
        cmocka_unit_test_teardown(test_context_churn, lt_teardown),
        cmocka_unit_test_teardown(test_record_cpu_or_gpu, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
