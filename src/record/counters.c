/* Counters, gauges, memory domains and the ring of recent frames: the
 * always-on scalars beside the timed scopes (seed phase 2).
 *
 * Counters (LUDUS_PROFILE_COUNT) are sharded: every thread adds into its own
 * shard (one int64 per counter slot, no atomic read-modify-write), and the
 * frame thread sums the shards at each LUDUS_PROFILE_FRAME. Shards only
 * grow: a counter's total is the sum of every shard plus what exited threads
 * left (folded in under the lock), and a frame's value is the total now
 * minus the total at the previous frame. So every add lands in exactly one
 * frame, the first whose sum sees it; an add racing with the frame boundary
 * counts toward this frame or the next, never both, never neither.
 *
 * Counters and gauges are named: macro uses with the same name share one.
 *
 * Gauges (LUDUS_PROFILE_GAUGE) are one shared record per gauge: the last
 * value (a store) and the frame's min and max (a compare-and-swap only on a
 * new extreme). The frame takes min and max with an exchange, then widens
 * them by the last value and the level carried in, so last lies in
 * [min, max] whatever the race.
 *
 * Memory domains keep live bytes in one shared atomic (a free may run on
 * any thread; the peak needs the exact running value) and their churn
 * (bytes and allocations made and freed) in counter slots of the shards.
 *
 * The frame snapshot holds `lock` (the frame thread, once per frame; shard
 * creation and thread exit, once per thread); nothing per count takes it.
 * During a capture each snapshot is also recorded as FRAME_STAT events
 * after the frame mark, so files carry them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/process.h"
#include "counters.h"
#include "event_kinds.h"
#include "record.h"

LUDUS__TLS int64_t *ludus__shard LUDUS__TLS_MODEL;
ludus__gauge_state ludus__gauges[32];
_Static_assert(sizeof ludus__gauges / sizeof ludus__gauges[0] == LUDUS__MAX_GAUGES, "one gauge table size");

typedef struct shard {
    int64_t v[LUDUS__SHARD_SLOTS];
    struct shard *next, **prev;
} shard;

/* A memory domain: live bytes shared, churn in shard slots [slot, slot+4). */
typedef struct domain {
    __attribute__((aligned(64))) int64_t live; /* tracked bytes (baseline not included) */
    int64_t frame_peak;                        /* highest live of the current frame */
    uint32_t underflow;                        /* set when a free took live below the baseline */
    uint32_t slot;
    char pad[40];
} domain;
enum { D_ALLOC_BYTES, D_ALLOCS, D_FREE_BYTES, D_FREES }; /* each count right after its bytes */

/* The values a snapshot records during a capture, emitted after the lock is
 * released (recording may take the thread registry's lock: never under
 * ours). */
typedef struct stat_rec {
    const ludus_site *site;
    uint32_t stat;
    int64_t value;
} stat_rec;
#define MAX_STAT_RECS (LUDUS__MAX_COUNTERS + 3u * LUDUS__MAX_GAUGES + LUDUS__DOMAIN_VALUES * LUDUS__MAX_DOMAINS)
typedef struct stat_list {
    stat_rec r[MAX_STAT_RECS];
    uint32_t n;
} stat_list;

/* The counters' state (ludus__gauges and ludus__shard, read by the inline
 * code of profiling.h, stay apart under their exported names). */
