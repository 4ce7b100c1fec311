/* The exporters' number formatting: integers at every digit count against
 * printf, and JSON times on their binary grid (writer.h) read back as
 * viewers read them; and the one writer of a name per output kind, byte for
 * byte: JSON, HTML, terminal text (with its cut), CSV and protobuf strings;
 * and the one grow-array step (grow.h) every growing table of src/ takes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "test_check.h" /* assert_int_equal says what it compared */
#include <math.h>
#include <stdlib.h>

#include <ludus/capture_file.h>

#include "base/grow.h"
#include "base/text.h"
#include "platform/alloc.h"
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

/* A time as the exporter writes it, read back as viewers do (strtod, a
 * correctly rounded double): it is the grid point exactly, gives the ns
 * back through round(x * 1000), and lies strictly between the points of
 * the ns next to it, so a slice's end (one below) too. */
static double read_us(const char *s) {
    char *end;
    double v = strtod(s, &end);
    assert_true(*end == 0);
    return v;
}

static void check_us(int64_t ns) {
    char a[48];
    *ludus__fmt_us(a, ns) = 0;
    double v = read_us(a);
    uint64_t g = ludus__grid(ns);
    assert_true(v * 4096.0 == (double)g); /* exactly the point (g < 2^53: times below 25 days) */
    assert_true(llround(v * 1000.0) == ns);
    if (ns > 0) assert_true(ludus__grid(ns - 1) + 2 < g); /* an end's point (g - 1) is after every earlier time's */
}

/* A slice from b to e as written: ts + dur, in double, is exactly its end's
 * point (every viewer's sum is exact) and rounds to e's ns, round(dur * 1000)
 * is e - b, its end is before any begin at e and after any time before e,
 * and a zero-length slice lasts one unit from its ns's begins. */
static void check_slice(int64_t b, int64_t e) {
    uint64_t pb, pe;
    ludus__slice_grid(b, e, &pb, &pe);
    char ts[48], dur[48];
    *ludus__fmt_grid(ts, pb) = 0;
    *ludus__fmt_grid(dur, pe - pb) = 0;
    double t = read_us(ts), d = read_us(dur);
    assert_true((t + d) * 4096.0 == (double)pe);
    assert_true(t + d - t == d); /* the rebased sum (speedscope) is exact too */
    assert_true(llround(t * 1000.0) == b);
    assert_true(llround((t + d) * 1000.0) == (e > b ? e : b)); /* the end's ns, from the sum a viewer makes */
    assert_true(pb == ludus__grid(b));                         /* with every begin of its ns */
    if (e > b) {
        assert_true(llround(d * 1000.0) == e - b);
        assert_true(pe < ludus__grid(e) && pe > ludus__grid(e - 1)); /* before every begin of its ns */
    } else {                                                         /* zero-length: one unit, drawn */
        assert_true(pe == pb + 1 && llround(d * 1000.0) == 0);
        assert_true(pe < ludus__grid(b + 1) - 1); /* before the next ns's ends */
    }
}

static void test_us(void **state) {
    (void)state;
    const int64_t ns[] = {0, 1, 999, 1000, 1001, 12345, 999999, 99999999999LL, 100000000000LL, 2199023255551999LL};
    for (size_t i = 0; i < sizeof ns / sizeof *ns; i++) check_us(ns[i]);
    int64_t p = 1;
    for (int d = 0; d < 16; d++) { /* each power of ten, its neighbours, and runs of nines */
        check_us(p - 1);
        check_us(p);
        check_us(p + 1);
        check_us(p * 9 / 10 * 10 / 9);
        if (d < 15) p *= 10;
    }
    for (int64_t v = 0; v < 3000000; v += 1) check_us(v); /* every ns of the first 3 ms */
    uint64_t x = 88172645463325252ull;                    /* xorshift: values of every length up to 13 days */
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t b = (int64_t)((x >> 14) >> (x % 40)); /* < 2^50 ns (13 days) */
        check_us(b);
        check_slice(b, b + (int64_t)((x >> 20) % 5000)); /* zero-length ones among them */
        check_slice(b, b + (int64_t)(x >> 24));
    }
    for (int64_t b = 0; b < 5000; b++)
        for (int64_t d = 0; d < 5; d++) check_slice(b, b + d);
    char a[16];
    *ludus__fmt_us(a, -5) = 0; /* viewers drop negative times: clamped */
    assert_string_equal(a, "0");
}

