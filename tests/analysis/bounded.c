/* One pass over one pathological shape of size N, for check_bounded.py,
 * which counts the pass's instructions under callgrind at N and 4N (only
 * measured() is counted: recording is not) and compares what it wrote:
 *   deep N    an N-deep recursion: the analysis and its HTML report
 *   paths N   N caller paths in each of two captures: their diff
 *   async N   N async zones open at once: their lanes (a JSON export)
 * Prints "bytes B paths P" (what the pass wrote, the paths it made).
 * The diff compares its entries on one thread here: callgrind counts the
 * thread that runs measured(), so entries a helper thread took would be
 * left out, by a share that changes from run to run (the paths ratio went
 * from x3.2 to x3.9 between runs, and once past the bound). */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h" /* ludus__diff_threads */

static unsigned long n_arg;
static size_t bytes;

static int count(void *ud, const void *p, size_t n) {
    (void)ud;
    (void)p;
    bytes += n;
    return 0;
}

static void recurse(unsigned long d) {
    LUDUS_PROFILE_SCOPE(Deep);
    if (d) recurse(d - 1);
    __asm__ volatile("" ::: "memory");
}

static void *deep(void *arg) {
    (void)arg;
    recurse(n_arg - 1);
    return NULL;
}

static void paths(int skew) {
    char names[64][8];
    for (int i = 0; i < 64; i++) snprintf(names[i], sizeof names[i], "P%d", i);
    unsigned long leaves = 0;
    for (int a = 0; a < 64 && leaves < n_arg; a++) {
        LUDUS_PROFILE_SCOPE_DYN(names[a]);
        for (int b = 0; b < 64 && leaves < n_arg; b++) {
            LUDUS_PROFILE_SCOPE_DYN(names[b]);
            for (int c = 0; c < 64 && leaves < n_arg; c++, leaves++) {
                LUDUS_PROFILE_SCOPE_DYN(names[(c + skew) % 64]);
                if (leaves % 4 == 0) LUDUS_PROFILE_FRAME(); /* frames grow with N too */
            }
        }
    }
    LUDUS_PROFILE_FRAME();
}

static ludus_capture *record(const char *shape, int skew) {
    ludus_capture_desc d = {0};
    d.chunk_count = 1024;
    if (ludus_capture_begin(&d) != 0) exit(1);
    if (!strcmp(shape, "deep")) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, (size_t)n_arg * 256 + (1u << 20));
        pthread_t t;
        if (pthread_create(&t, &at, deep, NULL) != 0) exit(1);
        pthread_join(t, NULL);
    } else if (!strcmp(shape, "paths")) {
        paths(skew);
    } else {
        uint32_t track = ludus_async_track("Loads"), site = ludus_site_intern("Load");
        for (unsigned long i = 0; i < n_arg; i++) ludus_async_begin(track, i, site);
        for (unsigned long i = 0; i < n_arg; i++) ludus_async_end(track, i);
    }
    ludus_capture *c;
    if (ludus_capture_end(NULL) != 0 || ludus_capture_last(&c) != 0) exit(1);
    return c;
}

static uint32_t npaths;

/* What callgrind counts (--toggle-collect=measured). */
__attribute__((noinline)) static int measured(const char *shape, ludus_capture *a, ludus_capture *b) {
    ludus_analysis *x = NULL, *y = NULL;
    ludus_diff *d = NULL;
    int rc;
    if (!strcmp(shape, "async")) return ludus_capture_write(a, LUDUS_FORMAT_JSON, 0, count, NULL);
    if ((rc = ludus_analysis_create(a, NULL, &x)) != 0) return rc;
    npaths = ludus_analysis_path_count(x);
    if (!strcmp(shape, "deep")) {
        rc = ludus_analysis_report(x, NULL, LUDUS_REPORT_HTML, NULL, count, NULL);
    } else {
        rc = ludus_analysis_create(b, NULL, &y);
        if (rc == 0) rc = ludus_diff_create(x, y, NULL, &d);
        if (rc == 0) rc = ludus_diff_report(d, LUDUS_REPORT_TEXT, count, NULL);
    }
    ludus_diff_destroy(d);
    ludus_analysis_destroy(y);
    ludus_analysis_destroy(x);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bounded deep|paths|async N\n");
        return 2;
    }
    n_arg = strtoul(argv[2], NULL, 10);
    ludus__diff_threads = 1;
    ludus_capture *a = record(argv[1], 0), *b = NULL;
    if (!strcmp(argv[1], "paths")) b = record(argv[1], 1);
    int rc = measured(argv[1], a, b);
    ludus_capture_release(a);
    ludus_capture_release(b);
    if (rc) {
        fprintf(stderr, "bounded: %s\n", ludus_last_error_detail());
        return 1;
    }
    printf("bytes %zu paths %u\n", bytes, npaths);
    return 0;
}
