/* A bump arena of fixed blocks: what it hands out never moves, and it is
 * freed at once. Bounded by a byte limit. Not thread-safe. */
#ifndef LUDUS_ARENA_H
#define LUDUS_ARENA_H

#include <stddef.h>

#include "../platform/platform.h"

typedef struct ludus__arena {
    char *block;
    size_t used, cap;
    size_t total, limit; /* limit 0: none */
    char **old;          /* earlier blocks */
    unsigned nold, old_cap;
} ludus__arena;

/* n bytes (aligned to 8), or NULL when out of memory or over the limit. */
LUDUS_HIDDEN void *ludus__arena_alloc(ludus__arena *a, size_t n);
/* A NUL-terminated copy of s[0, n), or NULL. */
LUDUS_HIDDEN char *ludus__arena_strndup(ludus__arena *a, const char *s, size_t n);
LUDUS_HIDDEN void ludus__arena_free(ludus__arena *a);

#endif
