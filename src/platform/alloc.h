/* The library's own memory goes through these (alloc.c), so that the copy
 * of a crashed process that writes its capture (crash.c) can allocate
 * without the C library's malloc: the crashed thread may have died holding
 * one of its locks (a crash inside malloc: a corrupted heap found by glibc
 * calls abort there). ludus__alloc_private switches that copy to a region
 * of its own, where nothing is freed (the copy exits when the file is
 * written). Outside it they are malloc, calloc, realloc, free and strdup. */
#ifndef LUDUS_ALLOC_H
#define LUDUS_ALLOC_H

#include <stddef.h>

#include "platform.h"

LUDUS_HIDDEN void *ludus__malloc(size_t n);
LUDUS_HIDDEN void *ludus__calloc(size_t n, size_t size);
LUDUS_HIDDEN void *ludus__realloc(void *p, size_t n);
LUDUS_HIDDEN void ludus__free(void *p);
LUDUS_HIDDEN char *ludus__strdup(const char *s);
/* From now on, a private region (0), or -1 when it could not be reserved. */
LUDUS_HIDDEN int ludus__alloc_private(void);
/* qsort without allocating (glibc's may call malloc): a heap sort. */
LUDUS_HIDDEN void ludus__qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

#endif
