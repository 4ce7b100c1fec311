/* sched_yield for the unit tests in the MSVC-ABI build (check_msvc.sh):
 * MSVC's runtime has no <sched.h>. Never part of the library. */
#ifndef LUDUS_MSVC_SCHED_H
#define LUDUS_MSVC_SCHED_H
#include <windows.h>
static inline int sched_yield(void) {
    SwitchToThread();
    return 0;
}
#endif