static struct {
    domain domains[LUDUS__MAX_DOMAINS];
    /* Published counts (acquire loads outside the lock). */
    uint32_t ncounters, ngauges, ndomains;
    uint32_t ring_frames_wanted;
    uint32_t refused;   /* counters, gauges and domains beyond the tables */
    uint64_t lost_adds; /* adds of threads that got no shard (no memory) */
    ludus__once fork_once;
    /* Without memory a frame's records come from this list, recorded before
     * the lock is let go: the frame loses none of them. */
    stat_list spare;
    ludus__mutex lock;
    shard *shards;
    uint32_t nshards;
    int64_t retired[LUDUS__SHARD_SLOTS];               /* what exited threads added */
    int64_t seen[LUDUS__SHARD_SLOTS];                  /* totals at the previous frame */
    ludus_counter_site *counters[LUDUS__MAX_COUNTERS]; /* the first use of each name */
    ludus_counter_site *gauges[LUDUS__MAX_GAUGES];     /* the first use of each name */
    int64_t gauge_level[LUDUS__MAX_GAUGES];            /* last value at the previous frame */
    uint8_t gauge_has_level[LUDUS__MAX_GAUGES];        /* gauge_level holds a value (every value is one) */
    ludus__domain_info dinfo[LUDUS__MAX_DOMAINS];
    ludus__outside_note outside[LUDUS__MAX_OUTSIDE];
    uint32_t noutside;
    /* the ring */
    ludus__ring ring;
    int64_t last_mark_ns; /* 0: no frame mark yet */
    uint64_t marks;
    uint32_t next_slot;
} L = {.lock = LUDUS__MUTEX_INIT,
       .next_slot = 1,
       .ring_frames_wanted = LUDUS__RING_DEFAULT,
       .fork_once = LUDUS__ONCE_INIT};

static void counters_fork_install(void);

static void lock(void) {
    ludus__once_run(&L.fork_once, counters_fork_install);
    ludus__mutex_lock(&L.lock);
}

void ludus__counters_fork_install(void) {
    ludus__once_run(&L.fork_once, counters_fork_install);
}

/* ---- shards ---- */

static void shard_exit(void *arg) {
    shard *s = arg;
    lock();
    for (uint32_t i = 0; i < LUDUS__SHARD_SLOTS; i++)
        L.retired[i] = (int64_t)((uint64_t)L.retired[i] + (uint64_t)__atomic_load_n(&s->v[i], __ATOMIC_RELAXED));
    *s->prev = s->next;
    if (s->next) s->next->prev = s->prev;
    L.nshards--;
    ludus__mutex_unlock(&L.lock);
    ludus__shard = NULL; /* a later count (another thread-exit hook) makes a new one */
    ludus__free(s);
}

/* The calling thread's shard, created on its first count (NULL without
 * memory: the count is lost, and counted as such). */
static int64_t *my_shard(void) {
    if (ludus__shard) return ludus__shard;
    shard *s = ludus__calloc(1, sizeof *s);
    if (!s) return NULL;
    lock();
    s->next = L.shards;
    s->prev = &L.shards;
    if (L.shards) L.shards->prev = &s->next;
    L.shards = s;
    L.nshards++;
    ludus__mutex_unlock(&L.lock);
    ludus__on_thread_exit(LUDUS__EXIT_COUNTERS, shard_exit, s);
    ludus__shard = s->v;
    return s->v;
}

/* Totals are kept modulo 2^64 (the hot path's add wraps): summed as
 * unsigned, so a frame's value, the total now minus the total before, is
 * exact whenever the frame's own amount fits an int64 (docs/limits.md). */
static int64_t slot_total(uint32_t slot) {
    uint64_t t = (uint64_t)L.retired[slot];
    for (shard *s = L.shards; s; s = s->next) t += (uint64_t)__atomic_load_n(&s->v[slot], __ATOMIC_RELAXED);
    return (int64_t)t;
}

/* ---- counters ---- */

/* The first use of the same name in table[0, n), or -1. */
static int same_name(ludus_counter_site *const *table, uint32_t n, const ludus_counter_site *site) {
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(table[i]->site.name, site->site.name)) return (int)i;
    return -1;
}

