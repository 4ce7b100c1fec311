/* Crash capture: a child process records (its main thread and a worker),
 * then crashes; the parent checks that the child died of the signal as it
 * would have without the library (or ran the handler it had installed
 * before), and that the capture it left is whole: the worker's scopes, the
 * crashing thread's open scopes closed as incomplete, the crash marker on
 * that thread's track at the crash, the signal and thread in the file. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static int stop, worked;

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Crash worker");
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        {
            LUDUS_PROFILE_SCOPE(WorkerScope);
            lt_spin_ns(20000); /* recording while the crash hits, without filling the pool */
        }
        __atomic_store_n(&worked, 1, __ATOMIC_RELEASE);
    }
    return NULL;
}

enum { CRASH_SEGV, CRASH_ABORT, CRASH_FPE_RAISED };

static void crash_now(int how) {
    LUDUS_PROFILE_SCOPE(Outer);
    LUDUS_PROFILE_SCOPE(Inner);
    if (how == CRASH_SEGV) {
        int *volatile unmapped = (int *)(uintptr_t)64; /* not NULL: UBSan would catch that first */
        *unmapped = 1;
    } else if (how == CRASH_ABORT) {
        abort();
    } else {
        raise(SIGFPE);
    }
}

/* The child: records, then crashes; never returns. */
static void victim(const char *path, const char *rolling_dir, int how) {
    alarm(20); /* a hang kills the child with SIGALRM: the parent sees the wrong signal */
    /* cmocka's handlers (it turns a test's crash into a failure) are not
     * the program's: the child starts from the default actions */
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) signal(sigs[i], SIG_DFL);
    ludus_thread_register("Crash main");
    ludus_crash_desc cd = {path, 0, 5000};
    if (ludus_crash_capture_begin(&cd) != 0) _exit(90);
    if (rolling_dir) {
        ludus_rolling_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.window_ms = 300;
        rd.hitch_factor = -1;
        rd.signal = -1;
        rd.directory = rolling_dir;
        rd.prefix = "crash";
        if (ludus_rolling_begin(NULL, &rd) != 0) _exit(91);
    } else if (ludus_capture_begin(NULL) != 0) {
        _exit(91);
    }
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0) _exit(92);
    while (!__atomic_load_n(&worked, __ATOMIC_ACQUIRE)) sched_yield();
    for (int f = 0; f < 5; f++) {
        LUDUS_PROFILE_SCOPE(Frame);
        lt_spin_ns(1000000);
        LUDUS_PROFILE_FRAME();
    }
    crash_now(how);
    _exit(93); /* the crash did not end the process */
}

static pid_t spawn(const char *path, const char *rolling_dir, int how) {
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) victim(path, rolling_dir, how);
    return pid;
}

/* Every B is closed by an E of its thread (the open ones at the crash as
 * incomplete), and names and timestamps hold per thread. */
static void check_paired(const lt_trace *t) {
    size_t b = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].ph == 'B') {
            assert_true(lt_match_end(t, i) >= 0);
            b++;
        }
    assert_true(b > 0);
    assert_true(t->n_thread_names >= 2);
}

/* The crash capture at path: opened, checked, its JSON parsed back. */
static void check_capture(const char *path, int signo, pid_t tid) {
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.crash_signal, signo);
    assert_int_equal(in.crash_tid, (uint64_t)tid);
    assert_true(in.crash_ns >= in.start_ns && in.crash_ns <= in.end_ns);
    assert_true(in.summary.incomplete >= 2); /* Outer and Inner (and the worker's scope, when it was open) */
    assert_int_equal(in.summary.dropped, 0);
    assert_int_equal(in.summary.frames, 5);
    char *json = lt_capture_json(c);
    lt_trace t;
    lt_trace_parse(&t, json);
    check_paired(&t);
    assert_int_equal(t.n_crash, 1);
    assert_true(lt_count(&t, 'B', "WorkerScope") > 0);
    long outer = lt_find(&t, 0, 'B', "Outer"), inner = lt_find(&t, 0, 'B', "Inner");
    assert_true(outer >= 0 && inner >= 0);
    assert_int_equal(t.ev[inner].tid, (uint64_t)tid);
    /* the marker: on the crashing thread, inside Inner (after its begin) */
    long mark = -1;
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'I' && !strcmp(t.ev[i].name, "ludus: the process crashed here")) mark = (long)i;
    assert_true(mark >= 0);
    assert_int_equal(t.ev[mark].tid, (uint64_t)tid);
    assert_true(t.ev[mark].ts_ns >= t.ev[inner].ts_ns);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(c);
}

static void test_segv(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-crash-%d-%%p.ludus", (int)getpid());
    pid_t pid = spawn(path, NULL, CRASH_SEGV);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status)) print_message("exit status %d\n", WEXITSTATUS(status));
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV); /* died as it would have */
    char file[128];
    snprintf(file, sizeof file, "/tmp/ludus-test-crash-%d-%d.ludus", (int)getpid(), (int)pid);
    check_capture(file, SIGSEGV, pid);
    unlink(file);
}

/* The handler the program installed before runs after the capture is
 * written (here it exits 42: the program's own way of dying). */
