/* Reading files at an offset (posix_file_read.c): a descriptor shared by
 * threads without a shared file position (pread). */
#ifndef LUDUS_FILE_READ_H
#define LUDUS_FILE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* 0 and the descriptor and size, or a negative errno. A path that is not a
 * regular file (a FIFO, a directory) is refused with -EINVAL. */
LUDUS_HIDDEN int ludus__read_open(const char *path, int *fd, uint64_t *size);
/* 0, or a negative errno (-EIO for a short read). */
LUDUS_HIDDEN int ludus__read_at(int fd, uint64_t off, void *p, size_t n);
LUDUS_HIDDEN void ludus__read_close(int fd);
/* 0 when a file can be created or written at path (its directory exists and
 * is writable, or the path is a writable file or device), else an errno. */
LUDUS_HIDDEN int ludus__path_writable(const char *path);

#endif
