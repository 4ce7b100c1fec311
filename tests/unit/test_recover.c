/* A pool backed by a file survives kill -9: a child records (two threads,
 * nested scopes, frames) into a pool file and is killed mid-run; the parent
 * reads the file back (ludus_capture_recover) and finds every frame the
 * child had counted before the kill, the threads and sites named from the
 * journal, the open scopes closed as incomplete, and an export whose slices
 * pair. A capture that ends normally removes its file when released. */
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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static volatile int *frames_done; /* shared with the child: frames it has marked */

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Recover worker");
    for (;;) {
        LUDUS_PROFILE_SCOPE(WorkerScope);
        lt_spin_ns(50000);
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

static void test_kill9(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    frames_done = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(frames_done != MAP_FAILED);
    *frames_done = 0;
    char pool[96];
    snprintf(pool, sizeof pool, "/tmp/ludus-test-pool-%d", (int)getpid());
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child(pool);
    /* 300 frames and a few journal passes (20 ms each) since, then SIGKILL
     * mid-frame */
    while (__atomic_load_n(frames_done, __ATOMIC_ACQUIRE) < 300) usleep(1000);
    usleep(100000);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    int counted = __atomic_load_n(frames_done, __ATOMIC_ACQUIRE);

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill9),
        cmocka_unit_test_teardown(test_clean_end_removes_file, lt_teardown),
        cmocka_unit_test(test_bad_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
