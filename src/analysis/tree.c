/* The analysis pass: per-thread nesting rebuilt from the normalised event
 * stream into caller-context paths (sequence of enclosing sites, merged across
 * threads), with inclusive and exclusive elapsed time per site and per path,
 * and per-frame cells (calls, exclusive ns) per path. One pass over every
 * thread, after one pass over the frame thread's marks. Memory: sites, paths,
 * threads' open stacks and cells (frames x paths present) - never events. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"

/* ---- paths: (parent, site) -> node ---- */

static uint32_t node_hash(uint32_t parent, uint32_t site) {
    uint64_t x = ((uint64_t)parent << 32 | site) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32);
}

static int node_rehash(ludus_analysis *a, uint32_t cap) {
    uint32_t *h = ludus__calloc(cap, sizeof *h);
    if (!h) return -1;
    for (uint32_t i = 0; i < a->nnodes; i++) {
        uint32_t j = node_hash(a->nodes[i].pub.parent, a->nodes[i].pub.site) & (cap - 1);
        while (h[j]) j = (j + 1) & (cap - 1);
        h[j] = i + 1;
    }
    ludus__free(a->node_hash);
    a->node_hash = h;
    a->node_hash_cap = cap;
    return 0;
}

/* UINT32_MAX on allocation failure. */
static uint32_t node_get_slow(ludus_analysis *a, uint32_t parent, uint32_t site) {
    uint32_t mask = a->node_hash_cap - 1;
    uint32_t j = node_hash(parent, site) & mask;
    for (;; j = (j + 1) & mask) {
        uint32_t v = a->node_hash[j];
        if (v == 0) break;
        const ludus_path_stats *p = &a->nodes[v - 1].pub;
        if (p->parent == parent && p->site == site) return v - 1;
    }
    if (a->nnodes == a->nodes_cap) {
        uint32_t cap = a->nodes_cap * 2;
        ludus__an_node *n = ludus__realloc(a->nodes, cap * sizeof *n);
        if (!n) return UINT32_MAX;
        a->nodes = n;
        a->nodes_cap = cap;
    }
    uint32_t id = a->nnodes++;
    ludus__an_node *n = &a->nodes[id];
    memset(n, 0, sizeof *n);
    n->pub.parent = parent;
    n->pub.site = site;
    n->memo_site = UINT32_MAX;
    uint64_t k = parent == UINT32_MAX ? 14695981039346656037ull : a->nodes[parent].key;
    uint32_t sid = a->sites[site].pub.id;
    for (int i = 0; i < 4; i++) k = (k ^ ((sid >> (8 * i)) & 0xff)) * 1099511628211ull;
    n->key = k;
    n->pub.depth = parent == UINT32_MAX ? 0 : a->nodes[parent].pub.depth + 1;
    if ((a->nnodes * 2 > a->node_hash_cap) && node_rehash(a, a->node_hash_cap * 2) != 0) return UINT32_MAX;
    if (a->node_hash_cap == mask + 1) {
        j = node_hash(parent, site) & mask;
        while (a->node_hash[j]) j = (j + 1) & mask;
        a->node_hash[j] = id + 1;
    }
    return id;
}

uint32_t ludus__path_find(const ludus_analysis *a, uint32_t parent, uint32_t site) {
    uint32_t mask = a->node_hash_cap - 1;
    for (uint32_t j = node_hash(parent, site) & mask;; j = (j + 1) & mask) {
        uint32_t v = a->node_hash[j];
        if (v == 0) return UINT32_MAX;
        const ludus_path_stats *p = &a->nodes[v - 1].pub;
        if (p->parent == parent && p->site == site) return v - 1;
    }
}

static inline uint32_t node_get(ludus_analysis *a, uint32_t parent, uint32_t site) {
    if (parent != UINT32_MAX) {
        ludus__an_node *p = &a->nodes[parent];
        if (p->memo_site == site) return p->memo_node;
        uint32_t n = node_get_slow(a, parent, site);
        if (n != UINT32_MAX) {
            p = &a->nodes[parent]; /* the table may have moved */
            p->memo_site = site;
            p->memo_node = n;
        }
        return n;
    }
    return node_get_slow(a, parent, site);
}

/* ---- per-thread state ---- */

typedef struct open_ent {
    int64_t begin, child_cov, covered_until;
    uint32_t site, node, frame;
    uint8_t outer, node_outer, inwin;
    uint8_t fiber; /* a fiber run: child time of what encloses it, not a site of its own */
} open_ent;

typedef struct lane_stack {
    open_ent *e;
    uint32_t depth, cap;
} lane_stack;

typedef struct pass {
    ludus_analysis *a;
    int exact;
    int64_t w0, w1;
    lane_stack lanes[LUDUS__MAX_LANES]; /* 0: the thread's track; k: its span lanes */
    uint32_t *active;                   /* per site: open activations on this thread */
    /* per-frame cells of the current thread */
    uint64_t *dcalls;
    int64_t *dexcl, *dincl;
    uint32_t *touched;
    uint32_t ntouched, dcap;
    uint32_t acc_frame;
    /* per path of the current frame: its slowest annotated call (duration,
     * -1 for none; its text in dtext at offset + 1, length) */
    int64_t *darg_dur;
    uint32_t *darg_at, *darg_len;
    char *dtext;
    size_t dtext_n, dtext_cap;
    ludus__slice_args args; /* annotations of the thread's open slices */
    ludus__pend *pend;      /* per path: its cells as they come (cell_run.h) */
    uint32_t npend;
    int oom;
    uint32_t thread; /* the thread being read */
    /* hitches (hitches.c): the current thread's block per detailed plan
     * (UINT32_MAX: none yet), and a span of time known to hold no plan */
    uint32_t *hblk;
    int64_t hgap_lo, hgap_hi;
    /* the plan the last piece lay inside (UINT32_MAX: none), trusted only
     * when the plans are disjoint and in time order (hordered) */
    uint32_t hcur;
    int hordered;
} pass;

static int cell_push(pass *p, uint32_t frame, uint32_t ent, uint64_t calls, int64_t excl, int64_t incl, uint32_t arg) {
    if (ent >= p->npend) {
        uint32_t n = p->a->nodes_cap > ent ? p->a->nodes_cap : ent + 1;
        ludus__pend *q = ludus__realloc(p->pend, n * sizeof *q);
        if (!q) return -1;
        memset(q + p->npend, 0, (n - p->npend) * sizeof *q);
        p->pend = q;
        p->npend = n;
    }
    ludus__cell c = {frame, arg, calls, excl, incl};
    return ludus__pend_put(&p->pend[ent], p->thread, &c);
}

/* ---- hitch frames: what each thread did in them (hitches.c reads it) ---- */

/* The plans overlapping [t0, t1), or none (1 when none: the span between
 * the plans around it is remembered, so the next piece there costs a
 * compare). */
