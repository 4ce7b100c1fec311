/* Async zones (ludus_async_begin / _end): they begin and end on any
 * thread, so they are paired across the whole capture, not per thread.
 * While a capture is prepared, each ASYNC event of each thread's stream is
 * noted; then the events are paired per (track, id) in time order (an end
 * closes the most recent open zone of its track and id), what is still open
 * ends at capture end (INCOMPLETE), and each track's zones get lanes: a zone
 * at depth 0 takes the first lane free at its begin, zones inside it share
 * it. Tracks are known by name. A view (a cut) clips its parent's zones to
 * its time range, and a subset of threads keeps the zones they began or
 * ended. */
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../base/grow.h"

int ludus__async_note(ludus_capture *c, uint32_t thread, const ludus__nev *ev) {
    if (LUDUS__GROW(c->async.raw, c->async.nraw, c->async.raw_cap, 256) != 0) return LUDUS_ENOMEM;
    ludus__async_raw *r = &c->async.raw[c->async.nraw];
    r->ts = ev->ts_ns;
    r->thread = thread;
    r->track_site = ev->series;
    r->site = ev->site;
    r->end = ev->kind == LUDUS_NEV_ASYNC_END;
    r->id = ev->value;
    r->seq = c->async.nraw++;
    return 0;
}

void ludus__async_free(ludus_capture *c) {
    ludus__free(c->async.zones);
    ludus__free(c->async.tracks);
    ludus__free(c->async.raw);
    c->async.zones = NULL;
    c->async.tracks = NULL;
    c->async.raw = NULL;
    c->async.n = c->async.ntracks = c->async.tracks_cap = 0;
    c->async.nraw = c->async.raw_cap = 0;
    c->async.unmatched = 0;
}

/* Tracks by name while a capture's zones are built: an open-addressing
 * table of track index + 1, so each event finds its track in O(1). */
typedef struct track_table {
    uint32_t *slot;
    uint32_t cap;
} track_table;

static const char *track_name(const ludus_capture *c, uint32_t site) {
    return site != UINT32_MAX ? c->sites[site].name : "<invalid track>";
}

static uint32_t name_hash(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int table_grow(ludus_capture *c, track_table *tt) {
    uint32_t cap = tt->cap ? tt->cap * 2 : 64;
    uint32_t *slot = ludus__calloc(cap, sizeof *slot);
    if (!slot) return LUDUS_ENOMEM;
    for (uint32_t i = 0; i < c->async.ntracks; i++) {
        uint32_t k = name_hash(track_name(c, c->async.tracks[i].site)) & (cap - 1);
        while (slot[k]) k = (k + 1) & (cap - 1);
        slot[k] = i + 1;
    }
    ludus__free(tt->slot);
    tt->slot = slot;
    tt->cap = cap;
    return 0;
}

/* The track with this site's name, added when new. */
static int track_of(ludus_capture *c, track_table *tt, uint32_t site, uint32_t *out) {
    if ((c->async.ntracks + 1) * 2 > tt->cap && table_grow(c, tt) != 0) return LUDUS_ENOMEM;
    const char *name = track_name(c, site);
    uint32_t k = name_hash(name) & (tt->cap - 1);
    for (; tt->slot[k]; k = (k + 1) & (tt->cap - 1))
        if (strcmp(track_name(c, c->async.tracks[tt->slot[k] - 1].site), name) == 0) {
            *out = tt->slot[k] - 1;
            return 0;
        }
    if (LUDUS__GROW(c->async.tracks, c->async.ntracks, c->async.tracks_cap, 16) != 0) return LUDUS_ENOMEM;
    c->async.tracks[c->async.ntracks] = (ludus__async_track){site, 0};
    tt->slot[k] = c->async.ntracks + 1;
    *out = c->async.ntracks++;
    return 0;
}

static int cmp_raw(const void *a, const void *b) {
    const ludus__async_raw *x = a, *y = b;
    if (x->track_site != y->track_site) return x->track_site < y->track_site ? -1 : 1;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts) return x->ts < y->ts ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_zone(const void *a, const void *b) {
    const ludus__async_zone *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->begin_ns != y->begin_ns) return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    return x->end_ns > y->end_ns ? -1 : x->end_ns < y->end_ns;
}

/* Binary heaps of lanes for assign_lanes: busy lanes by end time, free
 * lanes by index. */
typedef struct lane_heap {
    uint32_t *lane;
    uint32_t n;
} lane_heap;

static int heap_less(const lane_heap *h, const int64_t *end, uint32_t i, uint32_t j) {
    if (!end) return h->lane[i] < h->lane[j];
    return end[h->lane[i]] < end[h->lane[j]] || (end[h->lane[i]] == end[h->lane[j]] && h->lane[i] < h->lane[j]);
}

static void heap_push(lane_heap *h, const int64_t *end, uint32_t lane) {
    uint32_t i = h->n++;
    h->lane[i] = lane;
    while (i && heap_less(h, end, i, (i - 1) / 2)) {
        uint32_t p = (i - 1) / 2, t = h->lane[p];
        h->lane[p] = h->lane[i];
        h->lane[i] = t;
        i = p;
    }
}

