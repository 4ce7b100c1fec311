/* The demo: a game-like frame loop on the main thread and a small job system
 * on worker threads, instrumented with Ludus Profiling. Each frame updates,
 * submits jobs (flows from the submitter to the worker that runs each one, a
 * ready-queue counter), renders, waits for the jobs, and marks the frame.
 * Every 37th frame has an injected hitch (a marker, a warning logged and a
 * long Streaming scope). The job queue's mutex is named "JobQueue": its
 * contended acquisitions are lock waits. A level streamer loads a chunk
 * every 60 frames as an async zone ("Load chunk" with a nested "Decompress"
 * on the "Level streaming" track) begun on the main thread and ended 20
 * frames later by a worker.
 *
 *   ludus-demo [--trace PATH] [--frames N] [--threads N] [--no-capture]
 *              [--slow-job NAME [--slow-factor F]] [--overlay] [--no-counters]
 *              [--extra-draws N] [--rolling DIR [--window-ms N]] [--crash-at-frame N] [--deterministic]
 *              [--hitch-ms N]
 *
 * --rolling DIR records with the rolling window instead of one capture: the
 * last 400 ms (--window-ms) are kept, and every hitch (a frame 2.5 x the running median)
 * writes the window around it to DIR from the library's background thread.
 * --hitch-ms N: the injected hitch's length (6 ms); the port checks make it
 * long enough that a loaded machine's slow frames never hide it.
 *
 * Counters: DrawCalls and JobsRun per frame, the ReadyQueue gauge, FrameMs
 * plotted, and two memory domains: Render (a persistent buffer and a per-
 * frame scratch) and Jobs (each job's payload, allocated by the submitter
 * and freed by the worker that ran it: frees on another thread).
 * --overlay formats the overlay text every frame and prints it every second; with --rolling a thread
 * of its own takes a snapshot of the window twice a second and adds the top scopes of its last 120
 * frames (exclusive time per frame), printed instead, and once more at the end; --no-counters leaves the
 * counters, gauges, plots and memory hooks out (the observer-effect run);
 * --extra-draws N adds N draw calls per frame (more work of its own kind,
 * for `ludus-trace diff`).
 *
 * --deterministic: every site records the same number of events in every run
 * (what `make test-tracy` compares between the built-in recorder and Tracy):
 * the job queue's lock is taken without the wrappers (whether it is
 * contended depends on timing), except in WaitForJobs, whose acquisition is
 * always recorded as a lock wait on "JobQueue" (ludus_lock_wait_begin).
 *
 * --crash-at-frame N writes to an unmapped address in frame N (a SIGSEGV): the crash
 * handler (ludus_crash_capture_begin, installed for --trace) writes the
 * capture to the trace path (or the window to the --rolling directory),
 * marked with the signal and the thread, and the demo then dies of it.
 *
 * --slow-job makes the job named NAME (e.g. "Job: Animate") F times slower
 * (default 1.5): the demo against itself with one job slowed down is what
 * `ludus-trace diff` must call "slower work" for that job. */
#define _POSIX_C_SOURCE 200809L
#include <ludus/capture.h>
#include <ludus/locks.h>
#include <ludus/rolling.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --overlay --rolling: the top scopes, computed off the frame thread from a
 * snapshot of the window (the frame loop only prints the latest text). */
static struct {
    pthread_mutex_t lock;
    char text[4096];
    int quit;
} top = {PTHREAD_MUTEX_INITIALIZER, "", 0};

static void overlay_with_scopes(char *out, size_t cap) {
    ludus_capture *snap;
    if (ludus_rolling_snapshot(&snap) != 0) {
        snprintf(out, cap, "ludus-demo: snapshot: %s\n", ludus_last_error_detail());
        return;
    }
    ludus_overlay_desc d;
    memset(&d, 0, sizeof d);
    d.scopes_from = snap; /* window_frames 0: 120, top_scopes 0: 5 */
    ludus_overlay_format(out, cap, &d);
    ludus_capture_release(snap);
}

