/* Hitches that name the work (docs/analysis.md, "Hitches"), on synthetic
 * captures built event by event, so nothing depends on scheduling:
 *   - a job system whose worker stalls 50 ms in a named zone: the hitch
 *     names that worker and that zone first, and the frame thread's scope
 *     that waited for it after, as waiting; the percentage stays <= 100%;
 *   - the same wait found through a flow from the stalled job;
 *   - a frame limiter's sleep at 240 fps of work: limited frames are
 *     recognised, and with a 16.7 ms budget there is no hitch;
 *   - the same wait spent spinning (its CPU time grows with the wait, as
 *     Box2D's scheduler and other job systems spin): still the worker's
 *     zone first, the frame thread's scope waiting on it;
 *   - a frame whose wall time grew while its CPU time did not reads as
 *     preempted/waiting, one whose CPU time grew as work;
 *   - the per-thread figures, and two sites of one name told apart. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#include "synth.h"

SITE(S_FRAME, "Frame");
SITE(S_UPDATE, "Update");
SITE(S_SOLVE, "Solve");
SITE(S_INTVEL, "IntVel");
SITE(S_RENDER, "Render");
SITE(S_WORK, "Work");
static const ludus_site S_SLEEP = {"Limiter", "fn", "synth.c", "sleep", __LINE__, 0};  /* category sleep: a wait */
static const ludus_site S_UPDATE_B = {"Update", "fn", "other/physics.c", NULL, 88, 0}; /* a second "Update" */

#define MS 1000000ull

static const ludus_hitch *only_hitch(ludus_analysis *a) {
    assert_non_null(a);
    assert_int_equal(ludus_analysis_hitch_count(a), 1);
    return ludus_analysis_hitch(a, 0);
}

static char *text_report(ludus_analysis *a) {
    mem m = {0};
    ludus_report_options o = {20, "hitches", NULL};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, &o, mem_write, &m), 0);
    return m.p;
}

/* The line of frame `frame` in the text report's hitch list. */
static char *hitch_line(const char *report, uint64_t frame) {
    char key[32];
    snprintf(key, sizeof key, "  frame %6llu ", (unsigned long long)frame);
    const char *at = strstr(report, key);
    assert_non_null(at);
    const char *nl = strchr(at, '\n');
    size_t n = nl ? (size_t)(nl - at) : strlen(at);
    char *line = malloc(n + 1);
    memcpy(line, at, n);
    line[n] = 0;
    return line;
}

/* A frame loop with a job system: the main thread updates, then in Solve
 * runs one IntVel job itself and waits for three workers that run one
 * 5 ms IntVel job each, then renders. In frame `stall` worker 2's job
 * takes 55 ms: the frame is 50 ms longer, all of it main's wait in Solve.
 * With cpu, each mark records the main thread's CPU time (its work, not
 * its waits; cpu 2: its waits too, a spin-wait); with flow, each job's end sends a flow to main, received
 * when Solve's wait ends, and main's Solve has no child of its own. */
