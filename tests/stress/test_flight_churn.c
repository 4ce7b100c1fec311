/* Threads that come and go under a bounded flight recorder (issue 32): four
 * worker slots whose thread is replaced every few hundred jobs (a thread
 * per task) beside a frame thread that never exits, in a pool far smaller
 * than everything they record. Each snapshot holds the window of every
 * live thread: no event lost (dropped 0), the frame thread's numbered
 * frames contiguous over at least the window; and the snapshot's thread
 * list is bounded by the threads that lived in the window, not by all that
 * ever ran. The old recorder kept every exited thread's pieces until the
 * end: once the pool was full, new threads recorded nothing and the list
 * grew without bound. LUDUS_STRESS_SECONDS sets the length (3 s). */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <sys/wait.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "churn_threads.h"
#include "test_util.h"
#include "session/session.h" /* ludus__snapshot_copying, the test's seam */

enum { SLOTS = 4, JOBS = 300, MAX_STARTS = 1 << 20 };
#define WINDOW_MS 250

static int stop;
static uint32_t frame_site, job_site;
static int64_t starts[MAX_STARTS]; /* when each worker began (CLOCK_MONOTONIC ns) */
static uint32_t nstarts;

static void *worker(void *p) {
    (void)p;
    for (int64_t n = 0; n < JOBS; n++) {
        LUDUS_PROFILE_SCOPE(Job);
        ludus_counter_sample(job_site, n);
        if (n % 50 == 49) churn_sleep_ns(500000); /* a task that waits now and then */
    }
    return NULL;
}

/* A slot's new worker: when it began. */
static void note_start(void *p) {
    (void)p;
    uint32_t k = __atomic_fetch_add(&nstarts, 1u, __ATOMIC_RELAXED);
    if (k < MAX_STARTS) __atomic_store_n(&starts[k], churn_now_ns(), __ATOMIC_RELAXED);
}

/* Workers that began after t. */
static uint32_t started_since(int64_t t) {
    uint32_t n = __atomic_load_n(&nstarts, __ATOMIC_RELAXED), k = 0;
    for (uint32_t i = 0; i < n && i < MAX_STARTS; i++) k += __atomic_load_n(&starts[i], __ATOMIC_RELAXED) >= t;
    return k;
}

static void check_snapshot(ludus_capture *snap, int64_t taken_ns, int64_t began_ns) {
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(snap, &s), 0);
    /* every live thread's window: nothing lost to the recorder */
    if (s.dropped) fail_msg("the snapshot lost %llu events", (unsigned long long)s.dropped);
    /* the list: the threads of the window (and those still running), not all that ran */
    uint32_t bound = started_since(taken_ns - (int64_t)WINDOW_MS * 1000000 - 300000000) + SLOTS + 3;
    if (s.threads > bound)
        fail_msg("%u threads listed; %u began in the window (and margin) or were running", s.threads, bound);
    /* the frame thread: contiguous frames over at least the window */
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    int64_t last = -1, first_ts = -1, frames_seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strcmp(t.ev[i].name, "frame seq") != 0) continue;
        if (last >= 0) assert_int_equal(t.ev[i].ivalue, last + 1);
        if (first_ts < 0) first_ts = t.ev[i].ts_ns;
        last = t.ev[i].ivalue;
        frames_seen++;
    }
    assert_true(frames_seen > 0);
    int64_t span_ns = (s.end_ns - s.start_ns) - first_ts; /* from the first frame to the snapshot */
    if (taken_ns - began_ns > 3 * (int64_t)WINDOW_MS * 1000000 && span_ns < (int64_t)WINDOW_MS * 900000)
        fail_msg("the frame thread's frames cover %.1f ms of the %d ms window", (double)span_ns / 1e6, WINDOW_MS);
    if (getenv("LT_VERBOSE"))
        print_message("snapshot: %u threads (bound %u), %llu events, frames over %.1f ms\n", s.threads, bound,
                      (unsigned long long)s.events, (double)span_ns / 1e6);
    lt_trace_free(&t);
    free(json);
}

