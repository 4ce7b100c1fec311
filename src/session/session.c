/* Capture lifecycle. Begin reserves the pool (or reuses the last capture's,
 * already touched: a restart costs no page touching), calibrates and arms;
 * a background thread faults the pool in ahead of the producers. End
 * disarms, joins the producers (emit.c has the protocol), and hands every
 * thread's pieces, live and exited, to a new capture object: it touches
 * piece headers only, never events, so its cost does not grow with the
 * event count, and it never waits for a producer that is in the middle of
 * an inline event (that event is left out and counted). */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../platform/pages.h"
#include "../record/counters.h"
#include "session_private.h"
#include "../capture/nev.h"
#include "pool_file.h"
#include "stream.h"
#include "../base/text.h"

/* Larger than any address space a pool could be reserved in (x86-64 user
 * space is 2^47): a request beyond it is an overflow, not an allocation. */
#define MAX_POOL_BYTES ((uint64_t)1 << 46)

/* Where begin and end are (session_state.phase, written by the thread running them),
 * for the copy of a crashed process in which that thread is not: while
 * ENDING the session is whole and the end can be run again from the start
 * (publishing a thread twice publishes it the same); once ENDED, session_state.ending
 * holds all of it and is the capture the crash ends. */
enum { PH_IDLE, PH_ENDING, PH_ENDED };

/* The coordinator's state: everything begin, end and the fork handlers
 * keep between calls. */
static struct {
    int active;       /* atomic: a capture is armed (written by the coordinator thread) */
    int rolling_owns; /* atomic: a rolling capture (rolling.c) owns the session */
    uint32_t gen_counter;
    ludus_capture *last; /* the library's reference to the last ended capture */
    int crashed;         /* the child writing a crash (crash.c): no other thread runs here */
    ludus__prefault *prefault;
    size_t faulted; /* bytes of the pool in already when the capture began */
    /* The ended capture that still has threads to publish (ludus__late), or
     * NULL. At most one: a capture begins only after its predecessor's are
     * published. The session keeps its pool description until then, since a
     * late thread may still take a piece. */
    ludus_capture *late_cap;
    int pool_mapped;             /* 1: pages, 2: a pool file, 0: the allocator's */
    ludus__pool_file *pool_file; /* desc.pool_file: the running capture's */
    uint32_t refused0;           /* the counters' refusals when the capture began */
    uint64_t lost0;
    int phase; /* atomic: PH_* */
    ludus_capture *ending;
    int owner;                         /* atomic: LUDUS__OWNER_* of the running capture (or rolling window) */
    ludus_capture *yielded;            /* the guest's capture, ended when the program took the recorder */
    int yielded_flag;                  /* atomic: yielded is set */
    int controlling;                   /* atomic: a thread holds the control lock (a begin or an end runs) */
    ludus__stream *stream;             /* desc.stream_path: the running capture's writer (stream.c) */
    ludus_stream_result stream_result; /* the last streamed capture's, once ended */
    int has_stream_result;
} session_state;

/* The control lock (session.h, "the recorder's one owner"). */
static ludus__mutex control = LUDUS__MUTEX_INIT;
void (*ludus__rolling_yield)(void);

void ludus__control_lock(void) {
    ludus__mutex_lock(&control);
    __atomic_store_n(&session_state.controlling, 1, __ATOMIC_RELEASE);
}

void ludus__control_unlock(void) {
    __atomic_store_n(&session_state.controlling, 0, __ATOMIC_RELEASE);
    ludus__mutex_unlock(&control);
}

int ludus__owner(void) {
    return __atomic_load_n(&session_state.owner, __ATOMIC_ACQUIRE);
}

void ludus__session_rolling(int on) {
    __atomic_store_n(&session_state.rolling_owns, on, __ATOMIC_RELEASE);
}

int ludus__rolling_owns_session(void) {
    return __atomic_load_n(&session_state.rolling_owns, __ATOMIC_ACQUIRE);
}

/* The generation the next capture gets: 1 .. 2^30-1, never 0. */
static uint32_t next_gen(void) {
    return session_state.gen_counter % 0x3fffffffu + 1;
}
static void resolve_late(ludus_capture *c);
static void resolve_pending_late(void);

/* A test hook (tests/unit/test_crash.c): stops begin and end at each step. */
void (*ludus__session_step)(int step);

static void session_step(int k) {
    void (*f)(int) = __atomic_load_n(&ludus__session_step, __ATOMIC_ACQUIRE);
    if (f) f(k);
}

void ludus_capture_desc_defaults(const ludus_capture_desc *in, ludus_capture_desc *out) {
    if (!out) return;
    ludus_capture_desc d;
    if (in)
        d = *in;
    else
        memset(&d, 0, sizeof d);
    if (d.chunk_bytes == 0) d.chunk_bytes = 65536;
    if (d.chunk_count == 0) d.chunk_count = d.stream_path ? 1024 : 256; /* streamed: 64 MiB of 64 KiB pieces */
    if (d.record == 0) d.record = LUDUS_RECORD_CPU | LUDUS_RECORD_GPU;
    if (d.prefault == 0) d.prefault = LUDUS_PREFAULT_AHEAD;
    *out = d;
}

int ludus_capture_active(void) { /* the program's: a watcher's is not its */
    return __atomic_load_n(&session_state.active, __ATOMIC_ACQUIRE) && ludus__owner() == LUDUS__OWNER_PROGRAM;
}

ludus_capture *ludus__last_capture(void) {
    return session_state.last;
}

int ludus_capture_last(ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    ludus__control_lock();
    ludus_capture *c = session_state.last;
    if (c) ludus_capture_retain(c);
    ludus__control_unlock();
    if (!c) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    *out = c;
    return 0;
}

/* ---- the pool ---- */

static void *default_alloc(size_t size, size_t alignment, void *ud) {
    (void)ud;
    return ludus__aligned_alloc(size, alignment);
}
static void default_free(void *p, void *ud) {
    (void)ud;
    ludus__aligned_free(p);
}

