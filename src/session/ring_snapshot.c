/* The flight recorder's snapshot: what every thread holds now, copied
 * while the producers go on writing (no pause, no join, nothing asked of
 * them). A thread's pieces are a list, oldest first, that only its own
 * thread changes: it appends at the end and, in a flight recorder, takes
 * its oldest piece off the front to write over it (emit.c, ring_reuse).
 * The copy:
 *   1. walks the list from its front to the thread's current piece, noting
 *      each piece's sequence number (consecutive, or the walk raced a
 *      reuse and is taken again);
 *   2. copies each piece, and reads its number again after: a piece whose
 *      number changed was being written over, and it and every piece
 *      before it (older still) are left out: the copy starts later;
 *   3. copies the current piece up to the thread's cursor, which its
 *      thread stores (release) after each event is written.
 * Only the first step, and reading each thread's state, hold the registry
 * lock; the copies run without it, so a thread that registers, exits or
 * takes a piece meanwhile is never held up by a copy. What the copy reads
 * stays where it is: each thread listed is pinned (ludus__thread_record and
 * ludus__thread_final .pins), and a pinned thread's pieces never go back
 * to the pool's free stack (pool.c, ludus__ring_reclaim), even when it
 * exits during the copy; its own reuse of its oldest piece is what the
 * sequence numbers catch. The pins go, and the reclaim they held back
 * runs, when the copy is done.
 * The pieces' addresses are kept with the copies (a scope's end names its
 * begin by address). The copy is a capture of its own (c->ring: the ends
 * of scopes begun before its first events get a begin there, ring_start.c),
 * holding a reference to the recording's run-time names, which its events
 * point at. The caller pays the walks and the copies: about what memcpy of
 * the window costs; nothing is normalised here. */
#define _GNU_SOURCE /* strnlen: before any system header */
#include <stdlib.h>
#include <string.h>

#include "session_private.h"
#include "../capture/nev.h"
#include "../capture/event_table.h"
#include "../base/text.h"

typedef struct piece_ref {
    ludus__chunk *ch;
    uint32_t seq;
} piece_ref;

/* A copy's memory. The last one released is kept (one slot) for the next
 * snapshot: its pages are in, so a snapshot costs a copy, not page faults
 * (a 1 s window of the demo: a few MB, a thousand pages). */
typedef struct copy_buf {
    size_t cap; /* slots */
    ludus__event ev[];
} copy_buf;

static copy_buf *spare_buf; /* atomic */

static copy_buf *buf_take(size_t slots) {
    if (slots == 0) slots = 1;
    copy_buf *b = __atomic_exchange_n(&spare_buf, NULL, __ATOMIC_ACQ_REL);
    if (b && b->cap >= slots) return b;
    ludus__free(b);
    b = ludus__malloc(sizeof *b + slots * sizeof(ludus__event));
    if (b) b->cap = slots;
    return b;
}

static void buf_give(copy_buf *b) {
    ludus__free(__atomic_exchange_n(&spare_buf, b, __ATOMIC_ACQ_REL));
}

void ludus__session_ring_forget(void) {
    ludus__free(__atomic_exchange_n(&spare_buf, NULL, __ATOMIC_ACQ_REL));
}

typedef struct ring_copy {
    copy_buf *buf; /* every thread's copies */
    ludus__name_table *names;
} ring_copy;

static void ring_copy_free(ludus_capture *c) {
    ring_copy *rc = c->src_data;
    if (!rc) return;
    if (rc->buf) buf_give(rc->buf);
    ludus__names_destroy(rc->names);
    ludus__free(rc);
}

static const ludus__source_ops ring_copy_source = {"flight recorder", NULL, ludus__build_recorded, NULL,
                                                   ring_copy_free,    0};

void ludus__session_set_ring(uint64_t window_ticks) {
    __atomic_store_n(&ludus__sess.ring_ticks, window_ticks, __ATOMIC_RELAXED);
}

/* Events copied while their thread may be writing over them: a piece
 * written over while it was copied is found by its sequence number and
 * left out, so the race is the design's (a seqlock's reader). memcpy,
 * except under TSan, which intercepts memcpy whatever the function's
 * attributes: there plain loads it is told not to watch. */
