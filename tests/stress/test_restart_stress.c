/* Restart stress: producer threads flood scopes and counter samples
 * (value = producer id << 32 | seq, seq = 1, 2, ...) while the main thread
 * begins, ends and exports captures back to back. Producers exit after a
 * random number of samples and new ones start between captures, so threads
 * exit during captures too. After each capture, from the parsed export:
 *  - the trace is well formed (every B has its E, per-tid order, counts);
 *  - each sample value appears at most once across all captures;
 *  - per producer, seqs within a capture strictly increase, and are
 *    contiguous when its thread dropped nothing;
 *  - the last sample a producer had completed before end_capture was called
 *    is in the capture, if that sample started after begin_capture returned
 *    (producers publish `started` before and `done` after each sample).
 * LUDUS_STRESS_CAPTURES overrides the number of captures. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_util.h"

enum { SLOTS = 3, MAX_PRODUCERS = 4096 };

typedef struct producer {
    pthread_t th;
    uint32_t id;      /* 1.. */
    uint32_t limit;   /* samples before exiting */
    uint64_t tid;     /* atomic */
    uint32_t started; /* atomic: seq of the sample being / last emitted */
    uint32_t done;    /* atomic: seq of the last completed sample */
    int finished;     /* atomic */
    int stop;         /* atomic */
    int running;      /* main thread only */
} producer;

static producer slots[SLOTS];
static uint32_t counter_site;
static uint32_t next_id = 1;
static uint8_t *seen[MAX_PRODUCERS + 1]; /* per producer id: seq bitmap; freed at join */

