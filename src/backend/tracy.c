/* The Tracy backend (-DLUDUS_BACKEND=tracy): the LUDUS_PROFILE_* macros and
 * the integration API forwarded to Tracy's C API (TracyC.h of the user's
 * Tracy checkout, LUDUS_TRACY_DIR). What maps to what (docs/tracy.md):
 *   scopes, spans, lock waits  zones; a site's source location is made once,
 *                              on its first use, and kept in the site
 *                              (ludus__tracy_site) or, for the library's own
 *                              sites (registered ids, named locks), in a
 *                              table by address: no allocation per zone
 *   run-time names, fibers     zones with an allocated source location
 *                              (Tracy's ___tracy_alloc_srcloc_name)
 *   frames                     frame marks; then every counter (per frame),
 *                              gauge (last) and memory domain (live bytes)
 *                              of the frame just closed as a plot
 *   plots, sampled counters    plots
 *   marks, log messages        messages (a severity and a colour per level)
 *   async zones                messages at begin and end (Tracy's C API has
 *                              no zone that ends on another thread)
 *   GPU contexts and samples   Tracy GPU contexts (type Custom) and GPU zones
 *                              with the samples' device timestamps
 *   flows                      nothing (no equivalent)
 * Tracy needs the zones of a thread strictly nested. The thread's open
 * zones are kept on a stack: ending a zone ends the zones opened after it
 * that are still open (a span closed out of order, a scope skipped by
 * longjmp, a span left open in a scope), and their own ends later do
 * nothing; an end that matches no open zone sends nothing. */
/* This file sees the header's Tracy seam (ludus__tracy_site, the entry
 * points below); the rest of the library is compiled without it. */
#define LUDUS_BACKEND_TRACY 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ludus/capture.h>
#include <ludus/gpu.h>
#include <ludus/locks.h>
#include <ludus/profiling.h>

#include "tracy/TracyC.h"

#include "../base/text.h"
#include "../platform/sync.h"
#include "../record/counters.h"
#include "../record/event_kinds.h"
#include "../record/record.h"
#include "backend.h"

/* The backend's own functions (the entry points at the end call them). */
static void ludus__tracy_fiber_leave(void);

#ifndef TRACY_ENABLE
#error "src/backend/tracy.c needs TRACY_ENABLE (the build defines it with LUDUS_BACKEND=tracy)"
#endif

_Static_assert(sizeof(uintptr_t) == 8, "the Tracy backend's zone tokens need 64-bit pointers");

typedef struct ___tracy_source_location_data tloc;

/* ---- source locations ---- */

/* A colour per category (0: Tracy's default). */
static uint32_t category_color(const char *cat) {
    static const uint32_t palette[8] = {0x4E79A7, 0xF28E2B, 0x59A14F, 0x76B7B2, 0xEDC948, 0xB07AA1, 0xFF9DA7, 0x9C755F};
    if (!cat) return 0;
    if (!strcmp(cat, LUDUS_LOCK_CATEGORY)) return 0xC0392B;
    uint32_t h = 2166136261u;
    for (const char *p = cat; *p; p++) h = (h ^ (uint8_t)*p) * 16777619u;
    return palette[h & 7u];
}

/* The text a site shows: its name's (a token, or a literal with its escapes
 * resolved, or plain text), or its function's. Into out (n + 1 bytes). */
static size_t site_text(const ludus_site *s, char *out) {
    const char *n = s->name ? s->name : (s->function ? s->function : "");
    size_t len = strlen(n);
    if (!s->name || (s->flags & LUDUS_SITE_TEXT)) {
        memcpy(out, n, len);
    } else {
        len = ludus__c_literal_text(n, len, out);
    }
    out[len] = 0;
    return len;
}

/* A source location for s, allocated once (freed never: sites live as
 * long as the process). */
