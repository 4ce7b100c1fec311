/* The flight recorder under thread churn (issue 32): four worker slots
 * doing jobs (~60 ns of arithmetic each) beside a frame thread (a frame
 * mark, a counter and a scope every millisecond), one recorder running all
 * along. Rounds of ROUND_MS alternate: no churn (each slot's worker lives
 * the whole round) and churn (each slot's thread replaced every JOBS jobs),
 * so the machine's load, which drifts over seconds, falls on both alike.
 * Each worker alternates batches of 100 jobs with a scope around each and
 * 100 without, timed apart in the same thread: a batch pair's difference
 * over 100 is its cost per scope (a thread's registration and first pieces
 * fall in its first batch with scopes, as they do in a program). A round's
 * cost is the median of its pairs (a pair the scheduler cut into, on this
 * shared machine, is an outlier the median leaves out) and, beside it, the
 * mean (everything, preemptions included); each churn round's cost over
 * the no-churn round before it is one ratio, and the median of the ratios
 * is the figure. A snapshot in the middle of every round (one a
 * second at the default): events lost in it (0: the window of every live
 * thread is whole), the threads it lists, the frame thread's events, the
 * time it covers, what it took. A worker's first job (its registration and
 * first piece) is timed too: the longest is what thread creation waited.
 *   bench_flight_churn [SECONDS] [JOBS] [WINDOW_MS] [ROUND_MS]
 * BENCH_VERBOSE=1 prints every snapshot. */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"
#include "../tests/stress/churn_threads.h"

enum { SLOTS = 4, MAX_ROUNDS = 1 << 16 };

static int stop, frames_stop, churn;
static int64_t jobs_per_thread;
static int64_t with_ns_sum, without_ns_sum, jobs_sum, threads_sum, first_job_max_ns; /* atomic */

/* The round's batch pairs: ns per scope of each (the workers add theirs as they exit). */
enum { MAX_PAIRS = 1 << 21, THREAD_PAIRS = 1 << 16 };
static pthread_mutex_t pairs_lock = PTHREAD_MUTEX_INITIALIZER;
static double *pair_cost;
static int npairs;

static volatile uint64_t sink;

