/* Lock waits (<ludus/locks.h>): a zone only when a lock was contended.
 *   - uncontended mutexes and rwlocks (both sides) record nothing at all;
 *   - a mutex held by the main thread while N threads each lock it once
 *     records exactly N waits, on the waiting threads, under the lock's name,
 *     in category "lock" (the JSON export parsed back, the analysis);
 *   - an unnamed mutex records under the call site's text;
 *   - rwlocks: readers blocked by a writer wait, a writer blocked by readers
 *     waits, readers among readers do not;
 *   - a lock of one's own with LUDUS_PROFILE_LOCK_WAIT and with
 *     ludus_lock_wait_begin / _end (by name);
 *   - the name table: rename, forget, a full table refuses and counts, the
 *     slots come back after forget.
 * Deterministic: the main thread releases a lock only once every waiter is
 * asleep in the kernel (its state in /proc is 'S'), which it can only be
 * after its try-lock failed. Threads never assert (cmocka is not thread-safe).
 * Labelled concurrency: it runs under ThreadSanitizer too. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/locks.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_util.h"

enum { WAITERS = 4 };

static void nap_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* The scheduler state of thread tid of this process ('R', 'S', 'D', ...). */
static char thread_state(uint64_t tid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/self/task/%llu/stat", (unsigned long long)tid);
    FILE *f = fopen(path, "r");
    if (!f) return '?';
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    const char *p = strrchr(buf, ')'); /* the name may hold spaces and parentheses */
    return p && p[1] == ' ' ? p[2] : '?';
}

typedef enum { OP_MUTEX, OP_MUTEX_UNNAMED, OP_READ, OP_WRITE } op_kind;

typedef struct waiter {
    op_kind op;
    pthread_mutex_t *m;
    pthread_rwlock_t *rw;
    uint64_t tid;      /* written before arrived is incremented */
    int *arrived;      /* atomic */
    int rc;            /* the lock call's result */
    volatile int done; /* atomic: it holds (or held) the lock */
} waiter;

static void *waiter_main(void *arg) {
    waiter *w = arg;
    w->tid = lt_gettid();
    __atomic_add_fetch(w->arrived, 1, __ATOMIC_RELEASE);
    switch (w->op) {
    case OP_MUTEX:
        w->rc = LUDUS_PROFILE_MUTEX_LOCK(w->m);
        pthread_mutex_unlock(w->m);
        break;
    case OP_MUTEX_UNNAMED:
        w->rc = ludus_mutex_lock(w->m, NULL);
        pthread_mutex_unlock(w->m);
        break;
    case OP_READ:
        w->rc = LUDUS_PROFILE_RWLOCK_RDLOCK(w->rw);
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        pthread_rwlock_unlock(w->rw);
        break;
    case OP_WRITE:
        w->rc = LUDUS_PROFILE_RWLOCK_WRLOCK(w->rw);
        __atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
        pthread_rwlock_unlock(w->rw);
        break;
    }
    return NULL;
}

/* Starts n waiters and returns once each is asleep in the lock (its state
 * 'S' in five checks in a row, 1 ms apart: the try-lock failed, it blocks). */
static void start_blocked(pthread_t *th, waiter *w, int n) {
    int arrived = 0;
    for (int i = 0; i < n; i++) {
        w[i].arrived = &arrived;
        assert_int_equal(pthread_create(&th[i], NULL, waiter_main, &w[i]), 0);
    }
    while (__atomic_load_n(&arrived, __ATOMIC_ACQUIRE) < n) nap_us(200);
#ifdef _WIN32 /* no /proc to see them asleep: time to reach the lock (the port's unit suite) */
    nap_us(300000);
    return;
#endif
    for (int stable = 0; stable < 5;) {
        int asleep = 1;
        for (int i = 0; i < n; i++) asleep &= thread_state(w[i].tid) == 'S';
        stable = asleep ? stable + 1 : 0;
        nap_us(1000);
    }
}

/* Lock-wait slices of the last capture's JSON: named `name` (NULL: any),
 * and how many of them lie on the tids in w. */
