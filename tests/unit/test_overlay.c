/* The overlay's top scopes (ludus_overlay_top_scopes and the lines of
 * ludus_overlay_format): exclusive time checked against the analysis over
 * the same window and against the frame's own inclusive time (relations
 * that hold whatever the timing), exact calls per frame on every thread,
 * the window's frames, unended calls counted apart, the text's lines and
 * their escaping of hostile names, defaults and errors. */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_util.h"

static volatile uint64_t sink;
static void spin(uint32_t units) {
    for (uint32_t i = 0; i < units * 1000u; i++) sink += i;
}

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Worker");
    for (int k = 0; k < 3; k++) {
        LUDUS_PROFILE_SCOPE(WorkerJob);
        spin(5);
    }
    return NULL;
}

/* One frame: Frame { Parent { spin; Child x2 }, Light x3 }, a worker
 * thread's 3 WorkerJob calls. */
static void one_frame(void) {
    {
        LUDUS_PROFILE_SCOPE(Frame);
        {
            LUDUS_PROFILE_SCOPE(Parent);
            spin(2);
            for (int k = 0; k < 2; k++) {
                LUDUS_PROFILE_SCOPE(Child);
                spin(20);
            }
        }
        for (int k = 0; k < 3; k++) {
            LUDUS_PROFILE_SCOPE(Light);
            spin(1);
        }
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, worker, NULL), 0);
        assert_int_equal(pthread_join(t, NULL), 0);
    }
    LUDUS_PROFILE_FRAME();
}

static const ludus_top_scope *find(const ludus_top_scope *s, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(s[i].name, name)) return &s[i];
    fail_msg("no top scope \"%s\"", name);
    return NULL;
}

static int64_t an_total(const ludus_analysis *a, const char *name, int inclusive, uint64_t *count) {
    int64_t i = ludus_analysis_find_site(a, name);
    assert_true(i >= 0);
    const ludus_site_stats *s = ludus_analysis_site(a, (uint32_t)i);
    const ludus_duration_stats *d = inclusive ? &s->inclusive : &s->exclusive;
    if (count) *count = d->count;
    return d->total_ns;
}

