/* file_map.h on Windows: not built yet (CreateFileMapping would be the
 * way); a pool file is refused with LUDUS_EUNSUPPORTED. */
#include "file_map.h"

#include <errno.h>

void *ludus__file_map_new(const char *path, size_t bytes, int *err) {
    (void)path, (void)bytes;
    *err = ENOSYS;
    return NULL;
}
const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err) {
    (void)path, (void)bytes;
    *err = ENOSYS;
    return NULL;
}
void ludus__file_unmap(const void *p, size_t bytes) {
    (void)p, (void)bytes;
}
void ludus__file_remove(const char *path) {
    (void)path;
}
int ludus__memory_read_checked(const void *addr, void *out, size_t n) {
    (void)addr, (void)out, (void)n;
    return -1;
}