/* [t0, t1) within the gap between plans the last lookup found. */
static inline int in_hgap(const pass *p, int64_t t0, int64_t t1) {
    return t0 >= p->hgap_lo && t1 <= p->hgap_hi;
}

static inline int hplans(pass *p, int64_t t0, int64_t t1, uint32_t *lo, uint32_t *hi) {
    const ludus_analysis *a = p->a;
    if (a->nhplan == 0 || in_hgap(p, t0, t1)) return 1;
    if (p->hcur != UINT32_MAX && t0 >= a->hplan[p->hcur].b && t1 <= a->hplan[p->hcur].e) {
        *lo = p->hcur; /* inside the plan of the piece before: no other plan overlaps it */
        *hi = p->hcur + 1;
        return 0;
    }
    ludus__hplans_in(a, t0, t1, lo, hi);
    p->hcur = p->hordered && *hi == *lo + 1 && t0 >= a->hplan[*lo].b && t1 <= a->hplan[*lo].e ? *lo : UINT32_MAX;
    if (*lo < *hi) return 0;
    p->hgap_lo = *lo ? a->hplan[*lo - 1].e : INT64_MIN;
    p->hgap_hi = *lo < a->nhplan ? a->hplan[*lo].b : INT64_MAX;
    return 1;
}

static ludus__hblock *hblock(pass *p, uint32_t plan) {
    ludus_analysis *a = p->a;
    if (p->hblk[plan] != UINT32_MAX) return &a->hblocks[p->hblk[plan]];
    if (LUDUS__GROW(a->hblocks, a->nhblocks, a->hblocks_cap, 16) != 0) return NULL;
    ludus__hblock *b = &a->hblocks[a->nhblocks];
    b->plan = plan;
    b->thread = p->thread;
    for (uint32_t i = 0; i < LUDUS__HBINS; i++)
        for (uint32_t k = 0; k < LUDUS__HSLOTS; k++) b->bin[i][k] = (ludus__hslot){UINT32_MAX, 0};
    p->hblk[plan] = (uint32_t)a->nhblocks++;
    return b;
}

/* x * n / d for x <= len and n <= LUDUS__HBINS: in 64 bits where len *
 * LUDUS__HBINS fits (a plan shorter than 18 years), else in 128. */
static uint64_t bin_mul_div(uint64_t x, uint64_t n, uint64_t d, uint64_t len) {
    if (len <= UINT64_MAX / LUDUS__HBINS) return x * n / d;
    return (uint64_t)((ludus__u128)x * n / d);
}

/* Bin i of plan h: [h->b + i * len / N, h->b + (i + 1) * len / N). */
static int64_t bin_at(const ludus__hplan *h, uint32_t i) {
    uint64_t len = (uint64_t)(h->e - h->b);
    return h->b + (int64_t)bin_mul_div(len, i, LUDUS__HBINS, len);
}

/* Exclusive time of `site` on the current thread over [t0, t1) (site
 * UINT32_MAX: the frame thread's top-level coverage). */
static int hpiece(pass *p, uint32_t site, int64_t t0, int64_t t1) {
    uint32_t lo, hi;
    if (t1 <= t0 || hplans(p, t0, t1, &lo, &hi)) return 0;
    for (uint32_t k = lo; k < hi; k++) {
        ludus__hplan *h = &p->a->hplan[k];
        int64_t x0 = t0 > h->b ? t0 : h->b, x1 = t1 < h->e ? t1 : h->e;
        if (x1 <= x0) continue;
        uint64_t len = (uint64_t)(h->e - h->b);
        uint32_t b0 = (uint32_t)bin_mul_div((uint64_t)(x0 - h->b), LUDUS__HBINS, len, len);
        uint32_t b1 = (uint32_t)bin_mul_div((uint64_t)(x1 - 1 - h->b), LUDUS__HBINS, len, len);
        ludus__hblock *blk = NULL;
        if (site != UINT32_MAX && !(blk = hblock(p, k))) return -1;
        for (uint32_t i = b0; i <= b1 && i < LUDUS__HBINS; i++) {
            int64_t lo_t = bin_at(h, i), hi_t = i + 1 == LUDUS__HBINS ? h->e : bin_at(h, i + 1);
            int64_t ns = (x1 < hi_t ? x1 : hi_t) - (x0 > lo_t ? x0 : lo_t);
            if (ns <= 0) continue;
            if (!blk) {
                h->ft_busy[i] += ns;
                continue;
            }
            ludus__hslot *sl = blk->bin[i], *low = &sl[0];
            int k2 = 0;
            for (; k2 < LUDUS__HSLOTS && sl[k2].site != site && sl[k2].site != UINT32_MAX; k2++)
                if (sl[k2].ns < low->ns) low = &sl[k2];
            if (k2 < LUDUS__HSLOTS) {
                sl[k2].site = site;
                sl[k2].ns += ns;
            } else if (low->ns < ns) { /* full: the bin keeps its largest sites */
                low->site = site;
                low->ns = ns;
            }
        }
    }
    return 0;
}

/* hpiece where most pieces end: outside every plan, in the gap between
 * plans the last lookup found (a compare, no call). */
static inline int hpiece_at(pass *p, uint32_t site, int64_t t0, int64_t t1) {
    if (t1 <= t0 || in_hgap(p, t0, t1)) return 0;
    return hpiece(p, site, t0, t1);
}

/* A flow's end in a detailed hitch frame. */
static int hflow(pass *p, int in, uint64_t id, uint32_t site, int64_t waited, int64_t ts) {
    uint32_t lo, hi;
    if (hplans(p, ts, ts + 1, &lo, &hi)) return 0;
    ludus_analysis *a = p->a;
    ludus__hflow **v = in ? &a->flow_in : &a->flow_out;
    size_t *n = in ? &a->nflow_in : &a->nflow_out, *cap = in ? &a->flow_in_cap : &a->flow_out_cap;
    if (LUDUS__GROW(*v, *n, *cap, 64) != 0) return -1;
    (*v)[(*n)++] = (ludus__hflow){id, lo, p->thread, site, waited};
    return 0;
}

