/* Compiles as C11 and as C++11 (-x c++) at LUDUS_PROFILE_LEVEL 0, 1 and 2
 * with -Wall -Wextra -Wpedantic -Werror -Wconversion -Wsign-conversion
 * -Wshadow (+ -Wstrict-prototypes for C): every macro, every spelling, the
 * integration and control APIs, and the hygiene of statement macros inside
 * `if (x) MACRO(...); else ...` (each must be a single statement that takes
 * its semicolon). Never run: compile-only. */
#include <ludus/capture.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>

struct job {
    uint32_t site;
    uint64_t flow;
};

static int leaf(int x) {
    LUDUS_PROFILE_FUNCTION();
    LUDUS_PROFILE_SCOPE_FINE(Fine);
    LUDUS_PROFILE_SCOPE_FINE(FineCat, detail);
    return x + 1;
}

static int all_macros(int n, const char *dyn_name) {
    LUDUS_PROFILE_FUNCTION();
    (void)dyn_name; /* at level 0 the macros never mention their arguments */
    int sum = 0;
    LUDUS_PROFILE_BEGIN(Span);
    LUDUS_ZONE_BEGIN(zone, Zone);
    LUDUS_ZONE_BEGIN(zone_cat, "Zone literal", category);
    ludus_zone kept;
    LUDUS_ZONE_BEGIN_INTO(kept, KeptZone);
    LUDUS_ZONE_BEGIN_INTO(kept, KeptZoneCat, category);
    for (int i = 0; i < n; i++) {
        /* clang-format off */
        LUDUS_ZONE_BEGIN(a, OneLineA); LUDUS_ZONE_BEGIN(b, OneLineB); LUDUS_ZONE_END(b); LUDUS_ZONE_END(a);
        /* clang-format on */
        LUDUS_PROFILE_SCOPE(Loop);
        LUDUS_PROFILE_SCOPE(LoopCat, category);
        LUDUS_PROFILE_SCOPE("Literal name", "literal category");
        LUDUS_PROFILE_SCOPE_DYN(dyn_name);
        sum += leaf(i);
        LUDUS_PROFILE_MARK(Mark);
        LUDUS_PROFILE_MARK("Mark literal");
    }
    {
        LUDUS_PROFILE_SCOPE(Nested);
        { LUDUS_PROFILE_SCOPE(Nested2); /* another line: no shadowing */ }
        /* clang-format off */
        LUDUS_PROFILE_SCOPE(OneLine1); LUDUS_PROFILE_SCOPE(OneLine2, cat); LUDUS_PROFILE_SCOPE_DYN(dyn_name);
        LUDUS_PROFILE_LOCK_WAIT(Lock1); LUDUS_PROFILE_FUNCTION(); LUDUS_PROFILE_SCOPE_FINE(Fine1);
        /* clang-format on */
    }
    LUDUS_ZONE_END(kept);
    LUDUS_ZONE_END(zone_cat);
    LUDUS_ZONE_END(zone);
    LUDUS_PROFILE_END();
    struct job j = {0u, LUDUS_PROFILE_FLOW_OUT(Dispatch)};
    LUDUS_PROFILE_FLOW_IN(j.flow);
    LUDUS_PROFILE_COUNT(Count, n);
    LUDUS_PROFILE_COUNT("Count literal", 1u);
    LUDUS_PROFILE_GAUGE(Gauge, sum);
    LUDUS_PROFILE_GAUGE(GaugeU64, LUDUS__CAST(uint64_t, n));
    LUDUS_PROFILE_PLOT(PlotInt, sum);
    LUDUS_PROFILE_PLOT(PlotFloat, 0.5f);
    LUDUS_PROFILE_PLOT(PlotDouble, 0.25);
    LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "a literal message");
    LUDUS_PROFILE_MESSAGE(LUDUS_LOG_INFO, TokenMessage);
    LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, "deferred %d %s", n, "text");
    LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "deferred without arguments");
    LUDUS_PROFILE_ASYNC_BEGIN(Loading, LUDUS__CAST(uint64_t, n), "Load chunk");
    LUDUS_PROFILE_ASYNC_END(Loading, n);
    LUDUS_PROFILE_ANNOTATE(Int, n);
    LUDUS_PROFILE_ANNOTATE(Unsigned, LUDUS__CAST(unsigned long long, n));
    LUDUS_PROFILE_ANNOTATE(Float, 0.5f);
    LUDUS_PROFILE_ANNOTATE(Double, 0.25);
    LUDUS_PROFILE_ANNOTATE(Bool, n > 1);
    LUDUS_PROFILE_ANNOTATE("Literal key", LUDUS__CAST(char, 'c'));
    LUDUS_PROFILE_ANNOTATE_TEXT(Text, "a text");
    LUDUS_PROFILE_LOCK_WAIT(MyLock);
    ludus_log(LUDUS_LOG_ERROR, "%d %s", n, "formatted");
    ludus_log_text(LUDUS_LOG_DEBUG, "text", 4);
    ludus_async_begin(ludus_async_track("Track"), 1u, ludus_site_intern("Zone"));
    ludus_async_end(1u, 1u);
    ludus_fiber_enter("Fiber");
    ludus_fiber_leave();
    LUDUS_PROFILE_FRAME();
    return sum + LUDUS__CAST(int, j.site);
}

