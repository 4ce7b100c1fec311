/* Duration accumulators: exact count, total, min and max, a log-linear
 * histogram for percentiles within 1/128 relative error, and (with --exact)
 * every value. Histogram octaves are allocated on first use, so a site whose
 * durations span three octaves costs three small blocks. */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"

uint32_t ludus__hist_bucket(int64_t v) {
    return ludus__hist_bucket_inline(v < 0 ? 0 : v);
}

int64_t ludus__hist_bucket_mid(uint32_t b) {
    uint32_t oct = b / LUDUS__HIST_SUB, sub = b % LUDUS__HIST_SUB;
    if (oct == 0) return sub;
    int shift = (int)oct - 1; /* e - 6 */
    int64_t lo = (int64_t)(64 + sub) << shift;
    return lo + (((int64_t)1 << shift) >> 1);
}

const uint64_t *ludus__acc_octave(const ludus__acc *a, uint32_t oct, uint64_t tmp[LUDUS__HIST_SUB]) {
    if (a->h.oct) return a->h.oct[oct];
    if (a->n != 1) return NULL;
    uint32_t b = ludus__hist_bucket(a->min);
    if (b / LUDUS__HIST_SUB != oct) return NULL;
    memset(tmp, 0, LUDUS__HIST_SUB * sizeof *tmp);
    tmp[b % LUDUS__HIST_SUB] = 1;
    return tmp;
}

/* Counts one more value in bucket b (its octave allocated when new). */
static int hist_put(ludus__hist *h, uint32_t b) {
    uint64_t **o = &h->oct[b / LUDUS__HIST_SUB];
    if (__builtin_expect(*o == NULL, 0)) {
        *o = ludus__calloc(LUDUS__HIST_SUB, sizeof **o);
        if (!*o) return -1;
    }
    (*o)[b % LUDUS__HIST_SUB]++;
    return 0;
}

/* The table, once a second value comes: the first one (min, as n is 1) gets its bucket. */
static int hist_table(ludus__acc *a) {
    if (a->h.oct || a->n == 0) return 0;
    a->h.oct = ludus__calloc(LUDUS__HIST_OCT, sizeof *a->h.oct);
    if (!a->h.oct) return -1;
    return hist_put(&a->h, ludus__hist_bucket(a->min));
}

int ludus__acc_add_slow(ludus__acc *a, int64_t v, uint32_t b, int exact) {
    if (hist_table(a) != 0) return -1;
    if (a->h.oct && hist_put(&a->h, b) != 0) return -1;
    if (exact) {
        if (LUDUS__GROW(a->exact, a->nexact, a->cap, 64) != 0) return -1;
        a->exact[a->nexact++] = v;
    }
    if (a->n == 0 || v < a->min) a->min = v;
    if (a->n == 0 || v > a->max) a->max = v;
    a->n++;
    a->total = ludus__total_add(a->total, v);
    return 0;
}

void ludus__acc_free(ludus__acc *a) {
    for (int i = 0; a->h.oct && i < LUDUS__HIST_OCT; i++) ludus__free(a->h.oct[i]);
    ludus__free(a->h.oct);
    ludus__free(a->exact);
    memset(a, 0, sizeof *a);
}

/* Nearest rank: the smallest value with at least ceil(q * n) values <= it. */
static uint64_t rank_of(double q, uint64_t n) {
    double r = q * (double)n;
    uint64_t k = (uint64_t)r;
    if ((double)k < r) k++;
    if (k < 1) k = 1;
    if (k > n) k = n;
    return k;
}

static int64_t hist_quantile(const ludus__acc *a, double q) {
    uint64_t k = rank_of(q, a->n), seen = 0;
    if (!a->h.oct) return a->min; /* one value */
    for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
        const uint64_t *o = a->h.oct[oct];
        if (!o) continue;
        for (uint32_t s = 0; s < LUDUS__HIST_SUB; s++) {
            seen += o[s];
            if (seen >= k) {
                int64_t v = ludus__hist_bucket_mid(oct * LUDUS__HIST_SUB + s);
                if (v < a->min) v = a->min;
                if (v > a->max) v = a->max;
                return v;
            }
        }
    }
    return a->max;
}

void ludus__acc_stats(ludus__acc *a, int exact, ludus_duration_stats *s) {
    memset(s, 0, sizeof *s);
    s->count = a->n;
    if (a->n == 0) return;
    s->total_ns = a->total;
    s->min_ns = a->min;
    s->max_ns = a->max;
    s->mean_ns = (double)a->total / (double)a->n;
    if (exact && a->nexact == a->n) {
        ludus__sort_i64(a->exact, a->nexact);
        s->p50_ns = a->exact[rank_of(0.50, a->n) - 1];
        s->p90_ns = a->exact[rank_of(0.90, a->n) - 1];
        s->p99_ns = a->exact[rank_of(0.99, a->n) - 1];
    } else {
        s->p50_ns = hist_quantile(a, 0.50);
        s->p90_ns = hist_quantile(a, 0.90);
        s->p99_ns = hist_quantile(a, 0.99);
    }
}

int ludus__acc_merge(ludus__acc *dst, const ludus__acc *src, int exact) {
    if (!src->n) return 0;
    int keep = exact && dst->nexact == dst->n && src->nexact == src->n;
    if (dst->n) { /* two values at least: dst needs its table */
        if (hist_table(dst) != 0) return -1;
        uint64_t tmp[LUDUS__HIST_SUB];
        for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
            const uint64_t *o = ludus__acc_octave(src, oct, tmp);
            if (!o) continue;
            if (!dst->h.oct[oct] && !(dst->h.oct[oct] = ludus__calloc(LUDUS__HIST_SUB, sizeof **dst->h.oct))) return -1;
            for (uint32_t s = 0; s < LUDUS__HIST_SUB; s++) dst->h.oct[oct][s] += o[s];
        }
    } else if (src->h.oct) { /* dst empty: a copy of src's table */
        if (!(dst->h.oct = ludus__calloc(LUDUS__HIST_OCT, sizeof *dst->h.oct))) return -1;
        for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
            if (!src->h.oct[oct]) continue;
            if (!(dst->h.oct[oct] = ludus__malloc(LUDUS__HIST_SUB * sizeof **dst->h.oct))) return -1;
            memcpy(dst->h.oct[oct], src->h.oct[oct], LUDUS__HIST_SUB * sizeof **dst->h.oct);
        }
    }
    if (dst->n == 0 || src->min < dst->min) dst->min = src->min;
    if (dst->n == 0 || src->max > dst->max) dst->max = src->max;
    dst->n += src->n;
    dst->total = ludus__total_add(dst->total, src->total);
    if (!keep) return 0;
    if (dst->nexact + src->nexact > dst->cap) {
        size_t cap = dst->nexact + src->nexact;
        int64_t *p = ludus__realloc(dst->exact, cap * sizeof *p);
        if (!p) return -1;
        dst->exact = p;
        dst->cap = cap;
    }
    if (src->nexact) memcpy(dst->exact + dst->nexact, src->exact, src->nexact * sizeof *src->exact);
    dst->nexact += src->nexact;
    return 0;
}
