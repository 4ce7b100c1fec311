/* A streamed capture (ludus_capture_desc.stream_path, issue 38) under a
 * paced load: a frame thread (16 scopes a frame nested 4 deep and a
 * counter) and 2 workers with short jobs record RATE events a second for
 * SECONDS into FILE (RATE 0: as fast as they can). Prints, each second,
 * the recording process's RSS, and at the end the events, the drops, the
 * file's bytes per event, the write rate and what it would have needed.
 * usage: bench_stream SECONDS RATE FILE [CHUNKS]   (CHUNKS of 64 KiB, default 1024) */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds, rate;
static volatile int stop;

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Waits until `events` events are due at `per_thread_rate` since t0 (a
 * bench paces itself by the clock; tests never do). */
static void pace(int64_t t0, uint64_t events, double per_thread_rate) {
    if (per_thread_rate <= 0) return;
    int64_t due = t0 + (int64_t)((double)events * 1e9 / per_thread_rate);
    while (now_ns() < due) {
        int64_t left = due - now_ns();
        if (left > 200000) {
            struct timespec ts = {0, left / 2};
            nanosleep(&ts, NULL);
        }
    }
}

static void *frame_thread(void *arg) {
    (void)arg;
    ludus_thread_register("Frame");
    int64_t t0 = now_ns();
    uint64_t events = 0;
    double share = rate / 2; /* half the events on the frame thread */
    for (uint64_t f = 0; !stop; f++) {
        for (int i = 0; i < 4; i++) {
            LUDUS_PROFILE_SCOPE(Update);
            {
                LUDUS_PROFILE_SCOPE(Physics);
                {
                    LUDUS_PROFILE_SCOPE(Broadphase);
                    LUDUS_PROFILE_SCOPE(Pairs);
                }
            }
        }
        LUDUS_PROFILE_COUNT("FrameNo", 1);
        LUDUS_PROFILE_FRAME();
        events += 16 * 2 + 4;
        pace(t0, events, share);
    }
    ludus_thread_unregister();
    return NULL;
}

static void *worker(void *arg) {
    ludus_thread_register((const char *)arg);
    int64_t t0 = now_ns();
    uint64_t events = 0;
    double share = rate / 4;
    while (!stop) {
        for (int j = 0; j < 8; j++) {
            LUDUS_PROFILE_SCOPE(Job);
            LUDUS_PROFILE_SCOPE(JobInner);
        }
        events += 32;
        pace(t0, events, share);
    }
    ludus_thread_unregister();
    return NULL;
}

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s SECONDS RATE FILE [CHUNKS]\n", argv[0]);
        return 2;
    }
    seconds = atof(argv[1]);
    rate = atof(argv[2]);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.stream_path = argv[3];
    d.chunk_count = argc > 4 ? (uint32_t)atoi(argv[4]) : 0;
    ludus_thread_register("Main");
    if (ludus_capture_begin(&d) != 0) {
        fprintf(stderr, "begin: %s\n", ludus_last_error_detail());
        return 1;
    }
    pthread_t th[3];
    pthread_create(&th[0], NULL, frame_thread, NULL);
    pthread_create(&th[1], NULL, worker, "Worker 1");
    pthread_create(&th[2], NULL, worker, "Worker 2");
    long rss_min = 0, rss_max = 0;
    int64_t t0 = now_ns();
    for (int s = 1; s <= (int)seconds; s++) {
        sleep(1);
        long r = rss_kib();
        if (s >= 2) { /* after the pool is in */
            if (!rss_min || r < rss_min) rss_min = r;
            if (r > rss_max) rss_max = r;
        }
        printf("t=%3d s  rss %ld KiB\n", s, r);
        fflush(stdout);
    }
    stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    int64_t t1 = now_ns();
    int rc = ludus_capture_end(NULL);
    int64_t t2 = now_ns();
    ludus_stream_result r;
    ludus_capture_get_stream_result(&r);
    double dur = (double)(t1 - t0) / 1e9;
    printf("rate asked %.0f/s: %llu events in %.1f s = %.2f M events/s, %llu dropped, %.1f MB, %.2f B/event, "
           "written %.1f MB/s, needed %.1f MB/s; RSS from 2 s on %ld..%ld KiB; end took %.0f ms (rc %d)\n",
           rate, (unsigned long long)r.events, dur, (double)r.events / dur / 1e6, (unsigned long long)r.dropped,
           (double)r.bytes / 1e6, r.events ? (double)r.bytes / (double)r.events : 0.0, r.written_bytes_per_s / 1e6,
           r.needed_bytes_per_s / 1e6, rss_min, rss_max, (double)(t2 - t1) / 1e6, rc);
    return rc != 0;
}
