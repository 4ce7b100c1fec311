/* Capture lifecycle: begin (reserve and touch the pool, calibrate, arm), end
 * (disarm, join producers, publish partial chunks of live and exited
 * threads). End touches chunk headers only, never events, so its cost does
 * not grow with the event count. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

extern int ludus__clock_is_tsc;

ludus__captured ludus__last;

/* Larger than any address space a pool could be reserved in (x86-64 user
 * space is 2^47): a request beyond it is an overflow, not an allocation. */
#define LUDUS__MAX_POOL_BYTES ((size_t)1 << 46)

static int active; /* a capture is armed (coordinator thread only) */
static uint32_t gen_counter;
static int join_membarrier; /* the active capture joins with membarrier */
static ludus__calib_point begin_point;
static ludus_capture_desc active_desc;

#if defined(__SANITIZE_THREAD__)
#define LUDUS__TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LUDUS__TSAN 1
#endif
#endif

void ludus_capture_desc_defaults(const ludus_capture_desc *in, ludus_capture_desc *out) {
    ludus_capture_desc d;
    if (in)
        d = *in;
    else
        memset(&d, 0, sizeof d);
    if (d.chunk_bytes == 0) d.chunk_bytes = 65536;
    if (d.chunk_count == 0) d.chunk_count = 256;
    *out = d;
}

static void *default_alloc(size_t size, size_t alignment, void *ud) {
    (void)ud;
    return ludus__aligned_alloc(size, alignment);
}
static void default_free(void *p, void *ud) {
    (void)ud;
    ludus__aligned_free(p);
}

static void discard_last(void) {
    ludus__captured *c = &ludus__last;
    if (c->pool_mem) c->allocator.free(c->pool_mem, c->allocator.user_data);
    for (uint32_t i = 0; i < c->nthreads; i++) free(c->threads[i].runs);
    free(c->threads);
    free(c->categories);
    free(c->sites);
    free(c->site_hash);
    memset(c, 0, sizeof *c);
}

int ludus_capture_active(void) {
    return active;
}

