/* Out-of-line recording: everything the inline path of profiling.h hands
 * off (first event of a thread in a capture, a full piece, a nested event,
 * slow mode) and the events that are not on the hottest path (marks,
 * frames, flows, counters, spans, run-time names, unwind markers).
 *
 * The producer join. An event claims its thread's ludus__hot.cur by adding
 * 1 to it (ludus__claim: one xadd, not locked, on x86-64; an ldxr/stxr pair
 * on AArch64; a relaxed fetch-add elsewhere), which returns the slot as it was; its
 * final store of cur (the next slot, low bits clear) releases the claim.
 * Low bits already set mean it interrupted an event of its own thread (a
 * signal handler): it takes the 1 back (ludus__unclaim) and is dropped and
 * counted (set_busy below is that claim for out-of-line events). The
 * controller ending a capture stores armed = 0, zeroes every live thread's
 * limit, runs an asymmetric barrier (membarrier; a fence in slow mode), then
 * reads each thread's cur. An inline event that was already past its limit
 * check may still be writing its slot: it is left to finish beyond the
 * published cursor (and counted as lost); the pool is not reused or freed
 * before it is done (session.c). Out-of-line events mark in_slow and re-read
 * armed behind a full fence before they touch anything shared, and the
 * controller waits for those: they may link pieces. The slow path never
 * leaves a non-zero limit behind once armed is 0 (it re-checks after setting
 * one), so no event can start in a piece of an ended capture.
 *
 * Losses: a refused begin counts two events (itself and the end that will
 * never be written); every other refused event counts one. */
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "event_kinds.h"
#include "record.h"

__attribute__((aligned(64))) uint32_t ludus__armed_line[16];
int ludus__clock_is_tsc; /* set before arming; read after an acquire of armed */

const ludus_site ludus__frame_site = {"Frame", "", "", "frame", 0, LUDUS_SITE_TEXT};
const ludus_site ludus__invalid_site = {"<invalid site id>", "", "", NULL, 0, LUDUS_SITE_TEXT};
const ludus_site ludus__empty_name_site = {"<empty name>", "", "", NULL, 0, LUDUS_SITE_TEXT};
static const ludus_site names_full_site = {"<run-time names table full>", "", "", NULL, 0, LUDUS_SITE_TEXT};
/* Names the end of a span when no span is open: no span ever begins with it,
 * so the reader flags it as a mismatched end. */
static const ludus_site unmatched_end_site = {"<span end without begin>", "", "", NULL, 0, LUDUS_SITE_TEXT};

#define FLOW_DROPPED (UINT64_C(1) << 62) /* id a dropped flow start hands out */

/* Out-of-line events read the TSC ordered: a flow's arrival, stamped here,
 * must not precede its departure on another thread. Inline scopes use a
 * plain rdtsc (see docs/design.md). */
static inline uint64_t now_ticks(void) {
    return ludus__clock_is_tsc ? ludus__read_tsc_ordered() : (uint64_t)ludus__mono_ns();
}

/* Claims cur for an event that did not come through the inline path;
 * returns 1 (having taken the claim back) when it was claimed already: a
 * nested event. One instruction each way, so a signal cannot split them. */
static inline int set_busy(ludus__thread_hot *t) {
#if LUDUS__INLINE_CLOCK
    if (!(ludus__claim(t) & LUDUS__K_MASK)) return 0;
    ludus__unclaim(t);
#else
    if (!(__atomic_fetch_add(&t->cur, (uintptr_t)1, __ATOMIC_RELAXED) & LUDUS__K_MASK)) return 0;
    __atomic_fetch_sub(&t->cur, (uintptr_t)1, __ATOMIC_RELAXED);
#endif
    return 1;
}

static inline uintptr_t slot_of(const ludus__thread_hot *t) {
    return __atomic_load_n(&t->cur, __ATOMIC_RELAXED) & ~(uintptr_t)LUDUS__K_MASK;
}

