/* Every public header as MSVC compiles it (header_msvc.sh: clang in MSVC
 * mode without __clang__, GNU extensions poisoned), as C17 and as C++17/20
 * at LUDUS_PROFILE_LEVEL 0, 1 and 2. C++ takes every macro (header_all.c);
 * C every macro but the lexical scopes, which MSVC's C compiler cannot close
 * (LUDUS_ZONE_BEGIN/END instead: header_msvc.sh checks that a C scope says
 * so). <ludus/vulkan.h> needs the Vulkan SDK's headers: not here. Compile
 * only. */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/live.h>
#include <ludus/locks.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>

#ifdef __cplusplus
#include "header_all.c"
#else
static int c_macros(int n, const char *dyn_name, ludus_zone *kept) {
    int sum = 0;
    uint64_t flow;
    uintptr_t wait;
#if LUDUS_PROFILE_LEVEL == 0 /* nothing to close: they compile to declarations */
    LUDUS_PROFILE_SCOPE(Scope);
    LUDUS_PROFILE_FUNCTION();
    LUDUS_PROFILE_SCOPE_DYN(dyn_name);
    LUDUS_PROFILE_LOCK_WAIT(Lock);
#endif
#if LUDUS_PROFILE_LEVEL < 2
    LUDUS_PROFILE_SCOPE_FINE(Fine); /* compiled out below level 2 */
#endif
    LUDUS_ZONE_BEGIN(zone, Zone);
    LUDUS_ZONE_BEGIN(zone_cat, "Zone literal", category);
    LUDUS_ZONE_BEGIN_INTO(*kept, KeptZone);
    LUDUS_PROFILE_BEGIN(Span);
    for (int i = 0; i < n; i++) {
        LUDUS_ZONE_BEGIN(loop, Loop);
        sum += i;
        LUDUS_PROFILE_MARK(Mark);
        LUDUS_ZONE_END(loop);
    }
    flow = LUDUS_PROFILE_FLOW_OUT(Dispatch);
    LUDUS_PROFILE_FLOW_IN(flow);
    LUDUS_PROFILE_COUNT(Count, n);
    LUDUS_PROFILE_GAUGE(Gauge, n);
    LUDUS_PROFILE_PLOT(PlotInt, n);
    LUDUS_PROFILE_PLOT(PlotDouble, 0.5 * n);
    LUDUS_PROFILE_MESSAGE(LUDUS_LOG_INFO, "fixed text");
    LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, "n=%d %s", n, dyn_name);
    LUDUS_PROFILE_ASYNC_BEGIN(Loading, n, "Load chunk");
    LUDUS_PROFILE_ASYNC_END(Loading, n);
    LUDUS_PROFILE_ANNOTATE(Int, n);
    LUDUS_PROFILE_ANNOTATE(Unsigned, (unsigned)n);
    LUDUS_PROFILE_ANNOTATE(Double, 0.25);
    LUDUS_PROFILE_ANNOTATE_TEXT(Text, dyn_name);
    wait = ludus_lock_wait_begin(kept, NULL);
    ludus_lock_wait_end(wait);
    if (n > 1)
        LUDUS_ZONE_END(zone);
    else
        LUDUS_PROFILE_FRAME();
    LUDUS_PROFILE_END();
    LUDUS_ZONE_END(zone_cat);
    LUDUS_ZONE_END(*kept);
    return sum;
}

int main(int argc, char **argv) {
    ludus_zone kept;
    (void)argv;
    return c_macros(argc, "dynamic", &kept);
}
#endif
