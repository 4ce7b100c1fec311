/* The prepared view of an ended capture: the table of sites the events name
 * (with stable ids and collision checks), tick to ns conversion, the
 * normalised event stream, and the summaries. Prepared on first use, off the
 * end-capture path, in memory bounded by the number of sites. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

int64_t ludus__ticks_to_ns(const ludus__captured *c, uint64_t ticks) {
    /* Unsigned arithmetic: ticks read from a file may be anything. */
    if (!c->clock_tsc) return (int64_t)(ticks - (uint64_t)c->start_ns);
    if (ticks <= c->c0.ticks) return c->c0.ns - c->start_ns;
    uint64_t dt = c->c1.ticks - c->c0.ticks;
    uint64_t dn = (uint64_t)(c->c1.ns - c->c0.ns);
    if (dt == 0) return c->c0.ns - c->start_ns;
    unsigned __int128 x = (unsigned __int128)(ticks - c->c0.ticks) * dn / dt;
    if (x > (unsigned __int128)(INT64_MAX / 2)) x = INT64_MAX / 2; /* never for a real capture */
    return (int64_t)x + (c->c0.ns - c->start_ns);
}

static uint32_t hash_ptr(uintptr_t k) {
    uint64_t x = (uint64_t)k * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

uint32_t ludus__site_index(const ludus__captured *c, uintptr_t key) {
    if (c->site_hash_cap == 0) return UINT32_MAX;
    uint32_t mask = c->site_hash_cap - 1;
    for (uint32_t i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
        uint32_t v = c->site_hash[i];
        if (v == 0) return UINT32_MAX;
        if (c->sites[v - 1].key == key) return v - 1;
    }
}

static uint32_t fnv(uint32_t h, const char *s, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
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

/* Display text of a name or category written as a token or a literal: the
 * macros stringize, so a literal arrives with its quotes. */
static void strip_quotes(const char **s, size_t *len) {
    if (*len >= 2 && (*s)[0] == '"' && (*s)[*len - 1] == '"') {
        (*s)++;
        *len -= 2;
    }
}

static int grow_sites(ludus__captured *c) {
    if ((c->nsites + 1) * 2 > c->site_hash_cap) {
        uint32_t cap = c->site_hash_cap ? c->site_hash_cap * 2 : 256;
        uint32_t *h = calloc(cap, sizeof *h);
        ludus__site_info *s = realloc(c->sites, (cap / 2) * sizeof *s);
        if (!h || !s) {
            free(h);
            if (s) c->sites = s;
            return -1;
        }
        c->sites = s;
        free(c->site_hash);
        c->site_hash = h;
        c->site_hash_cap = cap;
        for (uint32_t i = 0; i < c->nsites; i++) {
            uint32_t j = hash_ptr(c->sites[i].key) & (cap - 1);
            while (h[j]) j = (j + 1) & (cap - 1);
            h[j] = i + 1;
        }
    }
    return 0;
}

static void link_site(ludus__captured *c, uintptr_t key) {
    uint32_t mask = c->site_hash_cap - 1;
    uint32_t j = hash_ptr(key) & mask;
    while (c->site_hash[j]) j = (j + 1) & mask;
    c->site_hash[j] = ++c->nsites;
}

int ludus__site_insert(ludus__captured *c, const ludus__site_info *si) {
    if (ludus__site_index(c, si->key) != UINT32_MAX) return LUDUS_EFORMAT;
    if (grow_sites(c) != 0) return LUDUS_ENOMEM;
    c->sites[c->nsites] = *si;
    link_site(c, si->key);
    return 0;
}

static int add_site(ludus__captured *c, uintptr_t key) {
    if (ludus__site_index(c, key) != UINT32_MAX) return 0;
    if (grow_sites(c) != 0) return -1;
    ludus__site_info *si = &c->sites[c->nsites];
    memset(si, 0, sizeof *si);
    si->key = key;
    if (key & 1) { /* a flow name literal */
        const char *name = LUDUS__FLOW_NAME_PTR(key);
        si->name = name ? name : "flow";
        si->name_len = strlen(si->name);
        si->function = si->file = "";
        si->category = "flow";
    } else {
        const ludus_site *s = (const ludus_site *)key;
        si->name = s->name ? s->name : s->function;
        if (!si->name) si->name = "?";
        si->name_len = strlen(si->name);
        si->function = s->function ? s->function : "";
        si->file = s->file ? s->file : "";
        si->category = s->category;
        si->line = s->line;
    }
    strip_quotes(&si->name, &si->name_len);
    if (si->category) {
        si->category_len = strlen(si->category);
        strip_quotes(&si->category, &si->category_len);
    }
    si->enabled = category_enabled(c->categories, si->category, si->category_len);
    uint32_t h = 2166136261u;
    h = fnv(h, si->name, si->name_len);
    h = fnv(h, "\0", 1);
    h = fnv(h, si->file, strlen(si->file));
    char line[16];
    int ln = snprintf(line, sizeof line, ":%u", si->line);
    si->id = fnv(h, line, (size_t)ln);
    link_site(c, key);
    return 0;
}

static uintptr_t event_key(const ludus__event *e, const ludus__event *end, unsigned *kind) {
    *kind = (unsigned)(e->word & LUDUS__K_MASK);
    switch (*kind) {
    case LUDUS__K_BEGIN:
    case LUDUS__K_INSTANT:
    case LUDUS__K_FRAME:
    case LUDUS__K_COUNTER:
    case LUDUS__K_COUNTER_F64:
        return e->word & ~(uintptr_t)LUDUS__K_MASK;
    case LUDUS__K_FLOW_OUT:
        return e + 1 < end ? LUDUS__FLOW_NAME_KEY(e[1].word) : 0;
    default:
        return 0;
    }
}

static int cmp_id(const void *a, const void *b) {
    const ludus__site_info *x = *(ludus__site_info *const *)a, *y = *(ludus__site_info *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

int ludus__prepare(ludus__captured *c) {
    if (c->prepared) return 0;
    if (ludus__build_runs(c) != 0) return LUDUS_ENOMEM;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        for (uint32_t r = 0; r < th->nruns; r++) {
            const ludus__event *e = th->runs[r].ev, *end = e + th->runs[r].n;
            for (; e < end; e++) {
                unsigned kind;
                uintptr_t key = event_key(e, end, &kind);
                if (kind >= LUDUS__K_FLOW_OUT) e++; /* payload slot */
                if (key && add_site(c, key) != 0) return LUDUS_ENOMEM;
            }
        }
    }
    /* Stable ids: two different sites with one id is a collision. */
    c->id_collisions = 0;
    if (c->nsites > 1) {
        ludus__site_info **by = malloc(c->nsites * sizeof *by);
        if (!by) return LUDUS_ENOMEM;
        for (uint32_t i = 0; i < c->nsites; i++) by[i] = &c->sites[i];
        qsort(by, c->nsites, sizeof *by, cmp_id);
        for (uint32_t i = 1; i < c->nsites; i++) {
            const ludus__site_info *a = by[i - 1], *b = by[i];
            if (a->id == b->id && (a->name_len != b->name_len || memcmp(a->name, b->name, a->name_len) != 0 ||
                                   strcmp(a->file, b->file) != 0 || a->line != b->line))
                c->id_collisions++;
        }
        free(by);
    }
    c->events = c->dropped = c->incomplete = c->orphan_ends = c->filtered = c->frames = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        ludus__nev_iter it;
        ludus__nev ev;
        ludus__nev_init(&it, c, t);
        while (ludus__nev_next(&it, &ev)) {
        }
        int oom = it.oom;
        th->events = it.events;
        th->incomplete = it.incomplete;
        th->orphan_ends = it.orphan_ends + th->recorder_orphans;
        th->filtered = it.filtered;
        th->frames = it.frames;
        ludus__nev_free(&it);
        if (oom) return LUDUS_ENOMEM;
        c->events += th->events;
        c->dropped += th->dropped;
        c->incomplete += th->incomplete;
        c->orphan_ends += th->orphan_ends;
        c->filtered += th->filtered;
        c->frames += th->frames;
    }
    c->dropped += c->unregistered_drops;
    c->prepared = 1;
    return 0;
}

static void conv_init(ludus__tick_conv *v, const ludus__captured *c) {
    memset(v, 0, sizeof *v);
    v->t0 = c->c0.ticks;
    v->base = c->c0.ns - c->start_ns;
    v->dt = c->c1.ticks - c->c0.ticks;
    v->dn = (uint64_t)(c->c1.ns - c->c0.ns);
    /* Only for sane calibrations (a file may hold anything): then the
     * reciprocal is within 2 of the exact quotient. */
    if (!c->clock_tsc || v->dt == 0 || v->dn == 0 || v->dn >= ((uint64_t)1 << 48)) return;
    unsigned shift = 63;
    while (shift > 0 && (((unsigned __int128)v->dn << shift) / v->dt) >> 62) shift--;
    v->shift = shift;
    v->m = (uint64_t)((((unsigned __int128)v->dn << shift) + v->dt / 2) / v->dt); /* rounded */
    v->fast = 1;
}

/* Within 1 ns of ludus__ticks_to_ns (the reciprocal is rounded; the error
 * is below 1 ns while ticks - t0 < 2^shift), at a multiply instead of a
 * 128-bit division per event. */
static inline int64_t conv_ns(const ludus__tick_conv *v, const ludus__captured *c, uint64_t ticks) {
    if (!v->fast || ticks <= v->t0) return ludus__ticks_to_ns(c, ticks);
    uint64_t x = ticks - v->t0;
    if (x >> v->shift) return ludus__ticks_to_ns(c, ticks); /* never for a real capture */
    uint64_t q = (uint64_t)(((unsigned __int128)x * v->m) >> v->shift);
    return (int64_t)q + v->base;
}

void ludus__nev_init(ludus__nev_iter *it, const ludus__captured *c, uint32_t thread) {
    memset(it, 0, sizeof *it);
    it->c = c;
    conv_init(&it->conv, c);
    it->th = &c->threads[thread];
    it->cursor = it->th->load_first;
}

void ludus__nev_free(ludus__nev_iter *it) {
    free(it->stack);
    it->stack = NULL;
    free(it->rbuf.ev);
    free(it->rbuf.bytes);
    memset(&it->rbuf, 0, sizeof it->rbuf);
}

static int push(ludus__nev_iter *it, uint32_t site, int64_t ts) {
    if (it->depth == it->cap) {
        uint32_t cap = it->cap ? it->cap * 2 : 32;
        ludus__open *s = realloc(it->stack, cap * sizeof *s);
        if (!s) return -1;
        it->stack = s;
        it->cap = cap;
    }
    it->stack[it->depth].site = site;
    it->stack[it->depth].ts_ns = ts;
    it->depth++;
    return 0;
}

int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out) {
    if (it->c->cut) return ludus__nev_next_cut(it, out);
    return ludus__nev_next_raw(it, out);
}

int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out) {
    const ludus__captured *c = it->c;
    const ludus__cap_thread *th = it->th;
    while (!it->closing) {
        if (it->run >= th->nruns) {
            it->closing = 1;
            break;
        }
        const ludus__run *run;
        if (c->load_run) { /* a capture file: one run in memory at a time */
            if (!it->loaded) {
                int rc = c->load_run(c, &it->cursor, &it->lrun, &it->rbuf);
                if (rc != 0) {
                    it->load_error = rc;
                    it->oom = 1;
                    it->closing = 1;
                    it->depth = 0;
                    return 0;
                }
                it->loaded = 1;
            }
            run = &it->lrun;
        } else {
            run = &th->runs[it->run];
        }
        if (it->pos >= run->n) {
            it->run++;
            it->pos = 0;
            it->loaded = 0;
            continue;
        }
        const ludus__event *e = run->ev + it->pos;
        const ludus__event *end = run->ev + run->n;
        unsigned kind;
        uintptr_t key = event_key(e, end, &kind);
        int two = kind >= LUDUS__K_FLOW_OUT && kind <= LUDUS__K_COUNTER_F64;
        it->pos += two ? 2 : 1;
        if (two && e + 1 >= end) continue; /* torn payload: cannot happen, never trusted */
        uint32_t site = key ? ludus__site_index(c, key) : UINT32_MAX;
        /* A key missing from the site table (only a damaged file has one)
         * counts as filtered, so exporters always see a site. */
        int enabled = site != UINT32_MAX && c->sites[site].enabled;
        out->flags = 0;
        out->site = site;
        out->ts_ns = conv_ns(&it->conv, c, e->ticks);
        out->value = 0;
        switch (kind) {
        case LUDUS__K_BEGIN:
            if (push(it, enabled ? site : UINT32_MAX, out->ts_ns) != 0) {
                it->oom = 1;
                it->closing = 1;
                return 0;
            }
            if (!enabled) {
                it->filtered++;
                continue;
            }
            out->kind = LUDUS_NEV_BEGIN;
            out->depth = it->depth - 1;
            it->events++;
            return 1;
        case LUDUS__K_END:
            if (it->depth == 0) {
                it->orphan_ends++;
                continue;
            }
            it->depth--;
            if (it->stack[it->depth].site == UINT32_MAX) {
                it->filtered++;
                continue;
            }
            out->kind = LUDUS_NEV_END;
            out->site = it->stack[it->depth].site;
            out->depth = it->depth;
            it->events++;
            return 1;
        case LUDUS__K_INSTANT:
        case LUDUS__K_FRAME:
        case LUDUS__K_COUNTER:
        case LUDUS__K_COUNTER_F64:
            if (!enabled) {
                it->filtered++;
                continue;
            }
            out->depth = it->depth;
            out->kind = kind == LUDUS__K_INSTANT   ? LUDUS_NEV_INSTANT
                        : kind == LUDUS__K_FRAME   ? LUDUS_NEV_FRAME
                        : kind == LUDUS__K_COUNTER ? LUDUS_NEV_COUNTER
                                                   : LUDUS_NEV_COUNTER_F64;
            if (kind == LUDUS__K_FRAME) {
                out->value = ++it->frame_no;
                it->frames++;
            } else if (two) {
                out->value = e[1].ticks;
            }
            it->events++;
            return 1;
        case LUDUS__K_FLOW_OUT:
        case LUDUS__K_FLOW_IN:
            out->kind = kind == LUDUS__K_FLOW_OUT ? LUDUS_NEV_FLOW_OUT : LUDUS_NEV_FLOW_IN;
            out->depth = it->depth;
            out->value = e[1].ticks;
            it->events++;
            return 1;
        default:
            continue; /* padding */
        }
    }
    /* End of the stream: close what is still open, innermost first. */
    while (it->depth > 0) {
        it->depth--;
        if (it->stack[it->depth].site == UINT32_MAX) continue;
        out->kind = LUDUS_NEV_END;
        out->flags = LUDUS_NEV_INCOMPLETE;
        out->site = it->stack[it->depth].site;
        out->depth = it->depth;
        out->ts_ns = c->end_ns - c->start_ns;
        out->value = 0;
        it->incomplete++;
        return 1;
    }
    return 0;
}

