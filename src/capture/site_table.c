/* The site table of a capture: every site its events name, with display
 * text (a C literal's escapes resolved, valid UTF-8, at most 4096 bytes cut
 * at a character boundary), the stable id and whether its category is
 * enabled. In-memory captures build it from their events on first use, in
 * memory bounded by the number of sites; capture files bring their own. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/hash.h"
#include "capture_build.h"
#include "nev.h"
#include "../base/text.h"

#define MAX_TEXT 4096u

static uint32_t hash_key(uintptr_t k) {
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

uint32_t ludus__site_index(const ludus_capture *c, uintptr_t key) {
    if (c->site_hash_cap == 0) return UINT32_MAX;
    uint32_t mask = c->site_hash_cap - 1;
    for (uint32_t i = hash_key(key) & mask;; i = (i + 1) & mask) {
        uint32_t v = c->site_hash[i];
        if (v == 0) return UINT32_MAX;
        if (c->sites[v - 1].key == key) return v - 1;
    }
}

uint32_t ludus__site_id(const char *name, size_t name_len, const char *file, uint32_t line) {
    uint32_t h = ludus__fnv1a(LUDUS__FNV_BASIS, name, name_len);
    h = ludus__fnv1a(h, "\0", 1);
    h = ludus__fnv1a(h, file, strlen(file));
    char ln[16];
    int n = snprintf(ln, sizeof ln, ":%u", line);
    return ludus__fnv1a(h, ln, (size_t)n);
}

static int grow(ludus_capture *c) {
    if ((c->nsites + 1) * 2 <= c->site_hash_cap) return 0;
    uint32_t cap = c->site_hash_cap ? c->site_hash_cap * 2 : 256;
    uint32_t *h = ludus__calloc(cap, sizeof *h);
    ludus__site_info *s = ludus__realloc(c->sites, (cap / 2) * sizeof *s);
    if (!h || !s) {
        ludus__free(h);
        if (s) c->sites = s;
        return -1;
    }
    c->sites = s;
    ludus__free(c->site_hash);
    c->site_hash = h;
    c->site_hash_cap = cap;
    for (uint32_t i = 0; i < c->nsites; i++) {
        uint32_t j = hash_key(c->sites[i].key) & (cap - 1);
        while (h[j]) j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    return 0;
}

static void link_site(ludus_capture *c, uintptr_t key) {
    uint32_t mask = c->site_hash_cap - 1;
    uint32_t j = hash_key(key) & mask;
    while (c->site_hash[j]) j = (j + 1) & mask;
    c->site_hash[j] = ++c->nsites;
}

int ludus__site_insert(ludus_capture *c, const ludus__site_info *si) {
    if (ludus__site_index(c, si->key) != UINT32_MAX) return LUDUS_EFORMAT;
    if (grow(c) != 0) return LUDUS_ENOMEM;
    c->sites[c->nsites] = *si;
    link_site(c, si->key);
    return 0;
}

static int category_enabled(const char *list, const char *cat, size_t n) {
    if (!list || !cat) return 1;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        while (len && *p == ' ') p++, len--;
        while (len && p[len - 1] == ' ') len--;
        if (len == n && memcmp(p, cat, n) == 0) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

/* Display text of s (a stringized token or literal unless plain): copied
 * into the capture's arena, valid UTF-8. NULL when out of memory. */
static const char *display(ludus_capture *c, const char *s, int plain, size_t *len) {
    size_t n = strlen(s);
    char stack[512];
    char *tmp = n <= sizeof stack ? stack : ludus__malloc(n ? n : 1);
    if (!tmp) return NULL;
    size_t m = plain ? (memcpy(tmp, s, n), n) : ludus__c_literal_text(s, n, tmp);
    size_t cap = m * 3 < MAX_TEXT ? m * 3 : MAX_TEXT; /* every byte may become U+FFFD */
    char *out = ludus__arena_alloc(&c->site_text, cap + 1);
    if (out) {
        *len = ludus__utf8_clean(tmp, m, out, cap);
        out[*len] = 0;
    }
    if (tmp != stack) ludus__free(tmp);
    return out;
}

