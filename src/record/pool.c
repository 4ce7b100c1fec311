/* The chunk pool of the active capture: one reservation made at capture start,
 * handed out chunk by chunk with one relaxed fetch-add per chunk (thousands of
 * events), never grown. Exhaustion is a counted drop in the caller. */
#include "record.h"

ludus__pool ludus__the_pool;

ludus__event *ludus__chunk_end(const ludus__chunk *c) {
    return (ludus__event *)((char *)c + ludus__the_pool.chunk_bytes);
}

ludus__chunk *ludus__pool_take(void) {
    ludus__pool *p = &ludus__the_pool;
    /* Check first so that a drained pool's counter stops moving: it can
     * never wrap around and hand out a chunk twice. */
    if (__atomic_load_n(&p->next, __ATOMIC_RELAXED) >= p->count) return NULL;
    uint32_t i = __atomic_fetch_add(&p->next, 1u, __ATOMIC_RELAXED);
    if (i >= p->count) return NULL;
    return (ludus__chunk *)(p->base + (size_t)i * p->chunk_bytes);
}
