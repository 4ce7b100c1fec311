/* Scope annotations (LUDUS_PROFILE_ANNOTATE, _TEXT): each belongs to the
 * scope open on its thread when it was recorded (the innermost, lexical or
 * span); exports write them as the scope's args (JSON) and debug
 * annotations (pftrace), the last value of a key wins, one with no scope
 * open is an instant of its own; a .ludus file keeps them. (The analysis of
 * annotations: tests/analysis/test_annotations_analysis.c.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <json.h>
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* The args object of the n-th (0-based) complete event named name, or NULL. */
static json_object *args_of(json_object *root, const char *name, int n) {
    json_object *arr;
    assert_true(json_object_object_get_ex(root, "traceEvents", &arr));
    for (size_t i = 0; i < json_object_array_length(arr); i++) {
        json_object *e = json_object_array_get_idx(arr, i), *v, *args;
        if (!json_object_object_get_ex(e, "name", &v) || strcmp(json_object_get_string(v), name) != 0) continue;
        if (!json_object_object_get_ex(e, "ph", &v) || strcmp(json_object_get_string(v), "X") != 0) continue;
        if (n-- > 0) continue;
        return json_object_object_get_ex(e, "args", &args) ? args : NULL;
    }
    return NULL;
}

static json_object *arg(json_object *args, const char *key) {
    json_object *v = NULL;
    assert_non_null(args);
    if (!json_object_object_get_ex(args, key, &v)) fail_msg("no arg \"%s\" in %s", key, json_object_get_string(args));
    return v;
}

static int nkeys(json_object *args) {
    int n = 0;
    json_object_object_foreach(args, k, v) {
        (void)k;
        (void)v;
        n++;
    }
    return n;
}

static json_object *export_parse(ludus_capture *c) {
    char *json = lt_capture_json(c);
    json_object *root = json_tokener_parse(json);
    assert_non_null(root);
    lt_trace t;
    lt_trace_parse(&t, json);
    lt_trace_check(&t, 1); /* every annotation counted: written, superseded or dropped */
    lt_trace_free(&t);
    free(json);
    return root;
}

static void record_values(void) {
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Values);
        LUDUS_PROFILE_ANNOTATE(Int, -42);
        LUDUS_PROFILE_ANNOTATE(Unsigned, UINT64_MAX);
        LUDUS_PROFILE_ANNOTATE(Double, 0.25);
        LUDUS_PROFILE_ANNOTATE(Float, 1.5f);
        LUDUS_PROFILE_ANNOTATE(Flag, (_Bool)1);
        LUDUS_PROFILE_ANNOTATE_TEXT(Asset, "rock</script><b>\"q\"\\\n\x01");
        LUDUS_PROFILE_ANNOTATE_TEXT("Empty text", "");
    }
    lt_end();
}

static void test_values_and_types(void **state) {
    (void)state;
    record_values();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    json_object *root = export_parse(c);
    json_object *a = args_of(root, "Values", 0);
    assert_int_equal(nkeys(a), 7);
    assert_true(json_object_is_type(arg(a, "Int"), json_type_int));
    assert_int_equal(json_object_get_int64(arg(a, "Int")), -42);
    assert_int_equal(json_object_get_uint64(arg(a, "Unsigned")), UINT64_MAX);
    assert_true(json_object_get_double(arg(a, "Double")) == 0.25);
    assert_true(json_object_get_double(arg(a, "Float")) == 1.5);
    assert_int_equal(json_object_get_int64(arg(a, "Flag")), 1);
    assert_string_equal(json_object_get_string(arg(a, "Asset")), "rock</script><b>\"q\"\\\n\x01");
    assert_string_equal(json_object_get_string(arg(a, "Empty text")), "");
    json_object_put(root);
    ludus_capture_release(c);
}

/* Each annotation goes to the scope open when it was recorded: the child
 * while it runs, the parent before and after it; a span when it is the
 * innermost; none open: an instant. */