#ifdef LUDUS__TSAN
__attribute__((no_sanitize("thread"))) static void copy_events(ludus__event *to, const ludus__event *from, size_t n) {
    const volatile uint64_t *s = (const volatile uint64_t *)(const void *)from;
    uint64_t *d = (uint64_t *)(void *)to;
    for (size_t i = 0; i < 2 * n; i++) d[i] = s[i];
}
#else
static void copy_events(ludus__event *to, const ludus__event *from, size_t n) {
    memcpy(to, from, n * sizeof *to);
}
#endif

/* The clock at a piece's first event (a plain read: see copy_events). */
__attribute__((no_sanitize("thread"))) static uint64_t first_ticks(const ludus__chunk *ch) {
    return ((const volatile ludus__event *)LUDUS__CHUNK_EVENTS(ch))->ticks;
}

/* Room for entry n of *refs (grown by doubling); 0 when out of memory. */
static int refs_room(piece_ref **refs, uint32_t *cap, uint32_t n) {
    if (n < *cap) return 1;
    uint32_t nc = *cap ? *cap * 2 : 64;
    piece_ref *r = ludus__realloc(*refs, nc * sizeof *r);
    if (!r) return 0;
    *refs = r;
    *cap = nc;
    return 1;
}

/* The thread's pieces, front to current, in *refs (grown) from entry
 * base on; their count, or 0 when the list moved under every walk tried
 * or no memory was left. */
static uint32_t walk(ludus__thread_cold *c, piece_ref **refs, uint32_t *cap, uint32_t base) {
    for (int tries = 0; tries < 64; tries++) {
        ludus__chunk *p = __atomic_load_n(&c->first_chunk, __ATOMIC_ACQUIRE);
        ludus__chunk *last = __atomic_load_n(&c->chunk, __ATOMIC_ACQUIRE);
        uint32_t n = 0;
        int whole = 0;
        while (p) {
            if (!refs_room(refs, cap, base + n)) return 0;
            uint32_t seq = __atomic_load_n(&p->seq, __ATOMIC_ACQUIRE);
            if (n && seq != (*refs)[base + n - 1].seq + 1) break; /* a piece reused under the walk */
            (*refs)[base + n++] = (piece_ref){p, seq};
            if (p == last) {
                whole = 1;
                break;
            }
            p = __atomic_load_n(&p->next, __ATOMIC_ACQUIRE);
        }
        if (whole) return n;
        ludus__cpu_relax();
    }
    return 0;
}

/* Slots of the current piece written so far: the cursor when it is in the
 * piece, else (the thread moved on meanwhile) the piece's count. */
static size_t current_used(const ludus__thread_hot *h, const ludus__chunk *last) {
    uintptr_t lo = (uintptr_t)LUDUS__CHUNK_EVENTS(last), hi = (uintptr_t)LUDUS__CHUNK_END(last);
    for (int spins = 0; spins < 1000; spins++) {
        uintptr_t cur = __atomic_load_n(&h->cur, __ATOMIC_ACQUIRE) & ~(uintptr_t)LUDUS__K_MASK;
        if (cur >= lo && cur <= hi) return (cur - lo) / sizeof(ludus__event);
        if (__atomic_load_n(&last->next, __ATOMIC_ACQUIRE))
            return (size_t)__atomic_load_n(&last->used, __ATOMIC_ACQUIRE);
        ludus__cpu_relax();
    }
    return 0; /* between pieces all along: its current piece is left out */
}

/* Drops what th copied so far (its memory from `start` is written again). */
/* How often a thread whose copy kept nothing is listed and copied again. */
#define RELIST_TRIES 4

static void forget_copied(ludus__cap_thread *th, size_t *at, size_t start) {
    th->nruns = 0;
    th->slots = 0;
    *at = start;
}

/* One thread's list copied into th (runs pointing into mem at *at),
 * from its last piece that began before `from` (ticks; the window's
 * start): the pieces before it lie wholly before the window. last_used:
 * the slots of its last piece written when it was listed. A thread whose
 * last event is older than the window keeps nothing. *newest: the later of
 * itself and the thread's last event copied (ticks). */
