/* Ludus Profiling: tracy::SetThreadName and friends (Tracy's
 * common/TracySystem.hpp) onto Ludus's thread names. */
#ifndef LUDUS_TRACY_COMPAT_SYSTEM_HPP
#define LUDUS_TRACY_COMPAT_SYSTEM_HPP

#include <stdint.h>

#include "../tracy/TracyC.h"

namespace tracy {
#if LUDUS__TC_ON
/* The calling thread's name in every capture (ludus_thread_register). */
inline void SetThreadName(const char *name) {
    (void)ludus_thread_register(name);
}
#else
inline void SetThreadName(const char *name) {
    (void)name;
}
#endif
/* The group hint is Tracy's viewer's: dropped. */
inline void SetThreadNameWithHint(const char *name, int32_t group_hint) {
    (void)group_hint;
    SetThreadName(name);
}
} // namespace tracy

#endif
