/* A capture file's runs loaded ahead on a library thread (run_ahead.c) give
 * the stream loading them on the reader's thread gives: every event the
 * same on every thread, for each block encoding; a damaged block stops
 * both at the same event with the same error and detail; a reader that
 * stops early (a cut, a failed pass) frees the loader while it works. Run
 * under TSan (label concurrency): the loader reads the file and the
 * capture's tables while the reader normalises. */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "capture/nev.h"
#include "format/file_format.h"
#include "nev_check.h"
#include "test_util.h"

#define JOBS 12000 /* scopes a thread: tens of blocks each */

static void *worker(void *arg) {
    int id = *(const int *)arg;
    for (int i = 0; i < JOBS; i++) {
        LUDUS_PROFILE_SCOPE(Job);
        if (i % 64 == 0) LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "job %d of worker %d", i, id);
        if (i % 16 == 0) {
            LUDUS_PROFILE_SCOPE(Step);
            LUDUS_PROFILE_ANNOTATE(Index, i);
        }
    }
    return NULL;
}

static char dir[512];
static ludus_capture *recorded;

static int setup(void **state) {
    (void)state;
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "run_ahead"), 0);
    assert_int_equal(ludus_capture_begin(NULL), 0);
    pthread_t th[2];
    int ids[2] = {1, 2};
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, worker, &ids[i]), 0);
    for (int f = 0; f < JOBS / 8; f++) {
        LUDUS_PROFILE_FRAME();
        for (int k = 0; k < 8; k++) {
            LUDUS_PROFILE_SCOPE(Update);
            LUDUS_PROFILE_COUNT(Items, k);
        }
    }
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    assert_int_equal(ludus_capture_end(&recorded), 0);
    return 0;
}

static int teardown(void **state) {
    (void)state;
    ludus_capture_release(recorded);
    lt_remove_dir(dir);
    return 0;
}

static ludus_capture *saved(const char *name, unsigned flags) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    lt_check_i64(lt_what("save %s", name), 0, ludus_capture_save(recorded, LUDUS_FORMAT_LUDUS, flags, path));
    ludus_capture *c = NULL;
    lt_check_i64(lt_what("open %s", name), 0, ludus_capture_open(path, &c));
    return c;
}

/* 1 when thread t's stream starts a loader (the path under test is taken). */
static int loads_ahead(ludus_capture *c, uint32_t t, int here) {
    ludus__nev_iter it;
    ludus__nev e;
    assert_int_equal(ludus__nev_init(&it, c, t), 0);
    if (here) ludus__nev_load_here(&it);
    (void)ludus__nev_next(&it, &e);
    int ahead = it.ahead != NULL;
    ludus__nev_free(&it);
    return ahead;
}

static void test_same_stream(void **state) {
    (void)state;
    static const struct {
        const char *name;
        unsigned flags;
    } files[] = {{"default.ludus", 0}, {"compact.ludus", LUDUS_SAVE_UNCOMPRESSED}, {"raw.ludus", LUDUS_SAVE_RAW}};
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        ludus_capture *c = saved(files[f].name, files[f].flags);
        assert_int_equal(ludus__prepare(c), 0);
        uint32_t ahead = 0;
        size_t total = 0;
        for (uint32_t t = 0; t < c->nthreads; t++) {
            size_t n0, n1;
            ludus__nev *here = lt_nev_stream(c, t, LT_NEV_HERE, &n0);
            lt_check(lt_what("%s thread %u: no loader when told", files[f].name, t), !loads_ahead(c, t, 1));
            ludus__nev *there = lt_nev_stream(c, t, 0, &n1);
            if (c->threads[t].nruns >= 2) {
                lt_check(lt_what("%s thread %u (%u runs): loads ahead", files[f].name, t, c->threads[t].nruns),
                         loads_ahead(c, t, 0));
                ahead++;
            }
            lt_nev_same(c, t, "the stream loaded here", here, n0, "the stream loaded ahead", there, n1);
            total += n0;
            free(here);
            free(there);
        }
        printf("%-14s %u threads, %u of them loaded ahead, %zu events the same\n", files[f].name, c->nthreads, ahead,
               total);
        lt_check(lt_what("%s: every thread has runs to load ahead", files[f].name), ahead == c->nthreads);
        ludus_capture_release(c);
    }
}

/* ---- a damaged block ---- */

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

/* How a thread's stream ends: events before it, the error and its detail. */
typedef struct stream_end {
    size_t events;
    int error;
    char detail[512];
} stream_end;

static stream_end read_to_end(ludus_capture *c, uint32_t t, int here) {
    stream_end s = {0, 0, ""};
    ludus__nev_iter it;
    ludus__nev e;
    assert_int_equal(ludus__nev_init(&it, c, t), 0);
    if (here) ludus__nev_load_here(&it);
    while (ludus__nev_next(&it, &e)) s.events++;
    s.error = ludus__nev_error(&it);
    if (s.error) snprintf(s.detail, sizeof s.detail, "%s", ludus_last_error_detail());
    ludus__nev_free(&it);
    return s;
}

