/* A pool backed by a file survives kill -9: a child records (two threads,
 * nested scopes, frames) into a pool file and is killed mid-run; the parent
 * reads the file back (ludus_capture_recover) and finds every frame the
 * child had counted before the kill, the threads and sites named from the
 * journal, the open scopes closed as incomplete, and an export whose slices
 * pair. A capture that ends normally removes its file when released, and
 * at exit when it is not; the file is created safely: nothing that is at
 * its path (a link, a file) is followed, truncated or replaced, and its
 * blocks are reserved at begin, so a disk without room is an error there,
 * never SIGBUS at a store. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "platform/file_map.h"
#include "session/pool_file.h"

#include <cmocka.h>

#include "test_util.h"

/* shared with the child: [0] the frames it has marked, [1] the worker's
 * scopes ended */
static volatile int *frames_done;

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Recover worker");
    for (;;) {
        {
            LUDUS_PROFILE_SCOPE(WorkerScope);
            lt_spin_ns(50000);
        }
        __atomic_fetch_add(&frames_done[1], 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void child(const char *pool) {
    alarm(20);
    ludus_thread_register("Recover main");
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.pool_file = pool;
    if (ludus_capture_begin(&d) != 0) _exit(90);
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0) _exit(91);
    for (int f = 0;; f++) {
        {
            LUDUS_PROFILE_SCOPE(Frame);
            LUDUS_PROFILE_SCOPE(Inner);
            lt_spin_ns(200000);
        }
        LUDUS_PROFILE_FRAME();
        __atomic_store_n(frames_done, f + 1, __ATOMIC_RELEASE);
    }
}

static int count_name(const lt_trace *t, const char *name) {
    return (int)lt_count(t, 'B', name);
}

static void wait_passes(const char *pool, unsigned passes);

static void test_kill9(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    frames_done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(frames_done != MAP_FAILED);
    frames_done[0] = frames_done[1] = 0;
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-%d", (int)getpid());
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) child(pool);
    /* 300 frames, 101 worker scopes and two journal passes since (every
     * site named), then SIGKILL mid-frame; counted, not slept: a loaded
     * machine may starve the worker or the journal for a while */
    while (__atomic_load_n(&frames_done[0], __ATOMIC_ACQUIRE) < 300 ||
           __atomic_load_n(&frames_done[1], __ATOMIC_ACQUIRE) <= 100)
        usleep(1000);
    wait_passes(pool, 2);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    int counted = __atomic_load_n(&frames_done[0], __ATOMIC_ACQUIRE);

    ludus_capture *c;
    int rc = ludus_capture_recover(pool, &c);
    if (rc) print_message("recover: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_true(in.recovered);
    assert_int_equal(in.pid, pid);
    assert_int_equal(in.threads, 2);
    /* every frame the child counted is in the file (its count was stored
     * after the frame's mark), and at most the one it was in */
    print_message("counted %d frames, recovered %llu\n", counted, (unsigned long long)in.summary.frames);
    assert_true(in.summary.frames >= (uint64_t)counted);
    assert_true(in.summary.frames <= (uint64_t)counted + 1);
    assert_int_equal(in.summary.dropped, 0);
    char *json = lt_capture_json(c);
    lt_trace t;
    lt_trace_parse(&t, json);
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'B') assert_true(lt_match_end(&t, i) >= 0);
    assert_true(count_name(&t, "Frame") >= counted);
    assert_true(count_name(&t, "Inner") >= counted);
    assert_true(count_name(&t, "WorkerScope") > 100);
    assert_non_null(strstr(json, "\"Recover main\""));
    assert_non_null(strstr(json, "\"Recover worker\""));
    assert_null(strstr(json, "not journaled")); /* every site was met well before the kill */
    lt_trace_free(&t);
    free(json);
    /* written as a capture file, it reads back the same */
    char out[128];
    snprintf(out, sizeof out, "%s.ludus", pool);
    assert_int_equal(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, out), 0);
    ludus_capture *f;
    assert_int_equal(ludus_capture_open(out, &f), 0);
    ludus_capture_info fi;
    assert_int_equal(ludus_capture_get_info(f, &fi), 0);
    assert_true(fi.recovered);
    assert_int_equal(fi.summary.events, in.summary.events);
    assert_int_equal(fi.summary.incomplete, in.summary.incomplete);
    ludus_capture_release(f);
    ludus_capture_release(c);
    unlink(out);
    unlink(pool);
    munmap((void *)frames_done, 4096);
}