static syn *job_system(int stall, int cpu, int flow) {
    syn *s = syn_new(4, 0);
    uint64_t t = 0;
    int64_t cpu_ns = 0;
    uint64_t id = 1;
    for (int f = 0; f < 60; f++) {
        uint64_t job = f == stall ? 55 * MS : 5 * MS;
        syn_b(s, 0, t, &S_FRAME);
        syn_scope(s, 0, t, t + 2 * MS, &S_UPDATE);
        syn_b(s, 0, t + 2 * MS, &S_SOLVE);
        if (!flow) syn_scope(s, 0, t + 2 * MS + 100000, t + 3 * MS, &S_INTVEL);
        uint64_t done = t + 2 * MS + 100000;
        for (uint32_t w = 1; w <= 3; w++) {
            uint64_t b = t + 2 * MS + 100000, e = b + (w == 2 ? job : 5 * MS);
            syn_b(s, w, b, &S_INTVEL);
            if (flow) syn_flow(s, w, e - 1000, 0, id + w);
            syn_e(s, w, e);
            if (e > done) done = e;
        }
        if (flow) { /* main learns each job's end (worker 2's last): the last one ends its wait */
            syn_flow(s, 0, t + 2 * MS + 100000 + 5 * MS, 1, id + 1);
            syn_flow(s, 0, t + 2 * MS + 100000 + 5 * MS, 1, id + 3);
            syn_flow(s, 0, done, 1, id + 2);
        }
        id += 4;
        syn_e(s, 0, done + 100000); /* Solve */
        syn_scope(s, 0, done + 100000, done + 1800000, &S_RENDER);
        syn_e(s, 0, done + 1900000); /* Frame */
        t = done + 2900000;
        cpu_ns += (int64_t)(flow ? 3800000 : 4700000); /* Update, IntVel, Render: the waits cost no CPU */
        if (cpu == 2) cpu_ns = (int64_t)t;             /* spinning: every ns of the frame on the CPU */
        if (cpu)
            syn_frame_cpu(s, 0, t, cpu_ns);
        else
            syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static void check_worker_first(ludus_analysis *a, uint64_t frame, int with_cpu) {
    const ludus_hitch *h = only_hitch(a);
    assert_int_equal(h->frame, frame);
    assert_true(h->extra_ns > 49 * (int64_t)MS && h->extra_ns < 51 * (int64_t)MS);
    /* first: worker 2 in IntVel, the work the frame waited for */
    assert_string_equal(ludus_analysis_thread(a, h->grew_thread[0])->name, "worker 2");
    assert_string_equal(ludus_analysis_site(a, h->grew_site[0])->name, "IntVel");
    assert_int_equal(h->grew_role[0], LUDUS_HITCH_WORK);
    assert_int_equal(h->grew_caused[0], 1);
    assert_true(h->grew_ns[0] > 49 * (int64_t)MS);
    /* then main's Solve, waiting on it */
    int solve = -1;
    for (int g = 1; g < LUDUS_HITCH_GREW && h->grew_site[g] != LUDUS_HITCH_NONE; g++)
        if (h->grew_site[g] < ludus_analysis_site_count(a) &&
            !strcmp(ludus_analysis_site(a, h->grew_site[g])->name, "Solve"))
            solve = g;
    assert_true(solve > 0);
    assert_string_equal(ludus_analysis_thread(a, h->grew_thread[solve])->name, "main");
    assert_int_equal(h->grew_role[solve], LUDUS_HITCH_WAITING);
    assert_int_equal(h->grew_waited_on[solve], 0);
    assert_int_equal(h->kind, LUDUS_HITCH_KIND_WAITING);
    assert_true(h->explained > 0.9 && h->explained <= 1.01);
    if (with_cpu == 2) {
        assert_true(h->cpu_extra_ns > 49 * (int64_t)MS); /* it spun: on the CPU all the while */
    } else if (with_cpu) {
        assert_true(h->cpu_ns > 0);
        assert_true(llabs(h->cpu_extra_ns) < 1000); /* its CPU time did not grow: it waited */
    } else {
        assert_int_equal(h->cpu_ns, -1);
    }
    /* the text names the worker and its zone before the scope that waited */
    char *r = text_report(a);
    char *line = hitch_line(r, frame);
    const char *work = strstr(line, "IntVel on worker 2"), *wait = strstr(line, "Solve on main");
    assert_non_null(work);
    assert_non_null(wait);
    assert_true(work < wait);
    assert_non_null(strstr(wait, "(waiting on worker 2)"));
    assert_non_null(strstr(line, "waited on another thread"));
    assert_null(strstr(line, "add up to")); /* <= 100%: nothing to explain */
    free(line);
    free(r);
}

static void test_worker_stall_named_first(void **st) {
    (void)st;
    for (int cpu = 0; cpu < 2; cpu++) {
        syn *s = job_system(30, cpu, 0);
        ludus_analysis *a = syn_analyze(s, NULL);
        check_worker_first(a, 30, cpu);
        /* the JSON says the same, item by item */
        mem m = {0};
        assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &m), 0);
        assert_non_null(strstr(m.p, "\"role\":\"work\",\"caused\":true,\"waited_on\":-1,\"thread_name\":\"worker 2\""));
        assert_non_null(strstr(m.p, "\"role\":\"waiting\",\"caused\":false,\"waited_on\":0,\"thread_name\":\"main\""));
        assert_non_null(strstr(m.p, "\"kind\":\"waiting\""));
        free(m.p);
        ludus_analysis_destroy(a);
        syn_free(s);
    }
}

