/* The one grow-array step: an array p of n elements in cap, with room made
 * for one more before it is appended to:
 *
 *     if (LUDUS__GROW(t->items, t->n, t->cap, 64) != 0) return LUDUS_ENOMEM;
 *     t->items[t->n++] = item;
 *
 * The capacity doubles (first when empty); p and cap are left as they were
 * when memory runs out or the new capacity would not fit cap's type or a
 * size_t of bytes. cap is a uint32_t, uint64_t or size_t lvalue; p a
 * pointer lvalue whose memory came from ludus__malloc/ludus__realloc. */
#ifndef LUDUS_GROW_H
#define LUDUS_GROW_H

#include <stddef.h>

#include "../platform/platform.h"

#define LUDUS__GROW(p, n, cap, first) \
    ((size_t)(n) < (size_t)(cap) ? 0 : ludus__grow(&(p), &(cap), sizeof(cap), (size_t)(n), sizeof *(p), (first)))

/* 0, or -1 with *p_addr and *cap_addr unchanged (LUDUS__GROW). */
LUDUS_HIDDEN int ludus__grow(void *p_addr, void *cap_addr, size_t cap_size, size_t n, size_t elem, size_t first);

#endif
