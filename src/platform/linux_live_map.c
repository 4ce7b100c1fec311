/* live_map.h on Linux. The block is a memfd ("ludus-live"), mode 0600 and
 * sealed against shrinking: a watcher finds it among the process's open
 * descriptors (/proc/PID/fd), which the kernel lets only the process's
 * owner and root open (the ptrace access check), and it disappears with
 * the process however that ends (kill -9 included): no file is left
 * behind, no name can be squatted. The watcher keeps /proc/PID open to tell
 * the process's exit from a pid reused since. */
#define _GNU_SOURCE
#include "live_map.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_NAME "ludus-live"
#define MAX_MAP (16u << 20)      /* a newer version's larger block is mapped this far at most */
#define IDLE_POLL_NS 250000000ll /* a watcher cannot ring: the idle thread looks at the heartbeat this often */

int ludus__live_map_create(size_t bytes, ludus__live_map *m) {
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    m->section = m->ring = m->process = NULL;
    int fd = memfd_create(BLOCK_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -errno;
    int e = 0;
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)bytes) != 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
        e = errno;
    void *p = MAP_FAILED;
    if (!e) {
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) e = errno;
    }
    if (e) {
        close(fd);
        return -e;
    }
    m->p = p;
    m->bytes = bytes;
    m->fd = fd;
    return 0;
}

void ludus__live_map_close(ludus__live_map *m) {
    if (!m) return;
    if (m->p) munmap(m->p, m->bytes);
    if (m->fd >= 0) close(m->fd);
    if (m->proc_fd >= 0) close(m->proc_fd);
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    m->section = m->ring = m->process = NULL;
}

void ludus__live_map_wait(const ludus__live_map *m, ludus__wakeup *quit, int64_t timeout_ns) {
    (void)m;
    ludus__wakeup_wait(quit, timeout_ns < 0 ? IDLE_POLL_NS : timeout_ns);
}

void ludus__live_map_ring(const ludus__live_map *m) {
    (void)m;
}

/* 1 running, 0 exited (gone, zombie or dead). */
static int proc_running(int proc_fd) {
    int fd = openat(proc_fd, "stat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[512];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    const char *rp = strrchr(buf, ')'); /* the name may hold anything, ')' included */
    if (!rp || rp[1] != ' ') return 0;
    return rp[2] != 'Z' && rp[2] != 'X' && rp[2] != 'x';
}

/* The block is still the process's: its descriptor there names our file.
 * After exec() it is gone (the memfd is close-on-exec): the process runs
 * another program, which publishes nothing here. */
static int block_still_there(const ludus__live_map *m) {
    if (m->remote_fd < 0 || m->fd < 0) return 1;
    char name[32];
    snprintf(name, sizeof name, "fd/%d", m->remote_fd);
    struct stat there, ours;
    return fstatat(m->proc_fd, name, &there, 0) == 0 && fstat(m->fd, &ours) == 0 && there.st_ino == ours.st_ino &&
           there.st_dev == ours.st_dev;
}

int ludus__live_map_alive(const ludus__live_map *m) {
    return m && m->proc_fd >= 0 && proc_running(m->proc_fd) && block_still_there(m);
}

/* The block among dir's descriptors: a memfd of our name, owned by uid,
 * sealed against shrinking. -ENOENT when none is. */
static int find_block(int dirfd, uint32_t uid, size_t min_bytes, ludus__live_map *m) {
    int dfd = dup(dirfd);
    if (dfd < 0) return -errno;
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return -e;
    }
    int rc = -ENOENT;
    struct dirent *de;
    while (rc == -ENOENT && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.') continue;
        char link[128];
        ssize_t n = readlinkat(dirfd, de->d_name, link, sizeof link - 1);
        if (n <= 0) continue;
        link[n] = 0;
        if (strcmp(link, "/memfd:" BLOCK_NAME " (deleted)") != 0) continue;
        int fd = openat(dirfd, de->d_name, O_RDWR | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) continue;
        struct stat st;
        int seals = fcntl(fd, F_GET_SEALS);
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != uid || st.st_size < (off_t)min_bytes ||
            seals < 0 || (seals & (F_SEAL_SHRINK | F_SEAL_SEAL)) != (F_SEAL_SHRINK | F_SEAL_SEAL)) {
            close(fd);
            rc = -EINVAL; /* not one of ours: keep looking, say so when nothing else is */
            continue;
        }
        size_t bytes = (size_t)st.st_size < MAX_MAP ? (size_t)st.st_size : MAX_MAP;
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (p == MAP_FAILED) {
            rc = -errno;
            close(fd);
            break;
        }
        m->p = p;
        m->bytes = bytes;
        m->fd = fd;
        m->remote_fd = atoi(de->d_name);
        rc = 0;
    }
    closedir(d);
    return rc;
}