static int same_allocator(const ludus_allocator *a, const ludus_allocator *b) {
    return a->alloc == b->alloc && a->free == b->free && a->user_data == b->user_data;
}

/* The last capture's pool, when nobody else holds that capture and its pool
 * is the size asked for: no allocation, and only the pages its prefault
 * thread had not reached yet are still to touch (*faulted: bytes in). */
static void *steal_pool_of(ludus_capture *c, uint64_t bytes, const ludus_allocator *al, int mapped,
                           ludus__prefault **pf, size_t *faulted) {
    if (!c || !c->pool.mem || c->pool.bytes != bytes || c->pool.mapped != mapped ||
        __atomic_load_n(&c->refs, __ATOMIC_ACQUIRE) != 1 || (!mapped && !same_allocator(&c->pool.allocator, al)))
        return NULL;
    ludus__capture_quiesce(c);
    void *mem = c->pool.mem;
    *pf = c->pool.prefault;
    *faulted = c->pool.prefault_done;
    c->pool.mem = NULL;
    c->pool.prefault = NULL;
    return mem;
}

static void *steal_pool(uint64_t bytes, const ludus_allocator *al, int mapped, ludus__prefault **pf, size_t *faulted) {
    return steal_pool_of(session_state.last, bytes, al, mapped, pf, faulted);
}

static void pool_free(void *mem, uint64_t bytes, int mapped, const ludus_allocator *al, ludus__pool_file *pf) {
    if (!mem) return;
    if (pf)
        ludus__pool_file_close(pf);
    else if (mapped)
        ludus__pages_unmap(mem, (size_t)bytes);
    else
        al->free(mem, al->user_data);
}

/* ---- begin ---- */

/* What begin reserves before it arms (outside the registry lock). */
typedef struct ludus__begin_prep {
    ludus_capture_desc d;
    uint64_t bytes;
    int use_tsc, mapped, membarrier_ok;
    char *cats;
    ludus__name_table *names;
    void *mem;
    ludus__pool_file *pool_file;
    ludus__stream *stream;
    size_t faulted;
    int pid;
    char process_name[64];
} ludus__begin_prep;

