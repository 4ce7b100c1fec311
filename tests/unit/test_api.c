/* Integration API (sites by id, caller flow ids, counters), run-time names
 * (LUDUS_PROFILE_SCOPE_DYN and the interner), the categories filter, and
 * LUDUS_PROFILE_SCOPE_FINE. Built at LUDUS_PROFILE_LEVEL 2. */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

#if LUDUS_PROFILE_LEVEL != 2
#error "test_api.c is built at LUDUS_PROFILE_LEVEL 2"
#endif

static void test_register_site_ids(void **state) {
    (void)state;
    ludus_site_desc a = {"api job", "jobs", "jobs.c", 10};
    char name_copy[16];
    strcpy(name_copy, "api job");
    ludus_site_desc a2 = {name_copy, "jobs", "jobs.c", 10};
    ludus_site_desc b = {"api job", "jobs", "jobs.c", 11};
    ludus_site_desc c = {"api job", "other", "jobs.c", 10};
    uint32_t ia = ludus_site_register(&a);
    assert_true(ia > 0);
    assert_int_equal(ludus_site_register(&a2), ia); /* same desc, other pointers */
    strcpy(name_copy, "changed");                   /* the library keeps a copy */
    assert_int_equal(ludus_site_register(&a), ia);
    uint32_t ib = ludus_site_register(&b), ic = ludus_site_register(&c);
    assert_true(ib > 0 && ib != ia);
    assert_true(ic > 0 && ic != ia && ic != ib);
    ludus_site_desc empty = {"", NULL, NULL, 0};
    ludus_site_desc noname = {NULL, "x", NULL, 0};
    assert_int_equal(ludus_site_register(&empty), 0);
    assert_int_equal(ludus_site_register(&noname), 0);
    assert_int_equal(ludus_site_register(NULL), 0);
    uint32_t n1 = ludus_site_intern("interned");
    assert_true(n1 > 0);
    assert_int_equal(ludus_site_intern("interned"), n1);
    assert_true(ludus_site_intern("interned 2") != n1);
    assert_int_equal(ludus_site_intern(NULL), 0);

    lt_begin(NULL);
    ludus_span_begin(ia);
    ludus_span_begin(ib);
    ludus_span_end();
    ludus_span_end();
    ludus_span_begin(0); /* invalid ids record a span named for the mistake */
    ludus_span_begin(999999);
    ludus_span_end();
    lt_end();
    assert_int_equal(lt_summary().events, 4 + 3);
    assert_int_equal(lt_summary().incomplete, 1); /* the first invalid span, never ended */
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "<invalid site id>"), 2);
    assert_int_equal(lt_count(&t, 'B', "api job"), 2);
    long k = lt_find(&t, 0, 'B', "api job");
    assert_string_equal(t.ev[k].cat, "jobs");
    assert_int_equal(lt_match_end(&t, (size_t)k), k + 3);
    lt_trace_free(&t);
}

static void test_caller_flows(void **state) {
    (void)state;
    uint32_t site = ludus_site_intern("caller flow");
    const uint64_t id = LUDUS_CALLER_FLOW_ID_BIT | 0x2a;
    lt_begin(NULL);
    {
        LUDUS_PROFILE_SCOPE(Submit);
        ludus_flow_begin(site, id);
        ludus_flow_begin(site, 7);                         /* no caller bit: ignored */
        ludus_flow_begin(0, LUDUS_CALLER_FLOW_ID_BIT | 1); /* invalid site: a flow named for the mistake */
    }
    {
        LUDUS_PROFILE_SCOPE(Run);
        ludus_flow_end(id);
        ludus_flow_end(LUDUS_CALLER_FLOW_ID_BIT | 1);
        ludus_flow_end(7); /* ignored */
    }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(t.n_s, 2);
    assert_int_equal(t.n_f, 2);
    long s = lt_find(&t, 0, 's', NULL), f = lt_find(&t, 0, 'f', NULL);
    assert_string_equal(t.ev[s].id, "0x800000000000002a");
    assert_string_equal(t.ev[f].id, "0x800000000000002a");
    assert_int_equal(lt_count(&t, 'X', "caller flow"), 1);
    assert_int_equal(lt_count(&t, 'X', "<invalid site id>"), 1);
    assert_int_equal(lt_summary().events, 4 + 4);
    lt_trace_free(&t);
}

/* Flow slices carry the flow's name: literals of every length (their
 * addresses may be odd) and run-time names at any arena offset. */
static void test_flow_names(void **state) {
    (void)state;
    ludus_site_intern("ab"); /* 3 arena bytes: the next copy lands at an odd offset */
    uint32_t odd = ludus_site_intern("odd offset flow");
    lt_begin(NULL);
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(A));
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Bc));
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Def));
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Ghij));
    LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Klmno));
    ludus_flow_begin(odd, LUDUS_CALLER_FLOW_ID_BIT | 1);
    ludus_flow_end(LUDUS_CALLER_FLOW_ID_BIT | 1);
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    static const char *const names[] = {"A", "Bc", "Def", "Ghij", "Klmno", "odd offset flow"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (lt_count(&t, 'X', names[i]) != 1) {
            for (size_t k = 0; k < t.n; k++)
                if (t.ev[k].ph == 'X') fprintf(stderr, "  flow slice \"%s\"\n", t.ev[k].name);
            fail_msg("no flow slice named \"%s\"", names[i]);
        }
    }
    lt_trace_free(&t);
}

