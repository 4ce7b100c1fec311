/* Export files (platform.h ludus__file_*): regular files replaced whole with
 * their mode kept, symlinks followed and kept, FIFOs, /dev/null and descriptor
 * names written in place, no temporary left by an abort, a child's _exit or a
 * SIGKILL, parent and child racing on one path, and the named fallback with
 * its cleanup of dead writers' temporaries. Each test gets its own directory. */
#define _GNU_SOURCE
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_check.h" /* assert_int_equal says what it compared */

#include "platform/platform.h"

/* ---- helpers ---- */

typedef struct fixture {
    char dir[64];
} fixture;

static int setup(void **state) {
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx) return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/ludus-file-XXXXXX");
    if (!mkdtemp(fx->dir)) return -1;
    ludus__file_no_tmpfile = 0;
    *state = fx;
    return 0;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
    (void)st;
    (void)ftw;
    return flag == FTW_DP ? rmdir(path) : unlink(path);
}

static int teardown(void **state) {
    fixture *fx = *state;
    ludus__file_no_tmpfile = 0;
    int rc = nftw(fx->dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(fx);
    return rc;
}

static const char *in(void **state, const char *name) { /* dir/name, in one of 16 rotating buffers */
    static char bufs[16][512];
    static unsigned next;
    char *b = bufs[next++ % 16];
    snprintf(b, sizeof bufs[0], "%s/%s", ((fixture *)*state)->dir, name);
    return b;
}

/* Whole content of path into a malloc'd buffer; *n its length. */
static char *slurp(const char *path, size_t *n) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        ssize_t r = read(fd, buf + len, cap - len);
        assert_true(r >= 0);
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
    *n = len;
    return buf;
}

static void assert_content(const char *path, const void *want, size_t want_n) {
    size_t n;
    char *got = slurp(path, &n);
    assert_int_equal(n, want_n);
    assert_memory_equal(got, want, want_n);
    free(got);
}

static void put_file(const char *path, const char *text, mode_t mode) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    assert_int_equal(fchmod(fd, mode), 0);
    assert_int_equal(close(fd), 0);
}

/* Entries of dir (without . and ..); with_tmp counts those that look like
 * temporaries (ours, or the old "PATH.tmp"). */
static int entries(const char *dir, int *with_tmp) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0, t = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        n++;
        if (strstr(e->d_name, "ludus-tmp") || strstr(e->d_name, ".tmp")) t++;
    }
    closedir(d);
    if (with_tmp) *with_tmp = t;
    return n;
}

static void assert_entries(void **state, int want) {
    int tmp;
    assert_int_equal(entries(((fixture *)*state)->dir, &tmp), want);
    assert_int_equal(tmp, 0);
}

static int export_to(const char *path, const void *data, size_t n) {
    ludus__file f;
    int rc = ludus__file_create(&f, path);
    if (rc != 0) return rc;
    rc = ludus__file_write(&f, data, n);
    if (rc != 0) {
        ludus__file_abort(&f);
        return rc;
    }
    return ludus__file_commit(&f);
}

static void assert_export(const char *path, const char *text) {
    assert_int_equal(export_to(path, text, strlen(text)), 0);
}

static mode_t current_umask(void) {
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* n bytes of a pattern that names its writer, so a mix is visible. */
static char *pattern(const char *tag, size_t n) {
    char *p = malloc(n);
    assert_non_null(p);
    size_t tl = strlen(tag);
    for (size_t i = 0; i < n; i++) p[i] = (i % 64 == 63) ? '\n' : tag[i % tl];
    return p;
}

static int tmpfile_supported(const char *dir) {
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd >= 0) close(fd);
    return fd >= 0;
#else
    (void)dir;
    return 0;
#endif
}

/* A pid that is certainly not running: a reaped child's. */
static pid_t dead_pid(void) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(0);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(kill(pid, 0), -1);
    assert_int_equal(errno, ESRCH);
    return pid;
}

/* ---- regular files ---- */

static void test_plain_file(void **state) {
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        const char *path = in(state, fallback ? "b.json" : "a.json");
        mode_t old = umask(027);
        int rc = export_to(path, "{\"plain\":1}\n", 12);
        umask(old);
        assert_int_equal(rc, 0);
        struct stat st;
        assert_int_equal(lstat(path, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 07777, 0640); /* 0666 & ~027 */
        assert_content(path, "{\"plain\":1}\n", 12);
        assert_entries(state, fallback + 1);
    }
}