static void test_attach_to_open_scope(void **state) {
    (void)state;
    lt_begin(NULL);
    LUDUS_PROFILE_ANNOTATE(Lonely, 7); /* no scope open */
    {
        LUDUS_PROFILE_SCOPE(Parent);
        LUDUS_PROFILE_ANNOTATE(Before, 1);
        {
            LUDUS_PROFILE_SCOPE(Child);
            LUDUS_PROFILE_ANNOTATE(InChild, 2);
        }
        LUDUS_PROFILE_ANNOTATE(After, 3);
        LUDUS_PROFILE_BEGIN(Span);
        LUDUS_PROFILE_ANNOTATE(InSpan, 4);
        {
            LUDUS_PROFILE_SCOPE(InsideSpan);
            LUDUS_PROFILE_ANNOTATE(InLexical, 5);
        }
        LUDUS_PROFILE_END();
    }
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    json_object *root = export_parse(c);
    json_object *p = args_of(root, "Parent", 0), *ch = args_of(root, "Child", 0), *sp = args_of(root, "Span", 0),
                *in = args_of(root, "InsideSpan", 0);
    assert_int_equal(nkeys(p), 2);
    assert_int_equal(json_object_get_int(arg(p, "Before")), 1);
    assert_int_equal(json_object_get_int(arg(p, "After")), 3);
    assert_int_equal(nkeys(ch), 1);
    assert_int_equal(json_object_get_int(arg(ch, "InChild")), 2);
    assert_int_equal(nkeys(sp), 1);
    assert_int_equal(json_object_get_int(arg(sp, "InSpan")), 4);
    assert_int_equal(nkeys(in), 1);
    assert_int_equal(json_object_get_int(arg(in, "InLexical")), 5);
    /* the lone one: an instant of category "annotation" */
    char *json = lt_capture_json(c);
    assert_non_null(strstr(json, "\"name\":\"Lonely\",\"cat\":\"annotation\""));
    free(json);
    json_object_put(root);
    ludus_capture_release(c);
}

/* One key twice (at two lines) in one scope: the last value; more keys than
 * a scope keeps: dropped and counted; a text longer than the limit: cut. */