static size_t lock_slices(const char *name, const waiter *w, int n, size_t *on_waiters) {
    lt_trace t;
    lt_trace_load(&t);
    lt_trace_check(&t, 0);
    size_t k = 0, on = 0;
    for (size_t i = 0; i < t.n; i++) {
        const lt_ev *e = &t.ev[i];
        if (e->ph != 'B' || strcmp(e->cat, "lock") != 0) continue;
        if (name && strcmp(e->name, name) != 0) continue;
        k++;
        for (int j = 0; j < n; j++) on += e->tid == w[j].tid;
    }
    lt_trace_free(&t);
    if (on_waiters) *on_waiters = on;
    return k;
}

/* The analysis of the last capture's lock `name`: waits, and threads. */
static uint64_t analysed_waits(const char *name, uint32_t *threads) {
    ludus_analysis *a;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    int64_t i = ludus_analysis_find_lock(a, name);
    uint64_t waits = 0;
    if (i >= 0) {
        const ludus_lock_stats *l = ludus_analysis_lock(a, (uint32_t)i);
        waits = l->wait.count;
        if (threads) *threads = l->threads;
        assert_true(l->wait.total_ns >= l->wait.max_ns && l->wait.max_ns > 0);
    }
    ludus_analysis_destroy(a);
    return waits;
}

static void test_uncontended_records_nothing(void **st) {
    (void)st;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    assert_int_equal(ludus_lock_name(&m, "Quiet"), 0);
    lt_begin(NULL);
    LUDUS_PROFILE_MARK(Start); /* the one event: the capture is not empty */
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(LUDUS_PROFILE_MUTEX_LOCK(&m), 0);
        pthread_mutex_unlock(&m);
        assert_int_equal(ludus_mutex_lock(&m, NULL), 0);
        pthread_mutex_unlock(&m);
        assert_int_equal(LUDUS_PROFILE_RWLOCK_RDLOCK(&rw), 0);
        assert_int_equal(LUDUS_PROFILE_RWLOCK_RDLOCK(&rw), 0); /* readers among readers */
        pthread_rwlock_unlock(&rw);
        pthread_rwlock_unlock(&rw);
        assert_int_equal(LUDUS_PROFILE_RWLOCK_WRLOCK(&rw), 0);
        pthread_rwlock_unlock(&rw);
    }
    lt_end();
    assert_int_equal(lt_summary().events, 1);
    assert_int_equal(lock_slices(NULL, NULL, 0, NULL), 0);
    ludus_analysis *a;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    assert_int_equal(ludus_analysis_lock_count(a), 0);
    ludus_analysis_destroy(a);
    assert_int_equal(ludus_lock_forget(&m), 0);
}

static void test_contended_mutex_named(void **st) {
    (void)st;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    assert_int_equal(ludus_lock_name(&m, "Old name"), 0);
    assert_int_equal(ludus_lock_name(&m, "TestQueue"), 0); /* renamed */
    assert_non_null(ludus_lock_site(&m));
    assert_string_equal(ludus_lock_site(&m)->name, "TestQueue");
    assert_string_equal(ludus_lock_site(&m)->category, "lock");
    pthread_t th[WAITERS];
    waiter w[WAITERS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < WAITERS; i++) w[i].op = OP_MUTEX, w[i].m = &m;
    lt_begin(NULL);
    pthread_mutex_lock(&m);
    start_blocked(th, w, WAITERS);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < WAITERS; i++) pthread_join(th[i], NULL);
    /* uncontended now: nothing more */
    assert_int_equal(LUDUS_PROFILE_MUTEX_LOCK(&m), 0);
    pthread_mutex_unlock(&m);
    lt_end();
    for (int i = 0; i < WAITERS; i++) assert_int_equal(w[i].rc, 0);
    size_t on = 0;
    assert_int_equal(lock_slices("TestQueue", w, WAITERS, &on), WAITERS);
    assert_int_equal(on, WAITERS); /* each on its waiting thread */
    assert_int_equal(lock_slices(NULL, NULL, 0, NULL), WAITERS);
    uint32_t threads = 0;
    assert_int_equal(analysed_waits("TestQueue", &threads), WAITERS);
    assert_int_equal(threads, WAITERS);

    /* the Perfetto export names the category too */
    char path[] = "/tmp/ludus_locks_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_PFTRACE, 0, path), 0);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char bytes[1 << 20];
    size_t n = fread(bytes, 1, sizeof bytes, f);
    fclose(f);
    unlink(path);
    assert_non_null(memmem(bytes, n, "TestQueue", 9));
    assert_non_null(memmem(bytes, n, "lock", 4));
    assert_int_equal(ludus_lock_forget(&m), 0);
    assert_null(ludus_lock_site(&m));
    assert_int_equal(ludus_lock_forget(&m), LUDUS_ENODATA);
}

