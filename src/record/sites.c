/* Run-time sites: a bounded table of descriptors for names known only at run
 * time (ludus_register_site, ludus_intern_name, LUDUS_PROFILE_SCOPE_DYN).
 * Lookups of a known name are lock-free (open addressing, acquire loads);
 * insertion takes a mutex. A full table refuses with a counted drop. */
#include <stdlib.h>
#include <string.h>

#include "record.h"

#define MAX_SITES 4096
#define HASH_SLOTS 8192 /* power of two, 2x MAX_SITES */
#define ARENA_BYTES (256 * 1024)

static ludus_site sites[MAX_SITES];
static uint32_t site_count;            /* atomic; published after the entry is written */
static uint32_t hash_slot[HASH_SLOTS]; /* site id (index + 1), 0 = empty */
static uint32_t hash_key[HASH_SLOTS];
static char arena[ARENA_BYTES];
static size_t arena_used;
static uint32_t drops; /* atomic */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t fnv1a(uint32_t h, const char *s) {
    if (s)
        for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return (h ^ 0xffu) * 16777619u; /* field separator */
}

static uint32_t desc_hash(const ludus_site_desc *d) {
    uint32_t h = 2166136261u;
    h = fnv1a(h, d->name);
    h = fnv1a(h, d->category);
    h = fnv1a(h, d->file);
    return (h ^ d->line) * 16777619u;
}

static int str_eq(const char *a, const char *b) {
    if (!a || !b) return (!a || !*a) && (!b || !*b);
    return strcmp(a, b) == 0;
}

static int same(const ludus_site *s, const ludus_site_desc *d) {
    return str_eq(s->name, d->name) && str_eq(s->category, d->category) && str_eq(s->file, d->file) &&
           s->line == d->line;
}

static const char *copy_str(const char *s) {
    if (!s || !*s) return NULL;
    size_t n = strlen(s) + 1;
    if (arena_used + n > ARENA_BYTES) return (const char *)-1;
    char *p = arena + arena_used;
    memcpy(p, s, n);
    arena_used += n;
    return p;
}

static uint32_t lookup(const ludus_site_desc *d, uint32_t h) {
    for (uint32_t i = h & (HASH_SLOTS - 1);; i = (i + 1) & (HASH_SLOTS - 1)) {
        uint32_t id = __atomic_load_n(&hash_slot[i], __ATOMIC_ACQUIRE);
        if (id == 0) return 0;
        if (hash_key[i] == h && same(&sites[id - 1], d)) return id;
    }
}

uint32_t ludus_register_site(const ludus_site_desc *d) {
    if (!d || !d->name || !*d->name) return 0;
    uint32_t h = desc_hash(d);
    uint32_t id = lookup(d, h);
    if (id) return id;
    pthread_mutex_lock(&lock);
    id = lookup(d, h);
    if (!id) {
        uint32_t n = site_count;
        const char *name = NULL, *cat = NULL, *file = NULL;
        if (n < MAX_SITES) {
            size_t mark = arena_used;
            name = copy_str(d->name);
            cat = copy_str(d->category);
            file = copy_str(d->file);
            if (name == (const char *)-1 || cat == (const char *)-1 || file == (const char *)-1) {
                arena_used = mark;
                n = MAX_SITES;
            }
        }
        if (n >= MAX_SITES) {
            __atomic_fetch_add(&drops, 1u, __ATOMIC_RELAXED);
            pthread_mutex_unlock(&lock);
            return 0;
        }
        ludus_site *s = &sites[n];
        s->name = name;
        s->function = "";
        s->file = file ? file : "";
        s->category = cat;
        s->line = d->line;
        s->flags = LUDUS_SITE_DYNAMIC;
        id = n + 1;
        __atomic_store_n(&site_count, n + 1, __ATOMIC_RELEASE);
        uint32_t i = h & (HASH_SLOTS - 1);
        while (hash_slot[i]) i = (i + 1) & (HASH_SLOTS - 1);
        hash_key[i] = h;
        __atomic_store_n(&hash_slot[i], id, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&lock);
    return id;
}

uint32_t ludus_intern_name(const char *name) {
    ludus_site_desc d = {name, NULL, NULL, 0};
    return ludus_register_site(&d);
}

const ludus_site *ludus__site_by_id(uint32_t id) {
    if (id == 0 || id > __atomic_load_n(&site_count, __ATOMIC_ACQUIRE)) return NULL;
    return &sites[id - 1];
}

uint32_t ludus__interner_drops(void) {
    return __atomic_load_n(&drops, __ATOMIC_RELAXED);
}
