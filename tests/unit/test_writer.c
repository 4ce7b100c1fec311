/* The exporters' number formatting against printf: integers at every digit
 * count and microsecond timestamps with three decimals (from integers); and
 * the one writer of a name per output kind, byte for byte: JSON, HTML,
 * terminal text (with its cut), CSV and protobuf strings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <ludus/capture_file.h>

#include "base/text.h"
#include "base/writer.h"
#include "export/proto_writer.h"

static void check_u64(uint64_t v) {
    char a[32], b[32];
    *ludus__fmt_u64(a, v) = 0;
    snprintf(b, sizeof b, "%llu", (unsigned long long)v);
    assert_string_equal(a, b);
}

static void test_u64(void **state) {
    (void)state;
    uint64_t p = 1;
    for (int d = 0; d < 20; d++) { /* each power of ten and its neighbours */
        check_u64(p - 1);
        check_u64(p);
        check_u64(p + 1);
        if (d < 19) p *= 10;
    }
    check_u64(UINT64_MAX);
    for (uint64_t v = 0; v < 2000000; v += 13) check_u64(v);
}

static void check_us(int64_t ns) {
    char a[48], b[48];
    *ludus__fmt_us(a, ns) = 0;
    snprintf(b, sizeof b, "%lld.%03d", (long long)(ns / 1000), (int)(ns % 1000));
    assert_string_equal(a, b);
}

/* Below 10^12 ns a branch-free path, above it the general one. */
static void test_us(void **state) {
    (void)state;
    const int64_t ns[] = {0, 1, 999, 1000, 1001, 12345, 999999, 4398046511103999LL, INT64_MAX};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) check_us(ns[i]);
    int64_t p = 1;
    for (int d = 0; d < 19; d++) { /* each power of ten, its neighbours, and runs of nines */
        check_us(p - 1);
        check_us(p);
        check_us(p + 1);
        check_us(p * 9 / 10 * 10 / 9);
        if (d < 18) p *= 10;
    }
    for (int64_t v = 0; v < 3000000; v += 7) check_us(v);
    uint64_t x = 88172645463325252ull; /* xorshift: values of every length */
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        check_us((int64_t)((x >> 1) >> (x % 40)));
    }
    char a[16];
    *ludus__fmt_us(a, -5) = 0; /* viewers drop negative times: clamped */
    assert_string_equal(a, "0.000");
}

/* ---- the name writers ---- */

typedef struct sink {
    char b[8192];
    size_t n;
} sink;

static int sink_write(void *ud, const void *p, size_t n) {
    sink *s = ud;
    memcpy(s->b + s->n, p, n);
    s->n += n;
    return 0;
}

static ludus__writer w;

/* What fn writes for the n bytes of text. */
static const char *written(void (*fn)(ludus__writer *, const char *, size_t), const char *text, size_t n) {
    static sink s;
    s.n = 0;
    ludus__w_init(&w, sink_write, &s);
    fn(&w, text, n);
    ludus__w_flush(&w);
    s.b[s.n] = 0;
    return s.b;
}

static void csv(ludus__writer *wr, const char *s, size_t n) {
    (void)n;
    ludus__w_csv(wr, s);
}