/* 10 marks: frames 1..9 complete; a 5-frame window is frames 5..9. */
static void test_top_scopes_exact(void **st) {
    (void)st;
    lt_begin(NULL);
    for (int f = 0; f < 10; f++) one_frame();
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_overlay_desc d = {.window_frames = 5};
    ludus_top_scope s[16];
    ludus_top_window w;
    int n = ludus_overlay_top_scopes(c, &d, s, 16, &w);
    assert_int_equal(n, 5); /* Frame, Parent, Child, Light, WorkerJob */
    assert_int_equal(w.scopes, 5);
    assert_int_equal(w.frames, 5);
    assert_int_equal(w.first_frame, 5);
    assert_int_equal(w.last_frame, 9);
    assert_int_equal(w.frame_marks, 10);
    assert_string_equal(w.frame_thread, "main");
    assert_true(w.begin_ns < w.end_ns && w.last_frame_ns > 0 && w.last_frame_ns < w.end_ns - w.begin_ns);
    assert_int_equal(w.incomplete, 0);
    assert_int_equal(w.dropped, 0);
    assert_int_equal(w.calls, 5 * (1 + 1 + 2 + 3 + 3));
    for (int i = 1; i < n; i++) assert_true(s[i - 1].exclusive_ns >= s[i].exclusive_ns); /* most first */
    /* calls: exact, per frame and in the last frame, on every thread */
    const char *names[] = {"Frame", "Parent", "Child", "Light", "WorkerJob"};
    const uint64_t per_frame[] = {1, 1, 2, 3, 3};
    for (int k = 0; k < 5; k++) {
        const ludus_top_scope *x = find(s, n, names[k]);
        assert_int_equal(x->calls, 5 * per_frame[k]);
        assert_true(x->calls_per_frame == (double)per_frame[k]);
        assert_int_equal(x->last_calls, per_frame[k]);
        assert_true(x->exclusive_ns_per_frame * 5 == (double)x->exclusive_ns);
        assert_true(x->last_exclusive_ns > 0 && x->last_exclusive_ns <= x->exclusive_ns);
        assert_non_null(strstr(x->file, "test_overlay.c"));
        assert_true(x->line > 0);
    }
    /* the analysis over the same window agrees to the ns */
    ludus_analysis_desc ad = {.window = LUDUS_WINDOW_LAST_FRAMES, .last_frames = 5};
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, &ad, &a), 0);
    for (int k = 0; k < 5; k++) {
        const ludus_top_scope *x = find(s, n, names[k]);
        uint64_t count;
        assert_int_equal(x->exclusive_ns, an_total(a, names[k], 0, &count));
        assert_int_equal(x->calls, count);
        uint64_t calls;
        int64_t excl;
        int64_t site = ludus_analysis_find_site(a, names[k]);
        assert_int_equal(ludus_analysis_site_in_frame(a, (uint32_t)site, w.last_frame, &calls, &excl), 0);
        assert_int_equal(x->last_calls, calls);
        assert_int_equal(x->last_exclusive_ns, excl);
    }
    /* exclusive = inclusive less the children, whatever the timing: the
     * main thread's exclusive times add up to Frame's inclusive time, and
     * Parent's to its inclusive time less Child's */
    int64_t frame_incl = an_total(a, "Frame", 1, NULL), parent_incl = an_total(a, "Parent", 1, NULL);
    int64_t child_incl = an_total(a, "Child", 1, NULL);
    const ludus_top_scope *fr = find(s, n, "Frame"), *pa = find(s, n, "Parent"), *ch = find(s, n, "Child"),
                          *li = find(s, n, "Light");
    assert_int_equal(fr->exclusive_ns + pa->exclusive_ns + ch->exclusive_ns + li->exclusive_ns, frame_incl);
    assert_int_equal(pa->exclusive_ns, parent_incl - child_incl);
    assert_int_equal(ch->exclusive_ns, child_incl); /* a leaf */
    assert_true(pa->exclusive_ns < parent_incl);
    ludus_analysis_destroy(a);

    /* cap smaller than the scopes: the first ones, the count says how many */
    ludus_top_scope two[2];
    assert_int_equal(ludus_overlay_top_scopes(c, &d, two, 2, &w), 2);
    assert_int_equal(w.scopes, 5);
    assert_string_equal(two[0].name, s[0].name);
    assert_string_equal(two[1].name, s[1].name);
    /* the window only, and the window larger than the capture: every complete frame */
    ludus_overlay_desc big = {.window_frames = 1000};
    assert_int_equal(ludus_overlay_top_scopes(c, &big, NULL, 0, &w), 0);
    assert_int_equal(w.frames, 9);
    assert_int_equal(w.first_frame, 1);
    assert_int_equal(w.calls, 9 * 10u);
    /* desc NULL: 120 frames, here all 9; window NULL is fine */
    assert_int_equal(ludus_overlay_top_scopes(c, NULL, s, 16, NULL), 5);
    assert_int_equal(find(s, 5, "Child")->calls, 18);
    ludus_capture_release(c);
}

