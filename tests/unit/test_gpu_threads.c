/* GPU samples handed over from several threads while captures begin and
 * end (labelled concurrency: ThreadSanitizer checks the store's locking):
 * every sample a capture keeps was handed over while it ran and submitted
 * after it began, none is kept twice, and contexts created and destroyed
 * meanwhile are harmless. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "test_util.h"

#define THREADS 3
#define CAPTURES 12

static int stop;
static ludus_gpu_context *shared_ctx;

static void *producer(void *arg) {
    uintptr_t id = (uintptr_t)arg;
    uint64_t frame = id << 32;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        /* its own context now and then, the shared one otherwise */
        ludus_gpu_context *own = NULL;
        if (frame % 64 == 0) {
            ludus_gpu_context_desc d = {"Worker queue", NULL, LUDUS_GPU_QUEUE_COMPUTE, 1.0, 0};
            if (ludus_gpu_context_create(&d, &own) != 0) abort(); /* (cmocka asserts on the main thread only) */
        }
        ludus_gpu_sample s = {"Work", frame, 1000, 2000, 0, ludus_gpu_cpu_now_ns(), 0};
        ludus_gpu_submit(own ? own : shared_ctx, &s, 1); /* refused between captures */
        ludus_gpu_calibrate(shared_ctx, frame & 0xffffffffu, ludus_gpu_cpu_now_ns(), 10);
        ludus_gpu_note_coverage(shared_ctx, LUDUS_GPU_FRAMES, 1);
        ludus_gpu_context_destroy(own);
        frame++;
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void test_threads(void **state) {
    (void)state;
    ludus_gpu_context_desc d = {"Shared queue", NULL, LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 0};
    assert_int_equal(ludus_gpu_context_create(&d, &shared_ctx), 0);
    pthread_t th[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++) assert_int_equal(pthread_create(&th[i], NULL, producer, (void *)i), 0);
    uint64_t kept = 0;
    /* at least CAPTURES captures, more until one kept a sample (a loaded
     * machine may not run the producers during the first ones) */
    for (int k = 0; k < CAPTURES || (kept == 0 && k < 50 * CAPTURES); k++) {
        lt_begin(NULL);
        lt_spin_ns(LT_TSAN ? 4000000 : 2000000);
        lt_end();
        ludus_capture *c;
        assert_int_equal(ludus_capture_last(&c), 0);
        ludus_capture_summary sum;
        assert_int_equal(ludus_capture_get_summary(c, &sum), 0);
        uint64_t n = ludus_capture_gpu_span_count(c);
        /* no frame twice (each thread's frames are distinct and increasing) */
        uint64_t *seen = calloc(n ? n : 1, sizeof *seen);
        assert_non_null(seen);
        for (uint64_t i = 0; i < n; i++) {
            ludus_gpu_span sp;
            assert_int_equal(ludus_capture_gpu_span(c, i, &sp), 0);
            assert_true(sp.submit_ns >= 0);
            assert_true(sp.submit_ns <= sum.end_ns - sum.start_ns);
            seen[i] = sp.frame;
        }
        if (n) qsort(seen, n, sizeof *seen, cmp_u64);
        for (uint64_t i = 1; i < n; i++) assert_true(seen[i] != seen[i - 1]);
        free(seen);
        kept += n;
        ludus_capture_release(c);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
    ludus_gpu_context_destroy(shared_ctx);
    assert_true(kept > 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test_teardown(test_threads, lt_teardown)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