static void test_contended_mutex_unnamed(void **st) {
    (void)st;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_t th[2];
    waiter w[2];
    memset(w, 0, sizeof w);
    w[0].op = OP_MUTEX, w[0].m = &m;         /* the macro: the call site's text */
    w[1].op = OP_MUTEX_UNNAMED, w[1].m = &m; /* ludus_mutex_lock(m, NULL): "mutex" */
    lt_begin(NULL);
    pthread_mutex_lock(&m);
    start_blocked(th, w, 2);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    lt_end();
    size_t on = 0;
    assert_int_equal(lock_slices("w->m", w, 1, &on), 1);
    assert_int_equal(on, 1);
    assert_int_equal(lock_slices("mutex", w + 1, 1, &on), 1);
    assert_int_equal(on, 1);
    assert_int_equal(lock_slices(NULL, NULL, 0, NULL), 2);
    ludus_analysis *a;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    assert_int_equal(ludus_analysis_lock_count(a), 2);
    int64_t k = ludus_analysis_find_lock(a, "w->m");
    assert_true(k >= 0);
    const ludus_lock_stats *l = ludus_analysis_lock(a, (uint32_t)k);
    assert_non_null(strstr(l->file, "test_locks.c")); /* a call site: file and line */
    assert_true(l->line > 0);
    ludus_analysis_destroy(a);
}

static void test_rwlock_read_and_write(void **st) {
    (void)st;
    pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
    assert_int_equal(ludus_lock_name(&rw, "Assets"), 0);
    pthread_t th[WAITERS];
    waiter w[WAITERS];

    /* a writer holds it: N readers wait */
    memset(w, 0, sizeof w);
    for (int i = 0; i < WAITERS; i++) w[i].op = OP_READ, w[i].rw = &rw;
    lt_begin(NULL);
    pthread_rwlock_wrlock(&rw);
    start_blocked(th, w, WAITERS);
    pthread_rwlock_unlock(&rw);
    for (int i = 0; i < WAITERS; i++) pthread_join(th[i], NULL);
    lt_end();
    size_t on = 0;
    assert_int_equal(lock_slices("Assets", w, WAITERS, &on), WAITERS);
    assert_int_equal(on, WAITERS);
    assert_int_equal(analysed_waits("Assets", NULL), WAITERS);

    /* readers hold it: another reader goes in, a writer waits */
    memset(w, 0, sizeof w);
    w[0].op = OP_READ, w[0].rw = &rw;
    w[1].op = OP_WRITE, w[1].rw = &rw;
    int arrived = 0;
    w[0].arrived = &arrived;
    lt_begin(NULL);
    pthread_rwlock_rdlock(&rw);
    assert_int_equal(pthread_create(&th[0], NULL, waiter_main, &w[0]), 0);
    pthread_join(th[0], NULL); /* it read while the main thread reads */
    assert_int_equal(w[0].done, 1);
    start_blocked(th + 1, w + 1, 1);
    assert_int_equal(w[1].done, 0);
    pthread_rwlock_unlock(&rw);
    pthread_join(th[1], NULL);
    lt_end();
    assert_int_equal(w[1].rc, 0);
    assert_int_equal(lock_slices("Assets", w + 1, 1, &on), 1);
    assert_int_equal(on, 1);
    assert_int_equal(lock_slices(NULL, NULL, 0, NULL), 1);
    assert_int_equal(ludus_lock_forget(&rw), 0);
}