static void test_clean_end_removes_file(void **state) {
    (void)state;
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-clean-%d", (int)getpid());
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.pool_file = pool;
    d.chunk_count = 16;
    lt_begin(&d);
    for (int i = 0; i < 100; i++) {
        LUDUS_PROFILE_SCOPE(Clean);
    }
    assert_int_equal(access(pool, F_OK), 0);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, 200);
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    char *json = lt_capture_json(c);
    assert_int_equal((int)strlen(json) > 0, 1);
    free(json);
    ludus_capture_release(c);
    /* the library's own reference goes with the next capture */
    lt_begin(NULL);
    lt_end();
    assert_int_equal(access(pool, F_OK), -1);
}

static void test_bad_files(void **state) {
    (void)state;
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_recover("/nonexistent/ludus-pool", &c), LUDUS_EIO);
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-notpool-%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    char junk[8192];
    memset(junk, 'x', sizeof junk);
    fwrite(junk, 1, sizeof junk, f);
    fclose(f);
    assert_int_equal(ludus_capture_recover(path, &c), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "offset 0"));
    assert_null(c);
    unlink(path);
}

/* ---- the file is created safely ---- */

static char *read_all(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[256];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static int begin_pool(const char *pool) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.pool_file = pool;
    d.chunk_count = 16;
    return ludus_capture_begin(&d);
}

/* A link planted at the pool's path (docs/capture.md's /var/tmp/app-%p.pool:
 * another local user can put one there) is not followed: its target keeps
 * its bytes, and a dangling link does not make its target appear. */
static void test_link_at_pool_path(void **state) {
    (void)state;
    char dir[256], target[300], link[300], missing[300];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-test-poollink"), 0);
    snprintf(target, sizeof target, "%s/precious", dir);
    snprintf(link, sizeof link, "%s/app.pool", dir);
    snprintf(missing, sizeof missing, "%s/created-through-the-link", dir);
    write_file(target, "the user's own file");
    assert_int_equal(symlink(target, link), 0);
    int rc = begin_pool(link);
    if (rc == 0) ludus_capture_end(NULL);
    assert_int_equal(rc, LUDUS_EIO);
    assert_non_null(strstr(ludus_last_error_detail(), "never followed"));
    assert_int_equal(ludus_capture_active(), 0);
    assert_string_equal(read_all(target), "the user's own file");
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode)); /* left as it was */
    unlink(link);
    assert_int_equal(symlink(missing, link), 0); /* dangling */
    rc = begin_pool(link);
    if (rc == 0) ludus_capture_end(NULL);
    assert_int_equal(rc, LUDUS_EIO);
    assert_int_equal(access(missing, F_OK), -1);
    /* a file that is there (a pool file left to recover, or anything) is not replaced */
    unlink(link);
    write_file(link, "left behind");
    rc = begin_pool(link);
    if (rc == 0) ludus_capture_end(NULL);
    assert_int_equal(rc, LUDUS_EIO);
    assert_non_null(strstr(ludus_last_error_detail(), "recover"));
    assert_string_equal(read_all(link), "left behind");
    lt_remove_dir(dir);
}

/* The reservation fails (as on a full disk, through the platform's seam):
 * begin says so and nothing is left at the path. */