static tloc *make_loc(const ludus_site *s) {
    const char *n = s->name ? s->name : (s->function ? s->function : "");
    size_t len = strlen(n);
    tloc *l = malloc(sizeof *l + len + 1);
    if (!l) return NULL;
    char *text = (char *)(l + 1);
    site_text(s, text);
    l->name = text;
    l->function = s->function ? s->function : "";
    l->file = s->file ? s->file : "";
    l->line = s->line;
    l->color = category_color(s->category);
    return l;
}

/* The library's own sites (registered ids, named locks, the invalid site):
 * their locations in a table by address, filled lock-free. */
#define LOC_SLOTS 16384u
static struct {
    const ludus_site *key;
    tloc *loc;
} loc_table[LOC_SLOTS];

static tloc *table_loc(const ludus_site *s) {
    uintptr_t h = ((uintptr_t)s >> 4) * UINT64_C(0x9E3779B97F4A7C15);
    tloc *mine = NULL;
    for (uint32_t n = 0, i = (uint32_t)(h >> 40) & (LOC_SLOTS - 1); n < LOC_SLOTS; n++, i = (i + 1) & (LOC_SLOTS - 1)) {
        const ludus_site *k = __atomic_load_n(&loc_table[i].key, __ATOMIC_ACQUIRE);
        if (k == NULL) {
            if (!mine && !(mine = make_loc(s))) return NULL;
            if (__atomic_compare_exchange_n(&loc_table[i].key, &k, s, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&loc_table[i].loc, mine, __ATOMIC_RELEASE);
                return mine;
            }
        }
        if (k == s) {
            tloc *l;
            while (!(l = __atomic_load_n(&loc_table[i].loc, __ATOMIC_ACQUIRE))) { /* its maker is storing it */
            }
            free(mine);
            return l;
        }
    }
    free(mine);
    return NULL; /* table full: the caller allocates a location per zone */
}

