/* Producers against the clock's floor, one and two threads, every mode of
 * recording, in interleaved rounds: the bare clock (two rdtsc per scope),
 * a restarted capture (its pool reused: in already), a first capture of a
 * fresh pool with each prefault place, and the flight recorder; spall too
 * when built with its header (bench/scaling.sh SPALL_H: spall's own code,
 * fetched, never in this tree). Each thread runs N x outer{ inner{} } (2 N
 * scopes); a round's wall time is from the threads' start barrier to the
 * last one's end, its CPU time the whole process's (every library thread
 * included). Medians over the rounds, as ratios to the floor of the same
 * round: a noisy machine moves both.
 *   bench_scaling [ROUNDS] [N] */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#ifdef BENCH_SPALL_H
#include BENCH_SPALL_H
#endif

enum { FLOOR, RESTART, FRESH_AHEAD, FRESH_BEGIN, FRESH_NONE, FLIGHT, SPALL, MODES };
static const char *const mode_names[MODES] = {
    "two rdtsc per scope (the floor)",     "capture, restarted (pool in already)",
    "capture, fresh pool, prefault ahead", "capture, fresh pool, prefault at begin",
    "capture, fresh pool, no prefault",    "flight recorder (restarted)",
    "spall, 64 MiB buffers prefaulted"};

static int64_t n_iter = 1000000;
static int mode;
static pthread_barrier_t go;
static uint32_t fresh_seq;

static int64_t process_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#ifdef BENCH_SPALL_H
static bool discard(SpallProfile *self, const void *data, size_t length) {
    (void)self, (void)data, (void)length;
    return true;
}
static bool no_flush(SpallProfile *self) {
    (void)self;
    return true;
}
static void no_close(SpallProfile *self) {
    (void)self;
}
static SpallProfile spall_ctx;
#endif

static void *producer(void *arg) {
    (void)arg;
    uint64_t sink = 0;
#ifdef BENCH_SPALL_H
    SpallBuffer sb;
    memset(&sb, 0, sizeof sb);
    if (mode == SPALL) {
        sb.length = (size_t)64 << 20;
        sb.data = malloc(sb.length);
        memset(sb.data, 1, sb.length); /* prefaulted */
        spall_buffer_init(&spall_ctx, &sb);
    }
#endif
    if (mode != FLOOR && mode != SPALL) ludus_thread_register("producer");
    pthread_barrier_wait(&go);
    switch (mode) {
    case FLOOR:
        for (int64_t i = 0; i < n_iter; i++) {
            sink += __builtin_ia32_rdtsc();
            sink ^= __builtin_ia32_rdtsc();
            sink += __builtin_ia32_rdtsc();
            sink ^= __builtin_ia32_rdtsc();
            __asm__ __volatile__("" : "+r"(sink));
        }
        break;
#ifdef BENCH_SPALL_H
    case SPALL:
        for (int64_t i = 0; i < n_iter; i++) {
            spall_buffer_begin(&spall_ctx, &sb, "outer", 5, __builtin_ia32_rdtsc());
            spall_buffer_begin(&spall_ctx, &sb, "inner", 5, __builtin_ia32_rdtsc());
            spall_buffer_end(&spall_ctx, &sb, __builtin_ia32_rdtsc());
            spall_buffer_end(&spall_ctx, &sb, __builtin_ia32_rdtsc());
        }
        break;
#endif
    default:
        for (int64_t i = 0; i < n_iter; i++) {
            LUDUS_PROFILE_SCOPE(Outer);
            { LUDUS_PROFILE_SCOPE(Inner); }
        }
        break;
    }
    pthread_barrier_wait(&go);
#ifdef BENCH_SPALL_H
    if (mode == SPALL) {
        spall_buffer_quit(&spall_ctx, &sb);
        free(sb.data);
    }
#endif
    if (mode != FLOOR && mode != SPALL) ludus_thread_unregister();
    return (void *)(uintptr_t)(sink & 1);
}

