/* Hitches: what the extra time of a long frame was, and whose.
 *
 * Candidates (items) are the scopes whose exclusive time grew in the frame
 * against their median frame: each site's growth (all threads summed)
 * split over the threads it grew on, each thread's part against that
 * thread's own median; the frame thread's unlogged remainder; the time
 * carried across the frame's opening mark. Then, for the worst hitches
 * (the detailed plans the pass filled, tree.c), who waited for whom: the
 * pass kept each thread's exclusive time per 1/32 of the frame (its
 * largest sites in each bin) and the flows that arrived in the frame with
 * how long their receiver had been waiting. An item waits on another
 * thread's item when a flow from it ended the wait, or when the other's
 * growth ran at the same time as its own (bin by bin) and covers at least
 * half of it, and the item can be a wait: a wait scope (category or name,
 * ludus__site_is_wait), or on the frame thread when the frame's CPU time
 * did not grow (the thread did not run), or, without CPU times, a scope
 * that has children (its own time is then the time between them) or the
 * unlogged remainder. Such time between children on the frame thread that
 * grew on the CPU is a spin-wait (job systems spin) when the other's
 * concurrent growth covers 3/4 of it. What the frame thread waited on is the work (its
 * cause); another thread's growth it did not wait on ran beside it.
 * docs/analysis.md, "Hitches", says the same for users. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"
#include "../base/parallel.h"

/* ---- wait scopes ---- */

static int has_word(const char *s, const char *w) {
    size_t n = strlen(w);
    for (const char *p = s; *p; p++) {
        size_t k = 0;
        while (k < n && p[k] && tolower((unsigned char)p[k]) == w[k]) k++;
        if (k == n) return 1;
    }
    return 0;
}

/* A scope that waits rather than works: 2, a sleep (a frame limiter,
 * vsync): category sleep or vsync, or a name containing sleep, vsync,
 * limiter or throttle (any case); 1, another wait: category lock, wait or
 * idle, or a name containing wait, idle or yield; 0: neither. */
int ludus__site_is_wait(const char *name, const char *category) {
    static const struct {
        const char *word;
        int kind;
    } cats[] = {{"sleep", 2}, {"vsync", 2}, {"lock", 1}, {"wait", 1}, {"idle", 1}},
      words[] = {{"sleep", 2}, {"vsync", 2}, {"limiter", 2}, {"throttle", 2}, {"wait", 1}, {"idle", 1}, {"yield", 1}};
    if (category)
        for (size_t i = 0; i < sizeof cats / sizeof cats[0]; i++) {
            const char *c = category, *w = cats[i].word;
            while (*c && tolower((unsigned char)*c) == *w) c++, w++;
            if (!*c && !*w) return cats[i].kind;
        }
    if (name)
        for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
            if (has_word(name, words[i].word)) return words[i].kind;
    return 0;
}

/* ---- plans ---- */

void ludus__hplans_in(const ludus_analysis *a, int64_t t0, int64_t t1, uint32_t *lo, uint32_t *hi) {
    uint32_t l = 0, h = a->nhplan;
    while (l < h) { /* the first plan ending after t0 */
        uint32_t m = (l + h) / 2;
        if (a->hplan[m].e <= t0)
            l = m + 1;
        else
            h = m;
    }
    *lo = l;
    uint32_t k = l;
    while (k < a->nhplan && a->hplan[k].b < t1) k++;
    *hi = k;
}

void ludus__hitches_free(ludus_analysis *a) {
    ludus__free(a->hitch_frames);
    ludus__free(a->hplan);
    ludus__free(a->hblocks);
    ludus__free(a->flow_in);
    ludus__free(a->flow_out);
}

/* ---- names ---- */

const char *ludus_analysis_site_label(const ludus_analysis *a, uint32_t site, char *buf, size_t cap) {
    if (!cap) return buf;
    if (!a || site >= a->nsites) {
        snprintf(buf, cap, "?");
        return buf;
    }
    const ludus__an_site *s = &a->sites[site];
    if (s->name_shared) {
        const char *f = strrchr(s->pub.file, '/'), *b = strrchr(s->pub.file, '\\');
        if (b && (!f || b > f)) f = b;
        snprintf(buf, cap, "%s (%s:%u)", s->pub.name, f ? f + 1 : s->pub.file, s->pub.line);
    } else {
        snprintf(buf, cap, "%s", s->pub.name);
    }
    return buf;
}