/* Ends an out-of-line event: clears in_slow, then busy. */
static inline void leave(ludus__thread_hot *t, ludus__thread_cold *c) {
    __atomic_store_n(&c->in_slow, 0u, __ATOMIC_RELEASE);
    __atomic_store_n(&t->cur, slot_of(t), __ATOMIC_RELEASE);
}

static void note_first_drop(ludus__thread_cold *c) {
    uint64_t zero = 0;
    if (__atomic_load_n(&c->first_drop_ticks, __ATOMIC_RELAXED) == 0)
        __atomic_compare_exchange_n(&c->first_drop_ticks, &zero, now_ticks() | 1u, 0, __ATOMIC_RELAXED,
                                    __ATOMIC_RELAXED);
}

/* A loss of the attached capture (the thread holds busy and in_slow). */
static void drop(ludus__thread_cold *c, unsigned n) {
    __atomic_store_n(&c->dropped, c->dropped + n, __ATOMIC_RELAXED); /* a snapshot reads it (ring_snapshot.c) */
    note_first_drop(c);
    ludus__chunk *ch = c->chunk;
    if (ch) { /* a pool file keeps them (the loss path only: a recorded event never comes here) */
        if (!ch->dropped) ch->first_drop_ticks = __atomic_load_n(&c->first_drop_ticks, __ATOMIC_RELAXED);
        ch->dropped = c->dropped;
    }
}

/* A loss seen by an event that interrupted another event of its thread (a
 * signal handler) or a library call: only atomic counters may be touched. */
/* A loss for capture generation g that the thread has not joined: attach
 * folds it in (or, for a rolling capture's pause, the switch takes it). */