static void test_no_room_at_begin(void **state) {
    (void)state;
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-full-%d", (int)getpid());
    ludus__file_map_reserve_error = ENOSPC;
    int rc = begin_pool(pool);
    ludus__file_map_reserve_error = 0;
    if (rc == 0) ludus_capture_end(NULL);
    assert_int_equal(rc, LUDUS_EIO);
    assert_non_null(strstr(ludus_last_error_detail(), "no room"));
    assert_int_equal(ludus_capture_active(), 0);
    assert_int_equal(access(pool, F_OK), -1);
}

/* A real file system without room: a 256 KiB tmpfs mounted in a mount
 * namespace of the child's own (root, or an unprivileged user namespace),
 * a pool file of 5 MiB on it. The sparse file of the old code let begin
 * succeed and the first store into the pool die of SIGBUS; begin fails
 * instead, and the scopes after it record nothing and do not fault. */
static int private_tmpfs(const char *dir) {
    if (unshare(CLONE_NEWNS) != 0) {
        uid_t uid = getuid();
        gid_t gid = getgid();
        if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return -1;
        char map[64];
        snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
        FILE *f = fopen("/proc/self/setgroups", "w");
        if (f) {
            fputs("deny", f);
            fclose(f);
        }
        f = fopen("/proc/self/uid_map", "w");
        if (!f) return -1;
        fputs(map, f);
        fclose(f);
        snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
        f = fopen("/proc/self/gid_map", "w");
        if (!f) return -1;
        fputs(map, f);
        fclose(f);
    }
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1; /* nothing reaches the host's mounts */
    return mount("ludus-test", dir, "tmpfs", 0, "size=256k");
}

static void test_full_filesystem(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char dir[256];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-test-fulldisk"), 0);
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        if (private_tmpfs(dir) != 0) _exit(77);
        char pool[300];
        snprintf(pool, sizeof pool, "%s/app.pool", dir);
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.pool_file = pool;
        d.chunk_count = 16; /* 1 MiB of pool after a 4 MiB journal: the file needs 5 MiB */
        int rc = ludus_capture_begin(&d);
        for (int i = 0; i < 20000; i++) {
            LUDUS_PROFILE_SCOPE(OnAFullDisk);
        }
        if (rc == 0) _exit(1); /* begun: a pool without blocks (and survived its stores) */
        if (!strstr(ludus_last_error_detail(), "no room")) _exit(2);
        if (access(pool, F_OK) == 0) _exit(3);
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    lt_remove_dir(dir);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 77) {
        print_message("no mount namespace here (neither root nor user namespaces): skipped\n");
        skip();
    }
    if (WIFSIGNALED(status)) print_message("the child died of signal %d\n", WTERMSIG(status));
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* Every normal end removes the file: released; a restart at the same path
 * (the library's reference to the last capture goes first, so the new
 * file is not refused); the process exiting with its capture running, or
 * ended and held. A killed process keeps it (test_kill9). */
