/* The rolling window: segments switched while threads record, snapshots
 * whose edges show slices begun before the window (clipped, named, never
 * unpaired), losses counted exactly across switches, and triggers (a hitch,
 * a call, a signal chained to the program's own handler) that write the
 * window to a file from the background thread. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32 /* no fork on Windows (the port's unit suite): test_fork skips there */
#include <sys/wait.h>
#endif
#include <unistd.h>

#include <cmocka.h>

#include "flight/flight.h"
#include "record/record.h" /* ludus__sess.ring_ticks: the window's length known */
#include "test_util.h"

/* How long a flush may wait for the window's writer: a bound against a
 * hang, not a timing assertion (a TSan tree beside other work once took
 * longer than 10 s to write a hitch's file). */
#define FLUSH_BOUND_MS 120000

static ludus_rolling_desc quiet_desc(uint32_t window_ms) {
    ludus_rolling_desc d;
    memset(&d, 0, sizeof d);
    d.window_ms = window_ms;
    d.hitch_factor = LUDUS_ROLLING_NONE;
    d.signal = LUDUS_ROLLING_NONE;
    return d;
}

/* Every B is closed by an E of its thread (lt_match_end), and the capture's
 * own counts say nothing was left unpaired. */
static void check_paired(ludus_capture *c, const lt_trace *t) {
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].ph == 'B') assert_true(lt_match_end(t, i) >= 0);
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(c, &s), 0);
    if (s.orphan_ends || s.mismatched)
        print_message("orphan ends %llu, mismatched %llu\n", (unsigned long long)s.orphan_ends,
                      (unsigned long long)s.mismatched);
    assert_int_equal(s.orphan_ends, 0);
    assert_int_equal(s.mismatched, 0);
}

static int64_t span_ns(ludus_capture *c) {
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(c, &s), 0);
    return s.end_ns - s.start_ns;
}

/* A scope open for three windows, with numbered inner scopes: the
 * snapshot shows it begun at the thread's first event (its begin was
 * written over: named for that), the span begun with it by its name, the
 * samples it holds are contiguous up to the last (nothing lost to the
 * recorder's own work), and its end, once written, closes that begin. */
