/* The observer effect on a multithreaded program (issue 31): a job system
 * whose workers sleep between frames and wake when the frame thread posts
 * their jobs, timed by the program itself (dispatch to the last job done,
 * per frame), without and with a capture, in one run: blocks of frames
 * alternate (off, on, on, off, ...) so drift in the machine hits both.
 * A library thread that woke on a timer kept a CPU out of idle and made
 * such a program *faster* under capture; the capture must move the median
 * frame by less than 2 % either way.
 *
 *   bench_observer_mt [ROUNDS] [FRAMES_PER_BLOCK] [JOB_US]
 *
 * For 1, 2 and 4 workers: the median frame time off and on, their ratio,
 * and the ratio's median and extremes over the rounds. The last row is the
 * benchmark's own check that it can see the effect: the same program
 * beside an unrelated thread that sleeps 1 ms in a loop (no capture). */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

#define MAX_WORKERS 4
#define JOBS_PER_WORKER 4

static struct {
    int workers;
    int job_ns;
    sem_t go[MAX_WORKERS];
    sem_t done;
    volatile int quit;
    volatile int poll_quit;
} B;

static void spin_ns(int64_t ns) {
    int64_t until = bench_now_ns() + ns;
    while (bench_now_ns() < until) {
    }
}

static void run_job(void) {
    LUDUS_PROFILE_SCOPE(Job);
    for (int k = 0; k < 4; k++) {
        LUDUS_PROFILE_SCOPE(Step);
        spin_ns(B.job_ns / 4);
    }
}

static void *worker_main(void *arg) {
    int me = (int)(intptr_t)arg;
    char name[16];
    snprintf(name, sizeof name, "Worker %d", me);
    ludus_thread_register(name);
    for (;;) {
        sem_wait(&B.go[me]);
        if (B.quit) break;
        for (int j = 0; j < JOBS_PER_WORKER; j++) run_job();
        sem_post(&B.done);
    }
    ludus_thread_unregister();
    return NULL;
}

/* One frame: jobs to every worker, the frame thread's own share, the wait
 * for the workers; then the frame limiter's sleep (CPUs idle). Returns
 * the frame's work time in ns (dispatch to the last job done). */
static int64_t frame(void) {
    LUDUS_PROFILE_FRAME();
    int64_t t0 = bench_now_ns();
    {
        LUDUS_PROFILE_SCOPE(Dispatch);
        for (int w = 0; w < B.workers; w++) sem_post(&B.go[w]);
    }
    run_job();
    {
        LUDUS_PROFILE_SCOPE(WaitJobs);
        for (int w = 0; w < B.workers; w++) sem_wait(&B.done);
    }
    int64_t t = bench_now_ns() - t0;
    struct timespec ts = {0, 2000000}; /* the limiter: 2 ms idle */
    nanosleep(&ts, NULL);
    return t;
}

static double block(int frames, int captured) {
    double *v = malloc(sizeof *v * (size_t)frames);
    if (captured) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d); /* the defaults: the pool faulted in ahead by a library thread */
        if (ludus_capture_begin(&d)) {
            fprintf(stderr, "begin failed: %s\n", ludus_last_error_detail());
            exit(1);
        }
    }
    for (int f = 0; f < frames; f++) v[f] = (double)frame();
    if (captured) {
        ludus_capture *c = NULL;
        ludus_capture_end(&c);
        ludus_capture_release(c);
    }
    double m = bench_median(v, frames);
    free(v);
    return m;
}

static void *poller_main(void *arg) {
    (void)arg;
    struct timespec ts = {0, 1000000};
    while (!B.poll_quit) nanosleep(&ts, NULL);
    return NULL;
}

/* ratio[r] = median frame on / off in round r; prints the row. */
static void measure(int workers, int rounds, int frames, int poller) {
    B.workers = workers;
    B.quit = 0;
    pthread_t th[MAX_WORKERS];
    sem_init(&B.done, 0, 0);
    for (int w = 0; w < workers; w++) {
        sem_init(&B.go[w], 0, 0);
        pthread_create(&th[w], NULL, worker_main, (void *)(intptr_t)w);
    }
    double *ratio = malloc(sizeof *ratio * (size_t)rounds);
    double *off = malloc(sizeof *off * (size_t)rounds), *on = malloc(sizeof *on * (size_t)rounds);
    block(frames / 4, 0); /* warm-up */
    pthread_t poll_th;
    for (int r = 0; r < rounds; r++) {
        int first_on = r & 1; /* off, on | on, off | ... */
        for (int k = 0; k < 2; k++) {
            int second = first_on ? k == 0 : k == 1;
            if (poller) {
                if (second) {
                    B.poll_quit = 0;
                    pthread_create(&poll_th, NULL, poller_main, NULL);
                }
                double m = block(frames, 0);
                if (second) {
                    B.poll_quit = 1;
                    pthread_join(poll_th, NULL);
                    on[r] = m;
                } else {
                    off[r] = m;
                }
            } else {
                double m = block(frames, second);
                if (second)
                    on[r] = m;
                else
                    off[r] = m;
            }
        }
        ratio[r] = on[r] / off[r];
    }
    double lo = ratio[0], hi = ratio[0];
    for (int r = 1; r < rounds; r++) {
        if (ratio[r] < lo) lo = ratio[r];
        if (ratio[r] > hi) hi = ratio[r];
    }
    double moff = bench_median(off, rounds), mon = bench_median(on, rounds);
    printf("%-26s %d   %9.1f   %9.1f   %.4f   %.4f   %.4f .. %.4f\n",
           poller ? "1 ms sleeper, no capture" : "capture (defaults)", workers, moff / 1000, mon / 1000, mon / moff,
           bench_median(ratio, rounds), lo, hi);
    fflush(stdout);
    B.quit = 1;
    for (int w = 0; w < workers; w++) sem_post(&B.go[w]);
    for (int w = 0; w < workers; w++) {
        pthread_join(th[w], NULL);
        sem_destroy(&B.go[w]);
    }
    sem_destroy(&B.done);
    free(ratio);
    free(off);
    free(on);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 9;
    int frames = argc > 2 ? atoi(argv[2]) : 200;
    B.job_ns = (argc > 3 ? atoi(argv[3]) : 100) * 1000;
    if (rounds < 1 || frames < 4 || B.job_ns <= 0) {
        fprintf(stderr, "usage: bench_observer_mt [ROUNDS] [FRAMES_PER_BLOCK] [JOB_US]\n");
        return 1;
    }
    ludus_thread_register("Frame");
    printf("observer (multithreaded): %d rounds of %d frames off and on, %d jobs of %d us per worker and frame,\n"
           "a 2 ms sleep between frames; frame = dispatch to the last job done (us, medians)\n",
           rounds, frames, JOBS_PER_WORKER, B.job_ns / 1000);
    printf("%-26s %s\n", "", "workers   off (us)    on (us)   on/off   ratio: median   min .. max over rounds");
    int counts[] = {1, 2, 4};
    for (int i = 0; i < 3; i++) measure(counts[i], rounds, frames, 0);
    measure(2, rounds, frames, 1);
    return 0;
}
