/* Shared helpers for the benchmarks: monotonic time, medians, peak RSS, and
 * the clock floor each benchmark measures in its own run. */
#ifndef LUDUS_BENCH_COMMON_H
#define LUDUS_BENCH_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <ludus/capture.h>

/* The last ended capture's summary (0, or the library's code). */
static inline int bench_last_summary(ludus_capture_summary *out) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_get_summary(c, out);
    ludus_capture_release(c);
    return rc;
}

/* Saves the last ended capture (format by the path's extension). */
static inline int bench_save_last(const char *path) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_save(c, 0, 0, path);
    ludus_capture_release(c);
    return rc;
}

static inline int64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int bench_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static inline double bench_median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static inline long bench_peak_rss_kib(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* ns per operation of fn(n), which runs n operations. */
static inline double bench_ns_per(void (*fn)(int64_t), int64_t n) {
    int64_t t0 = bench_now_ns();
    fn(n);
    return (double)(bench_now_ns() - t0) / (double)n;
}

/* ns for two back-to-back reads of the TSC (the cost a scope cannot avoid). */
static inline double bench_two_tsc_ns(int iters) {
#if defined(__x86_64__)
    uint64_t sink = 0;
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < iters; i++) {
        sink += __builtin_ia32_rdtsc();
        sink ^= __builtin_ia32_rdtsc();
        __asm__ __volatile__("" : "+r"(sink));
    }
    int64_t t1 = bench_now_ns();
    return (double)(t1 - t0) / iters;
#else
    (void)iters;
    return 0;
#endif
}

/* ns for two clock_gettime(CLOCK_MONOTONIC) calls. */
static inline double bench_two_mono_ns(int iters) {
    int64_t sink = 0;
    int64_t t0 = bench_now_ns();
    for (int i = 0; i < iters; i++) {
        sink += bench_now_ns();
        sink ^= bench_now_ns();
        __asm__ __volatile__("" : "+r"(sink));
    }
    int64_t t1 = bench_now_ns();
    return (double)(t1 - t0) / iters;
}

#endif
