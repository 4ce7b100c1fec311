/* Buffered writer (writer.h). */
#include "writer.h"

#include "text.h"

#include <ludus/capture_file.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

void ludus__w_init(ludus__writer *w, int (*write)(void *, const void *, size_t), void *ud) {
    w->write = write;
    w->user_data = ud;
    w->failed = 0;
    w->bytes = 0;
    w->n = 0;
}

int ludus__w_flush(ludus__writer *w) {
    if (w->n && !w->failed && w->write(w->user_data, w->buf, w->n) != 0) w->failed = 1;
    w->n = 0;
    return w->failed ? -1 : 0;
}

void ludus__w_bytes(ludus__writer *w, const void *p, size_t n) {
    const char *s = p;
    w->bytes += n;
    while (n) {
        if (w->n == LUDUS__WRITER_BUF) ludus__w_flush(w);
        size_t k = LUDUS__WRITER_BUF - w->n;
        if (k > n) k = n;
        memcpy(w->buf + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
    }
}

void ludus__w_str(ludus__writer *w, const char *s) {
    ludus__w_bytes(w, s, strlen(s));
}

void ludus__w_u64(ludus__writer *w, uint64_t v) {
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    ludus__w_bytes(w, tmp + i, (size_t)(24 - i));
}

void ludus__w_i64(ludus__writer *w, int64_t v) {
    if (v < 0) {
        ludus__w_ch(w, '-');
        ludus__w_u64(w, (uint64_t)0 - (uint64_t)v);
    } else {
        ludus__w_u64(w, (uint64_t)v);
    }
}

const char ludus__digit_pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                     "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                     "8081828384858687888990919293949596979899";

/* Decimal digits of v: log10 from the bit length, then one compare. */
static inline unsigned digits(uint64_t v) {
    static const uint64_t pow10[20] = {1ull,
                                       10ull,
                                       100ull,
                                       1000ull,
                                       10000ull,
                                       100000ull,
                                       1000000ull,
                                       10000000ull,
                                       100000000ull,
                                       1000000000ull,
                                       10000000000ull,
                                       100000000000ull,
                                       1000000000000ull,
                                       10000000000000ull,
                                       100000000000000ull,
                                       1000000000000000ull,
                                       10000000000000000ull,
                                       100000000000000000ull,
                                       1000000000000000000ull,
                                       10000000000000000000ull};
    unsigned t = ((64u - (unsigned)__builtin_clzll(v | 1)) * 1233u) >> 12;
    return t + (v >= pow10[t]);
}

char *ludus__fmt_u64(char *p, uint64_t v) {
    /* Count the digits, then fill from the end two at a time: no scratch
     * buffer, no copy. */
    unsigned n = v ? digits(v) : 1;
    char *end = p + n, *t = end;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        t -= 2;
        memcpy(t, ludus__digit_pairs + 2 * r, 2);
    }
    if (v >= 10)
        memcpy(t - 2, ludus__digit_pairs + 2 * v, 2);
    else
        t[-1] = (char)('0' + v);
    return end;
}

void ludus__grid_fracs_init(ludus__grid_fracs *t) {
    char buf[40];
    for (uint32_t f = 0; f < 4096; f++) {
        char *end = ludus__fmt_grid(buf, f); /* "0", or "0." and the digits */
        size_t n = (size_t)(end - buf) - 1;
        memset(t->f[f], 0, sizeof t->f[f]);
        memcpy(t->f[f], buf + 1, n);
        t->f[f][15] = (char)n;
    }
}

/* ---- the one writer of a name per output kind ---- */

void ludus__w_json_str(ludus__writer *w, const char *s, size_t n) {
    static const char hex[] = "0123456789abcdef";
    ludus__w_ch(w, '"');
    for (size_t i = 0; i < n;) {
        unsigned char ch = (unsigned char)s[i];
        if (ch >= 0x80) { /* a whole valid character, or U+FFFD for a bad byte */
            size_t k = ludus__utf8_next(s + i, n - i);
            if (k == 3 && ch == 0xe2 && (unsigned char)s[i + 1] == 0x80 && ((unsigned char)s[i + 2] & 0xfe) == 0xa8)
                ludus__w_bytes(w, (unsigned char)s[i + 2] == 0xa8 ? "\\u2028" : "\\u2029", 6); /* JS line ends */
            else if (k)
                ludus__w_bytes(w, s + i, k);
            else
                ludus__w_bytes(w, "\\ufffd", 6);
            i += k ? k : 1;
            continue;
        }
        if (ch == '"' || ch == '\\') {
            ludus__w_ch(w, '\\');
            ludus__w_ch(w, (char)ch);
        } else if (ch < 0x20 || ch == 0x7f || ch == '<' || ch == '>' || ch == '&') {
            char e[6] = {'\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15]};
            ludus__w_bytes(w, e, 6);
        } else {
            ludus__w_ch(w, (char)ch);
        }
        i++;
    }
    ludus__w_ch(w, '"');
}

void ludus__w_jstr(ludus__writer *w, const char *s) {
    ludus__w_json_str(w, s, strlen(s));
}

void ludus__w_html_str(ludus__writer *w, const char *s, size_t n) {
    char esc[8];
    for (size_t i = 0; i < n;) {
        const char *show;
        size_t len;
        i += ludus__show_next(s + i, n - i, esc, &show, &len);
        if (len == 1 && show == s + i - 1) {
            switch (*show) {
            case '<':
                ludus__w_bytes(w, "&lt;", 4);
                continue;
            case '>':
                ludus__w_bytes(w, "&gt;", 4);
                continue;
            case '&':
                ludus__w_bytes(w, "&amp;", 5);
                continue;
            case '"':
                ludus__w_bytes(w, "&quot;", 6);
                continue;
            case '\'':
                ludus__w_bytes(w, "&#39;", 5);
                continue;
            default:
                break;
            }
        }
        ludus__w_bytes(w, show, len);
    }
}

static int w_csv_put(void *w, const void *p, size_t n) {
    ludus__w_bytes(w, p, n);
    return 0;
}

void ludus__w_csv(ludus__writer *w, const char *s) {
    ludus_text_csv(s, strlen(s), LUDUS_CSV_SHOW, w_csv_put, w); /* shown: one record a line */
}

void ludus__w_double(ludus__writer *w, double v) {
    if (!isfinite(v)) { /* JSON has no such number: callers leave such values out */
        ludus__w_str(w, "null");
        return;
    }
    char tmp[40];
    int n = snprintf(tmp, sizeof tmp, "%.17g", v);
    ludus__w_bytes(w, tmp, (size_t)n);
}

int ludus__w_file_cb(void *file, const void *data, size_t n) {
    return ludus__file_write(file, data, n);
}