static int dense_fit(pass *p, uint32_t n) {
    if (n <= p->dcap) return 0;
    uint32_t cap = p->dcap ? p->dcap : 64;
    while (cap < n) cap *= 2;
    uint64_t *c = ludus__realloc(p->dcalls, cap * sizeof *c);
    if (c) p->dcalls = c;
    int64_t *e = ludus__realloc(p->dexcl, cap * sizeof *e);
    if (e) p->dexcl = e;
    int64_t *in = ludus__realloc(p->dincl, cap * sizeof *in);
    if (in) p->dincl = in;
    uint32_t *t = ludus__realloc(p->touched, cap * sizeof *t);
    if (t) p->touched = t;
    int64_t *ad = ludus__realloc(p->darg_dur, cap * sizeof *ad);
    if (ad) p->darg_dur = ad;
    uint32_t *aa = ludus__realloc(p->darg_at, cap * sizeof *aa);
    if (aa) p->darg_at = aa;
    uint32_t *al = ludus__realloc(p->darg_len, cap * sizeof *al);
    if (al) p->darg_len = al;
    if (!c || !e || !in || !t || !ad || !aa || !al) return -1;
    memset(p->dcalls + p->dcap, 0, (cap - p->dcap) * sizeof *c);
    memset(p->dexcl + p->dcap, 0, (cap - p->dcap) * sizeof *e);
    memset(p->dincl + p->dcap, 0, (cap - p->dcap) * sizeof *in);
    for (uint32_t i = p->dcap; i < cap; i++) p->darg_dur[i] = -1;
    p->dcap = cap;
    return 0;
}

static int dense_flush(pass *p) {
    /* A window other than all keeps the cells of its own frames only: every per-frame figure (sites'
     * medians and calls per frame, hitches, threads, locks, the diff) reads window frames, so the
     * memory follows the window (report --window last:N), not the capture; the frames outside it
     * then have no cells (ludus_analysis_site_in_frame says 0, the HTML draws no flame graph). */
    const ludus_analysis *a = p->a;
    int keep = a->desc.window == LUDUS_WINDOW_ALL || (p->acc_frame >= a->win_f0 && p->acc_frame < a->win_f1);
    for (uint32_t i = 0; i < p->ntouched; i++) {
        uint32_t n = p->touched[i], arg = 0;
        if (keep && p->darg_dur[n] >= 0 &&
            ludus__cell_text_add(p->a, p->dtext + p->darg_at[n], p->darg_len[n], &arg) != 0)
            return -1;
        if (keep && cell_push(p, p->acc_frame, n, p->dcalls[n], p->dexcl[n], p->dincl[n], arg) != 0) return -1;
        p->dcalls[n] = 0;
        p->dexcl[n] = 0;
        p->dincl[n] = 0;
        p->darg_dur[n] = -1;
    }
    p->ntouched = 0;
    p->dtext_n = 0;
    return 0;
}

/* The annotations of a call of path node in frame, dur long: kept when it
 * is the slowest annotated call of its cell so far (text may be NULL: it
 * is only wanted then). */
static int cell_wants_arg(const pass *p, uint32_t frame, uint32_t node, int64_t dur) {
    return frame < p->acc_frame || frame > p->acc_frame || node >= p->dcap || p->darg_dur[node] < dur;
}

static int cell_arg(pass *p, uint32_t frame, uint32_t node, int64_t dur, const char *text, size_t n) {
    if (frame != p->acc_frame) return 0; /* a call whose cell spans a frame boundary: none kept */
    if (p->darg_dur[node] >= dur) return 0;
    if (p->dtext_n + n > p->dtext_cap) {
        size_t cap = p->dtext_cap ? p->dtext_cap * 2 : 4096;
        while (cap < p->dtext_n + n) cap *= 2;
        char *t = ludus__realloc(p->dtext, cap);
        if (!t) return -1;
        p->dtext = t;
        p->dtext_cap = cap;
    }
    memcpy(p->dtext + p->dtext_n, text, n);
    p->darg_dur[node] = dur;
    p->darg_at[node] = (uint32_t)p->dtext_n;
    p->darg_len[node] = (uint32_t)n;
    p->dtext_n += n;
    return 0;
}

static int cell_add(pass *p, uint32_t frame, uint32_t node, int64_t excl, int64_t incl) {
    if (frame < p->acc_frame) return cell_push(p, frame, node, 1, excl, incl, 0); /* spans a boundary */
    if (frame > p->acc_frame) {
        if (dense_flush(p) != 0) return -1;
        p->acc_frame = frame;
    }
    if (__builtin_expect(p->a->nnodes > p->dcap, 0) && dense_fit(p, p->a->nnodes) != 0) return -1;
    if (p->dcalls[node] == 0) p->touched[p->ntouched++] = node;
    p->dcalls[node]++;
    p->dexcl[node] += excl;
    p->dincl[node] += incl;
    return 0;
}

/* Frame-thread top-level scope [b, e) of site `site`: its coverage of each
 * frame it overlaps, and its time in the frames after the one it began in
 * (time carried across a frame mark: its cell holds it in its first frame). */
static void cover_frames(ludus_analysis *a, uint32_t f, uint32_t site, int64_t b, int64_t e) {
    for (uint64_t k = f > a->keep_f0 ? f : a->keep_f0; k < a->keep_f1; k++) {
        int64_t fb = ludus__frame_begin(a, k), fe = ludus__frame_end(a, k);
        if (fb >= e) break;
        int64_t lo = b > fb ? b : fb, hi = e < fe ? e : fe;
        if (hi <= lo) continue;
        uint64_t i = k - a->keep_f0;
        a->unlogged[i] += hi - lo;
        if (k == f) continue;
        a->carried[i] += hi - lo;
        uint32_t at = 0; /* the largest such scope: kept for the hitch frames only (their reports name it) */
        if (ludus__is_hitch_frame(a, &at, k) && hi - lo > a->carried_top[at].ns) {
            a->carried_top[at].ns = hi - lo;
            a->carried_top[at].site = site;
        }
    }
}

