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
#include <ucontext.h>
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

static void on_crash(int signo, siginfo_t *info, void *uc);
#define CHILD_STACK ((size_t)1 << 20)
/* What install sets up and the handler reads (async-signal-safe: plain
 * loads, and the __atomic builtins where threads race). */
static struct {
    struct sigaction old_action[NCRASH];
    int installed;
    ludus__crash_writer writer_fn;
    uint32_t wait_ms;
    long writing_tid; /* atomic: the thread whose crash is written (0: none yet) */
    int written;      /* atomic: that write is over */
    /* The writer's stack, reserved at install: the crashing thread may be on
     * its small alternate stack (a stack overflow), and the copy of the
     * process starts on whatever stack the crashing thread was on. */
    char *child_stack;
} linux_crash_state;
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
    ludus__crash_writer fn = linux_crash_state.writer_fn;
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
    long child = linux_crash_state.child_stack
                     ? clone(child_main, linux_crash_state.child_stack + CHILD_STACK, SIGCHLD, &arg)
                     : -1;
    if (child < 0) {
        static const char msg[] = "ludus: crash: no capture written (fork failed)\n";
        ludus__crash_say(msg, sizeof msg - 1);
        return;
    }
    for (uint32_t waited = 0;; waited++) {
        int status;
        long r = waitpid((pid_t)child, &status, WNOHANG);
        if (r == child || (r < 0 && errno != EINTR)) return; /* over (or reaped by SA_NOCLDWAIT) */
        if (waited >= linux_crash_state.wait_ms) break;
        nap_ms(1);
    }
    kill((pid_t)child, SIGKILL);
    waitpid((pid_t)child, NULL, 0);
    static const char msg[] = "ludus: crash: writing the capture took too long; it was stopped\n";
    ludus__crash_say(msg, sizeof msg - 1);
}

static size_t crash_index(int signo) {
    size_t i = 0;
    while (i < NCRASH && crash_signo[i] != signo) i++;
    return i;
}

static int is_ours(const struct sigaction *a) {
    return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == on_crash;
}

/* Runs the handler the program had for signal i before ours, as the kernel
 * would have (its mask added to the mask of the signal's arrival, a
 * one-shot handler spent); 0 when it had none (the default action, or
 * ignored: a fault that is ignored kills all the same). */
static int call_prior(size_t i, int signo, siginfo_t *info, void *uc) {
    struct sigaction prior = linux_crash_state.old_action[i];
    void (*h)(int) = prior.sa_handler;
    if (h == SIG_DFL || h == SIG_IGN) return 0; /* the union's values, whatever the flags */
    sigset_t mask = ((const ucontext_t *)uc)->uc_sigmask, ours;
    for (int k = 1; k < NSIG; k++)
        if (sigismember(&prior.sa_mask, k) == 1) sigaddset(&mask, k);
    if (!(prior.sa_flags & SA_NODEFER)) sigaddset(&mask, signo);
    if (prior.sa_flags & SA_RESETHAND) { /* the kernel would have reset it before the call */
        memset(&linux_crash_state.old_action[i], 0, sizeof linux_crash_state.old_action[i]);
        linux_crash_state.old_action[i].sa_handler = SIG_DFL;
    }
    sigprocmask(SIG_SETMASK, &mask, &ours);
    if (prior.sa_flags & SA_SIGINFO)
        prior.sa_sigaction(signo, info, uc);
    else
        h(signo);
    sigprocmask(SIG_SETMASK, &ours, NULL);
    return 1;
}

static void on_crash(int signo, siginfo_t *info, void *uc) {
    int saved_errno = errno;
    size_t i = crash_index(signo);
    int fault = info->si_code > 0 && signo != SIGABRT; /* the kernel's, at an instruction (not sent, not abort) */
    int theirs = 0;                                    /* the program's handler put another action in place */
    /* A handler the program installed before ours runs first: a guard page
     * or a GC's write barrier is a fault it fixes and returns from (the
     * instruction then runs again), a signal it was sent is its business.
     * Neither is a crash: nothing is written, and crash capture stays. A
     * fault whose handler put another action in place (SIG_DFL: it means
     * to die of it) is a crash, written before that action runs. abort()
     * is always one: written first (glibc's abort puts SIG_DFL back and
     * raises again once the handler returns). */
    if (i < NCRASH && signo != SIGABRT && call_prior(i, signo, info, uc)) {
        struct sigaction cur;
        if (!fault || (sigaction(signo, NULL, &cur) == 0 && is_ours(&cur))) {
            errno = saved_errno;
            return;
        }
        theirs = 1;
    }
    long tid = syscall(SYS_gettid);
    long none = 0;
    if (__atomic_compare_exchange_n(&linux_crash_state.writing_tid, &none, tid, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        write_in_child(signo, tid);
        __atomic_store_n(&linux_crash_state.written, 1, __ATOMIC_RELEASE);
    } else if (none != tid) { /* another thread's crash is being written: the process dies after it */
        for (uint32_t k = 0;
             k < linux_crash_state.wait_ms + 1000 && !__atomic_load_n(&linux_crash_state.written, __ATOMIC_ACQUIRE);
             k++)
            nap_ms(1);
    }
    /* The crash goes on under the action the program had (or has put in
     * place): a fault runs its instruction again when this returns; a
     * signal that was sent (abort, raise, kill) is sent again, pending
     * until this returns. */
    if (!theirs && i < NCRASH) sigaction(signo, &linux_crash_state.old_action[i], NULL);
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
    linux_crash_state.writer_fn = writer;
    linux_crash_state.wait_ms = timeout_ms;
    if (linux_crash_state.installed) return 0;
    if (!linux_crash_state.child_stack) {
        void *s = mmap(NULL, CHILD_STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (s == MAP_FAILED) return -1;
        linux_crash_state.child_stack = s;
    }
    ludus__crash_thread_setup();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_crash;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NCRASH; i++) sigaddset(&sa.sa_mask, crash_signo[i]);
    for (size_t i = 0; i < NCRASH; i++) {
        if (sigaction(crash_signo[i], &sa, &linux_crash_state.old_action[i]) != 0) {
            while (i-- > 0) sigaction(crash_signo[i], &linux_crash_state.old_action[i], NULL);
            return -1;
        }
    }
    linux_crash_state.installed = 1;
    return 0;
}

void ludus__crash_uninstall(void) {
    if (!linux_crash_state.installed) return;
    for (size_t i = 0; i < NCRASH; i++) sigaction(crash_signo[i], &linux_crash_state.old_action[i], NULL);
    linux_crash_state.installed = 0;
    linux_crash_state.writer_fn = NULL;
}

#undef X_CRASH_SIGNALS /* file-local (the single file pastes the sources together) */