int ludus__site_add_described(ludus_capture *c, uintptr_t key, const char *name, const char *function, const char *file,
                              const char *category, uint32_t line, int plain, int flow) {
    if (ludus__site_index(c, key) != UINT32_MAX) return 0;
    if (grow(c) != 0) return LUDUS_ENOMEM;
    ludus__site_info si;
    memset(&si, 0, sizeof si);
    si.key = key;
    size_t ignore;
    if (flow) { /* a flow's name: a stringized token, or a registered site's name */
        if (!name) name = "flow";
        size_t n = strlen(name);
        int literal = n >= 2 && name[0] == '"' && name[n - 1] == '"';
        si.name = display(c, name, !literal, &si.name_len);
        si.function = si.file = "";
        si.category = "flow";
        si.category_len = 4;
    } else {
        si.name = display(c, name ? name : "?", plain, &si.name_len);
        si.function = display(c, function ? function : "", 1, &ignore);
        si.file = display(c, file ? file : "", 1, &ignore);
        if (category) si.category = display(c, category, plain, &si.category_len);
        si.line = line;
        if (!si.function || !si.file || (category && !si.category)) return LUDUS_ENOMEM;
    }
    if (!si.name) return LUDUS_ENOMEM;
    si.enabled = category_enabled(c->categories, si.category, si.category_len);
    si.id = ludus__site_id(si.name, si.name_len, si.file, si.line);
    c->sites[c->nsites] = si;
    link_site(c, key);
    return 0;
}

/* Adds the site a key names in an in-memory capture. */
static int add_site(ludus_capture *c, uintptr_t key) {
    if (ludus__site_index(c, key) != UINT32_MAX) return 0;
    if (key & 1) return ludus__site_add_described(c, key, LUDUS__FLOW_NAME_PTR(key), NULL, NULL, NULL, 0, 0, 1);
    const ludus_site *s = (const ludus_site *)key;
    int plain = (s->flags & LUDUS_SITE_TEXT) != 0 || !s->name;
    return ludus__site_add_described(c, key, s->name ? s->name : s->function, s->function, s->file, s->category,
                                     s->line, plain, 0);
}

/* The keys of one run's events, by the kind table. */
int ludus__run_keys(ludus_capture *c, const ludus__event *e, size_t n, int (*fn)(ludus_capture *c, uintptr_t key)) {
    for (size_t i = 0; i < n;) {
        const ludus__kind_info *ki = &ludus__kinds[e[i].word & LUDUS__K_MASK];
        uintptr_t keys[3];
        int payload = ki->slots > 1 && i + 1 < n;
        unsigned nk = ludus__event_keys(ki, e[i].word, payload ? e[i + 1].ticks : 0, payload ? e[i + 1].word : 0, keys);
        for (unsigned j = 0; j < nk; j++) {
            int rc = fn(c, keys[j]);
            if (rc) return rc;
        }
        i += ki->valid ? ludus__event_slots_in(ki, &e[i], n - i) : 1;
    }
    return 0;
}

int ludus__sites_collect_run(ludus_capture *c, const ludus__event *e, size_t n) {
    return ludus__run_keys(c, e, n, add_site);
}

static int cmp_id(const void *a, const void *b) {
    const ludus__site_info *x = *(ludus__site_info *const *)a, *y = *(ludus__site_info *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int ludus__sites_collect(ludus_capture *c) {
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        for (uint32_t r = 0; r < th->nruns; r++) {
            int rc = ludus__sites_collect_run(c, th->runs[r].ev, th->runs[r].n);
            if (rc) return rc;
        }
    }
    return 0;
}

int ludus__sites_check_ids(ludus_capture *c) {
    /* Stable ids: two different sites with one id is a collision. */
    c->id_collisions = 0;
    if (c->nsites < 2) return 0;
    ludus__site_info **by = ludus__malloc(c->nsites * sizeof *by);
    if (!by) return LUDUS_ENOMEM;
    for (uint32_t i = 0; i < c->nsites; i++) by[i] = &c->sites[i];
    ludus__qsort(by, c->nsites, sizeof *by, cmp_id);
    for (uint32_t i = 1; i < c->nsites; i++) {
        const ludus__site_info *a = by[i - 1], *b = by[i];
        if (a->id == b->id && (a->name_len != b->name_len || memcmp(a->name, b->name, a->name_len) != 0 ||
                               strcmp(a->file, b->file) != 0 || a->line != b->line))
            c->id_collisions++;
    }
    ludus__free(by);
    return 0;
}
