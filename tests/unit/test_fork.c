/* fork while a capture runs and another thread records. The child never
 * waits on the thread it does not have (it ends its capture at once), and
 * its capture is its own: its pid, only its own thread, none of the
 * parent's events. The parent's capture goes on untouched. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/pages.h"
#include "test_util.h"

static int stop;

static int worked; /* the worker has recorded a scope */

static void *busy_worker(void *arg) {
    (void)arg;
    ludus_thread_register("Parent worker");
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        { LUDUS_PROFILE_SCOPE(ParentWork); }
        __atomic_store_n(&worked, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

/* The child's checks; its exit status says which failed (0: all held). */
static int child_main(void) {
    alarm(60); /* a hang kills the child: the parent sees a signal, not 0 (a bound, not a timing) */
    {
        LUDUS_PROFILE_SCOPE(ChildWork);
        LUDUS_PROFILE_MARK(ChildMark);
    }
    if (ludus_capture_end(NULL) != 0) return 10;
    ludus_capture_summary s;
    if (lt_last_summary(&s) != 0) return 11;
    if (s.threads != 1) return 12; /* only the thread that forked */
    if (s.events != 3) return 13;  /* ChildWork begin/end, ChildMark */
    lt_buf b = {0};
    if (lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &b) != 0) return 14;
    char want[64];
    snprintf(want, sizeof want, "\"pid\":%d,", (int)getpid());
    if (!strstr(b.data, want)) return 15; /* the child's pid */
    if (strstr(b.data, "ParentWork") || strstr(b.data, "Parent worker") || strstr(b.data, "BeforeFork")) return 16;
    lt_buf_free(&b);
    /* and it can capture again */
    if (ludus_capture_begin(NULL) != 0) return 17;
    LUDUS_PROFILE_MARK(Again);
    if (ludus_capture_end(NULL) != 0) return 18;
    return 0;
}

static void test_fork_child_captures_alone(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    ludus_thread_register("Main");
    lt_begin(NULL);
    pthread_t th;
    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&worked, 0, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, busy_worker, NULL), 0);
    LUDUS_PROFILE_MARK(BeforeFork);
    struct timespec nap = {0, 5000000};
    nanosleep(&nap, NULL);                                                     /* the worker is recording */
    while (!__atomic_load_n(&worked, __ATOMIC_ACQUIRE)) nanosleep(&nap, NULL); /* a loaded machine starts it late */
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) _exit(child_main());
    int status = 0;
    pid_t got = waitpid(pid, &status, 0); /* the child's alarm bounds a hang */
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    lt_end();
    assert_int_equal(got, pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("child status %d (exit %d, signal %d)", status, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    /* the parent's capture holds its own events */
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_true(lt_count(&t, 'B', "ParentWork") > 0);
    assert_int_equal(lt_count(&t, 'B', "ChildWork"), 0);
    assert_int_equal(lt_count(&t, 'I', "BeforeFork"), 1);
    lt_trace_free(&t);
}

/* fork with no capture running: the child's registry holds only itself.
 * The child's begin releases the library's last capture, a copy-on-write
 * copy of the parent's: the previous test's (a busy worker's full pool, a
 * large capture) took the child 10 s of page copies on a loaded machine,
 * past its alarm. A small capture ended first makes the last one small. */
static void test_fork_without_capture(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    ludus_capture_desc small;
    memset(&small, 0, sizeof small);
    small.chunk_count = 4;
    assert_int_equal(ludus_capture_begin(&small), 0);
    assert_int_equal(ludus_capture_end(NULL), 0);
    pthread_t th;
    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, busy_worker, NULL), 0);
    struct timespec nap = {0, 2000000};
    nanosleep(&nap, NULL);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60); /* a hang: a signal, not 0 */
        if (ludus_capture_begin(NULL) != 0) _exit(20);
        LUDUS_PROFILE_MARK(InChild);
        if (ludus_capture_end(NULL) != 0) _exit(21);
        ludus_capture_summary s;
        if (lt_last_summary(&s) != 0 || s.threads != 1 || s.events != 1) _exit(22);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A capture released in a forked child whose pool's prefault thread was
 * still running in the parent: the child has no such thread, and stopping
 * it must not wait for it (a capture the program held, the library's last
 * or spare one). The thread is made to be alive at the fork: it waits for
 * producers that never come. */
static void test_prefault_of_parent_in_child(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    size_t bytes = (size_t)64 << 20;
    char *mem = ludus__pages_map(bytes);
    assert_non_null(mem);
    static uint64_t cursor; /* producers at 0: the thread faults 8 MiB ahead, then waits */
    ludus__prefault *pf = ludus__prefault_start(mem, bytes, 0, &cursor);
    assert_non_null(pf);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        ludus__prefault_stop(pf); /* hung here: the thread's "finished" never came */
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    ludus__prefault_stop(pf);
    ludus__pages_unmap(mem, bytes);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefault_of_parent_in_child),
        cmocka_unit_test_teardown(test_fork_child_captures_alone, lt_teardown),
        cmocka_unit_test_teardown(test_fork_without_capture, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
