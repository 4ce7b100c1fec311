/* The analysis's selections and sorts (src/analysis/sort.c) on what the
 * diff and the report's finish give them: durations spread over decades
 * (integer ns, as doubles and as int64), at the sizes of a block of frames,
 * a run of 150,000 frames and one of 1.5 M. Prints ns an element, the best
 * of REPS runs (each on a fresh copy), for the k-th smallest (the lower
 * median) and for a whole sort; the reference is qsort, in the same run.
 *   bench_select [REPS]   (default 10) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analysis/analysis_internal.h"

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_f64(const void *x, const void *y) {
    return ludus__cmp_double(x, y);
}

typedef enum { KTH_F64, KTH_I64, SORT_F64, SORT_I64, QSORT_F64 } what;
static const char *const names[] = {"kth_f64 (the lower median)", "kth_i64", "sort_f64", "sort_i64",
                                    "qsort (reference)"};

static double best_ns(what w, const double *src, size_t n, int reps) {
    double *v = malloc(n * sizeof *v);
    int64_t *iv = malloc(n * sizeof *iv);
    if (!v || !iv) {
        fprintf(stderr, "bench_select: no memory\n");
        exit(1);
    }
    double best = 1e30, sink = 0;
    for (int r = 0; r < reps; r++) {
        memcpy(v, src, n * sizeof *v);
        for (size_t i = 0; i < n; i++) iv[i] = (int64_t)src[i];
        double t0 = now();
        switch (w) {
        case KTH_F64:
            sink += ludus__kth_f64(v, n, (n - 1) / 2);
            break;
        case KTH_I64:
            sink += (double)ludus__kth_i64(iv, n, (n - 1) / 2);
            break;
        case SORT_F64:
            ludus__sort_f64(v, n);
            break;
        case SORT_I64:
            ludus__sort_i64(iv, n);
            break;
        case QSORT_F64:
            qsort(v, n, sizeof *v, cmp_f64);
            break;
        }
        double t = now() - t0;
        if (t < best) best = t;
        sink += v[n / 2] + (double)iv[n / 3];
    }
    free(v);
    free(iv);
    if (sink == -1) puts(""); /* keeps the work */
    return best * 1e9 / (double)n;
}

int main(int argc, char **argv) {
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    if (reps < 1) reps = 1;
    static const size_t sizes[] = {2000, 20000, 150000, 1500000};
    size_t most = sizes[sizeof sizes / sizeof *sizes - 1];
    double *src = malloc(most * sizeof *src);
    if (!src) return 1;
    uint64_t r = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < most; i++) { /* 100 ns to 18 ms, spread over 14 octaves, integer ns */
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        src[i] = (double)((100 + (r >> 20) % 1000) << (r >> 58) % 15);
    }
    printf("%-28s", "ns an element, best of runs");
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) printf(" %10zu", sizes[s]);
    printf("\n");
    for (int w = KTH_F64; w <= QSORT_F64; w++) {
        printf("%-28s", names[w]);
        for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) printf(" %10.2f", best_ns(w, src, sizes[s], reps));
        printf("\n");
    }
    free(src);
    return 0;
}
