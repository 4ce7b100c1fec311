/* Lock waits: the names of locks, by address, and the begin of a wait.
 *
 * The wrappers of <ludus/locks.h> are inline: they try the lock and, only
 * when it was taken and a capture runs, come here to open the wait's scope
 * (the library makes no pthread call). A named lock's name lives in a fixed
 * table, found by the lock's address: 1024 slots, open addressing, keys
 * written with compare-and-swap, the name held in the slot under a sequence
 * count (no lock, no allocation to read it, nothing to repair after fork;
 * words stored with release and loaded with acquire, so no fence).
 * A wait copies the name and opens a scope of category "lock" interned in
 * the running capture's name table, as run-time scope names are: names
 * belong to the capture whose events point at them, so naming and
 * forgetting any number of distinct locks fills nothing for good (the old
 * design registered a process-wide site per name, and 65,536 distinct names
 * filled the site table for the process). ludus_lock_forget leaves a
 * tombstone that a later name may take. */
#include <ludus/capture.h>
#include <ludus/locks.h>
#include <string.h>

#include "record.h"

#define LOCK_SLOTS 1024u /* power of two */
#define EMPTY ((uintptr_t)0)
#define TOMB (~(uintptr_t)0) /* a forgotten lock: lookups go on past it */
#define NAME_WORDS 15u       /* a name of up to 119 bytes (and its NUL) */
#define NAME_MAX_BYTES (NAME_WORDS * 8u - 1u)

typedef struct lock_slot {
    uintptr_t key;             /* the lock's address; EMPTY, TOMB (atomic) */
    uint32_t seq;              /* odd while the name is written (atomic) */
    uint32_t len;              /* of the name (atomic) */
    uint64_t name[NAME_WORDS]; /* written and read a word at a time (atomic, relaxed) */
} lock_slot;

static struct {
    lock_slot table[LOCK_SLOTS];
    uint64_t refused; /* atomic */
} locks_state;
/* The category of every named lock's wait, one address: the name tables
 * compare categories by address. */
static const char lock_category[] = LUDUS_LOCK_CATEGORY;

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
    __atomic_fetch_add(&locks_state.refused, 1u, __ATOMIC_RELAXED);
    if (ludus__load_armed()) __atomic_fetch_add(&ludus__sess.interner_drops, 1u, __ATOMIC_RELAXED);
}

/* The slot holding key, or NULL. */
static lock_slot *find(uintptr_t k) {
    uint32_t i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&locks_state.table[i].key, __ATOMIC_ACQUIRE);
        if (key == EMPTY) return NULL;
        if (key == k) return &locks_state.table[i];
    }
    return NULL;
}

/* Writes the name into a slot this thread holds the key of; two threads
 * naming one lock at once take turns on the sequence count (the last
 * name wins). */
static void put_name(lock_slot *s, const char *name) {
    uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
    while (seq & 1u || !__atomic_compare_exchange_n(&s->seq, &seq, seq + 1u, 1, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        seq = __atomic_load_n(&s->seq, __ATOMIC_RELAXED);
    size_t n = strlen(name);
    if (n > NAME_MAX_BYTES) { /* cut on a character's first byte */
        n = NAME_MAX_BYTES;
        while (n > 0 && ((unsigned char)name[n] & 0xc0u) == 0x80u) n--;
    }
    uint64_t w[NAME_WORDS];
    memset(w, 0, sizeof w);
    memcpy(w, name, n);
    /* release: the odd count (and each word before) is seen before a word */
    for (uint32_t i = 0; i < NAME_WORDS; i++) __atomic_store_n(&s->name[i], w[i], __ATOMIC_RELEASE);
    __atomic_store_n(&s->len, (uint32_t)n, __ATOMIC_RELAXED);
    __atomic_store_n(&s->seq, seq + 2u, __ATOMIC_RELEASE);
}

/* Copies the name of lock k into out (NAME_MAX_BYTES + 1 bytes): 1, or 0
 * when it has none (or it kept changing while read). Lock-free. */
static int read_name(uintptr_t k, char *out) {
    for (int tries = 0; tries < 8; tries++) {
        lock_slot *s = find(k);
        if (!s) return 0;
        uint32_t seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
        if (seq & 1u) continue;
        /* acquire: the count read again below comes after every word (no
         * fence: ThreadSanitizer models none); only the words the name takes */
        uint32_t len = __atomic_load_n(&s->len, __ATOMIC_ACQUIRE);
        if (len > NAME_MAX_BYTES || len == 0) continue;
        uint64_t w[NAME_WORDS];
        for (uint32_t i = 0; i < (len + 7u) / 8u; i++) w[i] = __atomic_load_n(&s->name[i], __ATOMIC_ACQUIRE);
        /* still this lock's slot, and no name written meanwhile */
        if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq || __atomic_load_n(&s->key, __ATOMIC_RELAXED) != k)
            continue;
        memcpy(out, w, len);
        out[len] = 0;
        return 1;
    }
    return 0;
}

/* ludus_lock_site's answer: a copy of the name, the calling thread's until
 * its next call */
static __thread struct {
    char name[NAME_MAX_BYTES + 1];
    ludus_site site;
} locks_thread;

const ludus_site *ludus_lock_site(const void *lock) {
    uintptr_t k = (uintptr_t)lock;
    if (k == EMPTY || k == TOMB || !read_name(k, locks_thread.name)) return NULL;
    locks_thread.site =
        (ludus_site){locks_thread.name, "", "", LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT | LUDUS_SITE_DYNAMIC};
    return &locks_thread.site;
}

int ludus_lock_name(const void *lock, const char *name) {
    uintptr_t k = (uintptr_t)lock;
    if (k == EMPTY || k == TOMB || !name || !*name) return LUDUS_EINVAL;
    /* Named already: rename. */
    lock_slot *s = find(k);
    if (s) {
        put_name(s, name);
        return 0;
    }
    /* The first free slot (empty or forgotten) on the lock's probe path. */
    uint32_t i = first_slot(k);
    for (uint32_t n = 0; n < LOCK_SLOTS; n++, i = NEXT(i)) {
        uintptr_t key = __atomic_load_n(&locks_state.table[i].key, __ATOMIC_ACQUIRE);
        while (key == EMPTY || key == TOMB) {
            if (__atomic_compare_exchange_n(&locks_state.table[i].key, &key, k, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                put_name(&locks_state.table[i], name);
                return 0;
            }
        }
        if (key == k) { /* named at the same moment by another thread: the last name wins */
            put_name(&locks_state.table[i], name);
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
        uintptr_t key = __atomic_load_n(&locks_state.table[i].key, __ATOMIC_ACQUIRE);
        if (key == EMPTY) break;
        if (key != k) continue;
        /* a reader that read the name before this sees the key change */
        if (__atomic_compare_exchange_n(&locks_state.table[i].key, &key, TOMB, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            found = 1;
    }
    return found ? 0 : LUDUS_ENODATA;
}

uint64_t ludus_lock_names_refused(void) {
    return __atomic_load_n(&locks_state.refused, __ATOMIC_RELAXED);
}

uintptr_t ludus__lock_wait_begin(const void *lock, const ludus_site *site, unsigned kind) {
    char name[NAME_MAX_BYTES + 1];
    uintptr_t k = (uintptr_t)lock;
    const ludus_site *unnamed = site ? site : &default_site[kind & 3u];
    /* the capture's name table full: the wait under the call site (counted) */
    if (k != EMPTY && k != TOMB && read_name(k, name)) return ludus__dyn_begin_in(name, lock_category, unnamed);
    return ludus__scope_begin(unnamed);
}
