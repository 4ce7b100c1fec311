/* What the live view costs the frame thread, for callgrind (bench/live.sh):
 * run_scopes (scope pairs), run_marks (LUDUS_PROFILE_FRAME alone) and
 * run_frames (a frame of 16 scopes, a count and a mark, then a 1 ms nap so
 * that the library's thread ticks while it runs) are the functions callgrind
 * counts on the main thread (--toggle-collect, --separate-threads);
 * run_naps is the nap alone, subtracted.
 *
 *   bench_live N idle|live|watched
 * idle: no live view; live: ludus_live_start, nobody watching; watched: a
 * watcher thread of this process reads the block every 100 ms asking for
 * top scopes (the library's rolling window records), as ludus-trace top
 * does from another process. */
#include <ludus/capture.h>
#include <ludus/live.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void nap(void) {
    struct timespec ts = {0, 1000000};
    nanosleep(&ts, NULL);
}

__attribute__((noinline)) void run_scopes(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Inner);
            __asm__ __volatile__("");
        }
    }
}

__attribute__((noinline)) void run_marks(int n) {
    for (int i = 0; i < n; i++) {
        LUDUS_PROFILE_FRAME();
        __asm__ __volatile__("");
    }
}

__attribute__((noinline)) void run_frames(int n) {
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 8; k++) {
            LUDUS_PROFILE_SCOPE(Work);
            {
                LUDUS_PROFILE_SCOPE(Step);
                __asm__ __volatile__("");
            }
        }
        LUDUS_PROFILE_COUNT(Draws, 3);
        LUDUS_PROFILE_FRAME();
        nap();
    }
}

__attribute__((noinline)) void run_naps(int n) {
    for (int i = 0; i < n; i++) nap();
}

static volatile int stop;
static ludus_watch_view view;
static volatile uint32_t seen_state;

static void *watcher(void *arg) {
    ludus_watch *w = arg;
    while (!stop) {
        if (ludus_watch_read(w, 1, 120, &view) == 0) seen_state = view.state;
        usleep(100000);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: bench_live N idle|live|watched\n");
        return 1;
    }
    int n = atoi(argv[1]);
    int live = strcmp(argv[2], "idle") != 0, watched = !strcmp(argv[2], "watched");
    ludus_thread_register("Main");
    run_frames(2); /* first uses: the counter's slot, the ring (not counted) */
    pthread_t t;
    ludus_watch *w = NULL;
    if (live && ludus_live_start() != 0) return 1;
    if (watched) {
        if (ludus_watch_open((uint64_t)getpid(), &w) != 0 || pthread_create(&t, NULL, watcher, w) != 0) return 1;
        /* until the library's rolling window records (the frames it needs come from run_frames below) */
        for (int i = 0; i < 20000 && !(seen_state & LUDUS_WATCH_SCOPES_LIVE); i++) run_frames(1);
        if (!(seen_state & LUDUS_WATCH_SCOPES_LIVE)) return 1;
    }
    run_scopes(n);
    run_marks(n);
    run_frames(n / 100);
    run_naps(n / 100);
    if (watched) {
        printf("watched: %u publishes, top scopes over %u frames, state %u\n", (unsigned)view.publishes,
               view.top_frames, view.state);
        stop = 1;
        pthread_join(t, NULL);
        ludus_watch_close(w);
    }
    ludus_live_stop();
    return 0;
}