static void *top_scopes_main(void *arg) {
    (void)arg;
    ludus_thread_register("Overlay");
    for (;;) {
        struct timespec half = {0, 500000000};
        nanosleep(&half, NULL);
        char text[sizeof top.text];
        overlay_with_scopes(text, sizeof text);
        pthread_mutex_lock(&top.lock);
        int quit = top.quit;
        if (!quit) memcpy(top.text, text, sizeof text);
        pthread_mutex_unlock(&top.lock);
        if (quit) return NULL;
    }
}

/* Busy work for about `us` microseconds (so slices have stable lengths). */
static void work_us(int us) {
    int64_t until = now_ns() + (int64_t)us * 1000;
    while (now_ns() < until) __asm__ __volatile__("" ::: "memory");
}

/* ---- a small job system ---- */

typedef struct job {
    uint32_t site; /* run-time site naming the job */
    uint64_t flow; /* flow from the submitter */
    int cost_us;
    void *payload; /* in the Jobs memory domain; freed by the worker */
} job;

#define QUEUE_CAP 256
static struct {
    pthread_mutex_t lock;
    pthread_cond_t ready, done;
    job q[QUEUE_CAP];
    int head, count, pending, quit;
} js = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {{0, 0, 0, NULL}}, 0, 0, 0, 0};

static uint32_t queue_counter_site;
static int counters = 1;  /* --no-counters: 0 */
static int extra_draws;   /* --extra-draws N: more draw calls per frame */
static int deterministic; /* --deterministic: the same events in every run */
static ludus_memory_domain mem_render, mem_jobs;
#define JOB_PAYLOAD 4096

/* The demo's allocator: malloc with the domain hooks. */
static void *tracked_alloc(ludus_memory_domain d, size_t n) {
    void *p = malloc(n);
    if (p && counters) ludus_memory_alloc(d, n);
    return p;
}
static void tracked_free(ludus_memory_domain d, void *p, size_t n) {
    if (p && counters) ludus_memory_free(d, n);
    free(p);
}

/* The job queue's lock: a lock wait when contended (timing decides), or,
 * with --deterministic, never recorded. */
static void queue_lock(void) {
    if (deterministic)
        pthread_mutex_lock(&js.lock);
    else
        LUDUS_PROFILE_MUTEX_LOCK(&js.lock);
}

static void submit(uint32_t site, int cost_us) {
    LUDUS_PROFILE_SCOPE(Submit, jobs);
    job j = {site, LUDUS_PROFILE_FLOW_OUT(Dispatch), cost_us, tracked_alloc(mem_jobs, JOB_PAYLOAD)};
    queue_lock();
    js.q[(js.head + js.count) % QUEUE_CAP] = j;
    js.count++;
    js.pending++;
    if (counters) LUDUS_PROFILE_GAUGE(ReadyQueue, js.count);
    ludus_counter_sample(queue_counter_site, js.count);
    pthread_cond_signal(&js.ready);
    pthread_mutex_unlock(&js.lock);
}

static void wait_all(void) {
    LUDUS_PROFILE_SCOPE(WaitForJobs, jobs);
    if (deterministic) { /* one lock wait per frame, contended or not */
        uintptr_t wait = ludus_lock_wait_begin(&js.lock, NULL);
        pthread_mutex_lock(&js.lock);
        ludus_lock_wait_end(wait);
    } else {
        LUDUS_PROFILE_MUTEX_LOCK(&js.lock);
    }
    while (js.pending > 0) pthread_cond_wait(&js.done, &js.lock);
    pthread_mutex_unlock(&js.lock);
}

/* The level streamer: an async zone per chunk load, begun on the main
 * thread and ended, frames later, by whichever worker picks up the flag. */
static uint32_t loading_track, load_site, decompress_site;
static uint64_t load_to_finish; /* atomic: id + 1 of the load a worker ends */