static void test_window_edges(void **state) {
    (void)state;
    ludus_rolling_desc rd = quiet_desc(200);
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    uint32_t seq = ludus_site_intern("seq");
    int64_t i = 0, t_end = lt_now_ns() + 600000000; /* 3 windows */
    ludus_capture *snap = NULL;
    ludus_rolling_stats st;
    {
        LUDUS_PROFILE_SCOPE(Outer);
        LUDUS_PROFILE_BEGIN(OuterSpan);
        /* until the first pieces were written over (a loaded machine may
         * take longer than 3 windows to fill them) */
        for (int evicted = 0; lt_now_ns() < t_end || !evicted;) {
            LUDUS_PROFILE_SCOPE(Inner);
            ludus_counter_sample(seq, i++);
            lt_spin_ns(20000);
            if (i % 1000 == 0) {
                assert_int_equal(ludus_rolling_get_stats(&st), 0);
                evicted = st.events_evicted > 0;
            }
        }
        assert_int_equal(ludus_rolling_snapshot(&snap), 0);
        LUDUS_PROFILE_END();
    }
    ludus_capture *after; /* the outer scope ended: its end pairs with the begin the snapshot gives it */
    assert_int_equal(ludus_rolling_snapshot(&after), 0);
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    assert_int_equal(st.evicted_in_window, 0); /* the default pool holds 200 ms of this */
    /* pieces are written over only once wholly before the window: the
     * copy reaches back the window at least */
    assert_true(span_ns(snap) >= 200000000);

    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    check_paired(snap, &t);
    /* the window starts inside an Inner scope: its end is given a begin at
     * the first event; Outer and OuterSpan, still open and begun before
     * the window, have nothing in it yet */
    long b = lt_find(&t, 0, 'B', "(begun before the window)");
    assert_true(b >= 0);
    assert_int_equal(t.ev[b].ts_ns, 0);
    assert_true(lt_find(&t, 0, 'B', "Outer") < 0);
    assert_true(lt_find(&t, 0, 'B', "OuterSpan") < 0);
    /* the samples: the first ones written over, the rest contiguous up to the last */
    int64_t first = -1, last = -1, gaps = 0;
    for (size_t k = 0; k < t.n; k++) {
        if (t.ev[k].ph != 'C' || strcmp(t.ev[k].name, "seq") != 0) continue;
        int64_t v = t.ev[k].ivalue;
        if (first < 0) first = v;
        if (last >= 0 && v != last + 1) gaps += v - last - 1;
        last = v;
    }
    assert_true(first > 0);
    assert_int_equal(last, i - 1);
    assert_int_equal(gaps, 0);
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    assert_int_equal(s.dropped, 0);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);

    snap = after;
    json = lt_capture_json(snap);
    lt_trace_parse(&t, json);
    check_paired(snap, &t);
    /* ended now: Outer's end has a begin at the first event (the slice
     * that ends last), and so does OuterSpan's (LUDUS_PROFILE_END names no
     * site: the span's name went with its begin) */
    long outer = -1;
    for (size_t k = 0; k < t.n; k++) {
        if (t.ev[k].ph != 'B' || strcmp(t.ev[k].name, "(begun before the window)") != 0) continue;
        long e = lt_match_end(&t, (long)k);
        assert_true(e >= 0);
        assert_false(t.ev[e].incomplete);
        assert_int_equal(t.ev[k].ts_ns, 0);
        if (outer < 0 || t.ev[e].ts_ns > t.ev[lt_match_end(&t, outer)].ts_ns) outer = (long)k;
    }
    assert_true(outer >= 0);
    long inner_last = -1;
    for (size_t k = 0; k < t.n; k++)
        if (t.ev[k].ph == 'B' && strcmp(t.ev[k].name, "Inner") == 0) inner_last = (long)k;
    assert_true(inner_last >= 0); /* the outer slice holds the last Inner */
    assert_true(t.ev[lt_match_end(&t, outer)].ts_ns >= t.ev[lt_match_end(&t, inner_last)].ts_ns);
    assert_true(lt_count(&t, 'B', "(begun before the window)") >= 2);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);
    assert_int_equal(ludus_rolling_end(), 0);
    assert_int_equal(ludus_rolling_active(), 0);
}

/* A pool that holds a fraction of the window: the thread goes on recording
 * as it writes over its own oldest pieces, even after its ends took pieces
 * of the end reserve (a bug found under Lua: the thread then refused every
 * begin for good); nothing is dropped, the window is shorter and says so. */
static void test_small_pool_keeps_recording(void **state) {
    (void)state;
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_bytes = 4096;
    cd.chunk_count = 16; /* 64 KiB: about 2 ms of this loop */
    ludus_rolling_desc rd = quiet_desc(2000);
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
    uint32_t seq = ludus_site_intern("seq");
    int64_t i = 0;
    ludus_rolling_stats st;
    for (int round = 0; round < 50; round++) {
        for (int k = 0; k < 20000; k++) {
            LUDUS_PROFILE_SCOPE(Outer);
            ludus_counter_sample(seq, i++);
            LUDUS_PROFILE_SCOPE(Inner);
        }
    }
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    assert_true(st.evicted_in_window > 0);
    ludus_capture *snap = NULL;
    assert_int_equal(ludus_rolling_snapshot(&snap), 0);
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    assert_int_equal(s.dropped, 0);
    assert_true(s.events > 1000);
    assert_true(s.end_ns - s.start_ns < 2000000000); /* shorter than the window asked */
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    check_paired(snap, &t);
    int64_t last = -1;
    for (size_t k = 0; k < t.n; k++)
        if (t.ev[k].ph == 'C' && strcmp(t.ev[k].name, "seq") == 0) last = t.ev[k].ivalue;
    assert_int_equal(last, i - 1); /* recorded to the end */
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);
    assert_int_equal(ludus_rolling_end(), 0);
}