static void test_churn_keeps_every_window(void **state) {
    (void)state;
    const char *env = getenv("LUDUS_STRESS_SECONDS");
    int seconds = env && atoi(env) > 0 ? atoi(env) : 3;
    frame_site = ludus_site_intern("frame seq");
    job_site = ludus_site_intern("job seq");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_bytes = 16384;
    cd.chunk_count = 1024; /* 16 MiB: about 3 windows of these threads; they fill it many times over */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = WINDOW_MS;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
    int64_t began = churn_now_ns();
    pthread_t ft, st[SLOTS];
    churn_frames fr = {&stop, frame_site, 1000000, NULL};
    churn_slot sl = {&stop, worker, NULL, note_start};
    assert_int_equal(pthread_create(&ft, NULL, churn_frames_main, &fr), 0);
    for (int k = 0; k < SLOTS; k++) assert_int_equal(pthread_create(&st[k], NULL, churn_slot_main, &sl), 0);
    int snaps = 0;
    while (churn_now_ns() - began < (int64_t)seconds * 1000000000) {
        churn_sleep_ns(200000000);
        ludus_capture *snap = NULL;
        int64_t taken = churn_now_ns();
        assert_int_equal(ludus_rolling_snapshot(&snap), 0);
        check_snapshot(snap, taken, began);
        ludus_capture_release(snap);
        snaps++;
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < SLOTS; k++) pthread_join(st[k], NULL);
    pthread_join(ft, NULL);
    ludus_rolling_stats rs;
    assert_int_equal(ludus_rolling_get_stats(&rs), 0);
    print_message("%u workers over %d s, %d snapshots; evicted %llu (in the window: %llu)\n",
                  __atomic_load_n(&nstarts, __ATOMIC_RELAXED), seconds, snaps, (unsigned long long)rs.events_evicted,
                  (unsigned long long)rs.evicted_in_window);
    assert_int_equal(ludus_rolling_end(), 0);
}

/* ---- a snapshot never holds up a thread's registration ----
 * The snapshot is stopped in mid-copy (ludus__snapshot_copying, after its
 * first thread), the thread it copies next (Leaver) exits, and 20 new
 * threads register, record more than the small pool holds (it reclaims
 * what exited threads held) and exit, while the copy waits: each must
 * finish without the snapshot going on (a bounded wait that fails the test
 * rather than hang it), and the copy, let go, holds every one of Leaver's
 * events (its pieces were pinned: no new thread took one); a child forked
 * meanwhile holds no pin. The old
 * snapshot copied under the registry lock: the first registration waited
 * for the whole copy (300 ms under churn). */

enum { LEAVER_SAMPLES = 2000, NEWCOMERS = 20, NEWCOMER_SCOPES = 3000 };
static sem_t in_copy, let_go, leaver_ready, leaver_go, newcomers_done;
static pthread_t leaver_thread;
static uint32_t leaver_site;

static void pause_copy(void) {
    sem_post(&in_copy);
    while (sem_wait(&let_go) != 0 && errno == EINTR) {
    }
}

/* 0 once s is posted, -1 after `seconds` without (the thread it waits on is
 * blocked). */
static int wait_bounded(sem_t *s, int seconds) {
    struct timespec dl;
    clock_gettime(CLOCK_REALTIME, &dl);
    dl.tv_sec += seconds;
    int rc;
    while ((rc = sem_timedwait(s, &dl)) != 0 && errno == EINTR) {
    }
    return rc;
}

static void *leaver(void *p) {
    (void)p;
    ludus_thread_register("Leaver");
    for (int64_t n = 0; n < LEAVER_SAMPLES; n++) ludus_counter_sample(leaver_site, n);
    sem_post(&leaver_ready); /* recorded: the snapshot may list it */
    while (sem_wait(&leaver_go) != 0 && errno == EINTR) {
    }
    return NULL; /* exits while the snapshot copies */
}

static void *newcomer(void *p) {
    char name[32];
    snprintf(name, sizeof name, "Newcomer %d", (int)(intptr_t)p);
    ludus_thread_register(name);
    for (int n = 0; n < NEWCOMER_SCOPES; n++) {
        LUDUS_PROFILE_SCOPE(Newcomer);
    }
    return NULL;
}

