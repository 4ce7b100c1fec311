/* The pool of the running capture: one reservation, cut into pieces by a
 * bump pointer (one compare-and-swap per piece, thousands of events), never
 * grown. Begins may take pieces up to begin_limit; ends may use the rest
 * (the end reserve). Exhaustion is a counted drop in the caller. */
#include <string.h>

#include "record.h"
#include "../platform/pages.h"

/* The running session's state that the producers read: defined here, in
 * the recorder, which reads it by its name (emit.c's hot functions among
 * them); src/session/ fills it at begin and clears it in parts at end. */
ludus__session ludus__sess;

ludus__chunk *ludus__pool_take(uint32_t want, int for_end) {
    ludus__pool *p = &ludus__sess.pool;
    uint64_t lim = for_end ? p->bytes : p->begin_limit;
    uint64_t off = __atomic_load_n(&p->next, __ATOMIC_RELAXED);
    uint64_t size;
    do {
        if (off >= lim) return NULL;
        size = want;
        if (size > lim - off) { /* the last bytes: a smaller piece */
            size = (lim - off) & ~(uint64_t)63;
            if (size < LUDUS__PIECE_TAIL_MIN) return NULL;
        }
    } while (!__atomic_compare_exchange_n(&p->next, &off, off + size, 1, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    ludus__prefault *faulter = __atomic_load_n(&p->faulter, __ATOMIC_ACQUIRE);
    if (faulter) ludus__prefault_nudge(faulter, off + size); /* the cursor moved before the mark is read */
    ludus__chunk *c = (ludus__chunk *)(p->base + off);
    c->bytes = (uint32_t)size;
    return c;
}

/* ---- a flight recorder's pieces of exited threads ----
 * An exited thread's pieces stay in the session's retired list, so a
 * snapshot holds its window; once they leave the window (or the pool
 * needs them) they go on a stack any producer takes a piece from (one
 * compare-and-swap per piece, as the bump pointer). Only ludus__ring_reclaim
 * pushes, under the registry lock, and never a piece of a thread a snapshot
 * pinned (ring_snapshot.c: it copies without the lock): a piece never
 * leaves a list a snapshot is reading.
 * The tag in the head's high bits changes at every push and pop, so a pop
 * that read a piece's link before another thread took and reused it
 * fails its compare-and-swap (no ABA). A streamed capture's writer pushes
 * the pieces it wrote on the same stack (ludus__pool_give_back). */

#define FREE_IDX_BITS 41
#define FREE_IDX_MASK (((uint64_t)1 << FREE_IDX_BITS) - 1)

static uint64_t piece_index(const ludus__chunk *ch) {
    return ch ? (uint64_t)((uintptr_t)ch - (uintptr_t)ludus__sess.pool.base) / 64 + 1 : 0;
}

static ludus__chunk *piece_at(uint64_t head) {
    uint64_t idx = head & FREE_IDX_MASK;
    return idx ? (ludus__chunk *)(void *)(ludus__sess.pool.base + (idx - 1) * 64) : NULL;
}

static uint64_t next_head(uint64_t old, const ludus__chunk *ch) {
    return ((old >> FREE_IDX_BITS) + 1) << FREE_IDX_BITS | piece_index(ch);
}

static void free_push(ludus__chunk *ch) {
    ludus__pool *p = &ludus__sess.pool;
    uint64_t old = __atomic_load_n(&p->free_head, __ATOMIC_RELAXED);
    do __atomic_store_n(&ch->next, piece_at(old), __ATOMIC_RELAXED);
    while (
        !__atomic_compare_exchange_n(&p->free_head, &old, next_head(old, ch), 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* A streamed capture's writer is the one pusher then (the tag keeps the
 * producers' pops safe). */
void ludus__pool_give_back(ludus__chunk *ch) {
    if (ch) free_push(ch); /* the test also keeps gcc 12 -O3 from a false stringop-overflow */
}

ludus__chunk *ludus__pool_take_free(void) {
    ludus__pool *p = &ludus__sess.pool;
    uint64_t old = __atomic_load_n(&p->free_head, __ATOMIC_ACQUIRE);
    while (old & FREE_IDX_MASK) {
        ludus__chunk *ch = piece_at(old);
        ludus__chunk *after = __atomic_load_n(&ch->next, __ATOMIC_RELAXED);
        if (__atomic_compare_exchange_n(&p->free_head, &old, next_head(old, after), 1, __ATOMIC_ACQUIRE,
                                        __ATOMIC_ACQUIRE))
            return ch;
    }
    return NULL;
}

/* Exited threads looked at past the last one whose pieces all went: they
 * exited later, so their events are mostly younger (a reclaim costs the
 * pieces it frees and a few more, not the whole list). */
#define KEPT_LOOKED_AT 8

void ludus__ring_reclaim(void) {
    ludus__session *s = &ludus__sess;
    uint64_t now = ludus__clock_is_tsc ? ludus__read_tsc_ordered() : (uint64_t)ludus__mono_ns();
    ludus__pool *p = &s->pool;
    uint64_t window = __atomic_load_n(&s->ring_ticks, __ATOMIC_RELAXED);
    if (!window || !p->base) return;
    uint64_t from = window != UINT64_MAX && now > window ? now - window : 0;
    /* short: a thread found no piece but its own, or the fresh part is
     * nearly gone and nothing waits on the stack */
    int short_of = __atomic_load_n(&p->wanted, __ATOMIC_RELAXED) ||
                   (__atomic_load_n(&p->next, __ATOMIC_RELAXED) + p->chunk_bytes > p->begin_limit - p->bytes / 8 &&
                    !(__atomic_load_n(&p->free_head, __ATOMIC_RELAXED) & FREE_IDX_MASK));
    uint32_t freed_short = 0, kept = 0, i = s->retired_head, gone = 0;
    for (; i < s->nretired && (kept < KEPT_LOOKED_AT || short_of); i++) {
        ludus__thread_final *f = &s->retired[i];
        if (f->pins) continue; /* a snapshot copies it now: its pieces go at a later reclaim */
        while (f->first) {
            ludus__chunk *ch = f->first, *after = ch->next;
            uint64_t used = __atomic_load_n(&ch->used, __ATOMIC_RELAXED);
            /* wholly before the window: the next piece began before it, or
             * (the last piece) the thread left before it */
            int before = after ? LUDUS__CHUNK_EVENTS(after)[0].ticks < from : f->left_ticks < from;
            if (!before && !short_of) break;
            f->first = after;
            __atomic_store_n(&s->retired_evicted, s->retired_evicted + used, __ATOMIC_RELAXED);
            if (!before) {
                __atomic_store_n(&s->retired_evicted_in_window, s->retired_evicted_in_window + used, __ATOMIC_RELAXED);
                if (++freed_short >= 4) short_of = 0; /* a few pieces at a time: the next reclaim gives more */
            }
            free_push(ch);
        }
        if (f->first) {
            kept++;
            continue;
        }
        /* gone: moved to the front of the part looked at, which then leaves */
        if (i != s->retired_head + gone) {
            ludus__thread_final t = *f;
            memmove(&s->retired[s->retired_head + gone + 1], &s->retired[s->retired_head + gone],
                    (size_t)(i - s->retired_head - gone) * sizeof *f);
            s->retired[s->retired_head + gone] = t;
        }
        gone++;
    }
    s->retired_head += gone;
    if (freed_short || !short_of) __atomic_store_n(&p->wanted, 0u, __ATOMIC_RELAXED);
    if (s->retired_head > 64 && s->retired_head * 2 > s->nretired) { /* the gone part is most: compacted */
        memmove(s->retired, &s->retired[s->retired_head], (size_t)(s->nretired - s->retired_head) * sizeof *s->retired);
        s->nretired -= s->retired_head;
        s->retired_head = 0;
    }
}
