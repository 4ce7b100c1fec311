/* The normalised event stream of one thread of a capture (any kind: memory,
 * file, cut), derived from the raw events by the kind table:
 *   - lexical scopes: an END names its BEGIN (the begin's recorded address),
 *     so it closes exactly that scope; scopes opened inside it and still open
 *     were skipped by a non-local exit (longjmp) and are closed here, flagged
 *     UNWOUND. An END whose begin is not in the capture is an orphan (counted);
 *   - UNWIND markers (ludus_unwound_to) close the scopes begun after a point;
 *   - spans (BEGIN/END macros, ludus_begin_site) pair by site on their own
 *     stack and go on a lane: the thread's own track (0) where they nest with
 *     everything there, else the first span lane where they nest. Lanes are
 *     decided in a first pass over the thread (only threads with spans), at
 *     each span's end, and the second pass emits with them;
 *   - what is open at the end of the stream is closed at capture end, flagged
 *     INCOMPLETE; the first loss of a thread is marked by a LOSS event.
 * Per lane, the BEGIN/END events come out properly nested. */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

/* ---- time ---- */

int64_t ludus__ticks_to_ns(const ludus_capture *c, uint64_t ticks) {
    /* Unsigned arithmetic: ticks read from a file may be anything. */
    if (!c->clock_tsc) return (int64_t)(ticks - (uint64_t)c->start_ns);
    if (ticks <= c->c0.ticks) {
        uint64_t back = c->c0.ticks - ticks; /* a few ns before the first calibration point */
        uint64_t dt = c->c1.ticks - c->c0.ticks, dn = (uint64_t)(c->c1.ns - c->c0.ns);
        int64_t ns = dt ? (int64_t)((unsigned __int128)back * dn / dt) : 0;
        if (ns > INT64_MAX / 4) ns = INT64_MAX / 4;
        return c->c0.ns - c->start_ns - ns;
    }
    uint64_t dt = c->c1.ticks - c->c0.ticks;
    uint64_t dn = (uint64_t)(c->c1.ns - c->c0.ns);
    if (dt == 0) return c->c0.ns - c->start_ns;
    unsigned __int128 x = (unsigned __int128)(ticks - c->c0.ticks) * dn / dt;
    if (x > (unsigned __int128)(INT64_MAX / 4)) x = INT64_MAX / 4; /* never for a real capture */
    return (int64_t)x + (c->c0.ns - c->start_ns);
}

static void conv_init(ludus__tick_conv *v, const ludus_capture *c) {
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

/* Within 1 ns of ludus__ticks_to_ns at a multiply instead of a division. */
static inline int64_t conv_ns(const ludus__tick_conv *v, const ludus_capture *c, uint64_t ticks) {
    if (!v->fast || ticks <= v->t0) return ludus__ticks_to_ns(c, ticks);
    uint64_t x = ticks - v->t0;
    if (x >> v->shift) return ludus__ticks_to_ns(c, ticks);
    uint64_t q = (uint64_t)(((unsigned __int128)x * v->m) >> v->shift);
    return (int64_t)q + v->base;
}

/* ---- output queue ---- */

static ludus__nev *emit(ludus__nev_iter *it) {
    static __thread ludus__nev sink; /* the deciding pass emits nothing */
    if (it->deciding) return &sink;
    if (it->qhead + it->qn == it->qcap) {
        if (it->qhead) {
            memmove(it->q, it->q + it->qhead, it->qn * sizeof *it->q);
            it->qhead = 0;
        } else {
            uint32_t cap = it->qcap ? it->qcap * 2 : 16;
            ludus__nev *q = realloc(it->q, cap * sizeof *q);
            if (!q) {
                it->oom = 1;
                return &sink;
            }
            it->q = q;
            it->qcap = cap;
        }
    }
    ludus__nev *e = &it->q[it->qhead + it->qn++];
    memset(e, 0, sizeof *e);
    return e;
}

/* ---- stacks ---- */

static ludus__open *push_open(ludus__nev_iter *it, ludus__open **stack, uint32_t *n, uint32_t *cap) {
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 32;
        ludus__open *s = realloc(*stack, nc * sizeof *s);
        if (!s) {
            it->oom = 1;
            return NULL;
        }
        *stack = s;
        *cap = nc;
    }
    ludus__open *o = &(*stack)[(*n)++];
    memset(o, 0, sizeof *o);
    o->seq = it->seq++;
    return o;
}