/* ludus__grid is round(ns x 4.096), (u x 512 + 62) / 125 with u clamped
 * (writer.h): its multiply below 2^54 ns gives that quotient exactly,
 * checked on both sides of 2^54, at the largest remainders (x / 125's
 * fraction 124/125, where a multiply's error would show) and on random
 * values of every length. */
static uint64_t grid_by_division(int64_t ns) {
    uint64_t u = ns < 0 ? 0 : (uint64_t)ns;
    if (u > (UINT64_MAX >> 9) - 1) u = (UINT64_MAX >> 9) - 1;
    return (u * 512u + 62u) / 125u;
}

static void test_grid_quotient(void **state) {
    (void)state;
    const int64_t top = (int64_t)1 << 54;
    for (int64_t d = -300; d <= 300; d++) {
        assert_true(ludus__grid(top + d) == grid_by_division(top + d));
        assert_true(ludus__grid(d) == grid_by_division(d));
        assert_true(ludus__grid(INT64_MAX + (d < 0 ? d : -d)) == grid_by_division(INT64_MAX + (d < 0 ? d : -d)));
    }
    assert_true(ludus__grid(INT64_MIN) == 0);
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t ns = (int64_t)((x >> 9) >> (x % 48)); /* < 2^55: both sides of 2^54 */
        assert_true(ludus__grid(ns) == grid_by_division(ns));
        /* the largest remainder: (u x 512 + 62) mod 125 = 124 when u mod 125 = 26 */
        uint64_t u = 125u * ((x >> 11) % ((UINT64_C(1) << 55) / 125)) + 26u;
        assert_true((u * 512u + 62u) % 125u == 124u);
        assert_true(ludus__grid((int64_t)u) == grid_by_division((int64_t)u));
    }
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

/* ludus_text_csv into a string: flags as given. */
static const char *csv_of(const char *text, size_t n, unsigned flags) {
    static sink s;
    s.n = 0;
    assert_int_equal(ludus_text_csv(text, n, flags, sink_write, &s), 0);
    s.b[s.n] = 0;
    return s.b;
}

static int fail_write(void *ud, const void *p, size_t n) {
    (void)ud, (void)p, (void)n;
    return -1;
}

/* The one CSV writer: the report's cells (ludus__w_csv: shown) and the SQL
 * tool's (raw, or shown on a terminal) are the same bytes by one rule. The
 * report once defused only = + - @ at the very start: a ' before one went
 * through as it was (the old code had two writers; ludus_text_csv did not
 * exist). */
static void test_one_csv_writer(void **state) {
    (void)state;
    static const char *const texts[] = {"=SUM(A1)", "a,\"b\"", "line\nbreak\r", "plain", "'+x",
                                        "''@y",     "\t=1",    " pad ",         "",      "\x1b[31mred"};
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        char report[sizeof((sink *)0)->b + 1];
        strcpy(report, written(csv, texts[i], strlen(texts[i])));
        assert_string_equal(csv_of(texts[i], strlen(texts[i]), LUDUS_CSV_SHOW), report);
    }
    /* raw (a file, a pipe): bytes as they are, RFC 4180 quoting, formulas defused */
    assert_string_equal(csv_of("'+x", 3, 0), "\"''+x\"");
    assert_string_equal(csv_of("\t=1", 3, 0), "\"'\t=1\"");
    assert_string_equal(csv_of("\r=1", 3, 0), "\"'\r=1\"");
    assert_string_equal(csv_of("line\nbreak", 10, 0), "\"line\nbreak\"");
    assert_string_equal(csv_of("-2", 2, 0), "\"'-2\"");
    assert_string_equal(csv_of("plain", 5, 0), "plain");
    assert_string_equal(csv_of("", 0, 0), "");
    assert_string_equal(csv_of("", 0, LUDUS_CSV_QUOTE_EMPTY), "\"\"");
    /* shown (a terminal, a report): control characters as \xHH, so a tab is text */
    assert_string_equal(csv_of("\t=1", 3, LUDUS_CSV_SHOW), "\\x09=1");
    assert_string_equal(csv_of("''@y", 4, LUDUS_CSV_SHOW), "\"'''@y\"");
    assert_string_equal(csv_of("\x1b[31m", 5, LUDUS_CSV_SHOW), "\\x1b[31m");
    char big[1000]; /* longer than the writer's buffer: written in pieces, quotes doubled */
    memset(big, '"', sizeof big);
    assert_int_equal(strlen(csv_of(big, sizeof big, 0)), 2 * sizeof big + 2);
    assert_int_equal(ludus_text_csv("x", 1, 0, fail_write, NULL), LUDUS_EIO);
    assert_int_equal(ludus_text_csv(NULL, 1, 0, sink_write, NULL), LUDUS_EINVAL);
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