/* ---- summaries ---- */

int ludus_capture_get_summary(ludus_capture_summary *out) {
    ludus__captured *c = &ludus__last;
    if (!c->valid) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    int rc = ludus__prepare(c);
    if (rc) return ludus__fail(rc, "out of memory while preparing the capture");
    memset(out, 0, sizeof *out);
    out->threads = c->nthreads;
    out->events = c->events;
    out->dropped = c->dropped;
    out->filtered = c->filtered;
    out->incomplete = c->incomplete;
    out->orphan_ends = c->orphan_ends;
    out->frames = c->frames;
    out->start_ns = c->start_ns;
    out->end_ns = c->end_ns;
    out->chunks_used = c->chunks_used;
    out->interner_drops = c->interner_drops;
    out->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    return 0;
}

int ludus_capture_get_thread(uint32_t index, ludus_thread_summary *out) {
    ludus__captured *c = &ludus__last;
    if (!c->valid) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    if (index >= c->nthreads) return ludus__fail(LUDUS_EINVAL, "thread index %u out of range", index);
    int rc = ludus__prepare(c);
    if (rc) return ludus__fail(rc, "out of memory while preparing the capture");
    ludus__thread_summary_fill(&c->threads[index], out);
    return 0;
}

void ludus__thread_summary_fill(const ludus__cap_thread *th, ludus_thread_summary *out) {
    memset(out, 0, sizeof *out);
    memcpy(out->name, th->name, sizeof out->name);
    out->tid = th->tid;
    out->events = th->events;
    out->dropped = th->dropped;
    out->incomplete = th->incomplete;
    out->orphan_ends = th->orphan_ends;
    out->exited = th->exited;
}
