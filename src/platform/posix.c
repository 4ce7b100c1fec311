/* POSIX implementation of platform.h: the monotonic clock, the process,
 * aligned memory, thread exit hooks (the Linux-only parts: linux.c). */
#ifndef _POSIX_C_SOURCE /* POSIX alone when asked (the posix_only_* tests) */
#define _GNU_SOURCE     /* else Linux and GNU interfaces, each behind a check; before any system header */
#endif
#include "platform.h"
#include "alloc.h"
#include "sync.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/auxv.h>
#endif

int64_t ludus__mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t ludus__thread_cpu_ns(void) {
#ifdef CLOCK_THREAD_CPUTIME_ID
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#else
    return -1;
#endif
}

int ludus__os_pid(void) {
    return (int)getpid();
}
/* 1 in a process the kernel started with added privileges. */
static int privileged(void) {
#ifdef __linux__
    if (getauxval(AT_SECURE)) return 1;
#endif
    return getuid() != geteuid() || getgid() != getegid();
}

const char *ludus__getenv(const char *name) {
    return privileged() ? NULL : getenv(name);
}

uint64_t ludus__phys_bytes(void) {
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;
}

int ludus__thread_start(ludus__thread *t, void *(*fn)(void *), void *arg) {
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* the new thread inherits it */
    int rc = pthread_create(t, NULL, fn, arg);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

unsigned ludus__cpu_count(void) {
#ifdef _SC_NPROCESSORS_ONLN /* not POSIX, but every system we know has it */
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
#else
    return 1u;
#endif
}

void ludus__yield(void) {
    sched_yield();
}

void *ludus__aligned_alloc(size_t size, size_t alignment) {
    void *p = NULL;
    if (posix_memalign(&p, alignment, size) != 0) return NULL;
    return p;
}
void ludus__aligned_free(void *p) {
    ludus__free(p);
}

/* The thread-exit hooks: one key and one function per user. */
static struct {
    pthread_key_t key[LUDUS__EXIT_HOOKS];
    pthread_once_t once;
    void (*fn[LUDUS__EXIT_HOOKS])(void *);
} posix_state = {.once = PTHREAD_ONCE_INIT};
static void exit_trampoline0(void *arg) {
    __atomic_load_n(&posix_state.fn[0], __ATOMIC_ACQUIRE)(arg);
}
static void exit_trampoline1(void *arg) {
    __atomic_load_n(&posix_state.fn[1], __ATOMIC_ACQUIRE)(arg);
}
static void exit_trampoline2(void *arg) {
    __atomic_load_n(&posix_state.fn[2], __ATOMIC_ACQUIRE)(arg);
}
static void exit_key_create(void) {
    pthread_key_create(&posix_state.key[0], exit_trampoline0);
    pthread_key_create(&posix_state.key[1], exit_trampoline1);
    pthread_key_create(&posix_state.key[2], exit_trampoline2);
}

int ludus__on_thread_exit(int which, void (*fn)(void *), void *arg) {
    __atomic_store_n(&posix_state.fn[which], fn, __ATOMIC_RELEASE); /* one hook per user */
    pthread_once(&posix_state.once, exit_key_create);
    return pthread_setspecific(posix_state.key[which], arg) == 0 ? 0 : -1;
}