static void test_top_scopes_text(void **st) {
    (void)st;
    lt_begin(NULL);
    for (int f = 0; f < 10; f++) one_frame();
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    char text[8192];
    ludus_overlay_desc d = {.window_frames = 5, .scopes_from = c, .top_scopes = 3};
    int len = ludus_overlay_format(text, sizeof text, &d);
    assert_true(len > 0 && (size_t)len < sizeof text);
    if (getenv("LUDUS_TEST_SHOW")) fputs(text, stdout);
    const char *top = strstr(text, "top scopes, exclusive per frame over frames 5..9 of the capture (5 frames, ");
    assert_non_null(top);
    assert_non_null(strstr(top, "; last "));
    /* 3 lines of scopes, then the count of the others */
    const char *p = strchr(top, '\n') + 1;
    for (int k = 0; k < 3; k++) {
        assert_true(p[0] == ' ' && p[1] == ' ' && p[2] != ' ');
        const char *eol = strchr(p, '\n');
        assert_non_null(eol);
        char line[256];
        snprintf(line, sizeof line, "%.*s", (int)(eol - p), p);
        assert_true(strstr(line, " ms (") || strstr(line, " us ("));
        assert_non_null(strstr(line, " calls); last frame "));
        p = eol + 1;
    }
    assert_true(!strncmp(p, "  (2 more scopes)\n", 18));
    /* Child is listed with its exact calls */
    const char *child = strstr(top, "  Child ");
    if (child) assert_non_null(strstr(child, " (2.0 calls); last frame "));
    /* the default: 5 scopes, nothing more to say */
    ludus_overlay_desc d5 = {.scopes_from = c};
    assert_true(ludus_overlay_format(text, sizeof text, &d5) > 0);
    assert_non_null(strstr(text, "over frames 1..9 of the capture (9 frames, "));
    assert_null(strstr(text, "more scopes"));
    assert_non_null(strstr(text, "  WorkerJob"));
    assert_non_null(strstr(text, " (3.0 calls); last frame "));
    /* without scopes_from: no such lines (existing callers unchanged) */
    assert_true(ludus_overlay_format(text, sizeof text, NULL) > 0);
    assert_null(strstr(text, "top scopes"));
    /* frame times with their unit (ms from 1 ms, us below) */
    assert_true(strstr(text, " ms, p99 ") || strstr(text, " us, p99 "));
    /* cut: snprintf semantics with the scopes too */
    char small[40];
    assert_int_equal(ludus_overlay_format(small, sizeof small, &d), len);
    assert_int_equal(strlen(small), sizeof small - 1);
    ludus_capture_release(c);
}

/* Markup and control characters in a name: one line each, escaped. */
static void test_top_scopes_hostile_names(void **st) {
    (void)st;
    uint32_t evil = ludus_site_intern("evil\n<b>\x01&amp;\t\"x\"");
    char longname[300];
    memset(longname, 'L', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    memcpy(longname, "\xc3\xa9", 2); /* a two-byte character first */
    uint32_t lon = ludus_site_intern(longname);
    lt_begin(NULL);
    for (int f = 0; f < 4; f++) {
        ludus_span_begin(evil);
        spin(3);
        ludus_span_end();
        ludus_span_begin(lon);
        spin(3);
        ludus_span_end();
        LUDUS_PROFILE_FRAME();
    }
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_top_scope s[4];
    int n = ludus_overlay_top_scopes(c, NULL, s, 4, NULL);
    assert_int_equal(n, 2);
    char text[8192];
    ludus_overlay_desc d = {.scopes_from = c};
    assert_true(ludus_overlay_format(text, sizeof text, &d) > 0);
    assert_non_null(strstr(text, "  evil\\n<b>\\x01&amp;\\t\"x\""));
    assert_null(strstr(text, "evil\n"));
    assert_null(strchr(text, '\x01'));
    assert_null(strchr(text, '\t'));
    /* the long name is cut with "...", its first character whole */
    const char *l = strstr(text, "  \xc3\xa9LLL");
    assert_non_null(l);
    const char *dots = strstr(l, "...");
    assert_non_null(dots);
    assert_true(dots - l < 50);
    ludus_capture_release(c);
}

static void test_top_scopes_errors(void **st) {
    (void)st;
    ludus_top_scope s[2];
    ludus_top_window w;
    assert_int_equal(ludus_overlay_top_scopes(NULL, NULL, s, 2, &w), LUDUS_EINVAL);
    /* a capture without frame marks: a clear error, and a line in the overlay */
    lt_begin(NULL);
    { LUDUS_PROFILE_SCOPE(NoFrames); }
    LUDUS_PROFILE_FRAME(); /* one mark is no complete frame */
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_overlay_top_scopes(c, NULL, NULL, 2, &w), LUDUS_EINVAL);
    assert_int_equal(ludus_overlay_top_scopes(c, NULL, s, 2, &w), LUDUS_ENODATA);
    assert_non_null(strstr(ludus_last_error_detail(), "no complete frame"));
    char text[4096];
    ludus_overlay_desc d = {.scopes_from = c};
    assert_true(ludus_overlay_format(text, sizeof text, &d) > 0);
    assert_non_null(strstr(text, "top scopes: no complete frame in the capture"));
    ludus_capture_release(c);
}