static void *worker_main(void *arg) {
    char name[32];
    snprintf(name, sizeof name, "Worker %d", (int)(intptr_t)arg);
    ludus_thread_register(name);
    for (;;) {
        queue_lock();
        while (js.count == 0 && !js.quit) pthread_cond_wait(&js.ready, &js.lock);
        if (js.count == 0 && js.quit) {
            pthread_mutex_unlock(&js.lock);
            break;
        }
        job j = js.q[js.head];
        js.head = (js.head + 1) % QUEUE_CAP;
        js.count--;
        ludus_counter_sample(queue_counter_site, js.count);
        if (counters) LUDUS_PROFILE_GAUGE(ReadyQueue, js.count);
        pthread_mutex_unlock(&js.lock);

        ludus_span_begin(j.site);
        LUDUS_PROFILE_FLOW_IN(j.flow);
        {
            LUDUS_PROFILE_SCOPE(Execute, jobs);
            LUDUS_PROFILE_ANNOTATE(CostUs, j.cost_us); /* scope annotations: args in the viewers */
            work_us(j.cost_us);
        }
        ludus_span_end();
        uint64_t load = __atomic_exchange_n(&load_to_finish, 0, __ATOMIC_ACQ_REL);
        if (load) ludus_async_end(loading_track, load - 1);
        tracked_free(mem_jobs, j.payload, JOB_PAYLOAD); /* allocated by the submitter's thread */
        if (counters) LUDUS_PROFILE_COUNT(JobsRun, 1);

        queue_lock();
        if (--js.pending == 0) pthread_cond_broadcast(&js.done);
        pthread_mutex_unlock(&js.lock);
    }
    ludus_thread_unregister();
    return NULL;
}

/* ---- the frame ---- */

static void physics(void) {
    LUDUS_PROFILE_FUNCTION();
    for (int i = 0; i < 3; i++) {
        LUDUS_PROFILE_SCOPE(SolveIsland, sim);
        work_us(60);
    }
}

