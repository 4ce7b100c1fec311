/* The normalised stream of a capture's thread, read whole, and a comparison
 * of two such streams that names the first event that differs: its index,
 * its thread (index, tid, name), its kind and site, and the field with both
 * values. For the tests that read the normaliser's output directly
 * (test_nev_paths.c, test_stream_no_begins.c); they include
 * capture/nev.h first. */
#ifndef LUDUS_TEST_NEV_CHECK_H
#define LUDUS_TEST_NEV_CHECK_H

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_check.h"

/* How a stream is read. */
enum {
    LT_NEV_NO_BEGINS = 1, /* ludus__nev_no_begins (what the JSON exporter asks for) */
    LT_NEV_SLOW = 2,      /* ludus__nev_slow_path: every event through step() */
    LT_NEV_HERE = 4       /* ludus__nev_load_here: no run loaded ahead on another thread */
};

/* The stream of thread t, every event (malloc'd; *n events). */
static inline ludus__nev *lt_nev_stream(ludus_capture *c, uint32_t t, unsigned how, size_t *n) {
    ludus__nev_iter it;
    ludus__nev e;
    size_t cap = 64, k = 0;
    ludus__nev *v = malloc(cap * sizeof *v);
    assert_non_null(v);
    lt_check_i64(lt_what("ludus__nev_init of thread %u", t), 0, ludus__nev_init(&it, c, t));
    if (how & LT_NEV_NO_BEGINS) ludus__nev_no_begins(&it);
    if (how & LT_NEV_SLOW) ludus__nev_slow_path(&it);
    if (how & LT_NEV_HERE) ludus__nev_load_here(&it);
    while (ludus__nev_next(&it, &e)) {
        if (k == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[k++] = e;
    }
    lt_check_i64(lt_what("the stream of thread %u: its error", t), 0, ludus__nev_error(&it));
    ludus__nev_free(&it);
    *n = k;
    return v;
}

static inline const char *lt_nev_kind_name(unsigned kind) {
    return kind < LUDUS_NEV_COUNT ? ludus__nevs[kind].name : "(no such kind)";
}

static inline const char *lt_nev_site_name(const ludus_capture *c, uint32_t site) {
    if (site == UINT32_MAX) return "(none)";
    return site < c->nsites ? c->sites[site].name : "(out of the table)";
}

/* "event 57 of thread 2 (tid 1234 "worker"): END of "Update" at 1500 ns" */
static inline const char *lt_nev_where(const ludus_capture *c, uint32_t t, size_t i, const ludus__nev *e) {
    return lt_what("event %zu of thread %u (tid %" PRIu64 " \"%s\"): %s of \"%s\" at %" PRId64 " ns", i, t,
                   c->threads[t].tid, c->threads[t].name, lt_nev_kind_name(e->kind), lt_nev_site_name(c, e->site),
                   e->ts_ns);
}

/* Fails unless a (what a_name read) and b are the same events, naming the
 * first that differs and its field. */
static inline void lt_nev_same(const ludus_capture *c, uint32_t t, const char *a_name, const ludus__nev *a, size_t na,
                               const char *b_name, const ludus__nev *b, size_t nb) {
    size_t n = na < nb ? na : nb;
    for (size_t i = 0; i < n; i++) {
        const ludus__nev *x = &a[i], *y = &b[i];
        const char *field = NULL;
        int64_t vx = 0, vy = 0;
#define LT_NEV_FIELD(f)           \
    if (!field && x->f != y->f) { \
        field = #f;               \
        vx = (int64_t)x->f;       \
        vy = (int64_t)y->f;       \
    }
        LT_NEV_FIELD(kind)
        LT_NEV_FIELD(site)
        LT_NEV_FIELD(lane)
        LT_NEV_FIELD(flags)
        LT_NEV_FIELD(depth)
        LT_NEV_FIELD(series)
        LT_NEV_FIELD(ts_ns)
        LT_NEV_FIELD(begin_ns)
        LT_NEV_FIELD(value)
#undef LT_NEV_FIELD
        if (field && (x->kind != y->kind || x->site != y->site || x->ts_ns != y->ts_ns))
            fail_msg("%s: field %s is %" PRId64 " in %s, %" PRId64 " in %s, whose event there is another: %s",
                     lt_nev_where(c, t, i, x), field, vx, a_name, vy, b_name, lt_nev_where(c, t, i, y));
        if (field)
            fail_msg("%s: field %s is %" PRId64 " in %s, %" PRId64 " in %s", lt_nev_where(c, t, i, x), field, vx,
                     a_name, vy, b_name);
    }
    if (na != nb) {
        const ludus__nev *extra = na > nb ? &a[n] : &b[n];
        fail_msg("thread %u (tid %" PRIu64 "): %s has %zu events, %s %zu; the first beyond the other's end: %s", t,
                 c->threads[t].tid, a_name, na, b_name, nb, lt_nev_where(c, t, n, extra));
    }
}

#endif