/* The JSON exporter's table of fractions writes what ludus__fmt_grid does:
 * every fraction, integer parts of each length (the eight-digit path and
 * the general one), a million random values. */
static void test_grid_table(void **state) {
    (void)state;
    ludus__grid_fracs *t = malloc(sizeof *t);
    assert_non_null(t);
    ludus__grid_fracs_init(t);
    char a[64], b[64];
    uint64_t q = 0;
    for (int d = 0; d < 17; d++) {
        for (uint64_t f = 0; f < 4096; f++) {
            uint64_t g = (q << 12) | f, g1 = ((q + 1) << 12) | f;
            *ludus__fmt_grid(a, g) = 0;
            *ludus__fmt_grid_t(b, g, t) = 0;
            assert_string_equal(a, b);
            *ludus__fmt_grid(a, g1) = 0;
            *ludus__fmt_grid_t(b, g1, t) = 0;
            assert_string_equal(a, b);
        }
        q = q * 10 + 9; /* 0, 9, 99, ... */
    }
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        uint64_t g = x >> (i % 40); /* values of every size */
        *ludus__fmt_grid(a, g) = 0;
        *ludus__fmt_grid_t(b, g, t) = 0;
        assert_string_equal(a, b);
    }
    free(t);
}

/* Doubling from first, the contents kept, each capacity type written back
 * whole; a capacity past its type (or a size_t of bytes) refused with the
 * array and its capacity unchanged. */
static void test_grow(void **state) {
    (void)state;
    uint32_t *a = NULL, n = 0, cap = 0, caps = 0;
    for (uint32_t i = 0; i < 100; i++) {
        uint32_t before = cap;
        assert_int_equal(LUDUS__GROW(a, n, cap, 4), 0);
        if (cap != before) {
            caps++;
            assert_true(cap == (before ? before * 2 : 4u));
        }
        a[n++] = i * 7;
    }
    assert_true(cap == 128 && caps == 6);
    for (uint32_t i = 0; i < n; i++) assert_true(a[i] == i * 7);
    ludus__free(a);

    double *d = NULL;
    size_t dn = 0, dcap = 0;
    for (size_t i = 0; i < 1000; i++) {
        assert_int_equal(LUDUS__GROW(d, dn, dcap, 16), 0);
        d[dn++] = (double)i;
    }
    assert_true(dcap == 1024 && d[999] == 999.0);
    ludus__free(d);

    /* refused before any allocation: the pointer stays NULL, the capacity as it was */
    uint32_t *big = NULL, bign = UINT32_C(0x80000000), bigcap = UINT32_C(0x80000000);
    assert_int_equal(LUDUS__GROW(big, bign, bigcap, 16), -1);
    assert_true(big == NULL && bigcap == UINT32_C(0x80000000));
    uint64_t *wide = NULL;
    size_t widen = SIZE_MAX / 8, widecap = SIZE_MAX / 8;
    assert_int_equal(LUDUS__GROW(wide, widen, widecap, 16), -1);
    assert_true(wide == NULL && widecap == SIZE_MAX / 8);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_u64),          cmocka_unit_test(test_us),
                                       cmocka_unit_test(test_grid_table),   cmocka_unit_test(test_grid_quotient),
                                       cmocka_unit_test(test_name_writers), cmocka_unit_test(test_text_cut),
                                       cmocka_unit_test(test_pb_str),       cmocka_unit_test(test_one_csv_writer),
                                       cmocka_unit_test(test_grow)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
