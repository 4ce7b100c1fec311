/* alloc.h: the library's allocation, and the private region of the copy
 * that writes a crash. */
#if defined(__linux__)
#define _GNU_SOURCE
#include <malloc.h> /* malloc_usable_size */
#include <sys/mman.h>
#endif
#include "alloc.h"

#include "fault.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REGION ((size_t)4 << 30) /* reserved, not committed: only what is touched is memory */
#define ALIGN 16u

static struct {
    int private_mode; /* the copy of a crashed process: one thread */
    char *region, *cur, *end;
} alloc_state;

int ludus__alloc_private(void) {
#if defined(__linux__)
    void *p = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return -1;
    alloc_state.region = alloc_state.cur = p;
    alloc_state.end = alloc_state.region + REGION;
    alloc_state.private_mode = 1;
    return 0;
#else
    return -1;
#endif
}

/* n bytes after a header that holds n (for realloc); zeroed (fresh pages). */
static void *take(size_t n) {
    size_t need = ALIGN + ((n + ALIGN - 1) & ~(size_t)(ALIGN - 1));
    if (n > REGION || need > (size_t)(alloc_state.end - alloc_state.cur)) return NULL;
    char *p = alloc_state.cur;
    alloc_state.cur += need;
    *(size_t *)p = n;
    return p + ALIGN;
}

static int in_region(const void *p) {
    return (const char *)p >= alloc_state.region && (const char *)p < alloc_state.end;
}

/* Each allocation may be made to fail by a test (fault.h); never in the
 * private region (a crash's copy). */
void *ludus__malloc(size_t n) {
    if (alloc_state.private_mode) return take(n);
    return ludus__fault_now(LUDUS__FAULT_ALLOC) ? NULL : malloc(n);
}

void *ludus__calloc(size_t n, size_t size) {
    if (!alloc_state.private_mode) return ludus__fault_now(LUDUS__FAULT_ALLOC) ? NULL : calloc(n, size);
    if (size && n > SIZE_MAX / size) return NULL;
    return take(n * size); /* fresh pages are zero */
}

void *ludus__realloc(void *p, size_t n) {
    if (!alloc_state.private_mode) return ludus__fault_now(LUDUS__FAULT_ALLOC) ? NULL : realloc(p, n);
    void *q = take(n);
    if (!q || !p) return q;
    size_t old;
    if (in_region(p))
        old = *(const size_t *)((const char *)p - ALIGN);
    else
#if defined(__GLIBC__)
        old = malloc_usable_size(p); /* reads the chunk's header: no lock */
#else
        old = n;
#endif
    memcpy(q, p, old < n ? old : n);
    return q;
}

void ludus__free(void *p) {
    if (!alloc_state.private_mode) free(p); /* the private region is never freed; nor, there, the heap */
}

char *ludus__strdup(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = ludus__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* ---- heap sort ---- */

static void swap_bytes(char *a, char *b, size_t size) {
    while (size--) {
        char t = *a;
        *a++ = *b;
        *b++ = t;
    }
}

static void sift_down(char *base, size_t start, size_t end, size_t size, int (*cmp)(const void *, const void *)) {
    size_t root = start;
    while (2 * root + 1 < end) {
        size_t child = 2 * root + 1, top = root;
        if (cmp(base + top * size, base + child * size) < 0) top = child;
        if (child + 1 < end && cmp(base + top * size, base + (child + 1) * size) < 0) top = child + 1;
        if (top == root) return;
        swap_bytes(base + root * size, base + top * size, size);
        root = top;
    }
}

void ludus__qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
    if (!alloc_state.private_mode) { /* the C library's, faster; its buffer is malloc's */
        if (n > 1) qsort(base, n, size, cmp);
        return;
    }
    char *b = base;
    if (n < 2) return;
    for (size_t i = n / 2; i-- > 0;) sift_down(b, i, n, size, cmp);
    for (size_t end = n - 1; end > 0; end--) {
        swap_bytes(b, b + end * size, size);
        sift_down(b, 0, end, size, cmp);
    }
}
