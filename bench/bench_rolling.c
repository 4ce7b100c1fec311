/* The rolling window's cost: ns per scope while the window records (its
 * segments switching underneath) against an ordinary capture in the same
 * process, both over two TSC reads; the segment switches' pauses (events
 * are dropped meanwhile) and the events lost to them; and the time a
 * snapshot takes its caller. Scopes are written to the pool, not to a
 * file.
 * Each round: 0.5 s of scopes in an ordinary capture, then the rolling
 * window warmed up for 1 s (its first segments take new pages; dropped
 * segments' pools are reused after that) and measured for 0.5 s.
 *   bench_rolling [ROUNDS] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static void scopes(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Bench);
    }
}

/* Scopes for about `ns` of time; ns per scope. */
static double run_for(int64_t ns) {
    int64_t t0 = bench_now_ns(), n = 0;
    while (bench_now_ns() - t0 < ns) {
        scopes(10000);
        n += 10000;
    }
    return (double)(bench_now_ns() - t0) / (double)n;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 5;
    if (rounds < 1 || rounds > 100) rounds = 5;
    ludus_thread_register("bench");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 4096; /* 256 MiB: neither mode runs out in 0.5 s */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 400; /* 100 ms segments: 5 switches per round */
    rd.hitch_factor = -1;
    rd.signal = -1;
    double plain[100], rolling[100], snap_us[100];
    int64_t pause_max = 0;
    uint64_t switches = 0, lost = 0, events = 0;
    double tsc2 = bench_two_tsc_ns(1000000);
    for (int r = 0; r < rounds; r++) {
        if (ludus_capture_begin(&cd) != 0) return 1;
        plain[r] = run_for(500000000);
        ludus_capture_end(NULL);
        if (ludus_rolling_begin(&cd, &rd) != 0) return 1;
        run_for(1000000000); /* steady state: the first segments' pools are new pages, later ones reuse dropped ones */
        rolling[r] = run_for(500000000);
        ludus_capture *snap = NULL;
        int64_t t0 = bench_now_ns();
        if (ludus_rolling_snapshot(&snap) != 0) return 1;
        snap_us[r] = (double)(bench_now_ns() - t0) / 1e3;
        ludus_capture_summary s;
        ludus_capture_get_summary(snap, &s);
        lost += s.dropped;
        events += s.events;
        ludus_capture_release(snap);
        ludus_rolling_stats st;
        ludus_rolling_get_stats(&st);
        if (st.switch_max_ns > pause_max) pause_max = st.switch_max_ns;
        switches += st.segments_switched;
        ludus_rolling_end();
    }
    double mp = bench_median(plain, rounds), mr = bench_median(rolling, rounds), ms = bench_median(snap_us, rounds);
    double maxr = 0, maxp = 0, maxs = 0;
    for (int r = 0; r < rounds; r++) {
        if (rolling[r] > maxr) maxr = rolling[r];
        if (plain[r] > maxp) maxp = plain[r];
        if (snap_us[r] > maxs) maxs = snap_us[r];
    }
    printf("rounds %d, two rdtsc %.2f ns\n", rounds, tsc2);
    printf("capture window  ns/scope median %.2f max %.2f  (%.2f x two rdtsc)\n", mp, maxp, mp / tsc2);
    printf("rolling window  ns/scope median %.2f max %.2f  (%.2f x two rdtsc, %.3f x the capture window)\n", mr, maxr,
           mr / tsc2, mr / mp);
    printf("segment switches %llu, longest pause %.1f us; in the windows taken: %llu events, %llu lost (%.4f %%)\n",
           (unsigned long long)switches, pause_max / 1e3, (unsigned long long)events, (unsigned long long)lost,
           events ? 100.0 * (double)lost / (double)(events + lost) : 0.0);
    printf("snapshot (the caller's time: a switch and the join) median %.0f us max %.0f us\n", ms, maxs);
    return 0;
}