static void test_removed_at_every_end(void **state) {
    (void)state;
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-ends-%d", (int)getpid());
    for (int round = 0; round < 3; round++) { /* restart: the same path each time */
        assert_int_equal(begin_pool(pool), 0);
        LUDUS_PROFILE_SCOPE(Restarted);
        assert_int_equal(access(pool, F_OK), 0);
        lt_end();
    }
    assert_int_equal(access(pool, F_OK), 0); /* the library holds the last capture */
    lt_begin(NULL);
    lt_end();
    assert_int_equal(access(pool, F_OK), -1);
    /* The exits, in children. Not under ThreadSanitizer: a child forked
     * after this process ran captures starts from locks the fork handlers
     * made anew, which it reports as held (the plain and ASan trees run it) */
    if (LT_TSAN || lt_multithreaded_fork_unsupported()) return;
    for (int ended = 0; ended < 2; ended++) {
        pid_t pid = lt_fork_alone();
        assert_true(pid >= 0);
        if (pid == 0) {
            if (begin_pool(pool) != 0) _exit(90);
            for (int i = 0; i < 100; i++) {
                LUDUS_PROFILE_SCOPE(BeforeExit);
            }
            if (access(pool, F_OK) != 0) _exit(91);
            if (ended && ludus_capture_end(NULL) != 0) _exit(92);
            exit(0); /* no end (or the ended capture still held): exit removes it */
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
        assert_int_equal(access(pool, F_OK), -1);
    }
}

/* ---- honest recovered captures ---- */

/* The pool file's header as the file holds it now. */
static int read_header(const char *pool, ludus__pf_header *h) {
    FILE *f = fopen(pool, "rb");
    if (!f) return -1;
    size_t n = fread(h, 1, sizeof *h, f);
    fclose(f);
    return n == sizeof *h ? 0 : -1;
}

static void write_header(const char *pool, const ludus__pf_header *h) {
    FILE *f = fopen(pool, "r+b");
    assert_non_null(f);
    assert_int_equal(fwrite(h, 1, sizeof *h, f), sizeof *h);
    fclose(f);
}

/* Waits until the journal has made `passes` more passes (each ends by
 * bumping seq by two): after that, what the child did before is journaled.
 * A condition, not a duration (bounded, so that a journal that never runs
 * fails the test instead of hanging it). */
static void wait_passes(const char *pool, unsigned passes) {
    ludus__pf_header h;
    uint32_t s0 = 0;
    for (int i = 0; i < 10000 && (read_header(pool, &h) != 0 || h.magic != LUDUS__PF_MAGIC); i++) usleep(1000);
    s0 = __atomic_load_n(&h.seq, __ATOMIC_RELAXED);
    for (int i = 0; i < 10000; i++) {
        if (read_header(pool, &h) == 0 && h.seq >= s0 + 2 * passes + 1) return;
        usleep(1000);
    }
    fail_msg("the journal of %s made no pass", pool);
}

/* shared with the children below */
typedef struct kill_shared {
    int armed;               /* the capture began */
    int done;                /* the child recorded everything it meant to */
    uint64_t started, ended; /* iterations begun, finished (test_kill9_random_moment) */
    int tids[32];
    int parked; /* the journal thread stopped before its second pass (test_names_born_after_last_pass) */
} kill_shared;
static kill_shared *shared;

/* The shared page for a child (shared), and a pool path of this process
 * for it, nothing there. */
static void shared_setup(char *pool, size_t n, const char *tag) {
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    snprintf(pool, n, "/tmp/ludus-test-pool-%s-%d", tag, (int)getpid());
    unlink(pool);
}

/* The capture recovered from pool (the test fails, saying why, when none). */
static ludus_capture *recovered(const char *pool) {
    ludus_capture *c = NULL;
    int rc = ludus_capture_recover(pool, &c);
    if (rc) print_message("recover: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    return c;
}

/* Waits for the child to set *flag; a child that died before (its begin
 * refused, a sanitizer's exit) fails the test instead of hanging it. */
static void wait_flag(pid_t pid, const int *flag) {
    while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            fail_msg("the child ended before it was ready (status 0x%x)", (unsigned)status);
        sched_yield();
    }
}

static void *short_thread(void *arg) {
    int i = (int)(intptr_t)arg;
    char name[32];
    snprintf(name, sizeof name, "Short %d", i);
    ludus_thread_register(name);
    shared->tids[i] = lt_gettid();
    for (int k = 0; k < 10; k++) {
        LUDUS_PROFILE_SCOPE(ShortLived);
    }
    return NULL; /* lives far less than a journal pass (20 ms) */
}

/* A capture whose pool overflows (its losses counted in the thread's
 * pieces and the journal) and 20 threads that each live a few
 * microseconds, then kill -9 once the journal has passed: recover keeps
 * every loss (events + losses = every event the child tried) and every
 * short thread's name, tid and events. The old code said "dropped 0" and
 * named the short threads "thread N" (the journal saw live threads only). */
static void test_drops_and_short_threads_kept(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char pool[96];
    shared_setup(pool, sizeof pool, "drops");
    enum { SCOPES = 20000 };
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        ludus_thread_register("Overflowing");
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.pool_file = pool;
        d.chunk_bytes = 4096;
        d.chunk_count = 16; /* 64 KiB: a few thousand events */
        if (ludus_capture_begin(&d) != 0) _exit(90);
        for (int i = 0; i < 20; i++) {
            pthread_t th;
            if (pthread_create(&th, NULL, short_thread, (void *)(intptr_t)i) != 0) _exit(91);
            pthread_join(th, NULL);
        }
        for (int i = 0; i < SCOPES; i++) {
            LUDUS_PROFILE_SCOPE(Overflow);
        }
        __atomic_store_n(&shared->done, 1, __ATOMIC_RELEASE);
        for (;;) pause();
    }
    wait_flag(pid, &shared->done);
    wait_passes(pool, 2);
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    ludus_capture *c = recovered(pool);
    uint64_t events = 0, dropped = 0;
    int shorts = 0;
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        assert_int_equal(ludus_capture_thread(c, t, &ts), 0);
        if (!strcmp(ts.name, "Overflowing")) {
            events = ts.events;
            dropped = ts.dropped;
            assert_true(ts.first_drop_ns > 0); /* when the losses began, not "from the start" */
        }
        int k;
        if (sscanf(ts.name, "Short %d", &k) == 1 && k >= 0 && k < 20) {
            shorts++;
            assert_int_equal(ts.tid, (uint64_t)shared->tids[k]);
            assert_int_equal(ts.events, 20);
            assert_true(ts.exited);
        }
    }
    print_message("recovered %llu events, %llu dropped of %d; %d short threads named\n", (unsigned long long)events,
                  (unsigned long long)dropped, 2 * SCOPES, shorts);
    assert_true(dropped > 0);
    assert_int_equal(events + dropped, 2 * SCOPES);
    assert_int_equal(in.summary.dropped, dropped);
    assert_int_equal(shorts, 20);
    ludus_capture_release(c);
    unlink(pool);
    munmap(shared, sizeof *shared);
}

