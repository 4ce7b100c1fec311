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
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
        rd.hitch_factor = LUDUS_ROLLING_NONE;
        rd.signal = LUDUS_ROLLING_NONE;
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
    pid_t pid = lt_fork_alone();
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
    /* the worker runs on while the copy is made: an event it was writing
     * at that moment is lost, and counted (at most that one) */
    assert_true(in.summary.dropped <= 1);
    for (uint32_t t = 0; t < in.threads; t++) {
        ludus_thread_summary ts;
        assert_int_equal(ludus_capture_thread(c, t, &ts), 0);
        if (ts.tid == (uint64_t)tid) assert_int_equal(ts.dropped, 0); /* the crashed thread loses nothing */
    }
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

/* The rolling window's crash file in a directory (lt_list_dir's callback). */
static const char *crash_file_in;
static char *crash_file;
static void find_crash_file(const char *name, void *ud) {
    (void)ud;
    if (strstr(name, "-crash-SIGSEGV.ludus")) snprintf(crash_file, 600, "%s/%s", crash_file_in, name);
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
    pid_t pid = lt_fork_alone();
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
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(20);
        signal(SIGSEGV, SIG_DFL);
        ludus_crash_desc cd = {path, 0, 5000};
        if (ludus_crash_capture_begin(&cd) != 0 || ludus_capture_begin(NULL) != 0) _exit(90);
        /* the stack glibc gives a thread by default (musl's, 128 KiB, holds
           fewer levels than the 1000 asked below) */
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 8u << 20);
        pthread_t th;
        if (pthread_create(&th, &attr, overflow_main, NULL) != 0) _exit(91);
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
        assert_int_equal(ludus_capture_thread(c, t, &ts), 0);
        if (strcmp(ts.name, "Deep") != 0) continue;
        found = 1;
        assert_int_equal(ts.tid, in.crash_tid); /* the overflowing thread */
        assert_true(ts.incomplete > 1000);      /* every level open at the crash */
    }
    assert_true(found);
    ludus_capture_release(c);
    unlink(path);
}

/* A SIGSEGV the program handles itself: a guard page whose fault its own
 * handler fixes (mprotect) and returns from, as a GC's write barrier or a
 * stack guard does. Installed before crash capture (the library runs it
 * first) or after it (it calls the library's for what it does not own):
 * either way the handled faults write nothing and leave crash capture
 * armed, and the real crash after them (an address it does not own: it
 * puts SIG_DFL back and returns, or calls the handler it replaced) writes
 * the capture, with what was recorded after the handled faults. The old
 * code wrote a crash file at the first guard-page fault, put the program's
 * handler back in its place for good, and wrote nothing at the real crash. */
static char *guard_page;
static struct sigaction replaced; /* the handler before the program's own (installed after ours) */
static int program_after;

static void program_handler(int signo, siginfo_t *info, void *uc) {
    char *a = info->si_addr;
    if (a >= guard_page && a < guard_page + 4096) {
        mprotect(guard_page, 4096, PROT_READ | PROT_WRITE); /* fixed: the store runs again */
        return;
    }
    if (program_after && (replaced.sa_flags & SA_SIGINFO)) { /* not ours: the handler we replaced */
        replaced.sa_sigaction(signo, info, uc);
        return;
    }
    signal(signo, SIG_DFL); /* not ours: die of it */
}

static void install_program_handler(void) {
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = program_handler;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &replaced);
}

static void test_handled_fault(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    for (program_after = 0; program_after < 2; program_after++) {
        char dir[256], path[300];
        assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-test-handled"), 0);
        snprintf(path, sizeof path, "%s/crash-%%p.ludus", dir);
        pid_t pid = lt_fork_alone();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(20);
            signal(SIGSEGV, SIG_DFL);
            guard_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (guard_page == MAP_FAILED) _exit(89);
            if (!program_after) install_program_handler();
            ludus_crash_desc cd = {path, 0, 5000};
            if (ludus_crash_capture_begin(&cd) != 0 || ludus_capture_begin(NULL) != 0) _exit(90);
            if (program_after) install_program_handler();
            for (int i = 0; i < 10; i++) {
                LUDUS_PROFILE_SCOPE(GuardPage);
                guard_page[i] = 1; /* a fault the program fixes */
                mprotect(guard_page, 4096, PROT_NONE);
            }
            for (int i = 0; i < 100; i++) {
                LUDUS_PROFILE_SCOPE(AfterTheGuardPage);
            }
            LUDUS_PROFILE_SCOPE(RealCrash);
            int *volatile unmapped = (int *)(uintptr_t)64;
            *unmapped = 1;
            _exit(93);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        if (!WIFSIGNALED(status)) print_message("exit status %d\n", WEXITSTATUS(status));
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGSEGV);
        char file[600];
        snprintf(file, sizeof file, "%s/crash-%d.ludus", dir, (int)pid);
        ludus_capture *c;
        assert_int_equal(ludus_capture_open(file, &c), 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        assert_int_equal(in.crash_signal, SIGSEGV);
        assert_int_equal(in.summary.events, 10 * 2 + 100 * 2 + 1); /* the real crash's capture: all of it */
        ludus_capture_release(c);
        lt_remove_dir(dir);
    }
}