static int copy_list(ludus__cap_thread *th, const piece_ref *refs, uint32_t n, size_t last_used, uint64_t from,
                     ludus__event *mem, size_t cap, size_t *at, uint64_t *dropped_before, int *written_over,
                     uint64_t *newest) {
    th->runs = ludus__malloc((n ? n : 1) * sizeof *th->runs);
    if (!th->runs) return LUDUS_ENOMEM;
    th->nruns = 0;
    th->slots = 0;
    size_t start = *at;
    uint32_t i0 = 0;
    while (i0 + 1 < n && first_ticks(refs[i0 + 1].ch) < from) i0++;
    for (uint32_t i = i0; i < n; i++) {
        ludus__chunk *ch = refs[i].ch;
        size_t room = (size_t)(LUDUS__CHUNK_END(ch) - LUDUS__CHUNK_EVENTS(ch));
        size_t used = i == n - 1 ? last_used : (size_t)__atomic_load_n(&ch->used, __ATOMIC_ACQUIRE);
        if (used > room) used = room;
        if (*at + used > cap) used = cap - *at; /* the thread wrote more since it was measured */
        copy_events(mem + *at, LUDUS__CHUNK_EVENTS(ch), used);
        /* read again by an add of 0: its release half keeps the copy's
         * loads before it (a fence, as TSan models it) */
        if (__atomic_fetch_add(&ch->seq, 0u, __ATOMIC_ACQ_REL) != refs[i].seq) {
            forget_copied(th, at, start); /* written over while copied: it and the older ones go */
            *written_over = 1;
            continue;
        }
        if (used) {
            if (th->nruns == 0) *dropped_before = __atomic_load_n(&ch->dropped_before, __ATOMIC_RELAXED);
            th->runs[th->nruns++] = (ludus__run){mem + *at, used, (uintptr_t)LUDUS__CHUNK_EVENTS(ch)};
            th->slots += used;
            *at += used;
        }
    }
    if (th->nruns) { /* idle since before the window: nothing of it is in the window */
        const ludus__run *r = &th->runs[th->nruns - 1];
        uint64_t last = 0;
        for (size_t k = 0, step; k < r->n; k += step) { /* the last event's header (payload slots hold no time) */
            step = ludus__event_slots(&r->ev[k], r->n - k);
            if (step == 0) break;
            last = r->ev[k].ticks;
        }
        if (last > *newest) *newest = last;
        if (last < from) forget_copied(th, at, start);
    }
    return 0;
}

static void name_thread(ludus__cap_thread *th, const char *name, uint64_t tid, uint32_t serial) {
    size_t n = strnlen(name, 64);
    th->name[ludus__utf8_clean(name, n, th->name, sizeof th->name - 1)] = 0;
    th->tid = tid;
    th->serial = serial;
    th->first_drop_ns = LUDUS__NO_DROP;
}

/* What the lock's part noted of one listed thread, for the copy after. */
typedef struct planned {
    uint32_t ref0, nrefs; /* its pieces: refs[ref0 .. ref0 + nrefs) */
    size_t last_used;     /* slots of its last piece written when listed */
    uint64_t lost;        /* its losses when listed (the pieces count from them) */
    uint64_t signal_lost; /* and its signal handlers' (not counted in the pieces) */
    uint64_t first_drop_ticks;
    int spans, pinned;
} planned;

/* The test hook (tests/stress/test_flight_churn.c): runs after the first
 * thread's copy, the registry lock not held. */
void (*ludus__snapshot_copying)(void);