static int begin_prepare(const ludus_capture_desc *desc, int owner, ludus__begin_prep *p) {
    memset(p, 0, sizeof *p);
    ludus_capture_desc d;
    ludus_capture_desc_defaults(desc, &d);
    if (d.chunk_bytes < 4096 || d.chunk_bytes > (1u << 30) || (d.chunk_bytes & (d.chunk_bytes - 1)) != 0)
        return ludus__fail(LUDUS_EINVAL, "chunk_bytes %u is not a power of two in [4096, 2^30]", d.chunk_bytes);
    uint64_t bytes = (uint64_t)d.chunk_bytes * d.chunk_count;
    if (bytes > MAX_POOL_BYTES || bytes > (uint64_t)SIZE_MAX)
        return ludus__fail(LUDUS_EOVERFLOW, "%u chunks of %u bytes exceed the largest pool (2^46 bytes)", d.chunk_count,
                           d.chunk_bytes);
    int tsc = ludus__tsc_invariant();
    if (d.clock < LUDUS_CLOCK_AUTO || d.clock > LUDUS_CLOCK_TSC || d.join < LUDUS_JOIN_AUTO ||
        d.join > LUDUS_JOIN_FENCE)
        return ludus__fail(LUDUS_EINVAL, "unknown clock (%d) or join mode (%d)", d.clock, d.join);
    if (d.clock == LUDUS_CLOCK_TSC && !tsc) return ludus__fail(LUDUS_EUNSUPPORTED, "no invariant TSC on this CPU");
    if ((d.allocator.alloc == NULL) != (d.allocator.free == NULL))
        return ludus__fail(LUDUS_EINVAL, "allocator: give both alloc and free, or neither");
    if (d.prefault < LUDUS_PREFAULT_AHEAD || d.prefault > LUDUS_PREFAULT_NONE)
        return ludus__fail(LUDUS_EINVAL, "unknown prefault (%d)", d.prefault);
    if (d.record & ~(LUDUS_RECORD_CPU | LUDUS_RECORD_GPU))
        return ludus__fail(LUDUS_EINVAL, "record 0x%x: LUDUS_RECORD_CPU, LUDUS_RECORD_GPU or both", d.record);
    if (d.stream_path && (d.pool_file || owner != LUDUS__OWNER_PROGRAM))
        return ludus__fail(LUDUS_EINVAL, "a streamed capture (stream_path) has no pool file and is the program's own");
    int use_tsc = d.clock != LUDUS_CLOCK_MONOTONIC && tsc;
    char *cats = NULL;
    if (d.categories) {
        cats = ludus__strdup(d.categories);
        if (!cats) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    ludus__name_table *names = ludus__names_create();
    if (!names) {
        ludus__free(cats);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int mapped = d.allocator.alloc == NULL;
    ludus__prefault *pf = NULL;
    size_t faulted = 0;
    void *mem = NULL;
    if (d.pool_file) { /* a file of its own, never a pool reused */
        mapped = 2;
        int rc = ludus__pool_file_create(d.pool_file, bytes, &p->pool_file, &mem);
        if (rc) {
            ludus__free(cats);
            ludus__names_destroy(names);
            return rc;
        }
        d.pool_file = NULL;                     /* not kept: the caller's string */
    } else if (owner == LUDUS__OWNER_PROGRAM) { /* a guest leaves the program's last capture whole */
        mem = steal_pool(bytes, &d.allocator, mapped, &pf, &faulted);
    }
    if (!mem) {
        mem = mapped ? ludus__pages_map((size_t)bytes) : d.allocator.alloc((size_t)bytes, 64, d.allocator.user_data);
        if (!mem && mapped) { /* no mmap: the aligned allocator */
            mapped = 0;
            d.allocator.alloc = default_alloc;
            d.allocator.free = default_free;
            d.allocator.user_data = NULL;
            mem = default_alloc((size_t)bytes, 64, NULL);
        }
        if (!mem) {
            ludus__free(cats);
            ludus__names_destroy(names);
            return ludus__fail(LUDUS_ENOMEM, "could not reserve %llu bytes for the chunk pool",
                               (unsigned long long)bytes);
        }
    } else {
        if (pf) faulted = ludus__prefault_done(pf); /* it stopped at capture end: resume there */
        ludus__prefault_stop(pf);
        pf = NULL;
    }
    /* Registered before the prefault thread exists: the kernel waits for an
     * RCU grace period (about 10 ms) when the process has more than one
     * thread, and not when it has one (a launch-to-exit capture starts at
     * load). Once per process. */
    p->membarrier_ok = d.join == LUDUS_JOIN_AUTO && ludus__membarrier_register();
    if (d.prefault == LUDUS_PREFAULT_AT_BEGIN && mapped && faulted < bytes) { /* the caller pays, once */
        ludus__pages_touch((char *)mem + faulted, (size_t)(bytes - faulted));
        faulted = (size_t)bytes;
    }
    if (d.stream_path) { /* last: nothing after it fails */
        int rc = ludus__stream_open(d.stream_path, &p->stream);
        if (rc) {
            pool_free(mem, bytes, mapped, &d.allocator, NULL);
            ludus__free(cats);
            ludus__names_destroy(names);
            return rc;
        }
        d.stream_path = NULL; /* not kept: the caller's string */
    }
    /* Identity of the process, read now: end must not pay a file read. */
    p->pid = ludus__os_pid();
    ludus__process_name(p->process_name, sizeof p->process_name);
    p->d = d;
    p->bytes = bytes;
    p->use_tsc = use_tsc;
    p->mapped = mapped;
    p->cats = cats;
    p->names = names;
    p->mem = mem;
    p->faulted = faulted;
    return 0;
}

/* Arms the capture begin_prepare reserved for (it owns what p holds);
 * returns when it was armed (CLOCK_MONOTONIC ns). */
static void begin_arm(ludus__begin_prep *p, int owner) {
    resolve_pending_late(); /* before any thread can attach again */
    ludus_capture_desc d = p->d;
    uint64_t bytes = p->bytes;
    void *mem = p->mem;
    int use_tsc = p->use_tsc;
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    session_step(LUDUS__STEP_ARMING);
    ludus__session *s = &ludus__sess;
    memset(s, 0, sizeof *s);
    s->desc = d;
    s->desc.categories = NULL;
    s->categories = p->cats;
    s->pool_mem = mem;
    s->pool.base = mem;
    s->pool.bytes = bytes;
    /* The end reserve: 1/32 of the pool (at least a small piece) that only
     * ends may use. */
    uint64_t reserve = (bytes / 32) & ~(uint64_t)63;
    if (reserve < LUDUS__PIECE_TAIL_MIN) reserve = LUDUS__PIECE_TAIL_MIN;
    s->pool.begin_limit = bytes > reserve ? bytes - reserve : 0;
    s->pool.chunk_bytes = d.chunk_bytes;
    s->pool.next = 0;
    session_state.faulted = p->faulted;
    s->names = p->names;
    s->pid = p->pid;
    memcpy(s->process_name, p->process_name, sizeof s->process_name);
    session_state.pool_mapped = p->mapped;
    session_state.pool_file = p->pool_file;
    s->stream_hand = ludus__stream_hand;
    s->stream = p->stream; /* producers hand pieces to it from the first */
    session_state.stream = p->stream;
    __atomic_store_n(&ludus__reg.unregistered_drops, 0u, __ATOMIC_RELAXED);
    session_state.refused0 = ludus__live_refused();
    session_state.lost0 = ludus__live_lost_adds();

    s->join_membarrier = p->membarrier_ok;
    int slow = !s->join_membarrier || !use_tsc || !LUDUS__INLINE_CLOCK;
#ifdef LUDUS__TSAN
    slow = 1; /* TSan does not model membarrier: prove the fence join instead */
    s->join_membarrier = 0;
#endif
    s->slow = slow;
    s->clock_tsc = use_tsc;
    ludus__clock_is_tsc = use_tsc;
    session_state.gen_counter = next_gen();
    s->gen = session_state.gen_counter;
    s->begin_point = ludus__calibrate_point();
    if (!use_tsc) s->begin_point.ticks = (uint64_t)s->begin_point.ns;
    /* GPU samples handed over from now on are this capture's */
    ludus__gpu_capture_begin(s->begin_point.ns, (s->desc.record & LUDUS_RECORD_GPU) != 0);
    __atomic_store_n(&session_state.owner, owner, __ATOMIC_RELEASE);
    __atomic_store_n(&session_state.active, 1, __ATOMIC_RELEASE);
    if (s->desc.record & LUDUS_RECORD_CPU) /* a GPU-only capture leaves the recorder disarmed */
        __atomic_store_n(&ludus__armed, s->gen | (slow ? LUDUS__ARMED_SLOW : 0u), __ATOMIC_SEQ_CST);
    session_step(LUDUS__STEP_ARMED);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
    /* The library's reference to the previous capture goes now (a caller
     * that took one keeps it), once armed: the program's, never a guest's. */
    if (session_state.last && owner == LUDUS__OWNER_PROGRAM) {
        ludus_capture *old = session_state.last;
        session_state.last = NULL;
        ludus_capture_release(old);
    }
    /* Faults the pool in ahead of the producers; started once armed, so
     * begin does not wait for a thread to start. */
    session_state.prefault = d.prefault == LUDUS_PREFAULT_AHEAD
                                 ? ludus__prefault_start(mem, (size_t)bytes, p->faulted, &s->pool.next)
                                 : NULL;
    __atomic_store_n(&s->pool.faulter, session_state.prefault, __ATOMIC_RELEASE); /* producers wake it from now on */
    if (session_state.pool_file)
        ludus__pool_file_start(session_state.pool_file, s->gen, use_tsc, s->begin_point, s->pid, s->process_name,
                               &s->pool.next);
    if (session_state.stream) ludus__stream_start(session_state.stream, s);
}

int ludus__capture_begin_locked(const ludus_capture_desc *desc, int owner) {
    if (ludus__owner() != LUDUS__OWNER_NONE || __atomic_load_n(&session_state.active, __ATOMIC_ACQUIRE))
        return ludus__fail(LUDUS_EBUSY, "a capture is already active");
    ludus__fork_session_install();
    resolve_pending_late(); /* before any thread can attach again */
    /* A pool file is never replaced: when the last capture (held by the
     * library only) still has the file of this path, it goes first. */
    if (owner == LUDUS__OWNER_PROGRAM && desc && desc->pool_file && session_state.last &&
        __atomic_load_n(&session_state.last->refs, __ATOMIC_ACQUIRE) == 1 &&
        ludus__pool_file_path(session_state.last->pool.file) &&
        strcmp(ludus__pool_file_path(session_state.last->pool.file), desc->pool_file) == 0) {
        ludus_capture *old = session_state.last;
        session_state.last = NULL;
        ludus_capture_release(old);
    }
    ludus__begin_prep p;
    int rc = begin_prepare(desc, owner, &p);
    if (rc) return rc;
    begin_arm(&p, owner);
    return 0;
}

int ludus_capture_begin(const ludus_capture_desc *desc) {
    const char *elsewhere = ludus__backend_no_capture();
    if (elsewhere) return ludus__fail(LUDUS_EUNSUPPORTED, "%s", elsewhere);
    ludus__control_lock();
    if (ludus__owner() == LUDUS__OWNER_GUEST) ludus__guest_yield(); /* the program first */
    int rc = ludus__capture_begin_locked(desc, LUDUS__OWNER_PROGRAM);
    ludus__control_unlock();
    return rc;
}

int ludus__guest_capture_begin(const ludus_capture_desc *desc) {
    const char *elsewhere = ludus__backend_no_capture();
    if (elsewhere) return ludus__fail(LUDUS_EUNSUPPORTED, "%s", elsewhere);
    ludus__control_lock();
    int rc = ludus__capture_begin_locked(desc, LUDUS__OWNER_GUEST);
    ludus__control_unlock();
    return rc;
}

/* ---- end ---- */

/* Waits a moment while the thread is inside an out-of-line event (it may
 * link pieces and count drops); *late when it is still there after that (a
 * preempted producer can stay for milliseconds): it is published later. An
 * inline event in flight is not waited for: it only writes its own slot,
 * beyond the cursor published for it. */
static uintptr_t join_thread(const ludus__thread_record *r, int *late) {
    *late = 0;
    if (session_state.crashed) /* nothing moves: published as it stopped (its event in flight lost and counted) */
        return __atomic_load_n(&r->hot->cur, __ATOMIC_ACQUIRE);
    for (unsigned spins = 0;; spins++) {
        uintptr_t cur = __atomic_load_n(&r->hot->cur, __ATOMIC_ACQUIRE);
        if (!(cur & LUDUS__K_MASK) || !__atomic_load_n(&r->cold->in_slow, __ATOMIC_ACQUIRE)) return cur;
        if (spins == 32) {
            *late = 1;
            return cur;
        }
        ludus__cpu_relax();
    }
}

static void convert_thread(ludus_capture *c, ludus__cap_thread *th, const ludus__thread_final *f) {
    size_t n = strnlen(f->name, sizeof f->name);
    th->name[ludus__utf8_clean(f->name, n, th->name, sizeof th->name - 1)] = 0;
    th->tid = f->tid;
    th->serial = f->serial;
    th->exited = f->exited;
    th->dropped = f->dropped;
    th->first_drop_ns = f->first_drop_ticks ? ludus__ticks_to_ns(c, f->first_drop_ticks) : LUDUS__NO_DROP;
    if (f->dropped && !f->first_drop_ticks) /* the event in flight at the end: lost there */
        th->first_drop_ns = c->end_ns - c->start_ns;
    th->spans = f->spans;
    th->recorder_orphans = f->orphan_ends;
    if (f->lost_begin) ludus__lost_begin_add(th->lost_begin, &th->nlost_begin, f->lost_begin);
    th->first = f->first;
}

/* Ends the capture: stores 0 in armed, joins the producers, publishes. The
 * program's capture becomes the last (session_state.last); a guest's goes to *guest
 * (NULL: released). */
static void thread_leaving(const ludus__thread_record *r);

static int end_capture(ludus_capture **guest) {
    if (guest) *guest = NULL;
    if (!session_state.active) return ludus__fail(LUDUS_ENOCAPTURE, "no capture is active");
    ludus__session *s = &ludus__sess;
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    __atomic_store_n(&session_state.phase, PH_ENDING, __ATOMIC_RELEASE);
    uint32_t gen = s->gen;
    uint32_t high = ludus__reg.high;
    __atomic_store_n(&ludus__armed, 0u, __ATOMIC_SEQ_CST);
    /* No inline event starts after this (limits are read behind the claim
     * of cur, emit.c; the barrier orders that read after these stores). */
    for (uint32_t i = 0; i < high; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == LUDUS__REC_LIVE && r->hot)
            __atomic_store_n(&r->hot->limit, 0u, __ATOMIC_SEQ_CST);
    }
    /* Slow mode: the stores above and the loads of in_slow below are
     * sequentially consistent, as the producers' are (emit.c). */
    if (s->join_membarrier) ludus__membarrier();
    session_step(LUDUS__STEP_ENDING);

    uint32_t n = 0, nlive = 0;
    for (uint32_t i = 0; i < high; i++) nlive += ludus__reg.rec[i].state == LUDUS__REC_LIVE;
    ludus__thread_final *fin = ludus__calloc((size_t)nlive + (s->nretired - s->retired_head) + 1, sizeof *fin);
    ludus__straggler *strag = ludus__calloc(nlive + 1, sizeof *strag);
    ludus__late *late = ludus__calloc(nlive + 1, sizeof *late);
    uint32_t nstrag = 0, nlate = 0;
    for (uint32_t i = 0; i < high && fin && strag && late; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != LUDUS__REC_LIVE || !r->hot || !r->cold) continue;
        int is_late;
        uintptr_t cur = join_thread(r, &is_late);
        ludus__thread_final *f = &fin[n++];
        if (is_late) { /* its name now, its events when its event is over */
            ludus__thread_publish(r, 0, f);
            late[nlate++] = (ludus__late){i, r->serial, n - 1, 0};
            ludus__reg.leaving_hook = thread_leaving;
            r->cold->late = 1;
            continue;
        }
        ludus__thread_publish(r, gen, f);
        if ((cur & LUDUS__K_MASK) && r->cold->gen == gen) { /* an inline event in flight: left out, counted */
            /* its slot, when inside the thread's piece; at the piece's end
             * (or before the first) the event was going out of line */
            uintptr_t slot = cur & ~(uintptr_t)LUDUS__K_MASK;
            const ludus__chunk *ch = r->cold->chunk;
            int in_piece = ch && slot >= (uintptr_t)LUDUS__CHUNK_EVENTS(ch) && slot < (uintptr_t)LUDUS__CHUNK_END(ch);
            strag[nstrag++] = (ludus__straggler){i, r->serial, cur, in_piece};
            f->dropped++;
            if (in_piece) f->lost_begin = slot; /* its end, if it is a begin, is dropped too */
        }
    }
    for (uint32_t i = s->retired_head; i < s->nretired && fin; i++) fin[n++] = s->retired[i];
    uint64_t unregistered = __atomic_load_n(&ludus__reg.unregistered_drops, __ATOMIC_RELAXED);
    session_step(LUDUS__STEP_PUBLISHED);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
    ludus__calib_point end_point = ludus__calibrate_point();
    __atomic_store_n(&s->pool.faulter, NULL, __ATOMIC_RELEASE);
    ludus__prefault_request_stop(session_state.prefault); /* no more events: stop faulting pages in */
    ludus__pool_file_stop(session_state.pool_file, 1);    /* the capture object holds it all now */

    ludus_capture *c = fin && strag && late ? ludus__capture_new(&ludus__memory_source) : NULL;
    ludus__cap_thread *threads = c ? ludus__calloc(n ? n : 1, sizeof *threads) : NULL;
    int oom = !threads;
    if (c) {
        c->gen = gen;
        c->clock_tsc = s->clock_tsc;
        c->c0 = s->begin_point;
        c->c1 = end_point;
        if (!c->clock_tsc) c->c1.ticks = (uint64_t)end_point.ns;
        c->start_ns = s->begin_point.ns;
        c->end_ns = end_point.ns;
        c->pid = s->pid;
        size_t pn = strnlen(s->process_name, sizeof s->process_name);
        c->process_name[ludus__utf8_clean(s->process_name, pn, c->process_name, sizeof c->process_name - 1)] = 0;
        c->categories = s->categories;
        c->pool.mem = s->pool_mem;
        c->pool.bytes = s->pool.bytes;
        c->pool.mapped = session_state.pool_mapped;
        c->pool.file = session_state.pool_file;
        c->pool.allocator = s->desc.allocator;
        c->pool.prefault = session_state.prefault;
        c->pool.prefault_done = session_state.faulted;
        c->pool.names = s->names;
        c->ring = __atomic_load_n(&s->ring_ticks, __ATOMIC_RELAXED) != 0; /* a flight recorder's: ring_start.c */
        uint64_t used = __atomic_load_n(&s->pool.next, __ATOMIC_RELAXED);
        c->bytes_used = used < s->pool.bytes ? used : s->pool.bytes;
        ludus__mem_cov_take(c, (int64_t)s->pool.bytes); /* without memory: no manifest */
        c->unregistered_drops = unregistered + s->retired_oom_events;
        c->interner_drops = __atomic_load_n(&s->interner_drops, __ATOMIC_RELAXED);
        c->counters_refused = ludus__live_refused() - session_state.refused0;
        c->counter_adds_lost = ludus__live_lost_adds() - session_state.lost0;
        c->pool.stragglers = strag;
        c->pool.nstragglers = nstrag;
        strag = NULL;
        c->pool.late = late;
        c->pool.nlate = nlate;
        late = NULL;
        if (threads) {
            for (uint32_t i = 0; i < n; i++) convert_thread(c, &threads[i], &fin[i]);
            c->threads = threads;
            c->nthreads = n;
        }
    }
    ludus__gpu_capture_end(c); /* the GPU samples handed over while it ran (none kept without c) */
    if (c) {                   /* c holds the session's parts now: from here a crash's copy takes c as it is */
        if (!oom) {
            session_state.ending = c;
            __atomic_store_n(&session_state.phase, PH_ENDED, __ATOMIC_RELEASE);
            session_step(LUDUS__STEP_ENDED);
        }
        s->categories = NULL;
        s->pool_mem = NULL;
        if (!nlate) s->names = NULL; /* else late threads may still intern: cleared when they are published */
        session_state.pool_file = NULL;
        session_state.prefault = NULL;
    }
    if (!c && late) { /* no capture to publish them into: wait for them now */
        ludus__mutex_lock(&ludus__reg.lock);
        for (uint32_t i = 0; i < nlate; i++) {
            const ludus__thread_record *r = &ludus__reg.rec[late[i].record];
            while (r->state == LUDUS__REC_LIVE && r->serial == late[i].serial && r->cold &&
                   __atomic_load_n(&r->cold->in_slow, __ATOMIC_ACQUIRE))
                ludus__yield();
            if (r->state == LUDUS__REC_LIVE && r->serial == late[i].serial && r->cold) r->cold->late = 0;
        }
        ludus__mutex_unlock(&ludus__reg.lock);
        nlate = 0;
    }
    if (!c) { /* nothing can describe the capture: give its memory back */
        ludus__prefault_stop(session_state.prefault);
        session_state.prefault = NULL;
        pool_free(s->pool_mem, s->pool.bytes, session_state.pool_mapped, &s->desc.allocator, session_state.pool_file);
        session_state.pool_file = NULL;
        ludus__names_destroy(s->names);
        ludus__free(s->categories);
    }
    ludus__free(fin);
    ludus__free(strag);
    ludus__free(late);
    ludus__free(s->retired);
    ludus__stream_stop_giving(s->stream); /* the pool's stack is cleared below */
    if (c && nlate) {                     /* late threads may still take pieces and intern names */
        memset(s, 0, LUDUS__SESSION_PRODUCERS);
        session_state.late_cap = c;
    } else {
        memset(s, 0, sizeof *s);
    }
    int owner = ludus__owner();
    __atomic_store_n(&session_state.active, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&session_state.owner, LUDUS__OWNER_NONE, __ATOMIC_RELEASE);
    if (oom) {
        __atomic_store_n(&session_state.phase, PH_IDLE, __ATOMIC_RELEASE);
        ludus_capture_release(c);
        return ludus__fail(LUDUS_ENOMEM, "out of memory while publishing the capture");
    }
    session_step(LUDUS__STEP_INACTIVE);
    if (owner == LUDUS__OWNER_GUEST) {
        /* quiesced here, under the control lock: the guest's later reads
         * and release touch nothing of the session */
        ludus__capture_quiesce(c);
        if (guest)
            *guest = c;
        else
            ludus_capture_release(c);
    } else {
        session_state.last = c;
    }
    __atomic_store_n(&session_state.phase, PH_IDLE, __ATOMIC_RELEASE);
    session_state.ending = NULL;
    return 0;
}

