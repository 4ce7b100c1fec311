/* The synthetic engine of issue 38 for bench/long_session.sh: a frame
 * thread with 16 scopes a frame nested 4 deep, a gauge and a frame mark
 * (34 events a frame), and 2 workers each running 4 short jobs a frame
 * (Job{Work}: 16 events a worker), so about 66 events a frame and short
 * frames (a few microseconds). Recorded through the public API into a pool
 * sized for every event (0 dropped) and saved as .ludus, or with
 * LONG_SESSION_STREAM=1 streamed to it as it records (the same pool: the
 * writer never falls behind far enough to drop; a streamed file is what a
 * long session writes).
 *   long_session OUT.ludus EVENTS [SEED]   (SEED varies the work a little:
 *   a second file for `diff`) */
#include <ludus/capture.h>

#include "bench_common.h"
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FRAME_EVENTS 34
#define JOBS_PER_FRAME 4
#define JOB_EVENTS 4
#define WORKERS 2
#define EVENTS_PER_FRAME (FRAME_EVENTS + WORKERS * JOBS_PER_FRAME * JOB_EVENTS)

static unsigned long n_frames, seed;
static volatile unsigned long sink;

static void work(unsigned long n) {
    for (unsigned long i = 0; i < n; i++) sink += i;
}

#define LEAF(Name, n)              \
    do {                           \
        LUDUS_PROFILE_SCOPE(Name); \
        work(n);                   \
    } while (0)

static void *worker(void *arg) {
    (void)arg;
    for (unsigned long j = 0; j < n_frames * JOBS_PER_FRAME; j++) {
        LUDUS_PROFILE_SCOPE(Job);
        LEAF(Work, 8 + (j & 7));
    }
    return NULL;
}

static void frame(unsigned long f) {
    LUDUS_PROFILE_SCOPE(Frame);
    {
        LUDUS_PROFILE_SCOPE(Update);
        {
            LUDUS_PROFILE_SCOPE(Physics);
            LEAF(Solve, 20 + (f * seed & 15));
            LEAF(Collide, 10);
        }
        {
            LUDUS_PROFILE_SCOPE(Animate);
            LEAF(Skin, 10);
        }
    }
    {
        LUDUS_PROFILE_SCOPE(Render);
        {
            LUDUS_PROFILE_SCOPE(Cull);
            LEAF(Visibility, 10);
        }
        {
            LUDUS_PROFILE_SCOPE(Draw);
            LEAF(Mesh, 20);
            LEAF(Ui, 5);
        }
    }
    {
        LUDUS_PROFILE_SCOPE(Audio);
        {
            LUDUS_PROFILE_SCOPE(Mix);
            LEAF(Stream, 5);
        }
    }
    LUDUS_PROFILE_GAUGE(Entities, (double)(1000 + f % 97));
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: long_session OUT.ludus EVENTS [SEED]\n");
        return 1;
    }
    unsigned long long events = strtoull(argv[2], NULL, 10);
    seed = argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
    n_frames = (unsigned long)(events / EVENTS_PER_FRAME);
    if (n_frames < 2) n_frames = 2;
    ludus_capture_desc d = {0};
    /* 16 B an event (the gauge takes two), a quarter more for part-filled pieces and the end reserve */
    unsigned long long chunks = (unsigned long long)n_frames * EVENTS_PER_FRAME * 16 / 65536 * 5 / 4 + 256;
    d.chunk_count = (uint32_t)chunks;
    const char *stream = getenv("LONG_SESSION_STREAM");
    int streamed = stream && strcmp(stream, "1") == 0;
    if (streamed) d.stream_path = argv[1];
    if (ludus_capture_begin(&d) != 0) {
        fprintf(stderr, "long_session: %s\n", ludus_last_error_detail());
        return 1;
    }
    int64_t t0 = bench_now_ns();
    pthread_t w[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        if (pthread_create(&w[i], NULL, worker, NULL) != 0) return 1;
    for (unsigned long f = 0; f < n_frames; f++) {
        frame(f);
        LUDUS_PROFILE_FRAME();
    }
    for (int i = 0; i < WORKERS; i++) pthread_join(w[i], NULL);
    int64_t rec_ns = bench_now_ns() - t0;
    if (ludus_capture_end(NULL) != 0 || (!streamed && bench_save_last(argv[1]) != 0)) {
        fprintf(stderr, "long_session: %s\n", ludus_last_error_detail());
        return 1;
    }
    uint64_t n_events, dropped;
    if (streamed) {
        ludus_stream_result r;
        if (ludus_capture_get_stream_result(&r) != 0 || r.error) {
            fprintf(stderr, "long_session: the stream failed: %s\n", ludus_last_error_detail());
            return 1;
        }
        n_events = r.events, dropped = r.dropped;
    } else {
        ludus_capture_summary s;
        bench_last_summary(&s);
        n_events = s.events, dropped = s.dropped;
    }
    printf("long_session: %lu frames, %llu events, %llu dropped, recorded in %.2f s (%.1f M events/s), "
           "pool %llu chunks -> %s%s\n",
           n_frames, (unsigned long long)n_events, (unsigned long long)dropped, (double)rec_ns / 1e9,
           (double)n_events / ((double)rec_ns / 1e3), chunks, argv[1], streamed ? " (streamed)" : "");
    return dropped ? 1 : 0;
}
