/* file_read.h on POSIX systems. */
#ifndef _POSIX_C_SOURCE /* POSIX alone when asked (the posix_only_* tests) */
#define _GNU_SOURCE     /* else Linux and GNU interfaces, each behind a check; before any system header */
#endif
#include "file_read.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ludus__read_open(const char *path, int *fd, uint64_t *size) {
    int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO without a writer: no wait, refused below */
    if (f < 0) return -errno;
    struct stat st;
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return -e;
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
    }
    *fd = f;
    *size = (uint64_t)st.st_size;
    return 0;
}

int ludus__read_at(int fd, uint64_t off, void *p, size_t n) {
    char *b = p;
    while (n > 0) {
        ssize_t r = pread(fd, b, n, (off_t)off);
        if (r < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (r == 0) return -EIO;
        b += r;
        n -= (size_t)r;
        off += (uint64_t)r;
    }
    return 0;
}

void ludus__read_close(int fd) {
    if (fd >= 0) close(fd);
}

int ludus__path_writable(const char *path) {
    if (access(path, W_OK) == 0) return 0;
    if (errno != ENOENT) return errno;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (!slash) return access(".", W_OK | X_OK) == 0 ? 0 : errno;
    size_t n = (size_t)(slash - path);
    if (n == 0) n = 1; /* "/name" */
    if (n >= sizeof dir) return ENAMETOOLONG;
    memcpy(dir, path, n);
    dir[n] = 0;
    return access(dir, W_OK | X_OK) == 0 ? 0 : errno;
}
