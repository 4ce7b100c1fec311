/* The overlay's top scopes: from a capture object (a rolling window's
 * snapshot, a cut, an ended capture), the scopes with the most exclusive
 * time per frame over its last complete frames, and in the last one. One
 * pass over each thread's normalised stream, on the caller's thread; the
 * frame thread and the hot path do nothing for it. */
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <stdlib.h>
#include <string.h>

#include "../capture/nev.h"
#include "../base/grow.h"

typedef struct open_call {
    int64_t begin, covered_until, child_cov;
    uint64_t frame; /* on the frame thread: marks passed at its begin */
    uint32_t site;
    int fiber;
} open_call;

typedef struct lane {
    open_call *e;
    uint32_t depth, cap;
} lane;

typedef struct site_acc {
    int64_t excl, last_excl;
    uint64_t calls, last_calls;
} site_acc;

typedef struct top_pass {
    const ludus__captured *c;
    site_acc *acc;
    lane lanes[LUDUS__MAX_LANES];
    /* the window: frames first..last, between marks first and last + 1
     * (counted from 1) of the frame thread */
    uint64_t first, last;
    int64_t w0, w1, last0; /* window begin and end, the last frame's begin (read on the frame thread) */
    uint64_t marks_seen;
    int frame_thread; /* the thread being read is the frame thread */
    uint64_t incomplete;
} top_pass;

/* Adds one ended call of the window (its begin in it) to its site. */
static void count_call(top_pass *p, const open_call *o, int64_t end, uint16_t flags) {
    /* its frame: on the frame thread the stream's order with the marks
     * decides, elsewhere the marks' times (as the analysis does) */
    int in_last;
    if (p->frame_thread) {
        if (o->frame < p->first || o->frame > p->last) return;
        in_last = o->frame == p->last;
    } else {
        if (o->begin < p->w0 || o->begin >= p->w1) return;
        in_last = o->begin >= p->last0;
    }
    if (flags & (LUDUS_NEV_INCOMPLETE | LUDUS_NEV_UNWOUND)) {
        p->incomplete++;
        return;
    }
    if (o->site >= p->c->nsites) return;
    int64_t dur = end - o->begin;
    int64_t excl = dur - (o->child_cov < dur ? o->child_cov : dur);
    site_acc *a = &p->acc[o->site];
    a->excl += excl;
    a->calls++;
    if (in_last) {
        a->last_excl += excl;
        a->last_calls++;
    }
}

static int run_thread(top_pass *p, uint32_t t) {
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) p->lanes[k].depth = 0;
    ludus__nev_iter it;
    const ludus__nev *e;
    int rc = ludus__nev_init(&it, p->c, t);
    if (rc) {
        ludus__nev_free(&it);
        return rc;
    }
    while ((e = ludus__nev_get(&it)) != NULL) {
        lane *L = &p->lanes[e->lane < LUDUS__MAX_LANES ? e->lane : LUDUS__MAX_LANES - 1];
        if (e->kind == LUDUS_NEV_FRAME) {
            if (!p->frame_thread) continue;
            uint64_t m = ++p->marks_seen;
            if (m == p->first) p->w0 = e->ts_ns;
            if (m == p->last) p->last0 = e->ts_ns;
            if (m == p->last + 1) p->w1 = e->ts_ns;
        } else if (e->kind == LUDUS_NEV_BEGIN) {
            if (LUDUS__GROW(L->e, L->depth, L->cap, 64) != 0) {
                rc = LUDUS_ENOMEM;
                break;
            }
            open_call *o = &L->e[L->depth++];
            o->begin = o->covered_until = e->ts_ns;
            o->child_cov = 0;
            o->frame = p->marks_seen;
            o->site = e->site;
            o->fiber = (e->flags & LUDUS_NEV_FIBER) != 0; /* its work is on the fiber's track */
        } else if (e->kind == LUDUS_NEV_END) {
            if (L->depth == 0) continue; /* the stream pairs: cannot happen */
            open_call o = L->e[--L->depth];
            int64_t end = e->ts_ns < o.begin ? o.begin : e->ts_ns;
            if (L->depth) { /* the parent's union of its children */
                open_call *par = &L->e[L->depth - 1];
                int64_t lo = o.begin > par->covered_until ? o.begin : par->covered_until;
                if (end > lo) {
                    par->child_cov += end - lo;
                    par->covered_until = end;
                }
            }
            if (!o.fiber) count_call(p, &o, end, e->flags);
        }
    }
    if (rc == 0) rc = ludus__nev_error(&it);
    ludus__nev_free(&it);
    return rc;
}

