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

#include "capture_internal.h"

int ludus__async_note(ludus_capture *c, uint32_t thread, const ludus__nev *ev) {
    if (c->nasync_raw == c->async_raw_cap) {
        size_t cap = c->async_raw_cap ? c->async_raw_cap * 2 : 256;
        ludus__async_raw *r = ludus__realloc(c->async_raw, cap * sizeof *r);
        if (!r) return LUDUS_ENOMEM;
        c->async_raw = r;
        c->async_raw_cap = cap;
    }
    ludus__async_raw *r = &c->async_raw[c->nasync_raw];
    r->ts = ev->ts_ns;
    r->thread = thread;
    r->track_site = ev->series;
    r->site = ev->site;
    r->end = ev->kind == LUDUS_NEV_ASYNC_END;
    r->id = ev->value;
    r->seq = c->nasync_raw++;
    return 0;
}

void ludus__async_free(ludus_capture *c) {
    ludus__free(c->async);
    ludus__free(c->async_tracks);
    ludus__free(c->async_raw);
    c->async = NULL;
    c->async_tracks = NULL;
    c->async_raw = NULL;
    c->nasync = c->nasync_tracks = 0;
    c->nasync_raw = c->async_raw_cap = 0;
    c->async_unmatched = 0;
}

/* The track with this site's name, added when new. */
static int track_of(ludus_capture *c, uint32_t site, uint32_t *out) {
    const char *name = site != UINT32_MAX ? c->sites[site].name : "<invalid track>";
    for (uint32_t i = 0; i < c->nasync_tracks; i++) {
        uint32_t s = c->async_tracks[i].site;
        const char *n = s != UINT32_MAX ? c->sites[s].name : "<invalid track>";
        if (strcmp(n, name) == 0) {
            *out = i;
            return 0;
        }
    }
    ludus__async_track *t = ludus__realloc(c->async_tracks, (c->nasync_tracks + 1) * sizeof *t);
    if (!t) return LUDUS_ENOMEM;
    c->async_tracks = t;
    t[c->nasync_tracks] = (ludus__async_track){site, 0};
    *out = c->nasync_tracks++;
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

/* Lanes of each track: zones sorted by track and begin (outer first). */
static int assign_lanes(ludus_capture *c) {
    int64_t *lane_end = NULL;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < c->nasync;) {
        uint32_t t = c->async[i].track, used = 0;
        for (; i < c->nasync && c->async[i].track == t; i++) {
            ludus__async_zone *z = &c->async[i];
            if (z->depth > 0) continue; /* set with its outermost zone below */
            uint32_t k = 0;
            while (k < used && lane_end[k] > z->begin_ns) k++;
            if (k == used) {
                if (used == cap) {
                    uint32_t nc = cap ? cap * 2 : 8;
                    int64_t *n = ludus__realloc(lane_end, nc * sizeof *n);
                    if (!n) {
                        ludus__free(lane_end);
                        return LUDUS_ENOMEM;
                    }
                    lane_end = n;
                    cap = nc;
                }
                used++;
            }
            lane_end[k] = z->end_ns;
            z->lane = k;
        }
        c->async_tracks[t].lanes = used;
    }
    ludus__free(lane_end);
    return 0;
}

