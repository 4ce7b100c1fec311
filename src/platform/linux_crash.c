/* crash.h on Linux: sigaction with SA_SIGINFO and SA_ONSTACK, a raw fork
 * (the clone system call: glibc's fork runs the program's atfork handlers
 * and takes malloc's locks, either of which a crash may have left held),
 * waitpid with a deadline, tgkill to raise the signal again. */
#define _GNU_SOURCE
#include "crash.h"
#include "alloc.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define X_CRASH_SIGNALS(X) X(SIGSEGV) X(SIGBUS) X(SIGFPE) X(SIGILL) X(SIGABRT)
static const int crash_signo[] = {
#define X_SIGNO(s) s,
    X_CRASH_SIGNALS(X_SIGNO)
#undef X_SIGNO
};
static const char *const crash_name[] = {
#define X_NAME(s) #s,
    X_CRASH_SIGNALS(X_NAME)
#undef X_NAME
};
#define NCRASH (sizeof crash_signo / sizeof crash_signo[0])

static struct sigaction old_action[NCRASH];
static int installed;
static ludus__crash_writer writer_fn;
static uint32_t wait_ms;
static long writing_tid; /* atomic: the thread whose crash is written (0: none yet) */
static int written;      /* atomic: that write is over */
/* The writer's stack, reserved at install: the crashing thread may be on
 * its small alternate stack (a stack overflow), and the copy of the process
 * starts on whatever stack the crashing thread was on. */
#define CHILD_STACK ((size_t)1 << 20)
static char *child_stack;
#define ALT_STACK ((size_t)64 << 10)

const char *ludus__crash_signal_name(int signo) {
    for (size_t i = 0; i < NCRASH; i++)
        if (crash_signo[i] == signo) return crash_name[i];
    return "signal";
}

void ludus__crash_say(const char *text, size_t n) {
    while (n) {
        ssize_t k = write(2, text, n);
        if (k <= 0) {
            if (k < 0 && errno == EINTR) continue;
            return;
        }
        text += k;
        n -= (size_t)k;
    }
}

static void nap_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

typedef struct child_arg {
    int signo;
    long tid;
    int64_t at_ns;
} child_arg;

static int child_main(void *p) {
    const child_arg *a = p;
    ludus__crash_writer fn = writer_fn;
    int ok = fn && fn(a->signo, (uint64_t)a->tid, a->at_ns, 1) == 0;
    syscall(SYS_exit_group, ok ? 0 : 1);
    return 0;
}

/* Runs the writer in a child and waits for it, at most wait_ms. */
static void write_in_child(int signo, long tid) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    child_arg arg = {signo, tid, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec};
    /* clone without CLONE_VM: a copy of the process, no atfork handler run,
     * on the reserved stack */
    long child = child_stack ? clone(child_main, child_stack + CHILD_STACK, SIGCHLD, &arg) : -1;
    if (child < 0) {
        static const char msg[] = "ludus: crash: no capture written (fork failed)\n";
        ludus__crash_say(msg, sizeof msg - 1);
        return;
    }
    for (uint32_t waited = 0;; waited++) {
        int status;
        long r = waitpid((pid_t)child, &status, WNOHANG);
        if (r == child || (r < 0 && errno != EINTR)) return; /* over (or reaped by SA_NOCLDWAIT) */
        if (waited >= wait_ms) break;
        nap_ms(1);
    }
    kill((pid_t)child, SIGKILL);
    waitpid((pid_t)child, NULL, 0);
    static const char msg[] = "ludus: crash: writing the capture took too long; it was stopped\n";
    ludus__crash_say(msg, sizeof msg - 1);
}

static void on_crash(int signo, siginfo_t *info, void *uc) {
    (void)uc;
    int saved_errno = errno;
    long tid = syscall(SYS_gettid);
    long none = 0;
    if (__atomic_compare_exchange_n(&writing_tid, &none, tid, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        write_in_child(signo, tid);
        __atomic_store_n(&written, 1, __ATOMIC_RELEASE);
    } else if (none != tid) { /* another thread's crash is being written: the process dies after it */
        for (uint32_t i = 0; i < wait_ms + 1000 && !__atomic_load_n(&written, __ATOMIC_ACQUIRE); i++) nap_ms(1);
    }
    /* The crash goes on under the action the program had: a fault runs its
     * instruction again when this returns; a signal that was sent (abort,
     * raise, kill) is sent again, pending until this returns. */
    for (size_t i = 0; i < NCRASH; i++)
        if (crash_signo[i] == signo) sigaction(signo, &old_action[i], NULL);
    if (info->si_code <= 0 || signo == SIGABRT) syscall(SYS_tgkill, (long)getpid(), tid, (long)signo);
    errno = saved_errno;
}

static void free_alt_stack(void *mem) {
    stack_t off = {.ss_flags = SS_DISABLE};
    sigaltstack(&off, NULL);
    ludus__free(mem);
}

void ludus__crash_thread_setup(void) {
    stack_t cur;
    if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE)) return; /* it has one */
    void *mem = ludus__malloc(ALT_STACK);
    if (!mem) return;
    stack_t st = {.ss_sp = mem, .ss_size = ALT_STACK, .ss_flags = 0};
    if (sigaltstack(&st, NULL) != 0 || ludus__on_thread_exit(LUDUS__EXIT_ALTSTACK, free_alt_stack, mem) != 0) {
        stack_t off = {.ss_flags = SS_DISABLE};
        sigaltstack(&off, NULL);
        ludus__free(mem);
    }
}

int ludus__crash_install(ludus__crash_writer writer, uint32_t timeout_ms) {
    writer_fn = writer;
    wait_ms = timeout_ms;
    if (installed) return 0;
    if (!child_stack) {
        void *s = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (s == MAP_FAILED) return -1;
        child_stack = s;
    }
    ludus__crash_thread_setup();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCRASH; i++) sigaddset(&sa.sa_mask, crash_signo[i]);
    for (size_t i = 0; i < NCRASH; i++) {
        if (sigaction(crash_signo[i], &sa, &old_action[i]) != 0) {
            while (i-- > 0) sigaction(crash_signo[i], &old_action[i], NULL);
            return -1;
        }
    }
    installed = 1;
    return 0;
}

void ludus__crash_uninstall(void) {
    if (!installed) return;
    for (size_t i = 0; i < NCRASH; i++) sigaction(crash_signo[i], &old_action[i], NULL);
    installed = 0;
    writer_fn = NULL;
}