static int serial_cmp(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The pins of the threads listed (serials, sorted) go (lock held): on the
 * live record, or on the retired entry where the thread exited meanwhile. */
static void unpin(const uint32_t *serials, uint32_t n) {
    ludus__session *s = &ludus__sess;
    for (uint32_t i = 0; i < ludus__reg.high && n; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (r->state == LUDUS__REC_LIVE && r->pins && bsearch(&r->serial, serials, n, sizeof *serials, serial_cmp))
            r->pins--;
    }
    for (uint32_t i = s->retired_head; i < s->nretired && n; i++) {
        ludus__thread_final *f = &s->retired[i];
        if (f->pins && bsearch(&f->serial, serials, n, sizeof *serials, serial_cmp)) f->pins--;
    }
}

/* Under the registry lock: one listed thread's pieces noted again (its pin
 * keeps its record, live or retired), appended to refs at `base`. For a
 * copy that kept nothing because the thread went round all its pieces
 * while they were copied: a snapshot preempted on a loaded machine beside
 * a flooding thread. */
static int relist(uint32_t serial, planned *p, piece_ref **refs, uint32_t *refs_cap, uint32_t base) {
    ludus__session *s = &ludus__sess;
    p->ref0 = base;
    p->nrefs = 0;
    p->last_used = 0;
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (r->serial != serial || __atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != LUDUS__REC_LIVE || !r->hot ||
            !r->cold)
            continue;
        p->nrefs = walk(r->cold, refs, refs_cap, base);
        p->last_used = p->nrefs ? current_used(r->hot, (*refs)[base + p->nrefs - 1].ch) : 0;
        return 0;
    }
    for (uint32_t i = s->retired_head; i < s->nretired; i++) { /* it exited meanwhile */
        ludus__thread_final *f = &s->retired[i];
        if (f->serial != serial) continue;
        for (ludus__chunk *q = f->first; q; q = q->next) {
            if (!refs_room(refs, refs_cap, base + p->nrefs)) return LUDUS_ENOMEM;
            (*refs)[base + p->nrefs++] = (piece_ref){q, q->seq};
        }
        p->last_used = p->nrefs ? (size_t)(*refs)[base + p->nrefs - 1].ch->used : 0;
        return 0;
    }
    return 0;
}

/* Under the registry lock: the threads listed, named, their pieces noted
 * and pinned. */
static int list_threads(ludus_capture *c, uint32_t gen, planned *plan, piece_ref **refs, uint32_t *refs_cap,
                        uint32_t *serials) {
    ludus__session *s = &ludus__sess;
    uint32_t nrefs = 0;
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        ludus__thread_record *r = &ludus__reg.rec[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != LUDUS__REC_LIVE || !r->hot || !r->cold) continue;
        ludus__thread_cold *tc = r->cold;
        planned *p = &plan[c->nthreads];
        ludus__cap_thread *th = &c->threads[c->nthreads++];
        name_thread(th, r->name, r->tid, r->serial);
        if (__atomic_load_n(&tc->gen, __ATOMIC_ACQUIRE) != gen) continue; /* recorded nothing yet */
        uint32_t n = walk(tc, refs, refs_cap, nrefs);
        p->ref0 = nrefs;
        p->nrefs = n;
        p->last_used = n ? current_used(r->hot, (*refs)[nrefs + n - 1].ch) : 0;
        nrefs += n;
        p->lost = __atomic_load_n(&tc->dropped, __ATOMIC_RELAXED);
        p->signal_lost = __atomic_load_n(&tc->signal_drops, __ATOMIC_RELAXED);
        p->first_drop_ticks = __atomic_load_n(&tc->first_drop_ticks, __ATOMIC_RELAXED);
        p->spans = __atomic_load_n(&tc->spans, __ATOMIC_RELAXED) != 0;
        p->pinned = 1;
        r->pins++;
        serials[c->nthreads - 1] = r->serial;
    }
    for (uint32_t i = s->retired_head; i < s->nretired; i++) { /* exited: their pieces no longer change */
        ludus__thread_final *f = &s->retired[i];
        planned *p = &plan[c->nthreads];
        ludus__cap_thread *th = &c->threads[c->nthreads++];
        name_thread(th, f->name, f->tid, f->serial);
        th->exited = f->exited;
        th->recorder_orphans = f->orphan_ends;
        p->ref0 = nrefs;
        for (ludus__chunk *q = f->first; q; q = q->next) {
            if (!refs_room(refs, refs_cap, nrefs)) return LUDUS_ENOMEM;
            (*refs)[nrefs++] = (piece_ref){q, q->seq};
        }
        p->nrefs = nrefs - p->ref0;
        p->last_used = p->nrefs ? (size_t)(*refs)[nrefs - 1].ch->used : 0;
        p->lost = f->dropped;
        p->first_drop_ticks = f->first_drop_ticks;
        p->spans = f->spans != 0;
        p->pinned = 1;
        f->pins++;
        serials[c->nthreads - 1] = f->serial;
    }
    return 0;
}