static int run_thread(pass *p, ludus__captured *c, uint32_t t, int is_frame_thread) {
    ludus_analysis *a = p->a;
    const ludus__cap_thread *th = &c->threads[t];
    uint32_t lossy = th->dropped ? LUDUS_STAT_LOSSY : 0;
    /* From its first loss on, a thread's children may be missing: exclusive
     * time of what was running then is unknown, never absorbed. */
    int64_t first_drop = th->first_drop_ns == LUDUS__NO_DROP ? INT64_MAX : th->first_drop_ns;
    memset(p->active, 0, a->nsites * sizeof *p->active);
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) p->lanes[k].depth = 0;
    p->thread = t;
    for (uint32_t k = 0; k < a->nhplan; k++) p->hblk[k] = UINT32_MAX;
    p->hgap_lo = p->hgap_hi = 0;
    p->hcur = UINT32_MAX;
    const int hplans_on = a->nhplan != 0; /* in a register: the pass writes through a */
    ludus__an_thread *busy_of = &a->threads[t];
    p->acc_frame = 0;
    ludus__slice_args_reset(&p->args);
    uint64_t cursor = 0; /* marks passed: the frame of the next begin */
    ludus__nev_iter it;
    ludus__nev ev;
    int rc = ludus__nev_init(&it, c, t);
    while (rc == 0 && ludus__nev_next(&it, &ev)) {
        uint8_t tr = ludus__nevs[ev.kind].analysis;
        lane_stack *L = &p->lanes[ev.lane];
        if (tr == LUDUS__TR_FRAME) {
            if (is_frame_thread) cursor++;
        } else if (tr == LUDUS__TR_COUNTER_I64 || tr == LUDUS__TR_COUNTER_F64) {
            if (ludus__counter_event(a, &ev, is_frame_thread, cursor, ev.ts_ns >= p->w0 && ev.ts_ns < p->w1)) goto oom;
        } else if (tr == LUDUS__TR_MESSAGE) {
            if (ludus__message_event(a, &it, &ev, th->name, ev.ts_ns >= p->w0 && ev.ts_ns < p->w1)) goto oom;
        } else if (tr == LUDUS__TR_ARG) {
            if (ev.depth < L->depth) ludus__slice_args_add(&p->args, c, &ev); /* else: no scope open */
        } else if (tr == LUDUS__TR_SLICE_BEGIN) {
            if (is_frame_thread) {
                /* the stream's own order decides ties with the mark */
            } else {
                while (cursor < a->nmarks && a->marks[cursor] <= ev.ts_ns) cursor++;
            }
            if (L->depth == L->cap) {
                uint32_t cap = L->cap ? L->cap * 2 : 64;
                open_ent *n = ludus__realloc(L->e, cap * sizeof *n);
                if (!n) goto oom;
                L->e = n;
                L->cap = cap;
            }
            if (ev.flags & LUDUS_NEV_FIBER) { /* its work is on the fiber's track, counted there */
                open_ent *e = &L->e[L->depth++];
                memset(e, 0, sizeof *e);
                e->begin = e->covered_until = ev.ts_ns;
                e->site = ev.site;
                e->node = L->depth > 1 ? L->e[L->depth - 2].node : UINT32_MAX;
                e->frame = (uint32_t)cursor;
                e->fiber = 1;
                continue;
            }
            if (hplans_on && L->depth && !L->e[L->depth - 1].fiber) { /* the parent's exclusive time so far */
                const open_ent *par = &L->e[L->depth - 1];
                if (hpiece_at(p, par->site, par->covered_until > par->begin ? par->covered_until : par->begin,
                              ev.ts_ns) != 0)
                    goto oom;
            }
            uint32_t parent = L->depth ? L->e[L->depth - 1].node : UINT32_MAX;
            int folded = 0;
            if (parent != UINT32_MAX && a->nodes[parent].pub.depth >= LUDUS_PATH_DEPTH - 1) {
                parent = a->nodes[parent].pub.parent; /* fold: paths stay LUDUS_PATH_DEPTH sites deep */
                folded = 1;
            }
            uint32_t node = node_get(a, parent, ev.site);
            if (node == UINT32_MAX) goto oom;
            if (folded) {
                a->nodes[node].pub.flags |= LUDUS_STAT_FOLDED;
                a->sum.folded++;
            }
            ludus__an_site *s = &a->sites[ev.site];
            if (s->last_thread != t + 1) {
                s->last_thread = t + 1;
                s->pub.threads++;
            }
            s->pub.flags |= lossy;
            a->nodes[node].pub.flags |= lossy;
            open_ent *e = &L->e[L->depth++];
            e->begin = e->covered_until = ev.ts_ns;
            e->fiber = 0;
            e->child_cov = 0;
            e->site = ev.site;
            e->node = node;
            e->frame = (uint32_t)cursor;
            e->outer = p->active[ev.site]++ == 0;
            e->node_outer = a->nodes[node].open++ == 0;
            e->inwin = ev.ts_ns >= p->w0 && ev.ts_ns < p->w1;
        } else if (tr == LUDUS__TR_SLICE_END) {
            if (L->depth == 0) continue; /* the iterator pairs: cannot happen */
            open_ent e = L->e[--L->depth];
            const ludus__nev *args;
            uint32_t nargs = ludus__slice_args_take(&p->args, ev.lane, ev.depth, &args);
            if (!e.fiber) {
                p->active[e.site]--;
                a->nodes[e.node].open--;
            }
            int64_t end = ev.ts_ns;
            if (end < e.begin) {
                a->sum.clock_anomalies++;
                end = e.begin;
            }
            if (hplans_on && !e.fiber &&
                hpiece_at(p, e.site, e.covered_until > e.begin ? e.covered_until : e.begin, end) != 0)
                goto oom;
            if (L->depth) { /* the parent's union of children */
                open_ent *par = &L->e[L->depth - 1];
                int64_t lo = e.begin > par->covered_until ? e.begin : par->covered_until;
                if (end > lo) {
                    par->child_cov += end - lo;
                    par->covered_until = end;
                }
            } else if (ev.lane == 0) {
                if (is_frame_thread) {
                    cover_frames(a, e.frame, e.site, e.begin, end);
                    if (hplans_on && hpiece_at(p, UINT32_MAX, e.begin, end) != 0) goto oom;
                }
                /* async zones begun in the window read it: what ended before the window never counts */
                if (a->busy && end > p->w0 && ludus__busy_add(a, t, e.begin, end) != 0) goto oom;
                if (a->nmarks && !ludus__thread_busy_fast(busy_of, a->marks, a->nmarks, e.frame, e.begin, end) &&
                    ludus__thread_busy_add(a, t, e.frame, e.begin, end) != 0)
                    goto oom;
            }
            if (e.fiber) continue; /* no statistics of its own */
            ludus__an_site *s = &a->sites[e.site];
            ludus__an_node *n = &a->nodes[e.node];
            if (is_frame_thread) s->on_frame_thread = 1;
            if (ev.flags & (LUDUS_NEV_INCOMPLETE | LUDUS_NEV_UNWOUND)) {
                if (e.inwin) {
                    if (ev.flags & LUDUS_NEV_UNWOUND)
                        s->pub.unwound++;
                    else
                        s->pub.incomplete++;
                    n->pub.incomplete++;
                }
                continue;
            }
            int64_t dur = end - e.begin;
            int64_t excl = dur - (e.child_cov < dur ? e.child_cov : dur);
            int known = end <= first_drop;
            if (e.inwin) {
                s->pub.calls++;
                n->pub.calls++;
                int bad = e.node_outer ? ludus__acc_add(&n->incl, dur, p->exact) : 0;
                if (known) {
                    bad |= ludus__acc_add(&s->excl, excl, p->exact) | ludus__acc_add(&n->excl, excl, p->exact);
                } else {
                    s->pub.excl_unknown++;
                    n->pub.excl_unknown++;
                    s->pub.flags |= LUDUS_STAT_EXCL_PARTIAL;
                    n->pub.flags |= LUDUS_STAT_EXCL_PARTIAL;
                    a->sum.excl_unknown++;
                }
                if (e.outer)
                    bad |= ludus__acc_add(&s->incl, dur, p->exact);
                else
                    s->pub.recursive++;
                if (bad) goto oom;
            }
            if (cell_add(p, e.frame, e.node, known ? excl : 0, e.outer ? dur : 0) != 0) goto oom;
            if (nargs && e.inwin) {
                s->pub.annotated++;
                int for_site = ludus__an_slowest_wants(a, e.site, dur),
                    for_cell = cell_wants_arg(p, e.frame, e.node, dur);
                if (for_site || for_cell) {
                    char text[256];
                    size_t tn = ludus__args_text(c, &it, args, nargs, text, sizeof text);
                    ludus_annotated_call call = {e.begin, dur, e.frame, th->name, text};
                    if (for_site && ludus__an_slowest_add(a, e.site, &call) != 0) goto oom;
                    if (for_cell && cell_arg(p, e.frame, e.node, dur, text, tn) != 0) goto oom;
                }
            }
        } else if (hplans_on && (ev.kind == LUDUS_NEV_FLOW_IN || ev.kind == LUDUS_NEV_FLOW_OUT)) {
            /* in a detailed hitch frame: who waited for whom (hitches.c) */
            lane_stack *L0 = &p->lanes[0];
            const open_ent *top = L0->depth && !L0->e[L0->depth - 1].fiber ? &L0->e[L0->depth - 1] : NULL;
            int64_t since = top ? (top->covered_until > top->begin ? top->covered_until : top->begin) : ev.ts_ns;
            if (hflow(p, ev.kind == LUDUS_NEV_FLOW_IN, ev.value, top ? top->site : UINT32_MAX,
                      ev.ts_ns > since ? ev.ts_ns - since : 0, ev.ts_ns) != 0)
                goto oom;
        }
    }
    if (rc == 0) rc = ludus__nev_error(&it);
    if (rc) {
        ludus__nev_free(&it);
        return rc;
    }
    if (dense_flush(p) != 0) goto oom;
    ludus__nev_free(&it);
    return 0;
