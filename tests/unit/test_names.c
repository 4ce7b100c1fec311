/* Names as the exports show them: valid UTF-8 everywhere (invalid bytes
 * become U+FFFD, a name cut at 63 bytes never splits a character), a
 * literal name is the string the C literal denotes, an empty run-time name
 * is recorded under "<empty name>", run-time names are interned per capture
 * (each capture can intern up to its bound and counts only its own
 * refusals), and NaN/inf counter samples are left out of JSON, counted, and
 * kept exactly in .ludus. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

/* Strict UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
static int utf8_ok(const unsigned char *s, size_t n) {
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        size_t len = c < 0x80                 ? 1
                     : c >= 0xc2 && c <= 0xdf ? 2
                     : c >= 0xe0 && c <= 0xef ? 3
                     : c >= 0xf0 && c <= 0xf4 ? 4
                                              : 0;
        if (!len || i + len > n) return 0;
        unsigned cp = len == 1 ? c : c & (0x7f >> len);
        for (size_t k = 1; k < len; k++) {
            if ((s[i + k] & 0xc0) != 0x80) return 0;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        i += len;
    }
    return 1;
}

static void test_invalid_utf8_and_cuts(void **state) {
    (void)state;
    /* a thread name of 62 ASCII bytes then a 3-byte character: cut at 63 */
    char tname[80];
    memset(tname, 'a', 62);
    strcpy(tname + 62, "\xe2\x82\xac"); /* EURO SIGN */
    ludus_thread_register(tname);
    ludus_site_desc bad = {"bad \xff\xfe name \xc3", "cat \x80", "file\xed\xa0\x80.c", 7};
    uint32_t id = ludus_site_register(&bad);
    assert_true(id != 0);
    lt_begin(NULL);
    ludus_span_begin(id);
    ludus_span_end();
    LUDUS_PROFILE_SCOPE_DYN("dyn \xf5 name");
    lt_end();
    size_t n;
    char *json = lt_export_json(&n);
    assert_true(utf8_ok((const unsigned char *)json, n));
    assert_non_null(strstr(json, "bad \xef\xbf\xbd\xef\xbf\xbd name \xef\xbf\xbd")); /* U+FFFD each */
    assert_null(strstr(json, "\xe2\x82")); /* the cut character is gone whole */
    lt_trace t;
    lt_trace_parse(&t, json);
    lt_trace_check(&t, 1);
    lt_trace_free(&t);
    free(json);
    /* the protobuf's strings too (protoc rejects invalid UTF-8 in strings) */
    lt_buf b = {0};
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_PFTRACE, 0, lt_buf_write, &b), 0);
    /* the names' bytes, not any two bytes: the binary fields (addresses as
     * flow ids, fixed64 times) may hold 0xff 0xfe by chance */
    assert_null(memmem(b.data, b.len, "bad \xff\xfe", 6));
    assert_non_null(memmem(b.data, b.len, "bad \xef\xbf\xbd\xef\xbf\xbd name \xef\xbf\xbd", 16));
    assert_null(memmem(b.data, b.len, "dyn \xf5", 5));
    lt_buf_free(&b);
    ludus_capture_release(c);
    ludus_thread_register("main");
}

static void test_literal_names(void **state) {
    (void)state;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE("a\"b\\c\tq\x41\101\u00e9");
        LUDUS_PROFILE_SCOPE("Two "
                            "parts",
                            "cat \"x\"");
        LUDUS_PROFILE_SCOPE(Token);
        LUDUS_PROFILE_MARK("Mark \"q\"");
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "a\"b\\c\tqAA\xc3\xa9"), 1);
    long k = lt_find(&t, 0, 'B', "Two parts");
    assert_true(k >= 0);
    assert_string_equal(t.ev[k].cat, "cat \"x\"");
    assert_int_equal(lt_count(&t, 'B', "Token"), 1);
    assert_int_equal(lt_count(&t, 'I', "Mark \"q\""), 1);
    lt_trace_free(&t);
}

