/* Counter values packed (counter_run.h): writing, cutting to size, finding
 * a frame's value. */
#include "../base/grow.h"
#include "../platform/alloc.h"
#include "counter_run.h"

int ludus__vrun_put(ludus__vrun *r, uint64_t frame, double value, int64_t exact, int is_float) {
    if (r->nb + 20 > r->cap) {
        size_t cap = r->cap ? r->cap + r->cap / 2 : 64;
        uint8_t *b = ludus__realloc(r->b, cap);
        if (!b) return -1;
        r->b = b;
        r->cap = cap;
    }
    if (r->n && r->n % LUDUS__VRUN_SKIP == 0) {
        if (LUDUS__GROW(r->skip, r->nskip, r->skip_cap, 8) != 0) return -1;
        r->skip[r->nskip++] = (ludus__vrun_skip){r->nb, r->frame, r->exact};
    }
    uint8_t *p = ludus__varint_put(r->b + r->nb, (frame - r->frame) << 1 | (is_float != 0));
    if (is_float) {
        memcpy(p, &value, sizeof value);
        p += sizeof value;
    } else {
        p = ludus__varint_put(p, ludus__zigzag((int64_t)((uint64_t)exact - (uint64_t)r->exact)));
        r->exact = exact;
    }
    r->nb = (size_t)(p - r->b);
    r->frame = frame;
    r->n++;
    return 0;
}

void ludus__vrun_fit(ludus__vrun *r) {
    if (r->nb && r->nb < r->cap) {
        uint8_t *b = ludus__realloc(r->b, r->nb);
        if (b) r->b = b, r->cap = r->nb;
    }
    if (r->nskip && r->nskip < r->skip_cap) {
        ludus__vrun_skip *s = ludus__realloc(r->skip, r->nskip * sizeof *s);
        if (s) r->skip = s, r->skip_cap = r->nskip;
    }
}

void ludus__vrun_free(ludus__vrun *r) {
    ludus__free(r->b);
    ludus__free(r->skip);
    memset(r, 0, sizeof *r);
}

int ludus__vrun_find(const ludus__vrun *r, uint64_t f, ludus__counter_value *out) {
    /* the last stretch whose frame before is below f (stretch 0 has none) */
    size_t lo = 0, hi = r->nskip;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->skip[mid].frame < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    ludus__vrun_it it;
    ludus__vrun_begin(r, &it);
    if (lo) {
        const ludus__vrun_skip *s = &r->skip[lo - 1];
        it.p += s->at;
        it.v.frame = s->frame;
        it.v.exact = s->exact;
        it.left = r->n - (uint64_t)lo * LUDUS__VRUN_SKIP;
    }
    while (ludus__vrun_next(&it)) { /* values in frame order: the first at f, or past it */
        if (it.v.frame < f) continue;
        if (it.v.frame > f) return 0;
        *out = it.v;
        return 1;
    }
    return 0;
}
