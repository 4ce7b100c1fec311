/* Buffered output for the exporters: a fixed buffer in front of a write
 * callback (file, pipe, memory). Memory does not grow with the capture. The
 * first write error sticks; later puts are no-ops. */
#ifndef LUDUS_WRITER_H
#define LUDUS_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../platform/platform.h"

#define LUDUS__WRITER_BUF 65536

typedef struct ludus__writer {
    int (*write)(void *user_data, const void *data, size_t n); /* 0 ok */
    void *user_data;
    int failed;
    uint64_t bytes; /* written so far, flushed or not */
    size_t n;
    char buf[LUDUS__WRITER_BUF];
} ludus__writer;

LUDUS_HIDDEN void ludus__w_init(ludus__writer *w, int (*write)(void *, const void *, size_t), void *ud);
LUDUS_HIDDEN int ludus__w_flush(ludus__writer *w);
LUDUS_HIDDEN void ludus__w_bytes(ludus__writer *w, const void *p, size_t n);
LUDUS_HIDDEN void ludus__w_str(ludus__writer *w, const char *s);
LUDUS_HIDDEN void ludus__w_u64(ludus__writer *w, uint64_t v);
LUDUS_HIDDEN void ludus__w_i64(ludus__writer *w, int64_t v);
/* The one writer of a name for each output kind; nothing else writes a
 * name (tests/compile/names_lint.py checks the callers).
 * JSON: n bytes of s in quotes, '"', '\\' and control characters escaped,
 * '<', '>', '&' and U+2028/U+2029 too (the string may sit inside an HTML
 * <script> or be read as JavaScript), valid UTF-8 passed through and each
 * invalid byte written as \ufffd (strict parsers accept every string). */
LUDUS_HIDDEN void ludus__w_json_str(ludus__writer *w, const char *s, size_t n);
LUDUS_HIDDEN void ludus__w_jstr(ludus__writer *w, const char *s); /* NUL-terminated */
/* HTML text and attribute values: shown as text.h's ludus__show_next shows
 * it, with & < > " ' as entities. */
LUDUS_HIDDEN void ludus__w_html_str(ludus__writer *w, const char *s, size_t n);
/* A CSV field: ludus_text_csv (the one CSV writer) with LUDUS_CSV_SHOW:
 * control characters shown (one record a line), formulas defused. Terminal
 * text: ludus__text_show (text.h). Protobuf: ludus__pb_str (proto_writer.h). */
LUDUS_HIDDEN void ludus__w_csv(ludus__writer *w, const char *s);
LUDUS_HIDDEN void ludus__w_double(ludus__writer *w, double v);

/* Writer callback for a ludus__file. */
LUDUS_HIDDEN int ludus__w_file_cb(void *file, const void *data, size_t n);

static inline void ludus__w_ch(ludus__writer *w, char ch) {
    if (w->n == LUDUS__WRITER_BUF) ludus__w_flush(w);
    w->buf[w->n++] = ch;
    w->bytes++;
}

/* Direct formatting: reserve n (<= LUDUS__WRITER_BUF) bytes, write through the
 * returned pointer, then commit the end pointer. */
static inline char *ludus__w_reserve(ludus__writer *w, size_t n) {
    if (LUDUS__WRITER_BUF - w->n < n) ludus__w_flush(w);
    return w->buf + w->n;
}
static inline void ludus__w_commit(ludus__writer *w, char *end) {
    size_t k = (size_t)(end - (w->buf + w->n));
    w->n += k;
    w->bytes += k;
}
/* Decimal digits of v at p; returns the end. */
LUDUS_HIDDEN char *ludus__fmt_u64(char *p, uint64_t v);
LUDUS_HIDDEN extern const char ludus__digit_pairs[201]; /* "00".."99" */

/* Four digits of v < 10000 at p (leading zeros kept). */
static inline void ludus__fmt_4(char *p, uint32_t v) {
    uint32_t hi = (v * 5243u) >> 19; /* v / 100 for v < 43699 */
    memcpy(p, ludus__digit_pairs + 2 * hi, 2);
    memcpy(p + 2, ludus__digit_pairs + 2 * (v - hi * 100u), 2);
}

