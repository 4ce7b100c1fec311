/* Runs of cells packed as varints (cell_run.h): writing them, finding a
 * frame's cell, and the pass's per-path cells before they become runs. */
#include <string.h>

#include "../base/grow.h"
#include "../platform/alloc.h"
#include "cell_run.h"

/* The most bytes a cell takes: a head, calls, excl, incl - excl, arg. */
#define CELL_MAX_BYTES (5 * 10)

/* Room for want more bytes in *b (grown by half, at least to want). */
static int bytes_fit(uint8_t **b, size_t n, size_t *cap, size_t want) {
    if (n + want <= *cap) return 0;
    size_t c = *cap ? *cap + *cap / 2 : 64;
    if (c < n + want) c = n + want;
    uint8_t *x = ludus__realloc(*b, c);
    if (!x) return -1;
    *b = x;
    *cap = c;
    return 0;
}

static uint8_t *put_cell(uint8_t *p, uint64_t step, const ludus__cell *c) {
    p = ludus__varint_put(p, step << 1 | (c->arg != 0));
    p = ludus__varint_put(p, c->calls);
    p = ludus__varint_put(p, ludus__zigzag(c->excl));
    p = ludus__varint_put(p, ludus__zigzag((int64_t)((uint64_t)c->incl - (uint64_t)c->excl)));
    if (c->arg) p = ludus__varint_put(p, c->arg);
    return p;
}

int ludus__crun_put(ludus__crun_writer *w, const ludus__cell *c) {
    if (bytes_fit(&w->b, w->n, &w->cap, CELL_MAX_BYTES) != 0) return -1;
    if (w->cells && w->cells % LUDUS__CRUN_SKIP == 0) {
        if (LUDUS__GROW(w->skip, w->nskip, w->skip_cap, 16) != 0) return -1;
        w->skip[w->nskip++] = (ludus__crun_skip){w->n, w->frame, 0};
    }
    uint8_t *e = put_cell(w->b + w->n, c->frame - w->frame, c);
    w->n = (size_t)(e - w->b);
    w->frame = c->frame;
    w->cells++;
    return 0;
}

int ludus__crun_end(ludus__crun_writer *w, ludus__crun *out) {
    memset(out, 0, sizeof *out);
    if (w->cells) {
        size_t skip_bytes = w->nskip * sizeof *w->skip;
        if (!(out->mem = ludus__malloc(skip_bytes + w->n))) return -1;
        if (skip_bytes) memcpy(out->mem, w->skip, skip_bytes);
        memcpy((uint8_t *)out->mem + skip_bytes, w->b, w->n);
        out->n = w->cells;
        out->nskip = (uint32_t)w->nskip;
    }
    ludus__crun_writer_reset(w);
    return 0;
}

void ludus__crun_writer_free(ludus__crun_writer *w) {
    ludus__free(w->b);
    ludus__free(w->skip);
    memset(w, 0, sizeof *w);
}

void ludus__crun_free(ludus__crun *r) {
    ludus__free(r->mem);
    memset(r, 0, sizeof *r);
}

void ludus__crun_writer_reset(ludus__crun_writer *w) {
    w->n = w->nskip = 0;
    w->cells = w->frame = 0;
}

/* The stretch of r whose frame before is the last below f (0: the first,
 * which has none). */
static uint32_t stretch_of(const ludus__crun *r, uint32_t f) {
    const ludus__crun_skip *s = r->mem;
    uint32_t lo = 0, hi = r->nskip;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (s[mid].frame < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void ludus__crun_seek(const ludus__crun *r, ludus__crun_it *it, uint32_t f) {
    if (!r->nskip) return;
    uint32_t k = stretch_of(r, f);
    if (!k || (uint64_t)k * LUDUS__CRUN_SKIP <= (uint64_t)(r->n - it->left)) return; /* not past it */
    const ludus__crun_skip *s = &((const ludus__crun_skip *)r->mem)[k - 1];
    it->p = ludus__crun_bytes(r) + s->at;
    it->c.frame = s->frame;
    it->left = r->n - k * LUDUS__CRUN_SKIP;
}

int ludus__crun_find(const ludus__crun *r, uint32_t f, ludus__cell *out) {
    ludus__crun_it it;
    ludus__crun_begin(r, &it);
    ludus__crun_seek(r, &it, f);
    for (uint32_t k = 0; k < LUDUS__CRUN_SKIP && ludus__crun_next(&it); k++) {
        if (it.c.frame < f) continue;
        if (it.c.frame > f) return 0;
        *out = it.c;
        return 1;
    }
    return 0;
}

int ludus__pend_put(ludus__pend *q, uint32_t thread, const ludus__cell *c) {
    if (bytes_fit(&q->b, q->n, &q->cap, CELL_MAX_BYTES) != 0) return -1;
    if (!q->nseg || q->seg[q->nseg - 1].thread != thread) {
        if (LUDUS__GROW(q->seg, q->nseg, q->seg_cap, 2) != 0) return -1;
        q->seg[q->nseg++] = (ludus__pend_seg){q->n, thread, 0};
        q->frame = 0;
    }
    uint8_t *e = put_cell(q->b + q->n, ludus__zigzag((int64_t)c->frame - (int64_t)q->frame), c);
    q->n = (size_t)(e - q->b);
    q->frame = c->frame;
    q->seg[q->nseg - 1].cells++;
    return 0;
}

void ludus__pend_free(ludus__pend *q) {
    ludus__free(q->b);
    ludus__free(q->seg);
    memset(q, 0, sizeof *q);
}
