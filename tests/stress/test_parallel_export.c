/* Captures are objects: two threads export and report two different
 * captures at once (an in-memory capture, a file, a cut of it), with no
 * shared state in the exporters or the analysis (run under ThreadSanitizer
 * by make test-tsan). Each output equals the same work done alone. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
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

/* *half: CLOCK_MONOTONIC ns when half the frames were recorded */
static ludus_capture *record(int frames, int64_t *half) {
    lt_begin(NULL);
    uint32_t q = ludus_intern_name("queue");
    for (int f = 0; f < frames; f++) {
        LUDUS_PROFILE_SCOPE(Frame);
        for (int i = 0; i < 20; i++) {
            LUDUS_PROFILE_SCOPE(Work, jobs);
            ludus_sample_counter(q, i);
        }
        LUDUS_PROFILE_FRAME();
        if (f == frames / 2) *half = lt_now_ns();
    }
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_get_last(&c), 0);
    return c;
}

typedef struct job {
    ludus_capture *c;
    lt_buf json, pftrace, report;
    int rc;
} job;

static void *work(void *arg) {
    job *j = arg;
    for (int round = 0; round < 3 && !j->rc; round++) {
        lt_buf_free(&j->json);
        lt_buf_free(&j->pftrace);
        lt_buf_free(&j->report);
        j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_JSON, 0, lt_buf_write, &j->json);
        if (!j->rc) j->rc = ludus_capture_write(j->c, LUDUS_FORMAT_PFTRACE, 0, lt_buf_write, &j->pftrace);
        ludus_analysis *a = NULL;
        if (!j->rc) j->rc = ludus_analyze(j->c, NULL, &a);
        if (!j->rc) j->rc = ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, lt_buf_write, &j->report);
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
    int64_t half = 0, unused = 0; /* set by record() (frames > 1); GCC at -O3 cannot see it */
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
        same(&alone[i].report, &together[i].report);
    }
    /* a file and the capture it was saved from give the same JSON */
    same(&alone[0].json, &alone[2].json);
    for (int i = 0; i < 4; i++) {
        lt_buf_free(&alone[i].json), lt_buf_free(&alone[i].pftrace), lt_buf_free(&alone[i].report);
        lt_buf_free(&together[i].json), lt_buf_free(&together[i].pftrace), lt_buf_free(&together[i].report);
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
