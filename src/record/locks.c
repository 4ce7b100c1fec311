/* Lock waits: the names of locks, by address, and the begin of a wait.
 *
 * The wrappers of <ludus/locks.h> are inline: they try the lock and, only
 * when it was taken and a capture runs, come here to open the wait's scope
 * (the library makes no pthread call). A named lock's waits go to one
 * registered site of category "lock" (ludus_site_register: same name, same
 * site), found by the lock's address in a fixed table: 1024 slots, open
 * addressing, keys written with compare-and-swap and lookups made of
 * acquire loads only (no lock, no allocation on the wait path, nothing to
 * repair after fork). ludus_lock_forget leaves a tombstone that a later
 * name may take. A lookup reads the key, the site and the key again, so a
 * slot taken over by another lock between two reads is never believed. */
#include <ludus/capture.h>
#include <ludus/locks.h>

#include "record.h"

#define LOCK_SLOTS 1024u /* power of two */
#define EMPTY ((uintptr_t)0)
#define TOMB (~(uintptr_t)0) /* a forgotten lock: lookups go on past it */

typedef struct lock_slot {
    uintptr_t key;          /* the lock's address; EMPTY, TOMB */
    const ludus_site *site; /* NULL while being named or forgotten */
} lock_slot;

static lock_slot lock_table[LOCK_SLOTS];
static uint64_t lock_refused; /* atomic */

/* Unnamed waits: the call site's descriptor, else one of these (a file
 * that says so: the report tells them from named locks by their file). */
#define NO_SITE "(no call site)"
static const ludus_site default_site[4] = {
    {"lock", "", NO_SITE, LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
    {"mutex", "", NO_SITE, LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
    {"rwlock read", "", NO_SITE, LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
    {"rwlock write", "", NO_SITE, LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
};

static uint32_t first_slot(uintptr_t key) {
    uint64_t x = (uint64_t)key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 54); /* the top 10 bits: 0..1023 */
}
#define NEXT(i) (((i) + 1u) & (LOCK_SLOTS - 1u))

static void refuse(void) {
    __atomic_fetch_add(&lock_refused, 1u, __ATOMIC_RELAXED);
    if (ludus__load_armed()) __atomic_fetch_add(&ludus__sess.interner_drops, 1u, __ATOMIC_RELAXED);
}

const ludus_site *ludus_lock_site(const void *lock) {
    uintptr_t k = (uintptr_t)lock;
    if (k == EMPTY || k == TOMB) return NULL;
    uint32_t i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&lock_table[i].key, __ATOMIC_ACQUIRE);
        if (key == EMPTY) return NULL;
        if (key != k) continue;
        const ludus_site *s = __atomic_load_n(&lock_table[i].site, __ATOMIC_ACQUIRE);
        /* still this lock's slot: a site stored for another key after
         * takeover is published after that key */
        if (__atomic_load_n(&lock_table[i].key, __ATOMIC_ACQUIRE) != k) return NULL;
        return s;
    }
    return NULL;
}

int ludus_lock_name(const void *lock, const char *name) {
    uintptr_t k = (uintptr_t)lock;
    if (k == EMPTY || k == TOMB || !name || !*name) return LUDUS_EINVAL;
    ludus_site_desc d = {name, LUDUS_LOCK_CATEGORY, NULL, 0};
    uint32_t id = ludus_site_register(&d); /* counts its own refusal */
    const ludus_site *s = id ? ludus__site_by_id(id) : NULL;
    if (!s) {
        __atomic_fetch_add(&lock_refused, 1u, __ATOMIC_RELAXED);
        return LUDUS_ENOMEM;
    }
    /* Named already: rename. */
    uint32_t i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&lock_table[i].key, __ATOMIC_ACQUIRE);
        if (key == EMPTY) break;
        if (key == k) {
            __atomic_store_n(&lock_table[i].site, s, __ATOMIC_RELEASE);
            return 0;
        }
    }
    /* The first free slot (empty or forgotten) on the lock's probe path. */
    i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&lock_table[i].key, __ATOMIC_ACQUIRE);
        while (key == EMPTY || key == TOMB) {
            if (__atomic_compare_exchange_n(&lock_table[i].key, &key, k, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&lock_table[i].site, s, __ATOMIC_RELEASE);
                return 0;
            }
        }
        if (key == k) { /* named at the same moment by another thread: the last store wins */
            __atomic_store_n(&lock_table[i].site, s, __ATOMIC_RELEASE);
            return 0;
        }
    }
    refuse();
    return LUDUS_ENOMEM;
}

int ludus_lock_forget(const void *lock) {
    uintptr_t k = (uintptr_t)lock;
    if (k == EMPTY || k == TOMB) return LUDUS_EINVAL;
    int found = 0;
    uint32_t i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&lock_table[i].key, __ATOMIC_ACQUIRE);
        if (key == EMPTY) break;
        if (key != k) continue;
        /* the site first: a lookup that still reads the key finds no site */
        __atomic_store_n(&lock_table[i].site, NULL, __ATOMIC_RELEASE);
        if (__atomic_compare_exchange_n(&lock_table[i].key, &key, TOMB, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            found = 1;
    }
    return found ? 0 : LUDUS_ENODATA;
}

uint64_t ludus_lock_names_refused(void) {
    return __atomic_load_n(&lock_refused, __ATOMIC_RELAXED);
}

uintptr_t ludus__lock_wait_begin(const void *lock, const ludus_site *site, unsigned kind) {
    const ludus_site *s = ludus_lock_site(lock);
    if (!s) s = site ? site : &default_site[kind & 3u];
    return ludus__scope_begin(s);
}