static void test_replace_keeps_mode(void **state) {
    const mode_t modes[2] = {0600, 0751};
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        const char *path = in(state, "trace.json");
        put_file(path, "old content", modes[fallback]);
        struct stat before, after;
        assert_int_equal(stat(path, &before), 0);
        int old_fd = open(path, O_RDONLY | O_CLOEXEC);
        assert_true(old_fd >= 0);

        ludus__file f;
        assert_int_equal(ludus__file_create(&f, path), 0);
        assert_int_equal(ludus__file_write(&f, "new ", 4), 0);
        assert_int_equal(ludus__file_write(&f, "content!", 8), 0);
        assert_content(path, "old content", 11); /* untouched until commit */
        assert_int_equal(ludus__file_commit(&f), 0);

        assert_content(path, "new content!", 12);
        assert_int_equal(stat(path, &after), 0);
        assert_true(S_ISREG(after.st_mode));
        assert_int_equal(after.st_mode & 07777, modes[fallback]);
        assert_true(after.st_ino != before.st_ino); /* a new inode renamed in, not truncated in place */
        char buf[32];
        assert_int_equal(pread(old_fd, buf, sizeof buf, 0), 11); /* an open reader keeps the old file */
        assert_memory_equal(buf, "old content", 11);
        close(old_fd);
        assert_entries(state, 1);
    }
}

/* ---- symlinks ---- */

