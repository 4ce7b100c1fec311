/* Runs of cells: one entity's per-frame figures (a path's, a site's, a
 * (thread, site)'s), in frame order, packed as varints. They are most of a
 * long capture's analysis (a few cells a frame, for every frame), so a cell
 * takes its bytes (about 8: a frame step, small counts) where it took 32.
 *
 * A cell: varint (frame - frame before) << 1 | has annotation, varint
 * calls, zigzag excl, zigzag (incl - excl), then varint arg when it has
 * one. Every LUDUS__CRUN_SKIP cells a skip entry (the cell's byte offset
 * and the frame before it) lets a lookup by frame decode one stretch.
 *
 * The pass's cells (tree.c) are written per path as they come, a segment
 * per thread (a cell may come after a later frame's: ludus__pend), and
 * become runs once the pass is over. */
#ifndef LUDUS_CELL_RUN_H
#define LUDUS_CELL_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "../base/varint.h"
#include "../platform/platform.h"

/* One (frame, entity) cell: calls and exclusive ns; incl: the inclusive ns
 * of the calls that are their site's outermost on their thread (summed over
 * a site's paths: the site's inclusive time in the frame, recursion counted
 * once); arg: the annotations of its slowest annotated call
 * (ludus__cell_text), 0 for none. */
typedef struct ludus__cell {
    uint32_t frame, arg;
    uint64_t calls;
    int64_t excl, incl;
} ludus__cell;
#define LUDUS__CRUN_SKIP 64

typedef struct ludus__crun_skip {
    uint64_t at;    /* byte offset of cell k * LUDUS__CRUN_SKIP (k >= 1) */
    uint32_t frame; /* the frame of the cell before it */
    uint32_t unused;
} ludus__crun_skip;

/* A run: mem holds its skip entries, then its bytes (NULL when n is 0).
 * Copies share mem; whoever made it frees it (ludus__crun_free). */
typedef struct ludus__crun {
    void *mem;
    uint32_t n, nskip;
} ludus__crun;

static inline const uint8_t *ludus__crun_bytes(const ludus__crun *r) {
    return (const uint8_t *)r->mem + (size_t)r->nskip * sizeof(ludus__crun_skip);
}

/* Reading a run in order: ludus__crun_begin, then ludus__crun_next while it
 * gives 1 (it->c is the next cell). */
typedef struct ludus__crun_it {
    const uint8_t *p;
    uint32_t left;
    ludus__cell c;
} ludus__crun_it;

static inline void ludus__crun_begin(const ludus__crun *r, ludus__crun_it *it) {
    it->p = r->n ? ludus__crun_bytes(r) : NULL;
    it->left = r->n;
    it->c.frame = 0;
}

static inline int ludus__crun_next(ludus__crun_it *it) {
    if (!it->left) return 0;
    it->left--;
    uint64_t head = ludus__varint_get_own(&it->p);
    it->c.frame += (uint32_t)(head >> 1);
    it->c.calls = ludus__varint_get_own(&it->p);
    it->c.excl = ludus__unzigzag(ludus__varint_get_own(&it->p));
    it->c.incl = (int64_t)((uint64_t)it->c.excl + (uint64_t)ludus__unzigzag(ludus__varint_get_own(&it->p)));
    it->c.arg = head & 1 ? (uint32_t)ludus__varint_get_own(&it->p) : 0;
    return 1;
}

/* The cell of frame f: 1 (in *out), 0 when the run has none. */
LUDUS_HIDDEN int ludus__crun_find(const ludus__crun *r, uint32_t f, ludus__cell *out);
LUDUS_HIDDEN void ludus__crun_free(ludus__crun *r);

/* Writing runs: cells in strictly rising frame order, then ludus__crun_end
 * makes the run (its exact size) and leaves the writer empty for the next
 * (its buffers kept: one writer makes every run of a kind). */
typedef struct ludus__crun_writer {
    uint8_t *b;
    size_t n, cap;
    ludus__crun_skip *skip;
    size_t nskip, skip_cap;
    uint32_t cells, frame;
} ludus__crun_writer;

LUDUS_HIDDEN int ludus__crun_put(ludus__crun_writer *w, const ludus__cell *c);
LUDUS_HIDDEN int ludus__crun_end(ludus__crun_writer *w, ludus__crun *out);
LUDUS_HIDDEN void ludus__crun_writer_free(ludus__crun_writer *w);
/* Empties w (what was put is dropped; its buffers kept). */
LUDUS_HIDDEN void ludus__crun_writer_reset(ludus__crun_writer *w);
/* Moves it forward to the stretch of r that holds frame f when that
 * stretch begins past it (the cells between are skipped unread); it then
 * gives the cells from there on. */
LUDUS_HIDDEN void ludus__crun_seek(const ludus__crun *r, ludus__crun_it *it, uint32_t f);

/* The pass's cells of one path, as they come: a segment per thread (the
 * pass reads one thread after another), the cells of a segment with a frame
 * step each (zigzag: a call spanning a frame boundary comes late). */
typedef struct ludus__pend_seg {
    size_t at;
    uint32_t thread, cells;
} ludus__pend_seg;
typedef struct ludus__pend {
    uint8_t *b;
    size_t n, cap;
    ludus__pend_seg *seg;
    uint32_t nseg, seg_cap, frame;
} ludus__pend;

LUDUS_HIDDEN int ludus__pend_put(ludus__pend *q, uint32_t thread, const ludus__cell *c);
LUDUS_HIDDEN void ludus__pend_free(ludus__pend *q);

/* Reading segment g of q in the order its cells came. */
static inline void ludus__pend_begin(const ludus__pend *q, uint32_t g, ludus__crun_it *it) {
    it->p = q->b + q->seg[g].at;
    it->left = q->seg[g].cells;
    it->c.frame = 0;
}
static inline int ludus__pend_next(ludus__crun_it *it) {
    if (!it->left) return 0;
    it->left--;
    uint64_t head = ludus__varint_get_own(&it->p);
    it->c.frame = (uint32_t)((int64_t)it->c.frame + ludus__unzigzag(head >> 1));
    it->c.calls = ludus__varint_get_own(&it->p);
    it->c.excl = ludus__unzigzag(ludus__varint_get_own(&it->p));
    it->c.incl = (int64_t)((uint64_t)it->c.excl + (uint64_t)ludus__unzigzag(ludus__varint_get_own(&it->p)));
    it->c.arg = head & 1 ? (uint32_t)ludus__varint_get_own(&it->p) : 0;
    return 1;
}

#endif
