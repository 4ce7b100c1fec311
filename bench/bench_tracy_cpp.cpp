/* Tracy's own C++ zone, for bench_tracy.c: the same loop as run_ludus with
 * ZoneScopedN (a static source location, RAII end). */
#include <tracy/Tracy.hpp>

extern "C" __attribute__((noinline)) void run_tracy_cpp(int n) {
    for (int i = 0; i < n; i++) {
        ZoneScopedN("ZoneScoped");
        __asm__ __volatile__("");
    }
}
