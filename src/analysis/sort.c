/* Sorting and selection of numbers for the analysis and the diff: a k-th
 * smallest without sorting (quickselect) for int64 and double, and a
 * sort of doubles (and of 16-byte records by a double first) and of int64
 * by radix on the bits, in place of qsort, whose call per comparison was half of a
 * diff's instructions (bench/RESULTS.md, "The diff's sorts").
 *
 * The radix sort is stable and orders as ludus__cmp_double does: -0.0 and
 * +0.0 are one key (they compare equal), so the result is the one glibc's
 * qsort (a stable merge sort) gives, element for element. An array holding
 * a NaN, which compares equal to everything, is left to qsort. */
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

int ludus__cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* ---- selection ---- */

/* The k-th smallest of v[0, n), v reordered (still a permutation: callers
 * take several k of one array): first, where n is large, the elements are
 * narrowed by their key's bits (radix_kth below) to those that share the
 * k-th's leading bits; then three-way partitions around a median of three,
 * the rest sorted by cmp after 128 of them (O(n log n) at worst). */
#define LUDUS__KTH(name, type, cmp, narrow)                                                 \
    type name(type *v, size_t n, size_t k) {                                                \
        type found;                                                                         \
        if (n >= KTH_RADIX_MIN && narrow(&v, &n, &k, &found)) return found;                 \
        size_t lo = 0, hi = n; /* k lies in [lo, hi) */                                     \
        int budget = 2 * 64;                                                                \
        while (hi - lo > 16 && budget-- > 0) {                                              \
            size_t m = lo + (hi - lo) / 2;                                                  \
            type x = v[lo], y = v[m], z = v[hi - 1];                                        \
            type p = x < y ? (y < z ? y : x < z ? z : x) : (x < z ? x : y < z ? z : y);     \
            size_t i = lo, lt = lo, gt = hi; /* [lo, lt) < p, [lt, i) == p, [gt, hi) > p */ \
            while (i < gt) {                                                                \
                type t = v[i];                                                              \
                if (t < p) {                                                                \
                    v[i++] = v[lt];                                                         \
                    v[lt++] = t;                                                            \
                } else if (t > p) {                                                         \
                    v[i] = v[--gt];                                                         \
                    v[gt] = t;                                                              \
                } else {                                                                    \
                    i++;                                                                    \
                }                                                                           \
            }                                                                               \
            if (k < lt)                                                                     \
                hi = lt;                                                                    \
            else if (k >= gt)                                                               \
                lo = gt;                                                                    \
            else                                                                            \
                return p;                                                                   \
        }                                                                                   \
        qsort(v + lo, hi - lo, sizeof *v, cmp);                                             \
        return v[k];                                                                        \
    }

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

/* A double's bits as an unsigned key in its order: negative numbers
 * flipped whole, the others with the sign bit set; -0.0 as +0.0. */
static inline uint64_t f64_key(double d) {
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    if (b == UINT64_C(0x8000000000000000)) b = 0;
    return b >> 63 ? ~b : b | UINT64_C(0x8000000000000000);
}

static inline int f64_nan(double d) {
    return d != d;
}

#define F64_KEY(x) f64_key(x)
#define F64_BAD(x) f64_nan(x)
#define I64_KEY(x) ((uint64_t)(x) ^ UINT64_C(0x8000000000000000)) /* the sign bit flipped: in signed order */
#define I64_BAD(x) 0

/* Below this, the partitions alone: a radix pass's counts cost more than
 * it saves. */
#define KTH_RADIX_MIN 16384
#define KTH_BITS 11 /* a pass's digit: 2,048 counts (16 KiB) */

/* The radix narrowing of a selection: from the highest bit where keys
 * differ down, KTH_BITS at a time, count the elements by digit, find the
 * digit of the k-th and move the elements that have it to the front (a
 * swap each, without a branch: v stays a permutation), until few are left.
 * Each pass reads the elements in order with no unpredictable branch, where
 * a partition's compares are a coin toss each. 1 with *out when the
 * elements left all have one key (the k-th); else 0 with *v, *n, *k
 * narrowed for the partitions (unchanged for an array with a bad element:
 * a NaN, which has no place in the key order). */
