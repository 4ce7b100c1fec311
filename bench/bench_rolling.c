/* The flight recorder's cost: ns per scope while it records (its threads
 * writing over their oldest pieces) against an ordinary capture in the
 * same process, both over two TSC reads; the process's CPU time per scope
 * in both (every library thread included); the events lost (none but a
 * full pool's) and those written over inside the window; and the time a
 * snapshot takes its caller, per MB copied. Scopes are written to the
 * pool, not to a file.
 * Each round: 150 ms of scopes in an ordinary capture (its 512 MiB pool
 * holds them: a capture that ran out would measure the cheaper refusals),
 * then the flight recorder on the same pool warmed up for 1 s (every piece
 * written over at least once) and measured for 150 ms.
 *   bench_rolling [ROUNDS] [WINDOW_MS] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

static void scopes(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Bench);
    }
}

static int64_t process_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Scopes for about `ns` of time: ns per scope, and process CPU ns per
 * scope in *cpu. */
static double run_for(int64_t ns, double *cpu) {
    int64_t t0 = bench_now_ns(), c0 = process_cpu_ns(), n = 0;
    while (bench_now_ns() - t0 < ns) {
        scopes(10000);
        n += 10000;
    }
    if (cpu) *cpu = (double)(process_cpu_ns() - c0) / (double)n;
    return (double)(bench_now_ns() - t0) / (double)n;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    int window_ms = argc > 2 ? atoi(argv[2]) : 100;
    if (rounds < 1 || rounds > 100) rounds = 5;
    if (window_ms < 10 || window_ms > 10000) window_ms = 100;
    ludus_thread_register("bench");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 8192; /* 512 MiB: the plain capture does not run out in 150 ms */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = (uint32_t)window_ms; /* 100 ms: about 190 MB at this rate, within the pool */
    rd.hitch_factor = -1;
    rd.signal = -1;
    double plain[100], rolling[100], plain_cpu[100], rolling_cpu[100], snap_us[100], snap_mb[100], cold_us[100];
    uint64_t lost = 0, events = 0, in_window = 0, evicted = 0;
    double tsc2 = bench_two_tsc_ns(1000000);
    uint64_t plain_lost = 0;
    for (int r = 0; r < rounds; r++) {
        if (ludus_capture_begin(&cd) != 0) return 1;
        plain[r] = run_for(150000000, &plain_cpu[r]);
        ludus_capture_end(NULL);
        ludus_capture_summary ps;
        bench_last_summary(&ps);
        plain_lost += ps.dropped;
        if (ludus_rolling_begin(&cd, &rd) != 0) return 1;
        run_for(1000000000, NULL); /* steady state */
        ludus_capture *cold = NULL;
        int64_t tc = bench_now_ns();
        if (ludus_rolling_snapshot(&cold) != 0) return 1; /* the first: its copy's pages are new */
        cold_us[r] = (double)(bench_now_ns() - tc) / 1e3;
        ludus_capture_release(cold); /* its memory kept for the next */
        run_for(200000000, NULL);
        ludus_rolling_stats st0;
        ludus_rolling_get_stats(&st0);
        rolling[r] = run_for(150000000, &rolling_cpu[r]);
        ludus_rolling_stats st;
        ludus_rolling_get_stats(&st);
        in_window += st.evicted_in_window - st0.evicted_in_window;
        evicted += st.events_evicted - st0.events_evicted;
        ludus_capture *snap = NULL;
        int64_t t0 = bench_now_ns();
        if (ludus_rolling_snapshot(&snap) != 0) return 1;
        snap_us[r] = (double)(bench_now_ns() - t0) / 1e3;
        ludus_capture_summary s;
        ludus_capture_get_summary(snap, &s);
        snap_mb[r] = (double)s.bytes_used / 1e6;
        lost += s.dropped;
        events += s.events;
        ludus_capture_release(snap);
        ludus_rolling_end();
    }
    double mp = bench_median(plain, rounds), mr = bench_median(rolling, rounds), ms = bench_median(snap_us, rounds);
    double mpc = bench_median(plain_cpu, rounds), mrc = bench_median(rolling_cpu, rounds);
    double mmb = bench_median(snap_mb, rounds);
    double maxr = 0, maxp = 0, maxs = 0;
    for (int r = 0; r < rounds; r++) {
        if (rolling[r] > maxr) maxr = rolling[r];
        if (plain[r] > maxp) maxp = plain[r];
        if (snap_us[r] > maxs) maxs = snap_us[r];
    }
    printf("rounds %d, window %d ms, two rdtsc %.2f ns; the plain captures dropped %llu\n", rounds, window_ms, tsc2,
           (unsigned long long)plain_lost);
    printf("capture window   ns/scope median %.2f max %.2f  (%.2f x two rdtsc); process CPU ns/scope %.2f\n", mp, maxp,
           mp / tsc2, mpc);
    printf("flight recorder  ns/scope median %.2f max %.2f  (%.2f x two rdtsc, %.3f x the capture window); "
           "process CPU ns/scope %.2f (%.3f x)\n",
           mr, maxr, mr / tsc2, mr / mp, mrc, mrc / mpc);
    printf("measured halves: %llu events written over, %llu of them inside the window; "
           "in the windows taken: %llu events, %llu lost\n",
           (unsigned long long)evicted, (unsigned long long)in_window, (unsigned long long)events,
           (unsigned long long)lost);
    printf("snapshot (the caller's time: the copy) median %.0f us max %.0f us for %.0f MB (%.1f us per MB); "
           "the first of a recording (its copy's pages new) median %.0f us\n",
           ms, maxs, mmb, mmb > 0 ? ms / mmb : 0.0, bench_median(cold_us, rounds));
    return 0;
}