/* A pool file left by a child killed once its journal ran. */
static void make_pool_file(const char *pool) {
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    unlink(pool);
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.pool_file = pool;
        d.chunk_count = 16;
        if (ludus_capture_begin(&d) != 0) _exit(90);
        for (int i = 0; i < 100; i++) {
            LUDUS_PROFILE_SCOPE(Recorded);
        }
        lt_spin_ns(5000000); /* 5 ms: the calibration's points a rate apart */
        __atomic_store_n(&shared->done, 1, __ATOMIC_RELEASE);
        for (;;) pause();
    }
    wait_flag(pid, &shared->done);
    wait_passes(pool, 2);
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    munmap(shared, sizeof *shared);
}

/* A header whose journal range wraps 2^64 (offset + capacity): the old
 * bounds check added the two, passed, and recover read far outside the
 * mapping (SIGSEGV). Now a format error that names the offset. */
static void test_journal_range_wraps(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-wrap-%d", (int)getpid());
    make_pool_file(pool);
    ludus__pf_header h;
    assert_int_equal(read_header(pool, &h), 0);
    h.journal_off = UINT64_MAX - 4095; /* + journal_cap wraps to below pool_off */
    h.journal_cap = 8192;
    write_header(pool, &h);
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_recover(pool, &c), LUDUS_EFORMAT);
    assert_null(c);
    assert_non_null(strstr(ludus_last_error_detail(), "offset 24"));
    unlink(pool);
}

/* Garbage in the calibration: refused with the field named, where the old
 * code wrote a capture file its own reader refused. What is accepted
 * writes a file that opens. */