static void early_drop(ludus__thread_cold *c, uint32_t g, unsigned n) {
    uint64_t old = __atomic_load_n(&c->early_drops, __ATOMIC_RELAXED), nw;
    do {
        nw = ((old >> 32) == g ? old : (uint64_t)g << 32) + n;
    } while (!__atomic_compare_exchange_n(&c->early_drops, &old, nw, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
}

static void signal_drop(ludus__thread_cold *c, unsigned n) {
    uint32_t g = ludus__armed_gen(__atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE));
    if (g == 0) return;
    if (__atomic_load_n(&c->gen, __ATOMIC_RELAXED) != g) {
        /* The thread has not joined this capture yet: the event this one
         * interrupted is its first, and it attaches the thread right after
         * (attach folds these in). Kept with the capture's generation. */
        early_drop(c, g, n);
        return;
    }
    __atomic_fetch_add(&c->signal_drops, n, __ATOMIC_RELAXED);
    note_first_drop(c);
}

static void attach(ludus__thread_hot *t, ludus__thread_cold *c, uint32_t gen, int slow) {
    /* The loss counters first, the generation after: a signal handler's
     * loss before the store goes to early_drops, after it to signal_drops. */
    __atomic_store_n(&c->signal_drops, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&c->first_drop_ticks, 0u, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&c->gen, gen, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    uint64_t early = __atomic_exchange_n(&c->early_drops, 0u, __ATOMIC_RELAXED);
    if (early >> 32 == gen && (uint32_t)early) {
        __atomic_fetch_add(&c->signal_drops, (uint32_t)early, __ATOMIC_RELAXED);
        note_first_drop(c);
    }
    c->slow = (uint32_t)slow;
    c->reserve = 0;
    c->exhausted = 0;
    c->own_limit = 0;
    /* a flight recorder's snapshot may walk this list now (ring_snapshot.c, under the registry lock,
     * which this does not hold): stored as it loads them */
    __atomic_store_n(&c->chunk, NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&c->first_chunk, NULL, __ATOMIC_RELAXED);
    c->chunk_seq = 0;
    c->piece_bytes = LUDUS__PIECE_MIN;
    c->dropped = 0;
    c->spans = 0;
    c->orphan_ends = 0;
    __atomic_store_n(&c->evicted, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&c->evicted_in_window, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&t->limit, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&t->cur, (uintptr_t)1, __ATOMIC_RELAXED); /* no piece yet; still busy */
}

/* Entry of every out-of-line event that is not nested: the thread holds
 * busy. Returns the generation of the armed capture, the thread attached to
 * it and in_slow set; or 0 with busy cleared when nothing may be recorded
 * (after counting the loss in `lost` when a capture runs). */
static uint32_t slow_enter(ludus__thread_hot *t, ludus__thread_cold *c, unsigned lost, int may_register) {
    for (;;) {
        /* Sequentially consistent store then load (Dekker with the
         * controller's store of armed and load of in_slow). */
        __atomic_store_n(&c->in_slow, 1u, __ATOMIC_SEQ_CST);
        uint32_t g = __atomic_load_n(&ludus__armed, __ATOMIC_SEQ_CST);
        uint32_t gen = ludus__armed_gen(g);
        if (gen == 0 || c->dead) break;
        if (__atomic_load_n(&c->in_library, __ATOMIC_RELAXED)) {
            leave(t, c);
            signal_drop(c, lost);
            return 0;
        }
        if (c->gen == gen) return gen;
        if (c->record >= 0) {
            attach(t, c, gen, (g & LUDUS__ARMED_SLOW) != 0);
            return gen;
        }
        leave(t, c); /* never hold busy while taking the registry lock */
        if (!may_register || ludus__register_self(NULL) != 0) {
            __atomic_fetch_add(&ludus__reg.unregistered_drops, lost, __ATOMIC_RELAXED);
            return 0;
        }
        if (set_busy(t)) { /* cannot happen: nothing else of this thread runs */
            signal_drop(c, lost);
            return 0;
        }
    }
    leave(t, c);
    return 0;
}

/* The flight recorder (ludus__session.ring_ticks): the thread's oldest
 * piece, to be written over, when it lies wholly before the window (the
 * piece after it began longer ago than the window) or, with `anyway`, when
 * the pool has no other room (its events inside the window are counted as
 * evicted in it). NULL when the thread holds no piece it may reuse (its
 * oldest is the one it is leaving). Unlinked from the front of the
 * thread's list first: a snapshot (session.c) reading the list sees the
 * piece leave before its sequence number changes and its events are
 * written over. */
static ludus__chunk *ring_reuse(ludus__thread_cold *c, uint64_t window, int anyway) {
    ludus__chunk *old = c->first_chunk;
    if (!old || old == c->chunk || old->gen != c->gen) return NULL;
    ludus__chunk *after = old->next; /* non-NULL: the current piece is after old */
    int expired = now_ticks() - LUDUS__CHUNK_EVENTS(after)[0].ticks > window;
    if (!expired && !anyway) return NULL;
    __atomic_store_n(&c->first_chunk, after, __ATOMIC_RELEASE);
    uint64_t used = __atomic_load_n(&old->used, __ATOMIC_RELAXED);
    __atomic_store_n(&c->evicted, c->evicted + used, __ATOMIC_RELAXED);
    if (!expired) __atomic_store_n(&c->evicted_in_window, c->evicted_in_window + used, __ATOMIC_RELAXED);
    return old;
}

/* Takes a new piece for `need` slots. 0 when the pool refuses. */
static int new_piece(ludus__thread_hot *t, ludus__thread_cold *c, int for_end) {
    uint64_t window = __atomic_load_n(&ludus__sess.ring_ticks, __ATOMIC_RELAXED);
    struct ludus__stream *stream = ludus__sess.stream;
    ludus__chunk *n = window ? ring_reuse(c, window, 0) : NULL;
    int reused = n != NULL;
    /* a streamed capture's piece the writer gave back: before the pool's
     * fresh part, which then lasts for when the disk falls behind */
    if (!n && stream && (n = ludus__pool_take_free()) != NULL) reused = 1;
    /* a piece an exited thread gave back (pool.c, ludus__ring_reclaim):
     * as a reused one, never the end reserve's */
    if (!n && window && (n = ludus__pool_take_free()) != NULL) reused = 1;
    /* A flight recorder's last eighth of the pool is for threads that hold
     * fewer than two pieces: one that came late still gets a window, never
     * a pool the first threads took whole. */
    const ludus__pool *p = &ludus__sess.pool;
    if (!n && window && c->first_chunk && c->chunk_seq - __atomic_load_n(&c->first_chunk->seq, __ATOMIC_RELAXED) >= 2 &&
        __atomic_load_n(&p->next, __ATOMIC_RELAXED) + c->piece_bytes > p->begin_limit - p->bytes / 8)
        reused = (n = ring_reuse(c, window, 1)) != NULL;
    if (!n && c->exhausted < (for_end ? 2u : 1u)) {
        n = ludus__pool_take(c->piece_bytes, for_end);
        if (!n) c->exhausted = for_end ? 2u : 1u;
    }
    if (!n && window) {
        /* the pool is short: the next reclaim gives back pieces of exited
         * threads inside the window too (a store, per piece) */
        __atomic_store_n(&ludus__sess.pool.wanted, 1u, __ATOMIC_RELAXED);
        reused = (n = ring_reuse(c, window, 1)) != NULL;
    }
    if (!n) return 0;
    n->thread = c->serial;
    /* a reused piece's number changes before its events do (a snapshot
     * that copied it while it changed sees it and leaves it out) */
    /* (an exchange: its acquire half keeps the writes below after it, and
     * TSan models it, where it does not model fences) */
    (void)__atomic_exchange_n(&n->seq, c->chunk_seq++, __ATOMIC_ACQ_REL);
    n->gen = c->gen;
    __atomic_store_n(&n->dropped_before, c->dropped,
                     __ATOMIC_RELAXED); /* a flight recorder's snapshot counts from it */
    __atomic_store_n(&n->used, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&n->next, NULL, __ATOMIC_RELAXED);
    n->dropped = 0;
    n->first_drop_ticks = 0;
    uintptr_t cur = slot_of(t);
    if (c->chunk && stream) { /* the full piece goes to the writer; the thread's list is its new piece */
        __atomic_store_n(&c->chunk->used, (uint64_t)((ludus__event *)cur - LUDUS__CHUNK_EVENTS(c->chunk)),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&c->first_chunk, n, __ATOMIC_RELEASE);
        ludus__sess.stream_hand(stream, c->chunk);
    } else if (c->chunk) {
        __atomic_store_n(&c->chunk->used, (uint64_t)((ludus__event *)cur - LUDUS__CHUNK_EVENTS(c->chunk)),
                         __ATOMIC_RELAXED);
        __atomic_store_n(&c->chunk->next, n, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(&c->first_chunk, n, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&c->chunk, n, __ATOMIC_RELEASE);
    if (c->piece_bytes < ludus__sess.pool.chunk_bytes) c->piece_bytes *= 2;
    uintptr_t end = (uintptr_t)LUDUS__CHUNK_END(n);
    __atomic_store_n(&t->cur, (uintptr_t)LUDUS__CHUNK_EVENTS(n) | 1u, __ATOMIC_RELAXED);
    /* a reused piece is the thread's own: it never writes in the end reserve */
    c->reserve = !reused && (uint64_t)((char *)n - ludus__sess.pool.base) + n->bytes > ludus__sess.pool.begin_limit;
    if (c->slow || c->reserve) {
        c->own_limit = end;
        __atomic_store_n(&t->limit, 0u, __ATOMIC_RELAXED);
        return 1;
    }
    c->own_limit = 0;
    /* Never leave a limit behind for a capture that has ended: the
     * controller zeroes limits after disarming; whichever store is last,
     * the limit ends up 0 (both sides are sequentially consistent). */
    __atomic_store_n(&t->limit, end, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&ludus__armed, __ATOMIC_SEQ_CST) != c->gen) /* ended, or a segment switch pauses */
        __atomic_store_n(&t->limit, 0u, __ATOMIC_RELAXED);
    return 1;
}

/* Room for `need` slots at cur, taking a new piece when needed. */
static int make_room(ludus__thread_hot *t, ludus__thread_cold *c, unsigned need, int for_end) {
    uintptr_t cur = slot_of(t);
    uintptr_t lim = (c->slow || c->reserve) ? c->own_limit : __atomic_load_n(&t->limit, __ATOMIC_RELAXED);
    if (c->chunk && cur + need * sizeof(ludus__event) <= lim) return 1;
    /* the end reserve is for ends only; a flight recorder's thread leaves it
     * by writing over its own oldest piece (new_piece) */
    if (!for_end && c->reserve && !__atomic_load_n(&ludus__sess.ring_ticks, __ATOMIC_RELAXED) && !ludus__sess.stream)
        return 0;
    if (!new_piece(t, c, for_end)) return 0;
    if (!for_end && c->reserve) return 0;
    return 1;
}

/* Writes one event of one or two slots at cur and advances it. */
static ludus__event *emit_put(ludus__thread_hot *t, uintptr_t word, unsigned nslots, uint64_t p0, uintptr_t p1) {
    ludus__event *e = (ludus__event *)slot_of(t);
    e[0].ticks = now_ticks();
    e[0].word = word;
    if (nslots == 2) {
        e[1].ticks = p0;
        e[1].word = p1;
    }
    /* release: a flight recorder's snapshot copies up to cur (session.c) */
    __atomic_store_n(&t->cur, (uintptr_t)(e + nslots) | 1u, __ATOMIC_RELEASE);
    return e;
}

uintptr_t ludus__nested_drop(unsigned n) {
    signal_drop(&ludus__cold, n);
    return 0;
}

/* A scope's begin, inside an out-of-line event (in_slow held): its token, or
 * 0 when the pool refuses (counted as two: the begin and its end). */
static uintptr_t put_begin(ludus__thread_hot *t, ludus__thread_cold *c, const ludus_site *site) {
    if (!make_room(t, c, 1, 0)) {
        drop(c, 2);
        leave(t, c);
        return 0;
    }
    ludus__event *e = emit_put(t, (uintptr_t)site | LUDUS__K_BEGIN, 1, 0, 0);
    leave(t, c);
    return (uintptr_t)e | LUDUS__K_END;
}

uintptr_t ludus__begin_slow(const ludus_site *site) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
#if !LUDUS__INLINE_CLOCK /* the inline path did not set busy */
    if (set_busy(t)) return ludus__nested_drop(2);
#endif
    if (!slow_enter(t, c, 2, 1)) return 0;
    return put_begin(t, c, site);
}

void ludus__end_slow(uintptr_t token) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
#if !LUDUS__INLINE_CLOCK
    if (set_busy(t)) {
        ludus__nested_drop(1);
        return;
    }
#endif
    if (!slow_enter(t, c, 1, 0)) return;
    if (!make_room(t, c, 1, 1)) {
        drop(c, 1);
        leave(t, c);
        return;
    }
    emit_put(t, token, 1, 0, 0); /* the token is the begin's address | LUDUS__K_END */
    leave(t, c);
}

/* One event of one or two slots; returns 0 when it was dropped or idle. */
static int emit_slots(uintptr_t word, uint64_t p0, uintptr_t p1, unsigned nslots, uint64_t *flow) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 1);
        return 0;
    }
    if (!slow_enter(t, c, 1, 1)) return 0;
    if (!make_room(t, c, nslots, 0)) {
        drop(c, 1);
        leave(t, c);
        return 0;
    }
    if (flow) p0 = *flow = ((uint64_t)c->serial << 32) | (++c->flow_seq & 0xffffffffu);
    emit_put(t, word, nslots, p0, p1);
    leave(t, c);
    return 1;
}

