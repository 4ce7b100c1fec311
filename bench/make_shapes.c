/* Captures of the shapes that made passes quadratic (issue 22), recorded
 * through the public API and saved as .ludus, for bench/shapes.sh:
 *   deep   one thread recursing DEPTH levels deep (one scope a level)
 *   paths  PATHS distinct caller paths: four levels of 32 run-time names, a
 *          frame mark every 1024 leaves
 *   async  ZONES async zones open at once on one track (as many lanes)
 *   longframe  FRAMES frames of about 200 us of work (Update, Render, Draw),
 *          one of them, a third of the way, a 1 s Load (asleep): the frame
 *          chart must keep every other frame readable (tests/viewers)
 *   frames  N frames of a game-like loop (Frame, Update, Physics, Render, six
 *          Draws, a DrawCalls count): 23 events a frame, for bench/sql.sh's
 *          one large capture (ludus-trace sql)
 *   make_shapes deep|paths|async|longframe|frames OUT.ludus [N] */
#include <ludus/capture.h>

#include "bench_common.h"
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static unsigned long n_arg;

static void recurse(unsigned long d) {
    LUDUS_PROFILE_SCOPE(Recurse);
    if (d) recurse(d - 1);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
}

static void *deep(void *arg) {
    (void)arg;
    recurse(n_arg - 1);
    return NULL;
}

static void paths(void) {
    char names[32][16];
    for (int i = 0; i < 32; i++) snprintf(names[i], sizeof names[i], "P%02d", i);
    unsigned long leaves = 0;
    for (int a = 0; a < 32 && leaves < n_arg; a++) {
        LUDUS_PROFILE_SCOPE_DYN(names[a]);
        for (int b = 0; b < 32 && leaves < n_arg; b++) {
            LUDUS_PROFILE_SCOPE_DYN(names[b]);
            for (int c = 0; c < 32 && leaves < n_arg; c++) {
                LUDUS_PROFILE_SCOPE_DYN(names[c]);
                for (int d = 0; d < 32 && leaves < n_arg; d++, leaves++) {
                    LUDUS_PROFILE_SCOPE_DYN(names[d]);
                    if (leaves % 1024 == 0) LUDUS_PROFILE_FRAME();
                }
            }
        }
    }
    LUDUS_PROFILE_FRAME();
}

static void async(void) {
    uint32_t track = ludus_async_track("Loads"), site = ludus_site_intern("Load");
    for (unsigned long i = 0; i < n_arg; i++) ludus_async_begin(track, i, site);
    for (unsigned long i = 0; i < n_arg; i++) ludus_async_end(track, i);
}

static volatile unsigned long sink;

static void spin_ns(long ns) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do {
        for (int i = 0; i < 100; i++) sink += (unsigned long)i;
        clock_gettime(CLOCK_MONOTONIC, &b);
    } while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void longframe(void) {
    for (unsigned long f = 0; f < n_arg; f++) {
        {
            LUDUS_PROFILE_SCOPE(Update);
            spin_ns(60000 + (long)(f % 7) * 5000);
        }
        {
            LUDUS_PROFILE_SCOPE(Render);
            for (int k = 0; k < 4; k++) {
                LUDUS_PROFILE_SCOPE(Draw);
                spin_ns(25000);
            }
        }
        if (f == n_arg / 3) {
            LUDUS_PROFILE_SCOPE(Load);
            struct timespec t = {1, 0};
            nanosleep(&t, NULL);
        }
        LUDUS_PROFILE_FRAME();
    }
}

static void frames(void) {
    for (unsigned long f = 0; f < n_arg; f++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Frame);
        {
            LUDUS_PROFILE_SCOPE(Update);
            LUDUS_PROFILE_SCOPE(Physics);
        }
        LUDUS_PROFILE_SCOPE(Render);
        for (int d = 0; d < 6; d++) {
            LUDUS_PROFILE_SCOPE(Draw);
            __asm__ volatile("" ::: "memory");
        }
        LUDUS_PROFILE_COUNT(DrawCalls, 6 + (long)(f % 7));
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: make_shapes deep|paths|async|longframe|frames OUT.ludus [N]\n");
        return 1;
    }
    const char *shape = argv[1];
    n_arg = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
    if (!n_arg)
        n_arg = !strcmp(shape, "deep")        ? 1000000
                : !strcmp(shape, "paths")     ? 262144
                : !strcmp(shape, "longframe") ? 5000
                                              : 100000;
    ludus_capture_desc d = {0};
    d.chunk_count = 4096; /* 256 MiB: every event is kept */
    if (!strcmp(shape, "frames")) d.chunk_count = (uint32_t)((n_arg * 23 * 16 >> 16) * 5 / 4 + 64); /* 16 B an event */
    if (ludus_capture_begin(&d) != 0) {
        fprintf(stderr, "make_shapes: %s\n", ludus_last_error_detail());
        return 1;
    }
    if (!strcmp(shape, "deep")) {
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setstacksize(&at, (size_t)n_arg * 256 + (1u << 20));
        pthread_t t;
        if (pthread_create(&t, &at, deep, NULL) != 0) return 1;
        pthread_join(t, NULL);
    } else if (!strcmp(shape, "paths")) {
        paths();
    } else if (!strcmp(shape, "async")) {
        async();
    } else if (!strcmp(shape, "longframe")) {
        longframe();
    } else if (!strcmp(shape, "frames")) {
        frames();
    } else {
        fprintf(stderr, "make_shapes: unknown shape %s\n", shape);
        return 1;
    }
    if (ludus_capture_end(NULL) != 0 || bench_save_last(argv[2]) != 0) {
        fprintf(stderr, "make_shapes: %s\n", ludus_last_error_detail());
        return 1;
    }
    ludus_capture_summary s;
    bench_last_summary(&s);
    printf("%s: %llu events, %llu dropped -> %s\n", shape, (unsigned long long)s.events, (unsigned long long)s.dropped,
           argv[2]);
    return s.dropped ? 1 : 0;
}