static void *newcomers(void *p) {
    (void)p;
    pthread_join(leaver_thread, NULL); /* Leaver's exit is a registry call too */
    for (int k = 0; k < NEWCOMERS; k++) {
        pthread_t th;
        if (pthread_create(&th, NULL, newcomer, (void *)(intptr_t)k) != 0) return NULL;
        pthread_join(th, NULL);
    }
    sem_post(&newcomers_done);
    return NULL;
}

static void *snapshotter(void *p) {
    ludus_capture **out = p;
    if (ludus_rolling_snapshot(out) != 0) *out = NULL;
    return NULL;
}

/* A flight recorder of `pieces` 4 KiB pieces whose window no event leaves
 * by time: only the short pool makes threads reuse their pieces. */
static void begin_short_pool(uint32_t pieces) {
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_bytes = 4096;
    cd.chunk_count = pieces;
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 60000;
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    assert_int_equal(ludus_rolling_begin(&cd, &rd), 0);
}

static void test_snapshot_never_blocks_registration(void **state) {
    (void)state;
    sem_init(&in_copy, 0, 0);
    sem_init(&let_go, 0, 0);
    sem_init(&leaver_ready, 0, 0);
    sem_init(&leaver_go, 0, 0);
    sem_init(&newcomers_done, 0, 0);
    leaver_site = ludus_site_intern("leaver seq");
    ludus_thread_register("Snapshot test main"); /* the first thread listed: the copy stops after it */
    begin_short_pool(96);                        /* 384 KiB: the new threads record 2 MiB, so the pool runs short */
    { LUDUS_PROFILE_SCOPE(MainBefore); }
    pthread_t nt, sn;
    assert_int_equal(pthread_create(&leaver_thread, NULL, leaver, NULL), 0);
    assert_int_equal(wait_bounded(&leaver_ready, 60), 0);
    ludus__snapshot_copying = pause_copy;
    ludus_capture *snap = NULL;
    assert_int_equal(pthread_create(&sn, NULL, snapshotter, &snap), 0);
    int paused = wait_bounded(&in_copy, 60) == 0;
    ludus__snapshot_copying = NULL;
    /* a child forked now: its thread (listed, pinned by the parent's copy) holds no pin there,
     * or its pieces would never go back to the child's pool */
    int child_pins = -1;
    if (paused && !lt_multithreaded_fork_unsupported()) {
        pid_t pid = fork();
        if (pid == 0) _exit(ludus__cold.record >= 0 && ludus__reg.rec[ludus__cold.record].pins == 0 ? 0 : 3);
        int status = 0;
        if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) child_pins = WEXITSTATUS(status);
    }
    sem_post(&leaver_go); /* Leaver exits in mid-copy */
    assert_int_equal(pthread_create(&nt, NULL, newcomers, NULL), 0);
    /* 20 threads of 3,000 scopes: seconds at most, even under TSan on a
     * loaded machine; blocked by the copy, never */
    int blocked = paused && wait_bounded(&newcomers_done, 60) != 0;
    sem_post(&let_go);
    pthread_join(sn, NULL);
    pthread_join(nt, NULL);
    if (!paused) fail_msg("the snapshot never reached its copy");
    if (blocked) fail_msg("a thread that registers was held up while the snapshot copied");
    if (!lt_multithreaded_fork_unsupported() && child_pins != 0)
        fail_msg("a child forked during the copy kept its thread pinned (exit %d)", child_pins);
    assert_non_null(snap);
    /* Leaver's events, pinned while copied: every sample, in order */
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    int64_t next = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strcmp(t.ev[i].name, "leaver seq") != 0) continue;
        assert_int_equal(t.ev[i].ivalue, next);
        next++;
    }
    if (next != LEAVER_SAMPLES)
        fail_msg("the snapshot holds %lld of Leaver's %d samples", (long long)next, LEAVER_SAMPLES);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);
    assert_int_equal(ludus_rolling_end(), 0);
}

