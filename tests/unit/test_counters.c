/* Counters, gauges, plots, memory domains and the ring of recent frames.
 *   - exact sums: threads add known amounts (and some exit half-way) while
 *     the main thread closes frames; every add lands in exactly one frame,
 *     in the ring and in the capture's per-frame statistics alike
 *   - gauges: last, min and max per frame, the level carried in
 *   - memory domains: cross-thread frees, a late domain whose frees of older
 *     memory make its live figures unknown (never negative), a baseline
 *   - the overlay's text for frames whose values are known
 *   - the exports: JSON counter events and the coverage manifest parsed
 *     back, and a .ludus file whose analysis matches the live one
 * Labelled concurrency: it runs under ThreadSanitizer too. */
#define _GNU_SOURCE
#include <json.h>
#include <math.h>
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <pthread.h>
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

#define THREADS 4
#define ADDS 20000

static ludus_memory_domain flood_mem;

/* Adds 1..ADDS (the thread's id times each) to Flood, and 3 every 64 steps
 * to Flood from another site (two sites, one counter); sets a gauge; every
 * 16 steps allocates 16 bytes in FloodMem, freed 16 steps later. Odd threads exit
 * half-way. */
static void *flooder(void *arg) {
    int64_t id = (int64_t)(intptr_t)arg;
    int64_t n = (id & 1) ? ADDS / 2 : ADDS;
    for (int64_t i = 1; i <= n; i++) {
        LUDUS_PROFILE_COUNT(Flood, id * i);
        if (i % 64 == 0) LUDUS_PROFILE_COUNT(Flood, 3);
        if (i % 16 == 0) {
            ludus_memory_alloc(flood_mem, 16);
            if (i > 16) ludus_memory_free(flood_mem, 16);
        }
        LUDUS_PROFILE_GAUGE(FloodLevel, i);
    }
    ludus_memory_free(flood_mem, 16);
    return NULL;
}

static int64_t expected_flood(void) {
    int64_t total = 0;
    for (int64_t id = 1; id <= THREADS; id++) {
        int64_t n = (id & 1) ? ADDS / 2 : ADDS;
        total += id * n * (n + 1) / 2 + 3 * (n / 64);
    }
    return total;
}

/* Sum of a ring value over frames [first, last]; the first ones may
 * predate the counter's first use. */
static int64_t ring_sum(const char *name, const char *stat, uint64_t first, uint64_t last) {
    int64_t sum = 0;
    int seen = 0;
    for (uint64_t f = first; f <= last; f++) {
        int64_t v = 0;
        int rc = ludus_frame_ring_value(f, name, stat, &v);
        if (rc == LUDUS_ENODATA && !seen) continue; /* frames closed before the first count */
        assert_int_equal(rc, 0);
        seen = 1;
        sum += v;
    }
    return sum;
}

