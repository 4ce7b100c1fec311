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

#include "capture/capture_internal.h"

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

/* The stream of thread t, every event (no_begins: asked without begins). */
static ludus__nev *stream_of(ludus_capture *c, uint32_t t, int no_begins, size_t *n) {
    ludus__nev_iter it;
    ludus__nev e;
    size_t cap = 64, k = 0;
    ludus__nev *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    assert_int_equal(ludus__nev_init(&it, c, t), 0);
    if (no_begins) ludus__nev_no_begins(&it);
    while (ludus__nev_next(&it, &e)) {
        if (k == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[k++] = e;
    }
    assert_int_equal(ludus__nev_error(&it), 0);
    ludus__nev_free(&it);
    *n = k;
    return v;
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
        size_t nf, nb, j = 0;
        ludus__nev *full = stream_of(c, t, 0, &nf), *lean = stream_of(c, t, 1, &nb);
        begins += count_begins(full, nf);
        for (size_t i = 0; i < nf; i++) {
            if (want_dropped && full[i].kind == LUDUS_NEV_BEGIN) continue;
            if (j == nb) fail_msg("thread %u: the stream without begins ends early at %zu", t, i);
            if (memcmp(&full[i], &lean[j], sizeof full[i]) != 0)
                fail_msg("thread %u: event %zu (kind %u) differs without begins", t, i, full[i].kind);
            j++;
        }
        assert_int_equal(j, nb);
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
    assert_true(compare(c, 1) > 300 * 8);
    for (uint32_t t = 0; t < c->nthreads; t++) assert_true(c->threads[t].no_flows);
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
    assert_true(compare(c, 0) >= 20);
    ludus_capture_release(c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_without_begins_is_the_stream_less_them),
        cmocka_unit_test(test_a_thread_with_a_flow_keeps_them),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