static void assert_link(const char *link, const char *want_target) {
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    char buf[512];
    ssize_t n = readlink(link, buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = 0;
    assert_string_equal(buf, want_target);
}

static void test_symlink_relative(void **state) {
    assert_int_equal(mkdir(in(state, "data"), 0700), 0);
    assert_int_equal(mkdir(in(state, "links"), 0700), 0);
    put_file(in(state, "data/t.json"), "old", 0640);
    assert_int_equal(symlink("../data/t.json", in(state, "links/l.json")), 0);

    assert_export(in(state, "links/l.json"), "through an absolute path");
    assert_link(in(state, "links/l.json"), "../data/t.json");
    assert_content(in(state, "data/t.json"), "through an absolute path", 24);

    /* The same through a path relative to the working directory: the link's
     * target is relative to links/, not to the working directory. */
    int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true(cwd >= 0);
    assert_int_equal(chdir(((fixture *)*state)->dir), 0);
    int rc = export_to("links/l.json", "through a relative path", 23);
    assert_int_equal(fchdir(cwd), 0);
    close(cwd);
    assert_int_equal(rc, 0);
    assert_link(in(state, "links/l.json"), "../data/t.json");
    assert_content(in(state, "data/t.json"), "through a relative path", 23);

    struct stat st;
    assert_int_equal(stat(in(state, "data/t.json"), &st), 0);
    assert_int_equal(st.st_mode & 07777, 0640);
    assert_int_equal(entries(in(state, "links"), NULL), 1);
    assert_int_equal(entries(in(state, "data"), NULL), 1);
    assert_entries(state, 2);
}

static void test_symlink_absolute(void **state) {
    char target[512];
    snprintf(target, sizeof target, "%s", in(state, "t.json"));
    put_file(target, "old", 0600);
    assert_int_equal(symlink(target, in(state, "l.json")), 0);
    assert_export(in(state, "l.json"), "absolute");
    assert_link(in(state, "l.json"), target);
    assert_content(target, "absolute", 8);
    assert_entries(state, 2);
}

static void test_symlink_chain(void **state) {
    char target[512];
    snprintf(target, sizeof target, "%s", in(state, "t.json"));
    put_file(target, "old", 0600);
    assert_int_equal(mkdir(in(state, "sub"), 0700), 0);
    assert_int_equal(symlink(target, in(state, "sub/b.json")), 0);   /* b -> absolute t */
    assert_int_equal(symlink("sub/b.json", in(state, "a.json")), 0); /* a -> relative b */
    assert_export(in(state, "a.json"), "via a chain");
    assert_link(in(state, "a.json"), "sub/b.json");
    assert_link(in(state, "sub/b.json"), target);
    assert_content(target, "via a chain", 11);
    assert_int_equal(entries(in(state, "sub"), NULL), 1);
    assert_entries(state, 3);
}

static void test_symlink_dangling(void **state) {
    assert_int_equal(symlink("new.json", in(state, "l.json")), 0);
    assert_export(in(state, "l.json"), "created");
    assert_link(in(state, "l.json"), "new.json");
    struct stat st;
    assert_int_equal(lstat(in(state, "new.json"), &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0666 & ~current_umask());
    assert_content(in(state, "new.json"), "created", 7);
    assert_entries(state, 2);
}

/* ---- written in place ---- */

typedef struct reader_arg {
    const char *path;
    char *data;
    size_t n;
} reader_arg;

static void *fifo_reader(void *p) {
    reader_arg *a = p;
    int fd = open(a->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    size_t cap = 1 << 20;
    a->data = malloc(cap);
    for (;;) {
        if (a->n == cap) {
            cap *= 2;
            a->data = realloc(a->data, cap);
        }
        ssize_t r = read(fd, a->data + a->n, cap - a->n);
        if (r <= 0) break;
        a->n += (size_t)r;
    }
    close(fd);
    return NULL;
}

static void test_fifo_in_place(void **state) {
    const char *path = in(state, "pipe.json");
    assert_int_equal(mkfifo(path, 0600), 0);
    const size_t n = 300000; /* more than a pipe holds: the reader must run meanwhile */
    char *data = pattern("fifo-", n);
    reader_arg arg = {path, NULL, 0};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fifo_reader, &arg), 0);
    int rc = export_to(path, data, n);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_int_equal(rc, 0);
    assert_int_equal(arg.n, n);
    assert_memory_equal(arg.data, data, n);
    struct stat st;
    assert_int_equal(lstat(path, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_entries(state, 1);
    free(arg.data);
    free(data);
}

static void test_dev_null_in_place(void **state) {
    struct stat before, after;
    assert_int_equal(stat("/dev/null", &before), 0);
    assert_true(S_ISCHR(before.st_mode));
    char *data = pattern("null-", 100000);
    assert_int_equal(export_to("/dev/null", data, 100000), 0);
    assert_int_equal(lstat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode));
    assert_int_equal(after.st_ino, before.st_ino);
    assert_int_equal(after.st_rdev, before.st_rdev);

    /* through a symlink: the link stays, /dev/null stays a device */
    assert_int_equal(symlink("/dev/null", in(state, "null.json")), 0);
    assert_int_equal(export_to(in(state, "null.json"), data, 100000), 0);
    assert_link(in(state, "null.json"), "/dev/null");
    assert_int_equal(lstat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode));
    assert_int_equal(after.st_rdev, before.st_rdev);
    assert_entries(state, 1);

    /* a device that refuses the bytes: the error comes back, the device stays */
    struct stat full;
    if (stat("/dev/full", &full) == 0 && S_ISCHR(full.st_mode)) {
        ludus__file f;
        assert_int_equal(ludus__file_create(&f, "/dev/full"), 0);
        assert_int_equal(ludus__file_write(&f, data, 100000), -ENOSPC);
        ludus__file_abort(&f);
        assert_int_equal(lstat("/dev/full", &after), 0);
        assert_true(S_ISCHR(after.st_mode));
        assert_int_equal(after.st_rdev, full.st_rdev);
    }
    free(data);
}

/* Exports text to path with descriptor target temporarily at fd's place; no
 * cmocka call while it is redirected (cmocka prints to stdout). */
static int export_redirected(int target, int fd, const char *path, const char *text) {
    fflush(stdout);
    fflush(stderr);
    int saved = dup(target);
    if (saved < 0) return -errno;
    if (dup2(fd, target) < 0) return -errno;
    int rc = export_to(path, text, strlen(text));
    if (dup2(saved, target) < 0 && rc == 0) rc = -errno;
    close(saved);
    return rc;
}

static void test_dev_stdout_pipe(void **state) {
    (void)state;
    const char *paths[2] = {"/dev/stdout", "/dev/stderr"};
    for (int i = 0; i < 2; i++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        assert_int_equal(export_redirected(i + 1, p[1], paths[i], "into a pipe\n"), 0);
        close(p[1]);
        char buf[64];
        ssize_t n = read(p[0], buf, sizeof buf);
        close(p[0]);
        assert_int_equal(n, 12);
        assert_memory_equal(buf, "into a pipe\n", 12);
    }
    struct stat st;
    assert_int_equal(lstat("/dev/stdout", &st), 0);
    assert_false(S_ISREG(st.st_mode));
}

static void test_dev_stdout_file(void **state) {
    const char *path = in(state, "out.txt");
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "head:", 5), 5);
    struct stat before, after;
    assert_int_equal(fstat(fd, &before), 0);
    assert_int_equal(export_redirected(1, fd, "/dev/stdout", "stdout;"), 0);

    /* the other descriptor names, on the file's own descriptor */
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", fd);
    assert_export(name, "dev-fd;");
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    assert_export(name, "proc-fd;");
    close(fd);

    assert_content(path, "head:stdout;dev-fd;proc-fd;", 27); /* appended at the offset, in place */
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(after.st_ino, before.st_ino);
    assert_entries(state, 1);
}

