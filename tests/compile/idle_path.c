/* One scope around a store: the idle path (no capture) must be a load of
 * ludus__armed, a branch and the body, with no call (idle_path.sh). */
#include <ludus/profiling.h>

void idle_fn(volatile int *p);
void idle_fn(volatile int *p) {
    LUDUS_PROFILE_SCOPE(Idle);
    *p += 1;
}
