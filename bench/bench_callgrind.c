/* Instructions per scope, for callgrind (bench/callgrind.sh): run_scopes is
 * the function callgrind counts (--toggle-collect); run_zones and run_spans
 * the same nesting as zones with a context and as spans; run_counts, run_gauges
 * and run_memory count a COUNT, a GAUGE in range, and an alloc+free pair.
 * run_tracy_zones is the same pair as Tracy's TracyCZoneN/TracyCZoneEnd through
 * include/tracy-compat (run_tracy_inactive: active 0); run_tracy_memory
 * is TracyCAlloc+TracyCFree (the size kept by pointer).
 *
 *   bench_callgrind PAIRS idle|recording|dropping|flight
 * flight: the flight recorder with a pool an eighth of the scopes' events,
 * so its threads write over their own oldest pieces all along.
 * dropping: the pool is full, so every scope is refused (and counted). */
#include <ludus/capture.h>
#include <ludus/rolling.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <tracy/TracyC.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) void run_scopes(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Inner);
            __asm__ __volatile__("");
        }
    }
}

/* The same two levels as zones with a context (LUDUS_ZONE_BEGIN/END, the
 * form for C engines and begin/end instrumentation) and as spans
 * (LUDUS_PROFILE_BEGIN/END, paired by the recorder's span stack). */
__attribute__((noinline)) void run_zones(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_ZONE_BEGIN(outer, Outer);
        LUDUS_ZONE_BEGIN(inner, Inner);
        __asm__ __volatile__("");
        LUDUS_ZONE_END(inner);
        LUDUS_ZONE_END(outer);
    }
}

__attribute__((noinline)) void run_spans(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_BEGIN(Outer);
        LUDUS_PROFILE_BEGIN(Inner);
        __asm__ __volatile__("");
        LUDUS_PROFILE_END();
        LUDUS_PROFILE_END();
    }
}

__attribute__((noinline)) void run_counts(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_COUNT(Draws, 1);
        __asm__ __volatile__("");
    }
}

__attribute__((noinline)) void run_gauges(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_GAUGE(Level, i & 7);
        __asm__ __volatile__("");
    }
}

static ludus_memory_domain dom;
__attribute__((noinline)) void run_memory(int n) {
    for (int i = 0; i < n; i++) {
        ludus_memory_alloc(dom, 64);
        ludus_memory_free(dom, 64);
        __asm__ __volatile__("");
    }
}

__attribute__((noinline)) void run_tracy_zones(int n) {
    for (int i = 0; i < n; i++) {
        TracyCZoneN(outer, "Outer", 1);
        TracyCZoneN(inner, "Inner", 1);
        __asm__ __volatile__("");
        TracyCZoneEnd(inner);
        TracyCZoneEnd(outer);
    }
}

static volatile int inactive = 0;
__attribute__((noinline)) void run_tracy_inactive(int n) {
    for (int i = 0; i < n; i++) {
        TracyCZoneN(outer, "Outer", inactive);
        TracyCZoneN(inner, "Inner", inactive);
        __asm__ __volatile__("");
        TracyCZoneEnd(inner);
        TracyCZoneEnd(outer);
    }
}

static char blocks[64];
__attribute__((noinline)) void run_tracy_memory(int n) {
    for (int i = 0; i < n; i++) {
        TracyCAlloc(&blocks[i & 63], 64);
        TracyCFree(&blocks[i & 63]);
        __asm__ __volatile__("");
    }
}

/* The same loop without instrumentation: its count is subtracted. */
__attribute__((noinline)) void run_empty(int n) {
    for (int i = 0; i < n; i++) {
        __asm__ __volatile__("");
    }
}

/* Fills the pool (not counted: another function). */
__attribute__((noinline)) static void fill_pool(void) {
    for (int i = 0; i < 100000; i++) {
        LUDUS_PROFILE_SCOPE(Fill);
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_callgrind PAIRS idle|recording|dropping|flight\n");
        return 1;
    }
    int n = atoi(argv[1]);
    int dropping = !strcmp(argv[2], "dropping");
    int flight = !strcmp(argv[2], "flight");
    int recording = dropping || !strcmp(argv[2], "recording");
    ludus_thread_register("main");
    if (flight) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.chunk_count = (uint32_t)((double)n * 4 * 16 / 65536 / 8) + 4;
        ludus_rolling_desc rd;
        memset(&rd, 0, sizeof rd);
        rd.window_ms = 1; /* every piece is wholly before the window once full */
        rd.hitch_factor = LUDUS_ROLLING_NONE;
        rd.signal = LUDUS_ROLLING_NONE;
        if (ludus_rolling_begin(&d, &rd)) return 1;
        run_scopes(1);
    }
    if (recording) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.chunk_count =
            dropping ? 1 : (uint32_t)((double)n * 4 * 4 * 16 / 65536 * 1.1) + 8; /* scopes, zones, spans, Tracy zones */
        if (ludus_capture_begin(&d)) return 1;
        if (dropping) fill_pool();
        run_scopes(1); /* attach outside the counted call */
    }
    dom = ludus_memory_domain_register("Bench");
    run_counts(1); /* first uses: slot, shard, gauge row (not counted) */
    LUDUS_PROFILE_GAUGE(Level, 0);
    LUDUS_PROFILE_GAUGE(Level, 7);
    run_scopes(n);
    run_spans(n);
    run_counts(n);
    run_gauges(n);
    run_memory(n);
    run_zones(n);
    run_tracy_zones(n);
    run_tracy_inactive(n);
    run_tracy_memory(1); /* the domain's registration (not counted) */
    run_tracy_memory(n);
    run_empty(n);
    if (recording) ludus_capture_end(NULL);
    if (flight) ludus_rolling_end();
    return 0;
}