void ludus__count_slow(ludus_counter_site *site, int64_t n) {
    if (__atomic_load_n(&site->slot, __ATOMIC_ACQUIRE) == 0) {
        lock();
        if (site->slot == 0) {
            uint32_t slot = LUDUS__SINK_SLOT;
            int same = same_name(L.counters, L.ncounters, site);
            if (same >= 0) {
                slot = L.counters[same]->slot;
            } else if (L.ncounters < LUDUS__MAX_COUNTERS && L.next_slot < LUDUS__SINK_SLOT) {
                slot = L.next_slot++;
                L.counters[L.ncounters] = site;
                L.seen[slot] = 0;
                __atomic_store_n(&L.ncounters, L.ncounters + 1, __ATOMIC_RELEASE);
            } else {
                __atomic_fetch_add(&L.refused, 1u, __ATOMIC_RELAXED);
            }
            __atomic_store_n(&site->slot, slot, __ATOMIC_RELEASE);
        }
        ludus__mutex_unlock(&L.lock);
    }
    int64_t *sh = my_shard();
    if (!sh) {
        __atomic_fetch_add(&L.lost_adds, 1u, __ATOMIC_RELAXED);
        return;
    }
    uint32_t slot = site->slot;
    __atomic_store_n(&sh[slot], (int64_t)((uint64_t)__atomic_load_n(&sh[slot], __ATOMIC_RELAXED) + (uint64_t)n),
                     __ATOMIC_RELAXED);
}

/* ---- gauges ---- */