/* A crash while another thread begins or ends a capture: that thread is
 * stopped at each step of begin and end (ludus__session_step, the test's
 * seam), holding the registry's lock where the step does, and the main
 * thread crashes then. The copy finishes the end from where it stopped, or
 * takes the capture object once it holds everything: every event recorded
 * is written. Stopped while arming (nothing armed yet), there is nothing
 * to write, and the copy says so. The old code ran the end again over a
 * session already cleared, or found no capture active while the ended one
 * was not yet the last, and wrote nothing. */
#include "session/session.h"

static int stop_at, parked;
static pid_t victim_pid;

static void park(int step) {
    /* in the crashed process only (its copy, another process, runs the
     * end's steps again) */
    if (step != stop_at || getpid() != victim_pid) return;
    __atomic_store_n(&parked, 1, __ATOMIC_RELEASE);
    for (;;) pause(); /* as a thread preempted there for good */
}

static void *coordinator(void *arg) {
    if (arg)
        ludus_capture_begin(NULL);
    else
        ludus_capture_end(NULL);
    return NULL;
}

static void test_crash_during_begin_end(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    static const int steps[] = {LUDUS__STEP_ARMING, LUDUS__STEP_ARMED,    LUDUS__STEP_ENDING, LUDUS__STEP_PUBLISHED,
                                LUDUS__STEP_ENDED,  LUDUS__STEP_INACTIVE, LUDUS__STEP_ARMING, LUDUS__STEP_ARMING};
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; k++) {
        int at = steps[k], begin = at == LUDUS__STEP_ARMING || at == LUDUS__STEP_ARMED;
        int rolling = k == 6;    /* the flight recorder, recording */
        int just_ended = k == 7; /* a capture ended, the next one beginning (issue 32): the ended one is written */
        char dir[256], path[300];
        assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-test-midend"), 0);
        snprintf(path, sizeof path, "%s/plain.ludus", dir);
        pid_t pid = lt_fork_alone();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(20);
            signal(SIGSEGV, SIG_DFL);
            victim_pid = getpid();
            ludus_thread_register("Crash main");
            ludus_crash_desc cd = {path, 0, 5000};
            if (ludus_crash_capture_begin(&cd) != 0) _exit(90);
            if (rolling) {
                ludus_rolling_desc rd;
                memset(&rd, 0, sizeof rd);
                rd.window_ms = 300;
                rd.hitch_factor = LUDUS_ROLLING_NONE;
                rd.signal = LUDUS_ROLLING_NONE;
                rd.directory = dir;
                rd.prefix = "midswitch";
                if (ludus_rolling_begin(NULL, &rd) != 0) _exit(91);
            } else if ((!begin || just_ended) && ludus_capture_begin(NULL) != 0) {
                _exit(91);
            }
            if (!begin || rolling || just_ended)
                for (int i = 0; i < 1000; i++) {
                    LUDUS_PROFILE_SCOPE(BeforeTheCrash);
                }
            if (just_ended && ludus_capture_end(NULL) != 0) _exit(94);
            stop_at = at;
            pthread_t th;
            if (!rolling) { /* the flight recorder has no begin or end while it runs: it crashes as it records */
                ludus__session_step = park;
                if (pthread_create(&th, NULL, coordinator, begin ? (void *)1 : NULL) != 0) _exit(92);
                while (!__atomic_load_n(&parked, __ATOMIC_ACQUIRE)) sched_yield();
            }
            if (begin && !rolling)
                for (int i = 0; i < 1000; i++) {
                    LUDUS_PROFILE_SCOPE(BeforeTheCrash);
                }
            LUDUS_PROFILE_SCOPE(Crashing);
            int *volatile unmapped = (int *)(uintptr_t)64;
            *unmapped = 1;
            _exit(93);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGSEGV);
        char file[600];
        snprintf(file, sizeof file, "%s", path);
        if (rolling) {
            crash_file_in = dir;
            crash_file = file;
            lt_list_dir(dir, find_crash_file, NULL);
        }
        ludus_capture *c = NULL;
        int rc = ludus_capture_open(file, &c);
        print_message("stopped at step %d%s: %s\n", at, rolling ? " (flight recorder)" : "", rc ? "no file" : "a file");
        if (at == LUDUS__STEP_ARMING && !rolling && !just_ended) { /* nothing was armed: nothing recorded */
            assert_int_equal(rc, LUDUS_EIO);
            lt_remove_dir(dir);
            continue;
        }
        assert_int_equal(rc, 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        assert_int_equal(in.crash_signal, SIGSEGV);
        if (rolling) { /* every scope it held */
            char *json = lt_capture_json(c);
            lt_trace t;
            lt_trace_parse(&t, json);
            assert_int_equal(lt_count(&t, 'B', "BeforeTheCrash"), 1000);
            lt_trace_free(&t);
            free(json);
        } else { /* the 1000 scopes; after an armed begin the crashing one too (open: incomplete) */
            assert_int_equal(in.summary.events, 2000 + (uint64_t)(begin && !just_ended));
            assert_int_equal(in.summary.dropped, 0);
        }
        ludus_capture_release(c);
        lt_remove_dir(dir);
    }
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