static void *producer_main(void *arg) {
    producer *p = arg;
    char name[32];
    snprintf(name, sizeof name, "producer %u", p->id);
    ludus_thread_register(name);
    __atomic_store_n(&p->tid, lt_gettid(), __ATOMIC_SEQ_CST);
    for (uint32_t seq = 1; seq <= p->limit && !__atomic_load_n(&p->stop, __ATOMIC_RELAXED); seq++) {
        __atomic_store_n(&p->started, seq, __ATOMIC_SEQ_CST);
        {
            LUDUS_PROFILE_SCOPE(Produce);
            ludus_counter_sample(counter_site, (int64_t)(((uint64_t)p->id << 32) | seq));
        }
        __atomic_store_n(&p->done, seq, __ATOMIC_SEQ_CST);
        if (seq % 64 == 0) {
            LUDUS_PROFILE_MARK(Tick);
            /* leave CPU to the controller on this 2-core budget */
            struct timespec nap = {0, 20000};
            nanosleep(&nap, NULL);
        }
        for (volatile int k = 0; k < 1000; k++) {
        }
    }
    __atomic_store_n(&p->finished, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

static void start_producer(producer *p, unsigned *rng) {
    memset(p, 0, sizeof *p);
    p->id = next_id++;
    assert_true(p->id <= MAX_PRODUCERS);
    p->limit = 10000 + (uint32_t)(rand_r(rng) % 100000);
    seen[p->id] = calloc(p->limit / 8 + 1, 1);
    assert_non_null(seen[p->id]);
    p->running = 1;
    assert_int_equal(pthread_create(&p->th, NULL, producer_main, p), 0);
    while (__atomic_load_n(&p->tid, __ATOMIC_SEQ_CST) == 0) sched_yield();
}

static void join_producer(producer *p) {
    pthread_join(p->th, NULL);
    p->running = 0;
    /* its samples are all in captures already checked */
    free(seen[p->id]);
    seen[p->id] = NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Drops of every table entry with this tid (tids can be reused). */
static uint64_t drops_of_tid(uint64_t tid) {
    ludus_capture_summary s = lt_summary();
    uint64_t d = 0;
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary th;
        assert_int_equal(lt_last_thread(i, &th), 0);
        if (th.tid == tid) d += th.dropped;
    }
    return d;
}

static void test_restart_stress(void **state) {
    (void)state;
    int captures = 300;
    const char *env = getenv("LUDUS_STRESS_CAPTURES");
    if (env && atoi(env) > 0) captures = atoi(env);
    unsigned rng = 12345;
    for (int i = 0; i < SLOTS; i++) start_producer(&slots[i], &rng);
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = 16384;
    d.chunk_count = 64;
    uint32_t begin_started[SLOTS], end_done[SLOTS], ids[SLOTS];
    uint64_t tids[SLOTS];
    uint64_t samples_total = 0, captures_with_drops = 0, last_checked = 0;
    for (int cap = 0; cap < captures; cap++) {
        d.join = (cap & 1) ? LUDUS_JOIN_FENCE : LUDUS_JOIN_AUTO;
        d.clock = (cap % 3 == 2) ? LUDUS_CLOCK_MONOTONIC : LUDUS_CLOCK_AUTO;
        lt_begin(&d);
        for (int i = 0; i < SLOTS; i++) {
            begin_started[i] = __atomic_load_n(&slots[i].started, __ATOMIC_SEQ_CST);
            ids[i] = slots[i].id;
            tids[i] = slots[i].tid;
        }
        int64_t wait = 20000 + (int64_t)(rand_r(&rng) % 200000);
        if (cap % 5 == 0)
            sched_yield();
        else
            lt_spin_ns(wait);
        for (int i = 0; i < SLOTS; i++) end_done[i] = __atomic_load_n(&slots[i].done, __ATOMIC_SEQ_CST);
        lt_end();

        ludus_capture_summary s = lt_summary();
        if (s.dropped) captures_with_drops++;
        if (s.events == 0) goto restart_producers;
        {
            lt_trace t;
            lt_trace_load(&t);
            lt_trace_check(&t, 1);
            uint64_t *vals = malloc((t.n_C + 1) * sizeof *vals);
            size_t nv = 0;
            /* In stream order per producer: strictly increasing. */
            uint32_t last_seq[MAX_PRODUCERS + 1];
            memset(last_seq, 0, sizeof last_seq);
            for (size_t i = 0; i < t.n; i++) {
                if (t.ev[i].ph != 'C') continue;
                assert_string_equal(t.ev[i].name, "restart seq");
                uint64_t v = (uint64_t)t.ev[i].ivalue;
                uint32_t id = (uint32_t)(v >> 32), seq = (uint32_t)v;
                assert_true(id >= 1 && id < next_id);
                assert_non_null(seen[id]); /* a producer of this capture */
                assert_true(seq >= 1);
                if (seen[id][seq / 8] & (1u << (seq % 8)))
                    fail_msg("capture %d: producer %u seq %u seen twice", cap, id, seq);
                seen[id][seq / 8] |= (uint8_t)(1u << (seq % 8));
                if (seq <= last_seq[id])
                    fail_msg("capture %d: producer %u seq %u after %u", cap, id, seq, last_seq[id]);
                last_seq[id] = seq;
                vals[nv++] = v;
            }
            samples_total += nv;
            qsort(vals, nv, sizeof *vals, cmp_u64);
            for (int i = 0; i < SLOTS; i++) {
                uint64_t lo = (uint64_t)ids[i] << 32, hi = lo | 0xffffffffu;
                size_t first = nv, last = nv, count = 0;
                for (size_t k = 0; k < nv; k++)
                    if (vals[k] >= lo && vals[k] <= hi) {
                        if (first == nv) first = k;
                        last = k;
                        count++;
                    }
                uint64_t drops = drops_of_tid(tids[i]);
                if (count && drops == 0 && (uint32_t)vals[last] - (uint32_t)vals[first] + 1 != count)
                    fail_msg("capture %d: producer %u seqs %u..%u but %zu samples, no drops", cap, ids[i],
                             (uint32_t)vals[first], (uint32_t)vals[last], count);
                /* the last completed sample, begun after begin returned */
                if (end_done[i] > begin_started[i] && drops == 0) {
                    uint64_t want = lo | end_done[i];
                    if (!bsearch(&want, vals, nv, sizeof *vals, cmp_u64))
                        fail_msg("capture %d: producer %u completed seq %u before end, not in the capture "
                                 "(started %u at begin)",
                                 cap, ids[i], end_done[i], begin_started[i]);
                    last_checked++;
                }
            }
            free(vals);
            lt_trace_free(&t);
        }
    restart_producers:
        for (int i = 0; i < SLOTS; i++) {
            producer *p = &slots[i];
            int stop_now = cap % 17 == 16 && i == cap % SLOTS;
            if (stop_now) __atomic_store_n(&p->stop, 1, __ATOMIC_RELAXED);
            if (stop_now || __atomic_load_n(&p->finished, __ATOMIC_SEQ_CST)) {
                join_producer(p);
                start_producer(p, &rng);
            }
        }
    }
    for (int i = 0; i < SLOTS; i++) {
        __atomic_store_n(&slots[i].stop, 1, __ATOMIC_RELAXED);
        join_producer(&slots[i]);
    }
    printf("restart stress: %d captures, %u producers, %llu samples, %llu captures with drops, "
           "%llu last-sample checks\n",
           captures, next_id - 1, (unsigned long long)samples_total, (unsigned long long)captures_with_drops,
           (unsigned long long)last_checked);
    assert_true(samples_total > 0);
    assert_true(last_checked > 0);
}

int main(void) {
    counter_site = ludus_site_intern("restart seq");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_restart_stress, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
