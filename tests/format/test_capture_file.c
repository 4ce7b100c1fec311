/* Native capture files: save -> open -> the JSON of the file equals the
 * direct JSON export byte for byte (raw and compact encodings); truncation
 * at every offset and corrupted fields give LUDUS_EFORMAT naming an offset,
 * never a crash; empty capture and I/O failures keep their contracts. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/native_format.h"
#include "export/export_formats.h"
#include "export/export_internal.h"

typedef struct membuf {
    char *data;
    size_t len, cap;
} membuf;

static int mem_write(void *ud, const void *p, size_t n) {
    membuf *b = ud;
    if (b->len + n > b->cap) {
        size_t cap = (b->len + n) * 2;
        char *d = realloc(b->data, cap);
        if (!d) return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static ludus__writer wr;

static char dir[256];
static char path_raw[300], path_compact[300];

static void *worker(void *arg) {
    (void)arg;
    ludus_register_thread_for_trace("Worker \"quoted\"");
    for (int i = 0; i < 50; i++) {
        LUDUS_PROFILE_SCOPE(Job, jobs);
        LUDUS_PROFILE_MARK(Tick);
    }
    return NULL;
}

/* A capture with slices, marks, frames, counters, flows, a second thread
 * and a scope left open (incomplete). */
static void record_capture(void) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 64;
    d.chunk_bytes = 4096; /* several blocks per thread */
    assert_int_equal(ludus_begin_capture(&d), 0);
    ludus_register_thread_for_trace("Main");
    uint32_t ctr = ludus_intern_name("Queue depth");
    uint32_t fctr = ludus_intern_name("Load");
    for (int f = 0; f < 40; f++) {
        LUDUS_PROFILE_SCOPE(Frame, main);
        {
            LUDUS_PROFILE_SCOPE(Update);
            ludus_sample_counter(ctr, f - 5);
            ludus_sample_counter_f64(fctr, f * 0.25);
        }
        uint64_t id = LUDUS_PROFILE_FLOW_OUT(Dispatch);
        LUDUS_PROFILE_FLOW_IN(id);
        LUDUS_PROFILE_MARK(Hitch);
        LUDUS_PROFILE_FRAME();
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    LUDUS_PROFILE_BEGIN(LeftOpen);
    assert_int_equal(ludus_end_capture(), 0);
}

static char *direct_json(size_t *len) {
    membuf b = {0};
    assert_int_equal(ludus_export_json_to(mem_write, &b), 0);
    *len = b.len;
    return b.data;
}

static char *file_json(const char *path, size_t *len) {
    ludus_capture_file *f;
    int rc = ludus_capture_open(path, &f);
    if (rc) fprintf(stderr, "open: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    membuf b = {0};
    ludus__w_init(&wr, mem_write, &b);
    assert_int_equal(ludus__export_chrome_json(ludus__capture_file_view(f), &wr), 0);
    ludus_capture_close(f);
    *len = b.len;
    return b.data;
}

static uint8_t *read_all(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc(*n);
    assert_int_equal(fread(d, 1, *n, fp), *n);
    fclose(fp);
    return d;
}

static void write_all(const char *path, const uint8_t *d, size_t n) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(d, 1, n, fp), n);
    fclose(fp);
}

/* Opens, iterates every thread and exports JSON; returns the open code or
 * the first load error. Never crashes (that is the point). */
static int open_and_drain(const char *path) {
    ludus_capture_file *f;
    int rc = ludus_capture_open(path, &f);
    if (rc) return rc;
    membuf b = {0};
    ludus__w_init(&wr, mem_write, &b);
    rc = ludus__export_chrome_json(ludus__capture_file_view(f), &wr);
    if (ludus__capture_file_error(f)) rc = ludus__capture_file_error(f);
    membuf b2 = {0};
    ludus__w_init(&wr, mem_write, &b2);
    int rc2 = ludus__export_pftrace(ludus__capture_file_view(f), &wr);
    if (!rc) rc = rc2;
    free(b.data);
    free(b2.data);
    ludus_capture_close(f);
    return rc;
}

static void test_round_trip(void **state) {
    (void)state;
    size_t n0, n1, n2;
    char *j0 = direct_json(&n0);
    assert_int_equal(ludus_save_capture(path_raw), 0);
    assert_int_equal(ludus_save_capture_ex(path_compact, LUDUS_SAVE_COMPACT), 0);
    char *j1 = file_json(path_raw, &n1);
    char *j2 = file_json(path_compact, &n2);
    assert_int_equal(n0, n1);
    assert_memory_equal(j0, j1, n0);
    assert_int_equal(n0, n2);
    assert_memory_equal(j0, j2, n0);
    /* the summary of the file matches the live one */
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(&s), 0);
    ludus_capture_file *f;
    assert_int_equal(ludus_capture_open(path_raw, &f), 0);
    ludus_capture_file_info in;
    assert_int_equal(ludus_capture_file_get_info(f, &in), 0);
    assert_int_equal(in.events, s.events);
    assert_int_equal(in.threads, s.threads);
    assert_int_equal(in.incomplete, s.incomplete);
    assert_true(in.incomplete >= 1);
    assert_int_equal(in.frames, 40);
    assert_true(in.blocks > 2);
    ludus_capture_close(f);
    /* re-saving a file through the native writer gives the same bytes */
    size_t nr;
    uint8_t *raw = read_all(path_raw, &nr);
    assert_int_equal(ludus_capture_open(path_raw, &f), 0);
    membuf b = {0};
    ludus__w_init(&wr, mem_write, &b);
    assert_int_equal(ludus__save_native(ludus__capture_file_view(f), &wr, 0), 0);
    assert_int_equal(b.len, nr);
    assert_memory_equal(b.data, raw, nr);
    ludus_capture_close(f);
    free(b.data);
    free(raw);
    free(j0);
    free(j1);
    free(j2);
}