int ludus__live_map_open(uint64_t pid, size_t min_bytes, ludus__live_map *m, uint32_t *uid_out) {
    m->p = NULL;
    m->bytes = 0;
    m->fd = m->proc_fd = m->remote_fd = -1;
    m->section = m->ring = m->process = NULL;
    *uid_out = UINT32_MAX;
    if (pid == 0 || pid > 0x7fffffffu) return -ESRCH;
    char path[64];
    snprintf(path, sizeof path, "/proc/%llu", (unsigned long long)pid);
    int pfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pfd < 0) return errno == ENOENT ? -ESRCH : -errno;
    struct stat st;
    if (fstat(pfd, &st) != 0 || !proc_running(pfd)) {
        close(pfd);
        return -ESRCH;
    }
    *uid_out = (uint32_t)st.st_uid;
    if (geteuid() != 0 && geteuid() != st.st_uid) {
        close(pfd);
        return -EACCES;
    }
    int dirfd = openat(pfd, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        int e = errno;
        close(pfd);
        return e == ENOENT ? -ESRCH : e == EPERM ? -EACCES : -e;
    }
    int rc = find_block(dirfd, (uint32_t)st.st_uid, min_bytes, m);
    close(dirfd);
    if (rc) {
        close(pfd);
        return rc;
    }
    m->proc_fd = pfd;
    return 0;
}

int ludus__live_absolute(const char *path, char *out, size_t cap) {
    size_t n = strlen(path);
    if (ludus__live_path_absolute(path)) {
        if (n >= cap) return -ENAMETOOLONG;
        memcpy(out, path, n + 1);
        return 0;
    }
    if (!getcwd(out, cap)) return -errno;
    size_t d = strlen(out);
    if (d + 1 + n >= cap) return -ENAMETOOLONG;
    out[d] = '/';
    memcpy(out + d + 1, path, n + 1);
    return 0;
}

int ludus__live_path_absolute(const char *path) {
    return path[0] == '/';
}

int ludus__live_pid_running(uint32_t pid) {
    return pid != 0 && pid <= 0x7fffffffu && (kill((pid_t)pid, 0) == 0 || errno == EPERM);
}

/* ---- the capture file ---- */

int ludus__live_out_create(const char *path, ludus__live_out *o) {
    o->fd = -1;
    o->tmp[0] = 0;
    size_t len = strlen(path);
    if (!ludus__live_path_absolute(path) || len >= sizeof o->path) return -EINVAL;
    memcpy(o->path, path, len + 1);
    const char *slash = strrchr(path, '/');
    if (slash[1] == 0) return -EISDIR;
    snprintf(o->tmp, sizeof o->tmp, "%.*s/.%s.%d.live-tmp", (int)(slash - path), path, slash + 1, (int)getpid());
    for (int tries = 0; tries < 2; tries++) {
        /* O_EXCL | O_NOFOLLOW: nothing there is followed or reused */
        o->fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
        if (o->fd >= 0) return 0;
        if (errno != EEXIST || tries) break;
        unlink(o->tmp); /* a temporary of an earlier run of this pid (unlink never follows a link) */
    }
    int e = errno;
    o->tmp[0] = 0;
    return -e;
}

int ludus__live_out_write(void *out, const void *data, size_t n) {
    ludus__live_out *o = out;
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(o->fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ludus__live_out_commit(ludus__live_out *o) {
    int rc = close(o->fd) == 0 ? 0 : -errno;
    o->fd = -1;
    if (rc == 0 && rename(o->tmp, o->path) != 0) rc = -errno; /* rename replaces a link, never follows it */
    if (rc) unlink(o->tmp);
    o->tmp[0] = 0;
    return rc;
}

int ludus__live_out_remove_stale(const char *path, uint64_t pid) {
    const char *slash = strrchr(path, '/');
    if (!ludus__live_path_absolute(path) || !slash || slash[1] == 0) return 0;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%.*s/.%s.%d.live-tmp", (int)(slash - path), path, slash + 1, (int)pid);
    struct stat st;
    if (lstat(tmp, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) return 0;
    return unlink(tmp) == 0;
}

void ludus__live_out_abort(ludus__live_out *o) {
    if (o->fd >= 0) close(o->fd);
    if (o->tmp[0]) unlink(o->tmp);
    o->fd = -1;
    o->tmp[0] = 0;
}