static uint32_t site_of(ludus__nev_iter *it, uintptr_t key) {
    if (key == it->memo_key) return it->memo_site;
    uint32_t s = key ? ludus__site_index(it->c, key) : UINT32_MAX;
    it->memo_key = key;
    it->memo_site = s;
    return s;
}

static int enabled(const ludus__nev_iter *it, uint32_t site) {
    return site != UINT32_MAX && it->c->sites[site].enabled;
}

/* Closes an open slice at ts (flags: UNWOUND, INCOMPLETE or 0). */
static void close_open(ludus__nev_iter *it, const ludus__open *o, int64_t ts, uint16_t flags, int recorded) {
    if (o->site == UINT32_MAX) {
        if (recorded) it->filtered++;
        return;
    }
    if (flags & LUDUS_NEV_UNWOUND)
        it->unwound++;
    else if (flags & LUDUS_NEV_INCOMPLETE)
        it->incomplete++;
    else
        it->events++;
    ludus__nev *e = emit(it);
    e->kind = LUDUS_NEV_END;
    e->lane = o->lane;
    e->flags = (uint16_t)(flags | (o->span ? LUDUS_NEV_SPAN : 0));
    e->site = o->site;
    e->depth = it->lane_depth[o->lane] ? --it->lane_depth[o->lane] : 0;
    e->ts_ns = ts;
    e->begin_ns = o->ts_ns;
}

/* ---- span lanes (deciding pass) ---- */

/* Lane k holds the spans placed there, as the maximal ones (disjoint, in
 * order): a span [t0, now] nests in lane k when no closed one straddles t0. */
static int lane_ok(const ludus__nev_iter *it, uint32_t k, int64_t t0) {
    const ludus__lane_iv *iv = it->lane_iv[k];
    for (uint32_t i = it->lane_n[k]; i > 0 && iv[i - 1].t1 > t0; i--)
        if (iv[i - 1].t0 < t0) return 0;
    return 1;
}

static void lane_add(ludus__nev_iter *it, uint32_t k, int64_t t0, int64_t t1) {
    while (it->lane_n[k] > 0 && it->lane_iv[k][it->lane_n[k] - 1].t0 >= t0) it->lane_n[k]--;
    if (it->lane_n[k] == it->lane_cap[k]) {
        uint32_t cap = it->lane_cap[k] ? it->lane_cap[k] * 2 : 16;
        ludus__lane_iv *n = realloc(it->lane_iv[k], cap * sizeof *n);
        if (!n) {
            it->oom = 1;
            return;
        }
        it->lane_iv[k] = n;
        it->lane_cap[k] = cap;
    }
    it->lane_iv[k][it->lane_n[k]++] = (ludus__lane_iv){t0, t1};
}

/* A span's lane, decided when it ends at t1: the thread's track when every
 * lexical scope open at its begin is still open and nothing begun since is,
 * and no span placed there straddles its begin; else the first span lane it
 * nests in. */
static void decide_lane(ludus__nev_iter *it, const ludus__open *o, int64_t t1) {
    uint32_t lane = LUDUS__MAX_LANES - 1;
    if (it->nlex == o->d0 && (o->d0 == 0 || it->lex[o->d0 - 1].inst == o->inst0) && lane_ok(it, 0, o->ts_ns)) {
        lane = 0;
    } else {
        for (uint32_t k = 1; k < LUDUS__MAX_LANES; k++)
            if (lane_ok(it, k, o->ts_ns)) {
                lane = k;
                break;
            }
    }
    lane_add(it, lane, o->ts_ns, t1);
    if (o->ordinal < it->span_lane_n) it->span_lane[o->ordinal] = (uint8_t)lane;
    if (lane + 1 > it->lanes_used) it->lanes_used = lane + 1;
}

/* ---- roles ---- */

