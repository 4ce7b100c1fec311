/* The CPU's counter elsewhere (platform.h): none the inline path can read,
 * so "tsc" falls back to the monotonic clock and every event is a call. */
#include "platform.h"

#if !defined(__x86_64__) && !defined(__aarch64__)
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
void ludus__cpu_relax(void) {}
#else
typedef int ludus__cpu_other_not_this_cpu; /* an empty file is not ISO C */
#endif