/* Capture windows are refused while the rolling window runs. */
static void test_one_at_a_time(void **state) {
    (void)state;
    ludus_rolling_desc rd = quiet_desc(100);
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    assert_int_equal(ludus_capture_begin(NULL), LUDUS_EBUSY);
    assert_int_equal(ludus_capture_end(NULL), LUDUS_EBUSY);
    assert_int_equal(ludus_rolling_begin(NULL, &rd), LUDUS_EBUSY);
    assert_int_equal(ludus_rolling_end(), 0);
    assert_int_equal(ludus_rolling_end(), LUDUS_ENOCAPTURE);
    ludus_capture *c;
    assert_int_equal(ludus_rolling_snapshot(&c), LUDUS_ENOCAPTURE);
    rd.post_ms = rd.window_ms; /* the post-trigger time must fit in the window */
    assert_int_equal(ludus_rolling_begin(NULL, &rd), LUDUS_EINVAL);
}

static char dir[512];

typedef struct file_match {
    const char *needle;
    char *found;
    size_t found_len;
    int n;
} file_match;

static void match_file(const char *name, void *ud) {
    file_match *m = ud;
    if (!strstr(name, m->needle)) return;
    m->n++;
    if (m->found) snprintf(m->found, m->found_len, "%s/%s", dir, name);
}

static int count_files(const char *needle, char *found, size_t found_len) {
    file_match m = {needle, found, found_len, 0};
    lt_list_dir(dir, match_file, &m);
    return m.n;
}

static void frames(int n, int64_t frame_ns) {
    for (int f = 0; f < n; f++) {
        LUDUS_PROFILE_SCOPE(GameFrame);
        lt_spin_ns(frame_ns);
        LUDUS_PROFILE_FRAME();
    }
}

/* 1 when the capture file at path holds an unclipped scope `name` */
static int file_holds(const char *path, const char *name) {
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    char *json = lt_capture_json(c);
    lt_trace t;
    lt_trace_parse(&t, json);
    check_paired(c, &t);
    long b = lt_find(&t, 0, 'B', name);
    int holds = b >= 0 && t.ev[b].ts_ns > 0 && lt_count(&t, 'B', "GameFrame") >= 20;
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(c);
    return holds;
}

/* The trigger a window's file says it was written for: its reason, what
 * it saw, and the frame that ended at it (the analysis finds it). */
static void check_trigger(const char *path, const char *reason, const char *detail, int64_t frame_at_least_ns) {
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_non_null(in.trigger_reason);
    assert_string_equal(in.trigger_reason, reason);
    assert_non_null(strstr(in.trigger_detail, detail));
    assert_true(in.trigger_ns >= in.start_ns && in.trigger_ns <= in.end_ns);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    ludus_analysis_summary s;
    ludus_analysis_get_summary(a, &s);
    assert_string_equal(s.trigger_reason, reason);
    assert_true(s.trigger_ns == in.trigger_ns - in.start_ns);
    if (frame_at_least_ns) { /* the hitch: the frame that ended at the trigger is the long one */
        ludus_frame_info fi;
        assert_true(s.trigger_frame >= 1);
        assert_int_equal(ludus_analysis_frame(a, s.trigger_frame, &fi), 0);
        assert_true(fi.end_ns - fi.begin_ns >= frame_at_least_ns);
    }
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
}

static void count_hitch_holders(const char *name, void *ud) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int holds = file_holds(path, "TheHitch");
    *(int *)ud += holds;
    if (holds) check_trigger(path, "hitch", "x the running median", 100000000);
}

/* The frame clock the hitch detector reads (ludus__rolling_frame_clock):
 * the test's, advanced by fake_frames, so that which frame is a hitch is the
 * test's choice, never the scheduler's (a busy machine stretched 2 ms frames
 * past the median or preempted one past the factor). */
static int64_t fake_now_ns;
static int64_t fake_clock(void) {
    return __atomic_load_n(&fake_now_ns, __ATOMIC_ACQUIRE);
}