int ludus_begin_capture(const ludus_capture_desc *desc) {
    if (active) return ludus__fail(LUDUS_EBUSY, "a capture is already active");
    ludus_capture_desc d;
    ludus_capture_desc_defaults(desc, &d);
    if (d.chunk_bytes < 4096 || (d.chunk_bytes & (d.chunk_bytes - 1)) != 0)
        return ludus__fail(LUDUS_EINVAL, "chunk_bytes %u is not a power of two >= 4096", d.chunk_bytes);
    size_t bytes;
    if (__builtin_mul_overflow((size_t)d.chunk_bytes, (size_t)d.chunk_count, &bytes) || bytes > LUDUS__MAX_POOL_BYTES)
        return ludus__fail(LUDUS_EOVERFLOW, "%u chunks of %u bytes exceed the largest pool (2^46 bytes)", d.chunk_count,
                           d.chunk_bytes);
    int tsc = ludus__tsc_invariant();
    if (d.clock == LUDUS_CLOCK_TSC && !tsc) return ludus__fail(LUDUS_EUNSUPPORTED, "no invariant TSC on this CPU");
    if (d.clock < LUDUS_CLOCK_AUTO || d.clock > LUDUS_CLOCK_TSC || d.join < LUDUS_JOIN_AUTO ||
        d.join > LUDUS_JOIN_FENCE)
        return ludus__fail(LUDUS_EINVAL, "unknown clock or join mode");
    int use_tsc = d.clock != LUDUS_CLOCK_MONOTONIC && tsc;
    char *cats = NULL;
    if (d.categories) {
        cats = strdup(d.categories);
        if (!cats) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    if (!d.allocator.alloc || !d.allocator.free) {
        d.allocator.alloc = default_alloc;
        d.allocator.free = default_free;
        d.allocator.user_data = NULL;
    }
    void *mem = d.allocator.alloc(bytes, 64, d.allocator.user_data);
    if (!mem) {
        free(cats);
        return ludus__fail(LUDUS_ENOMEM, "could not reserve %zu bytes for the chunk pool", bytes);
    }
    memset(mem, 0, bytes); /* touch every page now: no page fault while recording */

    discard_last();
    /* Identity of the process, read now: it costs a file read that end must not pay. */
    ludus__last.pid = ludus__os_pid();
    ludus__process_name(ludus__last.process_name, sizeof ludus__last.process_name);
    ludus__last.categories = cats;
    ludus__last.pool_mem = mem;
    ludus__last.allocator = d.allocator;

    ludus__the_pool.base = mem;
    ludus__the_pool.chunk_bytes = d.chunk_bytes;
    ludus__the_pool.count = d.chunk_count;
    __atomic_store_n(&ludus__the_pool.next, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&ludus__reg.unregistered_drops, 0u, __ATOMIC_RELAXED);

    join_membarrier = d.join == LUDUS_JOIN_AUTO && ludus__membarrier_register();
    int slow = !join_membarrier || !use_tsc || !LUDUS__INLINE_CLOCK;
#ifdef LUDUS__TSAN
    slow = 1; /* TSan does not model membarrier: prove the fence join instead */
    join_membarrier = 0;
#endif
    ludus__clock_is_tsc = use_tsc;
    active_desc = d;
    gen_counter = gen_counter % 0x3fffffffu + 1; /* 1 .. 2^30-1, never 0 */
    begin_point = ludus__calibrate_point();
    if (!use_tsc) begin_point.ticks = (uint64_t)begin_point.ns;
    active = 1;
    __atomic_store_n(&ludus__armed, gen_counter | (slow ? LUDUS__ARMED_SLOW : 0u), __ATOMIC_SEQ_CST);
    return 0;
}

/* Waits until the producer is not inside an event. After the disarm and the
 * barrier, a producer that is not busy can only see armed == 0. */
static void wait_not_busy(ludus__thread_hot *t) {
    for (unsigned spins = 0; __atomic_load_n(&t->busy, __ATOMIC_ACQUIRE); spins++) {
        if (spins < 64)
            ludus__cpu_relax();
        else
            ludus__yield();
    }
}

int ludus_end_capture(void) {
    if (!active) return ludus__fail(LUDUS_ENOCAPTURE, "no capture is active");
    ludus__captured *c = &ludus__last;
    uint32_t gen = gen_counter;
    pthread_mutex_lock(&ludus__reg.lock);
    __atomic_store_n(&ludus__armed, 0u, __ATOMIC_SEQ_CST);
    if (join_membarrier) ludus__membarrier();
    uint32_t high = ludus__reg.high;
    for (uint32_t i = 0; i < high; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == LUDUS__REC_LIVE && r->hot) {
            wait_not_busy(r->hot);
            /* The inline begin checks only the room (not the generation):
             * with 0, the thread's next event of a later capture hands off
             * to the slow path, which attaches it to that capture. Producers
             * are not in an event now and do not read the room before they
             * see armed != 0 again (an acquire of the next begin's store).
             * In slow mode the room is always 0 and is left unwritten: there
             * the inline path may still read it while the controller runs. */
            if (r->hot->room != 0) r->hot->room = 0;
        }
    }
    ludus__calib_point end_point = ludus__calibrate_point();

    /* Threads: live ones that were registered, and the ones that exited with
     * data of this capture. Records of exited threads are freed here. Only
     * the chunk lists are published; runs are built on first use. */
    uint32_t n = 0;
    ludus__cap_thread *threads = calloc(high ? high : 1, sizeof *threads);
    for (uint32_t i = 0; i < high; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        int state = __atomic_load_n(&r->state, __ATOMIC_ACQUIRE);
        ludus__chunk *first = NULL, *chunk = NULL;
        ludus__event *cur = NULL;
        uint64_t dropped = 0, orphans = 0;
        int exited = 0;
        if (state == LUDUS__REC_LIVE && r->hot && r->cold) {
            if (r->hot->gen == gen) {
                first = r->cold->first_chunk;
                chunk = r->cold->chunk;
                cur = r->hot->cur;
                dropped = r->cold->dropped;
                orphans = r->cold->orphan_ends;
            }
        } else if (state == LUDUS__REC_EXITED) {
            if (r->exit_gen == gen) {
                first = r->exit_first;
                chunk = r->exit_chunk;
                cur = r->exit_cur;
                dropped = r->exit_dropped;
                orphans = r->exit_orphans;
                exited = 1;
            }
            __atomic_store_n(&r->state, LUDUS__REC_FREE, __ATOMIC_RELEASE);
            if (!exited) continue;
        } else {
            continue;
        }
        if (!threads) continue;
        if (chunk) chunk->used = (uint64_t)(cur - LUDUS__CHUNK_EVENTS(chunk));
        ludus__cap_thread *th = &threads[n++];
        memcpy(th->name, r->name, sizeof th->name);
        th->tid = r->tid;
        th->exited = exited;
        th->dropped = dropped;
        th->recorder_orphans = orphans;
        th->first_chunk = chunk ? first : NULL;
    }
    pthread_mutex_unlock(&ludus__reg.lock);
    int oom = !threads;
    uint32_t used = __atomic_load_n(&ludus__the_pool.next, __ATOMIC_RELAXED);
    if (used > ludus__the_pool.count) used = ludus__the_pool.count;

    c->valid = 1;
    c->gen = gen;
    c->clock_tsc = ludus__clock_is_tsc;
    c->c0 = begin_point;
    c->c1 = end_point;
    if (!c->clock_tsc) c->c1.ticks = (uint64_t)end_point.ns;
    c->start_ns = begin_point.ns;
    c->end_ns = end_point.ns;
    c->chunks_used = used;
    c->threads = threads;
    c->nthreads = threads ? n : 0;
    c->unregistered_drops = __atomic_load_n(&ludus__reg.unregistered_drops, __ATOMIC_RELAXED);
    c->interner_drops = ludus__interner_drops();
    active = 0;
    if (oom) {
        c->valid = 0;
        return ludus__fail(LUDUS_ENOMEM, "out of memory while publishing the capture");
    }
    return 0;
}

int ludus__build_runs(ludus__captured *c) {
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        if (!th->first_chunk || th->runs) continue;
        uint32_t k = 0;
        for (ludus__chunk *ch = th->first_chunk; ch; ch = ch->next) k++;
        th->runs = malloc(k * sizeof *th->runs);
        if (!th->runs) return LUDUS_ENOMEM;
        th->nruns = 0;
        for (ludus__chunk *ch = th->first_chunk; ch; ch = ch->next) {
            if (ch->used == 0) continue;
            th->runs[th->nruns].ev = LUDUS__CHUNK_EVENTS(ch);
            th->runs[th->nruns].n = (size_t)ch->used;
            th->nruns++;
        }
    }
    return 0;
}