#define LUDUS__RADIX_KTH(name, type, key, bad)                                                        \
    static int name(type **vp, size_t *np, size_t *kp, type *out) {                                   \
        type *v = *vp;                                                                                \
        size_t n = *np, k = *kp;                                                                      \
        size_t count[1u << KTH_BITS];                                                                 \
        uint64_t k0 = key(v[0]), vary = 0;                                                            \
        int top = 64, first = 1; /* the bits at and above top are the same in every element left */   \
        while (top > 0 && n > KTH_RADIX_MIN / 4) {                                                    \
            int shift = top > KTH_BITS ? top - KTH_BITS : 0;                                          \
            uint64_t mask = (UINT64_C(1) << (top - shift)) - 1;                                       \
            memset(count, 0, (size_t)(mask + 1) * sizeof *count);                                     \
            if (first) { /* the first pass also finds a bad element and the bits where keys differ */ \
                for (size_t i = 0; i < n; i++) {                                                      \
                    if (bad(v[i])) return 0;                                                          \
                    uint64_t x = key(v[i]);                                                           \
                    vary |= x ^ k0;                                                                   \
                    count[(x >> shift) & mask]++;                                                     \
                }                                                                                     \
                first = 0;                                                                            \
            } else {                                                                                  \
                for (size_t i = 0; i < n; i++) count[(key(v[i]) >> shift) & mask]++;                  \
            }                                                                                         \
            size_t before = 0, d = 0;                                                                 \
            while (before + count[d] <= k) before += count[d++];                                      \
            if (count[d] != n) {                                                                      \
                size_t m = 0;                                                                         \
                for (size_t i = 0; i < n; i++) {                                                      \
                    type t = v[i];                                                                    \
                    v[i] = v[m];                                                                      \
                    v[m] = t;                                                                         \
                    m += ((key(t) >> shift) & mask) == d;                                             \
                }                                                                                     \
                n = m;                                                                                \
                top = shift;                                                                          \
            } else { /* one digit: on from the highest bit below it where keys differ */              \
                uint64_t below = shift ? vary & ((UINT64_C(1) << shift) - 1) : 0;                     \
                top = below ? 64 - __builtin_clzll(below) : 0;                                        \
            }                                                                                         \
            k -= before;                                                                              \
        }                                                                                             \
        *vp = v;                                                                                      \
        *np = n;                                                                                      \
        *kp = k;                                                                                      \
        if (top > 0) return 0;                                                                        \
        *out = v[k];                                                                                  \
        return 1;                                                                                     \
    }

LUDUS__RADIX_KTH(radix_kth_i64, int64_t, I64_KEY, I64_BAD)
LUDUS__RADIX_KTH(radix_kth_f64, double, F64_KEY, F64_BAD)
LUDUS__KTH(ludus__kth_i64, int64_t, cmp_i64, radix_kth_i64)
LUDUS__KTH(ludus__kth_f64, double, ludus__cmp_double, radix_kth_f64)

/* ---- the radix sort ---- */

/* Sorts v[0, n) of `type` by key(element), an unsigned key in its order,
 * stable, least significant digit first, over the bits where the keys
 * differ only (found by a first pass: durations as doubles share their low
 * bits and their sign and top exponent bits), in digits of 8 bits, or 11
 * from 65,536 elements (fewer passes; the counts, 16 KiB a digit, then cost
 * less than a pass); a digit the same in every key is skipped; 0, or -1
 * when an element is bad(element) (a NaN) or the buffer cannot be had (v
 * untouched). */
