/* Streamed captures (ludus_capture_desc.stream_path, issue 38): a capture
 * twenty times longer than its pool ends with nothing dropped and every
 * scope in the file, begun and ended, per thread (the producers wait for
 * the writer between batches: a barrier, never a time); a child killed
 * with SIGKILL mid-stream leaves a file that reads up to its last whole
 * record, whatever the offset it is cut at; a saved file's summary gives
 * `info` its frames without an analysis, and a file without one (format
 * 4) says so; when the writer falls behind (held on the registry lock it
 * takes to name a new thread), every event is in the file or counted as
 * dropped, with the rate it needed. Label concurrency: the TSan tree runs
 * the writer thread. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/capture_model.h"
#include "record/record.h"
#include "session/stream.h"

#include <cmocka.h>

#include "test_util.h"

/* A pool of 16 pieces of 4 KiB: 64 KiB, about 4,000 slots. */
#define CHUNK_BYTES 4096u
#define CHUNKS 16u
#define POOL_SLOTS (CHUNKS * CHUNK_BYTES / 16u)
#define BATCH 200   /* outer scopes a thread records between barriers: 600 events (9.6 KB), a sixth of the pool */
#define BATCHES 150 /* 150 x 600 x 2 threads = 180,000 events: 44 times the pool's slots */

static pthread_barrier_t go, done;

static void record_batch(int worker) {
    for (int i = 0; i < BATCH; i++) {
        if (worker) {
            LUDUS_PROFILE_SCOPE(WorkerOuter);
            LUDUS_PROFILE_SCOPE(WorkerInner);
        } else {
            LUDUS_PROFILE_SCOPE(MainOuter);
            LUDUS_PROFILE_SCOPE(MainInner);
        }
        if (i == 0 && !worker) LUDUS_PROFILE_FRAME();
    }
}

static void *worker_main(void *arg) {
    (void)arg;
    ludus_thread_register("Stream worker");
    for (int b = 0; b < BATCHES; b++) {
        pthread_barrier_wait(&go);
        record_batch(1);
        pthread_barrier_wait(&done);
    }
    ludus_thread_unregister();
    return NULL;
}

/* Waits until the writer wrote every piece handed so far. The producers
 * hand a piece only when they leave it, so the piece each one is in stays
 * theirs: at most two pieces a thread are out of the pool's hands. */
static void wait_writer(void) {
    while (!ludus__stream_idle()) sched_yield();
}

/* Begins a capture streamed to path in the small pool above. */
static void begin_stream(const char *path) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = CHUNK_BYTES;
    d.chunk_count = CHUNKS;
    d.stream_path = path;
    assert_int_equal(ludus_capture_begin(&d), 0);
}