static void test_name_writers(void **state) {
    (void)state;
    static const char hostile[] = "</script><!--\"q\\\x1b[31m\x7f\xff\xe2\x80\xa8&";
    size_t n = sizeof hostile - 1;
    assert_string_equal(written(ludus__w_json_str, hostile, n),
                        "\"\\u003c/script\\u003e\\u003c!--\\\"q\\\\\\u001b[31m\\u007f\\ufffd\\u2028\\u0026\"");
    assert_string_equal(written(ludus__w_json_str, "a\0b", 3), "\"a\\u0000b\""); /* a NUL where a length is given */
    assert_string_equal(written(ludus__w_html_str, hostile, n),
                        "&lt;/script&gt;&lt;!--&quot;q\\\\x1b[31m\\x7f\\xff\\u2028&amp;");
    assert_string_equal(written(ludus__w_html_str, "it's", 4), "it&#39;s");
    assert_string_equal(written(csv, "=SUM(A1)", 8), "\"'=SUM(A1)\"");
    assert_string_equal(written(csv, "a,\"b\"", 5), "\"a,\"\"b\"\"\"");
    assert_string_equal(written(csv, "line\nbreak\r", 12), "line\\x0abreak\\x0d");
    assert_string_equal(written(csv, "plain", 5), "plain");
    char out[64];
    assert_string_equal(ludus_text_show(out, sizeof out, hostile, 0), "</script><!--\"q\\\\x1b[31m\\x7f\\xff\\u2028&");
    assert_string_equal(ludus_text_show(out, sizeof out, "c1 \xc2\x9b bidi \xe2\x80\xae \xe2\x82\xac", 0),
                        "c1 \\u009b bidi \\u202e \xe2\x82\xac"); /* a printable character stays */
    assert_string_equal(ludus_text_show(out, sizeof out, NULL, 0), "");
    assert_string_equal(ludus_text_show(out, 1, "x", 0), "");
}

static void test_text_cut(void **state) {
    (void)state;
    char out[64];
    assert_string_equal(ludus_text_show(out, sizeof out, "abcdef", 6), "abcdef"); /* fits */
    assert_string_equal(ludus_text_show(out, sizeof out, "abcdefg", 6), "abcde~");
    assert_string_equal(ludus_text_show(out, sizeof out, "ab\x1b", 6), "ab\\x1b"); /* an escape is whole */
    assert_string_equal(ludus_text_show(out, sizeof out, "abc\x1b", 6), "abc~");   /* or cut before */
    assert_string_equal(ludus_text_show(out, sizeof out, "ab\xe2\x82\xac\xe2\x82\xac", 6), "ab\xe2\x82\xac~");
    assert_string_equal(ludus_text_show(out, 5, "abcdefgh", 0), "abc~"); /* cap bounds it too */
}

static void test_pb_str(void **state) {
    (void)state;
    uint8_t buf[8192];
    /* valid: as it is */
    uint8_t *e = ludus__pb_str(buf, 2, "name", 4);
    assert_int_equal(e - buf, 6);
    assert_memory_equal(buf, "\x12\x04name", 6);
    /* invalid bytes: U+FFFD each */
    e = ludus__pb_str(buf, 2,
                      "a\xff"
                      "b",
                      3);
    assert_int_equal(e - buf, 7);
    assert_memory_equal(buf,
                        "\x12\x05"
                        "a\xef\xbf\xbd"
                        "b",
                        7);
    /* long: cut at LUDUS__PB_MAX_STR between characters, a two-byte length */
    static char big[3 * LUDUS__PB_MAX_STR];
    for (size_t i = 0; i + 3 <= sizeof big; i += 3) memcpy(big + i, "\xe2\x82\xac", 3);
    e = ludus__pb_str(buf, 2, big, sizeof big);
    size_t len = (size_t)(buf[1] & 0x7f) | (size_t)buf[2] << 7;
    assert_int_equal(len, LUDUS__PB_MAX_STR - LUDUS__PB_MAX_STR % 3);
    assert_int_equal(e - buf, 3 + (ptrdiff_t)len);
    assert_true(ludus__utf8_valid((const char *)buf + 3, len));
    /* invalid and long: cleaned into the field, cut between characters */
    memset(big, 0xff, sizeof big);
    e = ludus__pb_str(buf, 2, big, sizeof big);
    len = (size_t)(buf[1] & 0x7f) | (size_t)buf[2] << 7;
    assert_int_equal(len, LUDUS__PB_MAX_STR - LUDUS__PB_MAX_STR % 3);
    assert_true(ludus__utf8_valid((const char *)buf + 3, len));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u64), cmocka_unit_test(test_us),
                                       cmocka_unit_test(test_name_writers), cmocka_unit_test(test_text_cut),
                                       cmocka_unit_test(test_pb_str)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