/* n frames, each frame_ns long on the fake clock (and spinning spin_ns of
 * real time inside its GameFrame scope, for the capture's contents) */
static void fake_frames(int n, int64_t frame_ns, int64_t spin_ns) {
    for (int f = 0; f < n; f++) {
        LUDUS_PROFILE_SCOPE(GameFrame);
        lt_spin_ns(spin_ns);
        __atomic_add_fetch(&fake_now_ns, frame_ns, __ATOMIC_ACQ_REL);
        LUDUS_PROFILE_FRAME();
    }
}

/* A frame far slower than the running median writes a file named for the
 * hitch, whose window holds that frame and the frames after it. The frames'
 * lengths come from a fake clock: exactly one hitch, whatever the load. */
static void test_hitch_writes_file(void **state) {
    (void)state;
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-rolling"), 0);
    /* A window long enough to hold the hitch however late the window's
     * thread runs after the trigger (it takes the window post_ms later). */
    ludus_rolling_desc rd = quiet_desc(8000);
    rd.hitch_factor = 30;
    rd.median_frames = 30;
    rd.post_ms = 50;
    rd.cooldown_ms = LUDUS_ROLLING_NONE;
    rd.directory = dir;
    rd.prefix = "test";
    fake_now_ns = 1000000000;
    ludus__rolling_frame_clock = fake_clock;
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    fake_frames(60, 2000000, 200000);
    {
        LUDUS_PROFILE_SCOPE(TheHitch);
        lt_spin_ns(150000000); /* real: the file's frame at the trigger is checked for it */
    }
    __atomic_add_fetch(&fake_now_ns, 150000000, __ATOMIC_ACQ_REL); /* 75 x the median */
    LUDUS_PROFILE_FRAME();
    fake_frames(60, 2000000, 200000);
    assert_int_equal(ludus_rolling_flush(FLUSH_BOUND_MS), 0);
    ludus_rolling_stats st;
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    ludus__rolling_frame_clock = NULL;
    assert_int_equal(st.hitches, 1);
    assert_int_equal(st.files_written, 1);
    assert_int_equal(st.taken, 1);
    assert_int_equal(st.frame_median_ns, 2000000);
    assert_int_equal(ludus_rolling_end(), 0);
    assert_int_equal(count_files("-hitch.ludus", NULL, 0), 1);
    int found = 0;
    lt_list_dir(dir, count_hitch_holders, &found);
    assert_int_equal(found, 1);
}

static volatile sig_atomic_t prior_ran;
static void prior_handler(int signo) {
    (void)signo;
    prior_ran = 1;
}

/* SIGUSR2 triggers, and the program's own handler still runs; a second
 * trigger within the cooldown is counted, not written. */
static void test_signal_and_cooldown(void **state) {
#ifdef _WIN32 /* no SIGUSR2 (the port's unit suite) */
    (void)state;
    skip();
#else
    (void)state;
    signal(SIGUSR2, prior_handler);
    ludus_rolling_desc rd = quiet_desc(200);
    rd.signal = 0; /* the default: SIGUSR2 */
    rd.post_ms = 20;
    rd.cooldown_ms = 60000;
    rd.directory = dir;
    rd.prefix = "sig";
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    frames(20, 1000000);
    raise(SIGUSR2);
    assert_int_equal(prior_ran, 1);
    frames(40, 1000000);
    assert_int_equal(ludus_rolling_flush(FLUSH_BOUND_MS), 0);
    ludus_rolling_trigger("again");
    assert_int_equal(ludus_rolling_flush(FLUSH_BOUND_MS), 0);
    ludus_rolling_stats st;
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    assert_int_equal(st.files_written, 1);
    assert_int_equal(st.cooled, 1);
    assert_int_equal(ludus_rolling_end(), 0);
    assert_int_equal(count_files("sig-", NULL, 0), 1);
    char path[1024];
    assert_int_equal(count_files("-signal.ludus", path, sizeof path), 1);
    check_trigger(path, "signal", "signal", 0);
    /* the program's handler is back */
    struct sigaction sa;
    sigaction(SIGUSR2, NULL, &sa);
    assert_ptr_equal(sa.sa_handler, prior_handler);
    signal(SIGUSR2, SIG_DFL);
    lt_remove_dir(dir);
#endif
}