static void test_longer_than_pool(void **state) {
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-stream-%d.ludus", (int)getpid());
    ludus_thread_register("Stream main");
    begin_stream(path);
    pthread_barrier_init(&go, NULL, 2);
    pthread_barrier_init(&done, NULL, 2);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, worker_main, NULL), 0);
    for (int b = 0; b < BATCHES; b++) {
        pthread_barrier_wait(&go);
        record_batch(0);
        pthread_barrier_wait(&done);
        wait_writer();
    }
    pthread_join(th, NULL);
    ludus_capture *none = (ludus_capture *)path; /* ludus_capture_end hands back no capture for a stream */
    assert_int_equal(ludus_capture_end(&none), 0);
    assert_null(none);
    ludus_stream_result r;
    assert_int_equal(ludus_capture_get_stream_result(&r), 0);
    /* two scopes a loop per thread (a begin and an end each), and the frame marks (with the frame's snapshot) */
    uint64_t scopes_events = (uint64_t)BATCHES * BATCH * 2 * 2 * 2;
    print_message("streamed %llu events (pool: %u slots), %llu bytes, %llu blocks\n", (unsigned long long)r.events,
                  POOL_SLOTS, (unsigned long long)r.bytes, (unsigned long long)r.blocks);
    assert_true(scopes_events > 20u * POOL_SLOTS);
    assert_int_equal(r.dropped, 0);
    assert_int_equal(r.error, 0);
    assert_true(r.events >= scopes_events + BATCHES && r.events <= scopes_events + 3 * BATCHES);
    assert_true(r.needed_bytes_per_s == 0.0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal((uint64_t)st.st_size, r.bytes);

    /* the file: every scope of each thread begun and ended, by name */
    ludus_capture *c;
    int rc = ludus_capture_open(path, &c);
    if (rc) print_message("open: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_true(in.streamed);
    assert_false(in.stream_cut);
    assert_true(in.has_summary);
    assert_int_equal(in.version, 6);
    assert_int_equal(in.threads, 2);
    assert_int_equal(in.summary.events, r.events);
    assert_int_equal(in.summary.dropped, 0);
    assert_int_equal(in.summary_frame_marks, BATCHES);
    /* through the index at its end: the same, from the records after the blocks */
    ludus_capture *ix;
    assert_int_equal(ludus_capture_open_index(path, &ix), 0);
    ludus_capture_info ii;
    assert_int_equal(ludus_capture_get_info(ix, &ii), 0);
    assert_true(ii.index_only);
    assert_true(ii.has_summary && ii.streamed);
    assert_int_equal(ii.threads, 2);
    assert_int_equal(ii.sites, in.sites);
    assert_int_equal(ii.blocks, in.blocks);
    assert_int_equal(ii.slots, in.slots);
    assert_int_equal(ii.summary.events, r.events);
    assert_int_equal(ii.summary_frame_marks, BATCHES);
    assert_int_equal(ii.end_ns, in.end_ns);
    for (uint32_t k = 0; k < 2; k++) {
        ludus_thread_summary a, b;
        assert_int_equal(ludus_capture_thread(c, k, &a), 0);
        assert_int_equal(ludus_capture_thread(ix, k, &b), 0);
        assert_string_equal(a.name, b.name);
        assert_int_equal(a.events, b.events);
    }
    ludus_capture_release(ix);
    char *json = lt_capture_json(c);
    lt_trace t;
    lt_trace_parse(&t, json);
    const char *names[4] = {"MainOuter", "MainInner", "WorkerOuter", "WorkerInner"};
    for (int k = 0; k < 4; k++) {
        size_t n = lt_count(&t, 'B', names[k]);
        print_message("%s: %zu begun\n", names[k], n);
        assert_int_equal(n, (size_t)BATCHES * BATCH);
    }
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'B') assert_true(lt_match_end(&t, i) >= 0);
    assert_non_null(strstr(json, "\"Stream main\""));
    assert_non_null(strstr(json, "\"Stream worker\""));
    lt_trace_free(&t);
    free(json);
    /* its middle third saved as .ludus (threads interleaved in the file) reads back as the cut:
     * the same slices by name, each begun and ended */
    ludus_cut_desc cd = {1, (in.end_ns - in.start_ns) / 3, 2 * (in.end_ns - in.start_ns) / 3, NULL, 0};
    ludus_capture *v, *vc;
    assert_int_equal(ludus_capture_cut(c, &cd, &v), 0);
    char cut_path[300];
    snprintf(cut_path, sizeof cut_path, "%s.cut.ludus", path);
    assert_int_equal(ludus_capture_save(v, LUDUS_FORMAT_LUDUS, 0, cut_path), 0);
    assert_int_equal(ludus_capture_open(cut_path, &vc), 0);
    ludus_capture_summary vs;
    assert_int_equal(ludus_capture_get_summary(v, &vs), 0);
    print_message("the cut: %llu events\n", (unsigned long long)vs.events);
    char *jv = lt_capture_json(v), *jc = lt_capture_json(vc);
    lt_trace tv, tc;
    lt_trace_parse(&tv, jv);
    lt_trace_parse(&tc, jc);
    for (size_t i = 0; i < tc.n; i++)
        if (tc.ev[i].ph == 'B') assert_true(lt_match_end(&tc, i) >= 0);
    size_t cut_total = 0;
    for (int k = 0; k < 4; k++) {
        assert_int_equal(lt_count(&tc, 'B', names[k]), lt_count(&tv, 'B', names[k]));
        assert_int_equal(lt_count(&tc, 'E', names[k]), lt_count(&tv, 'E', names[k]));
        cut_total += lt_count(&tc, 'B', names[k]);
    }
    assert_true(cut_total > 0 && cut_total < 4u * BATCHES * BATCH);
    ludus_capture_info ci;
    assert_int_equal(ludus_capture_get_info(vc, &ci), 0);
    assert_true(ci.file_cut);
    assert_int_equal(ci.file_cut_from_ns, cd.from_ns);
    assert_int_equal(ci.end_ns - ci.start_ns, cd.to_ns - cd.from_ns);
    lt_trace_free(&tv);
    lt_trace_free(&tc);
    free(jv);
    free(jc);
    ludus_capture_release(vc);
    ludus_capture_release(v);
    remove(cut_path);
    /* a per-thread analysis agrees: no loss, every scope closed */
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    ludus_analysis_summary as;
    ludus_analysis_get_summary(a, &as);
    assert_int_equal(as.frame_marks, BATCHES);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    unlink(path);
    ludus_thread_unregister();
}