/* ---- a thread that goes round its pieces while they are copied ----
 * The snapshot is stopped after its first thread; the thread it copies next
 * (Flooder, alive) then records three times the pool, writing over every
 * piece the snapshot listed. Let go, the copy finds them all written over:
 * the thread is listed again and copied at once, so the snapshot holds its
 * newest samples, in order, up to the last. The first version of the copy
 * outside the lock kept nothing of it (an empty snapshot: stress_flight_recorder
 * failed so under ASan beside a CI run). */

enum { FLOOD_SAMPLES = 3 * 48 * 4096 / 16 };
static sem_t flooder_ready, flooder_go, flooder_done, flooder_exit;
static uint32_t flood_site;

static void *flooder(void *p) {
    (void)p;
    ludus_thread_register("Flooder");
    int64_t n = 0;
    for (; n < 100; n++) ludus_counter_sample(flood_site, n);
    sem_post(&flooder_ready);
    while (sem_wait(&flooder_go) != 0 && errno == EINTR) {
    }
    for (; n < 100 + FLOOD_SAMPLES; n++) ludus_counter_sample(flood_site, n);
    sem_post(&flooder_done);
    while (sem_wait(&flooder_exit) != 0 && errno == EINTR) {
    }
    return NULL;
}

static void test_snapshot_of_a_thread_gone_round(void **state) {
    (void)state;
    sem_init(&in_copy, 0, 0);
    sem_init(&let_go, 0, 0);
    sem_init(&flooder_ready, 0, 0);
    sem_init(&flooder_go, 0, 0);
    sem_init(&flooder_done, 0, 0);
    sem_init(&flooder_exit, 0, 0);
    flood_site = ludus_site_intern("flood seq");
    ludus_thread_register("Snapshot test main"); /* the first thread listed: the copy stops after it */
    begin_short_pool(48);                        /* Flooder records three times this */
    { LUDUS_PROFILE_SCOPE(MainBefore); }
    pthread_t ft, sn;
    assert_int_equal(pthread_create(&ft, NULL, flooder, NULL), 0);
    assert_int_equal(wait_bounded(&flooder_ready, 60), 0);
    ludus__snapshot_copying = pause_copy;
    ludus_capture *snap = NULL;
    assert_int_equal(pthread_create(&sn, NULL, snapshotter, &snap), 0);
    int paused = wait_bounded(&in_copy, 60) == 0;
    ludus__snapshot_copying = NULL;
    sem_post(&flooder_go);
    int flooded = wait_bounded(&flooder_done, 60) == 0;
    sem_post(&let_go);
    pthread_join(sn, NULL);
    sem_post(&flooder_exit);
    pthread_join(ft, NULL);
    if (!paused) fail_msg("the snapshot never reached its copy");
    assert_true(flooded);
    assert_non_null(snap);
    char *json = lt_capture_json(snap);
    lt_trace t;
    lt_trace_parse(&t, json);
    int64_t last = -1, seen = 0;
    for (size_t i = 0; i < t.n; i++) {
        if (t.ev[i].ph != 'C' || strcmp(t.ev[i].name, "flood seq") != 0) continue;
        if (last >= 0) assert_int_equal(t.ev[i].ivalue, last + 1);
        last = t.ev[i].ivalue;
        seen++;
    }
    if (seen == 0) fail_msg("the snapshot holds none of Flooder's samples");
    if (last != 100 + FLOOD_SAMPLES - 1)
        fail_msg("Flooder's last sample in the snapshot is %lld, it recorded up to %d", (long long)last,
                 100 + FLOOD_SAMPLES - 1);
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(snap);
    assert_int_equal(ludus_rolling_end(), 0);
}

/* A failed test leaves no recorder running for the next. */
static int end_rolling(void **state) {
    (void)state;
    if (ludus_rolling_active()) ludus_rolling_end();
    return 0;
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test_teardown(test_snapshot_never_blocks_registration, end_rolling),
                                       cmocka_unit_test_teardown(test_snapshot_of_a_thread_gone_round, end_rolling),
                                       cmocka_unit_test(test_churn_keeps_every_window)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
