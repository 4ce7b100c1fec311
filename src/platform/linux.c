/* The Linux-only parts of platform.h: membarrier, the thread id, the
 * process name (the POSIX ones: posix.c; the CPU's counter: cpu_*.c). */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's membarrier commands (its ABI) where a C library comes
 * without the kernel's headers (musl-gcc). */
#if !defined(__has_include) || __has_include(<linux/membarrier.h>)
#include <linux/membarrier.h>
#else
#define MEMBARRIER_CMD_QUERY 0
#define MEMBARRIER_CMD_PRIVATE_EXPEDITED (1 << 3)
#define MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED (1 << 4)
#endif

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

void ludus__process_name(char *out, size_t cap) {
    FILE *f = fopen("/proc/self/comm", "r");
    out[0] = 0;
    if (f) {
        if (fgets(out, (int)cap, f)) out[strcspn(out, "\n")] = 0;
        fclose(f);
    }
    if (!out[0]) snprintf(out, cap, "process %d", (int)getpid());
}