/* Other threads of the crashed process may hold the C library's other
 * locks: glibc's time zone lock (a thread in localtime_r or gmtime_r) and
 * a stream's (a thread in fprintf). With every such call blocked for good
 * (as on those locks), the copy still writes the capture, and the rolling
 * window's file (named by local time): the crash path calls none of them.
 * The old code named the window's file with localtime_r and timed out. */
static volatile int libc_held;
struct tm;
struct tm *__real_localtime_r(const time_t *t, struct tm *out);
struct tm *__real_localtime(const time_t *t);
struct tm *__real_gmtime_r(const time_t *t, struct tm *out);
struct tm *__real_gmtime(const time_t *t);
time_t __real_mktime(struct tm *tm);
void __real_tzset(void);
size_t __real_strftime(char *s, size_t max, const char *fmt, const struct tm *tm);
int __real_vfprintf(FILE *f, const char *fmt, va_list ap);
int __real_fputs(const char *s, FILE *f);
size_t __real_fwrite(const void *p, size_t size, size_t n, FILE *f);
int __real_fflush(FILE *f);
int __real_puts(const char *s);
int __real_fputc(int c, FILE *f);
#ifdef __GLIBC__
int __real___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
#endif
static void maybe_held(void) {
    if (libc_held) held();
}
struct tm *__wrap_localtime_r(const time_t *t, struct tm *out) {
    maybe_held();
    return __real_localtime_r(t, out);
}
struct tm *__wrap_localtime(const time_t *t) {
    maybe_held();
    return __real_localtime(t);
}
struct tm *__wrap_gmtime_r(const time_t *t, struct tm *out) {
    maybe_held();
    return __real_gmtime_r(t, out);
}
struct tm *__wrap_gmtime(const time_t *t) {
    maybe_held();
    return __real_gmtime(t);
}
time_t __wrap_mktime(struct tm *tm) {
    maybe_held();
    return __real_mktime(tm);
}
void __wrap_tzset(void) {
    maybe_held();
    __real_tzset();
}
size_t __wrap_strftime(char *s, size_t max, const char *fmt, const struct tm *tm) {
    maybe_held();
    return __real_strftime(s, max, fmt, tm);
}
int __wrap_vfprintf(FILE *f, const char *fmt, va_list ap) {
    maybe_held();
    return __real_vfprintf(f, fmt, ap);
}
int __wrap_fprintf(FILE *f, const char *fmt, ...) {
    maybe_held();
    va_list ap;
    va_start(ap, fmt);
    int rc = __real_vfprintf(f, fmt, ap);
    va_end(ap);
    return rc;
}
int __wrap_printf(const char *fmt, ...) {
    maybe_held();
    va_list ap;
    va_start(ap, fmt);
    int rc = __real_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return rc;
}
/* glibc's _FORTIFY_SOURCE forms (another C library has none) */
#ifdef __GLIBC__
int __wrap___vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap) {
    maybe_held();
    return __real___vfprintf_chk(f, flag, fmt, ap);
}
int __wrap___fprintf_chk(FILE *f, int flag, const char *fmt, ...) {
    maybe_held();
    va_list ap;
    va_start(ap, fmt);
    int rc = __real___vfprintf_chk(f, flag, fmt, ap);
    va_end(ap);
    return rc;
}
int __wrap___printf_chk(int flag, const char *fmt, ...) {
    maybe_held();
    va_list ap;
    va_start(ap, fmt);
    int rc = __real___vfprintf_chk(stdout, flag, fmt, ap);
    va_end(ap);
    return rc;
}
#endif
int __wrap_fputs(const char *str, FILE *f) {
    maybe_held();
    return __real_fputs(str, f);
}
size_t __wrap_fwrite(const void *p, size_t size, size_t n, FILE *f) {
    maybe_held();
    return __real_fwrite(p, size, n, f);
}
int __wrap_fflush(FILE *f) {
    maybe_held();
    return __real_fflush(f);
}
int __wrap_puts(const char *str) {
    maybe_held();
    return __real_puts(str);
}
int __wrap_fputc(int c, FILE *f) {
    maybe_held();
    return __real_fputc(c, f);
}