int ludus__emit_value(uintptr_t word, uint64_t p0, uintptr_t p1) {
    return emit_slots(word, p0, p1, 2, NULL);
}

/* An extension event (event_kinds.h): the event, its payload {value,
 * code | length << 8}, then the data in ceil(length / 16) slots
 * (zero-padded), one contiguous claim. */
int ludus__emit_ext(const ludus_site *site, unsigned code, uint64_t value, const void *data, size_t len) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (len > LUDUS__EXT_DATA_MAX) len = LUDUS__EXT_DATA_MAX;
    size_t k = LUDUS__TEXT_SLOTS(len);
    if (set_busy(t)) {
        signal_drop(c, 1);
        return 0;
    }
    if (!slow_enter(t, c, 1, 1)) return 0;
    if (!make_room(t, c, (unsigned)(2 + k), 0)) {
        drop(c, 1);
        leave(t, c);
        return 0;
    }
    ludus__event *e = (ludus__event *)slot_of(t);
    e[0].ticks = now_ticks();
    e[0].word = (uintptr_t)site | LUDUS__KIND_EXT;
    e[1].ticks = value;
    e[1].word = LUDUS__EXT_WORD(code, len);
    if (k) {
        e[1 + k].ticks = 0; /* the padding of the last data slot */
        e[1 + k].word = 0;
        memcpy(&e[2], data, len);
    }
    __atomic_store_n(&t->cur, (uintptr_t)(e + 2 + k) | 1u, __ATOMIC_RELAXED);
    leave(t, c);
    return 1;
}