/* Producers on several threads while another thread takes snapshots: every
 * snapshot is well formed (ThreadSanitizer checks the switch protocol).
 * Each snapshot is taken once two more Produce scopes have ended since the
 * last one (produced counts them), inside a 1 s window: a loaded machine
 * that left the producers unscheduled for a 100 ms window gave an empty
 * snapshot (seen under Wine). */
static int stop_producers;
static int produced;
static void *producer(void *arg) {
    (void)arg;
    ludus_thread_register("producer");
    while (!__atomic_load_n(&stop_producers, __ATOMIC_ACQUIRE)) {
        LUDUS_PROFILE_SCOPE(Produce);
        for (int k = 0; k < 8; k++) {
            LUDUS_PROFILE_SCOPE(Step);
        }
        LUDUS_PROFILE_BEGIN(Spanning);
        lt_spin_ns(2000);
        LUDUS_PROFILE_END();
        __atomic_fetch_add(&produced, 1, __ATOMIC_RELEASE);
        usleep(20); /* a busy thread, not a flood: the test is the switch protocol */
    }
    return NULL;
}

static void test_snapshots_under_load(void **state) {
    (void)state;
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 96;
    ludus_rolling_desc rd = quiet_desc(1000);
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
    stop_producers = 0;
    pthread_t th[2];
    for (int i = 0; i < 2; i++) assert_int_equal(pthread_create(&th[i], NULL, producer, NULL), 0);
    for (int round = 0; round < 6; round++) {
        lt_spin_ns(40000000);
        int seen = __atomic_load_n(&produced, __ATOMIC_ACQUIRE);
        for (int i = 0; i < 100000 && __atomic_load_n(&produced, __ATOMIC_ACQUIRE) < seen + 2; i++) usleep(100);
        assert_true(__atomic_load_n(&produced, __ATOMIC_ACQUIRE) >= seen + 2); /* (10 s at most) */
        ludus_capture *snap;
        assert_int_equal(ludus_rolling_snapshot(&snap), 0);
        char *json = lt_capture_json(snap);
        lt_trace t;
        lt_trace_parse(&t, json);
        check_paired(snap, &t);
        assert_true(lt_count(&t, 'B', "Produce") > 0);
        lt_trace_free(&t);
        free(json);
        ludus_capture_release(snap);
    }
    __atomic_store_n(&stop_producers, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    assert_int_equal(ludus_rolling_end(), 0);
}

/* A gauge crossing its threshold triggers once per crossing, seen at the
 * next frame mark; the file is named for it. */
static void test_counter_trigger(void **state) {
    (void)state;
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-rolling-c"), 0);
    ludus_rolling_desc rd = quiet_desc(200);
    rd.post_ms = 20;
    rd.cooldown_ms = LUDUS_ROLLING_NONE;
    rd.directory = dir;
    rd.counter = "QueueDepth";
    rd.counter_stat = "last";
    rd.counter_above = 100;
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    int64_t depth[] = {10, 20, 500, 600, 30, 40, 40, 40, 40, 40};
    for (int f = 0; f < 10; f++) {
        LUDUS_PROFILE_GAUGE(QueueDepth, depth[f]);
        lt_spin_ns(1000000);
        LUDUS_PROFILE_FRAME();
    }
    frames(40, 1000000);
    assert_int_equal(ludus_rolling_flush(FLUSH_BOUND_MS), 0);
    ludus_rolling_stats st;
    assert_int_equal(ludus_rolling_get_stats(&st), 0);
    assert_int_equal(st.counter_crossings, 1); /* 500 then 600: one crossing */
    assert_int_equal(st.files_written, 1);
    assert_int_equal(ludus_rolling_end(), 0);
    assert_int_equal(count_files("-counter.ludus", NULL, 0), 1);
    lt_remove_dir(dir);
}

/* A forked child goes on recording in its window (without the parent's
 * background threads), takes a snapshot and ends it; the parent's window
 * is untouched. */
static void test_fork(void **state) {
#ifdef _WIN32
    (void)state;
    skip();
#else
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    ludus_rolling_desc rd = quiet_desc(200);
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    frames(10, 500000);
    char path[64];
    snprintf(path, sizeof path, "/tmp/ludus-rolling-child-%d.ludus", (int)getpid());
    pid_t pid = fork() /* the rolling window's thread runs: on purpose */;
    assert_true(pid >= 0);
    if (pid == 0) {
        { LUDUS_PROFILE_SCOPE(InChild); }
        ludus_capture *c;
        int ok = ludus_rolling_snapshot(&c) == 0 && ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path) == 0;
        ludus_capture_release(c);
        ok = ok && ludus_rolling_end() == 0;
        _exit(ok ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    char *json = lt_capture_json(c);
    assert_non_null(strstr(json, "InChild"));
    free(json);
    ludus_capture_release(c);
    unlink(path);
    frames(10, 500000);
    ludus_capture *snap;
    assert_int_equal(ludus_rolling_snapshot(&snap), 0);
    json = lt_capture_json(snap);
    assert_null(strstr(json, "InChild"));
    free(json);
    ludus_capture_release(snap);
    assert_int_equal(ludus_rolling_end(), 0);
#endif
}

static int teardown(void **state) {
    if (ludus_rolling_active()) ludus_rolling_end();
    return lt_teardown(state);
}

/* A recorder whose every thread has been idle for longer than the window
 * (a program stalled, or paused before it exits): a snapshot ends its
 * window at the newest event, not at now, so it holds the last window of
 * recording instead of nothing (a hitch's file or the exit's would fail
 * with "no data"; check_launch.py's rolling run did beside two CPU
 * burners). The idle time is a sleep of four windows once the window's
 * length is known: a longer one only makes it more certain. */
static void test_idle_past_window(void **state) {
    (void)state;
    ludus_rolling_desc rd = quiet_desc(50);
    assert_int_equal(ludus_rolling_begin(NULL, &rd), 0);
    for (int ms = 0;; ms++) { /* the window's thread sets the length once the tick rate is known */
        uint64_t w = __atomic_load_n(&ludus__sess.ring_ticks, __ATOMIC_ACQUIRE);
        if (w != 0 && w != UINT64_MAX) break;
        lt_check(lt_what("the window's length known within %d s", FLUSH_BOUND_MS / 1000), ms < FLUSH_BOUND_MS);
        usleep(1000);
    }
    for (int i = 0; i < 20; i++) {
        LUDUS_PROFILE_SCOPE(BeforeTheStall);
    }
    usleep(200000);
    ludus_capture *snap = NULL;
    assert_int_equal(ludus_rolling_snapshot(&snap), 0);
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    lt_check(lt_what("events in a snapshot taken four windows after the last (%llu)", (unsigned long long)s.events),
             s.events >= 40);
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    lt_check("the stalled thread's last scopes are in the snapshot", lt_find(&t, 0, 'B', "BeforeTheStall") >= 0);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);
}

int main(void) {
    ludus_thread_register("main");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_window_edges, teardown),
        cmocka_unit_test_teardown(test_small_pool_keeps_recording, teardown),
        cmocka_unit_test_teardown(test_one_at_a_time, teardown),
        cmocka_unit_test_teardown(test_hitch_writes_file, teardown),
        cmocka_unit_test_teardown(test_signal_and_cooldown, teardown),
        cmocka_unit_test_teardown(test_snapshots_under_load, teardown),
        cmocka_unit_test_teardown(test_counter_trigger, teardown),
        cmocka_unit_test_teardown(test_fork, teardown),
        cmocka_unit_test_teardown(test_idle_past_window, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