static void test_damaged_block(void **state) {
    (void)state;
    ludus_capture *c = saved("damaged.ludus", LUDUS_SAVE_RAW);
    ludus_capture_release(c);
    char path[600];
    snprintf(path, sizeof path, "%s/damaged.ludus", dir);
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    size_t n = (size_t)ftell(fp);
    uint8_t *d = malloc(n);
    assert_non_null(d);
    rewind(fp);
    assert_int_equal(fread(d, 1, n, fp), n);
    /* every fifth block, past the first: an event's time set far outside
     * the capture, the record's checksum redone (the reader's event checks
     * find it, not the checksum at open) */
    size_t off = get32(d + 16), blocks = 0, flipped = 0;
    while (off + 24 <= n) {
        uint64_t len = get64(d + off + 8);
        if (get32(d + off) == LUDUS__NF_BLOCK && blocks++ % 5 == 3 && len >= ludus__nf_block_BYTES + 3 * 16) {
            uint8_t *ticks = d + off + 24 + ludus__nf_block_BYTES + 2 * 16;
            for (int i = 0; i < 8; i++) ticks[i] = (uint8_t)(UINT64_C(0x4000000000000000) >> (8 * i));
            uint32_t crc = ludus__crc32c(ludus__crc32c(0, d + off, 16), d + off + 24, (size_t)len);
            for (int i = 0; i < 4; i++) d[off + 16 + i] = (uint8_t)(crc >> (8 * i));
            flipped++;
        }
        off += 24 + (size_t)len;
    }
    assert_true(flipped >= 2);
    rewind(fp);
    assert_int_equal(fwrite(d, 1, n, fp), n);
    fclose(fp);
    free(d);
    lt_check_i64(lt_what("open the damaged file (%s)", ludus_last_error_detail()), 0, ludus_capture_open(path, &c));
    uint32_t failed = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        stream_end here = read_to_end(c, t, 1), there = read_to_end(c, t, 0);
        lt_check_u64(lt_what("thread %u: events before the damage, loaded ahead", t), here.events, there.events);
        lt_check_i64(lt_what("thread %u: the error, loaded ahead", t), here.error, there.error);
        lt_check_str(lt_what("thread %u: its detail, loaded ahead", t), here.detail, there.detail);
        if (here.error) failed++;
    }
    printf("%u of %u threads stop at a damaged block, the same way loaded ahead\n", failed, c->nthreads);
    lt_check(lt_what("a thread met a damaged block"), failed >= 1);
    ludus_capture_release(c);
}

/* A reader that stops after a few events, its loader still at work. */
static void test_early_stop(void **state) {
    (void)state;
    ludus_capture *c = saved("stop.ludus", 0);
    for (int round = 0; round < 40; round++) {
        for (uint32_t t = 0; t < c->nthreads; t++) {
            ludus__nev_iter it;
            ludus__nev e;
            assert_int_equal(ludus__nev_init(&it, c, t), 0);
            for (int k = 0; k < round * 997 && ludus__nev_next(&it, &e); k++) {
            }
            ludus__nev_free(&it);
        }
    }
    ludus_capture_release(c);
}

/* ---- analyses on several threads at once (ludus-trace diff reads its
 * files two at a time): each thread its own capture of the same file and its
 * own analysis, every report the one made alone ---- */

typedef struct analysed {
    const char *path;
    lt_buf json;
    int rc;
} analysed;

static void *analyse(void *arg) {
    analysed *w = arg;
    ludus_capture *c = NULL;
    ludus_analysis *a = NULL;
    w->rc = ludus_capture_open(w->path, &c);
    if (!w->rc) w->rc = ludus_analysis_create(c, NULL, &a);
    if (!w->rc) w->rc = ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, lt_buf_write, &w->json);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    return NULL;
}

static void test_analyses_in_parallel(void **state) {
    (void)state;
    ludus_capture_release(saved("parallel.ludus", 0));
    char path[600];
    snprintf(path, sizeof path, "%s/parallel.ludus", dir);
    analysed alone = {path, {0}, 0}, w[3];
    analyse(&alone);
    lt_check_i64(lt_what("the report made alone"), 0, alone.rc);
    pthread_t th[3];
    for (int i = 0; i < 3; i++) {
        w[i] = (analysed){path, {0}, 0};
        assert_int_equal(pthread_create(&th[i], NULL, analyse, &w[i]), 0);
    }
    for (int i = 0; i < 3; i++) {
        pthread_join(th[i], NULL);
        lt_check_i64(lt_what("report %d of 3 made at once", i + 1), 0, w[i].rc);
        lt_check_u64(lt_what("report %d of 3: its length", i + 1), alone.json.len, w[i].json.len);
        lt_check(lt_what("report %d of 3: the bytes of the one made alone", i + 1),
                 memcmp(alone.json.data, w[i].json.data, alone.json.len) == 0);
        lt_buf_free(&w[i].json);
    }
    lt_buf_free(&alone.json);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_stream),
        cmocka_unit_test(test_damaged_block),
        cmocka_unit_test(test_early_stop),
        cmocka_unit_test(test_analyses_in_parallel),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