typedef struct ranked {
    int64_t excl;
    uint32_t site;
} ranked;

static int cmp_ranked(const void *x, const void *y) {
    const ranked *a = x, *b = y;
    if (a->excl != b->excl) return a->excl > b->excl ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

int ludus_overlay_top_scopes(ludus_capture *c, const ludus_overlay_desc *desc, ludus_top_scope *out, uint32_t cap,
                             ludus_top_window *window) {
    if (!c) return ludus__fail(LUDUS_EINVAL, "no capture");
    if (!out && cap) return ludus__fail(LUDUS_EINVAL, "out is NULL and cap is not 0");
    uint32_t want = desc && desc->window_frames ? desc->window_frames : 120;
    int rc = ludus__prepare(c);
    if (rc) return rc;
    uint32_t ft = UINT32_MAX;
    uint64_t best = 0;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (c->threads[t].frames > best) best = c->threads[t].frames, ft = t;
    if (best < 2)
        return ludus__fail(LUDUS_ENODATA,
                           "the capture holds no complete frame (two LUDUS_PROFILE_FRAME on one thread)");
    /* the prepared counts are the stream's own: the window is known before reading it */
    uint32_t frames = best - 1 < want ? (uint32_t)(best - 1) : want;
    top_pass p;
    memset(&p, 0, sizeof p);
    p.c = c;
    p.last = best - 1;
    p.first = best - frames;
    p.acc = ludus__calloc(c->nsites ? c->nsites : 1, sizeof *p.acc);
    ranked *rk = ludus__malloc((c->nsites ? c->nsites : 1) * sizeof *rk);
    if (!p.acc || !rk) {
        rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
        goto done;
    }
    p.frame_thread = 1; /* first: the others' calls are placed by its marks' times */
    if ((rc = run_thread(&p, ft)) != 0) goto done;
    if (p.marks_seen != best) {
        rc = ludus__fail(LUDUS_EFORMAT, "the frame thread's marks: %llu counted, %llu read", (unsigned long long)best,
                         (unsigned long long)p.marks_seen);
        goto done;
    }
    p.frame_thread = 0;
    for (uint32_t t = 0; t < c->nthreads && rc == 0; t++)
        if (t != ft) rc = run_thread(&p, t);
    if (rc) goto done;
    uint32_t n = 0;
    uint64_t calls = 0;
    for (uint32_t s = 0; s < c->nsites; s++) {
        if (!p.acc[s].calls) continue;
        calls += p.acc[s].calls;
        rk[n].excl = p.acc[s].excl;
        rk[n++].site = s;
    }
    qsort(rk, n, sizeof *rk, cmp_ranked);
    uint32_t w = n < cap ? n : cap;
    for (uint32_t i = 0; i < w; i++) {
        const ludus__site_info *si = &c->sites[rk[i].site];
        const site_acc *a = &p.acc[rk[i].site];
        ludus_top_scope *o = &out[i];
        o->name = si->name;
        o->file = si->file;
        o->line = si->line;
        o->exclusive_ns = a->excl;
        o->calls = a->calls;
        o->exclusive_ns_per_frame = (double)a->excl / frames;
        o->calls_per_frame = (double)a->calls / frames;
        o->last_exclusive_ns = a->last_excl;
        o->last_calls = a->last_calls;
        o->category = si->category;
    }
    if (window) {
        memset(window, 0, sizeof *window);
        window->first_frame = p.first;
        window->last_frame = p.last;
        window->frames = frames;
        window->begin_ns = p.w0;
        window->end_ns = p.w1;
        window->last_frame_ns = p.w1 - p.last0;
        window->frame_marks = best;
        window->scopes = n;
        window->calls = calls;
        window->incomplete = p.incomplete;
        window->dropped = c->dropped;
        memcpy(window->frame_thread, c->threads[ft].name, sizeof window->frame_thread);
        window->frame_thread[sizeof window->frame_thread - 1] = 0;
    }
    rc = (int)w;
done:
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) ludus__free(p.lanes[k].e);
    ludus__free(p.acc);
    ludus__free(rk);
    return rc;
}