static void test_crash_with_libc_locks_held(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    for (int rolling = 0; rolling < 2; rolling++) {
        char dir[256], path[300];
        assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-test-libcheld"), 0);
        snprintf(path, sizeof path, "%s/plain.ludus", dir);
        pid_t pid = lt_fork_alone();
        assert_true(pid >= 0);
        if (pid == 0) {
            alarm(20);
            signal(SIGSEGV, SIG_DFL);
            ludus_crash_desc cd = {path, 0, 5000};
            if (ludus_crash_capture_begin(&cd) != 0) _exit(90);
            if (rolling) {
                ludus_rolling_desc rd;
                memset(&rd, 0, sizeof rd);
                rd.window_ms = 300;
                rd.hitch_factor = LUDUS_ROLLING_NONE;
                rd.signal = LUDUS_ROLLING_NONE;
                rd.directory = dir;
                rd.prefix = "held";
                if (ludus_rolling_begin(NULL, &rd) != 0) _exit(91);
            } else if (ludus_capture_begin(NULL) != 0) {
                _exit(91);
            }
            for (int i = 0; i < 1000; i++) {
                LUDUS_PROFILE_SCOPE(BeforeTheCrash);
            }
            LUDUS_PROFILE_SCOPE(LocksHeld);
            libc_held = 1;
            malloc_held = 1;
            int *volatile unmapped = (int *)(uintptr_t)64;
            *unmapped = 1;
            _exit(93);
        }
        int status;
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_true(WIFSIGNALED(status));
        assert_int_equal(WTERMSIG(status), SIGSEGV);
        char file[600] = "";
        if (rolling) {
            crash_file_in = dir;
            crash_file = file;
            lt_list_dir(dir, find_crash_file, NULL);
        } else {
            snprintf(file, sizeof file, "%s", path);
        }
        print_message("%s capture: %s\n", rolling ? "rolling" : "plain", file[0] ? file : "no file");
        assert_true(file[0]);
        if (rolling) { /* named in local time without localtime_r: the same as localtime_r says (within a minute) */
            struct tm tm;
            memset(&tm, 0, sizeof tm);
            const char *stamp = strrchr(file, '/') + 1 + strlen("held-");
            assert_int_equal(sscanf(stamp, "%4d%2d%2d-%2d%2d%2d", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                                    &tm.tm_min, &tm.tm_sec),
                             6);
            time_t now = time(NULL);
            struct tm here;
            localtime_r(&now, &here);
            long named = ((tm.tm_mday * 24L + tm.tm_hour) * 60 + tm.tm_min) * 60 + tm.tm_sec;
            long local = ((here.tm_mday * 24L + here.tm_hour) * 60 + here.tm_min) * 60 + here.tm_sec;
            assert_int_equal(tm.tm_year, here.tm_year + 1900);
            assert_int_equal(tm.tm_mon, here.tm_mon + 1);
            assert_true(local - named >= 0 && local - named < 60);
        }
        ludus_capture *c;
        assert_int_equal(ludus_capture_open(file, &c), 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        assert_int_equal(in.crash_signal, SIGSEGV);
        assert_int_equal(in.summary.events, 2 * 1000 + 1);
        ludus_capture_release(c);
        lt_remove_dir(dir);
    }
}

static void test_crash_inside_malloc(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-mallocheld-%d.ludus", (int)getpid());
    pid_t pid = lt_fork_alone();
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
        cmocka_unit_test(test_crash_with_libc_locks_held),
        cmocka_unit_test(test_handled_fault),
        cmocka_unit_test(test_crash_during_begin_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