static void on_open(ludus__nev_iter *it, uintptr_t word, uintptr_t addr, uint64_t ordinal, int64_t ts) {
    uint32_t site = site_of(it, word & ~(uintptr_t)LUDUS__K_MASK);
    int on = enabled(it, site);
    ludus__open *o = push_open(it, &it->lex, &it->nlex, &it->lex_cap);
    if (!o) return;
    o->site = on ? site : UINT32_MAX;
    o->ts_ns = ts;
    o->addr = addr;
    o->ordinal = ordinal;
    o->inst = ++it->inst;
    if (!on) {
        it->filtered++;
        return;
    }
    it->events++;
    ludus__nev *e = emit(it);
    e->kind = LUDUS_NEV_BEGIN;
    e->site = site;
    e->depth = it->lane_depth[0]++;
    e->ts_ns = ts;
}

static void on_close(ludus__nev_iter *it, uintptr_t word, int64_t ts) {
    uintptr_t ref = word & ~(uintptr_t)LUDUS__K_MASK;
    uint32_t k = it->nlex;
    while (k > 0 && it->lex[k - 1].addr != ref) k--;
    if (k == 0) {
        it->orphan_ends++; /* its begin is not in this capture */
        return;
    }
    while (it->nlex > k) { /* opened inside it and never ended: unwound */
        it->nlex--;
        close_open(it, &it->lex[it->nlex], ts, LUDUS_NEV_UNWOUND, 0);
    }
    it->nlex--;
    close_open(it, &it->lex[it->nlex], ts, 0, 1);
}

/* The slot ordinal an unwind point names, or 0 (everything) when the point
 * is not in this capture's stream of the thread. */
static uint64_t point_ordinal(const ludus__nev_iter *it, uintptr_t at, uint32_t gen) {
    if (at == 0 || gen != it->c->gen) return 0;
    for (uint32_t i = it->nseen; i > 0; i--) {
        const ludus__seen_run *r = &it->seen[i - 1];
        if (at >= r->base && at <= r->base + r->n * sizeof(ludus__event))
            return r->ordinal + (at - r->base) / sizeof(ludus__event);
    }
    return 0;
}

static void on_unwind(ludus__nev_iter *it, uintptr_t at, uint32_t gen, int64_t ts) {
    uint64_t from = point_ordinal(it, at, gen);
    while (it->nlex > 0 && it->lex[it->nlex - 1].ordinal >= from) {
        it->nlex--;
        close_open(it, &it->lex[it->nlex], ts, LUDUS_NEV_UNWOUND, 0);
    }
}

static void on_span_open(ludus__nev_iter *it, uintptr_t word, int64_t ts) {
    uint32_t site = site_of(it, word & ~(uintptr_t)LUDUS__K_MASK);
    int on = enabled(it, site);
    uint64_t ordinal = it->span_ordinal++;
    ludus__open *o = push_open(it, &it->span, &it->nspan, &it->span_cap);
    if (!o) return;
    o->site = on ? site : UINT32_MAX;
    o->match = site;
    o->span = 1;
    o->ts_ns = ts;
    o->ordinal = ordinal;
    o->d0 = it->nlex;
    o->inst0 = it->nlex ? it->lex[it->nlex - 1].inst : 0;
    o->lane = (!it->deciding && ordinal < it->span_lane_n) ? it->span_lane[ordinal] : 0;
    if (!on) {
        it->filtered++;
        return;
    }
    it->events++;
    ludus__nev *e = emit(it);
    e->kind = LUDUS_NEV_BEGIN;
    e->lane = o->lane;
    e->flags = LUDUS_NEV_SPAN;
    e->site = site;
    e->depth = it->lane_depth[o->lane]++;
    e->ts_ns = ts;
}

static void on_span_close(ludus__nev_iter *it, uintptr_t word, int64_t ts) {
    uintptr_t key = word & ~(uintptr_t)LUDUS__K_MASK;
    uint32_t k = it->nspan; /* key 0: the innermost span */
    uint32_t site = UINT32_MAX;
    if (key != 0) {
        site = site_of(it, key);
        while (k > 0 && it->span[k - 1].match != site) k--;
        if (site == UINT32_MAX) k = 0;
    }
    if (k == 0) { /* no such span open: flagged, counted, never re-paired */
        it->mismatched++;
        if (site != UINT32_MAX && !enabled(it, site)) return;
        ludus__nev *e = emit(it);
        e->kind = LUDUS_NEV_MISMATCH;
        e->site = site;
        e->depth = it->lane_depth[0];
        e->ts_ns = ts;
        return;
    }
    ludus__open o = it->span[k - 1];
    memmove(&it->span[k - 1], &it->span[k], (it->nspan - k) * sizeof *it->span);
    it->nspan--;
    if (it->deciding) decide_lane(it, &o, ts);
    close_open(it, &o, ts, 0, 1);
}