/* A view: the parent's zones that meet [cut_from_ns, cut_to_ns], clipped. */
static int clip_parent(ludus_capture *c) {
    const ludus_capture *p = c->parent;
    if (p->nasync_tracks) {
        c->async_tracks = ludus__malloc(p->nasync_tracks * sizeof *c->async_tracks);
        if (!c->async_tracks) return LUDUS_ENOMEM;
        memcpy(c->async_tracks, p->async_tracks, p->nasync_tracks * sizeof *c->async_tracks);
        c->nasync_tracks = p->nasync_tracks;
    }
    c->async = ludus__malloc((p->nasync ? p->nasync : 1) * sizeof *c->async);
    uint32_t *map = ludus__malloc((p->nthreads ? p->nthreads : 1) * sizeof *map); /* parent thread -> view thread */
    if (!c->async || !map) {
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
    for (uint32_t i = 0; i < p->nasync; i++) {
        ludus__async_zone z = p->async[i];
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
        c->async[c->nasync++] = z;
    }
    ludus__free(map);
    c->async_unmatched = p->async_unmatched;
    return 0;
}

int ludus__async_build(ludus_capture *c) {
    c->async_ready = 1;
    if (c->parent) {
        ludus__free(c->async_raw);
        c->async_raw = NULL;
        c->nasync_raw = c->async_raw_cap = 0;
        int rc = ludus__async_ensure(c->parent);
        return rc ? rc : clip_parent(c);
    }
    int rc = 0;
    size_t n = c->nasync_raw;
    uint32_t *open = NULL, nopen = 0;
    if (n == 0) goto done;
    for (size_t i = 0; i < n; i++) /* tracks by name: begin and end may name them from different sites */
        if ((rc = track_of(c, c->async_raw[i].track_site, &c->async_raw[i].track_site)) != 0) goto done;
    ludus__qsort(c->async_raw, n, sizeof *c->async_raw, cmp_raw);
    c->async = ludus__malloc(n * sizeof *c->async);
    open = ludus__malloc(n * sizeof *open);
    if (!c->async || !open) {
        rc = LUDUS_ENOMEM;
        goto done;
    }
    int64_t end = c->end_ns - c->start_ns;
    for (size_t i = 0; i < n; i++) {
        const ludus__async_raw *r = &c->async_raw[i];
        if (i == 0 || r->track_site != r[-1].track_site || r->id != r[-1].id) {
            while (nopen) c->async[open[--nopen]].end_ns = end; /* flags set at begin */
        }
        if (r->end) {
            if (nopen == 0) {
                c->async_unmatched++;
                continue;
            }
            ludus__async_zone *z = &c->async[open[--nopen]];
            z->end_ns = r->ts < z->begin_ns ? z->begin_ns : r->ts;
            z->end_thread = r->thread;
            z->flags &= (uint16_t)~LUDUS_NEV_INCOMPLETE;
            continue;
        }
        ludus__async_zone *z = &c->async[c->nasync];
        *z = (ludus__async_zone){r->track_site,        r->site, 0,     nopen, r->thread, UINT32_MAX,
                                 LUDUS_NEV_INCOMPLETE, r->id,   r->ts, end};
        open[nopen++] = c->nasync++;
    }
    if (rc == 0) {
        ludus__qsort(c->async, c->nasync, sizeof *c->async, cmp_zone);
        /* nested zones take their outermost zone's lane: in begin order, the
         * enclosing zone of the same id is the last one at depth - 1 */
        rc = assign_lanes(c);
        for (uint32_t i = 0; i < c->nasync && rc == 0; i++) {
            ludus__async_zone *z = &c->async[i];
            if (z->depth == 0) continue;
            for (uint32_t j = i; j-- > 0 && c->async[j].track == z->track;)
                if (c->async[j].id == z->id && c->async[j].depth == z->depth - 1) {
                    z->lane = c->async[j].lane;
                    break;
                }
        }
    }
done:
    ludus__free(open);
    ludus__free(c->async_raw);
    c->async_raw = NULL;
    c->nasync_raw = c->async_raw_cap = 0;
    return rc;
}

/* A capture file brings its counts but not its zones: one pass over its
 * streams finds them, the first time they are needed. */
int ludus__async_ensure(ludus_capture *c) {
    if (c->async_ready) return c->async_error;
    int rc = 0;
    for (uint32_t t = 0; t < c->nthreads && rc == 0 && !c->parent; t++) {
        ludus__nev_iter it;
        const ludus__nev *ev;
        rc = ludus__nev_init(&it, c, t);
        while (rc == 0 && (ev = ludus__nev_get(&it)) != NULL)
            if (ev->kind == LUDUS_NEV_ASYNC_BEGIN || ev->kind == LUDUS_NEV_ASYNC_END) rc = ludus__async_note(c, t, ev);
        if (rc == 0) rc = ludus__nev_error(&it);
        ludus__nev_free(&it);
    }
    if (rc == 0) rc = ludus__async_build(c);
    c->async_ready = 1;
    c->async_error = rc;
    return rc;
}
