/* live_map.h on Windows: not built yet (LUDUS_EUNSUPPORTED above it).
 * What it takes (docs/live.md): a named file mapping "Local\ludus-live-PID"
 * created with a security descriptor that admits only the process's user
 * (CreateFileMappingW over the paging file: it cannot shrink), a named
 * event the watcher sets instead of polling, OpenProcess +
 * WaitForSingleObject(…, 0) for "still running", and CreateFileW with
 * CREATE_NEW + MoveFileExW for the capture file. */
#include "live_map.h"

#include <errno.h>

int ludus__live_map_create(size_t bytes, ludus__live_map *m) {
    (void)bytes;
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    return -ENOSYS;
}

void ludus__live_map_close(ludus__live_map *m) {
    (void)m;
}

int ludus__live_map_open(uint64_t pid, size_t min_bytes, ludus__live_map *m, uint32_t *uid_out) {
    (void)pid;
    (void)min_bytes;
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    *uid_out = UINT32_MAX;
    return -ENOSYS;
}

int ludus__live_map_alive(const ludus__live_map *m) {
    (void)m;
    return 0;
}

int ludus__live_absolute(const char *path, char *out, size_t cap) {
    (void)path;
    (void)out;
    (void)cap;
    return -ENOSYS;
}

int ludus__live_out_remove_stale(const char *path, uint64_t pid) {
    (void)path;
    (void)pid;
    return 0;
}

int ludus__live_pid_running(uint32_t pid) {
    (void)pid;
    return 0;
}

int ludus__live_out_create(const char *path, ludus__live_out *o) {
    (void)path;
    o->fd = -1;
    o->tmp[0] = 0;
    return -ENOSYS;
}

int ludus__live_out_write(void *o, const void *data, size_t n) {
    (void)o;
    (void)data;
    (void)n;
    return -1;
}

int ludus__live_out_commit(ludus__live_out *o) {
    (void)o;
    return -ENOSYS;
}

void ludus__live_out_abort(ludus__live_out *o) {
    (void)o;
}
