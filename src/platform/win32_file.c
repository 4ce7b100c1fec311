/* Windows implementation of the export files of platform.h and of
 * file_read.h. The same never-truncated rule as on Linux: a regular
 * destination is written to a temporary private to the writer in its
 * directory (".<base>.<pid>.<n>.ludus-tmp") and moved onto it on commit
 * (MoveFileEx replaces it whole), so a reader sees the old file or the new
 * one, never a part; an aborted export removes the temporary. "/dev/stdout"
 * and "/dev/stderr" write to a duplicate of that descriptor, "NUL" in place.
 * Not done: temporaries of a killed writer are not removed later (Linux
 * removes those whose pid is dead), and links are not followed. */
#include "file_read.h"
#include "fault.h"
#include "platform.h"

#include <windows.h>

#include <errno.h>
#include <fcntl.h>
#include <io.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ludus__file_no_tmpfile; /* Windows has no unnamed temporary: always the named one */

#define NAME_TRIES 100

static unsigned long win32_tmp_counter;

int ludus__win32_errno(void) {
    return ludus__win32_errno_of(GetLastError());
}

int ludus__win32_errno_of(unsigned long error) {
    switch (error) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
        return ENOENT;
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
        return EACCES;
    case ERROR_DISK_FULL:
    case ERROR_HANDLE_DISK_FULL:
        return ENOSPC;
    case ERROR_FILE_EXISTS:
    case ERROR_ALREADY_EXISTS:
        return EEXIST;
    case ERROR_NOT_ENOUGH_MEMORY:
    case ERROR_OUTOFMEMORY:
        return ENOMEM;
    case ERROR_FILENAME_EXCED_RANGE:
        return ENAMETOOLONG;
    default:
        return EIO;
    }
}

/* The directory part of path ("" for none) and where its base name starts. */
static const char *base_of(const char *path) {
    const char *base = path;
    for (const char *p = path; *p; p++)
        if (*p == '/' || *p == '\\') base = p + 1;
    return base;
}

static void win32_file_release(ludus__file *f) {
    free(f->dest);
    free(f->tmp);
    f->dest = f->tmp = NULL;
    f->fd = -1;
}

int ludus__file_create(ludus__file *f, const char *path) {
    f->fd = -1;
    f->dest = f->tmp = NULL;
    if (!path || !*path) return -EINVAL;
    if (strcmp(path, "/dev/stdout") == 0 || strcmp(path, "/dev/stderr") == 0) {
        f->fd = _dup(path[5] == 's' && path[8] == 'o' ? 1 : 2);
        return f->fd >= 0 ? 0 : -errno;
    }
    if (_stricmp(path, "NUL") == 0) {
        f->fd = _open(path, _O_WRONLY | _O_BINARY);
        return f->fd >= 0 ? 0 : -errno;
    }
    DWORD attr = GetFileAttributesA(path);
    if (attr != INVALID_FILE_ATTRIBUTES && (attr & FILE_ATTRIBUTE_DIRECTORY)) return -EISDIR;
    size_t n = strlen(path), dn = (size_t)(base_of(path) - path);
    f->dest = malloc(n + 1);
    f->tmp = malloc(n + 64);
    if (!f->dest || !f->tmp) {
        win32_file_release(f);
        return -ENOMEM;
    }
    memcpy(f->dest, path, n + 1);
    int rc = -EEXIST;
    for (int tries = 0; tries < NAME_TRIES && rc == -EEXIST; tries++) {
        unsigned long k = __atomic_fetch_add(&win32_tmp_counter, 1ul, __ATOMIC_RELAXED);
        snprintf(f->tmp, n + 64, "%.*s.%s.%d.%lu.ludus-tmp", (int)dn, path, path + dn, ludus__os_pid(), k);
        /* CREATE_NEW with FILE_FLAG_OPEN_REPARSE_POINT: a link planted at
         * the name (dangling or not) is an existing file, never followed
         * (the CRT's _O_EXCL would create a dangling link's target) */
        HANDLE h = CreateFileA(f->tmp, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_DELETE, NULL, CREATE_NEW,
                               FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            DWORD e = GetLastError();
            rc = e == ERROR_FILE_EXISTS || e == ERROR_ALREADY_EXISTS ? -EEXIST : -ludus__win32_errno();
            continue;
        }
        f->fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);
        if (f->fd < 0) {
            CloseHandle(h);
            DeleteFileA(f->tmp);
        }
        rc = f->fd >= 0 ? 0 : -EIO;
    }
    if (rc != 0) win32_file_release(f);
    return rc;
}