/* ---- kill -9 mid-stream ---- */

static volatile int *shared; /* [0]: frames written for sure, [1]: frames marked */
static int worker_scopes;    /* the child's: scopes the worker has ended */

static void *spinner(void *arg) {
    (void)arg;
    ludus_thread_register("Killed worker");
    for (int n = 1;; n++) {
        {
            LUDUS_PROFILE_SCOPE(KilledWork);
            lt_spin_ns(20000);
        }
        __atomic_store_n(&worker_scopes, n, __ATOMIC_RELEASE);
    }
    return NULL;
}

static void child(const char *path) {
    alarm(20);
    ludus_thread_register("Killed main");
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = CHUNK_BYTES;
    d.chunk_count = 64;
    d.stream_path = path;
    if (ludus_capture_begin(&d) != 0) _exit(90);
    pthread_t th;
    if (pthread_create(&th, NULL, spinner, NULL) != 0) _exit(91);
    uint32_t span_a = ludus_site_intern("KilledSpanA"), span_b = ludus_site_intern("KilledSpanB");
    for (int f = 1;; f++) {
        {
            LUDUS_PROFILE_SCOPE(KilledFrame);
            for (int i = 0; i < 100; i++) {
                LUDUS_PROFILE_SCOPE(KilledInner);
            }
        }
        /* spans that cross the scopes: B begins in a scope and ends after it, so it needs a lane of its own */
        ludus_span_begin(span_a);
        {
            LUDUS_PROFILE_SCOPE(KilledCrossed);
            ludus_span_begin(span_b);
        }
        ludus_span_end_site(span_a);
        ludus_span_end_site(span_b);
        LUDUS_PROFILE_FRAME();
        __atomic_store_n(&shared[1], f, __ATOMIC_RELEASE);
        if (f % 10 == 0) /* 10 frames (33 KB) at a time: the pool never fills, nothing is dropped */
            while (!ludus__stream_idle()) sched_yield();
        if (f == 200) { /* a point every frame before which is in the file: the main thread's piece is handed */
            /* and a piece of the worker's (two slots a scope): on a loaded machine
               it may not have run yet (its name was then missing from the file) */
            while (__atomic_load_n(&worker_scopes, __ATOMIC_ACQUIRE) < (int)(CHUNK_BYTES / 16)) sched_yield();
            for (int i = 0; i < (int)(CHUNK_BYTES / 16); i++) {
                LUDUS_PROFILE_SCOPE(KilledFlush);
            }
            while (!ludus__stream_idle()) sched_yield();
            __atomic_store_n(&shared[0], f, __ATOMIC_RELEASE);
        }
    }
}

