/* A counter track's values, packed: one a frame for a frame's statistic
 * (LUDUS_PROFILE_FRAME's snapshots, in frame order), any number for a
 * plot's samples (frame 0). A long capture has a few tracks a frame, and a
 * value took 24 bytes (frame, double, integer); packed it takes its frame
 * step and its change from the track's integer before (a few bytes), or
 * the double's 8 bytes for a float sample.
 *
 * A value: varint (frame - frame before) << 1 | is a float, then the
 * double's bytes, or zigzag (integer - integer before). Every
 * LUDUS__VRUN_SKIP values a skip entry lets a lookup by frame decode one
 * stretch. */
#ifndef LUDUS_COUNTER_RUN_H
#define LUDUS_COUNTER_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../base/varint.h"
#include "../platform/platform.h"

typedef struct ludus__counter_value {
    uint64_t frame;
    double value;
    int64_t exact; /* an integer track's value as recorded (the sum adds these); 0 for a float */
} ludus__counter_value;

/* A lookup by frame decodes half a stretch on average: ludus-trace sql
 * looks up every frame of every track (24 bytes of skip entry per 16
 * values, against 2-4 bytes a value). */
#define LUDUS__VRUN_SKIP 16

typedef struct ludus__vrun_skip {
    uint64_t at;    /* byte offset of value k * LUDUS__VRUN_SKIP (k >= 1) */
    uint64_t frame; /* the frame of the value before it */
    int64_t exact;  /* the integer before it */
} ludus__vrun_skip;

/* The values; written while the analysis runs (ludus__vrun_put), read
 * after (ludus__vrun_fit cuts the buffers to their size). */
typedef struct ludus__vrun {
    uint8_t *b;
    size_t nb, cap;
    ludus__vrun_skip *skip;
    size_t nskip, skip_cap;
    uint64_t n, frame;
    int64_t exact;
} ludus__vrun;

typedef struct ludus__vrun_it {
    const uint8_t *p;
    uint64_t left;
    ludus__counter_value v;
} ludus__vrun_it;

LUDUS_HIDDEN int ludus__vrun_put(ludus__vrun *r, uint64_t frame, double value, int64_t exact, int is_float);
LUDUS_HIDDEN void ludus__vrun_fit(ludus__vrun *r);
LUDUS_HIDDEN void ludus__vrun_free(ludus__vrun *r);
/* The value of frame f: 1 (in *out), 0 when the track has none. */
LUDUS_HIDDEN int ludus__vrun_find(const ludus__vrun *r, uint64_t f, ludus__counter_value *out);

static inline void ludus__vrun_begin(const ludus__vrun *r, ludus__vrun_it *it) {
    it->p = r->b;
    it->left = r->n;
    it->v.frame = 0;
    it->v.exact = 0;
    it->v.value = 0;
}

/* 1 with it->v the next value, 0 at the end. A float leaves the integer
 * before it as the base of the next integer's change. */
static inline int ludus__vrun_next(ludus__vrun_it *it) {
    if (!it->left) return 0;
    it->left--;
    uint64_t head = ludus__varint_get_own(&it->p);
    it->v.frame += head >> 1;
    if (head & 1) {
        memcpy(&it->v.value, it->p, sizeof it->v.value);
        it->p += sizeof it->v.value;
        return 1;
    }
    it->v.exact = (int64_t)((uint64_t)it->v.exact + (uint64_t)ludus__unzigzag(ludus__varint_get_own(&it->p)));
    it->v.value = (double)it->v.exact;
    return 1;
}

#endif
