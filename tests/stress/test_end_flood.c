/* End while producers flood a full pool: eight threads hit the pool's end
 * over and over (their cursors parked at the last piece's end, the end of
 * the pool's mapping), and the capture ends under them, twenty times. An
 * event in flight at the end whose slot is not in its piece (it was going
 * out of line) has no slot to look at: the end once read the word past the
 * pool there and crashed (bench_end --flooding). Every round ends, counts
 * what it dropped, and the next begins on the same pool. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

enum { THREADS = 8, ROUNDS = 20 };
static int stop;

static void *flood(void *p) {
    (void)p;
    ludus_thread_register("flood");
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        LUDUS_PROFILE_SCOPE(Flood);
    }
    return NULL;
}

static void test_end_under_a_flood(void **state) {
    (void)state;
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = 4096;
    d.chunk_count = 16; /* 64 KiB: full at once */
    pthread_t th[THREADS];
    assert_int_equal(ludus_capture_begin(&d), 0);
    for (int k = 0; k < THREADS; k++) assert_int_equal(pthread_create(&th[k], NULL, flood, NULL), 0);
    for (int r = 0; r < ROUNDS; r++) {
        usleep(3000); /* the producers run meanwhile */
        ludus_capture *c = NULL;
        assert_int_equal(ludus_capture_end(&c), 0);
        ludus_capture_summary s;
        assert_int_equal(ludus_capture_get_summary(c, &s), 0); /* waits for the stragglers: reads their slots */
        ludus_capture_release(c);
        assert_int_equal(ludus_capture_begin(&d), 0);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int k = 0; k < THREADS; k++) pthread_join(th[k], NULL);
    assert_int_equal(ludus_capture_end(NULL), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_under_a_flood),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
