/* Error paths: begin_capture (EBUSY, EOVERFLOW, EINVAL, ENOMEM through a
 * failing allocator, EUNSUPPORTED-or-OK for the TSC clock), end_capture
 * (ENOCAPTURE), and exports (ENODATA leaves the file untouched, EIO keeps
 * the capture for a retry, a writer failing on the N-th write). */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

/* ---- a counting allocator that can fail the N-th call ---- */
typedef struct counting_alloc {
    int calls, frees, fail_at; /* fail_at: 1-based call to fail; 0 never */
    size_t last_size, last_alignment;
} counting_alloc;

static void *ca_alloc(size_t size, size_t alignment, void *ud) {
    counting_alloc *a = ud;
    a->calls++;
    a->last_size = size;
    a->last_alignment = alignment;
    if (a->fail_at && a->calls == a->fail_at) return NULL;
    return lt_aligned_alloc(size, alignment);
}

static void ca_free(void *p, void *ud) {
    counting_alloc *a = ud;
    a->frees++;
    lt_aligned_free(p);
}

/* After a failed begin: disarmed, nothing recorded, and a good begin works. */
static void assert_disarmed_then_usable(void) {
    assert_int_equal(ludus_capture_active(), 0);
    LUDUS_PROFILE_MARK(WhileDisarmed);
    assert_int_equal(ludus_capture_end(NULL), LUDUS_ENOCAPTURE);
    lt_begin(NULL);
    LUDUS_PROFILE_MARK(Recovered);
    lt_end();
    assert_int_equal(lt_summary().events, 1);
}

static void test_ebusy(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_MARK(First);
    assert_int_equal(ludus_capture_begin(NULL), LUDUS_EBUSY);
    ludus_capture_desc d = lt_small_desc(1);
    assert_int_equal(ludus_capture_begin(&d), LUDUS_EBUSY);
    assert_string_not_equal(ludus_last_error_detail(), "");
    assert_int_equal(ludus_capture_active(), 1); /* the active capture goes on */
    LUDUS_PROFILE_MARK(Second);
    lt_end();
    assert_int_equal(lt_summary().events, 2);
}

static void test_einval(void **state) {
    (void)state;
    static const uint32_t bad[] = {1, 2048, 4095, 4097, 6000, 12288, 0x80000001u};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ludus_capture_desc d = lt_small_desc(1);
        d.chunk_bytes = bad[i];
        assert_int_equal(ludus_capture_begin(&d), LUDUS_EINVAL);
        assert_int_equal(ludus_capture_active(), 0);
    }
    ludus_capture_desc d = lt_small_desc(1);
    d.clock = 42;
    assert_int_equal(ludus_capture_begin(&d), LUDUS_EINVAL);
    d = lt_small_desc(1);
    d.join = 42;
    assert_int_equal(ludus_capture_begin(&d), LUDUS_EINVAL);
    d = lt_small_desc(1);
    d.clock = -1;
    assert_int_equal(ludus_capture_begin(&d), LUDUS_EINVAL);
    assert_disarmed_then_usable();
}

/* chunk_bytes * chunk_count beyond size_t. With two uint32_t fields the
 * product overflows only where size_t is 32 bits; on LP64 the largest
 * request (2^31 * (2^32-1) bytes) does not overflow and must fail cleanly
 * anyway: EOVERFLOW, or ENOMEM from the allocator, never a crash. The
 * counting allocator keeps the test from asking the real heap for it. */
static void test_eoverflow(void **state) {
    (void)state;
    counting_alloc a = {0};
    ludus_capture_desc d = lt_small_desc(1);
    d.allocator = (ludus_allocator){ca_alloc, ca_free, &a};
    a.fail_at = 1; /* any huge request fails */
    if (SIZE_MAX <= UINT32_MAX) {
        d.chunk_bytes = 1u << 20;
        d.chunk_count = 1u << 13;
        assert_int_equal(ludus_capture_begin(&d), LUDUS_EOVERFLOW);
        assert_int_equal(a.calls, 0); /* rejected before allocating */
    } else {
        d.chunk_bytes = 1u << 30;
        d.chunk_count = UINT32_MAX;
        int rc = ludus_capture_begin(&d);
        assert_true(rc == LUDUS_EOVERFLOW || rc == LUDUS_ENOMEM);
        if (rc == LUDUS_EOVERFLOW) assert_int_equal(a.calls, 0);
    }
    assert_int_equal(a.frees, 0);
    assert_disarmed_then_usable();
}

static void test_enomem_and_allocator_hooks(void **state) {
    (void)state;
    counting_alloc a = {0};
    ludus_capture_desc d = lt_small_desc(4);
    d.allocator = (ludus_allocator){ca_alloc, ca_free, &a};
    a.fail_at = 1;
    assert_int_equal(ludus_capture_begin(&d), LUDUS_ENOMEM);
    assert_int_equal(a.calls, 1);
    assert_int_equal(a.frees, 0);
    assert_int_equal(ludus_capture_active(), 0);
    LUDUS_PROFILE_MARK(WhileDisarmed);
    /* the second call succeeds: the pool comes from the hook, whole */
    lt_begin(&d);
    assert_int_equal(a.calls, 2);
    assert_int_equal(a.last_size, 4 * 4096);
    assert_true(a.last_alignment >= 64);
    LUDUS_PROFILE_MARK(Recorded);
    lt_end();
    assert_int_equal(lt_summary().events, 1);
    assert_int_equal(a.frees, 0); /* the ended capture still owns its pool */
    /* the next capture discards it through the hook */
    lt_begin(NULL);
    assert_int_equal(a.frees, 1);
    lt_end();
}