static tloc *site_loc_slow(ludus__tracy_site *ts) {
    tloc *mine = make_loc(&ts->site), *cur = NULL;
    if (!mine) return NULL;
    if (__atomic_compare_exchange_n(&ts->loc, (void **)&cur, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return mine;
    free(mine);
    return cur;
}

static inline tloc *loc_of(const ludus_site *s) {
    if (LUDUS__LIKELY(s->flags & LUDUS_SITE_TRACY)) {
        ludus__tracy_site *ts = (ludus__tracy_site *)(uintptr_t)s; /* the macros' sites are not const */
        tloc *l = __atomic_load_n((tloc **)&ts->loc, __ATOMIC_ACQUIRE);
        return LUDUS__LIKELY(l != NULL) ? l : site_loc_slow(ts);
    }
    return table_loc(s);
}

/* ---- the thread's zones ---- */

typedef struct zone_ent {
    TracyCZoneCtx ctx;
    uint32_t serial, reserved;
} zone_ent;

typedef struct span_ent {
    const ludus_site *site;
    uintptr_t token;
} span_ent;

typedef struct tstate {
    zone_ent *z;
    uint32_t depth, cap, serial, nspan, spcap, reserved;
    span_ent *sp;
    uintptr_t fiber; /* the zone of the fiber the thread runs (0: none) */
} tstate;

static __thread tstate ts_ __attribute__((tls_model("initial-exec")));

static size_t text_len(const char *s, size_t max) {
    const char *z = memchr(s, 0, max);
    return z ? (size_t)(z - s) : max;
}

/* At thread exit: the stacks go (a zone begun later, by another exit hook,
 * makes them again). */
static void tstate_exit(void *arg) {
    tstate *t = arg;
    free(t->z);
    free(t->sp);
    t->z = NULL;
    t->sp = NULL;
    t->depth = t->cap = t->nspan = t->spcap = 0;
    t->fiber = 0;
}

static int grow(tstate *t) {
    uint32_t cap = t->cap ? t->cap * 2 : 64;
    zone_ent *z = realloc(t->z, cap * sizeof *z);
    if (!z) return 0;
    if (!t->z) {
        t->serial = (uint32_t)(((uintptr_t)t >> 4) * 2654435761u); /* tokens of other threads never match */
        ludus__on_thread_exit(LUDUS__EXIT_TRACY, tstate_exit, t);
    }
    t->z = z;
    t->cap = cap;
    return 1;
}

static inline uintptr_t push(tstate *t, TracyCZoneCtx ctx) {
    uint32_t i = t->depth++;
    t->z[i].ctx = ctx;
    t->z[i].serial = ++t->serial;
    return ((uintptr_t)t->z[i].serial << 32) | (i + 1u);
}

/* Ends zones from the top down to index i (included). */
static inline void end_down_to(tstate *t, uint32_t i) {
    do ___tracy_emit_zone_end(t->z[--t->depth].ctx);
    while (t->depth > i);
}

/* A zone Tracy took: on the thread's stack, its token returned. A zone it
 * did not take (TRACY_ON_DEMAND without a viewer) has token 0: its end costs
 * nothing and it is not on the stack. */
static inline uintptr_t opened(TracyCZoneCtx ctx) {
    if (!ctx.active) return 0;
    tstate *t = &ts_;
    if (LUDUS__UNLIKELY(t->depth == t->cap) && !grow(t)) {
        ___tracy_emit_zone_end(ctx); /* no room to pair its end: ended now */
        return 0;
    }
    return push(t, ctx);
}

static uintptr_t begin_named(const char *name, size_t len, const char *file, uint32_t line, uint32_t color) {
    if (!file) file = "";
    uint64_t sl = ___tracy_alloc_srcloc_name(line, file, strlen(file), "", 0, name, len, color);
    return opened(___tracy_emit_zone_begin_alloc(sl, 1));
}

/* A site without a location (out of memory, or the table full): Tracy's
 * allocated location, per zone. */
__attribute__((noinline, cold)) static uintptr_t begin_unlocated(const ludus_site *site) {
    char stack[512];
    const char *n = site->name ? site->name : (site->function ? site->function : "");
    size_t len = strlen(n);
    if (len >= sizeof stack) len = sizeof stack - 1;
    memcpy(stack, n, len);
    return begin_named(stack, len, site->file, site->line, category_color(site->category));
}

uintptr_t ludus__tracy_begin(const ludus_site *site) {
    tloc *l = loc_of(site);
    if (LUDUS__UNLIKELY(!l)) return begin_unlocated(site);
    return opened(___tracy_emit_zone_begin(l, 1));
}

void ludus__tracy_end(uintptr_t token) {
    tstate *t = &ts_;
    uint32_t i = (uint32_t)token - 1u;
    if (LUDUS__UNLIKELY(i >= t->depth || t->z[i].serial != (uint32_t)(token >> 32))) return; /* ended already */
    if (LUDUS__LIKELY(i + 1u == t->depth)) { /* the innermost: one end */
        t->depth = i;
        ___tracy_emit_zone_end(t->z[i].ctx);
        return;
    }
    end_down_to(t, i);
}

uintptr_t ludus__tracy_dyn_begin(const char *name) {
    if (!name || !*name) name = "<empty name>";
    size_t len = text_len(name, 4096);
    return begin_named(name, len, NULL, 0, 0);
}

uintptr_t ludus__tracy_lock_wait(const void *lock, const ludus_site *site, unsigned kind) {
    static const ludus_site defaults[4] = {
        {"lock", "", "", LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
        {"mutex", "", "", LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
        {"rwlock (read)", "", "", LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
        {"rwlock (write)", "", "", LUDUS_LOCK_CATEGORY, 0, LUDUS_SITE_TEXT},
    };
    const ludus_site *s = ludus_lock_site(lock); /* a named lock: its name */
    if (!s) s = site ? site : &defaults[kind & 3u];
    return ludus__tracy_begin(s);
}

/* ---- spans: paired by site (as the recorder pairs them), each a zone ---- */

static void span_push(tstate *t, const ludus_site *site, uintptr_t token) {
    if (t->nspan == t->spcap) {
        uint32_t cap = t->spcap ? t->spcap * 2 : 64;
        if (!t->z && !grow(t)) return; /* the exit hook frees both stacks */
        span_ent *s = realloc(t->sp, cap * sizeof *s);
        if (!s) {
            ludus__tracy_end(token); /* no room to pair its end: ended now */
            return;
        }
        t->sp = s;
        t->spcap = cap;
    }
    t->sp[t->nspan++] = (span_ent){site, token};
}

void ludus__tracy_span_begin(const ludus_site *site) {
    span_push(&ts_, site, ludus__tracy_begin(site));
}

void ludus__tracy_begin_site(uint32_t site_id) {
    const ludus_site *s = ludus__site_by_id(site_id);
    ludus__tracy_span_begin(s ? s : &ludus__invalid_site);
}

void ludus__tracy_end_site(void) {
    tstate *t = &ts_;
    if (t->nspan == 0) return; /* nothing open: nothing is sent */
    uintptr_t token = t->sp[--t->nspan].token;
    if (token) ludus__tracy_end(token);
}

void ludus__tracy_end_site_id(uint32_t site_id) {
    tstate *t = &ts_;
    const ludus_site *s = ludus__site_by_id(site_id);
    if (!s) s = &ludus__invalid_site;
    uint32_t k = t->nspan;
    while (k > 0 && t->sp[k - 1].site != s) k--;
    if (k == 0) return;
    uintptr_t token = t->sp[k - 1].token;
    memmove(&t->sp[k - 1], &t->sp[k], (t->nspan - k) * sizeof *t->sp);
    t->nspan--;
    if (token) ludus__tracy_end(token);
}

/* ---- non-local exits: the zones opened since the point end there ---- */

ludus_unwind_point ludus__tracy_unwind_here(void) {
    ludus_unwind_point p = {(uintptr_t)ts_.depth + 1u, 0, 0};
    return p;
}

void ludus__tracy_unwound_to(ludus_unwind_point point) {
    tstate *t = &ts_;
    if (point.at == 0 || point.at - 1u >= t->depth) return;
    end_down_to(t, (uint32_t)(point.at - 1u));
}

/* ---- fibers: a zone on the thread named after the fiber ---- */

void ludus__tracy_fiber_enter(const char *name) {
    tstate *t = &ts_;
    if (t->fiber) ludus__tracy_fiber_leave();
    if (!name || !*name) return;
    t->fiber = begin_named(name, text_len(name, 4096), NULL, 0, 0x7F7F7F);
}

static void ludus__tracy_fiber_leave(void) {
    tstate *t = &ts_;
    uintptr_t token = t->fiber;
    t->fiber = 0;
    if (token) ludus__tracy_end(token);
}

/* ---- messages ---- */

static const struct {
    int8_t severity;
    uint32_t color;
} levels[4] = {
    {TracyMessageSeverityDebug, 0x9E9E9E},
    {TracyMessageSeverityInfo, 0xE0E0E0},
    {TracyMessageSeverityWarning, 0xFFB000},
    {TracyMessageSeverityError, 0xFF3B30},
};

static unsigned clamp_level(int level) {
    return level < 0 ? 0u : level > 3 ? 3u : (unsigned)level;
}

void ludus__tracy_message(const ludus_site *site, int level) {
    unsigned l = clamp_level(level);
    tloc *loc = loc_of(site);
    if (loc) ___tracy_emit_logStringL(levels[l].severity, (int32_t)levels[l].color, 0, loc->name);
}

void ludus__tracy_log_text(int level, const char *text, size_t len) {
    unsigned l = clamp_level(level);
    if (!text) len = 0;
    if (len > LUDUS_MESSAGE_MAX) len = LUDUS_MESSAGE_MAX;
    ___tracy_emit_logString(levels[l].severity, (int32_t)levels[l].color, 0, len, text ? text : "");
}

void ludus__tracy_vlog(int level, const char *fmt, va_list args) {
    char buf[LUDUS_MESSAGE_MAX + 1];
    int n = fmt ? vsnprintf(buf, sizeof buf, fmt, args) : 0;
    if (n < 0) n = 0;
    ludus__tracy_log_text(level, buf, (size_t)n < LUDUS_MESSAGE_MAX ? (size_t)n : LUDUS_MESSAGE_MAX);
}

void ludus__tracy_instant(const ludus_site *site, unsigned kind) {
    (void)kind; /* LUDUS_PROFILE_MARK */
    tloc *loc = loc_of(site);
    if (loc) ___tracy_emit_logStringL(TracyMessageSeverityInfo, 0x5DADE2, 0, loc->name);
}

/* ---- async zones: a message at each end ---- */

static void async_message(const ludus_site *site, const ludus_site *track, uint64_t id) {
    tloc *tl = loc_of(track), *sl = site ? loc_of(site) : NULL;
    char buf[LUDUS_MESSAGE_MAX + 1];
    int n = site ? snprintf(buf, sizeof buf, "%s: %s begins (id %llu)", tl ? tl->name : "?", sl ? sl->name : "?",
                            (unsigned long long)id)
                 : snprintf(buf, sizeof buf, "%s: ends (id %llu)", tl ? tl->name : "?", (unsigned long long)id);
    if (n < 0) return;
    ___tracy_emit_logString(TracyMessageSeverityInfo, 0x76B7B2, 0,
                            (size_t)n < LUDUS_MESSAGE_MAX ? (size_t)n : LUDUS_MESSAGE_MAX, buf);
}

/* A scope annotation: the innermost zone's text "Key: value" (Tracy's
 * ZoneText, which appends a line per call); with no zone open, a message. */
void ludus__tracy_annotate(const ludus_site *site, int kind, uint64_t bits, const char *text) {
    tstate *t = &ts_;
    tloc *l = loc_of(site);
    const char *key = l ? l->name : "";
    char buf[LUDUS_ANNOTATION_TEXT_MAX + 256];
    int n;
    double d;
    switch (kind) {
    case 0:
        n = snprintf(buf, sizeof buf, "%.200s: %lld", key, (long long)(int64_t)bits);
        break;
    case 1:
        n = snprintf(buf, sizeof buf, "%.200s: %llu", key, (unsigned long long)bits);
        break;
    case 2:
        memcpy(&d, &bits, sizeof d);
        n = snprintf(buf, sizeof buf, "%.200s: %.17g", key, d);
        break;
    default:
        n = snprintf(buf, sizeof buf, "%.200s: %.*s", key, (int)text_len(text ? text : "", LUDUS_ANNOTATION_TEXT_MAX),
                     text ? text : "");
        break;
    }
    if (n < 0) return;
    size_t len = (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1;
    if (t->depth)
        ___tracy_emit_zone_text(t->z[t->depth - 1].ctx, buf, len);
    else
        ___tracy_emit_logString(TracyMessageSeverityInfo, 0, 0, len, buf);
}

void ludus__tracy_async(const ludus_site *site, const ludus_site *track, uint64_t id) {
    async_message(site, track, id);
}

void ludus__tracy_async_by_id(uint32_t track, uint64_t id, uint32_t site_id, int begin) {
    const ludus_site *t = ludus__site_by_id(track), *s = begin ? ludus__site_by_id(site_id) : NULL;
    if (!t) t = &ludus__invalid_site;
    if (begin && !s) s = &ludus__invalid_site;
    async_message(s, t, id);
}

/* ---- plots ---- */

void ludus__tracy_plot_i64(const ludus_site *site, int64_t value) {
    tloc *l = loc_of(site);
    if (l) ___tracy_emit_plot_int(l->name, value);
}

void ludus__tracy_plot_f64(const ludus_site *site, double value) {
    tloc *l = loc_of(site);
    if (l) ___tracy_emit_plot(l->name, value);
}

void ludus__tracy_sample(uint32_t site_id, int64_t value, double fvalue, int is_double) {
    const ludus_site *s = ludus__site_by_id(site_id);
    if (!s) s = &ludus__invalid_site;
    if (is_double)
        ludus__tracy_plot_f64(s, fvalue);
    else
        ludus__tracy_plot_i64(s, value);
}

/* Each counter, gauge and domain's plot name ("DrawCalls per frame",
 * "ReadyQueue", "Memory/Render live bytes"), made once (frame thread). */
static const char *plot_names[3][LUDUS__MAX_COUNTERS];

static const char *plot_name(const ludus__live_item *it) {
    const char **slot = &plot_names[it->owner][it->i];
    if (*slot) return *slot;
    char text[4200];
    if (it->owner == LUDUS__OWNER_MEMORY) {
        snprintf(text, sizeof text, "Memory/%s live bytes", it->domain);
    } else {
        const char *n = it->site->name ? it->site->name : "";
        char tmp[4096];
        if (strlen(n) >= sizeof tmp) return NULL;
        site_text(it->site, tmp);
        snprintf(text, sizeof text, it->owner == LUDUS__OWNER_COUNT ? "%s per frame" : "%s", tmp);
    }
    char *p = malloc(strlen(text) + 1);
    if (!p) return NULL;
    strcpy(p, text);
    ___tracy_emit_plot_config(p, it->owner == LUDUS__OWNER_MEMORY ? 1 : 0, it->owner == LUDUS__OWNER_GAUGE, 1, 0);
    return *slot = p;
}

/* The frame just closed: its counters, gauges and domains as plots. */
static void plot_frame(void) {
    static ludus__live_item items[LUDUS__MAX_COUNTERS + LUDUS__MAX_GAUGES + LUDUS__MAX_DOMAINS]; /* lock held */
    ludus__live_lock();
    const ludus__ring *r = ludus__live_ring();
    if (r->rows && r->closed > 0) {
        uint32_t idx = (uint32_t)((r->closed - 1) % r->cap);
        const ludus__ring_row *row = &r->rows[idx];
        const int64_t *v = r->values + (size_t)idx * LUDUS__ROW_VALUES;
        uint32_t n = ludus__live_items(items, sizeof items / sizeof items[0]);
        for (uint32_t k = 0; k < n; k++) {
            const ludus__live_item *it = &items[k];
            int64_t value;
            if (it->owner == LUDUS__OWNER_COUNT) {
                if (it->i >= row->ncounters) continue;
                value = v[LUDUS__ROW_COUNTER(it->i)];
            } else if (it->owner == LUDUS__OWNER_GAUGE) {
                if (!ludus__row_gauge_set(row, it->i)) continue;
                value = v[LUDUS__ROW_GAUGE(it->i)];
            } else {
                if (it->i >= row->ndomains) continue;
                value = v[LUDUS__ROW_DOMAIN(it->i)]; /* live bytes: the first of a domain's values */
            }
            const char *name = plot_name(it);
            if (name) ___tracy_emit_plot_int(name, value);
        }
    }
    ludus__live_unlock();
}

void ludus__tracy_frame(void) {
    ludus__frame_tick(); /* the ring of recent frames (overlay); no capture runs */
    ___tracy_emit_frame_mark(NULL);
    plot_frame();
}

void ludus__tracy_thread_name(const char *name) {
    if (name && *name) ___tracy_set_thread_name(name);
}

/* ---- GPU timing: a Tracy GPU context per ludus_gpu_context ---- */

/* Tracy's GPU context ids are the program's: ours count down from 255,
 * Tracy's own GPU instrumentation (TracyVulkan.hpp...) counts up from 0. */
#define GPU_CONTEXTS 64u
typedef struct gpu_state {
    const void *key; /* the ludus_gpu_context; NULL: free */
    uint8_t id;
    int created, has_ref;
    int64_t ref;    /* the last timestamp seen, unwrapped: the next ones are unwrapped near it */
    uint16_t query; /* the next query id */
} gpu_state;
static gpu_state gpus[GPU_CONTEXTS];
static uint32_t gpu_ids_used;
static ludus__mutex gpu_lock = LUDUS__MUTEX_INIT;

static gpu_state *gpu_find(const void *key) { /* lock held */
    gpu_state *free_slot = NULL;
    for (uint32_t i = 0; i < GPU_CONTEXTS; i++) {
        if (gpus[i].key == key) return &gpus[i];
        if (!gpus[i].key && !free_slot) free_slot = &gpus[i];
    }
    if (!free_slot || gpu_ids_used >= 128u) return NULL; /* ids 255..128 */
    memset(free_slot, 0, sizeof *free_slot);
    free_slot->key = key;
    free_slot->id = (uint8_t)(255u - gpu_ids_used++);
    return free_slot;
}

/* A timestamp modulo 2^bits, unwrapped to the value nearest the last one. */
static int64_t gpu_unwrap(gpu_state *g, uint32_t bits, uint64_t t) {
    if (bits >= 64 || bits == 0) return (int64_t)t;
    if (!g->has_ref) {
        g->has_ref = 1;
        g->ref = (int64_t)t;
        return g->ref;
    }
    uint64_t m = (UINT64_C(1) << bits) - 1u, d = (t - (uint64_t)g->ref) & m;
    return g->ref + (d > (m >> 1) ? (int64_t)d - (int64_t)m - 1 : (int64_t)d);
}

/* Tells Tracy that the context's clock reads ticks_now at this moment: the
 * context's creation, later a re-alignment (time sync). */
static void gpu_align(gpu_state *g, const char *name, double period_ns, int64_t ticks_now) {
    if (!g->created) {
        struct ___tracy_gpu_new_context_data c = {ticks_now, (float)period_ns, g->id, 0, 7 /* Custom */};
        ___tracy_emit_gpu_new_context_serial(c);
        struct ___tracy_gpu_context_name_data n = {g->id, name, (uint16_t)strlen(name)};
        ___tracy_emit_gpu_context_name_serial(n);
        g->created = 1;
    } else {
        struct ___tracy_gpu_time_sync_data sy = {ticks_now, g->id};
        ___tracy_emit_gpu_time_sync_serial(sy);
    }
}

/* With TRACY_ON_DEMAND a context is made for the viewer that is connected:
 * nothing is sent without one. */
static int gpu_can_send(void) {
#ifdef TRACY_ON_DEMAND
    return ___tracy_connected();
#else
    return 1;
#endif
}

int ludus__backend_gpu_calibrate(const ludus__backend_gpu_ctx *x, uint64_t gpu_ticks, int64_t cpu_ns, int accepted,
                                 int *rc) {
    const void *key = x->key;
    const char *name = x->name;
    double period_ns = x->period_ns;
    uint32_t valid_bits = x->valid_bits;
    *rc = 0;
    if (!accepted || !gpu_can_send()) return 1;
    ludus__mutex_lock(&gpu_lock);
    gpu_state *g = gpu_find(key);
    if (g) {
        int64_t t = gpu_unwrap(g, valid_bits, gpu_ticks);
        g->ref = t;
        double ticks = (double)(ludus_gpu_cpu_now_ns() - cpu_ns) / period_ns;
        gpu_align(g, name, period_ns, t + (int64_t)ticks);
    }
    ludus__mutex_unlock(&gpu_lock);
    return 1;
}

int ludus__backend_gpu_submit(const ludus__backend_gpu_ctx *x, const ludus_gpu_sample *samples, uint32_t n, int *rc) {
    const void *key = x->key;
    const char *name = x->name;
    double period_ns = x->period_ns;
    uint32_t valid_bits = x->valid_bits;
    *rc = 0;
    if (!gpu_can_send()) return 1;
    ludus__mutex_lock(&gpu_lock);
    gpu_state *g = gpu_find(key);
    for (uint32_t i = 0; g && i < n; i++) {
        const ludus_gpu_sample *s = &samples[i];
        int64_t b = gpu_unwrap(g, valid_bits, s->begin_ticks);
        uint64_t m = valid_bits >= 64 || valid_bits == 0 ? UINT64_MAX : (UINT64_C(1) << valid_bits) - 1u;
        int64_t e = b + (int64_t)((s->end_ticks - s->begin_ticks) & m);
        g->ref = b;
        if (!g->created) { /* no calibration yet: its begin taken as its submission (aligned once) */
            double ticks = (double)(ludus_gpu_cpu_now_ns() - s->submit_ns) / period_ns;
            gpu_align(g, name, period_ns, b + (int64_t)ticks);
        }
        const char *pass = s->pass ? s->pass : "GPU frame";
        uint64_t loc = ___tracy_alloc_srcloc_name(0, "", 0, "", 0, pass, text_len(pass, 4096), 0);
        uint16_t q = g->query;
        g->query = (uint16_t)(q + 2u);
        struct ___tracy_gpu_zone_begin_data zb = {loc, q, g->id};
        ___tracy_emit_gpu_zone_begin_alloc_serial(zb);
        struct ___tracy_gpu_time_data tb = {b, q, g->id};
        ___tracy_emit_gpu_time_serial(tb);
        struct ___tracy_gpu_zone_end_data ze = {(uint16_t)(q + 1u), g->id};
        ___tracy_emit_gpu_zone_end_serial(ze);
        struct ___tracy_gpu_time_data te = {e, (uint16_t)(q + 1u), g->id};
        ___tracy_emit_gpu_time_serial(te);
    }
    ludus__mutex_unlock(&gpu_lock);
    return 1;
}

void ludus__backend_gpu_forget(const void *key) {
    ludus__mutex_lock(&gpu_lock);
    for (uint32_t i = 0; i < GPU_CONTEXTS; i++)
        if (gpus[i].key == key) gpus[i].key = NULL; /* its Tracy context stays (Tracy has no end for one) */
    ludus__mutex_unlock(&gpu_lock);
}

/* ---- the integration API's entry points (backend.h) ---- */

const char *ludus__backend_no_capture(void) {
    return "this library was built with -DLUDUS_BACKEND=tracy: events go to Tracy, not to a capture";
}
void ludus_span_begin(uint32_t site_id) {
    ludus__tracy_begin_site(site_id);
}
void ludus_span_end(void) {
    ludus__tracy_end_site();
}
void ludus_span_end_site(uint32_t site_id) {
    ludus__tracy_end_site_id(site_id);
}
void ludus_counter_sample(uint32_t site_id, int64_t value) {
    ludus__tracy_sample(site_id, value, 0.0, 0);
}
void ludus_counter_sample_f64(uint32_t site_id, double value) {
    ludus__tracy_sample(site_id, 0, value, 1);
}
ludus_unwind_point ludus_unwind_here(void) {
    return ludus__tracy_unwind_here();
}
void ludus_unwound_to(ludus_unwind_point point) {
    ludus__tracy_unwound_to(point);
}
void ludus_log_text(int level, const char *text, size_t len) {
    ludus__tracy_log_text(level, text, len);
}
void ludus_vlog(int level, const char *fmt, va_list args) {
    ludus__tracy_vlog(level, fmt, args);
}
void ludus_log(int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ludus__tracy_vlog(level, fmt, ap);
    va_end(ap);
}
void ludus_async_begin(uint32_t track, uint64_t id, uint32_t site_id) {
    ludus__tracy_async_by_id(track, id, site_id, 1);
}
void ludus_async_end(uint32_t track, uint64_t id) {
    ludus__tracy_async_by_id(track, id, 0, 0);
}
void ludus_fiber_enter(const char *name) {
    ludus__tracy_fiber_enter(name);
}
void ludus_fiber_leave(void) {
    ludus__tracy_fiber_leave();
}
int ludus_thread_register(const char *name) {
    ludus__tracy_thread_name(name); /* Tracy copies it */
    return ludus__register_self(name);
}