/* A fiber switch: a span on the thread's track (counted as one, so the
 * reader places it) that the reader turns into the fiber's own track. An
 * enter interns the fiber's name in the running capture's table (as
 * run-time scope names are: any number of fibers per capture, bounded);
 * it returns the site its leave must name, NULL when nothing was recorded. */
const ludus_site *ludus__emit_fiber_enter(const char *name) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 1);
        return NULL;
    }
    if (!slow_enter(t, c, 1, 1)) return NULL;
    const ludus_site *site = ludus__names_intern(ludus__sess.names, name);
    if (!site) {
        __atomic_fetch_add(&ludus__sess.interner_drops, 1u, __ATOMIC_RELAXED);
        site = &names_full_site;
    }
    if (!make_room(t, c, 2, 0)) {
        drop(c, 1);
        leave(t, c);
        return NULL;
    }
    emit_put(t, (uintptr_t)site | LUDUS__KIND_FIBER, 2, 1u, 0);
    __atomic_store_n(&c->spans, c->spans + 1, __ATOMIC_RELAXED);
    leave(t, c);
    return site;
}

void ludus__emit_fiber_leave(const ludus_site *fiber) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 1);
        return;
    }
    if (!slow_enter(t, c, 1, 0)) return;
    if (!make_room(t, c, 2, 1)) {
        drop(c, 1);
        leave(t, c);
        return;
    }
    emit_put(t, (uintptr_t)fiber | LUDUS__KIND_FIBER, 2, 0u, 0);
    leave(t, c);
}