static void test_nonblocking_pipe_eagain(void **state) {
    (void)state;
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(fcntl(p[1], F_SETFL, O_NONBLOCK), 0);
    char name[64];
    snprintf(name, sizeof name, "/dev/fd/%d", p[1]);
    ludus__file f;
    assert_int_equal(ludus__file_create(&f, name), 0);
    const size_t n = 4 << 20; /* far more than the pipe holds; nobody reads */
    char *data = pattern("full-", n);
    assert_int_equal(ludus__file_write(&f, data, n), -EAGAIN); /* returns, does not spin */
    ludus__file_abort(&f);
    close(p[0]);
    close(p[1]);
    free(data);
    char bad[64];
    snprintf(bad, sizeof bad, "/dev/fd/%d", p[1]); /* closed now */
    assert_int_equal(ludus__file_create(&f, bad), -EBADF);
}

/* ---- no litter ---- */

static void test_abort_leaves_nothing(void **state) {
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        ludus__file f;
        assert_int_equal(ludus__file_create(&f, in(state, "new.json")), 0);
        assert_int_equal(ludus__file_write(&f, "partial", 7), 0);
        ludus__file_abort(&f);
        assert_entries(state, 0);

        put_file(in(state, "old.json"), "kept", 0600);
        assert_int_equal(ludus__file_create(&f, in(state, "old.json")), 0);
        assert_int_equal(ludus__file_write(&f, "partial", 7), 0);
        ludus__file_abort(&f);
        assert_content(in(state, "old.json"), "kept", 4);
        assert_entries(state, 1);
        assert_int_equal(unlink(in(state, "old.json")), 0);
    }
}

/* A child that creates, writes n bytes and _exits without commit or abort. */
static pid_t child_exits_mid_export(const char *path, size_t n) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char *data = malloc(n);
        if (!data) _exit(2);
        memset(data, 'x', n);
        ludus__file f;
        if (ludus__file_create(&f, path) != 0 || ludus__file_write(&f, data, n) != 0) _exit(1);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return pid;
}

static void test_child_exit_no_litter(void **state) {
    if (!tmpfile_supported(((fixture *)*state)->dir)) skip();
    child_exits_mid_export(in(state, "trace.json"), 1 << 20);
    assert_entries(state, 0);
}

static void test_child_killed_no_litter(void **state) {
    if (!tmpfile_supported(((fixture *)*state)->dir)) skip();
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    const char *path = in(state, "trace.json");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static char chunk[1 << 16];
        memset(chunk, 'k', sizeof chunk);
        ludus__file f;
        if (ludus__file_create(&f, path) != 0 || ludus__file_write(&f, chunk, sizeof chunk) != 0) _exit(1);
        if (write(ready[1], "w", 1) != 1) _exit(1);
        for (int i = 0; i < 1024; i++) /* up to 64 MiB, still writing when the kill lands */
            if (ludus__file_write(&f, chunk, sizeof chunk) != 0) _exit(1);
        for (;;) pause();
    }
    close(ready[1]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1); /* the export is under way */
    close(ready[0]);
    struct timespec ts = {0, 2000000};
    nanosleep(&ts, NULL);
    assert_int_equal(kill(pid, SIGKILL), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);
    assert_entries(state, 0);
}

/* ---- parent and child on one path ---- */