int ludus__session_crash_end(ludus_capture **out) {
    *out = NULL;
    if (__atomic_load_n(&session_state.phase, __ATOMIC_ACQUIRE) == PH_ENDED && session_state.ending) {
        ludus_capture_retain(session_state.ending);
        *out = session_state.ending;
        return 0;
    }
    if (!__atomic_load_n(&session_state.active, __ATOMIC_ACQUIRE)) {
        /* Between an end and the next begin (another thread was beginning
         * one, nothing armed yet): the capture that just ended holds every
         * event recorded, and is the one the crash writes. */
        if (__atomic_load_n(&session_state.controlling, __ATOMIC_ACQUIRE) && session_state.last) {
            ludus_capture_retain(session_state.last);
            *out = session_state.last;
            return 0;
        }
        return ludus__fail(LUDUS_ENOCAPTURE, "no capture was running");
    }
    ludus_capture *guest = NULL;
    int rc = end_capture(&guest);
    if (rc) return rc;
    if (guest) {
        *out = guest;
        return 0;
    }
    if (!session_state.last) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    ludus_capture_retain(session_state.last);
    *out = session_state.last;
    return 0;
}

/* A streamed capture has ended (end's result rc): once its late threads
 * are published, the writer writes what is left, the tables and the
 * summary; the capture object (each thread's last piece) then goes, with
 * the pool. The program opens the file to read the capture. */
