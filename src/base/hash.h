/* FNV-1a, 32 bits: site ids and the tables that find sites by name. */
#ifndef LUDUS_HASH_H
#define LUDUS_HASH_H

#include <stddef.h>
#include <stdint.h>

#define LUDUS__FNV_BASIS 2166136261u

static inline uint32_t ludus__fnv1a(uint32_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 16777619u;
    return h;
}

#endif
