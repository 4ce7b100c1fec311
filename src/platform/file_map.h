/* Files mapped into memory, for a pool that survives the process (kill -9):
 * what a producer stores in a shared mapping of a file is the file's, and
 * the kernel keeps it however the process ends (linux_file_map.c,
 * win32_file_map.c). */
#ifndef LUDUS_FILE_MAP_H
#define LUDUS_FILE_MAP_H

#include <stddef.h>

#include "platform.h"

/* Creates (or truncates) path at `bytes` of zeros, mapped read-write and
 * shared; NULL on failure with *err an errno value. */
LUDUS_HIDDEN void *ludus__file_map_new(const char *path, size_t bytes, int *err);
/* An existing file mapped read-only; NULL on failure with *err set. */
LUDUS_HIDDEN const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err);
LUDUS_HIDDEN void ludus__file_unmap(const void *p, size_t bytes);
LUDUS_HIDDEN void ludus__file_remove(const char *path);
/* Copies n bytes at addr (this process) into out without faulting: 0, or
 * -1 when they are not all readable. */
LUDUS_HIDDEN int ludus__memory_read_checked(const void *addr, void *out, size_t n);

#endif