void ludus__gauge_slow(ludus_counter_site *site, int64_t value) {
    if (__atomic_load_n(&site->slot, __ATOMIC_ACQUIRE) == 0) {
        lock();
        if (site->slot == 0) {
            uint32_t row = UINT32_MAX;
            int same = same_name(L.gauges, L.ngauges, site);
            if (same >= 0) {
                row = (uint32_t)same + 1;
            } else if (L.ngauges < LUDUS__MAX_GAUGES) {
                ludus__gauge_state *g = &ludus__gauges[L.ngauges];
                __atomic_store_n(&g->min, INT64_MAX, __ATOMIC_RELAXED);
                __atomic_store_n(&g->max, INT64_MIN, __ATOMIC_RELAXED);
                L.gauges[L.ngauges] = site;
                L.gauge_level[L.ngauges] = 0;
                L.gauge_has_level[L.ngauges] = 0;
                row = L.ngauges + 1;
                __atomic_store_n(&L.ngauges, L.ngauges + 1, __ATOMIC_RELEASE);
            } else {
                __atomic_fetch_add(&L.refused, 1u, __ATOMIC_RELAXED);
            }
            __atomic_store_n(&site->slot, row, __ATOMIC_RELEASE);
        }
        ludus__mutex_unlock(&L.lock);
    }
    uint32_t row = __atomic_load_n(&site->slot, __ATOMIC_ACQUIRE);
    if (row - 1 >= LUDUS__MAX_GAUGES) return; /* refused: the table is full */
    ludus__gauge_state *g = &ludus__gauges[row - 1];
    __atomic_store_n(&g->last, value, __ATOMIC_RELAXED);
    int64_t m = __atomic_load_n(&g->min, __ATOMIC_RELAXED);
    while (value < m && !__atomic_compare_exchange_n(&g->min, &m, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    m = __atomic_load_n(&g->max, __ATOMIC_RELAXED);
    while (value > m && !__atomic_compare_exchange_n(&g->max, &m, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* ---- memory domains ---- */

ludus_memory_domain ludus_memory_domain_register(const char *name) {
    if (!name || !*name) return 0;
    /* Its site first, outside our lock: the site table's lock is never
     * taken while ours is held (fork takes both, in the other order). */
    char short_name[sizeof L.dinfo[0].name], site_name[sizeof L.dinfo[0].name + 8];
    snprintf(short_name, sizeof short_name, "%s", name);
    snprintf(site_name, sizeof site_name, "Memory/%s", short_name);
    ludus_site_desc sd = {site_name, NULL, NULL, 0};
    uint32_t site_id = ludus_site_register(&sd);
    lock();
    uint32_t n = L.ndomains;
    for (uint32_t i = 0; i < n; i++)
        if (!strcmp(L.dinfo[i].name, short_name)) {
            ludus__mutex_unlock(&L.lock);
            return i + 1;
        }
    if (n >= LUDUS__MAX_DOMAINS || L.next_slot + 4 > LUDUS__SINK_SLOT) {
        ludus__mutex_unlock(&L.lock);
        __atomic_fetch_add(&L.refused, 1u, __ATOMIC_RELAXED);
        return 0;
    }
    ludus__domain_info *di = &L.dinfo[n];
    memcpy(di->name, short_name, sizeof di->name);
    di->site_id = site_id;
    di->since_ns = ludus__mono_ns();
    L.domains[n].slot = L.next_slot;
    L.next_slot += 4;
    for (uint32_t k = 0; k < 4; k++) L.seen[L.domains[n].slot + k] = 0;
    __atomic_store_n(&L.ndomains, n + 1, __ATOMIC_RELEASE);
    ludus__mutex_unlock(&L.lock);
    return n + 1;
}

static domain *domain_of(ludus_memory_domain d) {
    return d - 1u < __atomic_load_n(&L.ndomains, __ATOMIC_ACQUIRE) ? &L.domains[d - 1] : NULL;
}

/* Adds bytes and one allocation (or free) to the domain's churn slots
 * [slot, slot + 1] of the thread's shard. */
static inline void churn_add(uint32_t slot, int64_t bytes) {
    int64_t *sh = ludus__shard;
    if (__builtin_expect(!sh, 0) && !(sh = my_shard())) {
        __atomic_fetch_add(&L.lost_adds, 1u, __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&sh[slot], __atomic_load_n(&sh[slot], __ATOMIC_RELAXED) + bytes, __ATOMIC_RELAXED);
    __atomic_store_n(&sh[slot + 1], __atomic_load_n(&sh[slot + 1], __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

void ludus_memory_alloc(ludus_memory_domain d, uint64_t bytes) {
    domain *m = domain_of(d);
    if (!m) return;
    int64_t live = __atomic_add_fetch(&m->live, (int64_t)bytes, __ATOMIC_RELAXED);
    int64_t p = __atomic_load_n(&m->frame_peak, __ATOMIC_RELAXED);
    while (live > p && !__atomic_compare_exchange_n(&m->frame_peak, &p, live, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
    churn_add(m->slot + D_ALLOC_BYTES, (int64_t)bytes); /* and D_ALLOCS */
}

void ludus_memory_free(ludus_memory_domain d, uint64_t bytes) {
    domain *m = domain_of(d);
    if (!m) return;
    int64_t live = __atomic_sub_fetch(&m->live, (int64_t)bytes, __ATOMIC_RELAXED);
    if (live + __atomic_load_n(&L.dinfo[d - 1].baseline_bytes, __ATOMIC_RELAXED) < 0 &&
        !__atomic_load_n(&m->underflow, __ATOMIC_RELAXED))
        __atomic_store_n(&m->underflow, 1u, __ATOMIC_RELAXED);
    churn_add(m->slot + D_FREE_BYTES, (int64_t)bytes); /* and D_FREES */
}

void ludus_memory_baseline(ludus_memory_domain d, uint64_t bytes, uint64_t allocs) {
    if (!domain_of(d)) return;
    lock();
    __atomic_store_n(&L.dinfo[d - 1].baseline_bytes, (int64_t)bytes, __ATOMIC_RELAXED);
    L.dinfo[d - 1].baseline_allocs = (int64_t)allocs;
    L.dinfo[d - 1].has_baseline = 1;
    ludus__mutex_unlock(&L.lock);
}

int ludus_memory_note_outside(const char *what, uint64_t bytes) {
    if (!what || !*what) return LUDUS_EINVAL;
    lock();
    int rc = LUDUS_ENOMEM;
    if (L.noutside < LUDUS__MAX_OUTSIDE) {
        snprintf(L.outside[L.noutside].what, sizeof L.outside[0].what, "%s", what);
        L.outside[L.noutside++].bytes = bytes;
        rc = 0;
    }
    ludus__mutex_unlock(&L.lock);
    return rc;
}

/* A domain's state now (lock held). */
static void domain_now(uint32_t i, ludus__domain_info *out) {
    domain *m = &L.domains[i];
    *out = L.dinfo[i];
    out->live_bytes = __atomic_load_n(&m->live, __ATOMIC_RELAXED) + out->baseline_bytes;
    out->alloc_bytes = slot_total(m->slot + D_ALLOC_BYTES);
    out->allocs = slot_total(m->slot + D_ALLOCS);
    out->free_bytes = slot_total(m->slot + D_FREE_BYTES);
    out->frees = slot_total(m->slot + D_FREES);
    out->live_allocs = out->baseline_allocs + out->allocs - out->frees;
    out->underflow = __atomic_load_n(&m->underflow, __ATOMIC_RELAXED) || out->live_allocs < 0;
    int64_t fp = __atomic_load_n(&m->frame_peak, __ATOMIC_RELAXED) + out->baseline_bytes;
    if (fp > out->peak_bytes) out->peak_bytes = fp;
    if (out->live_bytes > out->peak_bytes) out->peak_bytes = out->live_bytes;
}

int ludus_memory_sample(void) {
    if (!ludus__load_armed()) return 0;
    uint32_t n = __atomic_load_n(&L.ndomains, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n; i++) {
        /* live unknown (a free of memory it never saw): no sample, as no frame value */
        if (__atomic_load_n(&L.domains[i].underflow, __ATOMIC_RELAXED)) continue;
        const ludus_site *site = ludus__site_by_id(L.dinfo[i].site_id);
        int64_t live = __atomic_load_n(&L.domains[i].live, __ATOMIC_RELAXED) +
                       __atomic_load_n(&L.dinfo[i].baseline_bytes, __ATOMIC_RELAXED);
        if (site) ludus__emit_value((uintptr_t)site | LUDUS__KIND_COUNTER, (uint64_t)live, 0);
    }
    return (int)n;
}

/* ---- the frame ---- */

int ludus__ring_configure(uint32_t frames) {
    if (frames < 2 || frames > LUDUS__RING_MAX) return LUDUS_EINVAL;
    lock();
    int rc = L.ring.rows ? LUDUS_EBUSY : 0;
    if (rc == 0) L.ring_frames_wanted = frames;
    ludus__mutex_unlock(&L.lock);
    return rc;
}

static void record_stat(stat_list *out, const ludus_site *site, unsigned stat, int64_t v) {
    if (out && site) out->r[out->n++] = (stat_rec){site, stat, v};
}

/* Closes the frame into the ring's next row (lock held); out (NULL when no
 * capture runs) collects what to record. */
static void snapshot(int64_t now, stat_list *out) {
    ludus__ring *r = &L.ring;
    if (!r->rows) {
        r->cap = L.ring_frames_wanted;
        r->rows = ludus__calloc(r->cap, sizeof *r->rows);
        r->values = ludus__calloc((size_t)r->cap * LUDUS__ROW_VALUES, sizeof *r->values);
        if (!r->rows || !r->values) {
            ludus__free(r->rows);
            ludus__free(r->values);
            r->rows = NULL;
            r->values = NULL;
            return;
        }
    }
    uint32_t at = (uint32_t)(r->closed % r->cap);
    ludus__ring_row *row = &r->rows[at];
    int64_t *v = &r->values[(size_t)at * LUDUS__ROW_VALUES];
    row->number = L.marks - 1; /* 0: the lead-in, before the first mark */
    row->begin_ns = L.last_mark_ns;
    row->end_ns = now;
    row->ncounters = L.ncounters;
    row->ngauges = L.ngauges;
    row->gauges_set = 0;
    row->domains_unknown = 0;
    row->ndomains = L.ndomains;
    for (uint32_t i = 0; i < L.ncounters; i++) {
        uint32_t slot = L.counters[i]->slot;
        int64_t t = slot_total(slot);
        v[LUDUS__ROW_COUNTER(i)] = (int64_t)((uint64_t)t - (uint64_t)L.seen[slot]);
        L.seen[slot] = t;
        record_stat(out, &L.counters[i]->site, LUDUS__STAT_SUM, v[LUDUS__ROW_COUNTER(i)]);
    }
    for (uint32_t i = 0; i < L.ngauges; i++) {
        ludus__gauge_state *g = &ludus__gauges[i];
        int64_t mn = __atomic_exchange_n(&g->min, INT64_MAX, __ATOMIC_RELAXED);
        int64_t mx = __atomic_exchange_n(&g->max, INT64_MIN, __ATOMIC_RELAXED);
        int64_t last = __atomic_load_n(&g->last, __ATOMIC_RELAXED);
        int64_t carry = L.gauge_level[i];
        int carried = L.gauge_has_level[i];
        int64_t *gv = &v[LUDUS__ROW_GAUGE(i)];
        /* Set in this frame: every value lowers min or raises max (INT64_MAX
         * raises max), so no value is a sentinel of "not set" (the old test,
         * min still INT64_MAX, took a gauge at INT64_MAX for none). */
        int set = mn != INT64_MAX || mx != INT64_MIN;
        if (!set && !carried) { /* registered, its first value not stored yet: nothing to record */
            gv[0] = gv[1] = gv[2] = 0;
            continue;
        }
        row->gauges_set |= 1u << i;
        if (last < mn) mn = last;
        if (last > mx) mx = last;
        if (carried && carry < mn) mn = carry;
        if (carried && carry > mx) mx = carry;
        gv[0] = last;
        gv[1] = mn;
        gv[2] = mx;
        L.gauge_level[i] = last;
        L.gauge_has_level[i] = 1;
        for (unsigned k = 0; k < 3; k++) record_stat(out, &L.gauges[i]->site, LUDUS__STAT_LAST + k, gv[k]);
    }
    for (uint32_t i = 0; i < L.ndomains; i++) {
        domain *m = &L.domains[i];
        ludus__domain_info d;
        domain_now(i, &d);
        int64_t *dv = &v[LUDUS__ROW_DOMAIN(i)];
        int64_t live_raw = d.live_bytes - d.baseline_bytes;
        int64_t fp = __atomic_exchange_n(&m->frame_peak, live_raw, __ATOMIC_RELAXED) + d.baseline_bytes;
        dv[LUDUS__STAT_MEM_LIVE - LUDUS__STAT_MEM_LIVE] = d.live_bytes;
        dv[LUDUS__STAT_MEM_LIVE_ALLOCS - LUDUS__STAT_MEM_LIVE] = d.live_allocs;
        dv[LUDUS__STAT_MEM_PEAK - LUDUS__STAT_MEM_LIVE] = fp > d.live_bytes ? fp : d.live_bytes;
        const int64_t tot[4] = {d.alloc_bytes, d.allocs, d.free_bytes, d.frees};
        for (uint32_t k = 0; k < 4; k++) {
            dv[LUDUS__STAT_MEM_ALLOC_BYTES - LUDUS__STAT_MEM_LIVE + k] = tot[k] - L.seen[m->slot + k];
            L.seen[m->slot + k] = tot[k];
        }
        if (dv[2] > L.dinfo[i].peak_bytes) L.dinfo[i].peak_bytes = dv[2];
        const ludus_site *site = ludus__site_by_id(L.dinfo[i].site_id);
        /* A free of memory allocated before the hooks ran (no baseline) took
         * live below zero: live, its allocations and peak are not known, so
         * they are not recorded (a value would be a wrong one, negative or
         * short by the unseen memory); churn stays exact. The manifest and
         * the ring say so. */
        if (d.underflow) row->domains_unknown |= 1u << i;
        for (unsigned k = 0; k < LUDUS__DOMAIN_VALUES; k++) {
            unsigned stat = LUDUS__STAT_MEM_LIVE + k;
            if (d.underflow &&
                (stat == LUDUS__STAT_MEM_LIVE || stat == LUDUS__STAT_MEM_LIVE_ALLOCS || stat == LUDUS__STAT_MEM_PEAK))
                continue;
            record_stat(out, site, stat, dv[k]);
        }
    }
    r->closed++;
}

static void emit_stats(const stat_list *out) {
    for (uint32_t i = 0; i < out->n; i++)
        ludus__emit_value((uintptr_t)out->r[i].site | LUDUS__KIND_FRAME_STAT, (uint64_t)out->r[i].value,
                          out->r[i].stat);
}

/* Apart: the rolling window (src/flight/rolling.c) sets it (record.h). */
void (*ludus__frame_hook)(void);

void ludus__frame_tick(void) {
    int armed = ludus__load_armed() != 0;
    if (armed) {
        /* the thread's CPU time at the mark (once per frame, out of line:
         * what makes a long frame work or waiting, docs/analysis.md) */
        int64_t cpu = ludus__thread_cpu_ns();
        if (cpu >= 0)
            ludus__frame_with_cpu(cpu);
        else
            ludus__frame();
        void (*hook)(void) = __atomic_load_n(&ludus__frame_hook, __ATOMIC_ACQUIRE);
        if (hook) hook();
    }
    if (!__atomic_load_n(&L.ncounters, __ATOMIC_ACQUIRE) && !__atomic_load_n(&L.ngauges, __ATOMIC_ACQUIRE) &&
        !__atomic_load_n(&L.ndomains, __ATOMIC_ACQUIRE) && !__atomic_load_n(&L.ring.want, __ATOMIC_RELAXED))
        return;
    int64_t now = ludus__mono_ns();
    stat_list *out = armed ? ludus__malloc(sizeof *out) : NULL; /* 8 KiB: not on a game thread's stack */
    /* Without memory the records come from L.spare. */
    int spare_used = armed && !out;
    if (spare_used) out = &L.spare;
    if (out) out->n = 0;
    lock();
    L.marks++;
    snapshot(now, out);
    L.last_mark_ns = now;
    if (spare_used) emit_stats(out);
    ludus__mutex_unlock(&L.lock);
    if (!out || spare_used) return;
    emit_stats(out);
    ludus__free(out);
}

/* ---- readers (the overlay, the live API, the capture's manifest) ---- */

void ludus__live_lock(void) {
    lock();
}
void ludus__live_unlock(void) {
    ludus__mutex_unlock(&L.lock);
}

const ludus__ring *ludus__live_ring(void) {
    return &L.ring;
}

void ludus__live_want_frames(void) {
    __atomic_store_n(&L.ring.want, 1u, __ATOMIC_RELAXED);
}

uint32_t ludus__live_items(ludus__live_item *out, uint32_t cap) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < L.ncounters && n < cap; i++)
        out[n++] = (ludus__live_item){LUDUS__OWNER_COUNT, i, &L.counters[i]->site, NULL};
    for (uint32_t i = 0; i < L.ngauges && n < cap; i++)
        out[n++] = (ludus__live_item){LUDUS__OWNER_GAUGE, i, &L.gauges[i]->site, NULL};
    for (uint32_t i = 0; i < L.ndomains && n < cap; i++)
        out[n++] = (ludus__live_item){LUDUS__OWNER_MEMORY, i, NULL, L.dinfo[i].name};
    return n;
}

uint32_t ludus__live_domains(ludus__domain_info *out, uint32_t cap) {
    uint32_t n = L.ndomains < cap ? L.ndomains : cap;
    for (uint32_t i = 0; i < n; i++) domain_now(i, &out[i]);
    return n;
}

uint32_t ludus__live_outside(ludus__outside_note *out, uint32_t cap) {
    uint32_t n = L.noutside < cap ? L.noutside : cap;
    memcpy(out, L.outside, n * sizeof *out);
    return n;
}

uint32_t ludus__live_refused(void) {
    return __atomic_load_n(&L.refused, __ATOMIC_RELAXED);
}

uint64_t ludus__live_lost_adds(void) {
    return __atomic_load_n(&L.lost_adds, __ATOMIC_RELAXED);
}

uint64_t ludus__live_shard_bytes(void) {
    return (uint64_t)L.nshards * sizeof(shard);
}

/* fork: the lock is taken around it, so the child's copy is consistent;
 * the other threads' shards stay in the list (what they added stays in the
 * totals; they never exit in the child). */
static void fork_lock(void) {
    ludus__mutex_lock(&L.lock);
}
static void fork_unlock(void) {
    ludus__mutex_unlock(&L.lock);
}
static void counters_fork_install(void) {
    ludus__on_fork(fork_lock, fork_unlock, fork_unlock);
}
void ludus__counters_crash_reset(void) {
    ludus__mutex_init(&L.lock);
}
