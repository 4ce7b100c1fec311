/* Header hygiene, for projects with strict warnings (Lua builds with some of
 * these): every public header and every macro, compiled with -Wall -Wextra
 * -Wpedantic -Wdeclaration-after-statement -Wredundant-decls -Wshadow
 * -Wconversion -Wsign-conversion -Werror as C99 and C11 (GCC and Clang) and
 * as C++11 to C++20. Declaring macros come first in their blocks, as C90
 * style code would place them. Run as a program it also checks that
 * LUDUS_PROFILE_PLOT keeps a double a double in C99 (no _Generic there). */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <stdio.h>

static int work(int n) {
    LUDUS_PROFILE_FUNCTION();
    LUDUS_PROFILE_SCOPE(Scope);
    LUDUS_PROFILE_SCOPE(ScopeCat, category);
    LUDUS_PROFILE_SCOPE_FINE(Fine);
    LUDUS_PROFILE_SCOPE_DYN("dynamic");
    LUDUS_PROFILE_LOCK_WAIT(Lock);
    LUDUS_PROFILE_COUNT(Count, n);
    LUDUS_PROFILE_GAUGE(Gauge, n);
    LUDUS_PROFILE_PLOT(PlotInt, n);
    LUDUS_PROFILE_PLOT(PlotDouble, 0.5);
    LUDUS_PROFILE_MARK(Mark);
    LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "message");
    LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, "deferred %d", n);
    LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "deferred, no arguments");
    LUDUS_PROFILE_ASYNC_BEGIN(Loading, n, Zone);
    LUDUS_PROFILE_ASYNC_END(Loading, n);
    LUDUS_PROFILE_BEGIN(Span);
    LUDUS_PROFILE_END();
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Flow));
    LUDUS_PROFILE_FRAME();
    return n + 1;
}

int main(void) {
    ludus_analysis *a = NULL;
    ludus_capture *c = NULL;
    int64_t k;
    if (ludus_capture_begin(NULL) != 0) return 1;
    (void)work(1);
    if (ludus_capture_end(&c) != 0 || ludus_analysis_create(c, NULL, &a) != 0) return 1;
    ludus_capture_release(c); /* the analysis keeps what it needs */
#if LUDUS_PROFILE_LEVEL > 0
    k = ludus_analysis_find_counter(a, "PlotDouble", "samples");
    if (k < 0 || ludus_analysis_counter(a, LUDUS__CAST(uint32_t, k))->max != 0.5) {
        fprintf(stderr, "LUDUS_PROFILE_PLOT of 0.5 did not record 0.5\n");
        return 1;
    }
#else
    k = 0;
    (void)k;
#endif
    ludus_analysis_destroy(a);
    printf("ok\n");
    return 0;
}