static void test_calibration_checked(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char pool[96], out[128];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-calib-%d", (int)getpid());
    snprintf(out, sizeof out, "%s.ludus", pool);
    make_pool_file(pool);
    ludus__pf_header good;
    assert_int_equal(read_header(pool, &good), 0);
    assert_true(good.c1_ns - good.c0_ns >= 1000000); /* the journal's points: the rate is known */
    /* the file as the child left it: recovered, written, read back */
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_recover(pool, &c), 0);
    assert_int_equal(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, out), 0);
    ludus_capture_release(c);
    assert_int_equal(ludus_capture_open(out, &c), 0);
    ludus_capture_release(c);
    struct {
        const char *field;
        int tsc_only;
        ludus__pf_header h;
    } bad[4];
    for (int i = 0; i < 4; i++) bad[i].h = good;
    bad[0].field = "c1_ns"; /* before c0 */
    bad[0].tsc_only = 0;
    bad[0].h.c1_ns = good.c0_ns - 1000000000;
    bad[1].field = "c0_ns"; /* out of any range */
    bad[1].tsc_only = 0;
    bad[1].h.c0_ns = INT64_MAX - 1;
    bad[2].field = "c1_ticks"; /* one tick in a second */
    bad[2].tsc_only = 1;
    bad[2].h.c1_ticks = good.c0_ticks + 1;
    bad[2].h.c1_ns = good.c0_ns + 1000000000;
    bad[3].field = "c1_ticks"; /* a tick rate of 10^12 per ns */
    bad[3].tsc_only = 1;
    bad[3].h.c1_ticks = good.c0_ticks + (UINT64_C(1) << 62);
    bad[3].h.c1_ns = good.c0_ns + 1000000;
    for (int i = 0; i < 4; i++) {
        if (bad[i].tsc_only && !good.clock_tsc) continue;
        write_header(pool, &bad[i].h);
        c = NULL;
        int rc = ludus_capture_recover(pool, &c);
        if (rc == 0) { /* the old code: recovered, and the file it writes is refused */
            int saved = ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, out);
            ludus_capture_release(c);
            ludus_capture *f = NULL;
            int opened = saved == 0 ? ludus_capture_open(out, &f) : saved;
            print_message("case %d (%s) recovered; its file: %s\n", i, bad[i].field,
                          opened ? ludus_last_error_detail() : "opens");
            ludus_capture_release(f);
        }
        assert_int_equal(rc, LUDUS_EFORMAT);
        assert_non_null(strstr(ludus_last_error_detail(), bad[i].field));
    }
    unlink(pool);
    unlink(out);
}

/* kill -9 at a random moment, round after round (the seed printed; set
 * LUDUS_TEST_SEED to replay one): the child records a known sequence, two
 * nested scopes per iteration, counting the iterations it began and
 * finished in memory it shares with the parent, into a pool small enough
 * to overflow in most rounds. What recover returns is checked against
 * those counts: events and losses together are every event of the
 * iterations finished, plus what the one in progress had reached (0 to 4);
 * every slice pairs, each Outer holds at most one Inner; the losses are
 * the pool's (none before it was full). The verdict does not depend on
 * when the kill lands. */