void ludus__plot_i64(const ludus_site *site, int64_t value) {
    emit_slots((uintptr_t)site | LUDUS__KIND_COUNTER, (uint64_t)value, 0, 2, NULL);
}

void ludus__plot_f64(const ludus_site *site, double value) {
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    emit_slots((uintptr_t)site | LUDUS__KIND_COUNTER_F64, bits, 0, 2, NULL);
}

void ludus__emit(const ludus_site *site, unsigned kind) {
    emit_slots((uintptr_t)site | kind, 0, 0, 1, NULL);
}

void ludus__frame(void) {
    emit_slots((uintptr_t)&ludus__frame_site | LUDUS__KIND_FRAME, 0, 0, 1, NULL);
}

/* A frame mark and the thread's CPU time at it (the FRAME_CPU extension:
 * event_kinds.h) in one claim of three slots, one timestamp: the cost of a
 * mark plus two stores (the clock read is the caller's). */
void ludus__frame_with_cpu(int64_t cpu_ns) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 1);
        return;
    }
    if (!slow_enter(t, c, 1, 1)) return;
    if (!make_room(t, c, 3, 0)) {
        drop(c, 1);
        leave(t, c);
        return;
    }
    ludus__event *e = (ludus__event *)slot_of(t);
    uint64_t now = now_ticks();
    e[0].ticks = now;
    e[0].word = (uintptr_t)&ludus__frame_site | LUDUS__KIND_FRAME;
    e[1].ticks = now;
    e[1].word = (uintptr_t)&ludus__frame_site | LUDUS__KIND_EXT; /* the mark's site: already in the table */
    e[2].ticks = (uint64_t)cpu_ns;
    e[2].word = LUDUS__EXT_WORD(LUDUS__EXT_FRAME_CPU, 0);
    /* release: a flight recorder's snapshot copies up to cur (session.c) */
    __atomic_store_n(&t->cur, (uintptr_t)(e + 3) | 1u, __ATOMIC_RELEASE);
    leave(t, c);
}

