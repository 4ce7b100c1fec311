/* Protocol-buffer wire encoding by hand (trace-formats.md B.1): varints,
 * keys, fixed64, length-delimited fields and nested messages, written
 * straight into the bounded writer's buffer. A caller reserves room for one
 * whole packet (ludus__pb_reserve), encodes it with these helpers, and
 * commits it. Nested messages get a one-byte length that is widened with a
 * memmove when the body turns out to be 128 bytes or more. */
#ifndef LUDUS_PROTO_WRITER_H
#define LUDUS_PROTO_WRITER_H

#include <string.h>

#include "../base/text.h"
#include "../base/varint.h"
#include "../base/writer.h"

enum { LUDUS__PB_VARINT = 0, LUDUS__PB_I64 = 1, LUDUS__PB_LEN = 2 };

/* Largest packet a caller may encode after one reserve. */
#define LUDUS__PB_MAX_PACKET 16384u

/* Room for n bytes at the end of the buffer (flushing first if needed). */
static inline uint8_t *ludus__pb_reserve(ludus__writer *w, size_t n) {
    if (LUDUS__WRITER_BUF - w->n < n) ludus__w_flush(w);
    return (uint8_t *)w->buf + w->n;
}

static inline void ludus__pb_commit(ludus__writer *w, const uint8_t *end) {
    size_t k = (size_t)(end - ((uint8_t *)w->buf + w->n));
    w->n += k;
    w->bytes += k;
}

static inline uint8_t *ludus__pb_key(uint8_t *p, uint32_t field, unsigned wire) {
    return ludus__varint_put(p, ((uint64_t)field << 3) | wire);
}

static inline uint8_t *ludus__pb_uint(uint8_t *p, uint32_t field, uint64_t v) {
    return ludus__varint_put(ludus__pb_key(p, field, LUDUS__PB_VARINT), v);
}

/* int32/int64: negative values are sign-extended to 10 bytes (no zigzag). */
static inline uint8_t *ludus__pb_int(uint8_t *p, uint32_t field, int64_t v) {
    return ludus__pb_uint(p, field, (uint64_t)v);
}

static inline uint8_t *ludus__pb_fixed64(uint8_t *p, uint32_t field, uint64_t v) {
    p = ludus__pb_key(p, field, LUDUS__PB_I64);
    for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));
    return p;
}

static inline uint8_t *ludus__pb_double(uint8_t *p, uint32_t field, double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return ludus__pb_fixed64(p, field, v);
}

static inline uint8_t *ludus__pb_bytes(uint8_t *p, uint32_t field, const void *s, size_t n) {
    p = ludus__varint_put(ludus__pb_key(p, field, LUDUS__PB_LEN), n);
    memcpy(p, s, n);
    return p + n;
}

/* Longest string field: longer names are cut (a packet must fit the writer). */
#define LUDUS__PB_MAX_STR 4096u

/* The one writer of a protobuf string (names, texts, values): s[0, n) as
 * valid UTF-8 (each invalid byte becomes U+FFFD), at most max bytes (<=
 * LUDUS__PB_MAX_STR), cut between two characters. Writes at most max + 8
 * bytes. ludus__pb_str: max = LUDUS__PB_MAX_STR. */
static inline uint8_t *ludus__pb_str_max(uint8_t *p, uint32_t field, const char *s, size_t n, size_t max) {
    if (n <= max && ludus__utf8_valid(s, n)) return ludus__pb_bytes(p, field, s, n);
    p = ludus__pb_key(p, field, LUDUS__PB_LEN);
    size_t k = ludus__utf8_clean(s, n, (char *)p + 2, max); /* < 2^14: a two-byte length at most */
    if (k < 128) {
        memmove(p + 1, p + 2, k);
        *p = (uint8_t)k;
        return p + 1 + k;
    }
    p[0] = (uint8_t)(0x80 | (k & 0x7f));
    p[1] = (uint8_t)(k >> 7);
    return p + 2 + k;
}

static inline uint8_t *ludus__pb_str(uint8_t *p, uint32_t field, const char *s, size_t n) {
    return ludus__pb_str_max(p, field, s, n, LUDUS__PB_MAX_STR);
}

/* Opens a nested message: *mark remembers where its length goes. */
static inline uint8_t *ludus__pb_open(uint8_t *p, uint32_t field, uint8_t **mark) {
    p = ludus__pb_key(p, field, LUDUS__PB_LEN);
    *mark = p;
    return p + 1;
}

/* Closes the message opened at mark; returns the new end. */
static inline uint8_t *ludus__pb_close(uint8_t *p, uint8_t *mark) {
    size_t len = (size_t)(p - mark - 1);
    if (len < 128) {
        *mark = (uint8_t)len;
        return p;
    }
    size_t lb = ludus__varint_size(len);
    memmove(mark + lb, mark + 1, len);
    ludus__varint_put(mark, len);
    return mark + lb + len;
}

#endif