const char *ludus__hitch_item(const ludus_analysis *a, const ludus_hitch *h, int g, char *buf, size_t cap) {
    uint32_t who = h->grew_site[g];
    char site[160];
    if (who == LUDUS_HITCH_UNLOGGED)
        snprintf(site, sizeof site, "(unlogged remainder)");
    else if (who == LUDUS_HITCH_CARRIED)
        snprintf(site, sizeof site, "(crossing the mark: %s)",
                 h->carried_site < a->nsites ? ludus_analysis_site_label(a, h->carried_site, buf, cap) : "?");
    else if (who < a->nsites)
        ludus_analysis_site_label(a, who, site, sizeof site);
    else
        snprintf(site, sizeof site, "?");
    uint32_t t = h->grew_thread[g];
    snprintf(buf, cap, "%s on %s", site, t < a->nthreads ? a->threads[t].pub.name : "?");
    return buf;
}

/* Its own time is the time between its children (a parent that may wait
 * for them): its exclusive time is under 90% of its inclusive time. A
 * leaf's own time is its work (off the CPU: preemption). */
int ludus__site_parentish(const ludus__an_site *s) {
    return s->pub.exclusive.total_ns < s->pub.inclusive.total_ns - s->pub.inclusive.total_ns / 10;
}

/* ---- items ---- */

#define MAXC 24 /* candidates looked at per hitch */

typedef struct cand {
    uint32_t site;  /* site index, LUDUS_HITCH_UNLOGGED or LUDUS_HITCH_CARRIED */
    uint32_t osite; /* the site whose bins stand for it (UINT32_MAX: the unlogged remainder) */
    uint32_t thread;
    int64_t g;
    uint32_t on; /* WAITING: the candidate waited on, or LUDUS_HITCH_NONE */
    uint8_t role, caused, ft, wait_kind, parentish;
} cand;