uint64_t ludus__flow_out(const char *name) {
    uint64_t id = 0;
    if (!emit_slots(LUDUS__KIND_FLOW_OUT, 0, (uintptr_t)name, 2, &id))
        return ludus__load_armed() ? FLOW_DROPPED : 0; /* its arrival is counted as lost too */
    return id;
}

void ludus__flow_in(uint64_t flow_id) {
    if (flow_id == 0) return;
    if (flow_id == FLOW_DROPPED) {
        ludus__thread_hot *t = &ludus__hot;
        ludus__thread_cold *c = &ludus__cold;
        if (set_busy(t)) {
            signal_drop(c, 1);
        } else if (slow_enter(t, c, 1, 1)) {
            drop(c, 1);
            leave(t, c);
        }
        return;
    }
    emit_slots(LUDUS__KIND_FLOW_IN, flow_id, 0, 2, NULL);
}

void ludus_flow_begin(uint32_t site_id, uint64_t flow_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (!site) site = &ludus__invalid_site;
    if (!(flow_id & LUDUS_CALLER_FLOW_ID_BIT)) return;
    emit_slots(LUDUS__KIND_FLOW_OUT, flow_id, (uintptr_t)site->name, 2, NULL);
}

void ludus_flow_end(uint64_t flow_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    if (!(flow_id & LUDUS_CALLER_FLOW_ID_BIT)) return;
    emit_slots(LUDUS__KIND_FLOW_IN, flow_id, 0, 2, NULL);
}

void ludus__rec_sample_counter(uint32_t site_id, int64_t value) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (!site) site = &ludus__invalid_site;
    emit_slots((uintptr_t)site | LUDUS__KIND_COUNTER, (uint64_t)value, 0, 2, NULL);
}

void ludus__rec_sample_counter_f64(uint32_t site_id, double value) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (!site) site = &ludus__invalid_site;
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    emit_slots((uintptr_t)site | LUDUS__KIND_COUNTER_F64, bits, 0, 2, NULL);
}

/* ---- unwinding ---- */

ludus_unwind_point ludus__rec_unwind_here(void) {
    ludus_unwind_point p = {0, 0, 0};
    uint32_t g = ludus__load_armed();
    if (g != 0 && ludus__cold.gen == ludus__armed_gen(g) && ludus__cold.chunk) {
        g = ludus__armed_gen(g);
        p.at = slot_of(&ludus__hot);
        p.gen = g;
    }
    return p;
}

void ludus__rec_unwound_to(ludus_unwind_point point) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    emit_slots(LUDUS__KIND_UNWIND, (uint64_t)point.at, (uintptr_t)point.gen, 2, NULL);
}

/* ---- spans: paired by identity; the recorder's stack says which begins
 * were recorded so a dropped begin's end is dropped as well ---- */

static int span_push(ludus__thread_cold *c, const ludus_site *site, uint32_t gen, uint32_t recorded) {
    if (c->span_depth == c->span_cap) {
        uint32_t cap = c->span_cap ? c->span_cap * 2 : 64;
        ludus__span_ent *s = ludus__realloc(c->span, cap * sizeof *s); /* deeper than 64: not signal-safe */
        if (!s) return 0;
        c->span = s;
        c->span_cap = cap;
    }
    c->span[c->span_depth++] = (ludus__span_ent){site, gen, recorded};
    return 1;
}