static uint64_t frames_of(const char *path, int *cut) {
    ludus_capture *c;
    int rc = ludus_capture_open(path, &c);
    if (rc) print_message("open %s: %s\n", path, ludus_last_error_detail());
    assert_int_equal(rc, 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_true(in.streamed);
    *cut = in.stream_cut;
    uint64_t frames = in.summary.frames;
    ludus_capture_release(c);
    return frames;
}

static void test_kill9(void **state) {
    (void)state;
    if (lt_multithreaded_fork_unsupported()) skip();
    shared = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    assert_true(shared != MAP_FAILED);
    shared[0] = shared[1] = 0;
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-stream-kill-%d.ludus", (int)getpid());
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) child(path);
    while (__atomic_load_n(&shared[0], __ATOMIC_ACQUIRE) == 0) usleep(1000);
    while (__atomic_load_n(&shared[1], __ATOMIC_ACQUIRE) < 300) usleep(1000);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

    ludus_capture *c;
    int rc = ludus_capture_open(path, &c);
    if (rc) print_message("open: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_true(in.streamed);
    assert_true(in.stream_cut);
    assert_false(in.has_summary);
    assert_int_equal(in.pid, pid);
    assert_int_equal(in.compressed, LUDUS_TEST_ZSTD); /* its blocks compressed where the build has zstd */
    ludus_capture *ix;                                /* no index at the end of a file cut short: read whole */
    assert_int_equal(ludus_capture_open_index(path, &ix), 0);
    ludus_capture_info ii;
    assert_int_equal(ludus_capture_get_info(ix, &ii), 0);
    assert_false(ii.index_only);
    assert_true(ii.stream_cut);
    assert_int_equal(ii.summary.events, in.summary.events);
    ludus_capture_release(ix);
    print_message("killed after frame %d: the file holds %llu frame marks, %llu events\n", shared[1],
                  (unsigned long long)in.summary.frames, (unsigned long long)in.summary.events);
    assert_true(in.summary.frames >= 200);
    char *json = lt_capture_json(c);
    assert_non_null(strstr(json, "\"Killed main\""));
    assert_non_null(strstr(json, "\"Killed worker\""));
    lt_trace t;
    lt_trace_parse(&t, json);
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'B') assert_true(lt_match_end(&t, i) >= 0);
    assert_true(lt_count(&t, 'B', "KilledInner") >= 200u * 100u);
    /* the spans on lanes, as in a file that ended (its thread table counts them; a file cut short
       has none, and its spans were put on the thread's own track, cut short by its scopes) */
    long inner = lt_find(&t, 0, 'B', "KilledInner");
    assert_true(inner >= 0);
    size_t on_lanes = 0, on_own = 0; /* (one open at the cut, inside the scope it crosses, may nest there) */
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ph == 'B' && strcmp(t.ev[i].name, "KilledSpanB") == 0) {
            if (t.ev[i].tid == t.ev[inner].tid)
                on_own++;
            else
                on_lanes++;
        }
    print_message("KilledSpanB: %zu on span lanes, %zu on the thread's own track\n", on_lanes, on_own);
    assert_true(on_lanes >= 199);
    assert_true(on_own <= 1);
    /* the capture ends at its last event, not at its last CLOCK record (written at most every 100 ms:
       the events after it were outside the capture, and what they left open closed before it began) */
    int64_t last = 0;
    for (size_t i = 0; i < t.n; i++)
        if (t.ev[i].ts_ns > last) last = t.ev[i].ts_ns;
    print_message("the last event at %lld ns, the capture's end at %lld ns\n", (long long)last,
                  (long long)(in.end_ns - in.start_ns));
    assert_true(last <= in.end_ns - in.start_ns + 1000); /* (ts is written to the microsecond's thousandth) */
    lt_trace_free(&t);
    free(json);
    ludus_capture_release(c);

    /* cut at any offset, the file reads up to the last whole record before it */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    char *bytes = malloc((size_t)st.st_size);
    assert_int_equal(fread(bytes, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    char cut_path[128];
    snprintf(cut_path, sizeof cut_path, "%s.cut", path);
    uint64_t prev = 0;
    for (int k = 1; k <= 16; k++) {
        size_t at = (size_t)((uint64_t)st.st_size * (uint64_t)k / 16u) - (k < 16 ? 7u : 0u);
        FILE *o = fopen(cut_path, "wb");
        assert_non_null(o);
        assert_int_equal(fwrite(bytes, 1, at, o), at);
        fclose(o);
        int cut;
        uint64_t frames = frames_of(cut_path, &cut);
        assert_true(cut);
        assert_true(frames >= prev); /* more of the file, never fewer frames */
        prev = frames;
    }
    assert_int_equal(prev, in.summary.frames);
    free(bytes);
    unlink(cut_path);
    unlink(path);
    munmap((void *)shared, 4096);
}

/* ---- the writer falls behind: every event is in the file or counted ---- */

static pthread_barrier_t registered, locked, recorded;
#define FLOOD 20000 /* scopes: 40,000 events, ten times the pool */

static void *flooder(void *arg) {
    (void)arg;
    ludus_thread_register("Flooder");
    pthread_barrier_wait(&registered);
    pthread_barrier_wait(&locked); /* the main thread now holds the registry lock */
    for (int i = 0; i < FLOOD; i++) {
        LUDUS_PROFILE_SCOPE(Flood);
    }
    pthread_barrier_wait(&recorded);
    ludus_thread_unregister();
    return NULL;
}

static void test_writer_behind(void **state) {
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-stream-behind-%d.ludus", (int)getpid());
    begin_stream(path);
    pthread_barrier_init(&registered, NULL, 2);
    pthread_barrier_init(&locked, NULL, 2);
    pthread_barrier_init(&recorded, NULL, 2);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, flooder, NULL), 0);
    pthread_barrier_wait(&registered);
    /* The writer defines a thread from the registry when it meets its first
     * piece: holding the lock stops it there, before it gives any piece of
     * the flooder back, so the flooder fills the pool and drops. It is
     * taken before the flooder records its first event (the barrier
     * `locked`): else the writer may define it first and keep up. */
    ludus__mutex_lock(&ludus__reg.lock);
    pthread_barrier_wait(&locked);
    pthread_barrier_wait(&recorded);
    ludus__mutex_unlock(&ludus__reg.lock);
    pthread_join(th, NULL);
    assert_int_equal(ludus_capture_end(NULL), 0);
    ludus_stream_result r;
    assert_int_equal(ludus_capture_get_stream_result(&r), 0);
    print_message("written %llu, dropped %llu, needed %.0f B/s\n", (unsigned long long)r.events,
                  (unsigned long long)r.dropped, r.needed_bytes_per_s);
    assert_true(r.dropped > 0);
    assert_true(r.needed_bytes_per_s > r.written_bytes_per_s);
    assert_int_equal(r.events + r.dropped, 2u * FLOOD); /* each in the file or counted, never both */
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.summary.dropped, r.dropped);
    ludus_thread_summary ts;
    assert_int_equal(ludus_capture_thread(c, 0, &ts), 0);
    assert_string_equal(ts.name, "Flooder");
    assert_int_equal(ts.dropped, r.dropped);
    assert_true(ts.first_drop_ns >= 0);
    ludus_capture_release(c);
    unlink(path);
}