/* Hygiene: each statement macro as the body of an if with an else. */
static void hygiene(int x, uint64_t id) {
    (void)id;
    if (x)
        LUDUS_PROFILE_FRAME();
    else
        LUDUS_PROFILE_MARK(Else);
    if (x)
        LUDUS_PROFILE_MARK(Then);
    else
        LUDUS_PROFILE_FRAME();
    if (x)
        LUDUS_PROFILE_BEGIN(Then);
    else
        LUDUS_PROFILE_END();
    if (x)
        LUDUS_PROFILE_END();
    else
        LUDUS_PROFILE_BEGIN(Else);
    if (x)
        LUDUS_PROFILE_FLOW_IN(id);
    else
        LUDUS_PROFILE_FLOW_IN(id + 1u);
    if (x)
        (void)LUDUS_PROFILE_FLOW_OUT(Then);
    else
        (void)LUDUS_PROFILE_FLOW_OUT(Else);
    if (x)
        ludus_span_begin(1u);
    else
        ludus_span_end();
    if (x)
        LUDUS_PROFILE_COUNT(Then, 1);
    else
        LUDUS_PROFILE_GAUGE(Else, 2);
    if (x)
        LUDUS_PROFILE_PLOT(Then, 1);
    else
        LUDUS_PROFILE_PLOT(Else, 2.0);
    if (x)
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_INFO, "then");
    else
        LUDUS_PROFILE_ASYNC_BEGIN(Track, 1, Else);
    if (x)
        LUDUS_PROFILE_ASYNC_END(Track, 1);
    else
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_ERROR, Else);
    if (x)
        LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "then %d", x);
    else
        LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "else");
    if (x)
        LUDUS_PROFILE_ANNOTATE(Then, 1);
    else
        LUDUS_PROFILE_ANNOTATE_TEXT(Else, "else");
    if (x)
        LUDUS_PROFILE_MARK(A);
    else if (x > 1)
        LUDUS_PROFILE_MARK(B);
    else
        LUDUS_PROFILE_FRAME();
    for (int i = 0; i < x; i++) LUDUS_PROFILE_MARK(LoopBody);
    while (x-- > 0) LUDUS_PROFILE_FRAME();
    switch (x) {
    case 0:
        LUDUS_PROFILE_MARK(Case0);
        break;
    default:
        LUDUS_PROFILE_FRAME();
        break;
    }
}

static void integration(void) {
    ludus_site_desc d = {"job", "jobs", "file.c", 1u};
    uint32_t site = ludus_site_register(&d);
    uint32_t name = ludus_site_intern("name");
    ludus_span_begin(site);
    ludus_flow_begin(name, LUDUS_CALLER_FLOW_ID_BIT | 1u);
    ludus_flow_end(LUDUS_CALLER_FLOW_ID_BIT | 1u);
    ludus_counter_sample(site, -1);
    ludus_counter_sample_f64(site, 0.5);
    ludus_span_end();
}

int main(void) {
    ludus_capture_desc desc = {4096u,
                               4u,
                               "jobs",
                               LUDUS_CLOCK_MONOTONIC,
                               LUDUS_JOIN_FENCE,
                               {NULL, NULL, NULL},
                               NULL,
                               0u,
                               LUDUS_PREFAULT_AT_BEGIN,
                               NULL};
    if (ludus_capture_begin(&desc) != 0) return 1;
    ludus_thread_register("main");
    int r = all_macros(3, "dynamic");
    hygiene(r, 7u);
    integration();
    ludus_thread_unregister();
    ludus_capture *c = NULL;
    if (ludus_capture_end(&c) != 0) return 1;
    ludus_capture_summary s;
    if (ludus_capture_get_summary(c, &s) != 0) return 1;
#if LUDUS_PROFILE_LEVEL == 0 /* the macros and the API calls (integration()) are compiled out: nothing recorded */
    int saved = s.events == 0;
#else
    int saved = s.events > 0 && ludus_capture_save(c, LUDUS_FORMAT_JSON, 0, "/dev/null") == 0;
#endif
    ludus_capture_release(c);
    return saved && ludus_capture_active() == 0 ? 0 : 1;
}