static void on_pass(ludus__nev_iter *it, const ludus__kind_info *ki, const ludus__event *e, int64_t ts) {
    uint32_t site = UINT32_MAX;
    if (ki->word == LUDUS__W_SITE)
        site = site_of(it, e->word & ~(uintptr_t)LUDUS__K_MASK);
    else if (ki->payload == LUDUS__P_FLOW_NAMED)
        site = site_of(it, LUDUS__FLOW_NAME_KEY(e[1].word));
    if (ki->word == LUDUS__W_SITE && !enabled(it, site)) {
        it->filtered++;
        return;
    }
    it->events++;
    ludus__nev *n = emit(it);
    n->kind = ki->nev;
    n->site = site;
    n->depth = it->lane_depth[0];
    n->ts_ns = ts;
    if (ki->slots == 2) n->value = e[1].ticks;
    if (ki->nev == LUDUS_NEV_FRAME) {
        n->value = ++it->frame_no;
        it->frames++;
    } else if (ki->nev == LUDUS_NEV_COUNTER_F64) {
        uint64_t exp = (e[1].ticks >> 52) & 0x7ff;
        if (exp == 0x7ff) it->nonfinite++;
    }
}

/* ---- the end of the stream ---- */

static void loss_marker(ludus__nev_iter *it) {
    it->loss_pending = 0;
    ludus__nev *e = emit(it);
    e->kind = LUDUS_NEV_LOSS;
    e->site = UINT32_MAX;
    e->depth = it->lane_depth[0];
    e->ts_ns = it->th->first_drop_ns;
    e->value = it->th->dropped;
}

/* Closes everything still open at capture end, innermost first (lexical
 * scopes and spans merged by begin order). */
static void close_all(ludus__nev_iter *it) {
    int64_t end = it->c->end_ns - it->c->start_ns;
    if (it->loss_pending) loss_marker(it);
    if (it->deciding) /* spans still open end at capture end: decide with the lexical stack as it is */
        for (uint32_t i = it->nspan; i > 0; i--) decide_lane(it, &it->span[i - 1], end);
    while (it->nlex > 0 || it->nspan > 0) {
        int lex = it->nspan == 0 || (it->nlex > 0 && it->lex[it->nlex - 1].seq > it->span[it->nspan - 1].seq);
        ludus__open o = lex ? it->lex[--it->nlex] : it->span[--it->nspan];
        close_open(it, &o, end, LUDUS_NEV_INCOMPLETE, 0);
    }
}

/* ---- reading runs ---- */

static const ludus__run *current_run(ludus__nev_iter *it) {
    const ludus_capture *c = it->c;
    const ludus__cap_thread *th = it->th;
    for (;;) {
        if (it->run >= th->nruns) return NULL;
        if (c->load_run && !it->loaded) {
            int rc = c->load_run(c, &it->cursor, &it->lrun, &it->rbuf);
            if (rc != 0) {
                it->load_error = rc;
                it->oom = 1;
                return NULL;
            }
        }
        const ludus__run *run = c->load_run ? &it->lrun : &th->runs[it->run];
        if (!it->loaded) {
            it->loaded = 1;
            if (it->nseen == it->seen_cap) {
                uint32_t cap = it->seen_cap ? it->seen_cap * 2 : 16;
                ludus__seen_run *s = realloc(it->seen, cap * sizeof *s);
                if (!s) {
                    it->oom = 1;
                    return NULL;
                }
                it->seen = s;
                it->seen_cap = cap;
            }
            it->seen[it->nseen++] = (ludus__seen_run){run->base, run->n, it->ordinal};
        }
        if (it->pos < run->n) return run;
        it->run++;
        it->pos = 0;
        it->loaded = 0;
    }
}

