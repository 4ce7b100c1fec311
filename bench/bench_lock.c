/* Lock waits (<ludus/locks.h>), in one run:
 *   - uncontended: ns per LUDUS_PROFILE_MUTEX_LOCK + pthread_mutex_unlock
 *     against pthread_mutex_lock + pthread_mutex_unlock, the same for the
 *     read and the write side of a rwlock, without and with a capture
 *     running (the wrapper never looks at it on this path); the two are
 *     measured alternately, run after run, and the ratio is of the medians;
 *   - what a wait adds once the try-lock failed, capture running: the
 *     name's lookup and the wait's two events (ludus_lock_wait_begin + _end,
 *     the wrappers' slow path without the blocking call), on a named lock
 *     and on an unnamed one (the lookup finds nothing).
 * Median of --runs runs.
 *   bench_lock [--runs N] [--ops N]
 *   bench_lock --callgrind N idle|recording plain|wrapped|empty
 *       (for bench/callgrind.sh: N uncontended lock + unlock pairs in the
 *       function run_plain, run_wrapped or run_empty) */
#include <ludus/capture.h>
#include <ludus/locks.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <string.h>

#include "bench_common.h"

static int64_t ops = 20000000;
static pthread_mutex_t mtx = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;

__attribute__((noinline)) static void run_empty(int64_t n) {
    for (int64_t i = 0; i < n; i++) __asm__ __volatile__("" ::: "memory");
}
__attribute__((noinline)) static void run_plain(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        pthread_mutex_lock(&mtx);
        pthread_mutex_unlock(&mtx);
    }
}
__attribute__((noinline)) static void run_wrapped(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_MUTEX_LOCK(&mtx);
        pthread_mutex_unlock(&mtx);
    }
}
__attribute__((noinline)) static void run_rd_plain(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        pthread_rwlock_rdlock(&rw);
        pthread_rwlock_unlock(&rw);
    }
}
__attribute__((noinline)) static void run_rd_wrapped(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_RWLOCK_RDLOCK(&rw);
        pthread_rwlock_unlock(&rw);
    }
}
__attribute__((noinline)) static void run_wr_plain(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        pthread_rwlock_wrlock(&rw);
        pthread_rwlock_unlock(&rw);
    }
}
__attribute__((noinline)) static void run_wr_wrapped(int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        LUDUS_PROFILE_RWLOCK_WRLOCK(&rw);
        pthread_rwlock_unlock(&rw);
    }
}

/* ---- what a wait adds: the lookup and the scope, on a lock that has a name or not ---- */

static int own_lock;

__attribute__((noinline)) static void run_wait_named(int64_t n) {
    for (int64_t i = 0; i < n; i++) ludus_lock_wait_end(ludus_lock_wait_begin(&mtx, NULL));
}
__attribute__((noinline)) static void run_wait_unnamed(int64_t n) {
    for (int64_t i = 0; i < n; i++) ludus_lock_wait_end(ludus_lock_wait_begin(&own_lock, NULL));
}

static int callgrind_main(int64_t n, const char *mode, const char *fn) {
    if (!strcmp(mode, "recording") && ludus_capture_begin(NULL) != 0) return 1;
    if (!strcmp(fn, "plain"))
        run_plain(n);
    else if (!strcmp(fn, "wrapped"))
        run_wrapped(n);
    else
        run_empty(n);
    if (ludus_capture_active()) ludus_capture_end(NULL);
    return 0;
}

int main(int argc, char **argv) {
    int runs = 5;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--callgrind") && i + 3 < argc)
            return callgrind_main(atoll(argv[i + 1]), argv[i + 2], argv[i + 3]);
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = atoll(argv[++i]);
    }
    if (runs < 1 || runs > 64 || ops < 1000) {
        fprintf(stderr, "usage: bench_lock [--runs 1..64] [--ops N>=1000]\n");
        return 1;
    }
    ludus_lock_name(&mtx, "BenchMutex");
    ludus_lock_name(&rw, "BenchRwlock");
    double tsc = bench_two_tsc_ns(10000000);
    printf("lock waits: %lld uncontended lock + unlock pairs per measurement, median of %d runs; two TSC reads: %.2f "
           "ns\n",
           (long long)ops, runs, tsc);
    printf("%-34s %8s %12s %12s %8s %8s\n", "operation", "capture", "plain", "ludus", "ratio", "range");
    static const struct {
        const char *name;
        void (*plain)(int64_t), (*wrapped)(int64_t);
    } rows[] = {{"mutex lock + unlock", run_plain, run_wrapped},
                {"rwlock read lock + unlock", run_rd_plain, run_rd_wrapped},
                {"rwlock write lock + unlock", run_wr_plain, run_wr_wrapped}};
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        for (int cap = 0; cap < 2; cap++) {
            if (cap && ludus_capture_begin(NULL) != 0) return 1;
            double p[64], w[64], r[64];
            rows[k].plain(ops / 10); /* warm */
            rows[k].wrapped(ops / 10);
            for (int i = 0; i < runs; i++) {
                p[i] = bench_ns_per(rows[k].plain, ops);
                w[i] = bench_ns_per(rows[k].wrapped, ops);
                r[i] = w[i] / p[i];
            }
            double lo = r[0], hi = r[0];
            for (int i = 1; i < runs; i++) lo = r[i] < lo ? r[i] : lo, hi = r[i] > hi ? r[i] : hi;
            double mp = bench_median(p, runs), mw = bench_median(w, runs);
            printf("%-34s %8s %9.2f ns %9.2f ns %7.3fx %.2f-%.2f\n", rows[k].name, cap ? "running" : "none", mp, mw,
                   mw / mp, lo, hi);
            if (cap) {
                ludus_capture_end(NULL);
                ludus_capture_summary s;
                if (bench_last_summary(&s) == 0 && s.events)
                    printf("  (the capture holds %llu events: an uncontended lock must record none)\n",
                           (unsigned long long)s.events);
            }
        }
    }
    /* the wait path, recording (a pool that holds every event of the run) */
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 2048; /* 128 MiB */
    int64_t waits = 1000000;
    double wn[64], wu[64];
    for (int i = 0; i < runs; i++) {
        if (ludus_capture_begin(&d) != 0) return 1;
        wn[i] = bench_ns_per(run_wait_named, waits);
        wu[i] = bench_ns_per(run_wait_unnamed, waits);
        ludus_capture_end(NULL);
    }
    printf("a recorded wait adds (ludus_lock_wait_begin + _end, capture running): %.2f ns on a named lock (the lookup "
           "and two events), %.2f ns on an unnamed one\n",
           bench_median(wn, runs), bench_median(wu, runs));
    ludus_capture_summary s;
    if (bench_last_summary(&s) == 0 && s.dropped) printf("  (%llu events dropped)\n", (unsigned long long)s.dropped);
    return 0;
}
