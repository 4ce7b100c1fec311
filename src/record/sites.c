/* Run-time sites. Registered sites (ludus_site_register, ludus_site_intern)
 * live for the process, because callers keep their ids: a table of blocks
 * allocated as it grows, up to 65,536 sites. Names met by
 * LUDUS_PROFILE_SCOPE_DYN, fibers and named locks' waits are interned per
 * capture instead (a name table owned by the capture whose events point at
 * it), so every capture can intern up to its own bound. Lookups of a known name are lock-free (open
 * addressing, acquire loads); insertion takes a mutex. A full table refuses,
 * and the refusal is counted in the running capture. */
#include <stdlib.h>
#include <string.h>

#include "../base/arena.h"
#include "../base/hash.h"
#include "record.h"

/* ---- strings ---- */

/* A string field of a key: its bytes, then a separator. */
static uint32_t fnv_field(uint32_t h, const char *s) {
    if (s) h = ludus__fnv1a(h, s, strlen(s));
    return (h ^ 0xffu) * 16777619u;
}

static int str_eq(const char *a, const char *b) {
    if (!a || !b) return (!a || !*a) && (!b || !*b);
    return strcmp(a, b) == 0;
}

/* A copy in the arena; NULL for an empty string, ARENA_FULL when it does
 * not fit. */
#define ARENA_FULL ((const char *)-1)
static const char *arena_copy(ludus__arena *a, const char *s) {
    if (!s || !*s) return NULL;
    const char *p = ludus__arena_strndup(a, s, strlen(s));
    return p ? p : ARENA_FULL;
}

static void count_refusal(void) {
    if (ludus__load_armed()) __atomic_fetch_add(&ludus__sess.interner_drops, 1u, __ATOMIC_RELAXED);
}

/* ---- registered sites: for the process's lifetime ---- */

#define REG_BLOCK 1024u
#define REG_BLOCKS 64u
#define REG_MAX (REG_BLOCK * REG_BLOCKS)
#define REG_SLOTS (2u * REG_MAX) /* power of two */

/* The process's site registry: zero-initialised (in .bss, not 1 MiB of
 * .data), the string arena's limit is set at the first registration. */
#define REG_STRINGS_LIMIT ((size_t)64 << 20)
static struct {
    ludus_site *block[REG_BLOCKS];
    uint32_t count;           /* atomic; published after the entry is written */
    uint32_t slot[REG_SLOTS]; /* id (index + 1), 0 = empty */
    uint32_t key[REG_SLOTS];
    ludus__arena strings;
    ludus__mutex lock;
} sites_state = {.lock = LUDUS__MUTEX_INIT};

static uint32_t desc_hash(const ludus_site_desc *d) {
    uint32_t h = LUDUS__FNV_BASIS;
    h = fnv_field(h, d->name);
    h = fnv_field(h, d->category);
    h = fnv_field(h, d->file);
    return (h ^ d->line) * 16777619u;
}

static ludus_site *reg_site(uint32_t index) {
    return &sites_state.block[index / REG_BLOCK][index % REG_BLOCK];
}

static int same(const ludus_site *s, const ludus_site_desc *d) {
    return str_eq(s->name, d->name) && str_eq(s->category, d->category) &&
           str_eq(s->file[0] ? s->file : NULL, d->file) && s->line == d->line;
}

static uint32_t reg_lookup(const ludus_site_desc *d, uint32_t h) {
    for (uint32_t i = h & (REG_SLOTS - 1);; i = (i + 1) & (REG_SLOTS - 1)) {
        uint32_t id = __atomic_load_n(&sites_state.slot[i], __ATOMIC_ACQUIRE);
        if (id == 0) return 0;
        if (sites_state.key[i] == h && same(reg_site(id - 1), d)) return id;
    }
}

uint32_t ludus_site_register(const ludus_site_desc *d) {
    if (!d || !d->name || !*d->name) {
        count_refusal();
        return 0;
    }
    uint32_t h = desc_hash(d);
    uint32_t id = reg_lookup(d, h);
    if (id) return id;
    ludus__lib_enter();
    ludus__mutex_lock(&sites_state.lock);
    id = reg_lookup(d, h);
    if (!id) {
        uint32_t n = sites_state.count;
        int ok = n < REG_MAX;
        if (ok && !sites_state.block[n / REG_BLOCK]) {
            sites_state.block[n / REG_BLOCK] = ludus__calloc(REG_BLOCK, sizeof(ludus_site));
            ok = sites_state.block[n / REG_BLOCK] != NULL;
        }
        const char *name = NULL, *cat = NULL, *file = NULL;
        if (ok) {
            sites_state.strings.limit = REG_STRINGS_LIMIT;
            name = arena_copy(&sites_state.strings, d->name);
            cat = arena_copy(&sites_state.strings, d->category);
            file = arena_copy(&sites_state.strings, d->file);
            ok = name != ARENA_FULL && cat != ARENA_FULL && file != ARENA_FULL;
        }
        if (!ok) {
            ludus__mutex_unlock(&sites_state.lock);
            ludus__lib_leave();
            count_refusal();
            return 0;
        }
        ludus_site *s = reg_site(n);
        s->name = name;
        s->function = "";
        s->file = file ? file : "";
        s->category = cat;
        s->line = d->line;
        s->flags = LUDUS_SITE_DYNAMIC | LUDUS_SITE_TEXT;
        id = n + 1;
        __atomic_store_n(&sites_state.count, n + 1, __ATOMIC_RELEASE);
        uint32_t i = h & (REG_SLOTS - 1);
        while (sites_state.slot[i]) i = (i + 1) & (REG_SLOTS - 1);
        sites_state.key[i] = h;
        __atomic_store_n(&sites_state.slot[i], id, __ATOMIC_RELEASE);
    }
    ludus__mutex_unlock(&sites_state.lock);
    ludus__lib_leave();
    return id;
}

