/* Export files on POSIX systems (O_TMPFILE and /proc where Linux has them): where a path really leads (descriptor
 * names, FIFOs and devices, symlink chains), and the private temporary renamed onto a regular destination, so a file
 * appears whole or not at all and a failed or killed export leaves nothing behind. Rules and their reasons: platform.h.
 */
#ifndef _POSIX_C_SOURCE /* POSIX alone when asked (the posix_only_* tests) */
#define _GNU_SOURCE     /* else Linux and GNU interfaces, each behind a check; before any system header */
#endif
#include "platform.h"
#include "alloc.h"
#include "fault.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ludus__file_no_tmpfile;

#define MAX_LINKS 40     /* the kernel's own limit (ELOOP) */
#define MAX_TMP_BASE 200 /* bytes of the base name kept in a temporary's name (NAME_MAX is 255) */
#define TMP_SUFFIX ".ludus-tmp"
#define NAME_TRIES 100 /* unique names tried before giving up (EEXIST each time) */

static unsigned long tmp_counter; /* with the pid, makes a temporary's name unique */

static char *copy_str(const char *s, size_t n) {
    char *d = ludus__malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

/* ==== where a path leads ================================================ */

/* The descriptor a descriptor name stands for; -1 for any other path, and
 * INT_MAX (never open, so dup fails with EBADF) for an absurd number. */
static int descriptor_name(const char *path) {
    const char *digits;
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    if (strncmp(path, "/dev/fd/", 8) == 0)
        digits = path + 8;
    else if (strncmp(path, "/proc/self/fd/", 14) == 0)
        digits = path + 14;
    else
        return -1;
    if (!*digits) return -1;
    long v = 0;
    for (const char *p = digits; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        if (v < INT_MAX) v = v * 10 + (*p - '0');
    }
    return v < INT_MAX ? (int)v : INT_MAX;
}

/* A link's target as a path usable from here: relative targets are relative
 * to the directory holding the link. */
static char *link_target_path(const char *link, const char *target) {
    const char *slash = strrchr(link, '/');
    if (target[0] == '/' || !slash) return copy_str(target, strlen(target));
    size_t dn = (size_t)(slash - link) + 1, tn = strlen(target);
    char *p = ludus__malloc(dn + tn + 1);
    if (p) {
        memcpy(p, link, dn);
        memcpy(p + dn, target, tn + 1);
    }
    return p;
}

typedef struct resolved {
    char *path; /* the last non-link in the chain (may not exist); malloc'd */
    int fd;     /* >= 0: the chain reached a descriptor name; path is NULL */
    int exists; /* st is valid */
    struct stat st;
} resolved;

/* Follows symlinks in the last component; the kernel follows those in the
 * directories on the way. A dangling link resolves to its missing target. */
static int resolve(const char *path, resolved *r) {
    char buf[PATH_MAX];
    char *cur = copy_str(path, strlen(path));
    r->path = NULL;
    r->fd = -1;
    r->exists = 0;
    if (!cur) return -ENOMEM;
    for (int hops = 0;; hops++) {
        int fd = descriptor_name(cur);
        if (fd >= 0) {
            ludus__free(cur);
            r->fd = fd;
            return 0;
        }
        size_t n = strlen(cur);
        if (n == 0) {
            ludus__free(cur);
            return -ENOENT;
        }
        if (cur[n - 1] == '/') { /* names a directory, existing or not */
            ludus__free(cur);
            return -EISDIR;
        }
        if (lstat(cur, &r->st) != 0) {
            if (errno != ENOENT) {
                int e = -errno;
                ludus__free(cur);
                return e;
            }
            r->path = cur;
            return 0;
        }
        if (!S_ISLNK(r->st.st_mode)) {
            r->path = cur;
            r->exists = 1;
            return 0;
        }
        if (hops == MAX_LINKS) {
            ludus__free(cur);
            return -ELOOP;
        }
        ssize_t len = readlink(cur, buf, sizeof buf);
        if (len < 0 || (size_t)len >= sizeof buf) {
            int e = len < 0 ? -errno : -ENAMETOOLONG;
            ludus__free(cur);
            return e;
        }
        buf[len] = 0;
        char *next = link_target_path(cur, buf);
        ludus__free(cur);
        if (!next) return -ENOMEM;
        cur = next;
    }
}

/* ==== temporaries ======================================================== */

/* dest split at its last '/': the directory ("." or "/" when implicit) and the
 * base name. */
static char *dir_of(const char *dest, const char **base) {
    const char *slash = strrchr(dest, '/');
    if (!slash) {
        *base = dest;
        return copy_str(".", 1);
    }
    *base = slash + 1;
    return copy_str(dest, slash == dest ? 1 : (size_t)(slash - dest));
}

static size_t tmp_base_len(const char *base) {
    size_t n = strlen(base);
    return n < MAX_TMP_BASE ? n : MAX_TMP_BASE;
}

/* "<dir>/.<base>.<pid>.<n>.ludus-tmp" with a fresh n; the pid differs between
 * a parent and its forked child, n between threads and successive exports. */
static char *tmp_name(const char *dir, const char *base) {
    unsigned long n = __atomic_fetch_add(&tmp_counter, 1, __ATOMIC_RELAXED);
    int bn = (int)tmp_base_len(base);
    size_t cap = strlen(dir) + (size_t)bn + 64;
    char *p = ludus__malloc(cap);
    if (p) snprintf(p, cap, "%s/.%.*s.%d.%lu" TMP_SUFFIX, dir, bn, base, (int)getpid(), n);
    return p;
}

/* Skips "<digits>." at *s (leaving *s at the '.'), storing the number; 0
 * when there is no such thing. */
static int skip_number(const char **s, unsigned long *v) {
    const char *p = *s;
    *v = 0;
    if (*p < '0' || *p > '9') return 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (*v > ULONG_MAX / 10 - 1) return 0;
        *v = *v * 10 + (unsigned long)(*p - '0');
    }
    if (*p != '.') return 0;
    *s = p;
    return 1;
}

