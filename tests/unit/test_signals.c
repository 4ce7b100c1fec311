/* Recording from a signal handler. A SIGPROF flood interrupts a thread
 * that records scopes; the handler records a scope and a mark. An event of
 * the handler that interrupted an event of its thread finds that thread's
 * busy bit set and is dropped and counted (never written over the event it
 * interrupted), so: every emitted event is recorded or counted, exactly,
 * and every slice of the export nests. In every join mode. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_util.h"

static volatile uint64_t handled; /* handler invocations (this thread only) */
static int stop_flood;

static void on_sigprof(int sig) {
    (void)sig;
    LUDUS_PROFILE_SCOPE(handler);
    LUDUS_PROFILE_MARK(tick);
    handled = handled + 1;
}

static void *flood(void *arg) {
    pthread_t target = *(pthread_t *)arg;
    while (!__atomic_load_n(&stop_flood, __ATOMIC_ACQUIRE)) {
        pthread_kill(target, SIGPROF);
        for (volatile int k = 0; k < 50; k++) {
        }
    }
    return NULL;
}

static void run(int join) {
    const uint64_t N = LT_TSAN ? 30000 : 300000;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigprof;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
    ludus_thread_register("target"); /* before any handler records */
    handled = 0;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 4096; /* 256 MiB: room for the loop, some of it may drop */
    d.join = join;
    lt_begin(&d);
    pthread_t self = pthread_self(), th;
    __atomic_store_n(&stop_flood, 0, __ATOMIC_RELEASE);
    assert_int_equal(pthread_create(&th, NULL, flood, &self), 0);
    uint64_t scopes = 0;
    const uint64_t want = LT_TSAN ? 50 : 2000;
    /* Until the flood has hit `want` times. Past N scopes the loop naps
     * 0.2 ms every 512 scopes: on a loaded machine the flooding thread gets
     * the core, and each wake-up takes a pending signal (a CI run with every
     * core busy once spun for minutes and recorded 16 M events). Bounded by
     * time. */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        LUDUS_PROFILE_SCOPE(work);
        scopes++;
        if (scopes < N || (scopes & 511) != 0) continue;
        if (handled >= want) break;
        struct timespec nap = {0, 200000};
        nanosleep(&nap, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec - t0.tv_sec > 120) break;
    }
    __atomic_store_n(&stop_flood, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    /* signals still pending are taken before the capture ends */
    sigset_t pending;
    do {
        struct timespec nap = {0, 1000000};
        nanosleep(&nap, NULL);
        sigpending(&pending);
    } while (sigismember(&pending, SIGPROF));
    /* No handler may run inside the end of the capture: its events would be
     * neither recorded nor counted while `handled` counts it. Under TSan a
     * signal can still be queued in the runtime (delivered at its next
     * interceptor, which may be inside ludus_capture_end): blocked here, it
     * waits until after the count, then is ignored. */
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGPROF);
    pthread_sigmask(SIG_BLOCK, &block, NULL);
    uint64_t h = handled;
    lt_end();
    signal(SIGPROF, SIG_IGN);
    pthread_sigmask(SIG_UNBLOCK, &block, NULL);
    signal(SIGPROF, SIG_DFL);
    ludus_capture_summary s = lt_summary();
    if (s.events + s.dropped != 2 * scopes + 3 * h)
        fail_msg("join %d: events %llu + dropped %llu != %llu emitted (%llu handler runs)", join,
                 (unsigned long long)s.events, (unsigned long long)s.dropped, (unsigned long long)(2 * scopes + 3 * h),
                 (unsigned long long)h);
    print_message("join %d: %llu handler runs, %llu events, %llu dropped (events a handler interrupted)\n", join,
                  (unsigned long long)h, (unsigned long long)s.events, (unsigned long long)s.dropped);
    assert_true(h >= want); /* the flood did interrupt */
    assert_int_equal(s.incomplete + s.unwound + s.orphan_ends, 0);
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 0); /* per track, every slice nests */
    /* handler slices recorded are whole: as many ends as begins */
    assert_int_equal(lt_count(&t, 'B', "handler"), lt_count(&t, 'E', "handler"));
    lt_trace_free(&t);
}

static void test_sigprof_flood_membarrier(void **state) {
    (void)state;
    run(LUDUS_JOIN_AUTO);
}

static void test_sigprof_flood_fence(void **state) {
    (void)state;
    run(LUDUS_JOIN_FENCE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_sigprof_flood_membarrier, lt_teardown),
        cmocka_unit_test_teardown(test_sigprof_flood_fence, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