oom:
    ludus__nev_free(&it);
    return LUDUS_ENOMEM;
}

/* ---- setup ---- */

static size_t slen(const char *s, size_t n) {
    return s ? n : 0;
}

typedef struct named {
    const char *name;
    uint32_t i;
} named;
static int cmp_named(const void *x, const void *y) {
    return strcmp(((const named *)x)->name, ((const named *)y)->name);
}

static int copy_sites(ludus_analysis *a, const ludus__captured *c) {
    size_t bytes = 0;
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *si = &c->sites[i];
        bytes += si->name_len + slen(si->category, si->category_len) + strlen(si->file) + 3;
    }
    a->strings = ludus__malloc(bytes + 1);
    a->sites = ludus__calloc(c->nsites ? c->nsites : 1, sizeof *a->sites);
    if (!a->strings || !a->sites) return -1;
    a->nsites = c->nsites;
    char *p = a->strings;
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *si = &c->sites[i];
        ludus_site_stats *s = &a->sites[i].pub;
        s->name = p;
        memcpy(p, si->name, si->name_len);
        p += si->name_len;
        *p++ = 0;
        s->category = p;
        size_t cl = slen(si->category, si->category_len);
        if (cl) memcpy(p, si->category, cl);
        p += cl;
        *p++ = 0;
        s->file = p;
        size_t fl = strlen(si->file);
        memcpy(p, si->file, fl);
        p += fl;
        *p++ = 0;
        s->line = si->line;
        s->id = si->id;
        a->sites[i].wait_kind = (uint8_t)ludus__site_is_wait(s->name, s->category);
    }
    return 0;
}

/* Names two scope sites share (sites that ran as scopes on some thread;
 * an annotation's key or a counter named like a scope is never shown in
 * the same table): reports tell them apart by file:line. */
static int mark_shared_names(ludus_analysis *a) {
    named *ord = ludus__malloc((a->nsites ? a->nsites : 1) * sizeof *ord);
    if (!ord) return -1;
    uint32_t n = 0;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (a->sites[i].pub.threads) ord[n++] = (named){a->sites[i].pub.name, i};
    qsort(ord, n, sizeof *ord, cmp_named);
    for (uint32_t i = 1; i < n; i++)
        if (!strcmp(ord[i].name, ord[i - 1].name))
            a->sites[ord[i].i].name_shared = a->sites[ord[i - 1].i].name_shared = 1;
    ludus__free(ord);
    return 0;
}

/* The frame thread's marks: what preparing noted or the file's MARKS
 * record holds, else a pass over the thread (frame_marks.c). */
static int take_marks(ludus_analysis *a, const ludus__captured *c, uint32_t ft) {
    int rc = ludus__frame_marks(c, ft, &a->mark_set); /* a reference, kept for the whole analysis */
    if (rc) return rc;
    a->marks = a->mark_set->ns;
    a->mark_cpu = a->mark_set->cpu;
    a->nmarks = a->mark_set->n;
    return 0;
}

int64_t ludus__frame_begin(const ludus_analysis *a, uint64_t f) {
    return f == 0 ? 0 : a->marks[f - 1];
}
int64_t ludus__frame_end(const ludus_analysis *a, uint64_t f) {
    return f < a->nmarks ? a->marks[f] : a->end_ns;
}

static int set_window(ludus_analysis *a, int64_t *w0, int64_t *w1) {
    const ludus_analysis_desc *d = &a->desc;
    switch (d->window) {
    case LUDUS_WINDOW_ALL:
        *w0 = INT64_MIN;
        *w1 = INT64_MAX;
        a->win_f0 = 1; /* frame 0 is the lead-in: before the first mark */
        a->win_f1 = a->nmarks > 1 ? a->nmarks : 1;
        snprintf(a->window_text, sizeof a->window_text, "all");
        return 0;
    case LUDUS_WINDOW_LAST_FRAMES:
        if (d->last_frames == 0) return LUDUS_EINVAL;
        if (a->nmarks < 2) return LUDUS_ENODATA; /* no frame between two marks */
        a->win_f1 = a->nmarks;
        a->win_f0 = a->nmarks - 1 > d->last_frames ? a->nmarks - d->last_frames : 1;
        *w0 = ludus__frame_begin(a, a->win_f0);
        *w1 = ludus__frame_end(a, a->win_f1 - 1);
        snprintf(a->window_text, sizeof a->window_text, "last:%u", d->last_frames);
        return 0;
    case LUDUS_WINDOW_RANGE:
        if (d->range_end_ns <= d->range_begin_ns) return LUDUS_EINVAL;
        *w0 = d->range_begin_ns;
        *w1 = d->range_end_ns;
        a->win_f0 = 1;
        while (a->win_f0 < a->nmarks && ludus__frame_begin(a, a->win_f0) < *w0) a->win_f0++;
        a->win_f1 = a->win_f0;
        while (a->win_f1 < a->nmarks && ludus__frame_begin(a, a->win_f1) < *w1) a->win_f1++;
        snprintf(a->window_text, sizeof a->window_text, "range:%.3fms-%.3fms", (double)*w0 / 1e6, (double)*w1 / 1e6);
        return 0;
    default:
        return LUDUS_EINVAL;
    }
}

