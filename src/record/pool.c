/* The pool of the running capture: one reservation, cut into pieces by a
 * bump pointer (one compare-and-swap per piece, thousands of events), never
 * grown. Begins may take pieces up to begin_limit; ends may use the rest
 * (the end reserve). Exhaustion is a counted drop in the caller. */
#include "record.h"
#include "../platform/pages.h"

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