static int stream_end(int rc) {
    ludus__stream *st = session_state.stream;
    session_state.stream = NULL;
    ludus_capture *c = session_state.last;
    if (rc != 0 || !c) { /* nothing describes the capture: the file keeps its blocks, as after kill -9 */
        ludus__stream_abort(st);
        return rc ? rc : ludus__fail(LUDUS_ENOMEM, "out of memory while ending the streamed capture");
    }
    if (c->src->settle) c->src->settle(c); /* late threads' pieces are handed or published */
    memset(&session_state.stream_result, 0, sizeof session_state.stream_result);
    rc = ludus__stream_finish(st, c, &session_state.stream_result);
    session_state.has_stream_result = 1;
    session_state.last = NULL;
    ludus_capture_release(c);
    return rc;
}

int ludus_capture_end(ludus_capture **out) {
    if (out) *out = NULL;
    ludus__control_lock();
    int rc;
    if (ludus__owner() != LUDUS__OWNER_PROGRAM) /* none of the program's: a watcher's is not its to end */
        rc = ludus__fail(LUDUS_ENOCAPTURE, "no capture is active");
    else if (ludus__rolling_owns_session())
        rc = ludus__fail(LUDUS_EBUSY, "a rolling capture runs: end it with ludus_rolling_end");
    else
        rc = end_capture(NULL);
    if (session_state.stream && ludus__owner() == LUDUS__OWNER_NONE) rc = stream_end(rc);
    if (rc == 0 && out && session_state.last) {
        ludus_capture_retain(session_state.last);
        *out = session_state.last;
    }
    ludus__control_unlock();
    return rc;
}

