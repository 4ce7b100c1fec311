/* What the fuzz targets share: a writer that keeps only a count, and the
 * invariants every target checks (a failed call is an error code; a file the
 * library saved opens again). A broken invariant aborts: libFuzzer keeps the
 * input as a crash. */
#ifndef LUDUS_FUZZ_COMMON_H
#define LUDUS_FUZZ_COMMON_H

#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline int fuzz_discard(void *ud, const void *p, size_t n) {
    (void)p;
    *(size_t *)ud += n;
    return 0;
}

/* Grows a buffer (for an export that is read back). */
typedef struct fuzz_buf {
    unsigned char *p;
    size_t n, cap;
} fuzz_buf;

static inline int fuzz_keep(void *ud, const void *data, size_t n) {
    fuzz_buf *b = ud;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        while (cap < b->n + n) cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (!p) return -1;
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
    return 0;
}

static inline void fuzz_check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "fuzz invariant broken: %s (%s)\n", what, ludus_last_error_detail());
        abort();
    }
}

/* Every export of c, and the .ludus it saves opens again (a file saved with
 * return 0 must never be one the reader refuses). */
static inline void fuzz_exports(ludus_capture *c) {
    size_t bytes = 0;
    ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, fuzz_discard, &bytes);
    ludus_capture_write(c, LUDUS_FORMAT_PFTRACE, 0, fuzz_discard, &bytes);
    fuzz_buf b = {NULL, 0, 0};
    if (ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, fuzz_keep, &b) == 0) {
        ludus_capture *again;
        int rc = ludus_capture_open_memory(b.p, b.n, &again);
        fuzz_check(rc == 0 || rc == LUDUS_ENOMEM, "a .ludus the library saved opens again");
        ludus_capture_release(again);
    }
    free(b.p);
}

/* The analysis and every report format over c. */
static inline void fuzz_reports(ludus_capture *c, const ludus_analysis_desc *desc) {
    size_t bytes = 0;
    ludus_analysis *a = NULL;
    if (ludus_analysis_create(c, desc, &a) != 0) return;
    ludus_gpu_stats *g = NULL;
    ludus_report_options o = {0, "fuzz", NULL};
    if (ludus_gpu_stats_create(c, &g) == 0) o.gpu = g;
    static const int formats[] = {LUDUS_REPORT_TEXT, LUDUS_REPORT_JSON, LUDUS_REPORT_CSV, LUDUS_REPORT_HTML};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        ludus_analysis_report(a, NULL, formats[i], &o, fuzz_discard, &bytes);
    if (g) {
        ludus_gpu_report(g, NULL, LUDUS_REPORT_TEXT, fuzz_discard, &bytes);
        ludus_gpu_report(g, g, LUDUS_REPORT_JSON, fuzz_discard, &bytes);
    }
    ludus_gpu_stats_destroy(g);
    ludus_analysis_destroy(a);
}

#endif