/* The pid in a temporary name of this base, or 0 when name is not one. */
static int tmp_owner(const char *name, const char *base) {
    size_t bn = tmp_base_len(base);
    unsigned long pid, n;
    if (name[0] != '.' || strncmp(name + 1, base, bn) != 0 || name[1 + bn] != '.') return 0;
    const char *p = name + 2 + bn;
    if (!skip_number(&p, &pid) || pid == 0 || pid > (unsigned long)INT_MAX) return 0;
    p++;
    if (!skip_number(&p, &n)) return 0;
    return strcmp(p, TMP_SUFFIX) == 0 ? (int)pid : 0;
}

/* Only the named fallback can leave litter (a process killed mid-export):
 * remove the temporaries of this destination whose writer no longer exists.
 * Best effort: a directory that cannot be listed is left as it is. */
static void remove_stale(const char *dir, const char *base) {
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return;
    DIR *d = fdopendir(dfd);
    if (!d) {
        close(dfd);
        return;
    }
    int self = (int)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        int pid = tmp_owner(e->d_name, base);
        if (pid <= 0 || pid == self) continue;
        if (kill(pid, 0) != 0 && errno == ESRCH) unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* ==== create / write / commit / abort ==================================== */

static void release(ludus__file *f) {
    ludus__free(f->dest);
    ludus__free(f->tmp);
    f->dest = f->tmp = NULL;
    f->fd = -1;
}

#ifdef O_TMPFILE /* Linux */
/* Errors from O_TMPFILE that mean "not supported here", not "cannot write". */
static int tmpfile_unsupported(int e) {
    return e == EOPNOTSUPP || e == EISDIR || e == EINVAL || e == ENOENT;
}
#endif

static int create_regular(ludus__file *f, const resolved *r) {
    const char *base;
    char *dir = dir_of(r->path, &base);
    if (!dir) return -ENOMEM;
    int rc = 0;
    f->fd = -1;
#ifdef O_TMPFILE
    if (!ludus__file_no_tmpfile) {
        f->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
        if (f->fd < 0 && !tmpfile_unsupported(errno)) rc = -errno;
    }
#endif
    if (f->fd < 0 && rc == 0) {
        remove_stale(dir, base);
        for (int tries = 0; tries < NAME_TRIES && f->fd < 0; tries++) {
            f->tmp = tmp_name(dir, base);
            if (!f->tmp) {
                rc = -ENOMEM;
                break;
            }
            f->fd = open(f->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
            if (f->fd >= 0) break;
            rc = -errno;
            ludus__free(f->tmp);
            f->tmp = NULL;
            if (rc != -EEXIST) break;
        }
        if (f->fd >= 0) rc = 0;
    }
    ludus__free(dir);
    if (rc != 0) return rc;
    if (r->exists) {
        /* A replaced file keeps its owner (when we may set it) and permission
         * bits. Best effort: filesystems without Unix modes refuse both. The
         * set-id bits are not carried over to content they did not vouch for. */
        if (r->st.st_uid != geteuid() || r->st.st_gid != getegid()) {
            int ignored = fchown(f->fd, r->st.st_uid, r->st.st_gid);
            (void)ignored;
        }
        int ignored = fchmod(f->fd, r->st.st_mode & 0777);
        (void)ignored;
    }
    f->dest = r->path;
    return 0;
}

int ludus__file_create(ludus__file *f, const char *path) {
    resolved r;
    f->fd = -1;
    f->dest = f->tmp = NULL;
    if (!path) return -EINVAL;
    int rc = resolve(path, &r);
    if (rc != 0) return rc;
    if (r.fd >= 0) {
        f->fd = fcntl(r.fd, F_DUPFD_CLOEXEC, 0);
        return f->fd >= 0 ? 0 : -errno;
    }
    if (r.exists && !S_ISREG(r.st.st_mode)) {
        if (S_ISFIFO(r.st.st_mode) || S_ISCHR(r.st.st_mode)) {
            f->fd = open(r.path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
            rc = f->fd >= 0 ? 0 : -errno;
        } else {
            rc = S_ISDIR(r.st.st_mode) ? -EISDIR : -EINVAL;
        }
        ludus__free(r.path);
        return rc;
    }
    rc = create_regular(f, &r);
    if (rc != 0) {
        ludus__free(r.path);
        release(f);
    }
    return rc;
}

int ludus__file_write(ludus__file *f, const void *data, size_t n) {
    const char *p = data;
    if (f->fd < 0) return -EBADF;
    if (ludus__fault_now(LUDUS__FAULT_WRITE)) return -EIO; /* a test's injected failure (fault.h) */
    while (n > 0) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -errno; /* EAGAIN included: a full non-blocking pipe is not waited on */
        }
        if (w == 0) return -EIO; /* cannot happen for n > 0; never spin on it */
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Gives the unnamed O_TMPFILE file a (unique, hidden) name in its directory. */
static int link_tmpfile(ludus__file *f) {
    const char *base;
    char *dir = dir_of(f->dest, &base);
    if (!dir) return -ENOMEM;
    char proc[40];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", f->fd);
    int rc = -EEXIST;
    for (int tries = 0; tries < NAME_TRIES && rc == -EEXIST; tries++) {
        f->tmp = tmp_name(dir, base);
        if (!f->tmp) {
            rc = -ENOMEM;
            break;
        }
        rc = 0;
        if (linkat(AT_FDCWD, proc, AT_FDCWD, f->tmp, AT_SYMLINK_FOLLOW) != 0) {
            rc = -errno;
#ifdef AT_EMPTY_PATH /* Linux */
            /* no /proc: AT_EMPTY_PATH does the same (it may need privilege) */
            if (rc == -ENOENT && linkat(f->fd, "", AT_FDCWD, f->tmp, AT_EMPTY_PATH) == 0) rc = 0;
#endif
        }
        if (rc != 0) {
            ludus__free(f->tmp);
            f->tmp = NULL;
        }
    }
    ludus__free(dir);
    return rc;
}

int ludus__file_commit(ludus__file *f) {
    int rc = 0;
    if (f->fd < 0) rc = -EBADF;
    if (rc == 0 && f->dest && !f->tmp) rc = link_tmpfile(f);
    if (f->fd >= 0 && close(f->fd) != 0 && errno != EINTR && rc == 0) rc = -errno;
    f->fd = -1;
    if (rc == 0 && f->tmp && rename(f->tmp, f->dest) != 0) rc = -errno;
    if (rc != 0 && f->tmp) unlink(f->tmp);
    release(f);
    return rc;
}

int ludus__file_create_direct(ludus__file *f, const char *path) {
    f->fd = -1;
    f->dest = f->tmp = NULL;
    if (!path) return -EINVAL;
    if (ludus__fault_now(LUDUS__FAULT_WRITE)) return -EIO;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
        close(fd);
        return e;
    }
    f->fd = fd;
    return 0;
}

int ludus__file_write_at(ludus__file *f, uint64_t off, const void *data, size_t n) {
    const char *p = data;
    if (f->fd < 0) return -EBADF;
    if (ludus__fault_now(LUDUS__FAULT_WRITE)) return -EIO;
    while (n > 0) {
        ssize_t w = pwrite(f->fd, p, n, (off_t)off);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -errno;
        }
        if (w == 0) return -EIO;
        p += w, off += (uint64_t)w, n -= (size_t)w;
    }
    return 0;
}

void ludus__file_abort(ludus__file *f) {
    if (f->fd >= 0) close(f->fd); /* an O_TMPFILE file goes with its last descriptor */
    if (f->tmp) unlink(f->tmp);
    release(f);
}

/* ==== error text ========================================================= */

/* strerror_r is the GNU one (returns the text, maybe not in buf) or the XSI
 * one (returns 0 or an error) depending on the libc and feature macros; the
 * result's type picks the matching reader, with no feature test to get wrong. */
static void from_gnu(char *text, char *buf, size_t cap, int err) {
    (void)err;
    if (text != buf) snprintf(buf, cap, "%s", text ? text : "Unknown error");
}
/* ERANGE: the text did not fit; musl has written what fits, which is kept. */
static void from_xsi(int rc, char *buf, size_t cap, int err) {
    if ((rc != 0 && rc != ERANGE) || !buf[0]) snprintf(buf, cap, "Unknown error %d", err);
}

void ludus__os_strerror(int err, char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    if (err < 0) err = -err;
    buf[0] = 0;
    _Generic(strerror_r(err, buf, cap), char *: from_gnu, default: from_xsi)(strerror_r(err, buf, cap), buf, cap, err);
    buf[cap - 1] = 0;
}

#undef NAME_TRIES /* file-local (the single file pastes the sources together) */