int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out) {
    for (;;) {
        if (it->qn) {
            *out = it->q[it->qhead++];
            if (--it->qn == 0) it->qhead = 0;
            return 1;
        }
        if (it->done || it->oom) return 0;
        if (it->closing) {
            close_all(it);
            it->done = 1;
            continue;
        }
        const ludus__run *run = current_run(it);
        if (!run) {
            if (it->oom) return 0;
            it->closing = 1;
            continue;
        }
        const ludus__event *e = run->ev + it->pos;
        const ludus__kind_info *ki = &ludus__kinds[e->word & LUDUS__K_MASK];
        uintptr_t addr = run->base + it->pos * sizeof(ludus__event);
        uint64_t ordinal = it->ordinal;
        unsigned slots = ki->valid ? ki->slots : 1;
        it->pos += slots;
        it->ordinal += slots;
        if (!ki->valid || it->pos > run->n) continue; /* only a damaged file: the loader rejects those */
        int64_t ts = conv_ns(&it->conv, it->c, e->ticks);
        if (it->loss_pending && ts >= it->th->first_drop_ns) loss_marker(it);
        switch (ki->role) {
        case LUDUS__R_OPEN:
            on_open(it, e->word, addr, ordinal, ts);
            break;
        case LUDUS__R_CLOSE:
            on_close(it, e->word, ts);
            break;
        case LUDUS__R_SPAN_OPEN:
            on_span_open(it, e->word, ts);
            break;
        case LUDUS__R_SPAN_CLOSE:
            on_span_close(it, e->word, ts);
            break;
        case LUDUS__R_UNWIND:
            on_unwind(it, (uintptr_t)e[1].ticks, (uint32_t)e[1].word, ts);
            break;
        default:
            on_pass(it, ki, e, ts);
            break;
        }
    }
}

int ludus__nev_next(ludus__nev_iter *it, ludus__nev *out) {
    if (it->c->cut) return ludus__nev_next_cut(it, out);
    return ludus__nev_next_raw(it, out);
}

int ludus__nev_error(const ludus__nev_iter *it) {
    if (it->load_error) return it->load_error;
    return it->oom ? LUDUS_ENOMEM : 0;
}

/* Back to the start of the stream, keeping the lanes decided. */
static void rewind_stream(ludus__nev_iter *it) {
    it->run = 0;
    it->pos = 0;
    it->ordinal = 0;
    it->cursor = it->th->load_first;
    it->loaded = 0;
    it->nseen = 0;
    it->memo_key = 0;
    it->memo_site = UINT32_MAX;
    it->nlex = it->nspan = 0;
    memset(it->lane_depth, 0, sizeof it->lane_depth);
    it->seq = it->inst = it->span_ordinal = 0;
    it->qhead = it->qn = 0;
    it->closing = it->done = 0;
    it->loss_pending = it->th->first_drop_ns != LUDUS__NO_DROP;
    it->frame_no = 0;
    it->events = it->incomplete = it->unwound = it->orphan_ends = 0;
    it->filtered = it->frames = it->mismatched = it->nonfinite = 0;
}

int ludus__nev_init(ludus__nev_iter *it, const ludus_capture *c, uint32_t thread) {
    memset(it, 0, sizeof *it);
    it->c = c;
    conv_init(&it->conv, c);
    it->th = &c->threads[thread];
    rewind_stream(it);
    if (it->th->spans == 0) return 0;
    /* Lanes: one pass deciding where each span goes. A file's count is
     * bounded by its slots. */
    uint64_t n = it->th->spans;
    if (it->th->slots && n > it->th->slots) n = it->th->slots;
    it->span_lane = calloc(n ? n : 1, 1);
    if (!it->span_lane) {
        it->oom = 1;
        return LUDUS_ENOMEM;
    }
    it->span_lane_n = n;
    it->deciding = 1;
    ludus__nev ev;
    while (ludus__nev_next_raw(it, &ev)) {
    }
    it->deciding = 0;
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) {
        free(it->lane_iv[k]);
        it->lane_iv[k] = NULL;
        it->lane_n[k] = it->lane_cap[k] = 0;
    }
    if (it->oom) return ludus__nev_error(it);
    rewind_stream(it);
    return 0;
}

void ludus__nev_free(ludus__nev_iter *it) {
    free(it->lex);
    free(it->span);
    free(it->q);
    free(it->seen);
    free(it->span_lane);
    free(it->cut_open);
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) free(it->lane_iv[k]);
    free(it->rbuf.ev);
    free(it->rbuf.bytes);
    memset(it, 0, sizeof *it);
}
