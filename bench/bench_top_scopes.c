/* The overlay's top scopes: the cost of ludus_overlay_top_scopes on a
 * rolling window's snapshot of a demo-like workload (per frame a Frame
 * scope holding Update, Physics, AI, 6 job submits and 40 draws on the
 * frame thread, and 12 job scopes on a worker thread: about the demo's 117
 * events per frame), as an overlay refreshing from a fresh snapshot does:
 * the first call on a snapshot (it prepares the capture: sites, counts)
 * and a second one on the same snapshot. Frames are not paced: the window
 * holds --frames frames whatever the clock says (4 s at 60 fps: 240).
 *   bench_top_scopes [--frames N] [--runs R]
 * Wall time: median and max of R snapshots; bench/top_scopes.sh counts the
 * instructions under callgrind (first_call, again_call). */
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <ludus/profiling.h>
#include <ludus/rolling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_common.h"

static volatile uint64_t sink;
static void work(uint32_t n) {
    for (uint32_t i = 0; i < n; i++) sink += i;
}

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int go, done, quit;

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Worker");
    pthread_mutex_lock(&mu);
    for (;;) {
        while (!go && !quit) pthread_cond_wait(&cv, &mu);
        if (quit) break;
        go = 0;
        pthread_mutex_unlock(&mu);
        for (int j = 0; j < 12; j++) {
            LUDUS_PROFILE_SCOPE(Job);
            work(50);
        }
        pthread_mutex_lock(&mu);
        done = 1;
        pthread_cond_broadcast(&cv);
    }
    pthread_mutex_unlock(&mu);
    return NULL;
}

static void frame(void) {
    LUDUS_PROFILE_SCOPE(Frame);
    pthread_mutex_lock(&mu);
    go = 1;
    done = 0;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    {
        LUDUS_PROFILE_SCOPE(Update);
        {
            LUDUS_PROFILE_SCOPE(Physics);
            work(200);
        }
        {
            LUDUS_PROFILE_SCOPE(AI);
            work(100);
        }
    }
    for (int j = 0; j < 6; j++) {
        LUDUS_PROFILE_SCOPE(Submit);
        work(10);
    }
    {
        LUDUS_PROFILE_SCOPE(Render);
        for (int d = 0; d < 40; d++) {
            LUDUS_PROFILE_SCOPE(Draw);
            work(20);
        }
    }
    pthread_mutex_lock(&mu);
    while (!done) pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
}

static ludus_top_scope top[5];
static ludus_top_window win;

__attribute__((noinline)) int first_call(ludus_capture *c, const ludus_overlay_desc *d) {
    return ludus_overlay_top_scopes(c, d, top, 5, &win);
}
__attribute__((noinline)) int again_call(ludus_capture *c, const ludus_overlay_desc *d) {
    return ludus_overlay_top_scopes(c, d, top, 5, &win);
}

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
    uint32_t frames = 240, runs = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--frames")) frames = (uint32_t)atoi(argv[i + 1]);
        if (!strcmp(argv[i], "--runs")) runs = (uint32_t)atoi(argv[i + 1]);
    }
    if (frames < 2 || frames > 100000) frames = 240;
    if (runs < 1 || runs > 101) runs = 7;
    ludus_thread_register("Main");
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = 1024; /* 64 MiB: the window never fills it */
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = 600000; /* the window is the frames recorded, not a time */
    rd.hitch_factor = LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    if (ludus_rolling_begin(&cd, &rd) != 0) {
        fprintf(stderr, "bench_top_scopes: %s\n", ludus_last_error_detail());
        return 1;
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    for (uint32_t f = 0; f < frames + 1; f++) { /* frames + 1 marks: frames complete frames */
        frame();
        LUDUS_PROFILE_FRAME();
    }
    pthread_mutex_lock(&mu);
    quit = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    ludus_overlay_desc d = {.window_frames = frames};
    int64_t *first = calloc(runs, sizeof *first), *again = calloc(runs, sizeof *again),
            *snap = calloc(runs, sizeof *snap);
    uint64_t events = 0;
    for (uint32_t r = 0; r < runs; r++) {
        ludus_capture *c;
        int64_t t0 = bench_now_ns();
        if (ludus_rolling_snapshot(&c) != 0) {
            fprintf(stderr, "bench_top_scopes: snapshot: %s\n", ludus_last_error_detail());
            return 1;
        }
        int64_t t1 = bench_now_ns();
        int n = first_call(c, &d);
        int64_t t2 = bench_now_ns();
        int m = again_call(c, &d);
        int64_t t3 = bench_now_ns();
        if (n != 5 || m != 5 || win.frames != frames) {
            fprintf(stderr, "bench_top_scopes: %d scopes, %u frames (%s)\n", n, win.frames, ludus_last_error_detail());
            return 1;
        }
        ludus_capture_summary s;
        ludus_capture_get_summary(c, &s);
        events = s.events;
        ludus_capture_release(c);
        snap[r] = t1 - t0, first[r] = t2 - t1, again[r] = t3 - t2;
    }
    ludus_rolling_end();
    qsort(first, runs, sizeof *first, cmp_i64);
    qsort(again, runs, sizeof *again, cmp_i64);
    qsort(snap, runs, sizeof *snap, cmp_i64);
    printf("window: %u frames, %llu events in the snapshot (%.1f per frame)\n", frames, (unsigned long long)events,
           (double)events / frames);
    printf("top scopes: %s %.2f ms/frame (%.1f calls), %s, %s, %s, %s\n", top[0].name,
           top[0].exclusive_ns_per_frame / 1e6, top[0].calls_per_frame, top[1].name, top[2].name, top[3].name,
           top[4].name);
    printf("snapshot:           median %8.1f us, max %8.1f us (%u runs)\n", snap[runs / 2] / 1e3, snap[runs - 1] / 1e3,
           runs);
    printf("first call:         median %8.1f us, max %8.1f us; %.1f ns per event, %.2f us per frame of the window\n",
           first[runs / 2] / 1e3, first[runs - 1] / 1e3, (double)first[runs / 2] / (double)events,
           first[runs / 2] / 1e3 / frames);
    printf("again (same snap):  median %8.1f us, max %8.1f us; %.1f ns per event\n", again[runs / 2] / 1e3,
           again[runs - 1] / 1e3, (double)again[runs / 2] / (double)events);
    free(first);
    free(again);
    free(snap);
    return 0;
}
