/* Files mapped into memory, for a pool that survives the process (kill -9):
 * what a producer stores in a shared mapping of a file is the file's, and
 * the kernel keeps it however the process ends (linux_file_map.c,
 * win32_file_map.c). */
#ifndef LUDUS_FILE_MAP_H
#define LUDUS_FILE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

/* Which file a path named when it was created (device and inode; volume
 * serial and file index on Windows). */
typedef struct ludus__file_id {
    uint64_t volume, index;
} ludus__file_id;

/* Creates path, which must not exist: whatever is there (a file, a
 * symbolic link, dangling or not) is never followed, truncated or
 * replaced (EEXIST). The file is private to its owner (0600), its `bytes`
 * reserved on the disk before it is mapped (a full disk is ENOSPC here,
 * never a fault at the first store into a page without a block), and
 * mapped read-write and shared, zeros. NULL on failure, with *err an errno
 * value and nothing left at path. */
LUDUS_HIDDEN void *ludus__file_map_new(const char *path, size_t bytes, ludus__file_id *id, int *err);
/* Tests: when not 0, the reservation of ludus__file_map_new fails with this
 * errno value (as a full disk would). */
LUDUS_HIDDEN extern int ludus__file_map_reserve_error;
/* An existing file mapped read-only; NULL on failure with *err set. */
LUDUS_HIDDEN const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err);
LUDUS_HIDDEN void ludus__file_unmap(const void *p, size_t bytes);
/* Removes path when it still names the file created as id (another file
 * put there since, by anyone, stays). */
LUDUS_HIDDEN void ludus__file_remove_created(const char *path, const ludus__file_id *id);
/* Copies n bytes at addr (this process) into out without faulting: 0, or
 * -1 when they are not all readable. */
LUDUS_HIDDEN int ludus__memory_read_checked(const void *addr, void *out, size_t n);

#endif