static void test_kill9_random_moment(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    const char *env = getenv("LUDUS_TEST_SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 10) : (unsigned)time(NULL) ^ (unsigned)getpid();
    print_message("kill -9 rounds: seed %u (LUDUS_TEST_SEED=%u replays them)\n", seed, seed);
    srand(seed);
    shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-random-%d", (int)getpid());
    int overflowed = 0;
    enum { ROUNDS = 12 };
    for (int round = 0; round < ROUNDS; round++) {
        memset(shared, 0, sizeof *shared);
        unlink(pool);
        unsigned delay_us = (unsigned)rand() % 30000; /* 0 .. 30 ms after the capture began */
        pid_t pid = lt_fork_alone();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(20);
            ludus_thread_register("Sequence");
            ludus_capture_desc d;
            memset(&d, 0, sizeof d);
            d.pool_file = pool;
            d.chunk_bytes = 4096;
            d.chunk_count = 64; /* 256 KiB: full after some 16 000 events */
            if (ludus_capture_begin(&d) != 0) _exit(90);
            __atomic_store_n(&shared->armed, 1, __ATOMIC_RELEASE);
            for (uint64_t i = 0;; i++) {
                __atomic_store_n(&shared->started, i + 1, __ATOMIC_RELEASE);
                {
                    LUDUS_PROFILE_SCOPE(Outer);
                    LUDUS_PROFILE_SCOPE(Inner);
                }
                __atomic_store_n(&shared->ended, i + 1, __ATOMIC_RELEASE);
                if (i % 64 == 63 && round % 3) lt_spin_ns(10000 * (round % 3)); /* rounds of three paces */
            }
        }
        wait_flag(pid, &shared->armed);
        usleep(delay_us);
        kill(pid, SIGKILL);
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        uint64_t started = shared->started, ended = shared->ended;
        ludus_capture *c;
        int rc = ludus_capture_recover(pool, &c);
        if (rc) print_message("round %d: recover: %s\n", round, ludus_last_error_detail());
        assert_int_equal(rc, 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        uint64_t got = in.summary.events + in.summary.dropped;
        print_message("round %d: killed %u us in, %llu iterations done (%llu begun): %llu events, %llu dropped\n",
                      round, delay_us, (unsigned long long)ended, (unsigned long long)started,
                      (unsigned long long)in.summary.events, (unsigned long long)in.summary.dropped);
        assert_true(got >= 4 * ended);
        assert_true(got <= 4 * ended + (started > ended ? 4 : 0));
        assert_true(in.summary.events <= 4 * started);
        if (in.summary.dropped) {
            overflowed++;
            assert_true(in.summary.events > 10000); /* losses only once the pool was full */
        }
        if (in.summary.events == 0) { /* killed before anything reached the file: nothing to export (ENODATA) */
            ludus_capture_release(c);
            continue;
        }
        /* the sequence: Outer slices in order, each with at most one Inner */
        char *json = lt_capture_json(c);
        lt_trace t;
        lt_trace_parse(&t, json);
        size_t outer = lt_count(&t, 'B', "Outer"), inner = lt_count(&t, 'B', "Inner");
        size_t named = outer + inner;
        if (named) { /* named: the journal's first pass was before the kill */
            assert_true(inner <= outer);
            assert_true(outer - inner <= 1 + in.summary.dropped / 2);
        }
        for (size_t i = 0; i < t.n; i++)
            if (t.ev[i].ph == 'B') assert_true(lt_match_end(&t, i) >= 0);
        lt_trace_free(&t);
        free(json);
        ludus_capture_release(c);
    }
    print_message("%d of %d rounds overflowed the pool\n", overflowed, ROUNDS);
    unlink(pool);
    munmap(shared, sizeof *shared);
}

/* ---- threads born after the last journal pass keep their names ----
 * The child's journal thread is stopped before its second pass
 * (ludus__pool_file_pass, the test's seam): every thread below registers
 * after the last pass the process will ever make. Eight are born and named
 * (four exit, four stay), one registers unnamed when it first records and
 * is named after; then kill -9. recover names every one, with its tid. The
 * old journal wrote names at its passes only: these were "thread <serial>". */
enum { BORN_LATE = 8 };

static void park_after_first_pass(void) {
    static int passes;
    if (++passes < 2) return;
    __atomic_store_n(&shared->parked, 1, __ATOMIC_RELEASE);
    for (;;) pause();
}

static int late_stop;

static void *born_late(void *arg) {
    int i = (int)(intptr_t)arg;
    char name[32];
    snprintf(name, sizeof name, "Born late %d", i);
    ludus_thread_register(name);
    for (int k = 0; k < 10; k++) {
        LUDUS_PROFILE_SCOPE(BornLate);
    }
    /* set once its events are recorded: the parent kills on the tids it
     * sees, and a tid set before the scopes let a loaded machine kill a
     * thread part way through its ten (recovered with fewer than 20) */
    __atomic_store_n(&shared->tids[i], lt_gettid(), __ATOMIC_RELEASE);
    if (i % 2 == 0) return NULL;                                    /* exits */
    while (!__atomic_load_n(&late_stop, __ATOMIC_ACQUIRE)) pause(); /* lives on to the kill */
    return NULL;
}

static void *renamed_late(void *arg) {
    (void)arg;
    { LUDUS_PROFILE_SCOPE(Unnamed); } /* registers it, with the default name */
    ludus_thread_register("Renamed late");
    shared->tids[BORN_LATE] = lt_gettid();
    __atomic_store_n(&shared->done, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&late_stop, __ATOMIC_ACQUIRE)) pause();
    return NULL;
}

