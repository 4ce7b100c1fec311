/* Runs of cells packed as varints (src/analysis/cell_run.c) against the
 * cells that went in: runs of every length around the skip interval, frame
 * steps from 1 to 2^32 - 1, counts and times at the ends of their types
 * (negative exclusive time, inclusive below exclusive), annotations or
 * none. Read in order, each run gives its cells back; looked up by frame,
 * every frame of it is found and no frame between them, and a walk that
 * seeks ahead finds the cells it asks for; the pass's
 * per-thread segments give back cells that came out of frame order. A
 * counter track's values (counter_run.c) likewise: integers at the ends of
 * int64, floats between them, several values a frame or frames apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "analysis/analysis_internal.h"

static uint64_t rng = 0x2545f4914f6cdd1du;
static uint64_t next(void) { /* xorshift64 */
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* A count or time of shape r % 4: small, middling, huge, or an end of its type. */
static uint64_t shaped(uint64_t r) {
    switch (r % 4) {
    case 0:
        return next() % 100;
    case 1:
        return next() % 10000000;
    case 2:
        return next();
    default:
        return next() & 1 ? UINT64_MAX : (uint64_t)INT64_MIN;
    }
}

/* n cells in rising frame order from frame first. */
static void make_cells(ludus__cell *c, uint32_t n, uint32_t first) {
    uint32_t f = first;
    for (uint32_t i = 0; i < n; i++) {
        if (i) {
            uint64_t r = next() % 8;
            uint32_t step = r < 5 ? 1 : r < 7 ? 1 + (uint32_t)(next() % 1000) : 0;
            if (step == 0 || f > UINT32_MAX - step) step = 1;
            if (f == UINT32_MAX) break; /* never past the last frame: the callers make n fit */
            f += step;
        }
        c[i].frame = f;
        c[i].calls = shaped(next());
        c[i].excl = (int64_t)shaped(next());
        c[i].incl = (int64_t)shaped(next());
        c[i].arg = next() % 3 ? 0 : (uint32_t)(next() % 2 ? next() : 1);
    }
}

static void assert_cell(const ludus__cell *a, const ludus__cell *b) {
    assert_int_equal(a->frame, b->frame);
    assert_int_equal(a->calls, b->calls);
    assert_int_equal(a->excl, b->excl);
    assert_int_equal(a->incl, b->incl);
    assert_int_equal(a->arg, b->arg);
}

static void check_run(const ludus__cell *c, uint32_t n, ludus__crun_writer *w) {
    for (uint32_t i = 0; i < n; i++) assert_int_equal(ludus__crun_put(w, &c[i]), 0);
    ludus__crun r;
    assert_int_equal(ludus__crun_end(w, &r), 0);
    assert_int_equal(r.n, n);
    ludus__crun_it it;
    uint32_t k = 0;
    for (ludus__crun_begin(&r, &it); ludus__crun_next(&it); k++) {
        assert_true(k < n);
        assert_cell(&it.c, &c[k]);
    }
    assert_int_equal(k, n);
    for (uint32_t i = 0; i < n; i++) {
        ludus__cell got;
        assert_int_equal(ludus__crun_find(&r, c[i].frame, &got), 1);
        assert_cell(&got, &c[i]);
        /* the frames between this cell and the next have none */
        if (i + 1 < n && c[i + 1].frame > c[i].frame + 1)
            assert_int_equal(ludus__crun_find(&r, c[i].frame + 1, &got), 0);
    }
    /* a walk that seeks ahead to rising frames finds each cell it asks for */
    ludus__crun_begin(&r, &it);
    int have = 0;
    for (uint32_t i = 0; i < n; i += 1 + (uint32_t)(next() % 150)) {
        if (!have || it.c.frame < c[i].frame) {
            ludus__crun_seek(&r, &it, c[i].frame);
            while ((have = ludus__crun_next(&it)) != 0 && it.c.frame < c[i].frame) {
            }
        }
        assert_true(have);
        assert_cell(&it.c, &c[i]);
    }
    ludus__cell got;
    if (n && c[0].frame > 0) assert_int_equal(ludus__crun_find(&r, c[0].frame - 1, &got), 0);
    if (n && c[n - 1].frame < UINT32_MAX) assert_int_equal(ludus__crun_find(&r, c[n - 1].frame + 1, &got), 0);
    if (!n) assert_int_equal(ludus__crun_find(&r, 0, &got), 0);
    ludus__crun_free(&r);
}

static void test_runs_give_their_cells_back(void **state) {
    (void)state;
    static const uint32_t lens[] = {0, 1, 2, 63, 64, 65, 127, 128, 129, 1000, 5000};
    ludus__cell *c = calloc(5000, sizeof *c);
    assert_non_null(c);
    ludus__crun_writer w;
    memset(&w, 0, sizeof w);
    for (int round = 0; round < 20; round++)
        for (size_t l = 0; l < sizeof lens / sizeof *lens; l++) {
            make_cells(c, lens[l], round % 2 ? 0 : (uint32_t)(next() % 100000));
            check_run(c, lens[l], &w); /* one writer for every run, as the analysis uses it */
        }
    ludus__crun_writer_free(&w);
    free(c);
}