/* The job system stalled in frame 30, analysed: worker 2's zone first. */
static void stalled_worker_first(int cpu, int flow) {
    syn *s = job_system(30, cpu, flow);
    ludus_analysis *a = syn_analyze(s, NULL);
    check_worker_first(a, 30, cpu);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* The frame thread spins while it waits (its CPU time grows with the
 * wait, the off-CPU time does not): what it spun in, between Solve's
 * children, grew exactly while worker 2's job did, so it waited on it.
 * Found on Box2D's benchmark with a 60 ms stall injected in "Finalize" on
 * a worker: the report put the main thread's "Update Transforms" first, as
 * work, and the stalled worker's zone last, as "beside". */
static void test_spin_wait_names_worker(void **st) {
    (void)st;
    stalled_worker_first(2, 0);
}

/* Main's Solve has no child and a neutral name: only the flow from the
 * stalled job, arriving when its wait ends, says it waited. */
static void test_wait_found_by_flow(void **st) {
    (void)st;
    stalled_worker_first(0, 1);
}

/* 240 fps of work (Work, 4.17 ms); frames 100 to 119 limited to 60 Hz by a
 * sleep scope (category sleep) to 16.67 ms. They are hitches by the median
 * (4 x), recognised as limited; a 16.7 ms budget leaves none. */
static syn *limited(void) {
    syn *s = syn_new(1, 0);
    uint64_t t = 0;
    int64_t cpu = 0;
    for (int f = 0; f < 200; f++) {
        uint64_t work = 4166667, len = f >= 100 && f < 120 ? 16666667 : work;
        syn_scope(s, 0, t, t + work, &S_WORK);
        if (len > work) syn_scope(s, 0, t + work, t + len, &S_SLEEP);
        cpu += (int64_t)work;
        t += len;
        syn_frame_cpu(s, 0, t, cpu);
    }
    s->c.end_ns = (int64_t)t + 1;
    return s;
}

static void test_limiter_and_budget(void **st) {
    (void)st;
    syn *s = limited();
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.hitches, 20);
    for (uint32_t i = 0; i < ludus_analysis_hitch_count(a); i++) {
        const ludus_hitch *h = ludus_analysis_hitch(a, i);
        assert_int_equal(h->kind, LUDUS_HITCH_KIND_LIMITED);
        assert_string_equal(ludus_analysis_site(a, h->grew_site[0])->name, "Limiter");
        assert_int_equal(h->grew_role[0], LUDUS_HITCH_WAITING);
        assert_int_equal(h->grew_waited_on[0], LUDUS_HITCH_NONE);
    }
    char *r = text_report(a);
    assert_non_null(strstr(r, "limited (vsync or a frame limiter)"));
    free(r);
    ludus_analysis_destroy(a);
    ludus_analysis_desc d;
    memset(&d, 0, sizeof d);
    d.budget_ns = 16700000; /* --budget 16.7 */
    a = syn_analyze(s, &d);
    assert_non_null(a);
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.hitches, 0);
    assert_int_equal(sum.budget_ns, 16700000);
    assert_int_equal(sum.hitch_threshold_ns, 16700000); /* max(2 x 4.17 ms, 16.7 ms) */
    r = text_report(a);
    assert_non_null(strstr(r, "budget 16.70 ms) = 16.70 ms): 0,"));
    free(r);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* 10 ms frames of 8 ms of Update (8 ms of CPU). Frame 40's Update takes
 * 40 ms of wall time and 8 ms of CPU: preempted; frame 70's takes 40 ms of
 * both: work. */