static void test_parent_child_race(void **state) {
    const size_t na = 300000, nb = 200000;
    char *a = pattern("parent-", na), *b = pattern("child--", nb);
    const char *path = in(state, "race.json");
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        for (int round = 0; round < 12; round++) {
            int go[2];
            assert_int_equal(pipe(go), 0);
            pid_t pid = fork();
            assert_true(pid >= 0);
            if (pid == 0) {
                char c;
                close(go[1]);
                if (read(go[0], &c, 1) != 1) _exit(3);
                ludus__file f;
                if (ludus__file_create(&f, path) != 0) _exit(1);
                for (size_t off = 0; off < nb; off += 4096) {
                    if (ludus__file_write(&f, b + off, nb - off < 4096 ? nb - off : 4096) != 0) _exit(1);
                    sched_yield();
                }
                _exit(ludus__file_commit(&f) == 0 ? 0 : 2);
            }
            close(go[0]);
            assert_int_equal(write(go[1], "g", 1), 1);
            close(go[1]);
            ludus__file f;
            assert_int_equal(ludus__file_create(&f, path), 0);
            for (size_t off = 0; off < na; off += 4096) {
                assert_int_equal(ludus__file_write(&f, a + off, na - off < 4096 ? na - off : 4096), 0);
                sched_yield();
            }
            assert_int_equal(ludus__file_commit(&f), 0);
            int status;
            assert_int_equal(waitpid(pid, &status, 0), pid);
            assert_true(WIFEXITED(status));
            assert_int_equal(WEXITSTATUS(status), 0);

            size_t n;
            char *got = slurp(path, &n);
            assert_true((n == na && memcmp(got, a, na) == 0) || (n == nb && memcmp(got, b, nb) == 0));
            free(got);
            assert_entries(state, 1);
        }
    }
    free(a);
    free(b);
}

/* ---- errors ---- */

static void test_directory_is_eisdir(void **state) {
    assert_int_equal(mkdir(in(state, "sub"), 0700), 0);
    assert_int_equal(symlink("sub", in(state, "dirlink")), 0);
    const char *bad[] = {in(state, "sub"), in(state, "sub/"), in(state, "dirlink"), in(state, "absent/")};
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
            ludus__file f;
            assert_int_equal(ludus__file_create(&f, bad[i]), -EISDIR);
            assert_int_equal(f.fd, -1);
            ludus__file_abort(&f); /* harmless after a failed create */
        }
        ludus__file f;
        assert_int_equal(ludus__file_create(&f, in(state, "absent/x.json")), -ENOENT);
    }
    struct stat st;
    assert_int_equal(lstat(in(state, "sub"), &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(entries(in(state, "sub"), NULL), 0);
    assert_entries(state, 2);
}

static void test_strerror(void **state) {
    (void)state;
    char buf[128];
    ludus__os_strerror(EACCES, buf, sizeof buf);
    assert_string_equal(buf, "Permission denied");
    ludus__os_strerror(-ENOENT, buf, sizeof buf);
    assert_string_equal(buf, "No such file or directory");
    char small[5];
    ludus__os_strerror(-EACCES, small, sizeof small);
    assert_int_equal(strlen(small), 4);
    assert_memory_equal(small, "Perm", 4);
    ludus__os_strerror(987654, buf, sizeof buf);
    assert_true(strlen(buf) > 0);
}

/* ---- the named fallback ---- */

static void test_fallback_named_temporary(void **state) {
    ludus__file_no_tmpfile = 1;
    ludus__file f;
    assert_int_equal(ludus__file_create(&f, in(state, "out.json")), 0);
    assert_int_equal(ludus__file_write(&f, "named", 5), 0);
    DIR *d = opendir(((fixture *)*state)->dir);
    assert_non_null(d);
    struct dirent *e;
    int seen = 0;
    char prefix[64];
    snprintf(prefix, sizeof prefix, ".out.json.%d.", (int)getpid());
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && (e->d_name[1] == 0 || strcmp(e->d_name, "..") == 0)) continue;
        seen++;
        assert_true(strncmp(e->d_name, prefix, strlen(prefix)) == 0);
        const char *rest = e->d_name + strlen(prefix);
        char *end;
        strtoul(rest, &end, 10);
        assert_true(end > rest);
        assert_string_equal(end, ".ludus-tmp");
    }
    closedir(d);
    assert_int_equal(seen, 1);
    assert_int_equal(ludus__file_commit(&f), 0);
    assert_content(in(state, "out.json"), "named", 5);
    assert_entries(state, 1);
}

