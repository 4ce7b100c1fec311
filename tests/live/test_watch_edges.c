/* The watch protocol at its edges (issue 32): a process that exec()s is
 * seen to leave (its block went with the old program), not shown frozen as
 * live; a process killed while writing a capture on demand leaves no
 * temporary behind (the watcher removes it); `top --once` against a block
 * left half-written gives up with a clear message instead of looping, and
 * `top` on a terminal shows absurd frame times without indexing out of its
 * glyph table (ASan tree). LUDUS_TRACE_BIN: the ludus-trace to run. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <ludus/capture.h>
#include <ludus/live.h>
#include <ludus/profiling.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "live/live_block.h"
#include "platform/live_map.h"

static void sleep_ms(int ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* A child that publishes and records frames until told; `exec_after`:
 * then it exec()s sleep instead of exiting. Returns its pid; *go: the pipe
 * that tells it. */
static pid_t publisher(int *go, int exec_after) {
    int ready[2], gp[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(gp), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(gp[1]);
        if (ludus_live_start() != 0) _exit(2);
        fcntl(gp[0], F_SETFL, O_NONBLOCK);
        char c = 1;
        if (write(ready[1], &c, 1) != 1) _exit(3);
        for (;;) {
            LUDUS_PROFILE_FRAME();
            { LUDUS_PROFILE_SCOPE(ChildFrame); }
            sleep_ms(2);
            if (read(gp[0], &c, 1) == 1) break;
        }
        if (exec_after) execl("/bin/sleep", "sleep", "20", (char *)NULL);
        _exit(0);
    }
    close(ready[1]);
    close(gp[0]);
    char c;
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    *go = gp[1];
    return pid;
}

static void test_exec_is_seen(void **state) {
    (void)state;
    int go;
    pid_t pid = publisher(&go, 1);
    ludus_watch *w = NULL;
    assert_int_equal(ludus_watch_open((uint64_t)pid, &w), 0);
    ludus_watch_view *v = calloc(1, sizeof *v);
    assert_non_null(v);
    assert_int_equal(ludus_watch_read(w, 0, 0, v), 0);
    char c = 1;
    assert_int_equal(write(go, &c, 1), 1);
    int rc = 0;
    for (int i = 0; i < 500 && (rc = ludus_watch_read(w, 0, 0, v)) != LUDUS_ENODATA; i++) sleep_ms(10);
    assert_int_equal(rc, LUDUS_ENODATA); /* the old watcher showed the frozen block as live */
    assert_true(v->state & LUDUS_WATCH_EXITED);
    assert_false(ludus_watch_alive(w));
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    ludus_watch_close(w);
    free(v);
    close(go);
}

static int count_temporaries(const char *dir) {
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strstr(e->d_name, "live-tmp")) n++;
    closedir(d);
    return n;
}

static void test_killed_capture_leaves_no_temporary(void **state) {
    (void)state;
    char dir[] = "/tmp/ludus-watch-edges-XXXXXX";
    assert_non_null(mkdtemp(dir));
    int go;
    pid_t pid = publisher(&go, 0);
    ludus_watch *w = NULL;
    assert_int_equal(ludus_watch_open((uint64_t)pid, &w), 0);
    ludus_watch_view *v = calloc(1, sizeof *v);
    assert_non_null(v);
    char out[300];
    snprintf(out, sizeof out, "%s/killed.ludus", dir);
    uint64_t id = 0;
    assert_int_equal(ludus_watch_read(w, 0, 0, v), 0);
    assert_int_equal(ludus_watch_capture(w, 60000, out, &id), 0);
    int running = 0;
    for (int i = 0; i < 500 && !running; i++) { /* until the process records (its temporary is there) */
        sleep_ms(10);
        running =
            ludus_watch_read(w, 0, 0, v) == 0 && v->capture_id == id && v->capture_state == LUDUS_WATCH_CAPTURE_RUNNING;
    }
    assert_true(running);
    assert_int_equal(count_temporaries(dir), 1);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_int_equal(ludus_watch_read(w, 0, 0, v), LUDUS_ENODATA);
    assert_int_equal(count_temporaries(dir), 0); /* the old watcher left it */
    ludus_watch_close(w);
    free(v);
    close(go);
    rmdir(dir);
}

