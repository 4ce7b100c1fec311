/* The rest of the timeline, in one run, each operation against a scope (a
 * begin and an end: two clock reads) measured alternately in the same run:
 *   - LUDUS_PROFILE_MESSAGE with a literal (nothing formatted or copied);
 *   - ludus_log_text with a 64-byte text (copied into the thread's buffer);
 *   - ludus_log with a format ("frame %d took %.2f ms, %s") formatted by
 *     vsnprintf on the calling thread, and LUDUS_PROFILE_LOG with the same
 *     format and arguments, packed now and formatted when read;
 *   - an async zone: ludus_async_begin + ludus_async_end;
 *   - a fiber switch pair: ludus_fiber_enter + ludus_fiber_leave (the name
 *     interned once, then looked up);
 * recording into a pool that holds every event (no drops), and idle (no
 * capture: one load and a branch each). Median of --runs runs.
 *   bench_timeline [--runs N] [--ops N]
 *   bench_timeline --callgrind N idle|recording scope|message|log_text|log|log_deferred|async|fiber|empty
 *       (for bench/callgrind.sh: N operations in run_<fn>) */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <string.h>

#include "bench_common.h"

static uint32_t track, zone;
static const char text64[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

__attribute__((noinline)) static void run_empty(int64_t n) {
    for (int64_t i = 0; i < n; i++) __asm__ __volatile__("" ::: "memory");
}
__attribute__((noinline)) static void run_scope(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Scope);
    }
}
__attribute__((noinline)) static void run_message(int64_t n) {
    for (int64_t i = 0; i < n; i++) LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "a literal warning");
}
__attribute__((noinline)) static void run_log_text(int64_t n) {
    for (int64_t i = 0; i < n; i++) ludus_log_text(LUDUS_LOG_INFO, text64, 64);
}
__attribute__((noinline)) static void run_log(int64_t n) {
    for (int64_t i = 0; i < n; i++) ludus_log(LUDUS_LOG_WARNING, "frame %d took %.2f ms, %s", (int)i, 16.25, "stall");
}
__attribute__((noinline)) static void run_log_deferred(int64_t n) {
    for (int64_t i = 0; i < n; i++)
        LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, "frame %d took %.2f ms, %s", (int)i, 16.25, "stall");
}
__attribute__((noinline)) static void run_async(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        ludus_async_begin(track, (uint64_t)i, zone);
        ludus_async_end(track, (uint64_t)i);
    }
}
__attribute__((noinline)) static void run_fiber(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        ludus_fiber_enter("fiber");
        ludus_fiber_leave();
    }
}

static const struct {
    const char *key, *name;
    void (*fn)(int64_t);
} ops_table[] = {
    {"scope", "scope (begin + end)", run_scope},
    {"message", "LUDUS_PROFILE_MESSAGE literal", run_message},
    {"log_text", "ludus_log_text, 64 bytes", run_log_text},
    {"log", "ludus_log, formatted", run_log},
    {"log_deferred", "LUDUS_PROFILE_LOG, deferred", run_log_deferred},
    {"async", "async begin + end", run_async},
    {"fiber", "fiber enter + leave", run_fiber},
};
#define NOPS (sizeof ops_table / sizeof ops_table[0])

static int begin(void) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 4096; /* 256 MiB: every event of a run */
    return ludus_capture_begin(&d);
}

static int callgrind_main(int64_t n, const char *mode, const char *fn) {
    if (!strcmp(mode, "recording") && begin() != 0) return 1;
    if (!strcmp(fn, "empty")) run_empty(n);
    for (size_t k = 0; k < NOPS; k++)
        if (!strcmp(fn, ops_table[k].key)) ops_table[k].fn(n);
    if (ludus_capture_active()) ludus_capture_end(NULL);
    return 0;
}

int main(int argc, char **argv) {
    int runs = 5;
    int64_t ops = 1000000;
    track = ludus_async_track("Bench");
    zone = ludus_site_intern("Zone");
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--callgrind") && i + 3 < argc)
            return callgrind_main(atoll(argv[i + 1]), argv[i + 2], argv[i + 3]);
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = atoll(argv[++i]);
    }
    if (runs < 1 || runs > 64 || ops < 1000 || ops > 2000000) {
        fprintf(stderr, "usage: bench_timeline [--runs 1..64] [--ops 1000..2000000]\n");
        return 1;
    }
    double tsc = bench_two_tsc_ns(10000000);
    printf("timeline events: %lld operations per measurement, median of %d runs; two TSC reads: %.2f ns\n",
           (long long)ops, runs, tsc);
    printf("%-32s %10s %10s %10s %12s %8s\n", "operation", "idle ns", "ns", "x 2 TSC", "x scope", "dropped");
    for (size_t k = 0; k < NOPS; k++) {
        double idle[64], rec[64], sc[64];
        uint64_t dropped = 0;
        for (int r = 0; r < runs; r++) {
            idle[r] = bench_ns_per(ops_table[k].fn, ops);
            if (begin() != 0) return 1;
            sc[r] = bench_ns_per(run_scope, ops);
            rec[r] = bench_ns_per(ops_table[k].fn, ops);
            ludus_capture_end(NULL);
            ludus_capture_summary s;
            if (bench_last_summary(&s) == 0) dropped += s.dropped;
        }
        double mi = bench_median(idle, runs), mr = bench_median(rec, runs), ms = bench_median(sc, runs);
        printf("%-32s %10.2f %10.2f %10.2f %12.2f %8llu\n", ops_table[k].name, mi, mr, tsc > 0 ? mr / tsc : 0, mr / ms,
               (unsigned long long)dropped);
    }
    printf("(x scope: over a scope measured in the same capture, run after run; dropped: events lost, must be 0)\n");
    return 0;
}