static int cmp_cand(const void *x, const void *y) {
    const cand *a = x, *b = y;
    if (a->g != b->g) return a->g > b->g ? -1 : 1;
    if (a->thread != b->thread) return a->thread < b->thread ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

/* part >= share * whole, in doubles: a file's times may be anything, and 2 *
 * part overflowed where they were near 2^63 (exact while they are below
 * 2^51 ns, 26 days). */
static int at_least(int64_t part, double share, int64_t whole) {
    return (double)part >= share * (double)whole;
}

static int cmp_flow_id(const void *x, const void *y) {
    const ludus__hflow *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

static int cmp_block(const void *x, const void *y) {
    const ludus__hblock *a = x, *b = y;
    if (a->plan != b->plan) return a->plan < b->plan ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

/* Hitches explained at a time: the cells of their frames are gathered for
 * them, not for every hitch at once (a million-frame capture has tens of
 * thousands of hitch frames, and their cells were a third of report's peak). */
#define HITCH_CHUNK 1024u

/* Appends run's cells in the hitch frames of hitches [h0, h1) to *out (*n of
 * *cap, grown), with ent and thread. */
static int hitch_cells(const ludus_analysis *a, const ludus__crun *run, uint32_t ent, uint32_t thread, uint32_t h0,
                       uint32_t h1, ludus__cellref **out, size_t *n, size_t *cap) {
    ludus__crun_it it;
    ludus__crun_begin(run, &it);
    int have = 0; /* the iterator holds the run's first cell not before the hitch frame before */
    for (uint32_t h = h0; h < h1 && a->hitch_frames[h] <= UINT32_MAX; h++) {
        uint32_t f = (uint32_t)a->hitch_frames[h];
        if (!have || it.c.frame < f) {
            ludus__crun_seek(run, &it, f); /* few hitches: most of the run is never read */
            while ((have = ludus__crun_next(&it)) != 0 && it.c.frame < f) {
            }
            if (!have) break;
        }
        if (it.c.frame != f) continue;
        if (LUDUS__GROW(*out, *n, *cap, 256) != 0) return -1;
        (*out)[(*n)++] = (ludus__cellref){it.c.excl, f, ent, thread};
    }
    return 0;
}

typedef struct expl {
    ludus_analysis *a;
    ludus__cellref *by; /* the chunk's hitch frames' site cells by (frame, site): a hitch looks at the
                           sites that ran in it, never at every site */
    size_t nby, by_cap;
    ludus__cellref *tby; /* and their (thread, site) cells by (frame, site, thread) */
    size_t ntby, tby_cap;
    const uint32_t *trun_order; /* the (thread, site) runs by (site, thread) */
    cand *c;
    uint32_t nc, cap;
    /* the detailed plan of the current hitch (UINT32_MAX: none), its blocks */
    uint32_t plan;
    const ludus__hblock *blk;
    size_t nblk;
} expl;

static int push(expl *x, uint32_t site, uint32_t osite, uint32_t thread, int64_t g) {
    if (g <= 0) return 0;
    if (LUDUS__GROW(x->c, x->nc, x->cap, 64) != 0) return -1;
    const ludus_analysis *a = x->a;
    cand *c = &x->c[x->nc++];
    memset(c, 0, sizeof *c);
    c->site = site;
    c->osite = osite;
    c->thread = thread;
    c->g = g;
    c->on = LUDUS_HITCH_NONE;
    c->ft = thread == a->frame_thread;
    if (osite < a->nsites) {
        const ludus__an_site *s = &a->sites[osite];
        c->wait_kind = s->wait_kind;
        c->parentish = (uint8_t)ludus__site_parentish(s);
    }
    return 0;
}

/* The tcells of frame f (by frame, site, thread): [*lo, *hi). */
static void frame_tcells(const expl *x, uint64_t f, size_t *lo, size_t *hi) {
    size_t l = 0, h = x->ntby;
    while (l < h) {
        size_t m = (l + h) / 2;
        if (x->tby[m].frame < f)
            l = m + 1;
        else
            h = m;
    }
    *lo = l;
    while (l < x->ntby && x->tby[l].frame == f) l++;
    *hi = l;
}

/* The site's growth D split over its threads: each thread's part by its
 * growth against its own median (all of D to the thread that ran it most
 * when none grew against its own). */
static int split_site(expl *x, uint32_t site, int64_t D, const ludus__cellref *tc, size_t n) {
    int64_t sum = 0, best = -1;
    uint32_t best_t = UINT32_MAX;
    for (size_t i = 0; i < n; i++) {
        int64_t g = tc[i].excl - ludus__tcell_median(x->a, tc[i].thread, site);
        if (g > 0) sum += g;
        if (tc[i].excl > best) best = tc[i].excl, best_t = tc[i].thread;
    }
    if (sum <= 0) return best_t == UINT32_MAX ? 0 : push(x, site, site, best_t, D);
    for (size_t i = 0; i < n; i++) {
        int64_t g = tc[i].excl - ludus__tcell_median(x->a, tc[i].thread, site);
        if (g > 0 && push(x, site, site, tc[i].thread, (int64_t)((double)D * (double)g / (double)sum + 0.5)) != 0)
            return -1;
    }
    return 0;
}

static const ludus__hblock *block_of(const expl *x, uint32_t thread) {
    size_t l = 0, h = x->nblk;
    while (l < h) {
        size_t m = (l + h) / 2;
        if (x->blk[m].thread < thread)
            l = m + 1;
        else
            h = m;
    }
    return l < x->nblk && x->blk[l].thread == thread ? &x->blk[l] : NULL;
}

/* A candidate's exclusive ns in each bin of the current plan. */
static void bins_of(const expl *x, const cand *c, int64_t out[LUDUS__HBINS]) {
    const ludus__hplan *h = &x->a->hplan[x->plan];
    if (c->osite == UINT32_MAX) { /* the unlogged remainder: the bin less the frame thread's coverage */
        uint64_t len = (uint64_t)(h->e - h->b);
        for (uint32_t i = 0; i < LUDUS__HBINS; i++) {
            int64_t b0 = h->b + (int64_t)((ludus__u128)len * i / LUDUS__HBINS);
            int64_t b1 = i + 1 == LUDUS__HBINS ? h->e : h->b + (int64_t)((ludus__u128)len * (i + 1) / LUDUS__HBINS);
            int64_t u = b1 - b0 - h->ft_busy[i];
            out[i] = u > 0 ? u : 0;
        }
        return;
    }
    const ludus__hblock *b = block_of(x, c->thread);
    for (uint32_t i = 0; i < LUDUS__HBINS; i++) {
        out[i] = 0;
        if (b)
            for (uint32_t k = 0; k < LUDUS__HSLOTS; k++)
                if (b->bin[i][k].site == c->osite) out[i] = b->bin[i][k].ns;
    }
}

/* The flows that ended candidate i's waits, summed per sender candidate
 * (out: per candidate, the ns i had waited when a flow from it arrived). */
static void flow_waits(const expl *x, const cand *c, uint32_t i, int64_t *out) {
    const ludus_analysis *a = x->a;
    for (uint32_t j = 0; j < x->nc; j++) out[j] = 0;
    for (size_t k = 0; k < a->nflow_in; k++) {
        const ludus__hflow *in = &a->flow_in[k];
        if (in->plan != x->plan || in->thread != c[i].thread || in->site != c[i].osite || in->waited <= 0) continue;
        ludus__hflow key = {in->id, 0, 0, 0, 0};
        const ludus__hflow *out_ev =
            a->nflow_out ? bsearch(&key, a->flow_out, a->nflow_out, sizeof key, cmp_flow_id) : NULL;
        if (!out_ev) continue;
        for (uint32_t j = 0; j < x->nc; j++)
            if (j != i && c[j].thread == out_ev->thread && c[j].thread != c[i].thread && c[j].osite == out_ev->site)
                out[j] += in->waited;
    }
}

/* Roles of the candidates of the current hitch. off_extra: how much the
 * frame thread's time off the CPU (wall - CPU) grew against its median,
 * when CPU times are known. */
static int roles(expl *x, int cpu_known, int64_t off_extra) {
    cand *c = x->c;
    uint32_t n = x->nc;
    if (x->plan != UINT32_MAX) {
        int64_t(*bins)[LUDUS__HBINS] = ludus__malloc((n ? n : 1) * sizeof *bins);
        int64_t *fw = ludus__malloc((n ? n : 1) * sizeof *fw);
        if (!bins || !fw) {
            ludus__free(bins);
            ludus__free(fw);
            return -1;
        }
        {
            for (uint32_t i = 0; i < n; i++) bins_of(x, &c[i], bins[i]);
            for (uint32_t i = 0; i < n; i++) {
                flow_waits(x, c, i, fw);
                uint32_t best = LUDUS_HITCH_NONE;
                int64_t bv = 0;
                for (uint32_t j = 0; j < n; j++)
                    if (fw[j] > bv) bv = fw[j], best = j;
                if (best != LUDUS_HITCH_NONE && at_least(bv, 0.5, c[i].g)) {
                    c[i].role = LUDUS_HITCH_WAITING;
                    c[i].on = best;
                    continue;
                }
                /* a wait scope; or on the frame thread, time between a scope's children (or outside any
                 * scope) while the thread was off the CPU (a leaf scope's growth off the CPU is preemption:
                 * it blocks on nothing it does not record); or that time on the CPU, a spin-wait (job
                 * systems spin: Box2D's), when another thread's growth ran with 3/4 of it */
                int between = c[i].ft && (c[i].osite == UINT32_MAX || c[i].parentish);
                int may_wait = c[i].wait_kind || (between && (!cpu_known || at_least(off_extra, 0.5, c[i].g)));
                if (!may_wait && !between) continue;
                best = LUDUS_HITCH_NONE;
                bv = 0;
                for (uint32_t j = 0; j < n; j++) {
                    if (c[j].thread == c[i].thread) continue;
                    int64_t cov = 0;
                    for (uint32_t b = 0; b < LUDUS__HBINS; b++)
                        cov += bins[i][b] < bins[j][b] ? bins[i][b] : bins[j][b];
                    if (cov > c[j].g) cov = c[j].g; /* concurrent growth: no more than it grew */
                    if (cov > bv) bv = cov, best = j;
                }
                if (best != LUDUS_HITCH_NONE && (may_wait ? at_least(bv, 0.5, c[i].g) : at_least(bv, 0.75, c[i].g))) {
                    c[i].role = LUDUS_HITCH_WAITING;
                    c[i].on = best;
                } else if (c[i].wait_kind) {
                    c[i].role = LUDUS_HITCH_WAITING; /* on nothing recorded */
                }
            }
        }
        ludus__free(bins);
        ludus__free(fw);
    } else {
        for (uint32_t i = 0; i < n; i++)
            if (c[i].wait_kind && c[i].ft) c[i].role = LUDUS_HITCH_WAITING; /* not looked at: on nothing known */
    }
    /* chains: a wait on a wait is a wait on what that one waited on */
    for (uint32_t i = 0; i < n; i++) {
        uint32_t on = c[i].on;
        for (uint32_t k = 0; k < n && on != LUDUS_HITCH_NONE && c[on].role == LUDUS_HITCH_WAITING &&
                             c[on].on != LUDUS_HITCH_NONE && c[on].on != i;
             k++)
            on = c[on].on;
        c[i].on = on;
    }
    /* what the frame thread waited on is the work; the rest of the other
     * threads' growth ran beside it */
    for (uint32_t i = 0; i < n; i++)
        if (c[i].ft && c[i].role == LUDUS_HITCH_WAITING && c[i].on != LUDUS_HITCH_NONE) {
            cand *w = &c[c[i].on];
            if (w->role != LUDUS_HITCH_WAITING) {
                w->role = LUDUS_HITCH_WORK;
                w->caused = !w->ft;
            }
        }
    for (uint32_t i = 0; i < n; i++)
        if (!c[i].role) c[i].role = c[i].ft ? LUDUS_HITCH_WORK : LUDUS_HITCH_BESIDE;
    return 0;
}

static int role_rank(const cand *c) {
    return c->role == LUDUS_HITCH_WORK ? 0 : c->role == LUDUS_HITCH_WAITING ? 1 : 2;
}

/* The cells of the frames of hitches [h0, h1): x->by and x->tby, each run's
 * appended in (site, thread) order, then put in frame order (stable). */
static int chunk_cells(expl *x, uint32_t h0, uint32_t h1) {
    const ludus_analysis *a = x->a;
    x->nby = x->ntby = 0;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (hitch_cells(a, &a->sites[i].run, i, 0, h0, h1, &x->by, &x->nby, &x->by_cap) != 0) return -1;
    for (uint32_t k = 0; k < a->ntruns; k++) {
        const ludus__trun *t = &a->truns[x->trun_order[k]];
        if (hitch_cells(a, &t->run, t->site, t->thread, h0, h1, &x->tby, &x->ntby, &x->tby_cap) != 0) return -1;
    }
    ludus__sort_cellrefs(x->by, x->nby); /* (thread 0 throughout) */
    ludus__sort_cellrefs(x->tby, x->ntby);
    return 0;
}

/* Explains hitch hi (the chunk's cells gathered in x): *at is where its
 * frame's site cells begin in x->by, *plan and *blk_at the cursors into the
 * detailed plans and their blocks, each moved on to this hitch. */
static int explain_hitch(expl *x, uint32_t hi, size_t *cursor, uint32_t *plan_at, size_t *blk_cursor,
                         int64_t med_unlogged, int64_t med_carried) {
    ludus_analysis *a = x->a;
    const ludus_analysis_summary *s = &a->sum;
    size_t at = *cursor, blk_at = *blk_cursor;
    uint32_t plan = *plan_at;
    uint64_t f = a->hitch_frames[hi];
    int64_t len = ludus__frame_end(a, f) - ludus__frame_begin(a, f);
    while (at < x->nby && x->by[at].frame < f) at++;
    size_t end = at;
    while (end < x->nby && x->by[end].frame == f) end++;
    ludus_hitch *h = &a->hitches[hi];
    h->frame = f;
    h->frame_ns = len;
    h->ratio = s->median_frame_ns ? (double)len / (double)s->median_frame_ns : 0;
    h->extra_ns = len - s->median_frame_ns;
    h->carried_site = a->carried[f - a->keep_f0] ? a->carried_top[hi].site : UINT32_MAX;
    h->cpu_ns = ludus__frame_cpu(a, f);
    int cpu_known = h->cpu_ns >= 0 && s->frame_cpu.count > 0;
    h->cpu_extra_ns = cpu_known ? h->cpu_ns - a->med_cpu : 0;
    for (int g = 0; g < LUDUS_HITCH_GREW; g++) {
        h->grew_site[g] = h->grew_thread[g] = h->grew_waited_on[g] = LUDUS_HITCH_NONE;
    }
    /* the candidates: sites (split over threads), the remainder, the carried time */
    x->nc = 0;
    size_t tlo, thi;
    frame_tcells(x, f, &tlo, &thi);
    size_t k0 = tlo; /* by_frame and tby are both in site order within f */
    for (size_t i = at; i < end; i++) {
        uint32_t who = x->by[i].ent;
        int64_t D = x->by[i].excl - a->sites[who].pub.median_frame_excl_ns;
        if (D <= 0) continue;
        while (k0 < thi && x->tby[k0].ent < who) k0++; /* the site's tcells in f */
        size_t k1 = k0;
        while (k1 < thi && x->tby[k1].ent == who) k1++;
        if (split_site(x, who, D, x->tby + k0, k1 - k0) != 0) return -1;
    }
    uint32_t ft = a->frame_thread;
    if (push(x, LUDUS_HITCH_UNLOGGED, UINT32_MAX, ft, ludus__frame_unlogged(a, f) - med_unlogged) != 0 ||
        push(x, LUDUS_HITCH_CARRIED, h->carried_site, ft, a->carried[f - a->keep_f0] - med_carried) != 0)
        return -1;
    if (x->nc) qsort(x->c, x->nc, sizeof *x->c, cmp_cand);
    if (x->nc > MAXC) x->nc = MAXC;
    /* below 0.5% of the extra time: noise beside what matters (the largest is kept) */
    while (x->nc > 1 && (double)x->c[x->nc - 1].g * 200 < (double)h->extra_ns) x->nc--; /* exact below 12 h */
    /* the detailed plan of f, if any */
    while (plan < a->nhplan && a->hplan[plan].frame < f) plan++;
    x->plan = plan < a->nhplan && a->hplan[plan].frame == f ? plan : UINT32_MAX;
    h->detailed = x->plan != UINT32_MAX;
    if (h->detailed) {
        while (blk_at < a->nhblocks && a->hblocks[blk_at].plan < plan) blk_at++;
        size_t b1 = blk_at;
        while (b1 < a->nhblocks && a->hblocks[b1].plan == plan) b1++;
        x->blk = b1 > blk_at ? a->hblocks + blk_at : NULL; /* no block: hblocks may be NULL */
        x->nblk = b1 - blk_at;
    }
    int64_t off_extra = cpu_known ? (len - h->cpu_ns) - a->med_off : 0;
    if (roles(x, cpu_known, off_extra) != 0) return -1;
    /* listed: WORK, WAITING, BESIDE, each largest first */
    uint32_t order[MAXC], no = 0;
    for (int r = 0; r < 3; r++)
        for (uint32_t i = 0; i < x->nc; i++)
            if (role_rank(&x->c[i]) == r) order[no++] = i;
    uint32_t listed_at[MAXC];
    for (uint32_t i = 0; i < x->nc; i++) listed_at[i] = LUDUS_HITCH_NONE;
    for (uint32_t k = 0; k < no && k < LUDUS_HITCH_GREW; k++) listed_at[order[k]] = k;
    int64_t expl_ns = 0, wait_other = 0, wait_none = 0, work_ft = 0;
    for (uint32_t k = 0; k < no; k++) {
        const cand *c = &x->c[order[k]];
        if (c->ft) {
            if (c->role == LUDUS_HITCH_WAITING && c->on != LUDUS_HITCH_NONE && !x->c[c->on].ft)
                wait_other += c->g;
            else if (c->role == LUDUS_HITCH_WAITING && c->on == LUDUS_HITCH_NONE && c->wait_kind == 2)
                wait_none += c->g; /* a sleep that waited on nothing recorded: a limiter, vsync */
            else if (c->role == LUDUS_HITCH_WORK)
                work_ft += c->g;
            if (k < LUDUS_HITCH_GREW || (c->on != LUDUS_HITCH_NONE && listed_at[c->on] != LUDUS_HITCH_NONE))
                expl_ns += c->g;
        }
        if (k >= LUDUS_HITCH_GREW) continue;
        h->grew_site[k] = c->site;
        h->grew_ns[k] = c->g;
        h->grew_thread[k] = c->thread;
        h->grew_role[k] = c->role;
        h->grew_caused[k] = c->caused;
        h->grew_waited_on[k] = c->on == LUDUS_HITCH_NONE ? LUDUS_HITCH_NONE : listed_at[c->on];
    }
    h->explained = h->extra_ns > 0 ? (double)expl_ns / (double)h->extra_ns : 0;
    h->explained_over = h->explained > 1.0;
    int64_t e2 = h->extra_ns;
    if (at_least(wait_none, 0.5, e2) && e2 > 0)
        h->kind = LUDUS_HITCH_KIND_LIMITED;
    else if (at_least(wait_other, 0.5, e2) && e2 > 0)
        h->kind = LUDUS_HITCH_KIND_WAITING;
    else if (cpu_known && at_least(h->cpu_extra_ns, 0.5, e2))
        h->kind = LUDUS_HITCH_KIND_WORK;
    else if (cpu_known && at_least(off_extra, 0.5, e2))
        h->kind = LUDUS_HITCH_KIND_PREEMPTED;
    else if (!cpu_known && at_least(work_ft, 0.5, e2) && e2 > 0)
        h->kind = LUDUS_HITCH_KIND_WORK;
    else
        h->kind = LUDUS_HITCH_KIND_UNKNOWN;
    *cursor = end;
    *plan_at = plan;
    *blk_cursor = blk_at;
    return 0;
}

/* Where the cursors stand at the first hitch of a chunk, as explaining the
 * hitches before it in order leaves them (plans out of order, in a damaged
 * file, make that depend on every hitch before). */
typedef struct chunk_start {
    uint32_t plan;
    size_t blk_at;
} chunk_start;

/* The chunks of hitches, explained on several threads: each writes its own
 * hitches, with its worker's buffers. */
typedef struct explain_job {
    ludus_analysis *a;
    int64_t med_unlogged, med_carried;
    const chunk_start *start;
    expl x[LUDUS__PARALLEL_MAX];
    uint8_t *failed; /* per chunk */
} explain_job;

static void explain_chunk(void *arg, unsigned worker, uint32_t k) {
    explain_job *j = arg;
    expl *x = &j->x[worker];
    uint32_t h0 = k * HITCH_CHUNK, n = j->a->sum.hitches;
    uint32_t h1 = n - h0 > HITCH_CHUNK ? h0 + HITCH_CHUNK : n;
    size_t at = 0, blk_at = j->start[k].blk_at;
    uint32_t plan = j->start[k].plan;
    if (chunk_cells(x, h0, h1) != 0) {
        j->failed[k] = 1;
        return;
    }
    for (uint32_t hi = h0; hi < h1; hi++)
        if (explain_hitch(x, hi, &at, &plan, &blk_at, j->med_unlogged, j->med_carried) != 0) {
            j->failed[k] = 1;
            return;
        }
}

typedef struct trun_key {
    uint32_t site, thread, r;
} trun_key;

static int cmp_trun_key(const void *x, const void *y) {
    const trun_key *a = x, *b = y;
    if (a->site != b->site) return a->site < b->site ? -1 : 1;
    return a->thread < b->thread ? -1 : a->thread > b->thread;
}

int ludus__hitches_explain(ludus_analysis *a, int64_t med_unlogged, int64_t med_carried) {
    const ludus_analysis_summary *s = &a->sum;
    if (a->nflow_out) qsort(a->flow_out, a->nflow_out, sizeof *a->flow_out, cmp_flow_id);
    if (a->nhblocks) qsort(a->hblocks, a->nhblocks, sizeof *a->hblocks, cmp_block);
    uint32_t chunks = (uint32_t)((s->hitches + (uint64_t)HITCH_CHUNK - 1) / HITCH_CHUNK);
    explain_job j;
    memset(&j, 0, sizeof j);
    j.a = a;
    j.med_unlogged = med_unlogged;
    j.med_carried = med_carried;
    uint32_t *trun_order = NULL;
    trun_key *keys = NULL;
    chunk_start *start = ludus__malloc((chunks + 1) * sizeof *start);
    j.start = start;
    j.failed = ludus__calloc(chunks + 1, 1);
    int rc = -1;
    if (!start || !j.failed) goto done;
    uint32_t plan = 0;
    size_t blk_at = 0;
    for (uint32_t hi = 0; hi < s->hitches; hi++) {
        if (hi % HITCH_CHUNK == 0) start[hi / HITCH_CHUNK] = (chunk_start){plan, blk_at};
        uint64_t f = a->hitch_frames[hi];
        while (plan < a->nhplan && a->hplan[plan].frame < f) plan++;
        if (plan < a->nhplan && a->hplan[plan].frame == f)
            while (blk_at < a->nhblocks && a->hblocks[blk_at].plan < plan) blk_at++;
    }
    /* the (thread, site) runs by (site, thread): their cells of a frame come
     * in the order explain_hitch reads them once put in frame order */
    trun_order = ludus__malloc((a->ntruns + 1) * sizeof *trun_order);
    keys = ludus__malloc((a->ntruns + 1) * sizeof *keys);
    if (!trun_order || !keys) goto done;
    for (uint32_t r = 0; r < a->ntruns; r++) keys[r] = (trun_key){a->truns[r].site, a->truns[r].thread, r};
    qsort(keys, a->ntruns, sizeof *keys, cmp_trun_key);
    for (uint32_t r = 0; r < a->ntruns; r++) trun_order[r] = keys[r].r;
    for (unsigned w = 0; w < LUDUS__PARALLEL_MAX; w++) {
        j.x[w].a = a;
        j.x[w].trun_order = trun_order;
    }
    /* a chunk reads every run at its hitch frames: two chunks are worth a thread */
    ludus__parallel_for(chunks, chunks > 1 ? ludus__finish_threads : 1u, explain_chunk, &j);
    for (uint32_t k = 0; k < chunks; k++)
        if (j.failed[k]) goto done;
    a->nhitches = s->hitches;
    rc = 0;
done:
    for (unsigned w = 0; w < LUDUS__PARALLEL_MAX; w++) {
        ludus__free(j.x[w].by);
        ludus__free(j.x[w].tby);
        ludus__free(j.x[w].c);
    }
    ludus__free(start);
    ludus__free(j.failed);
    ludus__free(trun_order);
    ludus__free(keys);
    return rc;
}

const char *ludus__hitch_kind_text(int kind) {
    switch (kind) {
    case LUDUS_HITCH_KIND_WORK:
        return "work";
    case LUDUS_HITCH_KIND_WAITING:
        return "waited on another thread";
    case LUDUS_HITCH_KIND_PREEMPTED:
        return "preempted/waiting";
    case LUDUS_HITCH_KIND_LIMITED:
        return "limited (vsync or a frame limiter)";
    default:
        return "mixed";
    }
}

const char *ludus__hitch_role_text(int role) {
    return role == LUDUS_HITCH_WORK ? "work" : role == LUDUS_HITCH_WAITING ? "waiting" : "beside";
}