int ludus__file_write(ludus__file *f, const void *data, size_t n) {
    const char *p = data;
    if (f->fd < 0) return -EBADF;
    if (ludus__fault_now(LUDUS__FAULT_WRITE)) return -EIO; /* a test's injected failure (fault.h) */
    while (n > 0) {
        unsigned chunk = n > (1u << 30) ? (1u << 30) : (unsigned)n;
        int w = _write(f->fd, p, chunk);
        if (w < 0) return -errno;
        if (w == 0) return -EIO;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ludus__file_commit(ludus__file *f) {
    int rc = 0;
    if (f->fd < 0) rc = -EBADF;
    if (f->fd >= 0 && _close(f->fd) != 0 && rc == 0) rc = -errno;
    f->fd = -1;
    if (rc == 0 && f->tmp && !MoveFileExA(f->tmp, f->dest, MOVEFILE_REPLACE_EXISTING)) rc = -ludus__win32_errno();
    if (rc != 0 && f->tmp) _unlink(f->tmp);
    win32_file_release(f);
    return rc;
}

/* Streamed captures are POSIX only for now (docs/capture.md). */
int ludus__file_create_direct(ludus__file *f, const char *path) {
    (void)path;
    f->fd = -1;
    f->dest = f->tmp = NULL;
    return -ENOSYS;
}

int ludus__file_write_at(ludus__file *f, uint64_t off, const void *data, size_t n) {
    (void)f, (void)off, (void)data, (void)n;
    return -ENOSYS;
}

void ludus__file_abort(ludus__file *f) {
    if (f->fd >= 0) _close(f->fd);
    if (f->tmp) _unlink(f->tmp);
    win32_file_release(f);
}

/* ==== reading (file_read.h) ============================================== */

int ludus__read_open(const char *path, int *fd, uint64_t *size) {
    int f = _open(path, _O_RDONLY | _O_BINARY | _O_NOINHERIT);
    if (f < 0) return -errno;
    struct _stat64 st;
    if (_fstat64(f, &st) != 0) {
        int e = errno;
        _close(f);
        return -e;
    }
    if (!(st.st_mode & _S_IFREG)) {
        _close(f);
        return (st.st_mode & _S_IFDIR) ? -EISDIR : -EINVAL;
    }
    *fd = f;
    *size = (uint64_t)st.st_size;
    return 0;
}

/* ReadFile at an offset: each call names its own position, so threads can
 * share the descriptor (as pread on Linux). */
int ludus__read_at(int fd, uint64_t off, void *p, size_t n) {
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    char *b = p;
    if (h == INVALID_HANDLE_VALUE) return -EBADF;
    while (n > 0) {
        OVERLAPPED ov;
        memset(&ov, 0, sizeof ov);
        ov.Offset = (DWORD)off;
        ov.OffsetHigh = (DWORD)(off >> 32);
        DWORD want = n > (1u << 30) ? (1u << 30) : (DWORD)n, got = 0;
        if (!ReadFile(h, b, want, &got, &ov)) return GetLastError() == ERROR_HANDLE_EOF ? -EIO : -ludus__win32_errno();
        if (got == 0) return -EIO;
        b += got;
        n -= got;
        off += got;
    }
    return 0;
}

void ludus__read_close(int fd) {
    if (fd >= 0) _close(fd);
}

int ludus__path_writable(const char *path) {
    if (_access(path, 2) == 0) return 0;
    if (errno != ENOENT) return errno;
    size_t dn = (size_t)(base_of(path) - path);
    if (dn == 0) return 0; /* the current directory */
    char dir[MAX_PATH];
    if (dn >= sizeof dir) return ENAMETOOLONG;
    memcpy(dir, path, dn - 1);
    dir[dn - 1] = 0;
    if (dn == 1) snprintf(dir, sizeof dir, "%c", path[0]); /* "/name" */
    DWORD attr = GetFileAttributesA(dir);
    if (attr == INVALID_FILE_ATTRIBUTES) return ENOENT;
    return (attr & FILE_ATTRIBUTE_DIRECTORY) ? 0 : ENOTDIR;
}
