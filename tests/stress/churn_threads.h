/* The threads of the flight recorder's churn tests and benchmark (issue 32),
 * one description each: the program's frame thread, which never exits, and
 * a worker slot whose thread is replaced as soon as it is done; the clock
 * they read. Used by tests/stress/test_flight_churn.c,
 * tests/stress/test_controllers.c and bench/bench_flight_churn.c. */
#ifndef LUDUS_CHURN_THREADS_H
#define LUDUS_CHURN_THREADS_H

#include <ludus/profiling.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

static inline int64_t churn_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline void churn_sleep_ns(int64_t ns) {
    struct timespec ts = {(time_t)(ns / 1000000000), (long)(ns % 1000000000)};
    nanosleep(&ts, NULL);
}

/* The frame thread: registered as "frames", a frame mark, the frame's
 * number as the counter seq_site (0: none) and the frame's work (body, or
 * one empty scope "Frame"), then period_ns of sleep, until *stop. */
typedef struct churn_frames {
    const int *stop;
    uint32_t seq_site;
    int64_t period_ns;
    void (*body)(void);
} churn_frames;

static inline void *churn_frames_main(void *arg) {
    const churn_frames *f = arg;
    ludus_thread_register("frames");
    for (int64_t n = 0; !__atomic_load_n(f->stop, __ATOMIC_ACQUIRE); n++) {
        LUDUS_PROFILE_FRAME();
        if (f->seq_site) ludus_counter_sample(f->seq_site, n);
        if (f->body) {
            f->body();
        } else {
            LUDUS_PROFILE_SCOPE(Frame);
        }
        churn_sleep_ns(f->period_ns);
    }
    return NULL;
}

/* A worker slot: a thread running worker(arg), replaced as soon as it
 * returns, until *stop; started(arg), when set, just before each thread. */
typedef struct churn_slot {
    const int *stop;
    void *(*worker)(void *);
    void *arg;
    void (*started)(void *);
} churn_slot;

static inline void *churn_slot_main(void *p) {
    const churn_slot *s = p;
    while (!__atomic_load_n(s->stop, __ATOMIC_ACQUIRE)) {
        if (s->started) s->started(s->arg);
        pthread_t th;
        if (pthread_create(&th, NULL, s->worker, s->arg) != 0) break;
        pthread_join(th, NULL);
    }
    return NULL;
}

#endif