/* A lock of one's own: a flag. */
static int own_lock;
static int own_try(void) {
    int expected = 0;
    return __atomic_compare_exchange_n(&own_lock, &expected, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}
static int own_waiting; /* atomic: the waiter is in its wait */

static void *own_waiter(void *arg) {
    int by_name = arg != NULL;
    if (!own_try()) {
        if (by_name) {
            uintptr_t t = ludus_lock_wait_begin(&own_lock, NULL);
            __atomic_store_n(&own_waiting, 1, __ATOMIC_RELEASE);
            while (!own_try()) nap_us(100);
            ludus_lock_wait_end(t);
        } else {
            LUDUS_PROFILE_LOCK_WAIT(OwnLock);
            __atomic_store_n(&own_waiting, 1, __ATOMIC_RELEASE);
            while (!own_try()) nap_us(100);
        }
    }
    __atomic_store_n(&own_lock, 0, __ATOMIC_RELEASE);
    return NULL;
}

static void test_own_lock(void **st) {
    (void)st;
    for (int by_name = 0; by_name < 2; by_name++) {
        if (by_name) assert_int_equal(ludus_lock_name(&own_lock, "OwnNamed"), 0);
        pthread_t th;
        own_waiting = 0;
        lt_begin(NULL);
        assert_true(own_try());
        assert_int_equal(pthread_create(&th, NULL, own_waiter, by_name ? &own_lock : NULL), 0);
        while (!__atomic_load_n(&own_waiting, __ATOMIC_ACQUIRE)) nap_us(200);
        __atomic_store_n(&own_lock, 0, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
        /* uncontended: the try succeeds, no zone */
        pthread_create(&th, NULL, own_waiter, NULL);
        pthread_join(th, NULL);
        lt_end();
        assert_int_equal(lock_slices(by_name ? "OwnNamed" : "OwnLock", NULL, 0, NULL), 1);
        assert_int_equal(lock_slices(NULL, NULL, 0, NULL), 1);
        assert_int_equal(analysed_waits(by_name ? "OwnNamed" : "OwnLock", NULL), 1);
    }
    assert_int_equal(ludus_lock_forget(&own_lock), 0);
    /* no capture: nothing to record, token 0 */
    assert_int_equal(ludus_lock_wait_begin(&own_lock, NULL), 0);
}

static void test_name_table(void **st) {
    (void)st;
    static char locks[1200];
    assert_int_equal(ludus_lock_name(NULL, "x"), LUDUS_EINVAL);
    assert_int_equal(ludus_lock_name(locks, NULL), LUDUS_EINVAL);
    assert_int_equal(ludus_lock_name(locks, ""), LUDUS_EINVAL);
    uint64_t refused0 = ludus_lock_names_refused();
    int named = 0, refused = 0;
    for (int i = 0; i < 1200; i++) {
        int rc = ludus_lock_name(&locks[i], i % 2 ? "Odd" : "Even");
        if (rc == 0) {
            named++;
        } else {
            assert_int_equal(rc, LUDUS_ENOMEM);
            refused++;
        }
    }
    assert_int_equal(named, 1024); /* the other tests forgot theirs */
    assert_int_equal(refused, 1200 - 1024);
    assert_int_equal(ludus_lock_names_refused() - refused0, (uint64_t)refused);
    for (int i = 0; i < 1200; i++) {
        const ludus_site *s = ludus_lock_site(&locks[i]);
        if (s) assert_string_equal(s->name, i % 2 ? "Odd" : "Even");
    }
    /* forget the even ones: the odd ones the full table refused take their slots */
    int forgotten = 0, unnamed_odd = 0, renamed = 0;
    for (int i = 0; i < 1200; i += 2) forgotten += ludus_lock_forget(&locks[i]) == 0;
    for (int i = 1; i < 1200; i += 2)
        if (!ludus_lock_site(&locks[i])) {
            unnamed_odd++;
            renamed += ludus_lock_name(&locks[i], "Late") == 0;
        }
    assert_true(forgotten > 0 && unnamed_odd > 0);
    assert_int_equal(renamed, unnamed_odd < forgotten ? unnamed_odd : forgotten);
    int left = 0;
    for (int i = 0; i < 1200; i++) left += ludus_lock_site(&locks[i]) != NULL;
    assert_int_equal(left, 1024 - forgotten + renamed);
    for (int i = 0; i < 1200; i++) ludus_lock_forget(&locks[i]);
    for (int i = 0; i < 1200; i++) assert_null(ludus_lock_site(&locks[i]));
    /* all slots free again */
    for (int i = 0; i < 1024; i++) assert_int_equal(ludus_lock_name(&locks[i], "Again"), 0);
    for (int i = 0; i < 1024; i++) assert_int_equal(ludus_lock_forget(&locks[i]), 0);
}

/* Naming and forgetting locks with distinct names, far more of them than
 * any table holds: nothing fills for good. The old code registered a
 * process-wide site per name, so past 65,536 distinct names naming was
 * refused, and with it every ludus_site_register and run-time name of the
 * process. Now the names go to the capture their waits are recorded in:
 * one capture that meets more distinct names than its table holds (16,384)
 * has the rest refused and counted (their waits recorded under the call
 * site, as an unnamed lock's), and saves a file that opens and says so;
 * the next capture has a table of its own. */
static void test_lock_name_churn(void **st) {
    (void)st;
    static char lk;
    char name[32];
    for (int i = 0; i < 70000; i++) {
        snprintf(name, sizeof name, "Churn %d", i);
        assert_int_equal(ludus_lock_name(&lk, name), 0);
        assert_int_equal(ludus_lock_forget(&lk), 0);
    }
    ludus_site_desc d = {"After the churn", NULL, NULL, 0};
    assert_true(ludus_site_register(&d) != 0);
    assert_true(ludus_site_intern("Another after the churn") != 0);
    enum { WAITS = 17000, ROOM = 16384 };
    lt_begin(NULL);
    for (int i = 0; i < WAITS; i++) {
        snprintf(name, sizeof name, "Wait %d", i);
        assert_int_equal(ludus_lock_name(&lk, name), 0);
        ludus_lock_wait_end(ludus_lock_wait_begin(&lk, NULL));
        assert_int_equal(ludus_lock_forget(&lk), 0);
    }
    lt_end();
    ludus_capture_summary s = lt_summary();
    assert_int_equal(s.events, 2 * WAITS);
    assert_int_equal(s.interner_drops, WAITS - ROOM);
    assert_int_equal(lock_slices("Wait 0", NULL, 0, NULL), 1);
    assert_int_equal(lock_slices("Wait 16383", NULL, 0, NULL), 1);
    assert_int_equal(lock_slices("lock", NULL, 0, NULL), WAITS - ROOM); /* the default site of an unnamed wait */
    char path[] = "/tmp/ludus_lockchurn_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    ludus_capture *c, *f;
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture_release(c);
    assert_int_equal(ludus_capture_open(path, &f), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(f, &in), 0);
    assert_int_equal(in.summary.interner_drops, WAITS - ROOM);
    ludus_capture_release(f);
    unlink(path);
    lt_begin(NULL); /* a table of its own */
    assert_int_equal(ludus_lock_name(&lk, "Fresh"), 0);
    ludus_lock_wait_end(ludus_lock_wait_begin(&lk, NULL));
    lt_end();
    assert_int_equal(lt_summary().interner_drops, 0);
    assert_int_equal(lock_slices("Fresh", NULL, 0, NULL), 1);
    assert_int_equal(analysed_waits("Fresh", NULL), 1);
    assert_int_equal(ludus_lock_forget(&lk), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_uncontended_records_nothing, lt_teardown),
        cmocka_unit_test_teardown(test_contended_mutex_named, lt_teardown),
        cmocka_unit_test_teardown(test_contended_mutex_unnamed, lt_teardown),
        cmocka_unit_test_teardown(test_rwlock_read_and_write, lt_teardown),
        cmocka_unit_test_teardown(test_own_lock, lt_teardown),
        cmocka_unit_test_teardown(test_name_table, lt_teardown),
        cmocka_unit_test_teardown(test_lock_name_churn, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