static void test_fallback_removes_dead_temporaries(void **state) {
    ludus__file_no_tmpfile = 1;
    /* a live writer: a child blocked on a pipe until the end of the test */
    int hold[2];
    assert_int_equal(pipe(hold), 0);
    pid_t live = fork();
    assert_true(live >= 0);
    if (live == 0) {
        char c;
        close(hold[1]);
        _exit(read(hold[0], &c, 1) < 0);
    }
    close(hold[0]);
    pid_t dead = dead_pid();

    char name[128];
    snprintf(name, sizeof name, ".out.json.%d.7.ludus-tmp", (int)dead);
    put_file(in(state, name), "stale", 0600);
    char live_name[128];
    snprintf(live_name, sizeof live_name, ".out.json.%d.3.ludus-tmp", (int)live);
    put_file(in(state, live_name), "in progress", 0600);
    char other[128];
    snprintf(other, sizeof other, ".other.json.%d.1.ludus-tmp", (int)dead);
    put_file(in(state, other), "another destination's", 0600);
    put_file(in(state, ".out.json.x.1.ludus-tmp"), "not a pid", 0600);

    ludus__file f;
    assert_int_equal(ludus__file_create(&f, in(state, "out.json")), 0);
    struct stat st;
    assert_int_equal(lstat(in(state, name), &st), -1); /* the dead writer's: gone */
    assert_int_equal(errno, ENOENT);
    assert_int_equal(lstat(in(state, live_name), &st), 0); /* a live writer's: kept */
    assert_int_equal(lstat(in(state, other), &st), 0);     /* another destination's: kept */
    assert_int_equal(lstat(in(state, ".out.json.x.1.ludus-tmp"), &st), 0);
    ludus__file_abort(&f);
    assert_int_equal(entries(((fixture *)*state)->dir, NULL), 3);

    close(hold[1]);
    assert_int_equal(waitpid(live, NULL, 0), live);
    assert_int_equal(unlink(in(state, live_name)), 0);
    assert_int_equal(unlink(in(state, other)), 0);
    assert_int_equal(unlink(in(state, ".out.json.x.1.ludus-tmp")), 0);

    /* a real child that died mid-export leaves its temporary; the next create clears it */
    child_exits_mid_export(in(state, "out.json"), 100000);
    int tmp;
    assert_int_equal(entries(((fixture *)*state)->dir, &tmp), 1);
    assert_int_equal(tmp, 1);
    assert_export(in(state, "out.json"), "after the crash");
    assert_content(in(state, "out.json"), "after the crash", 15);
    assert_entries(state, 1);
}

/* A link planted at the names of the temporaries (they are predictable:
 * ".<base>.<pid>.<n>.ludus-tmp"), pointing at a file of the user's: the
 * export takes a name nobody holds (O_EXCL; linkat of an O_TMPFILE file
 * refuses a name that exists), never writes through the link, and leaves
 * the links and their target as they were. */
static void test_link_at_temporary_name(void **state) {
    char victim[512];
    snprintf(victim, sizeof victim, "%s", in(state, "victim"));
    put_file(victim, "the user's own file", 0600);
    char name[128];
    int planted = 0;
    for (unsigned long n = 0; n < 400; n += 2) { /* every other counter value: each export meets one */
        snprintf(name, sizeof name, ".out.json.%d.%lu.ludus-tmp", (int)getpid(), n);
        assert_int_equal(symlink(victim, in(state, name)), 0);
        planted++;
    }
    for (int fallback = 0; fallback < 2; fallback++) {
        ludus__file_no_tmpfile = fallback;
        for (int i = 0; i < 20; i++) assert_export(in(state, "out.json"), "{\"exported\":1}\n");
        assert_content(in(state, "out.json"), "{\"exported\":1}\n", 15);
        assert_content(victim, "the user's own file", 19);
    }
    int tmp;
    assert_int_equal(entries(((fixture *)*state)->dir, &tmp), planted + 2); /* the links, the victim, out.json */
    for (unsigned long n = 0; n < 400; n += 2) {
        struct stat st;
        snprintf(name, sizeof name, ".out.json.%d.%lu.ludus-tmp", (int)getpid(), n);
        assert_int_equal(lstat(in(state, name), &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plain_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replace_keeps_mode, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_relative, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_absolute, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_chain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_symlink_dangling, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dev_null_in_place, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dev_stdout_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dev_stdout_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nonblocking_pipe_eagain, setup, teardown),
        cmocka_unit_test_setup_teardown(test_abort_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child_exit_no_litter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_child_killed_no_litter, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parent_child_race, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_is_eisdir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_strerror, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback_named_temporary, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fallback_removes_dead_temporaries, setup, teardown),
        cmocka_unit_test_setup_teardown(test_link_at_temporary_name, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