/* Frame steps of 2^32 - 1: the first cell at frame 0, the last at the last frame. */
static void test_run_widest_frames(void **state) {
    (void)state;
    /* frame, arg, calls, excl, incl */
    ludus__cell c[3] = {{0, 7, 1, -1, INT64_MIN},
                        {UINT32_MAX - 1, 0, UINT64_MAX, INT64_MAX, -5},
                        {UINT32_MAX, UINT32_MAX, 0, 0, INT64_MAX}};
    ludus__crun_writer w;
    memset(&w, 0, sizeof w);
    check_run(c, 3, &w);
    check_run(c + 1, 2, &w);
    ludus__crun_writer_free(&w);
}

/* The pass's cells: a segment a thread, frames out of order (a call that
 * spans a frame boundary comes late), each segment read back as it came. */
static void test_pending_segments(void **state) {
    (void)state;
    enum { N = 3000 };
    ludus__cell *c = calloc(N, sizeof *c);
    uint32_t *thread = calloc(N, sizeof *thread);
    assert_non_null(c);
    assert_non_null(thread);
    make_cells(c, N, 50);
    for (uint32_t i = 0; i < N; i++) {
        thread[i] = i < 1000 ? 3 : i < 2000 ? 0 : 70000;                /* three segments */
        if (next() % 10 == 0) c[i].frame = (uint32_t)(next() % 200000); /* late, or far ahead */
    }
    ludus__pend q;
    memset(&q, 0, sizeof q);
    for (uint32_t i = 0; i < N; i++) assert_int_equal(ludus__pend_put(&q, thread[i], &c[i]), 0);
    assert_int_equal(q.nseg, 3);
    uint32_t k = 0;
    for (uint32_t g = 0; g < q.nseg; g++) {
        assert_int_equal(q.seg[g].thread, thread[k]);
        ludus__crun_it it;
        for (ludus__pend_begin(&q, g, &it); ludus__pend_next(&it); k++) {
            assert_true(k < N);
            assert_int_equal(thread[k], q.seg[g].thread);
            assert_cell(&it.c, &c[k]);
        }
    }
    assert_int_equal(k, N);
    ludus__pend_free(&q);
    free(c);
    free(thread);
}

/* A counter track: integers (exact, as recorded) and floats mixed, in
 * frame order with steps of 0 (plot samples), 1 and far; read back in order
 * and looked up by frame (the first value of a frame). */
static void test_counter_values(void **state) {
    (void)state;
    enum { N = 2000 };
    ludus__counter_value *v = calloc(N, sizeof *v);
    int *is_float = calloc(N, sizeof *is_float);
    assert_non_null(v);
    assert_non_null(is_float);
    ludus__vrun r;
    memset(&r, 0, sizeof r);
    uint64_t f = 3;
    for (uint32_t i = 0; i < N; i++) {
        uint64_t k = next() % 10;
        f += k < 2 ? 0 : k < 8 ? 1 : next() % 100000;
        v[i].frame = f;
        is_float[i] = next() % 4 == 0;
        if (is_float[i]) {
            v[i].value = (double)(int64_t)next() / 1e6;
        } else {
            uint64_t s = next() % 3;
            v[i].exact = s == 0   ? (int64_t)(next() % 1000) - 500
                         : s == 1 ? (int64_t)next()
                                  : (next() & 1 ? INT64_MAX : INT64_MIN);
            v[i].value = (double)v[i].exact;
        }
        assert_int_equal(ludus__vrun_put(&r, v[i].frame, v[i].value, v[i].exact, is_float[i]), 0);
    }
    ludus__vrun_fit(&r);
    assert_int_equal(r.n, N);
    ludus__vrun_it it;
    uint32_t k = 0;
    for (ludus__vrun_begin(&r, &it); ludus__vrun_next(&it); k++) {
        assert_true(k < N);
        assert_int_equal(it.v.frame, v[k].frame);
        assert_true(it.v.value == v[k].value);
        if (!is_float[k]) assert_int_equal(it.v.exact, v[k].exact);
    }
    assert_int_equal(k, N);
    for (uint32_t i = 0; i < N; i++) {
        if (i && v[i - 1].frame == v[i].frame) continue; /* a lookup gives a frame's first value */
        ludus__counter_value got;
        assert_int_equal(ludus__vrun_find(&r, v[i].frame, &got), 1);
        assert_int_equal(got.frame, v[i].frame);
        assert_true(got.value == v[i].value);
        if (i + 1 < N && v[i + 1].frame > v[i].frame + 1)
            assert_int_equal(ludus__vrun_find(&r, v[i].frame + 1, &got), 0);
    }
    ludus__counter_value got;
    assert_int_equal(ludus__vrun_find(&r, 2, &got), 0);
    assert_int_equal(ludus__vrun_find(&r, f + 1, &got), 0);
    ludus__vrun_free(&r);
    free(v);
    free(is_float);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_give_their_cells_back),
        cmocka_unit_test(test_run_widest_frames),
        cmocka_unit_test(test_pending_segments),
        cmocka_unit_test(test_counter_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
