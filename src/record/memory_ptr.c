/* Memory domains by pointer: for allocator hooks whose free knows the
 * pointer and not the size (free(), Tracy's TracyFree). The size of each
 * live allocation is kept in one fixed, lock-free open-addressing table
 * keyed by its address; a free finds it there and gives the bytes back to
 * the domain (ludus_memory_free).
 *
 * A slot's key: 0 empty, 1 a tombstone (freed), 2 a slot being filled, else
 * the address. An alloc claims an empty or freed slot with a compare-and-
 * swap to 2, writes the size and the domain, then publishes the address
 * (release); a free finds the address (acquire), reads the size, and takes
 * the slot with a compare-and-swap back to a tombstone: only the free that
 * wins it gives the bytes back. Probing stops after PROBES slots: an
 * allocation that finds no room, and a free of an address the table does
 * not hold, are counted (ludus_memory_untracked) and change no domain. The
 * table is static (its pages are touched only as slots are used) and this
 * file is linked only by programs that call these hooks. */
#include <ludus/profiling.h>

#define SLOTS (1u << 18) /* 262,144 live allocations, 4 MiB of address space */
#define PROBES 64u

enum { KEY_EMPTY = 0, KEY_FREED = 1, KEY_BUSY = 2 };

typedef struct slot {
    uintptr_t key;
    uint32_t bytes_lo, bytes_hi; /* the size, written before key is published */
} slot;

static slot table[SLOTS];
static uint64_t untracked; /* atomic */

static uint32_t home(uintptr_t key) {
    uint64_t h = (uint64_t)key * UINT64_C(0x9E3779B97F4A7C15);
    return (uint32_t)(h >> 46); /* top 18 bits */
}

void ludus_memory_alloc_ptr(ludus_memory_domain domain, const void *ptr, uint64_t bytes) {
    uintptr_t key = (uintptr_t)ptr;
    if (key <= KEY_BUSY || domain == 0) return;
    uint32_t h = home(key);
    for (uint32_t i = 0; i < PROBES; i++) {
        slot *s = &table[(h + i) & (SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
        if (k != KEY_EMPTY && k != KEY_FREED) continue;
        if (!__atomic_compare_exchange_n(&s->key, &k, (uintptr_t)KEY_BUSY, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
            continue;
        __atomic_store_n(&s->bytes_lo, (uint32_t)bytes, __ATOMIC_RELAXED);
        __atomic_store_n(&s->bytes_hi, (uint32_t)(bytes >> 32), __ATOMIC_RELAXED);
        __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
        ludus_memory_alloc(domain, bytes);
        return;
    }
    __atomic_fetch_add(&untracked, 1u, __ATOMIC_RELAXED);
}

void ludus_memory_free_ptr(ludus_memory_domain domain, const void *ptr) {
    uintptr_t key = (uintptr_t)ptr;
    if (key <= KEY_BUSY || domain == 0) return; /* free(NULL) */
    uint32_t h = home(key);
    for (uint32_t i = 0; i < PROBES; i++) {
        slot *s = &table[(h + i) & (SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == KEY_EMPTY) break; /* never used: the address is not past it */
        if (k != key) continue;
        uint64_t bytes = (uint64_t)__atomic_load_n(&s->bytes_lo, __ATOMIC_RELAXED) |
                         (uint64_t)__atomic_load_n(&s->bytes_hi, __ATOMIC_RELAXED) << 32;
        if (!__atomic_compare_exchange_n(&s->key, &k, (uintptr_t)KEY_FREED, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            break; /* another free of the same address won it */
        ludus_memory_free(domain, bytes);
        return;
    }
    __atomic_fetch_add(&untracked, 1u, __ATOMIC_RELAXED);
}

uint64_t ludus_memory_untracked(void) {
    return __atomic_load_n(&untracked, __ATOMIC_RELAXED);
}