/* A call begun in the window that never ends is counted apart, not as time. */
static void test_top_scopes_incomplete(void **st) {
    (void)st;
    uint32_t open_site = ludus_site_intern("NeverEnds");
    lt_begin(NULL);
    for (int f = 0; f < 3; f++) {
        LUDUS_PROFILE_SCOPE(Tick);
        if (f == 2) ludus_span_begin(open_site);
        LUDUS_PROFILE_FRAME();
    }
    { LUDUS_PROFILE_SCOPE(After); }
    LUDUS_PROFILE_FRAME();
    lt_end();
    ludus_capture *c;
    assert_int_equal(ludus_capture_last(&c), 0);
    ludus_top_scope s[4];
    ludus_top_window w;
    int n = ludus_overlay_top_scopes(c, NULL, s, 4, &w);
    /* marks 4: frames 1..3; Tick of frame 0 is the lead-in's, After is frame 3's */
    assert_int_equal(w.frames, 3);
    assert_int_equal(w.incomplete, 1);
    for (int i = 0; i < n; i++) assert_string_not_equal(s[i].name, "NeverEnds");
    assert_int_equal(find(s, n, "Tick")->calls, 2);
    assert_int_equal(find(s, n, "After")->last_calls, 1);
    char text[4096];
    ludus_overlay_desc d = {.scopes_from = c};
    assert_true(ludus_overlay_format(text, sizeof text, &d) > 0);
    assert_non_null(strstr(text, "  (not counted: 1 call that never ended or unwound)\n"));
    ludus_capture_release(c);
}

/* From a rolling window's snapshot, taken on another thread than the frames. */
static ludus_capture *snapped;
static void *snap_thread(void *arg) {
    (void)arg;
    assert_int_equal(ludus_rolling_snapshot(&snapped), 0);
    return NULL;
}

static void test_top_scopes_rolling(void **st) {
    (void)st;
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 60000;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    for (int f = 0; f < 8; f++) one_frame();
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, snap_thread, NULL), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    for (int f = 0; f < 2; f++) one_frame(); /* recording goes on */
    assert_int_equal(ludus_rolling_end(), 0);
    ludus_top_scope s[8];
    ludus_top_window w;
    ludus_overlay_desc d = {.window_frames = 4};
    int n = ludus_overlay_top_scopes(snapped, &d, s, 8, &w);
    assert_int_equal(n, 5);
    assert_int_equal(w.frames, 4);
    assert_int_equal(w.frame_marks, 8);
    assert_int_equal(w.last_frame, 7);
    if (w.dropped == 0) assert_int_equal(find(s, n, "Child")->calls, 8);
    ludus_capture_release(snapped);
}

int main(void) {
    ludus_thread_register("main");
    ludus_frame_ring_enable(); /* the overlay's frame times from the first frame */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_top_scopes_exact, lt_teardown),
        cmocka_unit_test_teardown(test_top_scopes_text, lt_teardown),
        cmocka_unit_test_teardown(test_top_scopes_hostile_names, lt_teardown),
        cmocka_unit_test_teardown(test_top_scopes_errors, lt_teardown),
        cmocka_unit_test_teardown(test_top_scopes_incomplete, lt_teardown),
        cmocka_unit_test_teardown(test_top_scopes_rolling, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