static void test_enocapture(void **state) {
    (void)state;
    assert_int_equal(ludus_capture_end(NULL), LUDUS_ENOCAPTURE);
    lt_begin(NULL);
    lt_end();
    assert_int_equal(ludus_capture_end(NULL), LUDUS_ENOCAPTURE);
    assert_string_not_equal(ludus_error_string(LUDUS_ENOCAPTURE), "");
    assert_non_null(ludus_error_string(12345));
}

static void test_desc_defaults(void **state) {
    (void)state;
    ludus_capture_desc in, out;
    memset(&in, 0, sizeof in);
    ludus_capture_desc_defaults(&in, &out);
    assert_int_equal(out.chunk_bytes, 65536);
    assert_int_equal(out.chunk_count, 256);
    assert_int_equal(out.clock, LUDUS_CLOCK_AUTO);
    assert_int_equal(out.join, LUDUS_JOIN_AUTO);
    ludus_capture_desc_defaults(NULL, &out);
    assert_int_equal(out.chunk_bytes, 65536);
    in.chunk_bytes = 8192;
    ludus_capture_desc_defaults(&in, &out);
    assert_int_equal(out.chunk_bytes, 8192);
    assert_int_equal(out.chunk_count, 256);
}

/* ---- exports ---- */

static char tmpdir[256];

static int make_tmpdir(void **state) {
    (void)state;
    return lt_make_tmpdir(tmpdir, sizeof tmpdir, "ludus-test");
}

static int remove_tmpdir(void **state) {
    (void)state;
    lt_remove_dir(tmpdir);
    return 0;
}

static char *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = 0;
    fclose(f);
    return s;
}

static void test_export_enodata(void **state) {
    (void)state;
    char path[300], tmp[310];
    snprintf(path, sizeof path, "%s/empty.json", tmpdir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("previous contents", f);
    fclose(f);
    lt_begin(NULL);
    lt_end(); /* nothing recorded */
    assert_int_equal(lt_summary().events, 0);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_JSON, 0, path), LUDUS_ENODATA);
    char *s = read_file(path);
    assert_non_null(s);
    assert_string_equal(s, "previous contents");
    free(s);
    assert_int_equal(access(tmp, F_OK), -1); /* no temp file left behind */
    lt_buf b = {0};
    assert_int_equal(lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &b), LUDUS_ENODATA);
    assert_int_equal(b.writes, 0);
    lt_buf_free(&b);
}

static void test_export_eio_then_retry(void **state) {
    (void)state;
    lt_begin(NULL);
    { LUDUS_PROFILE_SCOPE(Kept); }
    lt_end();
    char bad[300], good[300];
    snprintf(bad, sizeof bad, "%s/no/such/dir/trace.json", tmpdir);
    snprintf(good, sizeof good, "%s/trace.json", tmpdir);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_JSON, 0, bad), LUDUS_EIO);
    assert_string_not_equal(ludus_last_error_detail(), "");
    /* a directory is not a writable file either */
    assert_int_equal(lt_save_last(LUDUS_FORMAT_JSON, 0, tmpdir), LUDUS_EIO);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_JSON, 0, good), 0);
    char *s = read_file(good);
    assert_non_null(s);
    lt_trace t;
    lt_trace_parse(&t, s);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "Kept"), 1);
    lt_trace_free(&t);
    /* the file export and the memory export are the same JSON */
    char *m = lt_export_json(NULL);
    assert_string_equal(m, s);
    free(m);
    free(s);
}

static void test_writer_fails_nth_write(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 3000; i++) { /* > 64 KiB of JSON: several writes */
        LUDUS_PROFILE_SCOPE(Many);
    }
    lt_end();
    lt_buf ok = {0};
    assert_int_equal(lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &ok), 0);
    int writes = ok.writes;
    assert_true(writes >= 3);
    for (int n = 1; n <= writes; n++) {
        lt_buf b = {0};
        b.fail_at = n;
        assert_int_equal(lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &b), LUDUS_EIO);
        assert_int_equal(b.writes, n); /* no write after the failing one */
        lt_buf_free(&b);
    }
    lt_buf again = {0};
    assert_int_equal(lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &again), 0);
    assert_int_equal(again.len, ok.len);
    assert_memory_equal(again.data, ok.data, ok.len);
    lt_trace t;
    lt_trace_parse(&t, again.data);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "Many"), 3000);
    lt_trace_free(&t);
    lt_buf_free(&ok);
    lt_buf_free(&again);
    assert_int_equal(lt_write_last(LUDUS_FORMAT_JSON, NULL, NULL), LUDUS_EINVAL);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_JSON, 0, NULL), LUDUS_EINVAL);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_ebusy, lt_teardown),
        cmocka_unit_test_teardown(test_einval, lt_teardown),
        cmocka_unit_test_teardown(test_eoverflow, lt_teardown),
        cmocka_unit_test_teardown(test_enomem_and_allocator_hooks, lt_teardown),
        cmocka_unit_test_teardown(test_enocapture, lt_teardown),
        cmocka_unit_test_teardown(test_desc_defaults, lt_teardown),
        cmocka_unit_test_teardown(test_export_enodata, lt_teardown),
        cmocka_unit_test_teardown(test_export_eio_then_retry, lt_teardown),
        cmocka_unit_test_teardown(test_writer_fails_nth_write, lt_teardown),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