static void test_preempted_vs_work(void **st) {
    (void)st;
    syn *s = syn_new(1, 0);
    uint64_t t = 0;
    int64_t cpu = 0;
    for (int f = 0; f < 100; f++) {
        uint64_t upd = f == 40 || f == 70 ? 40 * MS : 8 * MS;
        syn_scope(s, 0, t, t + upd, &S_UPDATE);
        t += upd + 2 * MS;
        cpu += f == 70 ? (int64_t)(40 * MS) : (int64_t)(8 * MS);
        syn_frame_cpu(s, 0, t, cpu);
    }
    s->c.end_ns = (int64_t)t + 1;
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    assert_int_equal(ludus_analysis_hitch_count(a), 2);
    for (uint32_t i = 0; i < 2; i++) {
        const ludus_hitch *h = ludus_analysis_hitch(a, i);
        ludus_frame_info fi;
        assert_int_equal(ludus_analysis_frame(a, h->frame, &fi), 0);
        assert_int_equal(fi.cpu_ns, h->cpu_ns);
        if (h->frame == 40) {
            assert_int_equal(h->kind, LUDUS_HITCH_KIND_PREEMPTED);
            assert_int_equal(h->cpu_ns, (int64_t)(8 * MS));
        } else {
            assert_int_equal(h->frame, 70);
            assert_int_equal(h->kind, LUDUS_HITCH_KIND_WORK);
            assert_int_equal(h->cpu_extra_ns, (int64_t)(32 * MS));
        }
        assert_string_equal(ludus_analysis_site(a, h->grew_site[0])->name, "Update");
    }
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.median_frame_cpu_ns, (int64_t)(8 * MS));
    char *r = text_report(a);
    char *l40 = hitch_line(r, 40), *l70 = hitch_line(r, 70);
    assert_non_null(strstr(l40, "preempted/waiting (frame thread CPU 8.00 ms, +0 ns)"));
    assert_non_null(strstr(l70, " work (frame thread CPU 40.00 ms, +32.00 ms)"));
    assert_non_null(strstr(r, "Frame thread CPU time (99 frames"));
    free(l40);
    free(l70);
    free(r);
    /* an older capture (no CPU times) says nothing of them */
    ludus_frame_info fi;
    assert_int_equal(ludus_analysis_frame(a, 0, &fi), 0);
    assert_int_equal(fi.cpu_ns, -1); /* the lead-in */
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Per thread: busy time per frame and the top scopes. */
static void test_threads(void **st) {
    (void)st;
    syn *s = job_system(30, 1, 0);
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    assert_int_equal(ludus_analysis_thread_count(a), 4);
    const ludus_thread_stats *m = ludus_analysis_thread(a, 0), *w2 = ludus_analysis_thread(a, 2);
    assert_true(m->is_frame_thread);
    assert_false(w2->is_frame_thread);
    assert_string_equal(ludus_analysis_site(a, w2->top_site[0])->name, "IntVel");
    assert_int_equal(w2->top_site[1], UINT32_MAX);
    assert_int_equal(w2->busy_p50_ns, (int64_t)(5 * MS));
    assert_int_equal(w2->busy_max_ns, (int64_t)(55 * MS));
    assert_int_equal(w2->busy_max_frame, 30);
    assert_int_equal(w2->frames_busy, 59);
    /* main: Frame covers all but 1 ms of each frame */
    assert_int_equal(m->busy_p50_ns, (int64_t)(9 * MS)); /* Frame: 9 of each frame's 10 ms */
    assert_string_equal(ludus_analysis_site(a, m->top_site[0])->name, "Solve");
    char *r = text_report(a);
    assert_non_null(strstr(r, "\nThreads: busy"));
    assert_non_null(strstr(r, "main (frame thread)"));
    assert_non_null(strstr(r, "    top: IntVel 5.85 ms"));
    free(r);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* Two sites named Update in two files: every report tells them apart, in
 * paths too (Box2D's three PrepJoints under one parent once gave two diff
 * lines, and two JSON paths, that read alike). */
static void test_names_told_apart(void **st) {
    (void)st;
    syn *s = syn_new(1, 0);
    uint64_t t = 0;
    for (int f = 0; f < 20; f++) {
        syn_scope(s, 0, t, t + 100, &S_UPDATE);
        syn_scope(s, 0, t + 100, t + 300, &S_UPDATE_B);
        syn_b(s, 0, t + 300, &S_FRAME); /* both again under one parent */
        syn_scope(s, 0, t + 310, t + 320, &S_UPDATE);
        syn_scope(s, 0, t + 330, t + 350, &S_UPDATE_B);
        syn_e(s, 0, t + 360);
        t += 400;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)t + 1;
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    char la[128], lb[128];
    int64_t ia = -1, ib = -1;
    for (uint32_t i = 0; i < ludus_analysis_site_count(a); i++) {
        const ludus_site_stats *x = ludus_analysis_site(a, i);
        if (!strcmp(x->name, "Update")) *(x->line == 88 ? &ib : &ia) = i;
    }
    assert_true(ia >= 0 && ib >= 0);
    ludus_analysis_site_label(a, (uint32_t)ia, la, sizeof la);
    ludus_analysis_site_label(a, (uint32_t)ib, lb, sizeof lb);
    assert_string_equal(lb, "Update (physics.c:88)");
    assert_true(strncmp(la, "Update (synth.c:", 16) == 0);
    char *r = text_report(a);
    assert_non_null(strstr(r, "Update (physics.c:88)"));
    assert_non_null(strstr(r, la));
    free(r);
    mem m = {0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"label\":\"Update (physics.c:88)\""));
    assert_non_null(strstr(m.p, "\"path\":\"Frame/Update (physics.c:88)\""));
    free(m.p);
    /* the paths: one name each, found by it */
    int64_t pa = ludus_analysis_find_path(a, "Frame/Update (physics.c:88)");
    char nested[160];
    snprintf(nested, sizeof nested, "Frame/%s", la);
    int64_t pb = ludus_analysis_find_path(a, nested);
    assert_true(pa >= 0 && pb >= 0 && pa != pb);
    assert_int_equal(ludus_analysis_path(a, (uint32_t)pa)->site, (uint32_t)ib);
    assert_int_equal(ludus_analysis_path(a, (uint32_t)pb)->site, (uint32_t)ia);
    assert_int_equal(ludus_analysis_find_path(a, "Frame/Update"), -1); /* two places: not one of them */
    /* the diff: its entries of the two sites are told apart, and the plain name still finds one */
    ludus_diff *d = NULL;
    assert_int_equal(ludus_diff_create(a, a, NULL, &d), 0);
    assert_non_null(syn_diff_find(d, "Update (physics.c:88)", 0));
    assert_non_null(syn_diff_find(d, la, 0));
    assert_non_null(syn_diff_find(d, "Update", 0));
    assert_non_null(syn_diff_find(d, "Frame/Update (physics.c:88)", 1));
    assert_non_null(syn_diff_find(d, nested, 1));
    for (uint32_t i = 0; i < ludus_diff_entry_count(d); i++) /* no two entries of a kind share a name */
        for (uint32_t j = i + 1; j < ludus_diff_entry_count(d); j++)
            if (ludus_diff_entry(d, i)->is_path == ludus_diff_entry(d, j)->is_path &&
                !strcmp(ludus_diff_entry(d, i)->name, ludus_diff_entry(d, j)->name))
                fail_msg("two diff entries named \"%s\"", ludus_diff_entry(d, i)->name);
    m = (mem){0};
    assert_int_equal(ludus_diff_report(d, LUDUS_REPORT_JSON, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"name\":\"Update (physics.c:88)\""));
    free(m.p);
    ludus_diff_destroy(d);
    /* the HTML never draws the lead-in: its series starts at the lead-in (index 0), the chart at frame 1 */
    m = (mem){0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_HTML, NULL, mem_write, &m), 0);
    assert_non_null(strstr(m.p, "\"lead_in\":0,\"series\":[[0,"));
    assert_non_null(strstr(m.p, "F0=Math.min(1,NF)"));
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* The HTML report stays a few MB whatever the capture (issue 38): 100,000
 * frames of which 10,000 are hitches (every tenth frame 5 ms, the others
 * 1 ms; one frame, the 77,770th, a 40 ms spike instead of 5 ms) give a page under 4 MB
 * (before: every frame a series entry, every hitch a row), the 500
 * worst hitches listed and the rest counted in one line, the frame series
 * decimated with the spike kept, and the JSON report still lists every
 * hitch. */
