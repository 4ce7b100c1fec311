/* crash.h on Windows: an unhandled-exception filter (SetUnhandledExceptionFilter)
 * and a SIGABRT handler (abort, a failed assert). The capture is written
 * in the process, by a thread started for it: the crashed thread may have
 * no stack left (EXCEPTION_STACK_OVERFLOW), and the process's other
 * threads go on meanwhile (the capture ends as any capture does, not
 * waiting for them). Then the exception goes to the filter the program
 * had, or to the system; abort goes on with the CRT's default action.
 * A thread that crashes while another's capture is written waits for
 * that write to be over (an event, not a timer of its own), as the POSIX
 * handler does, so that its exception cannot end the process mid-write. */
#include "crash.h"

#include <io.h>
#include <signal.h>
#include <windows.h>

#define X_CRASH_SIGNALS(X) X(SIGSEGV) X(SIGFPE) X(SIGILL) X(SIGABRT)

static ludus__crash_writer writer_fn;
static uint32_t wait_ms;
static int installed;
static LPTOP_LEVEL_EXCEPTION_FILTER old_filter;
static void (*old_abort)(int);
static volatile LONG writing;        /* the id of the thread whose crash is written (0: none yet) */
static volatile LONG writer_tid;     /* the id of the thread that writes it */
static HANDLE written;               /* manual-reset event, made at install: set when that write is over */
void (*ludus__crash_hook)(int step); /* crash.h: the tests' seam */

const char *ludus__crash_signal_name(int signo) {
#define X_NAME(s) \
    if (signo == s) return #s;
    X_CRASH_SIGNALS(X_NAME)
#undef X_NAME
    return "signal";
}

void ludus__crash_say(const char *text, size_t n) {
    _write(2, text, (unsigned)n);
}

typedef struct crash_job {
    int signo;
    uint64_t tid;
    int64_t at_ns;
} crash_job;

static DWORD WINAPI win32_crash_writer_main(LPVOID p) {
    crash_job *j = p;
    InterlockedExchange(&writer_tid, (LONG)GetCurrentThreadId());
    if (ludus__crash_hook) ludus__crash_hook(LUDUS__CRASH_HOOK_WRITE);
    ludus__crash_writer fn = writer_fn;
    if (fn) fn(j->signo, j->tid, j->at_ns, 0);
    return 0;
}

static void write_claimed(crash_job *j) {
    HANDLE t = CreateThread(NULL, (SIZE_T)1 << 20, win32_crash_writer_main, j, 0, NULL);
    if (!t) {
        static const char msg[] = "ludus: crash: no capture written (no thread to write it)\n";
        ludus__crash_say(msg, sizeof msg - 1);
        return;
    }
    if (WaitForSingleObject(t, wait_ms) != WAIT_OBJECT_0) {
        static const char msg[] = "ludus: crash: writing the capture took too long; the process goes on dying\n";
        ludus__crash_say(msg, sizeof msg - 1);
    }
    CloseHandle(t);
}

/* Writes once. The first crashing thread claims the write; a second one
 * waits until it is over (written: set on every path once claimed, after
 * a wait bounded by the timeout), then goes on to the program's filter or
 * the system, which ends the process with the file whole. The claiming
 * thread crashing again inside its filter, or the writer thread crashing,
 * would wait for itself: they go on at once, ending the process unwritten. */
static void win32_write_capture(int signo) {
    DWORD me = GetCurrentThreadId();
    crash_job j = {signo, me, ludus__mono_ns()};
    LONG first = InterlockedCompareExchange(&writing, (LONG)me, 0);
    if (first != 0) {
        if (first == (LONG)me || writer_tid == (LONG)me) return;
        if (ludus__crash_hook) ludus__crash_hook(LUDUS__CRASH_HOOK_SECOND);
        if (written) WaitForSingleObject(written, INFINITE);
        return;
    }
    if (ludus__crash_hook) ludus__crash_hook(LUDUS__CRASH_HOOK_CLAIMED);
    write_claimed(&j);
    if (written) SetEvent(written);
}

static int signal_of(DWORD code) {
    switch (code) {
    case EXCEPTION_INT_DIVIDE_BY_ZERO:
    case EXCEPTION_INT_OVERFLOW:
    case EXCEPTION_FLT_DIVIDE_BY_ZERO:
    case EXCEPTION_FLT_INVALID_OPERATION:
    case EXCEPTION_FLT_OVERFLOW:
    case EXCEPTION_FLT_UNDERFLOW:
    case EXCEPTION_FLT_INEXACT_RESULT:
        return SIGFPE;
    case EXCEPTION_ILLEGAL_INSTRUCTION:
    case EXCEPTION_PRIV_INSTRUCTION:
        return SIGILL;
    default: /* access violation, stack overflow, in-page error and the rest */
        return SIGSEGV;
    }
}

static LONG WINAPI on_exception(EXCEPTION_POINTERS *ep) {
    win32_write_capture(signal_of(ep->ExceptionRecord->ExceptionCode));
    return old_filter ? old_filter(ep) : EXCEPTION_CONTINUE_SEARCH;
}

static void on_abort(int signo) {
    win32_write_capture(signo);
    signal(SIGABRT, old_abort == SIG_ERR ? SIG_DFL : old_abort);
    raise(SIGABRT);
}

int ludus__crash_install(ludus__crash_writer writer, uint32_t timeout_ms) {
    writer_fn = writer;
    wait_ms = timeout_ms;
    if (installed) return 0;
    if (!written) written = CreateEventW(NULL, TRUE, FALSE, NULL); /* kept for the process's life */
    if (!written) return -1;
    old_filter = SetUnhandledExceptionFilter(on_exception);
    old_abort = signal(SIGABRT, on_abort);
    installed = 1;
    return 0;
}

void ludus__crash_uninstall(void) {
    if (!installed) return;
    SetUnhandledExceptionFilter(old_filter);
    signal(SIGABRT, old_abort == SIG_ERR ? SIG_DFL : old_abort);
    installed = 0;
    writer_fn = NULL;
}

/* Windows runs the filter on the crashed thread, or, for a stack overflow,
 * with the guard page's margin; the writer has a thread of its own. */
void ludus__crash_thread_setup(void) {}