/* One round of `threads` producers: wall ns and process CPU ns. */
static int run(int m, int threads, double *wall, double *cpu) {
    mode = m;
    /* one size for one and two threads (sized for two): a restart reuses the pool */
    uint32_t pool = (uint32_t)(2u * (uint64_t)n_iter * 64u / 65536u) + 64u; /* 4 events of 16 B */
    (void)threads;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = pool;
    if (m == FRESH_AHEAD || m == FRESH_BEGIN || m == FRESH_NONE) {
        d.chunk_count = pool + 1 + fresh_seq++ % 1024; /* a size not reused */
        d.prefault = m == FRESH_AHEAD   ? LUDUS_PREFAULT_AHEAD
                     : m == FRESH_BEGIN ? LUDUS_PREFAULT_AT_BEGIN
                                        : LUDUS_PREFAULT_NONE;
    }
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 60000; /* holds the round: nothing written over */
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    pthread_barrier_init(&go, NULL, (unsigned)threads + 1);
    pthread_t th[2];
    int64_t c0 = process_cpu_ns();
    if (m == FLIGHT ? ludus_rolling_begin(&d, &rd) != 0 : m != FLOOR && m != SPALL && ludus_capture_begin(&d) != 0)
        return -1;
    for (int k = 0; k < threads; k++) pthread_create(&th[k], NULL, producer, NULL);
    pthread_barrier_wait(&go);
    int64_t t0 = bench_now_ns(), cs = process_cpu_ns();
    pthread_barrier_wait(&go);
    int64_t t1 = bench_now_ns(), ce = process_cpu_ns();
    for (int k = 0; k < threads; k++) pthread_join(th[k], NULL);
    if (m == FLIGHT)
        ludus_rolling_end();
    else if (m != FLOOR && m != SPALL)
        ludus_capture_end(NULL);
    pthread_barrier_destroy(&go);
    (void)c0;
    *wall = (double)(t1 - t0);
    *cpu = (double)(ce - cs);
    return 0;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 15;
    if (argc > 2) n_iter = atoll(argv[2]);
    if (rounds < 1 || rounds > 200 || n_iter < 1000) return 2;
    int have_spall = 0;
#ifdef BENCH_SPALL_H
    spall_init_callbacks(1.0, discard, no_flush, no_close, NULL, &spall_ctx);
    have_spall = 1;
#endif
    static double w1[MODES][200], w2[MODES][200], c2[MODES][200];
    double tmp;
    for (int r = -1; r < rounds; r++) /* round -1: warm-up, not counted (the restarted modes' pools come in) */
        for (int m = 0; m < MODES; m++) {
            if (m == SPALL && !have_spall) continue;
            double a, b, c;
            if (run(m, 1, &a, &tmp) || run(m, 2, &b, &c)) return 1;
            if (r < 0) continue;
            w1[m][r] = a;
            w2[m][r] = b;
            c2[m][r] = c;
        }
    double f1 = bench_median(w1[FLOOR], rounds), f2 = bench_median(w2[FLOOR], rounds);
    double fc = bench_median(c2[FLOOR], rounds);
    printf("rounds %d, %lld x outer{inner{}} per thread; floor: 1 thread %.2f ns/scope\n", rounds, (long long)n_iter,
           f1 / (2.0 * (double)n_iter));
    printf("%-40s %12s %14s %14s %14s\n", "", "1T ns/scope", "1T / floor", "2T wall/floor", "2T CPU/floor");
    for (int m = 0; m < MODES; m++) {
        if (m == SPALL && !have_spall) continue;
        /* ratios per round, then their median: each round's floor is its own */
        double q1[200], q2[200], qc[200];
        for (int r = 0; r < rounds; r++) {
            q1[r] = w1[m][r] / w1[FLOOR][r];
            q2[r] = w2[m][r] / w2[FLOOR][r];
            qc[r] = c2[m][r] / c2[FLOOR][r];
        }
        printf("%-40s %12.2f %14.3f %14.3f %14.3f\n", mode_names[m],
               bench_median(w1[m], rounds) / (2.0 * (double)n_iter), bench_median(q1, rounds), bench_median(q2, rounds),
               bench_median(qc, rounds));
    }
    (void)f2;
    (void)fc;
    return 0;
}