static void test_empty_dynamic_name(void **state) {
    (void)state;
    lt_begin(NULL);
    { LUDUS_PROFILE_SCOPE_DYN(""); }
    { LUDUS_PROFILE_SCOPE_DYN((const char *)NULL); }
    lt_end();
    assert_int_equal(lt_summary().events, 4);
    lt_trace t;
    lt_trace_load(&t);
    assert_int_equal(lt_count(&t, 'B', "<empty name>"), 2);
    lt_trace_free(&t);
}

/* 20,000 distinct run-time names: the capture's bound (16,384) takes what
 * it can and counts the rest (their slices go under a placeholder); the
 * next capture starts with an empty table and counts only its own. */
static void dyn_names(int from, int count) {
    char name[32];
    for (int i = from; i < from + count; i++) {
        snprintf(name, sizeof name, "name %d", i);
        LUDUS_PROFILE_SCOPE_DYN(name);
    }
}

static void test_names_per_capture(void **state) {
    (void)state;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 64;
    lt_begin(&d);
    dyn_names(0, 20000);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.interner_drops, 20000 - 16384);
    assert_int_equal(s.events, 2 * 20000); /* every slice is there */
    lt_trace t;
    lt_trace_load(&t);
    assert_int_equal(lt_count(&t, 'B', "<run-time names table full>"), 20000 - 16384);
    lt_trace_free(&t);
    lt_begin(&d);
    dyn_names(20000, 1000);
    lt_end();
    s = lt_summary();
    assert_int_equal(s.interner_drops, 0);
    lt_trace_load(&t);
    assert_int_equal(lt_count(&t, 'B', "name 20999"), 1);
    lt_trace_free(&t);
    /* refusals outside any capture count nowhere */
    ludus_site_desc none = {NULL, NULL, NULL, 0};
    assert_int_equal(ludus_site_register(&none), 0);
    lt_begin(NULL);
    lt_end();
    assert_int_equal(lt_summary().interner_drops, 0);
}

static void test_nonfinite_counters(void **state) {
    (void)state;
    uint32_t id = ludus_site_intern("ratio");
    lt_begin(NULL);
    ludus_counter_sample_f64(id, 1.5);
    ludus_counter_sample_f64(id, NAN);
    ludus_counter_sample_f64(id, INFINITY);
    ludus_counter_sample_f64(id, -INFINITY);
    ludus_counter_sample_f64(id, 2.5);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, 5);
    assert_int_equal(s.nonfinite_counter_samples, 3);
    lt_trace t;
    lt_trace_load(&t); /* lt_trace_check adds the uncounted samples back */
    lt_trace_check(&t, 1);
    assert_int_equal(t.n_C, 2);
    lt_trace_free(&t);
    /* kept in .ludus: read back, the same three are there */
    char path[64];
    snprintf(path, sizeof path, "/tmp/ludus-names-%d.ludus", (int)getpid());
    assert_int_equal(lt_save_last(LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_summary fs;
    assert_int_equal(ludus_capture_get_summary(c, &fs), 0);
    assert_int_equal(fs.nonfinite_counter_samples, 3);
    lt_buf b = {0};
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, lt_buf_write, &b), 0);
    assert_non_null(strstr(b.data, "\"nonfinite_counter_samples\":3"));
    lt_buf_free(&b);
    ludus_capture_release(c);
    unlink(path);
}

int main(void) {
    ludus_thread_register("main");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_invalid_utf8_and_cuts, lt_teardown),
        cmocka_unit_test_teardown(test_literal_names, lt_teardown),
        cmocka_unit_test_teardown(test_empty_dynamic_name, lt_teardown),
        cmocka_unit_test_teardown(test_names_per_capture, lt_teardown),
        cmocka_unit_test_teardown(test_nonfinite_counters, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