int ludus__stream_idle(void) {
    ludus__stream *st = __atomic_load_n(&session_state.stream, __ATOMIC_ACQUIRE);
    return !st || ludus__stream_caught_up(st);
}

int ludus_capture_get_stream_result(ludus_stream_result *out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    ludus__control_lock();
    int have = session_state.has_stream_result;
    if (have) *out = session_state.stream_result;
    ludus__control_unlock();
    return have ? 0 : ludus__fail(LUDUS_ENODATA, "no streamed capture has ended");
}

int ludus__session_end(void) {
    return end_capture(NULL);
}

/* ---- the guest ---- */

void ludus__guest_yield(void) {
    if (ludus__owner() != LUDUS__OWNER_GUEST) return;
    if (ludus__rolling_owns_session()) {
        void (*yield)(void) = ludus__rolling_yield;
        if (yield) yield();
        if (ludus__owner() == LUDUS__OWNER_GUEST) end_capture(NULL); /* no window to end it: the session */
        return;
    }
    ludus_capture *c = NULL;
    end_capture(&c);
    ludus_capture_release(session_state.yielded); /* one not collected: the newer replaces it */
    session_state.yielded = c;
    __atomic_store_n(&session_state.yielded_flag, c != NULL, __ATOMIC_RELEASE);
}

int ludus__guest_capture_yielded(void) {
    return __atomic_load_n(&session_state.yielded_flag, __ATOMIC_ACQUIRE);
}

