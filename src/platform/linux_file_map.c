/* file_map.h on Linux: open with O_CREAT | O_EXCL | O_NOFOLLOW (never a
 * file or link that is there already), posix_fallocate (the blocks
 * reserved: a shared mapping of a sparse file dies of SIGBUS at the first
 * store into a page the disk has no room for), mmap MAP_SHARED;
 * process_vm_readv on the process itself reads memory that may not be
 * mapped without a fault. */
#define _GNU_SOURCE
#include "file_map.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

int ludus__file_map_reserve_error;

void *ludus__file_map_new(const char *path, size_t bytes, ludus__file_id *id, int *err) {
    /* O_EXCL with O_CREAT fails on any name that exists, a symbolic link
     * included (dangling or not): nothing is followed or truncated */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        *err = errno;
        return NULL;
    }
    struct stat st;
    int e = fstat(fd, &st) == 0 ? 0 : errno;
    if (e == 0)
        e = ludus__file_map_reserve_error ? ludus__file_map_reserve_error : posix_fallocate(fd, 0, (off_t)bytes);
    void *p = MAP_FAILED;
    if (e == 0) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) e = errno;
    }
    close(fd); /* the mapping keeps the file */
    if (e) {
        unlink(path); /* ours: O_EXCL made it */
        *err = e;
        return NULL;
    }
    id->volume = (uint64_t)st.st_dev;
    id->index = (uint64_t)st.st_ino;
    *err = 0;
    return p;
}

const void *ludus__file_map_existing(const char *path, size_t *bytes, int *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err = errno;
        return NULL;
    }
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    else
        errno = EINVAL;
    *err = p == MAP_FAILED ? errno : 0;
    close(fd);
    if (p == MAP_FAILED) return NULL;
    *bytes = (size_t)st.st_size;
    return p;
}

void ludus__file_unmap(const void *p, size_t bytes) {
    if (p) munmap((void *)p, bytes);
}

void ludus__file_remove_created(const char *path, const ludus__file_id *id) {
    struct stat st;
    if (lstat(path, &st) == 0 && (uint64_t)st.st_dev == id->volume && (uint64_t)st.st_ino == id->index) unlink(path);
}

/* Where process_vm_readv is refused (a seccomp filter), a pipe: write()
 * of unreadable memory fails with EFAULT instead of faulting. */
static int read_through_pipe(const void *addr, void *out, size_t n) {
    int fd[2];
    if (n > 4096 || pipe2(fd, O_CLOEXEC) != 0) return -1;
    int ok = write(fd[1], addr, n) == (ssize_t)n && read(fd[0], out, n) == (ssize_t)n;
    close(fd[0]);
    close(fd[1]);
    return ok ? 0 : -1;
}

int ludus__memory_read_checked(const void *addr, void *out, size_t n) {
    struct iovec local = {out, n}, remote = {(void *)addr, n};
    ssize_t k = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (k == (ssize_t)n) return 0;
    if (k < 0 && (errno == EPERM || errno == ENOSYS)) return read_through_pipe(addr, out, n);
    return -1;
}