static void test_counters(void **state) {
    (void)state;
    ludus_site_desc d = {"queue depth", NULL, NULL, 0};
    uint32_t ci = ludus_site_register(&d);
    uint32_t cf = ludus_site_intern("load factor");
    static const int64_t iv[] = {0, 1, -7, INT64_MAX, INT64_MIN, 42};
    static const double dv[] = {0.5, -2.25, 1e300, 3.0};
    lt_begin(NULL);
    for (size_t i = 0; i < sizeof iv / sizeof iv[0]; i++) ludus_counter_sample(ci, iv[i]);
    for (size_t i = 0; i < sizeof dv / sizeof dv[0]; i++) ludus_counter_sample_f64(cf, dv[i]);
    ludus_counter_sample(0, 5); /* invalid id: a counter named for the mistake */
    lt_end();
    assert_int_equal(lt_summary().events, 11);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(t.n_C, 11);
    assert_int_equal(lt_count(&t, 'C', "<invalid site id>"), 1);
    size_t ni = 0, nd = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strcmp(t.ev[i].name, "<invalid site id>") == 0) continue;
        if (strcmp(t.ev[i].name, "queue depth") == 0) {
            assert_true(t.ev[i].value_is_int);
            assert_int_equal(t.ev[i].ivalue, iv[ni]);
            ni++;
        } else {
            assert_string_equal(t.ev[i].name, "load factor");
            assert_true(t.ev[i].dvalue == dv[nd]);
            nd++;
        }
    }
    assert_int_equal(ni, 6);
    assert_int_equal(nd, 4);
    lt_trace_free(&t);
}

static const char *make_name(int i, char *buf) {
    snprintf(buf, 32, "dyn %d", i % 3);
    return buf;
}

static void test_dynamic_names(void **state) {
    (void)state;
    char buf[32];
    lt_begin(NULL);
    for (int i = 0; i < 9; i++) {
        LUDUS_PROFILE_SCOPE_DYN(make_name(i, buf));
        memset(buf, 'x', sizeof buf - 1); /* the name was copied */
        buf[sizeof buf - 1] = 0;
    }
    { LUDUS_PROFILE_SCOPE_DYN("with \"quotes\" and \\ and \n"); }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "dyn 0"), 3);
    assert_int_equal(lt_count(&t, 'B', "dyn 1"), 3);
    assert_int_equal(lt_count(&t, 'B', "dyn 2"), 3);
    assert_int_equal(lt_count(&t, 'B', "with \"quotes\" and \\ and \n"), 1);
    assert_int_equal(t.n_B, 10);
    lt_trace_free(&t);
    /* the interner resolves the same text to the scope's site */
    assert_int_equal(ludus_site_intern("dyn 1"), ludus_site_intern("dyn 1"));
}

static void test_categories_filter(void **state) {
    (void)state;
    ludus_site_desc dc = {"c counter", "c", NULL, 0};
    ludus_site_desc da = {"a counter", "a", NULL, 0};
    uint32_t sc = ludus_site_register(&dc), sa = ludus_site_register(&da);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.categories = "a,b";
    lt_begin(&d);
    {
        LUDUS_PROFILE_SCOPE(InA, a);
        {
            LUDUS_PROFILE_SCOPE(InC, c); /* filtered: B and E */
            LUDUS_PROFILE_SCOPE(InB, b);
        }
        LUDUS_PROFILE_SCOPE(NoCategory);
        LUDUS_PROFILE_MARK(Mark);
        ludus_counter_sample(sc, 1); /* filtered */
        ludus_counter_sample(sa, 2);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.filtered, 3);
    assert_int_equal(s.events, 2 * 3 + 1 + 1);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "InA"), 1);
    assert_int_equal(lt_count(&t, 'B', "InB"), 1);
    assert_int_equal(lt_count(&t, 'B', "NoCategory"), 1);
    assert_int_equal(lt_count(&t, 'B', "InC"), 0);
    assert_int_equal(lt_count(&t, 'C', "c counter"), 0);
    assert_int_equal(lt_count(&t, 'C', "a counter"), 1);
    /* InB nests directly in InA once InC is gone */
    long a = lt_find(&t, 0, 'B', "InA"), b = lt_find(&t, 0, 'B', "InB");
    assert_int_equal(b, a + 1);
    assert_int_equal(lt_match_end(&t, (size_t)b), b + 1);
    lt_trace_free(&t);
    /* no filter in the next capture */
    lt_begin(NULL);
    { LUDUS_PROFILE_SCOPE(InC2, c); }
    lt_end();
    assert_int_equal(lt_summary().filtered, 0);
    assert_int_equal(lt_summary().events, 2);
}

static int fine_calls;
static int fine(int n) {
    LUDUS_PROFILE_SCOPE_FINE(Fine);
    fine_calls++;
    return n;
}

static void test_scope_fine_at_level_2(void **state) {
    (void)state;
    lt_begin(NULL);
    for (int i = 0; i < 4; i++) fine(i);
    { LUDUS_PROFILE_SCOPE_FINE(FineCat, detail); }
    lt_end();
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 1);
    assert_int_equal(lt_count(&t, 'B', "Fine"), 4);
    long k = lt_find(&t, 0, 'B', "FineCat");
    assert_true(k >= 0);
    assert_string_equal(t.ev[k].cat, "detail");
    lt_trace_free(&t);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_register_site_ids, lt_teardown),
        cmocka_unit_test_teardown(test_caller_flows, lt_teardown),
        cmocka_unit_test_teardown(test_flow_names, lt_teardown),
        cmocka_unit_test_teardown(test_counters, lt_teardown),
        cmocka_unit_test_teardown(test_dynamic_names, lt_teardown),
        cmocka_unit_test_teardown(test_categories_filter, lt_teardown),
        cmocka_unit_test_teardown(test_scope_fine_at_level_2, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