int ludus__guest_capture_end(ludus_capture **out, int *yielded) {
    *out = NULL;
    *yielded = 0;
    ludus__control_lock();
    int rc = 0;
    if (session_state.yielded) {
        *out = session_state.yielded;
        *yielded = 1;
        session_state.yielded = NULL;
        __atomic_store_n(&session_state.yielded_flag, 0, __ATOMIC_RELEASE);
    } else if (ludus__owner() != LUDUS__OWNER_GUEST || ludus__rolling_owns_session()) {
        rc = ludus__fail(LUDUS_ENOCAPTURE, "no capture of the live view is active");
    } else {
        rc = end_capture(out);
    }
    ludus__control_unlock();
    return rc;
}

/* ---- producers that may still write into a pool ---- */

/* The clock of the last event in a thread's pieces (0: none). */
static uint64_t last_event_ticks(const ludus__chunk *ch) {
    uint64_t last = 0;
    for (; ch; ch = ch->next) {
        const ludus__event *ev = LUDUS__CHUNK_EVENTS(ch);
        for (uint64_t i = 0; i < ch->used;) {
            size_t k = ludus__event_slots(&ev[i], (size_t)(ch->used - i));
            if (!k) break;
            if (ev[i].ticks > last) last = ev[i].ticks;
            i += k;
        }
    }
    return last;
}

/* Publishes late thread e of c (registry lock held; its event is over). The
 * event it was recording when the capture ended began during the capture
 * and is kept (or its loss counted): when it was stamped after the end, the
 * capture's end moves to it, so nothing lies outside the capture. */
static void publish_late(ludus_capture *c, ludus__late *e, const ludus__thread_record *r) {
    ludus__thread_final f;
    ludus__thread_publish(r, c->gen, &f);
    ludus__cap_thread *th = &c->threads[e->thread];
    int exited = th->exited;
    convert_thread(c, th, &f);
    th->exited = exited;
    uint64_t last = last_event_ticks(f.first);
    if (last) {
        int64_t at = c->start_ns + ludus__ticks_to_ns(c, last) + 1; /* ends after it */
        if (at > c->end_ns) c->end_ns = at;
    }
    r->cold->late = 0;
    e->resolved = 1;
}

/* The producers' part of the session, once no late thread can read it. */
static void clear_producers_part(void) {
    memset((char *)&ludus__sess + LUDUS__SESSION_PRODUCERS, 0, sizeof ludus__sess - LUDUS__SESSION_PRODUCERS);
}

static void late_done(ludus_capture *c) {
    c->pool.nlate = 0;
    if (session_state.late_cap != c) return;
    session_state.late_cap = NULL;
    c->interner_drops = __atomic_load_n(&ludus__sess.interner_drops, __ATOMIC_RELAXED); /* late ones too */
    if (!session_state.active) clear_producers_part();
}

/* Publishes the threads that were inside an out-of-line event when c ended,
 * waiting for those events to finish; every reader of a capture's threads
 * comes after it (the memory source's settle). */
static void resolve_late_locked(ludus_capture *c) {
    if (!c || !c->pool.nlate) return;
    if (session_state.crashed) { /* late before the crash: their threads are not in this process */
        late_done(c);
        return;
    }
    for (uint32_t i = 0; i < c->pool.nlate; i++) {
        ludus__late *e = &c->pool.late[i];
        if (e->resolved) continue;
        const ludus__thread_record *r = &ludus__reg.rec[e->record];
        if (r->state != LUDUS__REC_LIVE || r->serial != e->serial || !r->cold) continue; /* it left: published then */
        /* Its out-of-line event finishes in a few instructions once it runs
         * (none of them takes the registry lock). */
        while (__atomic_load_n(&r->cold->in_slow, __ATOMIC_ACQUIRE)) ludus__yield();
        publish_late(c, e, r);
    }
    late_done(c);
}

/* Under the registry lock, which late_done's clearing of session_state.late_cap is
 * under too: the capture's last release and a begin never both resolve it,
 * nor one after the other has freed it. */