static uint32_t heap_pop(lane_heap *h, const int64_t *end) {
    uint32_t top = h->lane[0];
    h->lane[0] = h->lane[--h->n];
    for (uint32_t i = 0;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && heap_less(h, end, l, m)) m = l;
        if (r < h->n && heap_less(h, end, r, m)) m = r;
        if (m == i) break;
        uint32_t t = h->lane[m];
        h->lane[m] = h->lane[i];
        h->lane[i] = t;
        i = m;
    }
    return top;
}

/* Lanes of each track: zones sorted by track and begin (outer first). A
 * zone at depth 0 takes the lowest lane free at its begin (one whose last
 * zone ended by then: begins only grow, so a lane freed stays free until it
 * is taken); the busy lanes wait in a heap by end, the freed ones in a heap
 * by index: O(n log n), however many lanes. */
static int assign_lanes(ludus_capture *c) {
    int64_t *lane_end = ludus__malloc((c->async.n ? c->async.n : 1) * sizeof *lane_end);
    lane_heap busy = {ludus__malloc((c->async.n ? c->async.n : 1) * sizeof *busy.lane), 0};
    lane_heap freed = {ludus__malloc((c->async.n ? c->async.n : 1) * sizeof *freed.lane), 0};
    if (!lane_end || !busy.lane || !freed.lane) {
        ludus__free(lane_end);
        ludus__free(busy.lane);
        ludus__free(freed.lane);
        return LUDUS_ENOMEM;
    }
    for (uint32_t i = 0; i < c->async.n;) {
        uint32_t t = c->async.zones[i].track, used = 0;
        busy.n = freed.n = 0;
        for (; i < c->async.n && c->async.zones[i].track == t; i++) {
            ludus__async_zone *z = &c->async.zones[i];
            if (z->depth > 0) continue; /* set with its outermost zone below */
            while (busy.n && lane_end[busy.lane[0]] <= z->begin_ns) heap_push(&freed, NULL, heap_pop(&busy, lane_end));
            uint32_t k = freed.n ? heap_pop(&freed, NULL) : used++;
            lane_end[k] = z->end_ns;
            heap_push(&busy, lane_end, k);
            z->lane = k;
        }
        c->async.tracks[t].lanes = used;
    }
    ludus__free(lane_end);
    ludus__free(busy.lane);
    ludus__free(freed.lane);
    return 0;
}

/* Nested zones take their outermost zone's lane: in begin order (outer
 * first), the last zone of the same track and id at depth 0. A table of
 * (track, id) -> that zone's lane, open addressing. */
static int nested_lanes(ludus_capture *c) {
    uint32_t cap = 64;
    while (cap < 2 * (uint64_t)c->async.n + 2) cap *= 2;
    uint32_t *slot = ludus__calloc(cap, sizeof *slot); /* zone index + 1 */
    if (!slot) return LUDUS_ENOMEM;
    for (uint32_t i = 0; i < c->async.n; i++) {
        ludus__async_zone *z = &c->async.zones[i];
        uint64_t h = (z->id * 0x9E3779B97F4A7C15ull) ^ ((uint64_t)z->track * 0xC2B2AE3D27D4EB4Full);
        uint32_t k = (uint32_t)(h >> 32) & (cap - 1);
        while (slot[k] && !(c->async.zones[slot[k] - 1].track == z->track && c->async.zones[slot[k] - 1].id == z->id))
            k = (k + 1) & (cap - 1);
        if (z->depth == 0)
            slot[k] = i + 1;
        else if (slot[k])
            z->lane = c->async.zones[slot[k] - 1].lane;
    }
    ludus__free(slot);
    return 0;
}

/* A view: the parent's zones that meet [cut_from_ns, cut_to_ns], clipped. */
static int clip_parent(ludus_capture *c) {
    const ludus_capture *p = c->parent;
    if (p->async.ntracks) {
        c->async.tracks = ludus__malloc(p->async.ntracks * sizeof *c->async.tracks);
        if (!c->async.tracks) return LUDUS_ENOMEM;
        memcpy(c->async.tracks, p->async.tracks, p->async.ntracks * sizeof *c->async.tracks);
        c->async.ntracks = p->async.ntracks;
    }
    c->async.zones = ludus__malloc((p->async.n ? p->async.n : 1) * sizeof *c->async.zones);
    uint32_t *map = ludus__malloc((p->nthreads ? p->nthreads : 1) * sizeof *map); /* parent thread -> view thread */
    if (!c->async.zones || !map) {
        ludus__free(map);
        return LUDUS_ENOMEM;
    }
    int subset = 0;
    for (uint32_t t = 0; t < p->nthreads; t++) {
        map[t] = UINT32_MAX;
        for (uint32_t v = 0; v < c->nthreads; v++)
            if (c->threads[v].tid == p->threads[t].tid) map[t] = v;
        subset |= map[t] == UINT32_MAX;
    }
    for (uint32_t i = 0; i < p->async.n; i++) {
        ludus__async_zone z = p->async.zones[i];
        if (z.end_ns < c->cut_from_ns || z.begin_ns > c->cut_to_ns) continue;
        if (z.begin_ns < c->cut_from_ns) z.begin_ns = c->cut_from_ns, z.flags |= LUDUS_NEV_CLIPPED;
        if (z.end_ns > c->cut_to_ns) { /* its end is the cut's, not the capture's */
            z.end_ns = c->cut_to_ns;
            z.flags = (uint16_t)((z.flags & ~LUDUS_NEV_INCOMPLETE) | LUDUS__ASYNC_END_CLIPPED);
        }
        z.begin_thread = z.begin_thread != UINT32_MAX ? map[z.begin_thread] : UINT32_MAX;
        z.end_thread = z.end_thread != UINT32_MAX ? map[z.end_thread] : UINT32_MAX;
        /* a subset of threads keeps the zones its threads began or ended */
        if (subset && z.begin_thread == UINT32_MAX && z.end_thread == UINT32_MAX) continue;
        c->async.zones[c->async.n++] = z;
    }
    ludus__free(map);
    c->async.unmatched = p->async.unmatched;
    return 0;
}

