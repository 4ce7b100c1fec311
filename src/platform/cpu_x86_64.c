/* The CPU's counter on x86-64 (platform.h): the invariant TSC, on every OS. */
#include "platform.h"

#if defined(__x86_64__)
#include <cpuid.h>

int ludus__tsc_invariant(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
    __cpuid(0x80000007u, a, b, c, d);
    return (d >> 8) & 1u; /* CPUID.80000007H:EDX[8] = invariant TSC */
}
int ludus__cpu_has_sse42(void) {
    unsigned a, b, c, d;
    return __get_cpuid(1u, &a, &b, &c, &d) && ((c >> 20) & 1u); /* CPUID.01H:ECX[20] */
}
uint64_t ludus__counter_hz(void) {
    return 0; /* not architectural: measured against the monotonic clock */
}
uint64_t ludus__read_tsc(void) {
    return __builtin_ia32_rdtsc();
}
uint64_t ludus__read_tsc_ordered(void) {
    __builtin_ia32_lfence(); /* no earlier load may complete after the read */
    return __builtin_ia32_rdtsc();
}
void ludus__cpu_relax(void) {
    __builtin_ia32_pause();
}
#else
typedef int ludus__cpu_x86_64_not_this_cpu; /* an empty file is not ISO C */
#endif