static void prior_abort_handler(int signo) {
    (void)signo;
    _exit(42);
}

static void test_abort_chains(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-abort-%d.json", (int)getpid());
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGABRT, prior_abort_handler);
        victim(path, NULL, CRASH_ABORT);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 42);
    /* JSON this time: the format by the path's extension */
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *json = calloc(1, (size_t)n + 1);
    assert_int_equal(fread(json, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    lt_trace t;
    lt_trace_parse(&t, json);
    check_paired(&t);
    assert_int_equal(t.n_crash, 1);
    assert_non_null(strstr(json, "\"crash\":{\"signal\":\"SIGABRT\""));
    lt_trace_free(&t);
    free(json);
    unlink(path);
}

/* A rolling window writes into its directory, the reason in the name; a
 * raised (not faulting) signal is raised again and kills the process. */
static void test_rolling(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char dir[64], cmd[160];
    snprintf(dir, sizeof dir, "/tmp/ludus-test-crashdir-%d", (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    assert_int_equal(system(cmd), 0);
    pid_t pid = spawn(NULL, dir, CRASH_FPE_RAISED);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGFPE);
    snprintf(cmd, sizeof cmd, "ls %s", dir);
    FILE *p = popen(cmd, "r");
    char line[256], file[400] = "";
    int files = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        files++;
        if (strstr(line, "-crash-SIGFPE.ludus")) snprintf(file, sizeof file, "%s/%s", dir, line);
    }
    pclose(p);
    assert_int_equal(files, 1);
    assert_true(file[0]);
    check_capture(file, SIGFPE, pid);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A stack overflow on a worker thread: the handler runs on the alternate
 * stack the library gave the thread when it registered. */
static volatile int bottom = -1; /* never reached: a depth no stack holds */

static int deep(int n) {
    LUDUS_PROFILE_SCOPE(Recurse);
    volatile char pad[256];
    pad[0] = (char)n;
    if (n == bottom) return 0;
    return deep(n + 1) + pad[0]; /* not a tail call */
}

static void *overflow_main(void *arg) {
    (void)arg;
    ludus_thread_register("Deep");
    deep(0);
    return NULL;
}

static void test_stack_overflow(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-overflow-%d.ludus", (int)getpid());
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        signal(SIGSEGV, SIG_DFL);
        ludus_crash_desc cd = {path, 0, 5000};
        if (ludus_crash_capture_begin(&cd) != 0 || ludus_capture_begin(NULL) != 0) _exit(90);
        pthread_t th;
        pthread_create(&th, NULL, overflow_main, NULL);
        pthread_join(th, NULL);
        _exit(93);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGSEGV);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.crash_signal, SIGSEGV);
    int found = 0;
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        assert_int_equal(ludus_capture_get_thread(c, t, &ts), 0);
        if (strcmp(ts.name, "Deep") != 0) continue;
        found = 1;
        assert_int_equal(ts.tid, in.crash_tid); /* the overflowing thread */
        assert_true(ts.incomplete > 1000);      /* every level open at the crash */
    }
    assert_true(found);
    ludus_capture_release(c);
    unlink(path);
}

/* A crash inside malloc: the crashed thread holds one of malloc's locks, so
 * the copy that writes the capture must not call malloc. The test binary is
 * linked with --wrap for malloc, calloc, realloc and free (CMakeLists.txt):
 * once `malloc_held` is set, every call into them blocks for good, as on
 * that lock. The copy still writes the capture (the library allocates from
 * a region of its own there), and the process dies of its signal. */
static volatile int malloc_held;
void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t s);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
static void held(void) {
    for (;;) pause();
}
void *__wrap_malloc(size_t n) {
    if (malloc_held) held();
    return __real_malloc(n);
}
void *__wrap_calloc(size_t n, size_t s) {
    if (malloc_held) held();
    return __real_calloc(n, s);
}
void *__wrap_realloc(void *p, size_t n) {
    if (malloc_held) held();
    return __real_realloc(p, n);
}
void __wrap_free(void *p) {
    if (malloc_held) held();
    __real_free(p);
}

static void test_crash_inside_malloc(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-mallocheld-%d.ludus", (int)getpid());
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        signal(SIGABRT, SIG_DFL);
        ludus_crash_desc cd = {path, 0, 5000};
        if (ludus_crash_capture_begin(&cd) != 0 || ludus_capture_begin(NULL) != 0) _exit(90);
        for (int i = 0; i < 1000; i++) {
            LUDUS_PROFILE_SCOPE(BeforeTheCrash);
        }
        LUDUS_PROFILE_SCOPE(InsideMalloc);
        malloc_held = 1; /* as glibc finding a corrupted heap: abort, its lock held */
        abort();
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status));
    assert_int_equal(WTERMSIG(status), SIGABRT);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0); /* written without malloc */
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.crash_signal, SIGABRT);
    assert_int_equal(in.summary.events, 2 * 1000 + 1);
    ludus_capture_release(c);
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segv),
        cmocka_unit_test(test_abort_chains),
        cmocka_unit_test(test_rolling),
        cmocka_unit_test(test_stack_overflow),
        cmocka_unit_test(test_crash_inside_malloc),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