static void test_html_bounded(void **state) {
    (void)state;
    enum { FRAMES = 100000 };
    syn *s = syn_new(1, (FRAMES + 2) * 4 * MS);
    free(s->ev[0]);
    s->ev[0] = calloc(FRAMES * 4 + 16, sizeof(ludus__event));
    s->run[0].ev = s->ev[0];
    s->run[0].base = (uintptr_t)s->ev[0];
    uint64_t t = 0;
    syn_frame(s, 0, t);
    for (uint32_t f = 1; f <= FRAMES; f++) {
        uint64_t len = f == 77770 ? 40 * MS : f % 10 == 0 ? 5 * MS : 1 * MS;
        syn_scope(s, 0, t + 1000, t + len - 1000, &S_UPDATE);
        t += len;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)(t + MS);
    ludus_analysis *a = syn_analyze(s, NULL);
    assert_non_null(a);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_in_window, FRAMES);
    assert_int_equal(sum.hitches, FRAMES / 10);
    mem m = {0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_HTML, NULL, mem_write, &m), 0);
    assert_true(m.n < 4u << 20);
    assert_non_null(strstr(m.p, "The 500 worst hitches are listed; 9500 more"));
    assert_non_null(strstr(m.p, "\"hitches_omitted\":9500"));
    assert_non_null(strstr(m.p, ",\"step\":21,\"count\":100001")); /* 100,001 series entries (the lead-in) */
    assert_non_null(strstr(m.p, ",40000000,"));                    /* the spike's duration survives decimation */
    assert_non_null(strstr(m.p, "\"frame\":77770,\"frame_ns\":40000000")); /* and is a listed hitch */
    size_t rows = 0;
    for (const char *p = m.p; (p = strstr(p, "\"explained_over\":")) != NULL; p++) rows++;
    assert_int_equal(rows, 500);
    free(m.p);
    m = (mem){0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &m), 0);
    rows = 0;
    for (const char *p = m.p; (p = strstr(p, "\"explained_over\":")) != NULL; p++) rows++;
    assert_int_equal(rows, FRAMES / 10); /* the JSON report keeps them all */
    assert_null(strstr(m.p, "hitches_omitted"));
    free(m.p);
    ludus_analysis_destroy(a);
    syn_free(s);
}