static void test_last_value_limits(void **state) {
    (void)state;
    static char long_text[LUDUS_ANNOTATION_TEXT_MAX + 100];
    memset(long_text, 'x', sizeof long_text - 1);
    /* a UTF-8 character across the limit (U+20AC, 3 bytes): cut before it */
    static char euro_text[LUDUS_ANNOTATION_TEXT_MAX + 100];
    memset(euro_text, 'y', sizeof euro_text - 1);
    memcpy(euro_text + LUDUS_ANNOTATION_TEXT_MAX - 1, "\xe2\x82\xac", 3);
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Repeated);
        LUDUS_PROFILE_ANNOTATE(Key, 1);
        LUDUS_PROFILE_ANNOTATE(Key, 2);
        for (int i = 3; i <= 5; i++) LUDUS_PROFILE_ANNOTATE(Key, i);
        LUDUS_PROFILE_ANNOTATE_TEXT(Long, long_text);
        LUDUS_PROFILE_ANNOTATE_TEXT(Euro, euro_text);
    }
    {
        LUDUS_PROFILE_SCOPE(Many);
        for (int i = 0; i < 20; i++) LUDUS_PROFILE_ANNOTATE(ManyKey, i); /* one key: superseded 19 times */
        LUDUS_PROFILE_ANNOTATE(K0, 0);
        LUDUS_PROFILE_ANNOTATE(K1, 1);
        LUDUS_PROFILE_ANNOTATE(K2, 2);
        LUDUS_PROFILE_ANNOTATE(K3, 3);
        LUDUS_PROFILE_ANNOTATE(K4, 4);
        LUDUS_PROFILE_ANNOTATE(K5, 5);
        LUDUS_PROFILE_ANNOTATE(K6, 6);
        LUDUS_PROFILE_ANNOTATE(K7, 7);
        LUDUS_PROFILE_ANNOTATE(K8, 8);
        LUDUS_PROFILE_ANNOTATE(K9, 9);
        LUDUS_PROFILE_ANNOTATE(K10, 10);
        LUDUS_PROFILE_ANNOTATE(K11, 11);
        LUDUS_PROFILE_ANNOTATE(K12, 12);
        LUDUS_PROFILE_ANNOTATE(K13, 13);
        LUDUS_PROFILE_ANNOTATE(K14, 14); /* 16 keys with ManyKey */
        LUDUS_PROFILE_ANNOTATE(K15, 15); /* dropped */
        LUDUS_PROFILE_ANNOTATE(K16, 16); /* dropped */
    }
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    json_object *root = export_parse(c);
    json_object *r = args_of(root, "Repeated", 0);
    assert_int_equal(nkeys(r), 3);
    assert_int_equal(json_object_get_int(arg(r, "Key")), 5);
    assert_int_equal(strlen(json_object_get_string(arg(r, "Long"))), LUDUS_ANNOTATION_TEXT_MAX);
    const char *euro = json_object_get_string(arg(r, "Euro")); /* no half character (\ufffd) at the cut */
    assert_int_equal(strlen(euro), LUDUS_ANNOTATION_TEXT_MAX - 1);
    assert_int_equal(euro[LUDUS_ANNOTATION_TEXT_MAX - 2], 'y');
    json_object *m = args_of(root, "Many", 0);
    assert_int_equal(nkeys(m), 16);
    assert_int_equal(json_object_get_int(arg(m, "ManyKey")), 19);
    json_object *meta, *v;
    assert_true(json_object_object_get_ex(root, "metadata", &meta));
    assert_true(json_object_object_get_ex(meta, "annotations_dropped", &v));
    assert_int_equal(json_object_get_int(v), 2);
    assert_true(json_object_object_get_ex(meta, "annotations_superseded", &v));
    assert_int_equal(json_object_get_int(v), 4 + 19);
    /* both limits are losses of the capture, counted once for every export
     * and kept by a .ludus file (the old code counted neither: the keys in
     * the JSON export only, the cut texts nowhere) */
    assert_true(json_object_object_get_ex(meta, "annotation_keys_dropped", &v));
    assert_int_equal(json_object_get_int(v), 2);
    assert_true(json_object_object_get_ex(meta, "annotation_texts_cut", &v));
    assert_int_equal(json_object_get_int(v), 2); /* Long and Euro */
    json_object_put(root);
    for (unsigned flags = 0; flags <= LUDUS_SAVE_RAW + 1; flags++) {
        lt_buf b = {0};
        ludus_capture *f = c;
        if (flags <= LUDUS_SAVE_RAW) {
            assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, flags, lt_buf_write, &b), 0);
            assert_int_equal(ludus_capture_open_memory(b.data, b.len, &f), 0);
        }
        ludus_capture_summary sum;
        assert_int_equal(ludus_capture_get_summary(f, &sum), 0);
        assert_int_equal(sum.annotation_keys_dropped, 2);
        assert_int_equal(sum.annotation_texts_cut, 2);
        if (f != c) ludus_capture_release(f);
        lt_buf_free(&b);
    }
    ludus_capture_release(c);
}

/* A .ludus file keeps the annotations (compact and raw): its JSON is the
 * live capture's. */
static void test_file_round_trip(void **state) {
    (void)state;
    record_values();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    char *live = lt_capture_json(c);
    for (unsigned flags = 0; flags <= LUDUS_SAVE_RAW; flags++) {
        lt_buf b = {0};
        assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, flags, lt_buf_write, &b), 0);
        ludus_capture *f;
        assert_int_equal(ludus_capture_open_memory(b.data, b.len, &f), 0);
        char *back = lt_capture_json(f);
        const char *x = strstr(live, "\"name\":\"Values\""), *y = strstr(back, "\"name\":\"Values\"");
        assert_non_null(x);
        assert_non_null(y);
        assert_memory_equal(x, y, strchr(x, '}') + 2 - x); /* the args object and what follows it */
        free(back);
        ludus_capture_release(f);
        lt_buf_free(&b);
    }
    free(live);
    ludus_capture_release(c);
}

/* Nothing is recorded outside a capture, and the value is not evaluated. */
static void test_idle(void **state) {
    (void)state;
    int n = 0;
    {
        LUDUS_PROFILE_SCOPE(Idle);
        LUDUS_PROFILE_ANNOTATE(N, ++n);
    }
    assert_int_equal(n, 0); /* not even evaluated */
    lt_begin(NULL);
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_values_and_types, lt_teardown),
        cmocka_unit_test_teardown(test_attach_to_open_scope, lt_teardown),
        cmocka_unit_test_teardown(test_last_value_limits, lt_teardown),
        cmocka_unit_test_teardown(test_file_round_trip, lt_teardown),
        cmocka_unit_test_teardown(test_idle, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
