/* What the Windows port must do, checked under Wine without the unit suite's
 * libraries (cmocka and json-c are not packaged for mingw-w64): the clock
 * (the TSC where invariant, else QueryPerformanceCounter), thread-local
 * recording on several threads, a thread's events published when it exits
 * before the capture ends, and export files written whole (a second export
 * replaces the first, no temporary is left, a failed export leaves the old
 * file as it was), a pool file that is never created over a file that is
 * there, reserves its blocks at begin (a refusal there, through the seam,
 * is an error and leaves nothing) and is removed when its capture goes.
 * Prints what failed and exits 1; tests/ports/check_windows.sh
 * reads the traces back.
 *   windows_smoke DIR */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern int ludus__file_map_reserve_error; /* src/platform/file_map.h: the seam of the reservation */

static int failures;
#define CHECK(cond)                                                \
    do {                                                           \
        if (!(cond)) {                                             \
            printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                            \
        }                                                          \
    } while (0)

static void *worker(void *arg) {
    ludus_thread_register((const char *)arg);
    for (int i = 0; i < 1000; i++) {
        LUDUS_PROFILE_SCOPE(WorkerScope);
    }
    return NULL; /* exits before the capture ends: its events must be kept */
}

static long file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

static char *slurp(const char *path) {
    long n = file_size(path);
    FILE *f = fopen(path, "rb");
    char *b = n >= 0 && f ? malloc((size_t)n + 1) : NULL;
    if (b && fread(b, 1, (size_t)n, f) == (size_t)n)
        b[n] = 0;
    else if (b) {
        free(b);
        b = NULL;
    }
    if (f) fclose(f);
    return b;
}

int main(int argc, char **argv) {
    char a[1024], b[1024], bad[1024];
    if (argc != 2) return 2;
    snprintf(a, sizeof a, "%s/smoke.json", argv[1]);
    snprintf(b, sizeof b, "%s/smoke.ludus", argv[1]);
    snprintf(bad, sizeof bad, "%s/no such dir/x.json", argv[1]);

    ludus_thread_register("Main");
    CHECK(ludus_capture_begin(NULL) == 0);
    pthread_t th[3];
    const char *names[3] = {"Worker 1", "Worker 2", "Worker 3"};
    for (int i = 0; i < 3; i++) CHECK(pthread_create(&th[i], NULL, worker, (void *)names[i]) == 0);
    for (int f = 0; f < 5; f++) {
        LUDUS_PROFILE_SCOPE(MainScope);
        LUDUS_PROFILE_FRAME();
    }
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    ludus_capture *c = NULL;
    CHECK(ludus_capture_end(&c) == 0);

    ludus_capture_summary s;
    CHECK(ludus_capture_get_summary(c, &s) == 0);
    printf("clock %s, %u threads, %llu events, %llu dropped\n", s.clock_name, s.threads, (unsigned long long)s.events,
           (unsigned long long)s.dropped);
    CHECK(s.threads == 4);
    CHECK(s.events == 3 * 2000 + 5 * 3); /* 3 workers x 1000 scopes, 5 scopes and frames */
    CHECK(s.dropped == 0);
    CHECK(s.end_ns > s.start_ns);
    int exited = 0;
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary t;
        CHECK(ludus_capture_thread(c, i, &t) == 0);
        if (strncmp(t.name, "Worker", 6) == 0) {
            CHECK(t.events == 2000);
            exited += t.exited;
        }
    }
    CHECK(exited == 3); /* their exit was seen: the thread-exit hook ran */

    CHECK(ludus_capture_save(c, LUDUS_FORMAT_JSON, 0, a) == 0);
    long first = file_size(a);
    CHECK(first > 0);
    CHECK(ludus_capture_save(c, LUDUS_FORMAT_JSON, 0, a) == 0); /* replaces it whole */
    CHECK(file_size(a) == first);
    char *before = slurp(a);
    CHECK(ludus_capture_save(c, LUDUS_FORMAT_JSON, 0, bad) != 0); /* a directory that does not exist */
    char *after = slurp(a);
    CHECK(before && after && strcmp(before, after) == 0);
    free(before);
    free(after);
    CHECK(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, b) == 0); /* the native format too */
    CHECK(file_size(b) > 0);
    ludus_capture_release(c);

    /* the pool file: what is at its path stays as it was */
    char pool[1024];
    snprintf(pool, sizeof pool, "%s/smoke.pool", argv[1]);
    FILE *f = fopen(pool, "wb");
    CHECK(f != NULL);
    if (f) {
        fputs("left behind", f);
        fclose(f);
    }
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.pool_file = pool;
    d.chunk_count = 16;
    CHECK(ludus_capture_begin(&d) == LUDUS_EIO);
    char *kept = slurp(pool);
    CHECK(kept && strcmp(kept, "left behind") == 0);
    free(kept);
    remove(pool);
    ludus__file_map_reserve_error = ENOSPC; /* as a full disk */
    CHECK(ludus_capture_begin(&d) == LUDUS_EIO);
    ludus__file_map_reserve_error = 0;
    CHECK(strstr(ludus_last_error_detail(), "no room") != NULL);
    CHECK(file_size(pool) < 0); /* nothing left */
    CHECK(ludus_capture_begin(&d) == 0);
    CHECK(file_size(pool) > 4096);
    CHECK(ludus_capture_end(NULL) == 0);
    CHECK(ludus_capture_begin(NULL) == 0); /* the library's reference to the pool's capture goes */
    CHECK(ludus_capture_end(NULL) == 0);
    CHECK(file_size(pool) < 0);
    if (failures) printf("%d checks failed\n", failures);
    return failures ? 1 : 0;
}
