/* The normalised stream without its begins (ludus__nev_no_begins, what the
 * JSON exporter asks for): event for event the full stream less its BEGIN
 * records (nested scopes, spans on a lane of their own, marks, unwound
 * scopes, scopes left open at capture end); a thread with a flow keeps its
 * begins (JSON places a flow's end by the times around it). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_check.h" /* assert_int_equal says what it compared */

#include "capture/nev.h"
#include "nev_check.h"

static void record_begin(void) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    assert_int_equal(ludus_capture_begin(&d), 0);
}

static ludus_capture *record_end(void) {
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_end(&c), 0);
    assert_non_null(c);
    assert_int_equal(ludus__prepare(c), 0);
    return c;
}

static size_t count_begins(const ludus__nev *v, size_t n) {
    size_t b = 0;
    for (size_t i = 0; i < n; i++) b += v[i].kind == LUDUS_NEV_BEGIN;
    return b;
}

/* Returns the begins the full stream of c's threads holds, after checking
 * the stream without them is the full stream less them (want_dropped) or the
 * full stream itself. */
static size_t compare(ludus_capture *c, int want_dropped) {
    size_t begins = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        size_t nf, nb, nk = 0;
        ludus__nev *full = lt_nev_stream(c, t, 0, &nf), *lean = lt_nev_stream(c, t, LT_NEV_NO_BEGINS, &nb);
        begins += count_begins(full, nf);
        /* the full stream less its begins, when they are to be dropped */
        ludus__nev *kept = malloc((nf ? nf : 1) * sizeof *kept);
        assert_non_null(kept);
        for (size_t i = 0; i < nf; i++)
            if (!want_dropped || full[i].kind != LUDUS_NEV_BEGIN) kept[nk++] = full[i];
        lt_nev_same(c, t, want_dropped ? "the full stream less its begins" : "the full stream", kept, nk,
                    "the stream without begins", lean, nb);
        free(kept);
        free(full);
        free(lean);
    }
    return begins;
}

static jmp_buf env;

/* Three scopes deep, the innermost throwing (as test_unwind.c's VM). */
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

static void test_without_begins_is_the_stream_less_them(void **state) {
    (void)state;
    record_begin();
    for (int i = 0; i < 300; i++) { /* more than a batch of the stream */
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Middle);
            LUDUS_PROFILE_SCOPE(Inner);
        }
        LUDUS_PROFILE_BEGIN(Streaming);
        {
            LUDUS_PROFILE_SCOPE(Frame);
            LUDUS_PROFILE_END(); /* Streaming ends inside Frame: a lane of its own */
        }
        LUDUS_PROFILE_MARK(Tick);
        ludus_unwind_point up = ludus_unwind_here();
        if (setjmp(env) == 0)
            thrower();
        else
            ludus_unwound_to(up);
    }
    LUDUS_PROFILE_BEGIN(LeftOpen); /* closed at capture end: incomplete */
    ludus_capture *c = record_end();
    lt_check("begins in the full stream (more than 300 x 8)", compare(c, 1) > 300 * 8);
    for (uint32_t t = 0; t < c->nthreads; t++) lt_check(lt_what("thread %u has no flow", t), c->threads[t].no_flows);
    ludus_capture_release(c);
}

static void test_a_thread_with_a_flow_keeps_them(void **state) {
    (void)state;
    record_begin();
    for (int i = 0; i < 10; i++) {
        LUDUS_PROFILE_SCOPE(Work);
        uint64_t id = LUDUS_PROFILE_FLOW_OUT(Handoff);
        LUDUS_PROFILE_SCOPE(Next);
        LUDUS_PROFILE_FLOW_IN(id);
    }
    ludus_capture *c = record_end();
    lt_check("begins in the full stream (at least 20)", compare(c, 0) >= 20);
    ludus_capture_release(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_begins_is_the_stream_less_them),
        cmocka_unit_test(test_a_thread_with_a_flow_keeps_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
