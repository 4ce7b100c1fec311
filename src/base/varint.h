/* LEB128 varints and zigzag: the compact .ludus blocks and the protobuf
 * writer use these, and nothing else encodes varints. */
#ifndef LUDUS_VARINT_H
#define LUDUS_VARINT_H

#include <stddef.h>
#include <stdint.h>

static inline uint8_t *ludus__varint_put(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline size_t ludus__varint_size(uint64_t v) {
    size_t n = 1;
    while (v >= 0x80) v >>= 7, n++;
    return n;
}

/* 0, or -1 when the bytes end first or the value is longer than 10 bytes. */
static inline int ludus__varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*p >= end) return -1;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* A varint from bytes this process wrote itself with ludus__varint_put
 * (the analysis's packed runs): no end to check. */
static inline uint64_t ludus__varint_get_own(const uint8_t **p) {
    uint64_t v = **p;
    if (v < 0x80) {
        (*p)++;
        return v;
    }
    uint64_t x = 0;
    int shift = 0;
    uint8_t b;
    do {
        b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
    } while (b & 0x80);
    return x;
}

static inline uint64_t ludus__zigzag(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t ludus__unzigzag(uint64_t v) {
    return (int64_t)((v >> 1) ^ (uint64_t) - (int64_t)(v & 1));
}

#endif