/* JSON times. Viewers read "ts" and "dur" as doubles in microseconds and
 * add, subtract and compare them (a slice ends at ts + dur; speedscope also
 * subtracts each thread's first ts). Written with three decimals (whole ns),
 * such sums round: a slice that ends at the very ns the next begins can end
 * after it, a child after its parent. So times are written on a binary
 * grid, multiples of 2^-12 us (0.244 ns): every value is a double exactly,
 * and every sum and difference of written values is exact (below 2^41 us,
 * 25 days), so each viewer orders begins and ends as the values written do.
 *
 * A time's point is the grid point nearest to its ns, P(ns) = round(ns x
 * 4.096) (never a tie: 125 is odd); P of distinct ns are over 4 apart. A
 * slice from b to e (ns) begins at P(b) and ends at P(e) - 1: an end is
 * always before a begin of the same ns, so no end ties with a begin (two
 * touching slices of one name stay two in speedscope) and a child ending
 * with its parent ties with it. A zero-length slice (e <= b) goes from P(b)
 * to P(b) + 1, one unit: drawn by every viewer (speedscope leaves out what
 * lasts 0), after every end of its ns, nested in a slice that begins there.
 * A dur is its end's point less its begin's. Every point is within 1.5
 * units (0.37 ns) of its ns and a dur within 2 (0.49 ns) of the slice's:
 * round(x * 1000) gives back the ns of every ts, every end and every dur,
 * as Perfetto's reader (llround(x * 1000)) does.
 * tests/unit/test_writer.c checks all of it; docs/viewers.md says why. */
#define LUDUS__GRID_PER_US 4096u
#if defined(__SIZEOF_INT128__)
__extension__ typedef unsigned __int128 ludus__grid_u128; /* -Wpedantic: see src/capture/nev.h */
#endif
static inline uint64_t ludus__grid(int64_t ns) {
#if defined(__SIZEOF_INT128__)
    /* Below 2^54 ns (208 days; a negative ns is above as unsigned): x =
     * u x 512 + 62 < 2^63, and x / 125 is one multiply by M = ceil(2^70 / 125)
     * and a shift, exactly: x M / 2^70 = x / 125 + x 76 / (125 2^70), the
     * error under 0.0048, x / 125's fraction at most 124/125 (no fix-up
     * step, as gcc's division of any 64-bit x needs). */
    if ((uint64_t)ns < (UINT64_C(1) << 54))
        return (uint64_t)(((ludus__grid_u128)((uint64_t)ns * 512u + 62u) * UINT64_C(9444732965739290428)) >> 70);
#endif
    uint64_t u = ns < 0 ? 0 : (uint64_t)ns; /* viewers drop negative times; capture times are >= 0 */
    if (u > (UINT64_MAX >> 9) - 1) u = (UINT64_MAX >> 9) - 1;
    return (u * 512u + 62u) / 125u; /* round(u x 4096 / 1000) */
}

/* A slice's points (see above): *pb its begin's, *pe its end's. */
static inline void ludus__slice_grid(int64_t begin_ns, int64_t end_ns, uint64_t *pb, uint64_t *pe) {
    uint64_t b = ludus__grid(begin_ns), e = ludus__grid(end_ns);
    *pb = b;
    *pe = e > b + 1 ? e - 1 : b + 1;
}

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* The eight decimal digits of v < 10^8, one a byte, the first in the
 * lowest (as memory holds text), not yet '0'-based: split in two lanes of
 * four digits, then four of two, then eight of one, each split a multiply
 * and a shift per word (v / 100 = (v x 5243) >> 19 below 43699, v / 10 =
 * (v x 103) >> 10 below 179; no lane reaches its neighbour). */
static inline uint64_t ludus__digits8(uint32_t v) {
    uint64_t hi = v / 10000u, y = hi | (uint64_t)(v - hi * 10000u) << 32;
    uint64_t h2 = ((y * 5243u) >> 19) & 0x0000007F0000007Full;
    y = h2 | (y - h2 * 100u) << 16;
    uint64_t h1 = ((y * 103u) >> 10) & 0x000F000F000F000Full;
    return h1 | (y - h1 * 10u) << 8;
}

/* The same for four digits of v < 10^4. */
static inline uint32_t ludus__digits4(uint32_t v) {
    uint32_t hi = (v * 5243u) >> 19, y = hi | (v - hi * 100u) << 16;
    uint32_t h1 = ((y * 103u) >> 10) & 0x000F000Fu;
    return h1 | (y - h1 * 10u) << 8;
}
#endif

