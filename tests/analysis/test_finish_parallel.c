/* The analysis's finish reads its runs of cells on several threads once
 * they hold enough (threads.c, frames.c: a median per (thread, site) run,
 * per thread's busy frames, per site), and explains its hitches a chunk
 * per thread (hitches.c): the reports are the ones made on one thread, byte
 * for byte, in text and JSON (which lists every hitch). The capture is a
 * job system whose parent waits for a worker in its own time, so the
 * waiting test (a rank correlation per run) runs and finds it. Run under
 * TSan (label concurrency): the runs are read at once. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#define SYN_EVENTS (1u << 20) /* 40,000 frames of ~16 events on the frame thread */
#include "synth.h"
#include "analysis/analysis_internal.h" /* ludus__finish_threads, ludus__site_waits */

SITE(S_FRAME, "Frame");
SITE(S_UPDATE, "Update");
SITE(S_JOB, "Job");
SITE(S_LOOP, "WorkerLoop");
SITE(S_FLUSH, "Flush");
static const ludus_site S_SYS[4] = {
    {"Physics", "fn", "synth.c", NULL, 100, 0},
    {"Audio", "fn", "synth.c", NULL, 101, 0},
    {"Culling", "fn", "synth.c", NULL, 102, 0},
    {"UI", "fn", "synth.c", NULL, 103, 0},
};

#define FRAMES 40000

static uint64_t next(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

/* Thread 0: Frame { 4 systems, Update { the jobs it keeps, then waits for
 * the worker in its own time } }; thread 1: WorkerLoop { the jobs it
 * stole }. The worker's jobs vary from frame to frame, and Update's wait
 * with them. Every 8th frame Physics takes 20 times as long: a hitch.
 * Both threads end the frame with a top-level Flush: a path on two
 * threads, whose runs are merged. */
static syn *engine(uint64_t seed) {
    syn *s = syn_new(2, 0);
    uint64_t x = seed * 2654435761u + 12345, t = 0;
    for (int f = 0; f < FRAMES; f++) {
        syn_b(s, 0, t, &S_FRAME);
        t += 10;
        for (int k = 0; k < 4; k++) {
            uint64_t d = (300 + next(&x) % 200) * (k == 0 && f % 8 == 7 ? 20 : 1);
            syn_scope(s, 0, t, t + d, &S_SYS[k]);
            t += d + 5;
        }
        syn_b(s, 0, t, &S_UPDATE);
        uint64_t w = t + 20;
        syn_b(s, 1, w, &S_LOOP);
        w += 10;
        for (int j = 0; j < 6; j++) {
            uint64_t d = 500 + next(&x) % 1000;
            if (next(&x) % 3 == 0) {
                syn_scope(s, 0, t, t + d, &S_JOB);
                t += d;
            } else {
                syn_scope(s, 1, w, w + d, &S_JOB);
                w += d;
            }
        }
        w += 10;
        syn_e(s, 1, w);
        syn_scope(s, 1, w + 1, w + 3 + next(&x) % 5, &S_FLUSH);
        w += 8;
        if (t < w + 5) t = w + 5; /* Update waits for the worker */
        t += 10;
        syn_e(s, 0, t);
        t += 10;
        syn_e(s, 0, t);
        syn_scope(s, 0, t + 1, t + 3 + next(&x) % 5, &S_FLUSH);
        t += 8;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static char *report_of(const ludus_analysis *a, int format) {
    mem m = {NULL, 0};
    assert_int_equal(ludus_analysis_report(a, NULL, format, NULL, mem_write, &m), 0);
    return m.p;
}

static void test_same_report(void **state) {
    (void)state;
    syn *c = engine(7);
    char *rep[2][2];
    for (int one = 0; one < 2; one++) {
        unsigned keep = ludus__finish_threads;
        if (one) ludus__finish_threads = 1;
        ludus_analysis *a = syn_analyze(c, NULL);
        ludus__finish_threads = keep;
        assert_non_null(a);
        rep[one][0] = report_of(a, LUDUS_REPORT_TEXT);
        rep[one][1] = report_of(a, LUDUS_REPORT_JSON);
        ludus_analysis_summary sum;
        ludus_analysis_get_summary(a, &sum);
        lt_check(lt_what("%u hitches: more than two chunks of 1024 to explain", sum.hitches), sum.hitches > 2048);
        int64_t update = ludus_analysis_find_site(a, "Update");
        assert_true(update >= 0);
        lt_check(lt_what("Update waits for the worker (finish on %s)", one ? "one thread" : "threads"),
                 ludus__site_waits(a, (uint32_t)update));
        ludus_analysis_destroy(a);
    }
    /* enough to share: the sites' runs alone hold 9 sites x FRAMES cells */
    lt_check(lt_what("%d frames x 9 sites reach the finish's bar for threads", FRAMES),
             ludus__finish_threads_for((uint64_t)FRAMES * 9) > 1);
    for (int f = 0; f < 2; f++) {
        lt_check_str(lt_what("the %s report, finished on threads", f ? "JSON" : "text"), rep[0][f], rep[1][f]);
        free(rep[0][f]);
        free(rep[1][f]);
    }
    syn_free(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_report)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
