/* Linux implementation of platform.h (export files: linux_file.c). */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include "platform.h"
#include "alloc.h"

#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int64_t ludus__mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#if defined(__x86_64__)
#include <cpuid.h>
int ludus__tsc_invariant(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1u; /* CPUID.80000007H:EDX[8] = invariant TSC */
}
uint64_t ludus__counter_hz(void) {
    return 0; /* not architectural: measured against CLOCK_MONOTONIC */
}
uint64_t ludus__read_tsc(void) {
    return __builtin_ia32_rdtsc();
}
uint64_t ludus__read_tsc_ordered(void) {
    __builtin_ia32_lfence(); /* no earlier load may complete after the read */
    return __builtin_ia32_rdtsc();
}
#elif defined(__aarch64__)
/* The generic timer's virtual counter: constant rate (CNTFRQ_EL0, set by
 * the firmware), synchronised across cores, readable from user space on
 * Linux. Usable when the firmware gave its frequency. The rate a capture
 * converts with is still measured against CLOCK_MONOTONIC (two calibration
 * points, as for the TSC), so its times agree with the system's clock. */
uint64_t ludus__counter_hz(void) {
    uint64_t hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    return hz & 0xffffffffu; /* the register's upper half is reserved */
}
int ludus__tsc_invariant(void) {
    return ludus__counter_hz() != 0;
}
uint64_t ludus__read_tsc(void) {
    uint64_t t;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(t));
    return t;
}
uint64_t ludus__read_tsc_ordered(void) {
    uint64_t t;
    /* isb: the read is not taken before the loads program order puts
     * ahead of it (the role of lfence before rdtsc) */
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0" : "=r"(t) : : "memory");
    return t;
}
#else
uint64_t ludus__counter_hz(void) {
    return 0;
}
int ludus__tsc_invariant(void) {
    return 0;
}
uint64_t ludus__read_tsc(void) {
    return (uint64_t)ludus__mono_ns();
}
uint64_t ludus__read_tsc_ordered(void) {
    return (uint64_t)ludus__mono_ns();
}
#endif

ludus__calib_point ludus__calibrate_point(void) {
    ludus__calib_point best = {0, 0, INT64_MAX};
    for (int i = 0; i < 16; i++) {
        int64_t a = ludus__mono_ns();
        uint64_t t = ludus__read_tsc();
        int64_t b = ludus__mono_ns();
        if (b - a < best.window_ns) {
            best.ticks = t;
            best.ns = a + (b - a) / 2;
            best.window_ns = b - a;
        }
    }
    return best;
}

static int membarrier_state; /* 0 unknown, 1 usable, -1 not usable */

int ludus__membarrier_register(void) {
    if (membarrier_state == 0) {
        long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
        if (cmds >= 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
            syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0)
            membarrier_state = 1;
        else
            membarrier_state = -1;
    }
    return membarrier_state == 1;
}

void ludus__membarrier(void) {
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0) abort();
}

uint64_t ludus__os_tid(void) {
    return (uint64_t)syscall(SYS_gettid);
}
int ludus__os_pid(void) {
    return (int)getpid();
}
void ludus__yield(void) {
    sched_yield();
}
void ludus__cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void *ludus__aligned_alloc(size_t size, size_t alignment) {
    void *p = NULL;
    if (posix_memalign(&p, alignment, size) != 0) return NULL;
    return p;
}
void ludus__aligned_free(void *p) {
    ludus__free(p);
}

static pthread_key_t exit_key[LUDUS__EXIT_HOOKS];
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static void (*exit_fn[LUDUS__EXIT_HOOKS])(void *);
static void exit_trampoline0(void *arg) {
    __atomic_load_n(&exit_fn[0], __ATOMIC_ACQUIRE)(arg);
}
static void exit_trampoline1(void *arg) {
    __atomic_load_n(&exit_fn[1], __ATOMIC_ACQUIRE)(arg);
}
static void exit_trampoline2(void *arg) {
    __atomic_load_n(&exit_fn[2], __ATOMIC_ACQUIRE)(arg);
}
static void exit_key_create(void) {
    pthread_key_create(&exit_key[0], exit_trampoline0);
    pthread_key_create(&exit_key[1], exit_trampoline1);
    pthread_key_create(&exit_key[2], exit_trampoline2);
}

int ludus__on_thread_exit(int which, void (*fn)(void *), void *arg) {
    __atomic_store_n(&exit_fn[which], fn, __ATOMIC_RELEASE); /* one hook per user */
    pthread_once(&exit_once, exit_key_create);
    return pthread_setspecific(exit_key[which], arg) == 0 ? 0 : -1;
}

void ludus__process_name(char *out, size_t cap) {
    FILE *f = fopen("/proc/self/comm", "r");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
    if (!out[0]) snprintf(out, cap, "process %d", (int)getpid());
}