/* A block of this process's own, as a broken or hostile process leaves it. */
static ludus__live_map map;

static ludus__live_block *own_block(void) {
    assert_int_equal(ludus__live_map_create(sizeof(ludus__live_block), &map), 0);
    ludus__live_block *b = map.p;
    memcpy(b->magic, LUDUS__LIVE_MAGIC, sizeof LUDUS__LIVE_MAGIC);
    b->version = LUDUS__LIVE_VERSION;
    b->block_bytes = sizeof *b;
    b->pid = (uint64_t)getpid();
    snprintf(b->process, sizeof b->process, "edges");
    return b;
}

/* Runs ludus-trace with args (NULL-terminated); its exit status, its output in out. */
static int run_tool(char *const args[], char *out, size_t cap, int seconds) {
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        alarm((unsigned)seconds); /* a tool that loops is killed: a signal, not an exit */
        execv(args[0], args);
        _exit(127);
    }
    close(p[1]);
    size_t n = 0;
    ssize_t k;
    while (n + 1 < cap && (k = read(p[0], out + n, cap - 1 - n)) > 0) n += (size_t)k;
    out[n] = 0;
    close(p[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void test_top_once_gives_up_on_a_stopped_publisher(void **state) {
    (void)state;
    ludus__live_block *b = own_block();
    b->seq = 3; /* odd for good: stopped in the middle of a publish */
    char pid[32], out[4096];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    char *args[] = {LUDUS_TRACE_BIN, "top", pid, "--once", NULL};
    int rc = run_tool(args, out, sizeof out, 20);
    print_message("%s", out);
    assert_int_equal(rc, 3);
    assert_non_null(strstr(out, "half-written"));
    ludus__live_map_close(&map);
}

static void test_top_screen_with_absurd_frames(void **state) {
    (void)state;
    ludus__live_block *b = own_block();
    b->seq = 2;
    b->pub.frames_total = 64;
    for (uint32_t i = 0; i < 64; i++) {
        b->pub.frames[i].number = i + 1;
        b->pub.frames[i].begin_ns = (int64_t)i;
        b->pub.frames[i].duration_ns = i % 2 ? INT64_MAX - (int64_t)i : (int64_t)i * 1000000;
    }
    char pid[32];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    int master = -1;
    struct winsize ws = {24, 80, 0, 0};
    pid_t tp = forkpty(&master, NULL, NULL, &ws);
    assert_true(tp >= 0);
    if (tp == 0) {
        setenv("LANG", "C.UTF-8", 1);
        alarm(20);
        execl(LUDUS_TRACE_BIN, LUDUS_TRACE_BIN, "top", pid, (char *)NULL);
        _exit(127);
    }
    char buf[8192];
    size_t n = 0;
    for (int i = 0; i < 100 && n < 2000; i++) { /* a few screens */
        sleep_ms(20);
        ssize_t k = read(master, buf + n, sizeof buf - 1 - n);
        if (k > 0) n += (size_t)k;
    }
    ssize_t q = write(master, "q", 1);
    (void)q;
    while (read(master, buf, sizeof buf) > 0) {
    }
    int status = 0;
    waitpid(tp, &status, 0);
    close(master);
    assert_true(WIFEXITED(status)); /* not killed by ASan, UBSan or the alarm */
    assert_int_equal(WEXITSTATUS(status), 0);
    ludus__live_map_close(&map);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exec_is_seen),
        cmocka_unit_test(test_killed_capture_leaves_no_temporary),
        cmocka_unit_test(test_top_once_gives_up_on_a_stopped_publisher),
        cmocka_unit_test(test_top_screen_with_absurd_frames),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