static void test_names_born_after_last_pass(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char pool[96];
    shared_setup(pool, sizeof pool, "late");
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        ludus_thread_register("Late main");
        ludus__pool_file_pass = park_after_first_pass;
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.pool_file = pool;
        if (ludus_capture_begin(&d) != 0) _exit(90);
        while (!__atomic_load_n(&shared->parked, __ATOMIC_ACQUIRE)) sched_yield();
        pthread_t th[BORN_LATE + 1];
        for (int i = 0; i < BORN_LATE; i++) {
            if (pthread_create(&th[i], NULL, born_late, (void *)(intptr_t)i) != 0) _exit(91);
            if (i % 2 == 0) pthread_join(th[i], NULL);
        }
        if (pthread_create(&th[BORN_LATE], NULL, renamed_late, NULL) != 0) _exit(92);
        for (;;) pause();
    }
    wait_flag(pid, &shared->done);
    for (int i = 1; i < BORN_LATE; i += 2)
        while (!__atomic_load_n(&shared->tids[i], __ATOMIC_ACQUIRE)) sched_yield(); /* named and recorded */
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, NULL, 0), pid);
    assert_int_equal(__atomic_load_n(&shared->parked, __ATOMIC_ACQUIRE), 1);
    ludus_capture *c = recovered(pool);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    int found[BORN_LATE + 1] = {0};
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        assert_int_equal(ludus_capture_thread(c, t, &ts), 0);
        int k;
        if (sscanf(ts.name, "Born late %d", &k) == 1 && k >= 0 && k < BORN_LATE) {
            found[k]++;
            assert_int_equal(ts.tid, (uint64_t)shared->tids[k]);
            assert_int_equal(ts.events, 20);
        } else if (!strcmp(ts.name, "Renamed late")) {
            found[BORN_LATE]++;
            assert_int_equal(ts.tid, (uint64_t)shared->tids[BORN_LATE]);
        } else if (strcmp(ts.name, "Late main") != 0) {
            print_message("a thread recovered as \"%s\"\n", ts.name);
        }
    }
    for (int k = 0; k <= BORN_LATE; k++)
        if (found[k] != 1) fail_msg("thread %d born after the last pass: named %d times in the recovery", k, found[k]);
    ludus_capture_release(c);
    unlink(pool);
    munmap(shared, sizeof *shared);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        /* the tests whose children record first: forked from a process that
         * has run no capture yet (ThreadSanitizer then has nothing of its
         * threads to carry into them) */
        cmocka_unit_test(test_kill9),
        cmocka_unit_test(test_drops_and_short_threads_kept),
        cmocka_unit_test(test_names_born_after_last_pass),
        cmocka_unit_test(test_journal_range_wraps),
        cmocka_unit_test(test_calibration_checked),
        cmocka_unit_test(test_kill9_random_moment),
        cmocka_unit_test(test_full_filesystem),
        cmocka_unit_test_teardown(test_clean_end_removes_file, lt_teardown),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_link_at_pool_path),
        cmocka_unit_test(test_no_room_at_begin),
        cmocka_unit_test_teardown(test_removed_at_every_end, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