/* report --window last:N keeps the per-frame cells of its N frames only
 * (issue 38: last:1000 of 151,515 frames took 352 MiB, as much as the whole
 * capture): 20,000 frames, the window the last 100, at most 100 cells, and
 * the window's figures as before (the median per frame of a scope that ran
 * i % 50 us in frame i, calls per frame, the window frame's cell); the
 * whole capture keeps every frame's. */
static size_t path_cells(const ludus_analysis *a) {
    size_t n = 0;
    for (uint32_t k = 0; k < a->nnodes; k++) n += a->nodes[k].run.n;
    return n;
}

static void test_window_cells(void **state) {
    (void)state;
    enum { FRAMES = 20000 };
    syn *s = syn_new(1, 0);
    free(s->ev[0]);
    s->ev[0] = calloc(FRAMES * 3 + 16, sizeof(ludus__event));
    s->run[0].ev = s->ev[0];
    s->run[0].base = (uintptr_t)s->ev[0];
    uint64_t t = 0;
    syn_frame(s, 0, t);
    for (uint32_t f = 1; f <= FRAMES; f++) {
        syn_scope(s, 0, t + 1000, t + 1000 + (f % 50 + 1) * 1000, &S_UPDATE);
        t += MS;
        syn_frame(s, 0, t);
    }
    s->c.end_ns = (int64_t)(t + MS);
    ludus_analysis_desc d = {.window = LUDUS_WINDOW_LAST_FRAMES, .last_frames = 100};
    ludus_analysis *w = syn_analyze(s, &d), *all = syn_analyze(s, NULL);
    assert_non_null(w);
    assert_non_null(all);
    assert_true(path_cells(w) <= 100);
    assert_true(path_cells(all) >= FRAMES);
    int64_t site = ludus_analysis_find_site(w, "Update");
    assert_true(site >= 0);
    const ludus_site_stats *x = ludus_analysis_site(w, (uint32_t)site);
    assert_true(x->calls_per_frame == 1.0);
    /* frames 19901 .. 20000: (f % 50 + 1) us, two of each of 1 .. 50: the lower median 25 us */
    assert_int_equal(x->median_frame_excl_ns, 25000);
    uint64_t calls;
    int64_t excl;
    assert_int_equal(ludus_analysis_site_in_frame(w, (uint32_t)site, FRAMES - 1, &calls, &excl), 0);
    assert_int_equal(calls, 1);
    assert_int_equal(excl, (int64_t)(FRAMES - 1) % 50 * 1000 + 1000);
    assert_int_equal(ludus_analysis_site_in_frame(w, (uint32_t)site, 5, &calls, &excl), 0);
    assert_int_equal(calls, 0); /* outside the window: no cell kept */
    assert_int_equal(ludus_analysis_site_in_frame(all, (uint32_t)site, 5, &calls, &excl), 0);
    assert_int_equal(calls, 1);
    ludus_analysis_destroy(w);
    ludus_analysis_destroy(all);
    syn_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_stall_named_first),
        cmocka_unit_test(test_wait_found_by_flow),
        cmocka_unit_test(test_spin_wait_names_worker),
        cmocka_unit_test(test_limiter_and_budget),
        cmocka_unit_test(test_preempted_vs_work),
        cmocka_unit_test(test_threads),
        cmocka_unit_test(test_names_told_apart),
        cmocka_unit_test(test_html_bounded),
        cmocka_unit_test(test_window_cells),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
