/* Fault injection (fault.h): per-thread counters, so a sweep counts only
 * the calls of the operation it drives. */
#include "fault.h"

static __thread struct {
    uint64_t at[LUDUS__FAULT_KINDS], calls[LUDUS__FAULT_KINDS];
    int fired[LUDUS__FAULT_KINDS];
} fault;

void (*ludus__fault_hook)(int kind);

void ludus__fault_set(int kind, uint64_t n) {
    fault.at[kind] = n;
    fault.calls[kind] = 0;
    fault.fired[kind] = 0;
}

uint64_t ludus__fault_calls(int kind) {
    return fault.calls[kind];
}

int ludus__fault_fired(int kind) {
    return fault.fired[kind];
}

int ludus__fault_now(int kind) {
    if (__builtin_expect(fault.at[kind] == 0, 1)) return 0;
    if (++fault.calls[kind] != fault.at[kind]) return 0;
    fault.fired[kind] = 1;
    if (ludus__fault_hook) ludus__fault_hook(kind);
    return 1;
}
