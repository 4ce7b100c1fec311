/* Scope annotations waiting for the end of their slice: both trace
 * exporters write a slice when it ends (JSON's complete event, Perfetto's
 * SLICE_END, whose debug annotations the trace processor adds to the
 * slice), so an annotation is kept until then. Per lane, the annotations of
 * the open slices in stream order, each with its slice's depth: an
 * annotation always belongs to the innermost open slice, so those of one
 * slice are the lane's last ones when it ends. A key seen again in the same
 * slice replaces its value; past LUDUS__SLICE_ARGS_MAX keys a slice's
 * annotations are dropped and counted (prepare.c counts them once per
 * capture, for every export). */
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../base/grow.h"

/* 1 when two sites have one name: uses of one key at several lines. */
static int same_key(const ludus_capture *c, uint32_t x, uint32_t y) {
    const ludus__site_info *a = &c->sites[x], *b = &c->sites[y];
    return x == y || (a->name_len == b->name_len && memcmp(a->name, b->name, a->name_len) == 0);
}

void ludus__slice_args_add(ludus__slice_args *a, const ludus_capture *c, const ludus__nev *ev) {
    ludus__slice_args_lane *l = &a->lane[ev->lane];
    uint32_t k = l->n, keys = 0;
    for (; k > 0 && l->e[k - 1].depth == ev->depth; k--, keys++)
        if (same_key(c, l->e[k - 1].site, ev->site)) {
            l->e[k - 1] = *ev;
            a->superseded++;
            return;
        }
    if (keys >= LUDUS__SLICE_ARGS_MAX) {
        a->dropped++;
        a->over_max++;
        return;
    }
    if (LUDUS__GROW(l->e, l->n, l->cap, 16) != 0) {
        a->dropped++;
        return;
    }
    l->e[l->n++] = *ev;
}

uint32_t ludus__slice_args_take_some(ludus__slice_args *a, uint8_t lane, uint32_t depth, const ludus__nev **first) {
    ludus__slice_args_lane *l = &a->lane[lane];
    uint32_t k = l->n;
    *first = NULL;
    if (k == 0) return 0;
    while (k > 0 && l->e[k - 1].depth >= depth) k--;
    uint32_t n = l->n - k;
    *first = l->e + k;
    l->n = k; /* still readable until the next add */
    return n;
}

void ludus__slice_args_reset(ludus__slice_args *a) {
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) a->lane[k].n = 0;
}

void ludus__slice_args_free(ludus__slice_args *a) {
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) ludus__free(a->lane[k].e);
    memset(a, 0, sizeof *a);
}

const char *ludus__arg_text(const ludus__nev_iter *it, const ludus__nev *ev, size_t *len) {
    if (ev->series == 0) { /* an empty text (not the key's name, as an empty message would be) */
        *len = 0;
        return "";
    }
    return ludus__nev_text(it, ev, len);
}