static int fib(int n) {
    LUDUS_PROFILE_SCOPE_FINE(Fib);
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

static void ai(void) {
    LUDUS_PROFILE_FUNCTION();
    {
        LUDUS_PROFILE_SCOPE(PathFinding, sim);
        work_us(150);
    }
    {
        LUDUS_PROFILE_SCOPE(Decide, sim);
        volatile int r = fib(12);
        (void)r;
        work_us(50);
    }
}

static void render(int frame) {
    LUDUS_PROFILE_SCOPE(Render, render);
    void *scratch = tracked_alloc(mem_render, 64 * 1024 + (size_t)(frame % 4) * 16 * 1024);
    {
        LUDUS_PROFILE_SCOPE(ShadowMaps, render);
        if (counters) LUDUS_PROFILE_COUNT(DrawCalls, 120);
        work_us(300);
    }
    {
        LUDUS_PROFILE_SCOPE(MainPass, render);
        if (counters) LUDUS_PROFILE_COUNT(DrawCalls, 250 + (frame % 7) * 10 + extra_draws);
        work_us(600);
    }
    tracked_free(mem_render, scratch, 64 * 1024 + (size_t)(frame % 4) * 16 * 1024);
    {
        LUDUS_PROFILE_SCOPE("Post FX", render);
        work_us(150);
    }
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    const char *trace = "ludus-demo.json";
    int frames = 240, threads = 3, capture = 1, overlay = 0;
    const char *slow_job = NULL;
    const char *rolling_dir = NULL;
    int window_ms = 0;
    double slow_factor = 1.5;
    int crash_at = -1;
    int hitch_ms = 6;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace = argv[++i];
        else if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
            threads = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--slow-job") && i + 1 < argc)
            slow_job = argv[++i];
        else if (!strcmp(argv[i], "--slow-factor") && i + 1 < argc)
            slow_factor = atof(argv[++i]);
        else if (!strcmp(argv[i], "--overlay"))
            overlay = 1;
        else if (!strcmp(argv[i], "--extra-draws") && i + 1 < argc)
            extra_draws = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-counters"))
            counters = 0;
        else if (!strcmp(argv[i], "--rolling") && i + 1 < argc)
            rolling_dir = argv[++i];
        else if (!strcmp(argv[i], "--window-ms") && i + 1 < argc)
            window_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--deterministic"))
            deterministic = 1;
        else if (!strcmp(argv[i], "--hitch-ms") && i + 1 < argc)
            hitch_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--crash-at-frame") && i + 1 < argc)
            crash_at = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--no-capture"))
            capture = 0; /* same workload, instrumented but idle (observer-effect baseline) */
        else {
            fprintf(stderr,
                    "usage: %s [--trace PATH] [--frames N] [--threads N] [--no-capture] [--overlay] [--no-counters] "
                    "[--extra-draws N] [--rolling DIR [--window-ms N]] [--crash-at-frame N] [--deterministic] "
                    "[--hitch-ms N] "
                    "[--slow-job NAME "
                    "[--slow-factor F]]\n",
                    argv[0]);
            return 1;
        }
    }
    if (frames < 1 || threads < 1 || threads > 64 || hitch_ms < 0 || hitch_ms > 10000) {
        fprintf(stderr, "ludus-demo: --frames must be >= 1, --threads 1..64 and --hitch-ms 0..10000\n");
        return 1;
    }

    ludus_thread_register("Main");
    void *render_heap = NULL;
    if (counters) {
        mem_render = ludus_memory_domain_register("Render");
        mem_jobs = ludus_memory_domain_register("Jobs");
        ludus_memory_note_outside("demo: worker thread stacks (8 MiB each, reserved)", (uint64_t)threads << 23);
        render_heap = tracked_alloc(mem_render, 1 << 20); /* persistent: the render targets */
    }
    ludus_site_desc qd = {"Ready queue", "jobs", __FILE__, __LINE__};
    queue_counter_site = ludus_site_register(&qd);
    static const char *job_names[3] = {"Job: Animate", "Job: Cull", "Job: Particles"};
    uint32_t job_sites[3];
    int job_cost_us[3];
    ludus_lock_name(&js.lock, "JobQueue");
    loading_track = ludus_async_track("Level streaming");
    load_site = ludus_site_intern("Load chunk");
    decompress_site = ludus_site_intern("Decompress");
    for (int j = 0; j < 3; j++) {
        job_sites[j] = ludus_site_intern(job_names[j]);
        job_cost_us[j] = 120 + 40 * j;
        if (slow_job && !strcmp(slow_job, job_names[j])) job_cost_us[j] = (int)(job_cost_us[j] * slow_factor);
    }

    ludus_capture_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.chunk_count = 512; /* 32 MiB */
    ludus_rolling_desc rolling;
    memset(&rolling, 0, sizeof rolling);
    rolling.window_ms = window_ms > 0 ? (uint32_t)window_ms : 400;
    rolling.post_ms = 20;
    rolling.cooldown_ms = LUDUS_ROLLING_NONE; /* one file per hitch */
    rolling.max_files = 64;
    rolling.directory = rolling_dir;
    rolling.prefix = "ludus-demo";
    int rc = !capture ? 0 : rolling_dir ? ludus_rolling_begin(&desc, &rolling) : ludus_capture_begin(&desc);
    if (rc == LUDUS_EUNSUPPORTED && !rolling_dir) { /* a Tracy build (-DLUDUS_BACKEND=tracy): Tracy receives it all */
        printf("ludus-demo: %s; running without a capture\n", ludus_last_error_detail());
        capture = 0;
        rc = 0;
    }
    if (rc) {
        fprintf(stderr, "ludus-demo: begin capture: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }
    if (capture) { /* a crash writes what was recorded (a rolling window: into its directory) */
        ludus_crash_desc cd = {trace, 0, 0};
        rc = ludus_crash_capture_begin(&cd);
        if (rc && rc != LUDUS_EUNSUPPORTED)
            fprintf(stderr, "ludus-demo: crash capture: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
    }

    pthread_t *tids = calloc((size_t)threads, sizeof *tids);
    for (int i = 0; i < threads; i++) pthread_create(&tids[i], NULL, worker_main, (void *)(intptr_t)(i + 1));

    pthread_t top_tid;
    int top_thread = overlay && rolling_dir && capture && pthread_create(&top_tid, NULL, top_scopes_main, NULL) == 0;
    int64_t *frame_ns = calloc((size_t)frames, sizeof *frame_ns);
    int64_t last_overlay = now_ns();
    int hitches = 0;
    for (int f = 0; f < frames; f++) {
        int64_t t0 = now_ns();
        {
            LUDUS_PROFILE_SCOPE(Frame);
            {
                LUDUS_PROFILE_SCOPE(Update, sim);
                physics();
                ai();
            }
            for (int j = 0; j < 6; j++) submit(job_sites[j % 3], job_cost_us[j % 3]);
            render(f);
            if (f == crash_at) {
                LUDUS_PROFILE_SCOPE(Crash);
                /* an address below the lowest mapping the kernel allows (not NULL,
                 * which UndefinedBehaviorSanitizer would catch first) */
                int *volatile unmapped = (int *)(uintptr_t)64;
                *unmapped = 1; /* SIGSEGV */
            }
            if (f % 60 == 5) { /* a chunk load spanning 20 frames, with a nested step */
                ludus_async_begin(loading_track, (uint64_t)f, load_site);
                ludus_async_begin(loading_track, (uint64_t)f, decompress_site);
            }
            if (f % 60 == 12) ludus_async_end(loading_track, (uint64_t)(f - 7)); /* decompressed */
            if (f % 60 == 25) __atomic_store_n(&load_to_finish, (uint64_t)(f - 20) + 1, __ATOMIC_RELEASE);
            if (f % 37 == 36) {
                LUDUS_PROFILE_MARK(Hitch);
                ludus_log(LUDUS_LOG_WARNING, "streaming stall in frame %d: %d KiB read synchronously", f, 768);
                LUDUS_PROFILE_SCOPE(Streaming, io);
                LUDUS_PROFILE_ANNOTATE_TEXT(Chunk, f % 2 ? "level/east.pak" : "level/west.pak");
                LUDUS_PROFILE_ANNOTATE(Frame, f);
                work_us(hitch_ms * 1000);
                hitches++;
            }
            wait_all();
        }
        if (counters) {
            ludus_memory_sample();
            LUDUS_PROFILE_PLOT(FrameMs, (double)(now_ns() - t0) / 1e6);
        }
        LUDUS_PROFILE_FRAME();
        frame_ns[f] = now_ns() - t0;
        if (overlay) { /* formatted every frame, as a game draws it; printed once a second */
            char text[2048];
            ludus_overlay_format(text, sizeof text, NULL);
            if (now_ns() - last_overlay >= 1000000000) {
                if (top_thread) { /* the latest text with the top scopes, when there is one */
                    pthread_mutex_lock(&top.lock);
                    if (top.text[0])
                        memcpy(text, top.text, sizeof text < sizeof top.text ? sizeof text : sizeof top.text);
                    text[sizeof text - 1] = 0;
                    pthread_mutex_unlock(&top.lock);
                }
                printf("---- overlay (frame %d) ----\n%s", f, text);
                last_overlay = now_ns();
            }
        }
    }

    queue_lock();
    js.quit = 1;
    pthread_cond_broadcast(&js.ready);
    pthread_mutex_unlock(&js.lock);
    for (int i = 0; i < threads; i++) pthread_join(tids[i], NULL);
    tracked_free(mem_render, render_heap, 1 << 20);

    qsort(frame_ns, (size_t)frames, sizeof *frame_ns, cmp_i64);
    if (!capture) {
        printf("Frame time (wall, %d frames, not recording): p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n",
               frames, frame_ns[frames / 2] / 1e6, frame_ns[frames * 9 / 10] / 1e6, frame_ns[frames * 99 / 100] / 1e6,
               frame_ns[frames - 1] / 1e6);
        free(frame_ns);
        free(tids);
        return 0;
    }
    if (top_thread) {
        char text[4096];
        overlay_with_scopes(text, sizeof text); /* the window's last frames: before anything else runs */
        pthread_mutex_lock(&top.lock);
        top.quit = 1;
        pthread_mutex_unlock(&top.lock);
        pthread_join(top_tid, NULL);
        printf("---- overlay with the top scopes, at the end ----\n%s", text);
    }
    if (rolling_dir) {
        ludus_rolling_flush(5000); /* the last hitch's file */
        ludus_rolling_stats st;
        ludus_rolling_get_stats(&st);
        ludus_rolling_end();
        printf("Ludus Profiling demo, rolling window: %d frames, %d injected hitches\n", frames, hitches);
        printf("Hitches found: %llu (running median frame %.2f ms); files written to %s: %llu, the last %s\n",
               (unsigned long long)st.hitches, st.frame_median_ns / 1e6, rolling_dir,
               (unsigned long long)st.files_written, st.last_file);
        printf("Events written over: %llu (%llu still inside the window); window copies: the longest %.1f us, the "
               "last %.1f us; triggers not taken: %llu coalesced, %llu writer busy, %llu over the maximum\n",
               (unsigned long long)st.events_evicted, (unsigned long long)st.evicted_in_window,
               st.snapshot_max_ns / 1e3, st.snapshot_last_ns / 1e3, (unsigned long long)st.coalesced,
               (unsigned long long)st.writer_busy, (unsigned long long)st.over_max);
        printf("Frame time (wall, %d frames): p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n", frames,
               frame_ns[frames / 2] / 1e6, frame_ns[frames * 9 / 10] / 1e6, frame_ns[frames * 99 / 100] / 1e6,
               frame_ns[frames - 1] / 1e6);
        free(frame_ns);
        free(tids);
        return 0;
    }
    ludus_capture *cap = NULL;
    rc = ludus_capture_end(&cap);
    if (rc == 0) rc = ludus_capture_save(cap, LUDUS_FORMAT_JSON, 0, trace);
    if (rc) {
        fprintf(stderr, "ludus-demo: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }
    /* The native capture next to the JSON: the trace path with .ludus. */
    char capture_path[4096];
    {
        const char *dot = strrchr(trace, '.'), *slash = strrchr(trace, '/');
        int stem = dot && (!slash || dot > slash) ? (int)(dot - trace) : (int)strlen(trace);
        snprintf(capture_path, sizeof capture_path, "%.*s.ludus", stem, trace);
    }
    rc = ludus_capture_save(cap, LUDUS_FORMAT_LUDUS, 0, capture_path);
    if (rc) {
        fprintf(stderr, "ludus-demo: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }

    ludus_capture_summary s;
    ludus_capture_get_summary(cap, &s);
    printf("Ludus Profiling demo: %d frames, %d worker threads, %d injected hitches\n", frames, threads, hitches);
    printf("Trace written to %s\n", trace);
    printf("Capture saved to %s (ludus-trace info/convert read it)\n", capture_path);
    printf("Open it at https://ui.perfetto.dev (Open trace file) or https://www.speedscope.app (Browse), or in\n"
           "Chromium's DevTools (Performance panel, Load profile). Perfetto's own format, several times smaller:\n"
           "ludus-trace convert %s trace.pftrace\n\n",
           capture_path);
    printf("Capture: %.1f ms, clock %s, %u threads, %llu events, %llu dropped, %llu incomplete, %u chunks\n",
           (double)(s.end_ns - s.start_ns) / 1e6, s.clock_name, s.threads, (unsigned long long)s.events,
           (unsigned long long)s.dropped, (unsigned long long)s.incomplete, s.chunks_used);
    printf("Frame time (wall, %d frames): p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms\n", frames,
           frame_ns[frames / 2] / 1e6, frame_ns[frames * 9 / 10] / 1e6, frame_ns[frames * 99 / 100] / 1e6,
           frame_ns[frames - 1] / 1e6);
    printf("\n%-12s %10s %10s %12s\n", "thread", "events", "dropped", "incomplete");
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary t;
        if (ludus_capture_thread(cap, i, &t) == 0)
            printf("%-12s %10llu %10llu %12llu\n", t.name, (unsigned long long)t.events, (unsigned long long)t.dropped,
                   (unsigned long long)t.incomplete);
    }
    ludus_capture_release(cap);
    free(frame_ns);
    free(tids);
    return 0;
}