int ludus__session_ring_snapshot(ludus_capture **out) {
    *out = NULL;
    ludus__session *s = &ludus__sess;
    ludus_capture *c = ludus__capture_new(&ring_copy_source);
    ring_copy *rcp = c ? ludus__calloc(1, sizeof *rcp) : NULL;
    if (!rcp) {
        ludus__free(c);
        return ludus__fail(LUDUS_ENOMEM, "out of memory for the snapshot");
    }
    c->src_data = rcp;
    c->ring = 1;
    piece_ref *refs = NULL;
    uint32_t refs_cap = 0, *serials = NULL;
    planned *plan = NULL;
    int rc = 0;

    /* ---- under the lock: the list, pinned ---- */
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    uint32_t gen = ludus__armed_gen(__atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE));
    if (gen == 0 || gen != s->gen || !__atomic_load_n(&s->ring_ticks, __ATOMIC_RELAXED)) {
        ludus__mutex_unlock(&ludus__reg.lock);
        ludus__lib_leave();
        ludus_capture_release(c);
        return ludus__fail(LUDUS_ENOCAPTURE, "no flight recorder runs");
    }
    /* the window's start in ticks (0: not known yet, everything is kept) */
    ludus__calib_point now = ludus__calibrate_point();
    uint64_t now_ticks = s->clock_tsc ? now.ticks : (uint64_t)now.ns;
    uint64_t window = __atomic_load_n(&s->ring_ticks, __ATOMIC_RELAXED);
    uint64_t from = window == UINT64_MAX || window > now_ticks ? 0 : now_ticks - window;
    ludus__ring_reclaim(); /* exited threads with nothing in the window are not listed */
    uint32_t high = ludus__reg.high, nlive = 0;
    for (uint32_t i = 0; i < high; i++) nlive += ludus__reg.rec[i].state == LUDUS__REC_LIVE;
    size_t most = (size_t)nlive + (s->nretired - s->retired_head) + 1;
    c->threads = ludus__calloc(most, sizeof *c->threads);
    plan = ludus__calloc(most, sizeof *plan);
    serials = ludus__calloc(most, sizeof *serials);
    if (!c->threads || !plan || !serials) rc = LUDUS_ENOMEM;
    if (rc == 0) rc = list_threads(c, gen, plan, &refs, &refs_cap, serials);
    /* the copy's size: the pool's bounds it (memory the copy does not
     * write is address space only; one size, so the kept buffer serves the
     * next snapshot) */
    size_t cap = (size_t)(s->pool.bytes / sizeof(ludus__event));
    if (rc == 0) {
        c->gen = gen;
        c->clock_tsc = s->clock_tsc;
        c->c0 = s->begin_point;
        c->pid = s->pid;
        size_t pn = strnlen(s->process_name, sizeof s->process_name);
        c->process_name[ludus__utf8_clean(s->process_name, pn, c->process_name, sizeof c->process_name - 1)] = 0;
        if (s->categories && !(c->categories = ludus__malloc(strlen(s->categories) + 1))) rc = LUDUS_ENOMEM;
        if (c->categories) strcpy(c->categories, s->categories);
        ludus__names_retain(s->names);
        rcp->names = s->names;
        c->pool.names = s->names;
        c->unregistered_drops = __atomic_load_n(&ludus__reg.unregistered_drops, __ATOMIC_RELAXED);
        c->interner_drops = __atomic_load_n(&s->interner_drops, __ATOMIC_RELAXED);
    }
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();

    /* ---- without it: the copies ---- */
    uint32_t listed = c->nthreads;
    rcp->buf = rc == 0 ? buf_take(cap) : NULL;
    if (rc == 0 && !rcp->buf) rc = LUDUS_ENOMEM;
    ludus__event *mem = rcp->buf ? rcp->buf->ev : NULL;
    size_t at = 0;
    uint64_t newest = 0; /* the last event of every thread, ticks */
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t t = 0; t < listed && rc == 0; t++) {
            ludus__cap_thread *th = &c->threads[t];
            planned *p = &plan[t];
            uint64_t before = 0; /* the thread's losses before its first piece copied: not the window's */
            for (int tries = 0;; tries++) {
                int over = 0;
                if (p->nrefs)
                    rc = copy_list(th, refs + p->ref0, p->nrefs, p->last_used, from, mem, cap, &at, &before, &over,
                                   &newest);
                if (rc || !over || th->nruns || tries == RELIST_TRIES) break;
                ludus__free(th->runs); /* nothing kept: listed again and copied at once */
                th->runs = NULL;
                uint32_t base = 0;
                for (uint32_t k = 0; k < listed; k++)
                    if (plan[k].ref0 + plan[k].nrefs > base) base = plan[k].ref0 + plan[k].nrefs;
                ludus__lib_enter();
                ludus__mutex_lock(&ludus__reg.lock);
                rc = relist(serials[t], &plan[t], &refs, &refs_cap, base);
                ludus__mutex_unlock(&ludus__reg.lock);
                ludus__lib_leave();
                if (rc) break;
            }
            th->dropped = (p->lost > before ? p->lost - before : 0) + p->signal_lost;
            th->spans = p->spans ? th->slots : 0; /* a bound: lanes are decided */
            if (p->first_drop_ticks && th->dropped) th->first_drop_ns = (int64_t)p->first_drop_ticks; /* ticks, below */
            if (t == 0 && pass == 0) {
                void (*hook)(void) = __atomic_load_n(&ludus__snapshot_copying, __ATOMIC_ACQUIRE);
                if (hook) hook();
            }
        }
        /* Every thread idle for longer than the window (the program stalled,
         * or paused before it exits): the window ends at the newest event
         * instead of now, so a snapshot of a recorder that holds events is
         * never empty. Copied again from the same pinned lists. */
        if (pass == 0 && rc == 0 && at == 0 && newest && newest < from) {
            from = newest > window ? newest - window : 0;
            for (uint32_t t = 0; t < listed; t++) {
                ludus__free(c->threads[t].runs);
                c->threads[t].runs = NULL;
                c->threads[t].nruns = 0;
                c->threads[t].slots = 0;
            }
            continue;
        }
        break;
    }

    /* ---- under the lock again: the pins go, and what they held back ---- */
    uint32_t npinned = 0;
    for (uint32_t t = 0; t < listed && serials; t++)
        if (plan[t].pinned) serials[npinned++] = serials[t];
    qsort(serials, npinned, sizeof *serials, serial_cmp);
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    unpin(serials, npinned);
    if (npinned) ludus__ring_reclaim();
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
    ludus__free(refs);
    ludus__free(plan);
    ludus__free(serials);
    if (rc) {
        ludus_capture_release(c);
        return ludus__fail(rc, "out of memory while copying the flight recorder's window");
    }
    c->c1 = ludus__calibrate_point();
    if (!c->clock_tsc) c->c1.ticks = (uint64_t)c->c1.ns;
    c->end_ns = c->c1.ns;
    c->bytes_used = at * sizeof(ludus__event);
    /* The capture starts at its earliest event (the recording may have
     * begun long before): times are counted from there. */
    uint64_t earliest = UINT64_MAX;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (c->threads[t].nruns && c->threads[t].runs[0].ev[0].ticks < earliest)
            earliest = c->threads[t].runs[0].ev[0].ticks;
    c->start_ns = 0;
    int64_t first_ns = earliest == UINT64_MAX ? c->c1.ns : ludus__ticks_to_ns(c, earliest);
    c->start_ns = first_ns > c->c0.ns ? first_ns : c->c0.ns;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        if (th->first_drop_ns != LUDUS__NO_DROP) th->first_drop_ns = ludus__ticks_to_ns(c, (uint64_t)th->first_drop_ns);
    }
    ludus__gpu_ring_copy(c);
    *out = c;
    return 0;
}
