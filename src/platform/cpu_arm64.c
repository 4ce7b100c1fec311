/* The CPU's counter on AArch64 (platform.h): the generic timer's virtual
 * counter, constant rate (CNTFRQ_EL0, set by the firmware), synchronised
 * across cores, readable from user space. Usable when the firmware gave its
 * frequency. The rate a capture converts with is still measured against the
 * monotonic clock (two calibration points, as for the TSC), so its times
 * agree with the system's clock. */
#include "platform.h"

#if defined(__aarch64__)
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
void ludus__cpu_relax(void) {
    __asm__ __volatile__("yield");
}
#else
typedef int ludus__cpu_arm64_not_this_cpu; /* an empty file is not ISO C */
#endif