#define LUDUS__RADIX(name, type, key, bad)                                                                 \
    static int name(type *v, size_t n) {                                                                   \
        uint64_t k0 = key(v[0]), vary = 0;                                                                 \
        for (size_t i = 0; i < n; i++) {                                                                   \
            if (bad(v[i])) return -1;                                                                      \
            vary |= key(v[i]) ^ k0;                                                                        \
        }                                                                                                  \
        if (!vary) return 0; /* one key: sorted as it is */                                                \
        const int bits = n >= 65536 ? 11 : 8, lo = __builtin_ctzll(vary), hi = 64 - __builtin_clzll(vary); \
        const int ndig = (hi - lo + bits - 1) / bits;                                                      \
        const size_t radix = (size_t)1 << bits, mask = radix - 1;                                          \
        size_t *count = ludus__calloc((size_t)ndig * radix, sizeof *count);                                \
        type *tmp = count ? ludus__malloc(n * sizeof *tmp) : NULL;                                         \
        if (!tmp) {                                                                                        \
            ludus__free(count);                                                                            \
            return -1;                                                                                     \
        }                                                                                                  \
        for (size_t i = 0; i < n; i++) {                                                                   \
            uint64_t k = key(v[i]) >> lo;                                                                  \
            for (int d = 0; d < ndig; d++) count[(size_t)d * radix + ((k >> (bits * d)) & mask)]++;        \
        }                                                                                                  \
        type *from = v, *to = tmp;                                                                         \
        for (int d = 0; d < ndig; d++) {                                                                   \
            size_t *c = count + (size_t)d * radix, at = 0;                                                 \
            const int sh = lo + bits * d;                                                                  \
            if (c[(key(from[0]) >> sh) & mask] == n) continue; /* one digit value: nothing moves */        \
            for (size_t x = 0; x < radix; x++) {                                                           \
                size_t m = c[x];                                                                           \
                c[x] = at;                                                                                 \
                at += m;                                                                                   \
            }                                                                                              \
            for (size_t i = 0; i < n; i++) to[c[(key(from[i]) >> sh) & mask]++] = from[i];                 \
            type *t = from;                                                                                \
            from = to;                                                                                     \
            to = t;                                                                                        \
        }                                                                                                  \
        if (from != v) memcpy(v, from, n * sizeof *v);                                                     \
        ludus__free(tmp);                                                                                  \
        ludus__free(count);                                                                                \
        return 0;                                                                                          \
    }

/* A record of 16 bytes whose first 8 are its double key (ludus__pt, the
 * diff's rank pairs): moved whole, its key read by memcpy. */
typedef struct pair16 {
    unsigned char b[16];
} pair16;
static inline double pair_key(pair16 x) {
    double d;
    memcpy(&d, x.b, sizeof d);
    return d;
}

#define PAIR_KEY(x) f64_key(pair_key(x))
#define PAIR_BAD(x) f64_nan(pair_key(x))
LUDUS__RADIX(radix_f64, double, F64_KEY, F64_BAD)
LUDUS__RADIX(radix_pairs, pair16, PAIR_KEY, PAIR_BAD)
LUDUS__RADIX(radix_i64, int64_t, I64_KEY, I64_BAD)

/* Below this, qsort: the radix sort's 8 x 256 counts cost more than the
 * comparisons they save. */
#define RADIX_MIN 64

static int cmp_pair(const void *x, const void *y) {
    return ludus__cmp_double(x, y); /* its first 8 bytes */
}

void ludus__sort_f64(double *v, size_t n) {
    if (n < RADIX_MIN || radix_f64(v, n) != 0) qsort(v, n, sizeof *v, ludus__cmp_double);
}

void ludus__sort_i64(int64_t *v, size_t n) {
    if (n < RADIX_MIN || radix_i64(v, n) != 0) qsort(v, n, sizeof *v, cmp_i64);
}

/* (frame, ent, thread): what a stable sort by frame gives the arrays
 * ludus__sort_cellrefs takes, and its fallback. */
static int cmp_cellref(const void *x, const void *y) {
    const ludus__cellref *a = x, *b = y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    if (a->ent != b->ent) return a->ent < b->ent ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

#define CELLREF_KEY(x) ((uint64_t)(x).frame)
LUDUS__RADIX(radix_cellrefs, ludus__cellref, CELLREF_KEY, I64_BAD)

void ludus__sort_cellrefs(ludus__cellref *v, size_t n) {
    if (n < 2) return; /* v may be NULL then (a chunk of hitches without cells) */
    if (n < RADIX_MIN || radix_cellrefs(v, n) != 0) qsort(v, n, sizeof *v, cmp_cellref);
}

void ludus__sort_f64_pairs(void *v, size_t n) {
    if (n < RADIX_MIN || radix_pairs(v, n) != 0) qsort(v, n, sizeof(pair16), cmp_pair);
}