/* The grid value g / 4096 in decimal, exactly: the integer part, then the
 * fraction's digits (f x 5^12 has 12 of them), trailing zeros left out (f's
 * trailing zero bits: f = 2^k m gives k of them). Up to 32 bytes at p
 * (callers reserve that); returns the end. */
static inline char *ludus__fmt_grid(char *p, uint64_t g) {
    uint64_t q = g >> 12;
    uint32_t f = (uint32_t)(g & 4095u);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (q < 100000000u) { /* eight digits at once, leading zeros skipped (below 100 s) */
        uint64_t d = ludus__digits8((uint32_t)q);
        unsigned lz = q ? (unsigned)__builtin_ctzll(d) >> 3 : 7; /* the first non-zero digit's byte */
        d = (d + 0x3030303030303030ull) >> (8 * lz);
        memcpy(p, &d, 8);
        p += 8 - lz;
    } else {
        p = ludus__fmt_u64(p, q);
    }
    if (!f) return p;
    uint64_t x = (uint64_t)f * 244140625u; /* f x 5^12 < 10^12 */
    uint32_t a = (uint32_t)(x / 100000000u);
    uint32_t a4 = ludus__digits4(a) + 0x30303030u;
    uint64_t b8 = ludus__digits8((uint32_t)(x - (uint64_t)a * 100000000u)) + 0x3030303030303030ull;
    *p = '.';
    memcpy(p + 1, &a4, 4);
    memcpy(p + 5, &b8, 8);
    return p + 13 - (unsigned)__builtin_ctz(f);
#else
    if (q < 100000000u) { /* eight digits, leading zeros skipped (below 100 s) */
        char t[16];
        uint32_t hi = (uint32_t)q / 10000u;
        ludus__fmt_4(t, hi);
        ludus__fmt_4(t + 4, (uint32_t)q - hi * 10000u);
        unsigned lz = 0;
        while (lz < 7 && t[lz] == '0') lz++;
        memcpy(p, t + lz, 8);
        p += 8 - lz;
    } else {
        p = ludus__fmt_u64(p, q);
    }
    if (!f) return p;
    uint64_t d = (uint64_t)f * 244140625u; /* f x 5^12 < 10^12 */
    uint32_t a = (uint32_t)(d / 100000000u), b = (uint32_t)(d - (uint64_t)a * 100000000u);
    uint32_t b1 = b / 10000u;
    *p = '.';
    ludus__fmt_4(p + 1, a);
    ludus__fmt_4(p + 5, b1);
    ludus__fmt_4(p + 9, b - b1 * 10000u);
    return p + 13 - (unsigned)__builtin_ctz(f);
#endif
}

/* The fractions of the grid, formatted once: entry f (0..4095) holds what
 * ludus__fmt_grid writes after the integer part of a value whose fraction
 * is f ("", or "." and up to 12 digits), its length in the last byte. An
 * exporter makes one (64 KiB, ludus__grid_fracs_init) and writes each time
 * with ludus__fmt_grid_t: the integer part, then one 16-byte copy. */
typedef struct ludus__grid_fracs {
    char f[4096][16];
} ludus__grid_fracs;
LUDUS_HIDDEN void ludus__grid_fracs_init(ludus__grid_fracs *t);

/* What ludus__fmt_grid writes, the fraction from t. Up to 40 bytes at p. */
static inline char *ludus__fmt_grid_t(char *p, uint64_t g, const ludus__grid_fracs *t) {
    uint64_t q = g >> 12;
    const char *f = t->f[g & 4095u];
    if (q < 10) {
        *p++ = (char)('0' + q);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    } else if (q < 100000000u) {
        uint64_t d = ludus__digits8((uint32_t)q);
        unsigned lz = (unsigned)__builtin_ctzll(d) >> 3; /* the first non-zero digit's byte */
        d = (d + 0x3030303030303030ull) >> (8 * lz);
        memcpy(p, &d, 8);
        p += 8 - lz;
#endif
    } else {
        p = ludus__fmt_u64(p, q);
    }
    memcpy(p, f, 16);
    return p + (unsigned char)f[15];
}

/* An instant's time (ns since the origin) as JSON microseconds: P(ns). */
static inline char *ludus__fmt_us(char *p, int64_t ns) {
    return ludus__fmt_grid(p, ludus__grid(ns));
}

#endif