static void check_truncations(const char *src) {
    size_t n;
    uint8_t *d = read_all(src, &n);
    char tpath[320];
    snprintf(tpath, sizeof tpath, "%s/trunc.ludus", dir);
    for (size_t k = 0; k < n; k++) {
        write_all(tpath, d, k);
        ludus_capture_file *f = (ludus_capture_file *)1;
        int rc = ludus_capture_open(tpath, &f);
        if (rc != LUDUS_EFORMAT) fprintf(stderr, "truncated at %zu: rc %d\n", k, rc);
        assert_int_equal(rc, LUDUS_EFORMAT);
        assert_null(f);
        assert_non_null(strstr(ludus_last_error_detail(), "offset "));
    }
    free(d);
}

static void test_truncated_every_offset(void **state) {
    (void)state;
    check_truncations(path_raw);
    check_truncations(path_compact);
}

/* Single corrupted fields: each gives EFORMAT with the offset named. */
static void test_corrupted_fields(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = read_all(path_raw, &n);
    char cpath[320];
    snprintf(cpath, sizeof cpath, "%s/corrupt.ludus", dir);
    struct {
        size_t off;
        uint8_t val;
        const char *expect;
    } cases[] = {
        {0, 'X', "offset 0: bad magic"},
        {8, 9, "offset 8: unsupported format version"},
        {12, 0, "offset 12: bad byte-order mark"},
        {24, 7, "offset 24: unknown clock source"},
        {87, 0x7f, "offset 80:"},                                 /* start_ns out of range */
        {LUDUS__NF_HEADER_BYTES + 15, 0x40, "exceeds file size"}, /* first record's length */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t save = d[cases[i].off];
        d[cases[i].off] = cases[i].val;
        write_all(cpath, d, n);
        ludus_capture_file *f;
        assert_int_equal(ludus_capture_open(cpath, &f), LUDUS_EFORMAT);
        if (!strstr(ludus_last_error_detail(), cases[i].expect))
            fprintf(stderr, "case %zu: detail '%s'\n", i, ludus_last_error_detail());
        assert_non_null(strstr(ludus_last_error_detail(), cases[i].expect));
        d[cases[i].off] = save;
    }
    /* Every single byte flipped, one at a time: open + full drain never
     * crashes; the result is either success or a format error. */
    for (size_t k = 0; k < n; k += (n > 20000 ? 7 : 1)) {
        d[k] ^= 0xA5;
        write_all(cpath, d, n);
        int rc = open_and_drain(cpath);
        assert_true(rc == 0 || rc == LUDUS_EFORMAT || rc == LUDUS_ENOMEM);
        if (rc == LUDUS_EFORMAT) assert_non_null(strstr(ludus_last_error_detail(), "offset "));
        d[k] ^= 0xA5;
    }
    free(d);
    /* the compact file: flips inside its blocks are caught by the decoder */
    d = read_all(path_compact, &n);
    for (size_t k = 0; k < n; k++) {
        d[k] ^= 0x5A;
        write_all(cpath, d, n);
        int rc = open_and_drain(cpath);
        assert_true(rc == 0 || rc == LUDUS_EFORMAT || rc == LUDUS_ENOMEM);
        d[k] ^= 0x5A;
    }
    free(d);
}

static void test_errors(void **state) {
    (void)state;
    char bad[320];
    /* I/O failure: a directory that does not exist; the capture is kept */
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.ludus", dir);
    assert_int_equal(ludus_save_capture(bad), LUDUS_EIO);
    assert_int_equal(ludus_save_capture(path_raw), 0);
    assert_int_equal(ludus_save_capture_ex(path_raw, 0x80), LUDUS_EINVAL);
    assert_int_equal(ludus_save_capture(NULL), LUDUS_EINVAL);
    /* open errors */
    ludus_capture_file *f;
    assert_int_equal(ludus_capture_open(bad, &f), LUDUS_EIO);
    assert_int_equal(ludus_capture_open(path_raw, NULL), LUDUS_EINVAL);
    ludus_capture_close(NULL);
    /* empty capture: ENODATA and the file is left untouched */
    char empty[320];
    snprintf(empty, sizeof empty, "%s/empty.ludus", dir);
    write_all(empty, (const uint8_t *)"keep", 4);
    assert_int_equal(ludus_begin_capture(NULL), 0);
    assert_int_equal(ludus_end_capture(), 0);
    assert_int_equal(ludus_save_capture(empty), LUDUS_ENODATA);
    assert_int_equal(ludus_export_pftrace(empty), LUDUS_ENODATA);
    size_t n;
    uint8_t *d = read_all(empty, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(d, "keep", 4);
    free(d);
    assert_int_equal(access(empty, F_OK), 0);
    char tmp[330];
    snprintf(tmp, sizeof tmp, "%s.tmp", empty);
    assert_int_not_equal(access(tmp, F_OK), 0);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/ludus-format-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    snprintf(path_raw, sizeof path_raw, "%s/raw.ludus", dir);
    snprintf(path_compact, sizeof path_compact, "%s/compact.ludus", dir);
    record_capture();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated_every_offset),
        cmocka_unit_test(test_corrupted_fields),
        cmocka_unit_test(test_errors),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return rc;
}