/* ---- info's summary ---- */

static void test_summary(void **state) {
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-summary-%d.ludus", (int)getpid());
    ludus_capture_desc d = lt_small_desc(64);
    lt_begin(&d);
    for (int f = 0; f < 10; f++) {
        LUDUS_PROFILE_SCOPE(SummaryFrame);
        LUDUS_PROFILE_FRAME();
    }
    lt_end();
    assert_int_equal(lt_save_last(LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.version, 5);
    assert_false(in.streamed);
    assert_true(in.has_summary);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    ludus_analysis_summary as;
    ludus_analysis_get_summary(a, &as);
    /* the frames `info` prints from the summary are the analysis's */
    assert_int_equal(in.summary_frame_marks, as.frame_marks);
    assert_int_equal(in.summary_frame_marks, 10);
    assert_int_equal(in.summary_marks_elsewhere, as.frame_marks_elsewhere);
    assert_string_equal(in.summary_frame_thread, as.frame_thread);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    unlink(path);
    /* a file from before the summary: info analyses it */
    char old[512];
    snprintf(old, sizeof old, "%s/v4-messages-compact.ludus", LUDUS_TEST_DATA_DIR);
    assert_int_equal(ludus_capture_open(old, &c), 0);
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_false(in.has_summary);
    ludus_capture_release(c);
}

/* A streamed file holds what a saved one holds of the capture's end: the
 * memory manifest (a domain's figures) and the GPU samples handed over
 * while it ran (a context's track, every sample), in the META and GPU
 * records after the blocks, read by the full open and the index's. */
static void test_streamed_tables(void **state) {
    (void)state;
    char path[96];
    snprintf(path, sizeof path, "/tmp/ludus-test-stream-tables-%d.ludus", (int)getpid());
    ludus_memory_domain heap = ludus_memory_domain_register("StreamHeap");
    begin_stream(path);
    ludus_gpu_context_desc gd = {"StreamQueue", "synthetic", 0, 1.0, 64};
    ludus_gpu_context *gpu = NULL;
    assert_int_equal(ludus_gpu_context_create(&gd, &gpu), 0);
    ludus_gpu_sample s[3 * 4];
    uint32_t n = 0;
    for (int f = 0; f < 4; f++) {
        LUDUS_PROFILE_SCOPE(StreamFrame);
        ludus_memory_alloc(heap, 4096);
        int64_t now = ludus_gpu_cpu_now_ns();
        uint64_t t = 1000000u + (uint64_t)f * 100000u;
        s[n++] = (ludus_gpu_sample){NULL, (uint64_t)f, t, t + 50000, 0, now, 0};
        s[n++] = (ludus_gpu_sample){"Shadows", (uint64_t)f, t, t + 20000, 0, now, 0};
        s[n++] = (ludus_gpu_sample){"Lighting", (uint64_t)f, t + 20000, t + 50000, 0, now, 0};
        LUDUS_PROFILE_FRAME();
    }
    ludus_memory_free(heap, 4096);
    uint32_t track = ludus_async_track("StreamLoads");
    ludus_async_begin(track, 7, ludus_site_intern("StreamLoad"));
    ludus_async_end(track, 7);
    assert_int_equal(ludus_gpu_submit(gpu, s, n), 0);
    ludus_gpu_note_coverage(gpu, LUDUS_GPU_FRAMES, 4);
    assert_int_equal(ludus_capture_end(NULL), 0);
    ludus_gpu_context_destroy(gpu);
    for (int index_only = 0; index_only < 2; index_only++) {
        ludus_capture *c = NULL;
        assert_int_equal(index_only ? ludus_capture_open_index(path, &c) : ludus_capture_open(path, &c), 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        assert_true(in.streamed);
        int found = 0;
        for (uint32_t i = 0; i < ludus_capture_memory_coverage_count(c); i++) {
            ludus_memory_coverage m;
            assert_int_equal(ludus_capture_memory_coverage(c, i, &m), 0);
            if (strcmp(m.name, "StreamHeap") != 0) continue;
            found = 1;
            lt_check_i64("StreamHeap's live bytes in the streamed file", 3 * 4096, m.live_bytes);
            lt_check_i64("StreamHeap's allocations", 4, m.allocs);
            lt_check_i64("StreamHeap's frees", 1, m.frees);
        }
        lt_check(lt_what("the streamed file's memory manifest names StreamHeap (index only: %d)", index_only), found);
        lt_check_u64("GPU tracks in the streamed file", 1, ludus_capture_gpu_track_count(c));
        ludus_gpu_track_info ti;
        assert_int_equal(ludus_capture_gpu_track(c, 0, &ti), 0);
        assert_string_equal(ti.name, "StreamQueue");
        lt_check_u64("GPU samples in the streamed file", n, ludus_capture_gpu_span_count(c));
        /* the thread table counts each thread's async events: a thread without any is not decoded a
           second time to look for zones (before, a streamed file's were not counted: every thread was) */
        uint64_t asyncs = 0;
        for (uint32_t t = 0; t < c->nthreads; t++) {
            lt_check(lt_what("thread %u's async events are counted", t), c->threads[t].async_counted);
            asyncs += c->threads[t].async_events;
        }
        lt_check_u64("async events in the streamed file's thread table", 2, asyncs);
        if (!index_only) {
            ludus_analysis *a = NULL;
            assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
            lt_check_u64("async sites the analysis finds", 1, ludus_analysis_async_count(a));
            lt_check_u64("StreamLoad zones", 1, ludus_analysis_async(a, 0)->zones);
            ludus_analysis_destroy(a);
        }
        ludus_capture_release(c);
    }
    unlink(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kill9), /* first: it forks, and TSan models a fork best before any thread exists */
        cmocka_unit_test_teardown(test_longer_than_pool, lt_teardown),
        cmocka_unit_test_teardown(test_writer_behind, lt_teardown),
        cmocka_unit_test_teardown(test_summary, lt_teardown),
        cmocka_unit_test_teardown(test_streamed_tables, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