static void test_flood_exact(void **st) {
    (void)st;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 64;
    assert_int_equal(ludus_capture_begin(&d), 0);
    flood_mem = ludus_memory_domain_register("FloodMem");
    uint64_t first0 = 0, last0 = 0;
    int had = ludus_frame_ring_frames(&first0, &last0) == 0;
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, flooder, (void *)(intptr_t)(i + 1));
    /* frame boundaries race with the adds */
    for (int f = 0; f < 200; f++) {
        LUDUS_PROFILE_FRAME();
        lt_spin_ns(100000);
    }
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    LUDUS_PROFILE_FRAME(); /* closes the last adds into a frame */
    assert_int_equal(ludus_capture_end(NULL), 0);

    uint64_t first, last;
    assert_int_equal(ludus_frame_ring_frames(&first, &last), 0);
    uint64_t from = had ? last0 + 1 : first;
    assert_int_equal(ring_sum("Flood", "per frame", from, last), expected_flood());
    int64_t allocs = 0;
    for (int64_t id = 1; id <= THREADS; id++) allocs += ((id & 1) ? ADDS / 2 : ADDS) / 16;
    assert_int_equal(ring_sum("Memory/FloodMem", "allocations", from, last), allocs);
    assert_int_equal(ring_sum("Memory/FloodMem", "frees", from, last), allocs);
    assert_int_equal(ring_sum("Memory/FloodMem", "bytes freed", from, last), 16 * allocs);
    int64_t v;
    assert_int_equal(ludus_frame_ring_value(last, "Memory/FloodMem", "live bytes", &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(ludus_frame_ring_value(last, "FloodLevel", "max", &v), 0);
    assert_true(v <= ADDS);

    /* the capture holds the same per-frame values (frames after its first mark) */
    ludus_analysis *a;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    int64_t k = ludus_analysis_find_counter(a, "Flood", "per frame");
    assert_true(k >= 0);
    const ludus_counter_stats *cs = ludus_analysis_counter(a, (uint32_t)k);
    assert_string_equal(cs->kind, "count");
    assert_true(cs->values <= cs->frames_in_window && cs->values > 0);
    uint64_t nframes = ludus_analysis_frame_count(a); /* lead-in + frames + tail */
    int64_t in_capture = 0;
    for (uint64_t f = 1; f + 1 < nframes; f++) {
        double v;
        if (ludus_analysis_counter_in_frame(a, (uint32_t)k, f, &v) == LUDUS_ENODATA) { /* before its first count */
            int64_t live;
            assert_int_equal(ludus_frame_ring_value(from + f, "Flood", "per frame", &live), LUDUS_ENODATA);
            continue;
        }
        in_capture += (int64_t)v;
        int64_t live;
        /* capture frame f is the ring's frame (the capture's first mark) + f */
        assert_int_equal(ludus_frame_ring_value(from + f, "Flood", "per frame", &live), 0);
        assert_int_equal((int64_t)v, live);
    }
    assert_true(cs->total == (double)in_capture);
    /* what the capture's lead-in holds is the ring's first frame of it */
    int64_t lead = 0;
    int rc = ludus_frame_ring_value(from, "Flood", "per frame", &lead);
    assert_true(rc == 0 || rc == LUDUS_ENODATA); /* no count yet when the first mark closed it */
    assert_int_equal(in_capture + lead, expected_flood());
    ludus_analysis_destroy(a);
}

static void test_gauges(void **st) {
    (void)st;
    LUDUS_PROFILE_FRAME();
    LUDUS_PROFILE_GAUGE(Level, 10);
    LUDUS_PROFILE_GAUGE(Level, 4);
    LUDUS_PROFILE_GAUGE(Level, 7);
    LUDUS_PROFILE_FRAME(); /* frame A: 10, 4, 7 */
    LUDUS_PROFILE_FRAME(); /* frame B: not set: the level 7 carried */
    LUDUS_PROFILE_GAUGE(Level, 12);
    LUDUS_PROFILE_FRAME(); /* frame C: 7 carried in, then 12 */
    uint64_t last;
    assert_int_equal(ludus_frame_ring_frames(NULL, &last), 0);
    int64_t v[3];
    const char *stats[3] = {"last", "min", "max"};
    const int64_t want[3][3] = {{7, 4, 10}, {7, 7, 7}, {12, 7, 12}};
    for (int f = 0; f < 3; f++)
        for (int s = 0; s < 3; s++) {
            assert_int_equal(ludus_frame_ring_value(last - 2 + (uint64_t)f, "Level", stats[s], &v[s]), 0);
            assert_int_equal(v[s], want[f][s]);
        }
    assert_int_equal(ludus_frame_ring_value(last, "Level", "per frame", &v[0]), LUDUS_EINVAL);
    assert_int_equal(ludus_frame_ring_value(last, "NoSuchGauge", "last", &v[0]), LUDUS_EINVAL);
}

/* The ends of the range are values like any other: a gauge at INT64_MAX
 * (the old code took it for "not set": its min was still the sentinel) or
 * at INT64_MIN in its first frame, and carried into the next. */
static void test_gauge_extremes(void **st) {
    (void)st;
    LUDUS_PROFILE_FRAME();
    LUDUS_PROFILE_GAUGE(AtMax, INT64_MAX);
    LUDUS_PROFILE_GAUGE(AtMin, INT64_MIN);
    LUDUS_PROFILE_FRAME(); /* their first frame */
    LUDUS_PROFILE_FRAME(); /* carried */
    uint64_t last;
    assert_int_equal(ludus_frame_ring_frames(NULL, &last), 0);
    const char *stats[3] = {"last", "min", "max"};
    for (uint64_t f = last - 1; f <= last; f++)
        for (int k = 0; k < 3; k++) {
            int64_t v = 0;
            assert_int_equal(ludus_frame_ring_value(f, "AtMax", stats[k], &v), 0);
            assert_true(v == INT64_MAX);
        }
    int64_t v = 0;
    assert_int_equal(ludus_frame_ring_value(last - 1, "AtMin", "max", &v), 0);
    assert_true(v == INT64_MIN);
}

static ludus_memory_domain dom_x;
static void *free_elsewhere(void *arg) {
    for (int i = 0; i < 100; i++) ludus_memory_free(dom_x, (uint64_t)(intptr_t)arg);
    return NULL;
}

static void test_memory(void **st) {
    (void)st;
    dom_x = ludus_memory_domain_register("CrossThread");
    assert_true(dom_x != 0);
    assert_int_equal(ludus_memory_domain_register("CrossThread"), dom_x);
    LUDUS_PROFILE_FRAME();
    for (int i = 0; i < 100; i++) ludus_memory_alloc(dom_x, 64);
    LUDUS_PROFILE_FRAME(); /* 100 x 64 live */
    pthread_t th;
    pthread_create(&th, NULL, free_elsewhere, (void *)(intptr_t)64);
    pthread_join(th, NULL);
    ludus_memory_alloc(dom_x, 1000);
    LUDUS_PROFILE_FRAME(); /* freed on another thread; 1000 live */
    uint64_t last;
    assert_int_equal(ludus_frame_ring_frames(NULL, &last), 0);
    int64_t v;
    assert_int_equal(ludus_frame_ring_value(last - 1, "Memory/CrossThread", "live bytes", &v), 0);
    assert_int_equal(v, 6400);
    assert_int_equal(ludus_frame_ring_value(last - 1, "Memory/CrossThread", "allocations", &v), 0);
    assert_int_equal(v, 100);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/CrossThread", "live bytes", &v), 0);
    assert_int_equal(v, 1000);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/CrossThread", "live allocations", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/CrossThread", "peak live bytes", &v), 0);
    assert_int_equal(v, 6400); /* live 6400 when the frame began */
    assert_int_equal(ludus_frame_ring_value(last, "Memory/CrossThread", "bytes freed", &v), 0);
    assert_int_equal(v, 6400);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/CrossThread", "frees", &v), 0);
    assert_int_equal(v, 100);

    /* registered late: a free of older memory makes live unknown, never
     * negative: no live, live allocations or peak value (the old code gave
     * -500 here and recorded it in captures, unflagged), churn exact */
    ludus_memory_domain late = ludus_memory_domain_register("Late");
    ludus_memory_free(late, 500);
    ludus_memory_domain based = ludus_memory_domain_register("Based");
    ludus_memory_baseline(based, 4096, 2);
    ludus_memory_free(based, 1024);
    LUDUS_PROFILE_FRAME();
    assert_int_equal(ludus_frame_ring_frames(NULL, &last), 0);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/Based", "live bytes", &v), 0);
    assert_int_equal(v, 3072);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/Based", "live allocations", &v), 0);
    assert_int_equal(v, 1);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/Late", "live bytes", &v), LUDUS_ENODATA);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/Late", "peak live bytes", &v), LUDUS_ENODATA);
    assert_int_equal(ludus_frame_ring_value(last, "Memory/Late", "bytes freed", &v), 0);
    assert_int_equal(v, 500);
    char text[4096];
    assert_true(ludus_overlay_format(text, sizeof text, NULL) > 0);
    assert_non_null(strstr(text, "Memory/Late: live unknown (frees of untracked memory;"));
    assert_null(strstr(text, "-500"));
    assert_non_null(strstr(text, "Memory/Based: live 3.0 KiB,"));
    assert_non_null(strstr(text, "Memory/CrossThread: live 1000 B (since registration)"));

    /* the manifest: in every export */
    assert_int_equal(ludus_capture_begin(NULL), 0);
    assert_int_equal(ludus_memory_sample(), 4); /* FloodMem too */
    LUDUS_PROFILE_FRAME();
    assert_int_equal(ludus_capture_end(NULL), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    uint32_t n = ludus_capture_memory_coverage_count(c);
    int seen = 0;
    for (uint32_t i = 0; i < n; i++) {
        ludus_memory_coverage m;
        assert_int_equal(ludus_capture_memory_coverage(c, i, &m), 0);
        if (!strcmp(m.name, "Late")) seen |= 1, assert_true(m.unknown && !m.outside);
        if (!strcmp(m.name, "Based")) seen |= 2, assert_true(m.has_baseline && m.live_bytes == 3072);
        if (!strcmp(m.name, "CrossThread"))
            seen |= 4, assert_true(m.live_bytes == 1000 && m.allocs == 101 && m.frees == 100 && m.since_ns < 0);
        if (!strcmp(m.name, "ludus capture pool")) seen |= 8, assert_true(m.outside && m.live_bytes > 0);
    }
    assert_int_equal(seen, 15);
    char *json = lt_capture_json(c);
    lt_trace t;
    lt_trace_parse(&t, json);
    struct json_object *cov, *doms;
    assert_true(json_object_object_get_ex(t.metadata, "memory_coverage", &cov));
    assert_true(json_object_object_get_ex(cov, "domains", &doms));
    assert_int_equal(json_object_array_length(doms), 4);
    size_t samples = 0, live = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C') continue;
        if (!strcmp(t.ev[i].name, "Memory/Based") && !strcmp(t.ev[i].series, "value")) {
            samples++;
            assert_int_equal(t.ev[i].ivalue, 3072);
        }
        if (!strcmp(t.ev[i].name, "Memory/Based") && !strcmp(t.ev[i].series, "live bytes")) live++;
        /* the unknown domain's live figures: none recorded, churn there */
        if (!strcmp(t.ev[i].name, "Memory/Late"))
            assert_true(strcmp(t.ev[i].series, "live bytes") && strcmp(t.ev[i].series, "peak live bytes") &&
                        strcmp(t.ev[i].series, "live allocations"));
    }
    assert_int_equal(samples, 1);
    assert_int_equal(live, 1);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(c);
}