static void pass_free(pass *p) {
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) ludus__free(p->lanes[k].e);
    ludus__free(p->active);
    ludus__free(p->dcalls);
    ludus__free(p->dexcl);
    ludus__free(p->dincl);
    ludus__free(p->touched);
    ludus__free(p->darg_dur);
    ludus__free(p->darg_at);
    ludus__free(p->darg_len);
    ludus__free(p->dtext);
    ludus__free(p->hblk);
    ludus__slice_args_free(&p->args);
    for (uint32_t k = 0; k < p->npend; k++) ludus__pend_free(&p->pend[k]);
    ludus__free(p->pend);
}

/* ---- runs of cells: per path, per site, per (thread, site) (cell_run.h) ---- */

#define ONE_THREAD_NONE UINT32_MAX
#define ONE_THREAD_SEVERAL (UINT32_MAX - 1)

/* A path's cells on one thread, one a frame, in frame order. */
typedef struct seg_run {
    ludus__crun run;
    uint32_t thread;
    int used; /* a path's, site's or (thread, site)'s run is this one */
} seg_run;

/* A cell and its place in its segment (ties of a sort keep that order). */
typedef struct seq_cell {
    ludus__cell c;
    uint32_t seq;
} seq_cell;

typedef struct runs_work {
    ludus__crun_writer w;
    seq_cell *x; /* a segment's cells, when they came out of frame order */
    size_t xcap;
    ludus__crun_it *its; /* the runs being merged, and their heap */
    uint32_t *heap;
    uint32_t kcap;
} runs_work;

static void cell_sum(ludus__cell *o, const ludus__cell *c) {
    o->calls += c->calls;
    o->excl += c->excl;
    o->incl += c->incl;
    if (!o->arg) o->arg = c->arg;
}

