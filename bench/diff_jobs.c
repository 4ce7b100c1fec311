/* The program the gate-accuracy benchmark (diff_gates.py) captures: a frame
 * loop with a job system whose work migrates between threads. Each frame the
 * main thread runs Input, then Update: it submits 16 jobs (4 each of
 * Animate, Physics, Cull, Particles) to a queue whose mutex is "JobQueue"
 * (contended acquisitions are lock waits), runs jobs itself while any are
 * left (whoever pops a job first runs it: which thread runs which job
 * changes from frame to frame and run to run), then waits for the workers
 * without a scope of its own (a parent that waits); then Render, which adds
 * 120 to the DrawCalls counter. Every job does a fixed amount of CPU work
 * (an LCG the compiler cannot fold), so a change is known by construction:
 * --slow PCT makes every Animate job do PCT% more. --hz HZ paces the frames
 * (a frame limiter sleeping, outside every scope, until the next deadline);
 * without it the loop runs uncapped.
 *   diff_jobs OUT.ludus [--frames N] [--hz HZ] [--slow PCT] [--workers N] */
#define _POSIX_C_SOURCE 200809L
#include <ludus/capture.h>
#include <ludus/locks.h>

#include "bench_common.h"
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile uint64_t sink;

/* iters steps of an LCG; one out-of-line copy for every site */
__attribute__((noinline)) static void work(uint64_t iters) {
    uint64_t x = sink | 1;
    for (uint64_t i = 0; i < iters; i++) x = x * 6364136223846793005u + 1442695040888963407u;
    sink = x;
}

#define UNIT 1000u /* iterations: about 1 us on a 2-3 GHz core */
#define KINDS 4
#define PER_KIND 4
#define MAX_JOBS (KINDS * PER_KIND)

static uint64_t cost[KINDS] = {40 * UNIT, 60 * UNIT, 30 * UNIT, 30 * UNIT};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t ready, done;
    int kind[MAX_JOBS];
    int head, count, pending, quit;
} q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0, 0};

static void run_job(int kind) {
    switch (kind) { /* a static site per kind */
    case 0: {
        LUDUS_PROFILE_SCOPE(Animate);
        work(cost[0]);
        break;
    }
    case 1: {
        LUDUS_PROFILE_SCOPE(Physics);
        work(cost[1]);
        break;
    }
    case 2: {
        LUDUS_PROFILE_SCOPE(Cull);
        work(cost[2]);
        break;
    }
    default: {
        LUDUS_PROFILE_SCOPE(Particles);
        work(cost[3]);
        break;
    }
    }
}

/* Pops a job (the lock held), -1 when none. */
static int pop(void) {
    if (q.count == 0) return -1;
    int k = q.kind[q.head];
    q.head = (q.head + 1) % MAX_JOBS;
    q.count--;
    return k;
}

static void finish(void) {
    LUDUS_PROFILE_MUTEX_LOCK(&q.lock);
    if (--q.pending == 0) pthread_cond_broadcast(&q.done);
    pthread_mutex_unlock(&q.lock);
}

static void *worker(void *arg) {
    char name[32];
    snprintf(name, sizeof name, "Worker %d", (int)(intptr_t)arg);
    ludus_thread_register(name);
    for (;;) {
        LUDUS_PROFILE_MUTEX_LOCK(&q.lock);
        while (q.count == 0 && !q.quit) pthread_cond_wait(&q.ready, &q.lock);
        int k = pop();
        pthread_mutex_unlock(&q.lock);
        if (k < 0) return NULL; /* quit */
        run_job(k);
        finish();
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: diff_jobs OUT.ludus [--frames N] [--hz HZ] [--slow PCT] [--workers N]\n");
        return 2;
    }
    const char *out = argv[1];
    int frames = 200, workers = 2;
    double hz = 0, slow = 0;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--frames") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--hz") && i + 1 < argc)
            hz = atof(argv[++i]);
        else if (!strcmp(argv[i], "--slow") && i + 1 < argc)
            slow = atof(argv[++i]) / 100.0;
        else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
            workers = atoi(argv[++i]);
        else {
            fprintf(stderr, "diff_jobs: unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (workers < 1 || workers > 8 || frames < 1) return 2;
    cost[0] = (uint64_t)((double)cost[0] * (1.0 + slow) + 0.5);
    ludus_lock_name(&q.lock, "JobQueue");
    ludus_capture_desc desc;
    memset(&desc, 0, sizeof desc);
    int rc = ludus_capture_begin(&desc);
    if (rc) {
        fprintf(stderr, "diff_jobs: begin capture: %s\n", ludus_error_string(rc));
        return 1;
    }
    pthread_t th[8];
    for (int w = 0; w < workers; w++) pthread_create(&th[w], NULL, worker, (void *)(intptr_t)(w + 1));
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    long period_ns = hz > 0 ? (long)(1e9 / hz) : 0;
    for (int f = 0; f < frames; f++) {
        {
            LUDUS_PROFILE_SCOPE(Frame);
            {
                LUDUS_PROFILE_SCOPE(Input);
                work(40 * UNIT);
            }
            {
                LUDUS_PROFILE_SCOPE(Update);
                LUDUS_PROFILE_MUTEX_LOCK(&q.lock);
                for (int k = 0; k < MAX_JOBS; k++) q.kind[(q.head + q.count++) % MAX_JOBS] = k % KINDS;
                q.pending = MAX_JOBS;
                pthread_cond_broadcast(&q.ready);
                pthread_mutex_unlock(&q.lock);
                for (;;) { /* help: the jobs no worker took yet */
                    LUDUS_PROFILE_MUTEX_LOCK(&q.lock);
                    int k = pop();
                    pthread_mutex_unlock(&q.lock);
                    if (k < 0) break;
                    run_job(k);
                    finish();
                }
                pthread_mutex_lock(&q.lock); /* the wait: no scope of its own */
                while (q.pending > 0) pthread_cond_wait(&q.done, &q.lock);
                pthread_mutex_unlock(&q.lock);
            }
            {
                LUDUS_PROFILE_SCOPE(Render);
                work(120 * UNIT);
                LUDUS_PROFILE_COUNT(DrawCalls, 120);
            }
        }
        LUDUS_PROFILE_FRAME();
        if (period_ns) { /* the frame limiter: outside every scope */
            next.tv_nsec += period_ns;
            while (next.tv_nsec >= 1000000000) next.tv_nsec -= 1000000000, next.tv_sec++;
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        }
    }
    LUDUS_PROFILE_MUTEX_LOCK(&q.lock);
    q.quit = 1;
    pthread_cond_broadcast(&q.ready);
    pthread_mutex_unlock(&q.lock);
    for (int w = 0; w < workers; w++) pthread_join(th[w], NULL);
    rc = ludus_capture_end(NULL);
    if (rc == 0) rc = bench_save_last(out);
    if (rc) {
        fprintf(stderr, "diff_jobs: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
        return 1;
    }
    return 0;
}
