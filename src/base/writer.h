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
/* A CSV field: quoted when needed, control characters shown (one record a
 * line), a leading = + - @ defused with a ' (no formula runs). Terminal
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

/* ns as microseconds with three decimals ("12.345"), from integers; it may
 * write up to 24 bytes at p (callers reserve that) and returns the end.
 * Times below 10^12 ns (1000 s: most of any capture) take a branch-free
 * path: twelve digits in three groups of four, the point put in, and the
 * integer's leading zeros skipped by counting zero bytes before a fixed
 * 16-byte copy. */
static inline char *ludus__fmt_us(char *p, int64_t ns) {
    uint64_t u = ns < 0 ? 0 : (uint64_t)ns; /* viewers drop negative times; capture times are >= 0 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (u < UINT64_C(1000000000000)) {
        char t[32];
        uint32_t a = (uint32_t)(u / 100000000u);
        uint32_t b = (uint32_t)(u - (uint64_t)a * 100000000u);
        uint32_t c = b / 10000u;
        ludus__fmt_4(t, a);
        ludus__fmt_4(t + 4, c);
        ludus__fmt_4(t + 9, b - c * 10000u); /* digits 8..11 at t[9..12] */
        t[8] = t[9];
        t[9] = '.';
        memset(t + 13, 0, sizeof t - 13);
        uint64_t zeros;
        memcpy(&zeros, t, 8);
        zeros ^= UINT64_C(0x3030303030303030); /* a '0' byte becomes 0; the first digit is the low byte */
        unsigned lz = zeros ? (unsigned)__builtin_ctzll(zeros) / 8 : 8; /* at most 8: "0.123" keeps its 0 */
        memcpy(p, t + lz, 16);
        return p + 13 - lz;
    }
#endif
    uint64_t q = u / 1000;
    uint32_t f = (uint32_t)(u - q * 1000);
    p = ludus__fmt_u64(p, q);
    *p++ = '.';
    *p++ = (char)('0' + f / 100);
    memcpy(p, ludus__digit_pairs + 2 * (f % 100), 2);
    return p + 2;
}

#endif