static int cmp_frame_seq(const void *x, const void *y) {
    const seq_cell *a = x, *b = y;
    if (a->c.frame != b->c.frame) return a->c.frame < b->c.frame ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* Segment g of q as a run: its cells of one frame summed (the first
 * annotation in the order they came). A thread's cells come in frame order
 * but for those of calls that span a frame boundary. */
static int segment_run(runs_work *r, const ludus__pend *q, uint32_t g, ludus__crun *out) {
    ludus__crun_it it;
    uint32_t n = q->seg[g].cells;
    int ordered = 1;
    for (ludus__pend_begin(q, g, &it); ordered && ludus__pend_next(&it);) {
        ordered = r->w.cells == 0 || it.c.frame > r->w.frame;
        if (ordered && ludus__crun_put(&r->w, &it.c) != 0) return -1;
    }
    if (ordered) return ludus__crun_end(&r->w, out);
    ludus__crun_writer_reset(&r->w); /* out of order: sorted, then merged */
    if (n > r->xcap) {
        seq_cell *x = ludus__realloc(r->x, n * sizeof *x);
        if (!x) return -1;
        r->x = x;
        r->xcap = n;
    }
    uint32_t k = 0;
    for (ludus__pend_begin(q, g, &it); ludus__pend_next(&it); k++) r->x[k] = (seq_cell){it.c, k};
    qsort(r->x, n, sizeof *r->x, cmp_frame_seq); /* the order they came breaks ties */
    for (uint32_t i = 0; i < n;) {
        ludus__cell c = r->x[i].c;
        for (i++; i < n && r->x[i].c.frame == c.frame; i++) cell_sum(&c, &r->x[i].c);
        if (ludus__crun_put(&r->w, &c) != 0) return -1;
    }
    return ludus__crun_end(&r->w, out);
}

static int it_before(const ludus__crun_it *its, uint32_t i, uint32_t j) {
    return its[i].c.frame < its[j].c.frame || (its[i].c.frame == its[j].c.frame && i < j);
}

static void sift_down(const ludus__crun_it *its, uint32_t *h, uint32_t n, uint32_t at) {
    for (;;) {
        uint32_t l = 2 * at + 1, m = at;
        if (l < n && it_before(its, h[l], h[m])) m = l;
        if (l + 1 < n && it_before(its, h[l + 1], h[m])) m = l + 1;
        if (m == at) return;
        uint32_t t = h[at];
        h[at] = h[m];
        h[m] = t;
        at = m;
    }
}

/* src[0, k) merged into one run: a frame's cells summed, its annotation the
 * first run's (in src order) that has one. */
static int merge_runs(runs_work *r, const ludus__crun *const *src, uint32_t k, ludus__crun *out) {
    if (k > r->kcap) {
        ludus__crun_it *its = ludus__realloc(r->its, k * sizeof *its);
        if (its) r->its = its;
        uint32_t *h = ludus__realloc(r->heap, k * sizeof *h);
        if (h) r->heap = h;
        if (!its || !h) return -1;
        r->kcap = k;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < k; i++) {
        ludus__crun_begin(src[i], &r->its[i]);
        if (ludus__crun_next(&r->its[i])) r->heap[n++] = i;
    }
    for (uint32_t i = n / 2; i-- > 0;) sift_down(r->its, r->heap, n, i);
    ludus__cell cur;
    int have = 0;
    while (n) {
        ludus__crun_it *it = &r->its[r->heap[0]];
        if (have && it->c.frame == cur.frame) {
            cell_sum(&cur, &it->c);
        } else {
            if (have && ludus__crun_put(&r->w, &cur) != 0) return -1;
            cur = it->c;
            have = 1;
        }
        if (!ludus__crun_next(it)) r->heap[0] = r->heap[--n];
        sift_down(r->its, r->heap, n, 0);
    }
    if (have && ludus__crun_put(&r->w, &cur) != 0) return -1;
    return ludus__crun_end(&r->w, out);
}

static int cmp_trun(const void *x, const void *y) {
    const ludus__trun *a = x, *b = y;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

static int cmp_seg_thread(const void *x, const void *y) {
    const seg_run *a = *(const seg_run *const *)x, *b = *(const seg_run *const *)y;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return a < b ? -1 : a > b; /* the order of the paths */
}

/* The pass's cells as runs: per (path, thread) from what the pass wrote
 * (each path's freed once read); per path, merged over its threads; per
 * site on more than one path, merged over its paths (any other site's run
 * is its path's); per (thread, site) for a site on more than one thread,
 * merged over the site's paths on that thread (any other's is its site's).
 * Runs that coincide are stored once. */
static int make_runs(ludus_analysis *a, pass *p) {
    uint32_t nn = a->nnodes, ns = a->nsites;
    runs_work r;
    memset(&r, 0, sizeof r);
    size_t nseg = 0;
    for (uint32_t k = 0; k < nn && k < p->npend; k++) nseg += p->pend[k].nseg;
    seg_run *sr = ludus__calloc(nseg + 1, sizeof *sr);
    size_t *seg_at = ludus__malloc(((size_t)nn + 1) * sizeof *seg_at);
    uint32_t *thread_of = ludus__malloc((ns + 1) * sizeof *thread_of);
    uint32_t *paths = ludus__calloc(ns + 1, sizeof *paths);
    uint32_t *path_of = ludus__malloc((ns + 1) * sizeof *path_of);
    uint32_t *site_at = ludus__calloc(ns + 2, sizeof *site_at), *by_site = ludus__malloc((nn + 1) * sizeof *by_site);
    size_t nsrc = nseg > nn ? nseg : nn;
    const ludus__crun **src = ludus__malloc((nsrc + 1) * sizeof *src);
    seg_run **tsegs = ludus__malloc((nseg + 1) * sizeof *tsegs);
    size_t truns_cap = 0;
    /* every run a merge makes, and the segments' runs, at most */
    size_t mem_cap = 2 * nseg + nn + ns + 1;
    a->run_mem = ludus__malloc(mem_cap * sizeof *a->run_mem);
    int rc = -1;
    if (!sr || !seg_at || !thread_of || !paths || !path_of || !site_at || !by_site || !src || !tsegs || !a->run_mem)
        goto done;
    for (uint32_t s = 0; s < ns; s++) thread_of[s] = ONE_THREAD_NONE;
    /* per (path, thread) */
    size_t at = 0;
    for (uint32_t k = 0; k < nn; k++) {
        seg_at[k] = at;
        if (k >= p->npend) continue;
        ludus__pend *q = &p->pend[k];
        uint32_t s = a->nodes[k].pub.site;
        for (uint32_t g = 0; g < q->nseg; g++, at++) {
            sr[at].thread = q->seg[g].thread;
            if (segment_run(&r, q, g, &sr[at].run) != 0) goto done;
            if (thread_of[s] == ONE_THREAD_NONE)
                thread_of[s] = sr[at].thread;
            else if (thread_of[s] != sr[at].thread)
                thread_of[s] = ONE_THREAD_SEVERAL;
        }
        ludus__pend_free(q);
    }
    seg_at[nn] = at;
    /* per path */
    for (uint32_t k = 0; k < nn; k++) {
        size_t b = seg_at[k], e = seg_at[k + 1];
        ludus__crun *out = &a->nodes[k].run;
        if (e == b) continue;
        if (e - b == 1) {
            *out = sr[b].run;
            sr[b].used = 1;
        } else {
            for (size_t i = b; i < e; i++) src[i - b] = &sr[i].run;
            if (merge_runs(&r, src, (uint32_t)(e - b), out) != 0) goto done;
            a->run_mem[a->nrun_mem++] = out->mem;
        }
        uint32_t s = a->nodes[k].pub.site;
        paths[s]++;
        path_of[s] = k;
    }
    /* the paths of each site, in path order */
    for (uint32_t k = 0; k < nn; k++) site_at[a->nodes[k].pub.site + 1]++;
    for (uint32_t s = 0; s < ns; s++) site_at[s + 1] += site_at[s];
    for (uint32_t k = 0; k < nn; k++) by_site[site_at[a->nodes[k].pub.site]++] = k;
    for (uint32_t s = ns; s > 0; s--) site_at[s] = site_at[s - 1];
    site_at[0] = 0;
    /* per site */
    for (uint32_t s = 0; s < ns; s++) {
        ludus__crun *out = &a->sites[s].run;
        if (paths[s] == 1) *out = a->nodes[path_of[s]].run;
        if (paths[s] < 2) continue;
        uint32_t m = 0;
        for (uint32_t i = site_at[s]; i < site_at[s + 1]; i++)
            if (a->nodes[by_site[i]].run.n) src[m++] = &a->nodes[by_site[i]].run;
        if (merge_runs(&r, src, m, out) != 0) goto done;
        a->run_mem[a->nrun_mem++] = out->mem;
    }
    /* per (thread, site) */
    for (uint32_t s = 0; s < ns; s++) {
        if (thread_of[s] == ONE_THREAD_NONE) continue;
        if (thread_of[s] != ONE_THREAD_SEVERAL) {
            if (LUDUS__GROW(a->truns, a->ntruns, truns_cap, 16) != 0) goto done;
            a->truns[a->ntruns++] = (ludus__trun){thread_of[s], s, a->sites[s].run, 0};
            continue;
        }
        uint32_t m = 0;
        for (uint32_t i = site_at[s]; i < site_at[s + 1]; i++)
            for (size_t g = seg_at[by_site[i]]; g < seg_at[by_site[i] + 1]; g++) tsegs[m++] = &sr[g];
        qsort(tsegs, m, sizeof *tsegs, cmp_seg_thread);
        for (uint32_t i = 0, j; i < m; i = j) {
            for (j = i + 1; j < m && tsegs[j]->thread == tsegs[i]->thread;) j++;
            if (LUDUS__GROW(a->truns, a->ntruns, truns_cap, 16) != 0) goto done;
            ludus__trun *t = &a->truns[a->ntruns];
            *t = (ludus__trun){tsegs[i]->thread, s, tsegs[i]->run, 0};
            if (j - i > 1) {
                for (uint32_t g = i; g < j; g++) src[g - i] = &tsegs[g]->run;
                if (merge_runs(&r, src, j - i, &t->run) != 0) goto done;
                a->run_mem[a->nrun_mem++] = t->run.mem;
            } else {
                tsegs[i]->used = 1;
            }
            a->ntruns++;
        }
    }
    if (a->ntruns) qsort(a->truns, a->ntruns, sizeof *a->truns, cmp_trun);
    rc = 0;
done:
    for (size_t i = 0; i < nseg && sr; i++) {
        if (rc == 0 && sr[i].used && sr[i].run.mem)
            a->run_mem[a->nrun_mem++] = sr[i].run.mem;
        else
            ludus__crun_free(&sr[i].run);
    }
    ludus__crun_writer_free(&r.w);
    ludus__free(r.x);
    ludus__free(r.its);
    ludus__free(r.heap);
    ludus__free(sr);
    ludus__free(seg_at);
    ludus__free(thread_of);
    ludus__free(paths);
    ludus__free(path_of);
    ludus__free(site_at);
    ludus__free(by_site);
    ludus__free(src);
    ludus__free(tsegs);
    return rc;
}

int ludus__analyze(ludus__captured *c, const ludus_analysis_desc *desc, ludus_analysis **out) {
    *out = NULL;
    int rc = ludus__prepare(c);
    if (rc) return rc;
    ludus_analysis *a = ludus__calloc(1, sizeof *a);
    if (!a) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    if (desc) a->desc = *desc;
    if (!(a->desc.hitch_k > 0)) a->desc.hitch_k = 2.0;
    pass p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.exact = a->desc.exact;
    a->end_ns = c->end_ns - c->start_ns;
    if (copy_sites(a, c) != 0) goto oom;
    a->nodes_cap = 64;
    a->nodes = ludus__malloc(a->nodes_cap * sizeof *a->nodes);
    if (!a->nodes || node_rehash(a, 256) != 0) goto oom;

    /* The frame thread: the one with the most marks. */
    uint32_t ft = ludus__frame_thread_of(c);
    uint64_t best = ft != UINT32_MAX ? c->threads[ft].frames : 0, all_marks = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) all_marks += c->threads[t].frames;
    if (ft != UINT32_MAX) {
        if ((rc = take_marks(a, c, ft)) != 0) goto fail;
        snprintf(a->frame_thread_name, sizeof a->frame_thread_name, "%s", c->threads[ft].name);
    }
    a->frame_thread = ft;
    a->sum.frame_marks = a->nmarks;
    a->sum.frame_marks_elsewhere = all_marks - best;
    rc = set_window(a, &p.w0, &p.w1);
    if (rc) {
        ludus_analysis_destroy(a);
        return ludus__fail(rc, rc == LUDUS_ENODATA ? "window last:N needs frame marks; the capture has none"
                                                   : "invalid window");
    }
    /* per-frame figures: of every frame for all (the lead-in and the tail too), else of the window's */
    int all = a->desc.window == LUDUS_WINDOW_ALL;
    a->keep_f0 = all ? 0 : a->win_f0;
    a->keep_f1 = all ? a->nmarks + 1 : a->win_f1;
    uint64_t nkept = a->keep_f1 > a->keep_f0 ? a->keep_f1 - a->keep_f0 : 1;
    a->unlogged = ludus__calloc(nkept, sizeof *a->unlogged);
    a->carried = ludus__calloc(nkept, sizeof *a->carried);
    if (!a->unlogged || !a->carried) goto oom;
    if (ludus__frames_plan(a) != 0) goto oom; /* the threshold and the hitch frames, before the pass */
    a->carried_top = ludus__calloc(a->sum.hitches ? a->sum.hitches : 1, sizeof *a->carried_top);
    if (!a->carried_top) goto oom;
    p.hordered = 1; /* marks out of order (a damaged file) make plans that overlap: searched every time */
    for (uint32_t k = 0; k < a->nhplan; k++)
        if (a->hplan[k].b > a->hplan[k].e || (k && a->hplan[k - 1].e > a->hplan[k].b)) p.hordered = 0;
    p.active = ludus__calloc(a->nsites ? a->nsites : 1, sizeof *p.active);
    p.hblk = ludus__malloc((a->nhplan ? a->nhplan : 1) * sizeof *p.hblk);
    a->threads = ludus__calloc(c->nthreads ? c->nthreads : 1, sizeof *a->threads);
    if (!p.active || !p.hblk || !a->threads) goto oom;
    a->nthreads = c->nthreads;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__an_thread *x = &a->threads[t];
        snprintf(x->name, sizeof x->name, "%s", c->threads[t].name);
        x->pub.name = x->name;
        x->pub.tid = c->threads[t].tid;
        x->pub.is_frame_thread = t == ft;
        x->pub.dropped = c->threads[t].dropped;
        for (int j = 0; j < LUDUS_THREAD_TOP; j++) x->pub.top_site[j] = UINT32_MAX;
    }
    if ((rc = ludus__busy_init(a, c)) != 0) goto fail; /* async zones measure their threads' busy time */
    for (uint32_t t = 0; t < c->nthreads; t++)
        if ((rc = run_thread(&p, c, t, t == ft)) != 0) goto fail;

    if (mark_shared_names(a) != 0) goto oom;
    /* Cells: per thread and site (before they merge), per path, then per site. Each array is cut
     * to its length as it is made (the pass grew it by doubling): the three live at once, and they
     * are most of a long capture's memory. */
    if (make_runs(a, &p) != 0 || ludus__thread_busy_end(a) != 0) goto oom;
    for (uint32_t i = 0; i < a->nsites; i++) {
        ludus__acc_stats(&a->sites[i].incl, p.exact, &a->sites[i].pub.inclusive);
        ludus__acc_stats(&a->sites[i].excl, p.exact, &a->sites[i].pub.exclusive);
    }
    for (uint32_t i = 0; i < a->nnodes; i++) {
        ludus__acc_stats(&a->nodes[i].incl, p.exact, &a->nodes[i].pub.inclusive);
        ludus__acc_stats(&a->nodes[i].excl, p.exact, &a->nodes[i].pub.exclusive);
    }

    ludus_analysis_summary *s = &a->sum;
    s->duration_ns = a->end_ns;
    s->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    s->crash_signal = c->crash.signal;
    memcpy(s->crash_signal_name, c->crash.signal_name, sizeof s->crash_signal_name);
    s->crash_tid = c->crash.tid;
    s->recovered = c->pool.recovered;
    if (c->trigger.reason[0]) { /* copies: the analysis outlives the capture */
        memcpy(a->trigger_reason, c->trigger.reason, sizeof a->trigger_reason);
        memcpy(a->trigger_detail, c->trigger.detail, sizeof a->trigger_detail);
        s->trigger_reason = a->trigger_reason;
        s->trigger_detail = a->trigger_detail;
        s->trigger_ns = c->trigger.ns - c->start_ns;
    }
    s->threads = c->nthreads;
    s->events = c->events;
    s->dropped = c->dropped;
    s->pool_bytes_needed = ludus__pool_bytes_needed(c);
    s->incomplete = c->incomplete;
    s->unwound = c->unwound;
    s->orphan_ends = c->orphan_ends;
    s->filtered = c->filtered;
    s->interner_drops = c->interner_drops;
    s->window = a->window_text;
    s->window_begin_ns = p.w0 == INT64_MIN ? 0 : p.w0;
    s->window_end_ns = p.w1 == INT64_MAX ? a->end_ns : p.w1;
    s->frame_thread = a->frame_thread_name;
    s->frame_thread_lossy = ft != UINT32_MAX && c->threads[ft].dropped != 0;
    s->hitch_k = a->desc.hitch_k;
    s->sites = a->nsites;
    s->paths = a->nnodes;
    s->exact = p.exact;
    s->percentile_rel_error = p.exact ? 0.0 : LUDUS__HIST_REL_ERROR;
    if (ludus__threads_finish(a) != 0 || ludus__frames_finish(a) != 0 || ludus__counters_finish(a) != 0 ||
        ludus__locks_finish(a) != 0)
        goto oom;
    if ((rc = ludus__timeline_finish(a, c, p.w0, p.w1)) != 0) goto fail;

    pass_free(&p);
    *out = a;
    return 0;
oom:
    rc = LUDUS_ENOMEM;
fail:
    pass_free(&p);
    ludus_analysis_destroy(a);
    /* A damaged file's error keeps its own detail (offset and problem). */
    return rc == LUDUS_ENOMEM ? ludus__fail(rc, "out of memory during the analysis") : rc;
}
