/* Bump arena (arena.h). */
#include "../platform/alloc.h"
#include "arena.h"

#include <stdlib.h>
#include <string.h>

void *ludus__arena_alloc(ludus__arena *a, size_t n) {
    n = (n + 7) & ~(size_t)7;
    if (a->limit && a->total + n > a->limit) return NULL;
    if (!a->block || a->used + n > a->cap) {
        size_t cap = n > 65536 ? n : 65536;
        char *b = ludus__malloc(cap);
        if (!b) return NULL;
        if (a->block) {
            if (a->nold == a->old_cap) {
                unsigned oc = a->old_cap ? a->old_cap * 2 : 8;
                char **o = ludus__realloc(a->old, oc * sizeof *o);
                if (!o) {
                    ludus__free(b);
                    return NULL;
                }
                a->old = o;
                a->old_cap = oc;
            }
            a->old[a->nold++] = a->block;
        }
        a->block = b;
        a->used = 0;
        a->cap = cap;
    }
    void *p = a->block + a->used;
    a->used += n;
    a->total += n;
    return p;
}

char *ludus__arena_strndup(ludus__arena *a, const char *s, size_t n) {
    char *p = ludus__arena_alloc(a, n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

void ludus__arena_free(ludus__arena *a) {
    for (unsigned i = 0; i < a->nold; i++) ludus__free(a->old[i]);
    ludus__free(a->old);
    ludus__free(a->block);
    memset(a, 0, sizeof *a);
}