static void work(void) {
    uint64_t x = sink;
    for (int i = 0; i < 20; i++) x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

static void job(void) {
    LUDUS_PROFILE_SCOPE(Job);
    work();
}

static void *worker(void *p) {
    (void)p;
    for (int k = 0; k < 200; k++) work(); /* the new thread's stack and caches: not the recorder's */
    int64_t f0 = bench_now_ns();
    job(); /* the first: registers the thread, takes its first piece */
    int64_t first = bench_now_ns() - f0;
    int64_t m = __atomic_load_n(&first_job_max_ns, __ATOMIC_RELAXED);
    while (first > m &&
           !__atomic_compare_exchange_n(&first_job_max_ns, &m, first, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    int64_t with = 0, without = 0, n = 0;
    int mine = 0, cap = churn ? (int)(jobs_per_thread / 100) + 1 : THREAD_PAIRS;
    float *costs = malloc((size_t)cap * sizeof *costs);
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE) && (!churn || n < jobs_per_thread)) {
        int64_t t0 = bench_now_ns();
        for (int k = 0; k < 100; k++) job();
        int64_t t1 = bench_now_ns();
        for (int k = 0; k < 100; k++) work();
        int64_t t2 = bench_now_ns();
        with += t1 - t0;
        without += t2 - t1;
        n += 100;
        if (costs && mine < cap) costs[mine++] = (float)((t1 - t0) - (t2 - t1)) / 100.0f;
    }
    pthread_mutex_lock(&pairs_lock);
    for (int k = 0; k < mine && npairs < MAX_PAIRS; k++) pair_cost[npairs++] = costs[k];
    pthread_mutex_unlock(&pairs_lock);
    free(costs);
    __atomic_add_fetch(&with_ns_sum, with, __ATOMIC_RELAXED);
    __atomic_add_fetch(&without_ns_sum, without, __ATOMIC_RELAXED);
    __atomic_add_fetch(&jobs_sum, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&threads_sum, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* What the rounds of one kind add up to. */
typedef struct kind {
    int rounds;
    int64_t threads, first_job_max_ns;
    double cost[MAX_ROUNDS / 2]; /* ns per scope, per round (median of its batch pairs) */
    double mean_ns_sum;          /* ns per scope, the rounds' means (everything counted) */
    int snaps, short_snaps;      /* short: covering less than the window */
    uint64_t lost_max, events_min, frame_events_min;
    uint32_t listed_min, listed_max;
    double covered_ms_min, copy_ms_max;
} kind;

static int window_ms;

static void snapshot_into(kind *k, int round) {
    ludus_capture *c = NULL;
    int64_t t0 = bench_now_ns();
    if (ludus_rolling_snapshot(&c) != 0) return;
    double copy_ms = (double)(bench_now_ns() - t0) / 1e6;
    ludus_capture_summary s;
    if (ludus_capture_get_summary(c, &s) == 0) {
        uint64_t fe = 0;
        for (uint32_t i = 0; i < s.threads; i++) {
            ludus_thread_summary t;
            if (ludus_capture_thread(c, i, &t) == 0 && strcmp(t.name, "frames") == 0) fe = t.events;
        }
        double covered = (double)(s.end_ns - s.start_ns) / 1e6;
        if (getenv("BENCH_VERBOSE"))
            printf("  round %d (%s) snapshot: %u threads, %llu events, %llu lost, frame thread %llu events, %.0f ms, "
                   "copied in %.2f ms\n",
                   round, churn ? "churn" : "no churn", s.threads, (unsigned long long)s.events,
                   (unsigned long long)s.dropped, (unsigned long long)fe, covered, copy_ms);
        int first = k->snaps == 0;
        if (first || s.dropped > k->lost_max) k->lost_max = s.dropped;
        if (first || s.events < k->events_min) k->events_min = s.events;
        if (first || s.threads > k->listed_max) k->listed_max = s.threads;
        if (first || s.threads < k->listed_min) k->listed_min = s.threads;
        if (first || fe < k->frame_events_min) k->frame_events_min = fe;
        if (first || covered < k->covered_ms_min) k->covered_ms_min = covered;
        if (copy_ms > k->copy_ms_max) k->copy_ms_max = copy_ms;
        k->short_snaps += covered < window_ms;
        k->snaps++;
    }
    ludus_capture_release(c);
}

/* One round: the slots' threads for round_ms, a snapshot half-way. */
static double run_round(kind *k, int with_churn, int round, int64_t round_ms, int snapshot) {
    __atomic_store_n(&stop, 0, __ATOMIC_RELEASE);
    churn = with_churn;
    with_ns_sum = without_ns_sum = jobs_sum = threads_sum = first_job_max_ns = 0;
    npairs = 0;
    pthread_t st[SLOTS];
    churn_slot sl = {&stop, worker, NULL, NULL};
    for (int i = 0; i < SLOTS; i++) pthread_create(&st[i], NULL, churn_slot_main, &sl);
    churn_sleep_ns(round_ms * 500000);
    if (snapshot) snapshot_into(k, round);
    churn_sleep_ns(round_ms * 500000);
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < SLOTS; i++) pthread_join(st[i], NULL);
    double cost = npairs ? bench_median(pair_cost, npairs) : 0;
    k->mean_ns_sum += jobs_sum ? (double)(with_ns_sum - without_ns_sum) / (double)jobs_sum : 0;
    k->threads += threads_sum;
    if (first_job_max_ns > k->first_job_max_ns) k->first_job_max_ns = first_job_max_ns;
    if (k->rounds < MAX_ROUNDS / 2) k->cost[k->rounds] = cost;
    k->rounds++;
    return cost;
}

static void print_kind(const char *name, kind *k) {
    double costs[MAX_ROUNDS / 2];
    int n = k->rounds < MAX_ROUNDS / 2 ? k->rounds : MAX_ROUNDS / 2;
    memcpy(costs, k->cost, (size_t)n * sizeof *costs);
    printf("| %s | %d | %lld | %.2f (mean %.2f) | %.2f ms | %d | %llu | %u .. %u | %llu | %.0f ms (%d short) | %.2f ms "
           "|\n",
           name, k->rounds, (long long)k->threads, n ? bench_median(costs, n) : 0,
           k->rounds ? k->mean_ns_sum / k->rounds : 0, (double)k->first_job_max_ns / 1e6, k->snaps,
           (unsigned long long)k->lost_max, k->listed_min, k->listed_max, (unsigned long long)k->frame_events_min,
           k->covered_ms_min, k->short_snaps, k->copy_ms_max);
}

static kind kinds[2];
static double ratios[MAX_ROUNDS];

int main(int argc, char **argv) {
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    jobs_per_thread = argc > 2 ? atoll(argv[2]) : 2000;
    window_ms = argc > 3 ? atoi(argv[3]) : 200;
    int64_t round_ms = argc > 4 ? atoll(argv[4]) : 1000;
    if (seconds < 2) seconds = 10;
    if (jobs_per_thread < 100) jobs_per_thread = 2000;
    if (window_ms < 20) window_ms = 200;
    if (round_ms < 100) round_ms = 1000;
    uint32_t frame_site = ludus_site_intern("frame seq");
    pair_cost = malloc(MAX_PAIRS * sizeof *pair_cost);
    if (!pair_cost) return 1;
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 2048; /* 128 MiB of 64 KiB chunks */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = (uint32_t)window_ms;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    printf("bench_flight_churn: %d s of pairs of %lld ms rounds (no churn, churn), %d worker slots (a thread per "
           "%lld jobs when churning), a %d ms window in a 128 MiB pool, one recorder all along\n",
           seconds, (long long)round_ms, SLOTS, (long long)jobs_per_thread, window_ms);
    if (ludus_rolling_begin(&cd, &rd) != 0) {
        fprintf(stderr, "rolling begin: %s\n", ludus_last_error_detail());
        return 1;
    }
    pthread_t ft;
    churn_frames fr = {&frames_stop, frame_site, 1000000, NULL};
    pthread_create(&ft, NULL, churn_frames_main, &fr);
    int64_t began = bench_now_ns();
    int pairs = 0; /* as many as fit in SECONDS (a round also waits for its snapshot and its threads) */
    for (int p = 0; p < MAX_ROUNDS / 2 && (p == 0 || bench_now_ns() - began < (int64_t)seconds * 1000000000); p++) {
        /* the first window is still filling: no snapshot counted before 2 windows */
        int snap = bench_now_ns() - began > 2 * (int64_t)window_ms * 1000000;
        double base = run_round(&kinds[0], 0, 2 * p, round_ms, snap);
        double with = run_round(&kinds[1], 1, 2 * p + 1, round_ms, 1);
        ratios[p] = base > 0 ? with / base : 0;
        pairs = p + 1;
    }
    __atomic_store_n(&frames_stop, 1, __ATOMIC_RELEASE);
    pthread_join(ft, NULL);
    ludus_rolling_stats rs;
    ludus_rolling_get_stats(&rs);
    ludus_rolling_end();
    printf("| | rounds | threads | ns per scope (median of the rounds' medians) | longest first job | snapshots | "
           "events lost in a "
           "snapshot (max) | threads listed | frame thread events (min) | covering (min) | snapshot copy (max) |\n");
    printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    print_kind("no churn", &kinds[0]);
    print_kind("churn", &kinds[1]);
    double q[MAX_ROUNDS];
    memcpy(q, ratios, (size_t)pairs * sizeof *q);
    double med = bench_median(q, pairs); /* sorts q */
    printf("per scope, churn / no churn: median of %d per-pair ratios %.3f (quartiles %.3f .. %.3f)\n", pairs, med,
           q[pairs / 4], q[(3 * pairs) / 4 < pairs ? (3 * pairs) / 4 : pairs - 1]);
    printf("recorder: events evicted %llu, of them in the window %llu (exited threads' pieces the pool took back "
           "early)\n",
           (unsigned long long)rs.events_evicted, (unsigned long long)rs.evicted_in_window);
    return 0;
}