int ludus__async_build(ludus_capture *c) {
    c->async.ready = 1;
    if (c->parent) {
        ludus__free(c->async.raw);
        c->async.raw = NULL;
        c->async.nraw = c->async.raw_cap = 0;
        int rc = ludus__async_ensure(c->parent);
        return rc ? rc : clip_parent(c);
    }
    int rc = 0;
    size_t n = c->async.nraw;
    uint32_t *open = NULL, nopen = 0;
    if (n == 0) goto done;
    track_table tt = {NULL, 0};
    for (size_t i = 0; i < n && rc == 0; i++) /* tracks by name: begin and end may name them from different sites */
        rc = track_of(c, &tt, c->async.raw[i].track_site, &c->async.raw[i].track_site);
    ludus__free(tt.slot);
    if (rc) goto done;
    ludus__qsort(c->async.raw, n, sizeof *c->async.raw, cmp_raw);
    c->async.zones = ludus__malloc(n * sizeof *c->async.zones);
    open = ludus__malloc(n * sizeof *open);
    if (!c->async.zones || !open) {
        rc = LUDUS_ENOMEM;
        goto done;
    }
    int64_t end = c->end_ns - c->start_ns;
    for (size_t i = 0; i < n; i++) {
        const ludus__async_raw *r = &c->async.raw[i];
        if (i == 0 || r->track_site != r[-1].track_site || r->id != r[-1].id) {
            while (nopen) c->async.zones[open[--nopen]].end_ns = end; /* flags set at begin */
        }
        if (r->end) {
            if (nopen == 0) {
                c->async.unmatched++;
                continue;
            }
            ludus__async_zone *z = &c->async.zones[open[--nopen]];
            z->end_ns = r->ts < z->begin_ns ? z->begin_ns : r->ts;
            z->end_thread = r->thread;
            z->flags &= (uint16_t)~LUDUS_NEV_INCOMPLETE;
            continue;
        }
        ludus__async_zone *z = &c->async.zones[c->async.n];
        *z = (ludus__async_zone){r->track_site,        r->site, 0,     nopen, r->thread, UINT32_MAX,
                                 LUDUS_NEV_INCOMPLETE, r->id,   r->ts, end};
        open[nopen++] = c->async.n++;
    }
    if (rc == 0) {
        ludus__qsort(c->async.zones, c->async.n, sizeof *c->async.zones, cmp_zone);
        /* nested zones take their outermost zone's lane: in begin order, the
         * enclosing zone of the same id is the last one at depth - 1 */
        rc = assign_lanes(c);
        if (rc == 0) rc = nested_lanes(c);
    }
done:
    ludus__free(open);
    ludus__free(c->async.raw);
    c->async.raw = NULL;
    c->async.nraw = c->async.raw_cap = 0;
    return rc;
}

/* A capture file brings its counts but not its zones: one pass over its
 * streams finds them, the first time they are needed. */
int ludus__async_ensure(ludus_capture *c) {
    if (c->async.ready) return c->async.error;
    int rc = 0;
    for (uint32_t t = 0; t < c->nthreads && rc == 0 && !c->parent; t++) {
        /* a thread known to hold none is not read: a whole decoding pass, a fifth of a report */
        if (c->threads[t].async_counted && c->threads[t].async_events == 0) continue;
        ludus__nev_iter it;
        const ludus__nev *ev;
        rc = ludus__nev_init(&it, c, t);
        while (rc == 0 && (ev = ludus__nev_get(&it)) != NULL)
            if (ev->kind == LUDUS_NEV_ASYNC_BEGIN || ev->kind == LUDUS_NEV_ASYNC_END) rc = ludus__async_note(c, t, ev);
        if (rc == 0) rc = ludus__nev_error(&it);
        ludus__nev_free(&it);
    }
    if (rc == 0) rc = ludus__async_build(c);
    c->async.ready = 1;
    c->async.error = rc;
    return rc;
}