void ludus__span_begin(const ludus_site *site) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 2);
        return;
    }
    uint32_t gen = slow_enter(t, c, 2, 1);
    if (!gen) return;
    if (!span_push(c, site, gen, 0)) { /* no room to remember it: its end could not be paired */
        drop(c, 2);
        leave(t, c);
        return;
    }
    if (make_room(t, c, 1, 0)) {
        emit_put(t, (uintptr_t)site | LUDUS__KIND_SPAN_BEGIN, 1, 0, 0);
        c->span[c->span_depth - 1].recorded = 1;
        __atomic_store_n(&c->spans, c->spans + 1, __ATOMIC_RELAXED);
    } else {
        drop(c, 1); /* its end is counted when it comes */
    }
    leave(t, c);
}

/* Writes the end of span entry e (removed from the stack already). */
static void span_close(const ludus__span_ent *e, const ludus_site *explicit_site) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 1);
        return;
    }
    uint32_t gen = slow_enter(t, c, 1, 0);
    if (!gen) return;
    if (e && (e->gen != gen || !e->recorded)) {
        /* Begun in another capture (or outside one): not this capture's. A
         * dropped begin drops its end. */
        if (e->gen == gen)
            drop(c, 1);
        else
            c->orphan_ends++;
        leave(t, c);
        return;
    }
    if (!make_room(t, c, 1, 1)) {
        drop(c, 1);
        leave(t, c);
        return;
    }
    emit_put(t, (uintptr_t)explicit_site | LUDUS__KIND_SPAN_END, 1, 0, 0);
    leave(t, c);
}

void ludus__rec_end_site(void) {
    ludus__thread_cold *c = &ludus__cold;
    if (c->span_depth == 0) {
        if (ludus__load_armed()) span_close(NULL, &unmatched_end_site); /* nothing open: a mismatched end */
        return;
    }
    ludus__span_ent e = c->span[--c->span_depth];
    if (ludus__load_armed()) span_close(&e, NULL); /* no site: the innermost */
}

void ludus__rec_end_site_id(uint32_t site_id) {
    ludus__thread_cold *c = &ludus__cold;
    const ludus_site *site = ludus__site_by_id(site_id);
    if (!site) site = &ludus__invalid_site;
    uint32_t k = c->span_depth;
    while (k > 0 && c->span[k - 1].site != site) k--;
    if (k == 0) {
        if (ludus__load_armed()) span_close(NULL, site);
        return;
    }
    ludus__span_ent e = c->span[k - 1];
    memmove(&c->span[k - 1], &c->span[k], (c->span_depth - k) * sizeof *c->span);
    c->span_depth--;
    if (ludus__load_armed()) span_close(&e, site);
}

void ludus__rec_begin_site(uint32_t site_id) {
    if (LUDUS__LIKELY(ludus__load_armed() == 0)) return;
    const ludus_site *site = ludus__site_by_id(site_id);
    ludus__span_begin(site ? site : &ludus__invalid_site);
}

/* ---- run-time names: interned in the running capture's table ---- */

static inline uintptr_t dyn_begin(const char *name, const char *category, const ludus_site *if_full) {
    ludus__thread_hot *t = &ludus__hot;
    ludus__thread_cold *c = &ludus__cold;
    if (set_busy(t)) {
        signal_drop(c, 2);
        return 0;
    }
    if (!slow_enter(t, c, 2, 1)) return 0;
    const ludus_site *site;
    if (!name || !*name) {
        site = &ludus__empty_name_site;
    } else {
        /* The table belongs to the armed capture and cannot go away while
         * this thread is in_slow (the capture publishes this thread, late if
         * need be, before it can be freed). */
        site = ludus__names_intern_in(ludus__sess.names, name, category);
        if (!site) {
            __atomic_fetch_add(&ludus__sess.interner_drops, 1u, __ATOMIC_RELAXED);
            site = if_full ? if_full : &names_full_site;
        }
    }
    return put_begin(t, c, site);
}

uintptr_t ludus__dyn_begin(const char *name) {
    return dyn_begin(name, NULL, NULL);
}

uintptr_t ludus__dyn_begin_in(const char *name, const char *category, const ludus_site *if_full) {
    return dyn_begin(name, category, if_full);
}