/* Counts with known per-frame values; the overlay's counter lines are exact. */
static void test_overlay_text(void **st) {
    (void)st;
    for (int f = 0; f < 10; f++) {
        LUDUS_PROFILE_COUNT(Draws, 100 + 10 * (f % 5)); /* 100 110 120 130 140 100 ... */
        LUDUS_PROFILE_FRAME();
    }
    char text[4096];
    ludus_overlay_desc d = {.window_frames = 5, .max_lines = 64};
    int n = ludus_overlay_format(text, sizeof text, &d);
    assert_true(n > 0 && (size_t)n < sizeof text);
    assert_non_null(strstr(text, "last 5 frames (to frame "));
    /* the last five frames hold 100..140: mean 120, max 140 */
    assert_non_null(strstr(text, "Draws per frame, last 5 frames: mean 120.0, max 140\n"));
    /* cut: snprintf semantics */
    char small[16];
    assert_int_equal(ludus_overlay_format(small, sizeof small, &d), n);
    assert_int_equal(strlen(small), sizeof small - 1);
}

/* A plot keeps integers and doubles; a .ludus file gives the analysis of the live capture. */
static void test_plot_and_file(void **st) {
    (void)st;
    assert_int_equal(ludus_capture_begin(NULL), 0);
    for (int f = 0; f < 20; f++) {
        LUDUS_PROFILE_PLOT(PlotInt, f * 3);
        LUDUS_PROFILE_PLOT(PlotDouble, f * 0.5);
        LUDUS_PROFILE_COUNT(FileCount, f);
        LUDUS_PROFILE_FRAME();
    }
    assert_int_equal(ludus_capture_end(NULL), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    char path[] = "/tmp/ludus-counters-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *f;
    assert_int_equal(ludus_capture_open(path, &f), 0);
    ludus_analysis *a, *b;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    assert_int_equal(ludus_analysis_create(f, NULL, &b), 0);
    assert_int_equal(ludus_analysis_counter_count(a), ludus_analysis_counter_count(b));
    for (uint32_t i = 0; i < ludus_analysis_counter_count(a); i++) {
        const ludus_counter_stats *x = ludus_analysis_counter(a, i);
        int64_t j = ludus_analysis_find_counter(b, x->name, x->series);
        assert_true(j >= 0);
        const ludus_counter_stats *y = ludus_analysis_counter(b, (uint32_t)j);
        assert_true(x->values == y->values && x->total == y->total && x->max == y->max && x->p50 == y->p50);
    }
    int64_t k = ludus_analysis_find_counter(b, "PlotDouble", "samples");
    assert_true(k >= 0);
    assert_true(ludus_analysis_counter(b, (uint32_t)k)->max == 9.5);
    k = ludus_analysis_find_counter(b, "FileCount", "per frame");
    assert_true(k >= 0);
    /* 20 marks: frames 1..19; frame f (between marks f and f+1) counted f */
    assert_true(ludus_analysis_counter(b, (uint32_t)k)->total == 19.0 * 20.0 / 2.0);
    assert_int_equal(ludus_capture_memory_coverage_count(f), ludus_capture_memory_coverage_count(c));
    ludus_analysis_destroy(a);
    ludus_analysis_destroy(b);
    ludus_capture_release(f);
    ludus_capture_release(c);
    unlink(path);
}

/* fork while another thread closes frames (it holds the ring's lock): the
 * child counts and closes frames of its own, and never hangs. */
static int frames_stop;
static void *frame_spinner(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&frames_stop, __ATOMIC_ACQUIRE)) LUDUS_PROFILE_FRAME();
    return NULL;
}

