/* Buffered output for the exporters: a fixed buffer in front of a write
 * callback (file, pipe, memory). Memory does not grow with the capture. The
 * first write error sticks; later puts are no-ops. */
#ifndef LUDUS_WRITER_H
#define LUDUS_WRITER_H

#include <stddef.h>
#include <stdint.h>

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
/* The one JSON string writer: n bytes of s with quotes, escapes for '"',
 * '\\' and control characters, valid UTF-8 passed through and each invalid
 * byte written as \ufffd (strict parsers accept every string). html: '<',
 * '>' and '&' escaped too, so the string can sit inside an HTML <script>. */
LUDUS_HIDDEN void ludus__w_json_text(ludus__writer *w, const char *s, size_t n, int html);
LUDUS_HIDDEN void ludus__w_json_str(ludus__writer *w, const char *s, size_t n);
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
/* ns as microseconds with three decimals ("12.345"), from integers. */
LUDUS_HIDDEN char *ludus__fmt_us(char *p, int64_t ns);

#endif