void ludus__sites_fork_lock(void) {
    ludus__mutex_lock(&sites_state.lock);
}
void ludus__sites_fork_unlock(void) {
    ludus__mutex_unlock(&sites_state.lock);
}
void ludus__sites_fork_reset(void) {
    ludus__mutex_init(&sites_state.lock);
}

uint32_t ludus_site_intern(const char *name) {
    ludus_site_desc d = {name, NULL, NULL, 0};
    return ludus_site_register(&d);
}

const ludus_site *ludus__site_by_id(uint32_t id) {
    if (id == 0 || id > __atomic_load_n(&sites_state.count, __ATOMIC_ACQUIRE)) return NULL;
    return reg_site(id - 1);
}

/* ---- run-time names of one capture ---- */

#define NAMES_MAX 16384u
#define NAMES_SLOTS (2u * NAMES_MAX)
#define NAMES_TEXT ((size_t)4 << 20)

struct ludus__name_table {
    ludus__mutex lock;
    uint32_t refs;    /* atomic */
    uint32_t count;   /* atomic */
    ludus_site *site; /* NAMES_MAX entries; allocated at the first name */
    uint32_t *slot;   /* NAMES_SLOTS: index + 1 */
    uint32_t *key;
    ludus__arena text;
};

ludus__name_table *ludus__names_create(void) {
    ludus__name_table *t = ludus__calloc(1, sizeof *t);
    if (!t) return NULL;
    ludus__mutex_init(&t->lock);
    t->refs = 1;
    t->text.limit = NAMES_TEXT;
    return t;
}

void ludus__names_retain(ludus__name_table *t) {
    if (t) __atomic_add_fetch(&t->refs, 1u, __ATOMIC_RELAXED);
}

int ludus__names_contains(const ludus__name_table *t, const void *p) {
    const ludus_site *s = p;
    return t && t->site && s >= t->site && s < t->site + NAMES_MAX;
}

void ludus__names_fork_lock(ludus__name_table *t) {
    if (t) ludus__mutex_lock(&t->lock);
}
void ludus__names_fork_unlock(ludus__name_table *t) {
    if (t) ludus__mutex_unlock(&t->lock);
}
void ludus__names_fork_reset(ludus__name_table *t) {
    if (t) ludus__mutex_init(&t->lock);
}

void ludus__names_destroy(ludus__name_table *t) {
    if (!t || __atomic_sub_fetch(&t->refs, 1u, __ATOMIC_ACQ_REL) != 0) return;
    ludus__arena_free(&t->text);
    ludus__free(t->site);
    ludus__free(t->slot);
    ludus__free(t->key);
    ludus__mutex_destroy(&t->lock);
    ludus__free(t);
}

static const ludus_site *names_lookup(const ludus__name_table *t, const char *name, const char *category, uint32_t h) {
    uint32_t *slot = __atomic_load_n(&t->slot, __ATOMIC_ACQUIRE);
    if (!slot) return NULL;
    for (uint32_t i = h & (NAMES_SLOTS - 1);; i = (i + 1) & (NAMES_SLOTS - 1)) {
        uint32_t id = __atomic_load_n(&slot[i], __ATOMIC_ACQUIRE);
        if (id == 0) return NULL;
        const ludus_site *s = &t->site[id - 1];
        if (t->key[i] == h && strcmp(s->name, name) == 0 && s->category == category) return s;
    }
}

const ludus_site *ludus__names_intern(ludus__name_table *t, const char *name) {
    return ludus__names_intern_in(t, name, NULL);
}

const ludus_site *ludus__names_intern_in(ludus__name_table *t, const char *name, const char *category) {
    if (!t) return NULL;
    uint32_t h = fnv_field(fnv_field(LUDUS__FNV_BASIS, name), category);
    const ludus_site *s = names_lookup(t, name, category, h);
    if (s) return s;
    ludus__mutex_lock(&t->lock);
    s = names_lookup(t, name, category, h);
    if (!s) {
        if (!t->slot) {
            t->site = ludus__calloc(NAMES_MAX, sizeof *t->site);
            t->key = ludus__calloc(NAMES_SLOTS, sizeof *t->key);
            uint32_t *slot = ludus__calloc(NAMES_SLOTS, sizeof *slot);
            if (!t->site || !t->key || !slot) { /* all or none: the next name tries again, leaking nothing */
                ludus__free(slot);
                ludus__free(t->site);
                ludus__free(t->key);
                t->site = NULL;
                t->key = NULL;
                ludus__mutex_unlock(&t->lock);
                return NULL;
            }
            __atomic_store_n(&t->slot, slot, __ATOMIC_RELEASE);
        }
        const char *copy = t->count < NAMES_MAX ? arena_copy(&t->text, name) : ARENA_FULL;
        if (copy != ARENA_FULL) {
            uint32_t n = t->count;
            ludus_site *d = &t->site[n];
            d->name = copy;
            d->function = "";
            d->file = "";
            d->category = category;
            d->line = 0;
            d->flags = LUDUS_SITE_DYNAMIC | LUDUS_SITE_TEXT;
            __atomic_store_n(&t->count, n + 1, __ATOMIC_RELEASE);
            uint32_t i = h & (NAMES_SLOTS - 1);
            while (t->slot[i]) i = (i + 1) & (NAMES_SLOTS - 1);
            t->key[i] = h;
            __atomic_store_n(&t->slot[i], n + 1, __ATOMIC_RELEASE);
            s = d;
        }
    }
    ludus__mutex_unlock(&t->lock);
    return s;
}