static void test_fork(void **st) {
#ifdef _WIN32
    (void)st;
    skip();
#else
    (void)st;
    pthread_t t;
    pthread_create(&t, NULL, frame_spinner, NULL);
    for (int i = 0; i < 20; i++) {
        LUDUS_PROFILE_COUNT(BeforeFork, 1);
        pid_t pid = fork() /* the spinner runs: a fork among threads, on purpose */;
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(10); /* a hang fails the test instead of blocking it */
            LUDUS_PROFILE_COUNT(InChild, 5);
            LUDUS_PROFILE_FRAME();
            uint64_t last;
            int64_t v = 0;
            int ok = ludus_frame_ring_frames(NULL, &last) == 0 &&
                     ludus_frame_ring_value(last, "InChild", "per frame", &v) == 0;
            _exit(ok && v == 5 ? 0 : 1);
        }
        int status = 0;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    __atomic_store_n(&frames_stop, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
#endif
}

/* A report into a string (the caller frees it). */
static char *report_of(const ludus_analysis *a, int format) {
    lt_buf b = {0};
    assert_int_equal(ludus_analysis_report(a, NULL, format, NULL, lt_buf_write, &b), 0);
    return b.data;
}

/* Per-frame amounts near the int64 limits: the window's sum of an integer
 * counter is held at INT64_MAX (or INT64_MIN) and flagged, never wrapped,
 * and every report says so; a sum that fits stays exact. (The old code
 * summed in doubles: 2 x INT64_MAX came out as 2^64, with no flag.) */
static void test_sum_saturates(void **st) {
    (void)st;
    assert_int_equal(ludus_capture_begin(NULL), 0);
    LUDUS_PROFILE_FRAME();
    for (int f = 0; f < 3; f++) {
        LUDUS_PROFILE_COUNT(SatUp, INT64_MAX - 1);
        LUDUS_PROFILE_COUNT(SatDown, INT64_MIN + 1);
        LUDUS_PROFILE_COUNT(Fits, f == 0 ? INT64_MAX - 7 : f == 1 ? 5 : 2);
        LUDUS_PROFILE_FRAME();
    }
    assert_int_equal(ludus_capture_end(NULL), 0);
    ludus_analysis *a;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    const ludus_counter_stats *up =
        ludus_analysis_counter(a, (uint32_t)ludus_analysis_find_counter(a, "SatUp", "per frame"));
    const ludus_counter_stats *down =
        ludus_analysis_counter(a, (uint32_t)ludus_analysis_find_counter(a, "SatDown", "per frame"));
    const ludus_counter_stats *fits =
        ludus_analysis_counter(a, (uint32_t)ludus_analysis_find_counter(a, "Fits", "per frame"));
    assert_non_null(up);
    assert_non_null(down);
    assert_non_null(fits);
    assert_int_equal(up->values, 3);
    assert_true(up->saturated && up->total == (double)INT64_MAX);
    assert_true(down->saturated && down->total == (double)INT64_MIN);
    assert_false(fits->saturated);
    assert_true(fits->total == (double)INT64_MAX);
    assert_true(up->mean > 9e18 && up->max == (double)(INT64_MAX - 1)); /* the mean is not bent by the limit */
    char *json = report_of(a, LUDUS_REPORT_JSON);
    struct json_object *root = json_tokener_parse(json), *counters;
    assert_non_null(root);
    assert_true(json_object_object_get_ex(root, "counters", &counters));
    int seen = 0;
    for (size_t i = 0; i < json_object_array_length(counters); i++) {
        struct json_object *c = json_object_array_get_idx(counters, i), *name, *sat, *total;
        assert_true(json_object_object_get_ex(c, "name", &name));
        assert_true(json_object_object_get_ex(c, "saturated", &sat));
        assert_true(json_object_object_get_ex(c, "total", &total));
        const char *nm = json_object_get_string(name);
        if (!strcmp(nm, "SatUp") || !strcmp(nm, "SatDown")) {
            seen++;
            assert_true(json_object_get_boolean(sat));
            assert_true(fabs(json_object_get_double(total)) <= 9223372036854775808.0);
        } else if (!strcmp(nm, "Fits")) {
            assert_false(json_object_get_boolean(sat));
        }
    }
    assert_int_equal(seen, 2);
    json_object_put(root);
    free(json);
    char *text = report_of(a, LUDUS_REPORT_TEXT);
    assert_non_null(strstr(text, "SatUp per frame: the window's sum is saturated at INT64_MAX"));
    assert_non_null(strstr(text, "SatDown per frame: the window's sum is saturated at INT64_MIN"));
    assert_null(strstr(text, "Fits per frame: the window's sum is saturated"));
    free(text);
    ludus_analysis_destroy(a);
}

int main(void) {
    assert_int_equal(ludus_frame_ring_configure(4096), 0);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_flood_exact), cmocka_unit_test(test_gauges),        cmocka_unit_test(test_gauge_extremes),
        cmocka_unit_test(test_memory),      cmocka_unit_test(test_overlay_text),  cmocka_unit_test(test_plot_and_file),
        cmocka_unit_test(test_fork),        cmocka_unit_test(test_sum_saturates),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    return rc;
}