static void resolve_late(ludus_capture *c) {
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    resolve_late_locked(c);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

static void resolve_pending_late(void) {
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    resolve_late_locked(session_state.late_cap);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

/* The registry's leaving_hook: a late thread leaves (registry lock held);
 * when the last capture still has to publish it, it is published now,
 * before its state goes. */
static void thread_leaving(const ludus__thread_record *r) {
    ludus_capture *c = session_state.late_cap;
    if (!c) return;
    uint32_t index = (uint32_t)(r - ludus__reg.rec);
    for (uint32_t i = 0; i < c->pool.nlate; i++)
        if (!c->pool.late[i].resolved && c->pool.late[i].record == index && c->pool.late[i].serial == r->serial)
            publish_late(c, &c->pool.late[i], r);
}

void ludus__capture_quiesce(ludus_capture *c) {
    resolve_late(c);
    if (!c->pool.nstragglers) return;
    if (session_state.crashed) { /* their events in flight were counted as lost */
        c->pool.nstragglers = 0;
        return;
    }
    ludus__mutex_lock(&ludus__reg.lock);
    for (uint32_t i = 0; i < c->pool.nstragglers; i++) {
        const ludus__straggler *g = &c->pool.stragglers[i];
        const ludus__thread_record *r = &ludus__reg.rec[g->record];
        /* A thread that went away is done; one still there is done once its
         * cursor moved (its event is a few instructions long). */
        while (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) == LUDUS__REC_LIVE && r->serial == g->serial && r->hot &&
               __atomic_load_n(&r->hot->cur, __ATOMIC_ACQUIRE) == g->cur)
            ludus__yield();
        /* A begin left out: the end its thread will record names it, and is
         * dropped with it (the reader, lost_begin), so it counts here. */
        const ludus__event *ev = (const ludus__event *)(g->cur & ~(uintptr_t)LUDUS__K_MASK);
        if (g->in_piece && (__atomic_load_n(&ev->word, __ATOMIC_ACQUIRE) & LUDUS__K_MASK) == LUDUS__K_BEGIN)
            for (uint32_t t = 0; t < c->nthreads; t++)
                if (c->threads[t].serial == g->serial) c->threads[t].dropped++;
    }
    ludus__mutex_unlock(&ludus__reg.lock);
    c->pool.nstragglers = 0;
}

void ludus__capture_release_pool(ludus_capture *c) {
    ludus__prefault_stop(c->pool.prefault);
    c->pool.prefault = NULL;
    if (!c->pool.mem) return;
    ludus__capture_quiesce(c);
    pool_free(c->pool.mem, c->pool.bytes, c->pool.mapped, &c->pool.allocator, c->pool.file);
    c->pool.file = NULL;
    c->pool.mem = NULL;
}

/* The session's capture: its pool (and the run-time names its events point
 * at) held until it is released. */
static void memory_free(ludus_capture *c) {
    ludus__capture_release_pool(c);
    ludus__names_destroy(c->pool.names);
    ludus__free(c->pool.stragglers);
    ludus__free(c->pool.late);
}

const ludus__source_ops ludus__memory_source = {"memory", resolve_late, ludus__build_recorded, NULL, memory_free, 0};

/* ---- fork ---- */

void ludus__session_crashed(void) {
    session_state.crashed = 1;
    /* Any thread of the crashed process may have held these. */
    ludus__mutex_init(&ludus__reg.lock);
    ludus__sites_fork_reset();
    ludus__names_fork_reset(ludus__sess.names);
    ludus__counters_crash_reset();
    /* The background threads are the crashed process's. */
    ludus__prefault_after_fork(session_state.prefault);
    if (session_state.last) ludus__prefault_after_fork(session_state.last->pool.prefault);
    if (session_state.ending && session_state.ending->pool.prefault != session_state.prefault)
        ludus__prefault_after_fork(session_state.ending->pool.prefault);
    ludus__pool_file_crashed(session_state.pool_file);
    if (session_state.ending) ludus__pool_file_crashed(session_state.ending->pool.file);
    ludus__gpu_crashed();
}

void ludus__session_after_fork(void) {
    /* The child's capture goes on as its own: the parent's events are not
     * the child's (another pid, other threads), so it restarts empty, with a
     * new generation, over the same (copied) pool. */
    ludus__pool_files_after_fork();
    if (session_state.last) { /* its background thread is not in this process */
        ludus__prefault_after_fork(session_state.last->pool.prefault);
        session_state.last->pool.nstragglers = 0;
    }
    if (session_state.late_cap) { /* the late threads are not in this process: they keep no events here */
        session_state.late_cap->pool.nlate = 0;
        session_state.late_cap = NULL;
        if (!session_state.active) clear_producers_part();
    }
    ludus__gpu_after_fork(0, 0); /* the parent's GPU samples are not the child's */
    /* The forking thread held it across the fork (fork.c): made anew. */
    ludus__mutex_init(&control);
    session_state.controlling = 0;
    if (session_state.yielded) { /* the watcher's, which is not in the child */
        ludus__prefault_after_fork(session_state.yielded->pool.prefault);
        session_state.yielded->pool.nstragglers = 0;
        session_state.yielded->pool.nlate = 0;
        ludus_capture_release(session_state.yielded);
        session_state.yielded = NULL;
        session_state.yielded_flag = 0;
    }
    if (!session_state.active) return;
    ludus__session *s = &ludus__sess;
    /* The parent's file: the child records nothing into it, and stops. A
     * watcher's recording (the live view's thread is not in the child):
     * the child starts clean, its own begin free. */
    if (session_state.stream) { /* the parent's writer and file: the child records nothing into them, and stops */
        ludus__stream_forget(session_state.stream);
        session_state.stream = NULL;
    }
    if (session_state.pool_file || s->stream || ludus__owner() == LUDUS__OWNER_GUEST) {
        __atomic_store_n(&ludus__armed, 0u, __ATOMIC_SEQ_CST);
        __atomic_store_n(&s->pool.faulter, NULL, __ATOMIC_RELEASE);
        ludus__prefault_after_fork(session_state.prefault);
        ludus__prefault_stop(session_state.prefault);
        session_state.prefault = NULL;
        ludus__names_destroy(s->names);
        ludus__free(s->categories);
        ludus__free(s->retired);
        if (session_state.pool_file)
            ludus__pool_file_forget(session_state.pool_file);
        else
            pool_free(s->pool_mem, s->pool.bytes, session_state.pool_mapped, &s->desc.allocator, NULL);
        session_state.pool_file = NULL;
        memset(s, 0, sizeof *s);
        /* the forking thread's piece was in that pool: it takes a new one
         * when the child's own capture begins */
        __atomic_store_n(&ludus__hot.limit, 0u, __ATOMIC_RELAXED);
        __atomic_store_n(&ludus__hot.cur, 0u, __ATOMIC_RELAXED);
        ludus__cold.gen = 0;
        ludus__cold.chunk = ludus__cold.first_chunk = NULL;
        __atomic_store_n(&session_state.active, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&session_state.owner, LUDUS__OWNER_NONE, __ATOMIC_RELEASE);
        __atomic_store_n(&session_state.rolling_owns, 0, __ATOMIC_RELEASE);
        return;
    }
    ludus__prefault_after_fork(session_state.prefault);
    s->pid = ludus__os_pid();
    s->nretired = 0;
    s->retired_head = 0;
    s->retired_oom = 0;
    s->retired_oom_events = 0;
    s->interner_drops = 0;
    s->pool.next = 0;
    session_state.gen_counter = next_gen();
    s->gen = session_state.gen_counter;
    s->begin_point = ludus__calibrate_point();
    if (!s->clock_tsc) s->begin_point.ticks = (uint64_t)s->begin_point.ns;
    ludus__gpu_after_fork((s->desc.record & LUDUS_RECORD_GPU) != 0, s->begin_point.ns);
    ludus__thread_hot *t = &ludus__hot;
    __atomic_store_n(&t->limit, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&t->cur, 0u, __ATOMIC_RELAXED);
    ludus__cold.gen = 0;
    ludus__cold.chunk = ludus__cold.first_chunk = NULL;
    if (s->desc.record & LUDUS_RECORD_CPU)
        __atomic_store_n(&ludus__armed, s->gen | (s->slow ? LUDUS__ARMED_SLOW : 0u), __ATOMIC_SEQ_CST);
}
