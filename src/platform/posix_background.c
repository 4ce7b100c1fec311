/* background.h on POSIX systems (semaphores, sigaction, pthread_atfork). */
#ifndef _POSIX_C_SOURCE /* POSIX alone when asked (the posix_only_* tests) */
#define _GNU_SOURCE     /* else Linux and GNU interfaces, each behind a check; before any system header */
#endif
#include "background.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <signal.h>
#include <string.h>

_Static_assert(sizeof(sem_t) <= sizeof(((ludus__wakeup *)0)->u.bytes), "sem_t fits a wakeup");

int ludus__wakeup_init(ludus__wakeup *w) {
    return sem_init((sem_t *)w->u.bytes, 0, 0) == 0 ? 0 : -1;
}
void ludus__wakeup_destroy(ludus__wakeup *w) {
    sem_destroy((sem_t *)w->u.bytes);
}
void ludus__wakeup_post(ludus__wakeup *w) {
    sem_post((sem_t *)w->u.bytes);
}
void ludus__wakeup_wait(ludus__wakeup *w, int64_t timeout_ns) {
    if (timeout_ns < 0) {
        while (sem_wait((sem_t *)w->u.bytes) != 0 && errno == EINTR) {
        }
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t ns = ts.tv_nsec + timeout_ns;
    ts.tv_sec += (time_t)(ns / 1000000000);
    ts.tv_nsec = (long)(ns % 1000000000);
    while (sem_timedwait((sem_t *)w->u.bytes, &ts) != 0 && errno == EINTR) {
    }
}

int ludus__trigger_signal_default(void) {
    return SIGUSR2;
}
int ludus__trigger_signal_valid(int signo) {
#ifdef NSIG
    return signo >= 1 && signo < NSIG && signo != SIGKILL && signo != SIGSTOP;
#else /* POSIX 2008 has no NSIG: sigaction refuses a number that is no signal */
    struct sigaction sa;
    return signo >= 1 && signo != SIGKILL && signo != SIGSTOP && sigaction(signo, NULL, &sa) == 0;
#endif
}

/* The trigger signal's handler (read by it) and the fork hook. */
static struct {
    int signo;        /* the trigger signal installed, 0: none */
    void (*fn)(void); /* what the handler runs */
    struct sigaction old_action;
    void (*registered)(void); /* the child's fork hook registered */
} background_state;

static void background_on_signal(int signo, siginfo_t *info, void *uc) {
    void (*fn)(void) = background_state.fn;
    if (fn) fn();
    const struct sigaction *o = &background_state.old_action;
    if (o->sa_flags & SA_SIGINFO) {
        if (o->sa_sigaction) o->sa_sigaction(signo, info, uc);
    } else if (o->sa_handler != SIG_DFL && o->sa_handler != SIG_IGN && o->sa_handler) {
        o->sa_handler(signo);
    }
}

int ludus__trigger_signal_install(int signo, void (*fn)(void)) {
    if (background_state.signo || !ludus__trigger_signal_valid(signo)) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = background_on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    background_state.fn = fn;
    if (sigaction(signo, &sa, &background_state.old_action) != 0) {
        background_state.fn = NULL;
        return -1;
    }
    background_state.signo = signo;
    return 0;
}

void ludus__trigger_signal_restore(void) {
    if (!background_state.signo) return;
    sigaction(background_state.signo, &background_state.old_action, NULL);
    background_state.signo = 0;
    background_state.fn = NULL;
}

void ludus__at_fork_child(void (*fn)(void)) {
    if (background_state.registered == fn) return;
    if (pthread_atfork(NULL, NULL, fn) == 0) background_state.registered = fn;
}

void ludus__thread_background(void) {
#ifdef SCHED_IDLE
    struct sched_param sp;
    memset(&sp, 0, sizeof sp);
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp);
#endif
}

int64_t ludus__wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void ludus__local_time(int64_t wall_ns, struct tm *out) {
    time_t secs = (time_t)(wall_ns / 1000000000);
    localtime_r(&secs, out);
}
