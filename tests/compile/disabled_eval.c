/* Argument evaluation, run as a test. Built twice:
 *  - LUDUS_PROFILE_LEVEL 0: no macro evaluates any argument (counters stay 0),
 *    with a capture armed or not;
 *  - LUDUS_PROFILE_LEVEL 1: FLOW_IN evaluates its argument exactly once
 *    (armed or not), SCOPE_DYN evaluates its name exactly once when a
 *    capture is armed (and at most once when not); COUNT and GAUGE evaluate
 *    theirs exactly once (always on), PLOT exactly once when armed (at most
 *    once when not). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdio.h>

static int calls;
static const char *make_name(int *n) {
    (*n)++;
    return "dynamic";
}

static int failures;
#define CHECK(cond)                                                                                                 \
    do {                                                                                                            \
        if (!(cond)) {                                                                                              \
            fprintf(stderr, "%s:%d: level %d: check failed: %s\n", __FILE__, __LINE__, LUDUS_PROFILE_LEVEL, #cond); \
            failures++;                                                                                             \
        }                                                                                                           \
    } while (0)

static void run(int armed) {
    uint64_t counter = 1;
    calls = 0;
    (void)armed;
    (void)make_name; /* unused at level 0: the macros never mention it */
    LUDUS_PROFILE_FLOW_IN(counter++);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(counter == 1);
#else
    CHECK(counter == 2);
#endif
    {
        LUDUS_PROFILE_SCOPE_DYN(make_name(&calls));
#if LUDUS_PROFILE_LEVEL == 0
        CHECK(calls == 0);
#else
        CHECK(armed ? calls == 1 : calls <= 1);
#endif
    }
    int fine = 0;
    LUDUS_PROFILE_SCOPE_FINE(FineName);
    (void)fine;
    int n = 0;
    LUDUS_PROFILE_COUNT(Count, ++n);
    LUDUS_PROFILE_GAUGE(Gauge, ++n);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(n == 0);
#else
    CHECK(n == 2);
#endif
    n = 0;
    LUDUS_PROFILE_PLOT(Plot, ++n);
    LUDUS_PROFILE_PLOT(PlotF, (double)++n);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(n == 0);
#else
    CHECK(armed ? n == 2 : n <= 2);
#endif
    n = 0;
    LUDUS_PROFILE_MESSAGE(++n, "message");
    LUDUS_PROFILE_ASYNC_BEGIN(Track, ++n, Zone);
    LUDUS_PROFILE_ASYNC_END(Track, ++n);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(n == 0);
#else
    CHECK(n == 3);                                /* level and ids: once each, armed or not */
#endif
    n = 0;
    {
        LUDUS_PROFILE_SCOPE(Annotated);
        LUDUS_PROFILE_ANNOTATE(Number, ++n);
        LUDUS_PROFILE_ANNOTATE(Double, (double)++n);
        LUDUS_PROFILE_ANNOTATE(Unsigned, (unsigned)++n);
        LUDUS_PROFILE_ANNOTATE_TEXT(Text, (++n, "text"));
    }
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(n == 0);
#else
    CHECK(armed ? n == 4 : n == 0);               /* evaluated during a capture only */
#endif
    int lv = 0, arg = 0;
    LUDUS_PROFILE_LOG(++lv, "log %d", ++arg);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(lv + arg == 0);
#else
    CHECK(armed ? lv + arg == 2 : lv + arg == 0); /* only during a capture */
#endif
    uint64_t id = LUDUS_PROFILE_FLOW_OUT(Out);
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(id == 0);
#else
    CHECK(armed ? id != 0 : id == 0);
#endif
}

int main(void) {
    run(0);
    if (ludus_begin_capture(NULL) != 0) return 2;
    run(1);
    if (ludus_end_capture() != 0) return 2;
    ludus_capture_summary s;
    if (ludus_capture_get_summary(&s) != 0) return 2;
#if LUDUS_PROFILE_LEVEL == 0
    CHECK(s.events == 0);
#else
    CHECK(s.events > 0);
#endif
    if (failures == 0) printf("ok: level %d\n", LUDUS_PROFILE_LEVEL);
    return failures ? 1 : 0;
}
