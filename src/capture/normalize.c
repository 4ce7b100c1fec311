/* The normalised event stream of one thread of a capture (any kind: memory,
 * file, cut), derived from the raw events by the kind table:
 *   - lexical scopes: an END names its BEGIN (the begin's recorded address),
 *     so it closes exactly that scope; scopes opened inside it and still open
 *     were skipped by a non-local exit (longjmp) and are closed here, flagged
 *     UNWOUND. An END whose begin is not in the capture is an orphan (counted);
 *   - UNWIND markers (ludus_unwound_to) close the scopes begun after a point;
 *   - spans (BEGIN/END macros, ludus_span_begin) pair by site on their own
 *     stack and go on a lane: the thread's own track (0) where they nest with
 *     everything there, else the first span lane where they nest. Lanes are
 *     decided in a first pass over the thread (only threads with spans), at
 *     each span's end, and the second pass emits with them;
 *   - what is open at the end of the stream is closed at capture end, flagged
 *     INCOMPLETE; the first loss of a thread is marked by a LOSS event.
 * Per lane, the BEGIN/END events come out properly nested. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "run_ahead.h"
#include "../base/text.h"
#include "../base/grow.h"

/* ---- time ---- */

int64_t ludus__ticks_to_ns(const ludus_capture *c, uint64_t ticks) {
    /* Unsigned arithmetic: ticks read from a file may be anything. */
    if (!c->clock_tsc) return (int64_t)(ticks - (uint64_t)c->start_ns);
    if (ticks <= c->c0.ticks) {
        uint64_t back = c->c0.ticks - ticks; /* a few ns before the first calibration point */
        uint64_t dt = c->c1.ticks - c->c0.ticks, dn = (uint64_t)(c->c1.ns - c->c0.ns);
        int64_t ns = dt ? (int64_t)((ludus__u128)back * dn / dt) : 0;
        if (ns > INT64_MAX / 4) ns = INT64_MAX / 4;
        return c->c0.ns - c->start_ns - ns;
    }
    uint64_t dt = c->c1.ticks - c->c0.ticks;
    uint64_t dn = (uint64_t)(c->c1.ns - c->c0.ns);
    if (dt == 0) return c->c0.ns - c->start_ns;
    ludus__u128 x = (ludus__u128)(ticks - c->c0.ticks) * dn / dt;
    if (x > (ludus__u128)(INT64_MAX / 4)) x = INT64_MAX / 4; /* never for a real capture */
    return (int64_t)x + (c->c0.ns - c->start_ns);
}

void ludus__tick_conv_init(ludus__tick_conv *v, const ludus_capture *c) {
    memset(v, 0, sizeof *v);
    v->t0 = c->c0.ticks;
    v->base = c->c0.ns - c->start_ns;
    uint64_t dt = c->c1.ticks - c->c0.ticks, dn = (uint64_t)(c->c1.ns - c->c0.ns);
    /* Only for a sane calibration with a tick shorter than a ns (a file may
     * hold anything; else every event takes the exact path): m = dn/dt as a
     * rounded 0.64 fixed-point fraction, within 1 ns of the exact quotient
     * for ticks within 2^63 of t0. */
    if (!c->clock_tsc) {
        /* Ticks are ns already: ts = ticks - start. With m = 2^64 - 1 the
         * multiply-high gives x - 1 exactly for x >= 1, and base adds the 1
         * back, so the same fast path serves (no branch in the loop). */
        v->t0 = (uint64_t)c->start_ns;
        v->m = UINT64_MAX;
        v->base = 1;
        v->range = ((uint64_t)1 << 63) - 1;
        return;
    }
    if (dt == 0 || dn == 0 || dn >= dt) return;
    v->m = (uint64_t)((((ludus__u128)dn << 64) + dt / 2) / dt);
    v->range = ((uint64_t)1 << 63) - 1; /* ticks - t0 in [1, 2^63) */
}

/* ---- output: the raw batch (one raw event may emit several events: an
 * end that closes unwound scopes too) ---- */

static ludus__nev *emit_grow(ludus__nev_iter *it) {
    uint32_t cap = it->rcap * 2;
    ludus__nev *b = ludus__realloc(it->rb, cap * sizeof *b);
    if (!b) {
        it->oom = 1;
        return &it->sink; /* where events go when the batch cannot grow (the stream stops: oom) */
    }
    it->rb = b;
    it->rcap = cap;
    return &it->rb[it->rn++];
}

/* The slot of the next output event: every field is set by the caller. */
static inline ludus__nev *emit(ludus__nev_iter *it) {
    if (it->rn == it->rcap) return emit_grow(it);
    return &it->rb[it->rn++];
}

static inline void set_nev(ludus__nev *restrict e, uint8_t kind, uint8_t lane, uint16_t flags, uint32_t site,
                           uint32_t depth, int64_t ts, int64_t begin, uint64_t value) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* kind, lane, flags and site, then depth and series (0): two stores */
    const uint64_t head = kind | (uint64_t)lane << 8 | (uint64_t)flags << 16 | (uint64_t)site << 32, d = depth;
    memcpy(e, &head, 8);
    memcpy(&e->depth, &d, 8);
#else
    e->kind = kind;
    e->lane = lane;
    e->flags = flags;
    e->site = site;
    e->depth = depth;
    e->series = 0;
#endif
    e->ts_ns = ts;
    e->begin_ns = begin;
    e->value = value;
}
_Static_assert(offsetof(ludus__nev, site) == 4 && offsetof(ludus__nev, series) == offsetof(ludus__nev, depth) + 4,
               "set_nev's two stores");

/* ---- stacks and sites ---- */

/* A lexical scope's site, lane 0 and span 0: one store. */
static inline void set_lex_head(ludus__open *o, uint32_t site) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    const uint64_t head = site;
    memcpy(o, &head, 8);
#else
    o->site = site;
    o->lane = 0;
    o->span = 0;
    o->unused = 0;
#endif
}
_Static_assert(offsetof(ludus__open, lane) == 4 && offsetof(ludus__open, span) == 5 &&
                   offsetof(ludus__open, unused) == 6 && offsetof(ludus__open, ts_ns) == 8,
               "set_lex_head's store");

static int grow_stack(ludus__nev_iter *it, ludus__open **stack, uint32_t *cap) {
    uint32_t nc = *cap ? *cap * 2 : 32;
    ludus__open *s = ludus__realloc(*stack, nc * sizeof *s);
    if (!s) {
        it->oom = 1;
        return -1;
    }
    *stack = s;
    *cap = nc;
    return 0;
}

static void memo_fill(ludus__nev_iter *it, ludus__site_memo *m, uintptr_t key) {
    uint32_t s = key ? ludus__site_index(it->c, key) : UINT32_MAX;
    m->key = key;
    m->site = s;
    m->shown = s != UINT32_MAX && it->c->sites[s].enabled ? s : UINT32_MAX;
}

static inline const ludus__site_memo *site_of(ludus__nev_iter *it, uintptr_t key) {
    ludus__site_memo *m = &it->memo[((key >> 4) ^ (key >> 12)) & (LUDUS__SITE_MEMO - 1)];
    if (m->key != key) memo_fill(it, m, key);
    return m;
}

static int enabled(const ludus__nev_iter *it, uint32_t site) {
    return site != UINT32_MAX && it->c->sites[site].enabled;
}

/* Closes an open slice at ts (flags: UNWOUND, INCOMPLETE or 0). */
static inline void close_open(ludus__nev_iter *it, const ludus__open *o, int64_t ts, uint16_t flags, int recorded) {
    if (o->site == UINT32_MAX) {
        if (recorded) it->filtered++;
        return;
    }
    uint32_t depth = it->lane_depth[o->lane] ? --it->lane_depth[o->lane] : 0;
    uint16_t kind = o->span == 2 ? LUDUS_NEV_SPAN | LUDUS_NEV_FIBER : o->span ? LUDUS_NEV_SPAN : 0;
    set_nev(emit(it), LUDUS_NEV_END, o->lane, (uint16_t)(flags | kind), o->site, depth, ts, o->ts_ns, 0);
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
    if (LUDUS__GROW(it->lane_iv[k], it->lane_n[k], it->lane_cap[k], 16) != 0) {
        it->oom = 1;
        return;
    }
    it->lane_iv[k][it->lane_n[k]++] = (ludus__lane_iv){t0, t1};
}

/* A span's lane, decided when it ends at t1: the thread's track when every
 * lexical scope open at its begin is still open and nothing begun since is,
 * and no span placed there straddles its begin; else the first span lane it
 * nests in. */
static void decide_lane(ludus__nev_iter *it, const ludus__open *o, int64_t t1) {
    uint32_t lane = LUDUS__MAX_LANES - 1;
    if (it->nlex == o->d0 && (o->d0 == 0 || it->lex[o->d0 - 1].seq == o->seq0) && lane_ok(it, 0, o->ts_ns)) {
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

static inline void on_open(ludus__nev_iter *it, uintptr_t word, uintptr_t addr, uint64_t seq, int64_t ts) {
    uint32_t site = site_of(it, word & ~(uintptr_t)LUDUS__K_MASK)->shown;
    if (it->nlex == it->lex_cap && grow_stack(it, &it->lex, &it->lex_cap) != 0) return;
    ludus__open *o = &it->lex[it->nlex++];
    o->site = site;
    o->lane = 0;
    o->span = 0;
    o->ts_ns = ts;
    o->seq = seq;
    o->addr = addr;
    if (site == UINT32_MAX) {
        it->filtered++;
        return;
    }
    const uint32_t depth = it->lane_depth[0]++;
    if (!it->no_begins) set_nev(emit(it), LUDUS_NEV_BEGIN, 0, 0, site, depth, ts, 0, 0);
}

/* An end whose begin is not in the stream, noted for ring_start.c. */
static void note_orphan(ludus__nev_iter *it, uintptr_t ref, uintptr_t span_key) {
    if (!it->collect_orphans || it->deciding) return;
    if (LUDUS__GROW(it->orphans, it->norphans, it->orphans_cap, 16) != 0) {
        it->oom = 1;
        return;
    }
    it->orphans[it->norphans++] = (ludus__orphan_end){ref, span_key};
}

/* An end that is not the innermost scope's: it closes its scope and every
 * scope opened inside it (unwound), or names a begin not in the capture. */
static void on_close_search(ludus__nev_iter *it, uintptr_t ref, int64_t ts) {
    uint32_t k = it->nlex;
    while (k > 0 && it->lex[k - 1].addr != ref) k--;
    if (k == 0) {
        for (uint32_t i = 0; i < it->th->nlost_begin; i++)
            if (it->th->lost_begin[i] == ref) return; /* its begin was left out at a capture's end: dropped, counted */
        it->orphan_ends++;                            /* its begin is not in this capture */
        note_orphan(it, ref, 0);
        return;
    }
    while (it->nlex > k) { /* opened inside it and never ended: unwound */
        it->nlex--;
        close_open(it, &it->lex[it->nlex], ts, LUDUS_NEV_UNWOUND, 0);
    }
    it->nlex--;
    close_open(it, &it->lex[it->nlex], ts, 0, 1);
}

static inline void on_close(ludus__nev_iter *it, uintptr_t word, int64_t ts) {
    uintptr_t ref = word & ~(uintptr_t)LUDUS__K_MASK;
    if (it->nlex == 0 || it->lex[it->nlex - 1].addr != ref) {
        on_close_search(it, ref, ts);
        return;
    }
    it->nlex--;
    close_open(it, &it->lex[it->nlex], ts, 0, 1);
}

/* The slot ordinal an unwind point names, or 0 (everything) when the point
 * is not in this capture's stream of the thread. */
static uint64_t point_ordinal(const ludus__nev_iter *it, uintptr_t at, uint32_t gen) {
    const ludus_capture *c = it->c;
    if (at == 0) return 0;
    if (gen != c->gen) return 0; /* another capture's point */
    for (uint32_t i = it->nseen; i > 0; i--) {
        const ludus__seen_run *r = &it->seen[i - 1];
        if (at >= r->base && at <= r->base + r->n * sizeof(ludus__event))
            return r->ordinal + (at - r->base) / sizeof(ludus__event);
    }
    return 0;
}

static void on_unwind(ludus__nev_iter *it, uintptr_t at, uint32_t gen, int64_t ts) {
    uint64_t from = point_ordinal(it, at, gen);
    while (it->nlex > 0 && it->lex[it->nlex - 1].seq >= from) {
        it->nlex--;
        close_open(it, &it->lex[it->nlex], ts, LUDUS_NEV_UNWOUND, 0);
    }
}

static void on_span_open(ludus__nev_iter *it, uintptr_t word, int64_t ts, int fiber, uint64_t seq) {
    const ludus__site_memo *m = site_of(it, word & ~(uintptr_t)LUDUS__K_MASK);
    uint32_t site = m->site, shown = m->shown;
    uint64_t ordinal = it->span_ordinal++;
    if (it->nspan == it->span_cap && grow_stack(it, &it->span, &it->span_cap) != 0) return;
    ludus__open *o = &it->span[it->nspan++];
    o->site = shown;
    o->match = site;
    o->span = fiber ? 2 : 1;
    o->ts_ns = ts;
    o->seq = seq;
    o->addr = 0;
    o->ordinal = ordinal;
    o->d0 = it->nlex;
    o->seq0 = it->nlex ? it->lex[it->nlex - 1].seq : 0;
    o->lane = (!it->deciding && ordinal < it->span_lane_n) ? it->span_lane[ordinal] : 0;
    if (shown == UINT32_MAX) {
        it->filtered++;
        return;
    }
    const uint32_t depth = it->lane_depth[o->lane]++;
    if (!it->no_begins)
        set_nev(emit(it), LUDUS_NEV_BEGIN, o->lane, fiber ? LUDUS_NEV_SPAN | LUDUS_NEV_FIBER : LUDUS_NEV_SPAN, site,
                depth, ts, 0, 0);
}

static void on_span_close(ludus__nev_iter *it, uintptr_t word, int64_t ts) {
    uintptr_t key = word & ~(uintptr_t)LUDUS__K_MASK;
    uint32_t k = it->nspan; /* key 0: the innermost span */
    uint32_t site = UINT32_MAX;
    if (key != 0) {
        site = site_of(it, key)->site;
        while (k > 0 && it->span[k - 1].match != site) k--;
        if (site == UINT32_MAX) k = 0;
    }
    if (k == 0) { /* no such span open: flagged, counted, never re-paired */
        it->mismatched++;
        note_orphan(it, 0, key ? key : 1); /* 1: the innermost span's end, its site not named */
        if (site != UINT32_MAX && !enabled(it, site)) return;
        set_nev(emit(it), LUDUS_NEV_MISMATCH, 0, 0, site, it->lane_depth[0], ts, 0, 0);
        return;
    }
    if (k == it->nspan) { /* the innermost: the common case */
        const ludus__open *o = &it->span[--it->nspan];
        if (it->deciding) decide_lane(it, o, ts);
        close_open(it, o, ts, 0, 1);
        return;
    }
    ludus__open o = it->span[k - 1];
    memmove(&it->span[k - 1], &it->span[k], (it->nspan - k) * sizeof *it->span);
    it->nspan--;
    if (it->deciding) decide_lane(it, &o, ts);
    close_open(it, &o, ts, 0, 1);
}

/* A message's text, cleaned to UTF-8, kept in the iterator's text store
 * (it outlives the run it came from); returns its offset, -1 without room. */
static int64_t keep_text(ludus__nev_iter *it, const char *text, uint32_t len, uint32_t *kept) {
    size_t need = 3 * (size_t)len + 1; /* each bad byte may become U+FFFD */
    if (it->text_n + need > it->text_cap) {
        size_t cap = it->text_cap ? it->text_cap * 2 : 4096;
        while (cap < it->text_n + need) cap *= 2;
        char *t = ludus__realloc(it->text, cap);
        if (!t) {
            it->oom = 1;
            *kept = 0;
            return -1;
        }
        it->text = t;
        it->text_cap = cap;
    }
    int64_t at = (int64_t)it->text_n;
    *kept = (uint32_t)ludus__utf8_clean(text, len, it->text + it->text_n, need - 1);
    it->text[it->text_n + *kept] = 0;
    it->text_n += *kept + 1;
    return at;
}

const char *ludus__nev_text(const ludus__nev_iter *it, const ludus__nev *e, size_t *len) {
    if (e->begin_ns >= 0 && (size_t)e->begin_ns < it->text_n) {
        *len = e->series;
        return it->text + e->begin_ns;
    }
    if (e->site != UINT32_MAX) {
        *len = it->c->sites[e->site].name_len;
        return it->c->sites[e->site].name;
    }
    *len = 0;
    return "";
}

/* The slice an attaching event belongs to: the innermost open one of the
 * thread (lexical or span, by begin order), shown; 0 when none is. */
static int open_slice(const ludus__nev_iter *it, uint8_t *lane, uint32_t *depth) {
    const ludus__open *o = NULL;
    if (it->nlex) o = &it->lex[it->nlex - 1];
    if (it->nspan && (!o || it->span[it->nspan - 1].seq > o->seq)) o = &it->span[it->nspan - 1];
    if (!o || o->site == UINT32_MAX || it->lane_depth[o->lane] == 0) return 0;
    *lane = o->lane;
    *depth = it->lane_depth[o->lane] - 1;
    return 1;
}

/* An event that pairs with nothing: its site from the word, the rest from
 * its payload's fields (event_table.h), an extension's from its sub-kind. */
static void on_pass(ludus__nev_iter *it, const ludus__kind_info *ki, const ludus__event *e, int64_t ts) {
    uint32_t site = UINT32_MAX, series = 0;
    uint8_t nev = ki->nev, lane = 0;
    const uintptr_t wkey =
        (ki->word == LUDUS__W_SITE || ki->word == LUDUS__W_SITE0) ? e->word & ~(uintptr_t)LUDUS__K_MASK : 0;
    const ludus__ext_info *x = NULL;
    int64_t begin = 0;
    uint64_t value = 0;
    if (ki->word_field == LUDUS__F_EXT) {
        x = &ludus__exts[LUDUS__EXT_CODE(e[1].word)];
        if (!x->valid) { /* a later library's extension: skipped, counted */
            it->unknown++;
            return;
        }
        nev = x->nev;
    } else if (ki->word == LUDUS__W_SITE0 && !wkey) {
        nev++; /* a SITE0 kind without its site is the normalised kind after its own (ASYNC: the end) */
    }
    if (wkey) {
        site = site_of(it, wkey)->shown;
        if (site == UINT32_MAX) {
            it->filtered++;
            return;
        }
    } else if (ludus__nevs[nev].attach) { /* an annotation names its key: one without (a damaged pool) is skipped */
        it->unknown++;
        return;
    }
    if (ki->slots == 2) {
        value = e[1].ticks;
        switch (ki->word_field) {
        case LUDUS__F_FLOW_NAME: /* the flow's name is its site */
            if (site == UINT32_MAX) site = site_of(it, ludus__field_key(LUDUS__F_FLOW_NAME, e[1].word))->site;
            break;
        case LUDUS__F_SITE: /* a second site: the series (an async zone's track) */
            series = e[1].word ? site_of(it, (uintptr_t)e[1].word)->site : UINT32_MAX;
            break;
        case LUDUS__F_STAT:
            if (e[1].word >= LUDUS__STAT_COUNT) { /* readers reject it; a live capture cannot hold one */
                it->filtered++;
                return;
            }
            series = 1u + (uint32_t)e[1].word;
            /* a memory domain's live figures that are not known: negative
             * (older recorders wrote them) or of a domain the manifest says
             * is unknown (file_reader.c): not a value, as today's recorder
             * does not record one */
            if ((e[1].word == LUDUS__STAT_MEM_LIVE || e[1].word == LUDUS__STAT_MEM_LIVE_ALLOCS ||
                 e[1].word == LUDUS__STAT_MEM_PEAK) &&
                ((int64_t)value < 0 || (site != UINT32_MAX && it->c->sites[site].live_unknown)))
                return;
            break;
        case LUDUS__F_EXT: { /* the data: a text, or arguments the site's name formats */
            size_t len = LUDUS__EXT_LEN(e[1].word);
            if (x->data == LUDUS__D_FORMAT_ARGS && site != UINT32_MAX) {
                char text[LUDUS__EXT_DATA_MAX + 1];
                size_t n =
                    ludus__log_format(it->c->sites[site].name, (const unsigned char *)&e[2], len, text, sizeof text);
                begin = keep_text(it, text, (uint32_t)n, &series);
            } else if (x->data == LUDUS__D_TEXT) {
                series = (uint32_t)len;
                begin = series ? keep_text(it, (const char *)&e[2], series, &series) : -1; /* -1: the site's name */
            }
            break;
        }
        default:
            break;
        }
    }
    /* and its live samples (ludus_memory_sample) likewise */
    if (nev == LUDUS_NEV_COUNTER && site != UINT32_MAX && it->c->sites[site].live_unknown) return;
    const ludus__nev_info *ni = &ludus__nevs[nev];
    if (nev == LUDUS_NEV_FRAME) value = ++it->frame_no;
    uint32_t depth = it->lane_depth[0];
    if (ni->attach && !open_slice(it, &lane, &depth)) depth = UINT32_MAX;
    ludus__nev *n = emit(it);
    set_nev(n, nev, lane, 0, site, depth, ts, begin, value);
    n->series = series;
}

/* A fiber switch: on the thread's track, a span named after the fiber while
 * the thread runs it (prepare.c moved the fiber's own events away). */
static void on_fiber(ludus__nev_iter *it, const ludus__event *e, int64_t ts, uint64_t seq) {
    if (e[1].ticks)
        on_span_open(it, e->word, ts, 1, seq);
    else
        on_span_close(it, e->word, ts);
}

/* ---- the end of the stream ---- */

static void loss_marker(ludus__nev_iter *it) {
    it->loss_at = INT64_MAX;
    set_nev(emit(it), LUDUS_NEV_LOSS, 0, 0, UINT32_MAX, it->lane_depth[0], it->th->first_drop_ns, 0, it->th->dropped);
}

/* Closes everything still open at capture end, innermost first (lexical
 * scopes and spans merged by begin order). */
static void close_all(ludus__nev_iter *it) {
    int64_t end = it->c->end_ns - it->c->start_ns;
    if (it->loss_at != INT64_MAX) loss_marker(it);
    if (it->c->crash.signal && it->th->tid == it->c->crash.tid) /* where the crash hit: inside what was open */
        set_nev(emit(it), LUDUS_NEV_CRASH, 0, 0, UINT32_MAX, it->lane_depth[0], it->c->crash.ns - it->c->start_ns, 0,
                (uint64_t)it->c->crash.signal);
    if (it->deciding) { /* spans still open end at capture end: decide with the lexical stack as it is */
        for (uint32_t i = it->nspan; i > 0; i--) decide_lane(it, &it->span[i - 1], end);
        it->nlex = it->nspan = 0;
        return;
    }
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
        if (c->src->load_run && !it->loaded) {
            if (!it->ahead && !it->ahead_tried && !it->load_here) { /* the runs after this one load on another core */
                it->ahead_tried = 1;
                it->ahead = ludus__run_ahead_start(c, it->cursor, th->nruns - it->run);
            }
            int rc = it->ahead ? ludus__run_ahead_take(it->ahead, &it->lrun, &it->cursor)
                               : c->src->load_run(c, &it->cursor, &it->lrun, &it->rbuf);
            if (rc != 0) {
                it->load_error = rc;
                it->oom = 1;
                return NULL;
            }
        }
        const ludus__run *run = c->src->load_run ? &it->lrun : &th->runs[it->run];
        if (!it->loaded) {
            it->loaded = 1;
            if (LUDUS__GROW(it->seen, it->nseen, it->seen_cap, 16) != 0) {
                it->oom = 1;
                return NULL;
            }
            it->seen[it->nseen++] = (ludus__seen_run){run->base, run->n, it->ordinal};
        }
        if (it->pos < run->n) return run;
        it->ordinal += it->pos;
        it->run++;
        it->pos = 0;
        it->loaded = 0;
    }
}

/* The deciding pass's lexical stack: positions only, nothing emitted. */
static inline void decide_open(ludus__nev_iter *it, uintptr_t addr, uint64_t seq) {
    if (it->nlex == it->lex_cap && grow_stack(it, &it->lex, &it->lex_cap) != 0) return;
    ludus__open *o = &it->lex[it->nlex++];
    o->seq = seq;
    o->addr = addr;
}

static inline void decide_close(ludus__nev_iter *it, uintptr_t word) {
    uintptr_t ref = word & ~(uintptr_t)LUDUS__K_MASK;
    uint32_t k = it->nlex;
    while (k > 0 && it->lex[k - 1].addr != ref) k--;
    if (k > 0) it->nlex = k - 1; /* with what was unwound inside it */
}

/* Span lanes are decided in a pass where only spans and the positions of
 * lexical scopes matter: nothing is emitted. */
static void scan_run_deciding(ludus__nev_iter *it, const ludus__run *run) {
    const ludus__event *ev = run->ev;
    const size_t n = run->n;
    size_t pos = it->pos;
    while (pos < n) {
        const ludus__event *e = ev + pos;
        const uintptr_t word = e->word;
        const ludus__kind_info *ki = &ludus__kinds[word & LUDUS__K_MASK];
        const size_t at = pos, slots = ludus__event_slots(e, n - pos);
        pos += slots;
        if (slots == 0 || pos > n) { /* only a damaged file: the loader rejects those */
            pos = slots == 0 ? pos + 1 : n;
            continue;
        }
        switch (ki->role) {
        case LUDUS__R_OPEN:
            decide_open(it, run->base + at * sizeof(ludus__event), it->ordinal + at);
            break;
        case LUDUS__R_CLOSE:
            decide_close(it, word);
            break;
        case LUDUS__R_SPAN_OPEN:
            on_span_open(it, word, ludus__tick_conv_ns(&it->conv, it->c, e->ticks), 0, it->ordinal + at);
            break;
        case LUDUS__R_SPAN_CLOSE:
            on_span_close(it, word, ludus__tick_conv_ns(&it->conv, it->c, e->ticks));
            break;
        case LUDUS__R_FIBER:
            on_fiber(it, e, ludus__tick_conv_ns(&it->conv, it->c, e->ticks), it->ordinal + at);
            break;
        case LUDUS__R_UNWIND: {
            uint64_t from = point_ordinal(it, (uintptr_t)e[1].ticks, (uint32_t)e[1].word);
            while (it->nlex > 0 && it->lex[it->nlex - 1].seq >= from) it->nlex--;
            break;
        }
        default:
            break;
        }
        it->rn = 0; /* what the span functions emitted is not wanted */
    }
    it->pos = pos;
}

/* One raw event at pos of the run, any kind; returns the position after it. */
static size_t step(ludus__nev_iter *it, const ludus__run *run, size_t pos) {
    const ludus__event *e = run->ev + pos;
    const uintptr_t word = e->word;
    const ludus__kind_info *ki = &ludus__kinds[word & LUDUS__K_MASK];
    const size_t at = pos, slots = ludus__event_slots(e, run->n - pos);
    pos += slots;
    if (slots == 0 || pos > run->n) /* only a damaged file: the loader rejects those */
        return slots == 0 ? pos + 1 : run->n;
    int64_t ts = ludus__tick_conv_ns(&it->conv, it->c, e->ticks);
    if (ts >= it->loss_at) loss_marker(it);
    switch (ki->role) {
    case LUDUS__R_OPEN:
        on_open(it, word, run->base + at * sizeof(ludus__event), it->ordinal + at, ts);
        break;
    case LUDUS__R_CLOSE:
        on_close(it, word, ts);
        break;
    case LUDUS__R_SPAN_OPEN:
        on_span_open(it, word, ts, 0, it->ordinal + at);
        break;
    case LUDUS__R_SPAN_CLOSE:
        on_span_close(it, word, ts);
        break;
    case LUDUS__R_UNWIND:
        on_unwind(it, (uintptr_t)e[1].ticks, (uint32_t)e[1].word, ts);
        break;
    case LUDUS__R_FIBER:
        on_fiber(it, e, ts, it->ordinal + at);
        break;
    default:
        on_pass(it, ki, e, ts);
        break;
    }
    return pos;
}

/* What the pairing loop does inline for a raw kind (the kind table's role,
 * and for a pass-through kind its layout); FAST_STEP: through step(). */
enum { FAST_STEP, FAST_OPEN, FAST_CLOSE, FAST_SPAN_OPEN, FAST_SPAN_CLOSE, FAST_MARK };

static uint8_t fast_kind(const ludus__kind_info *ki) {
    switch (ki->role) {
    case LUDUS__R_OPEN:
        return FAST_OPEN;
    case LUDUS__R_CLOSE:
        return FAST_CLOSE;
    case LUDUS__R_SPAN_OPEN:
        return FAST_SPAN_OPEN;
    case LUDUS__R_SPAN_CLOSE:
        return FAST_SPAN_CLOSE;
    case LUDUS__R_PASS: /* one slot, its site in the word, attached to nothing: a mark, a frame */
        return ki->valid && ki->slots == 1 && ki->word == LUDUS__W_SITE && !ludus__nevs[ki->nev].attach ? FAST_MARK
                                                                                                        : FAST_STEP;
    default:
        return FAST_STEP;
    }
}

/* The bound of the fast conversion (cv->range) lowered so that it also
 * stops at the first time at or after loss_at: the smallest x = ticks - t0
 * whose time is >= loss_at, found by bisection on the (monotonic) fast
 * conversion itself, so one compare per event says both "fast" and "no loss
 * marker due". */
static uint64_t fast_limit(const ludus__tick_conv *cv, int64_t loss_at) {
    if (loss_at == INT64_MAX || cv->range == 0) return cv->range;
    uint64_t lo = 1, hi = cv->range; /* x - 1 in [0, range): x in [1, range] */
    if ((int64_t)(uint64_t)(((ludus__u128)hi * cv->m) >> 64) + cv->base < loss_at) return cv->range;
    while (lo < hi) { /* the smallest x in [lo, hi] whose time is >= loss_at */
        uint64_t mid = lo + (hi - lo) / 2;
        if ((int64_t)(uint64_t)(((ludus__u128)mid * cv->m) >> 64) + cv->base >= loss_at)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo - 1; /* x - 1 < lo - 1: x < lo */
}

/* Room on the lexical stack for need entries. */
static int lex_room(ludus__nev_iter *it, size_t need) {
    while (it->lex_cap < need)
        if (grow_stack(it, &it->lex, &it->lex_cap) != 0) return -1;
    return 0;
}

/* A span's begin, the innermost span's end, a mark: what on_span_open,
 * on_span_close and on_pass do, when the site is looked up and the span
 * stack has room, on scan_run_k's local state (event e, its word's key and
 * fast kind, its time; the output slot, the lexical stack's top, the
 * track's depth). 1: done, it emitted at most one event; 0: not such a case. */
__attribute__((always_inline)) static inline int fast_other(ludus__nev_iter *it, const ludus__event *e, uintptr_t word,
                                                            uintptr_t key, uint8_t f, int64_t ts, uint64_t obias,
                                                            ludus__nev **out, const ludus__open *top, uint32_t *depth0,
                                                            const int begins) {
    const ludus__site_memo *const m = &it->memo[((key >> 4) ^ (key >> 12)) & (LUDUS__SITE_MEMO - 1)];
    if (f == FAST_SPAN_OPEN && m->key == key && it->nspan < it->span_cap) {
        const uint64_t ordinal = it->span_ordinal++;
        const uint8_t lane = ordinal < it->span_lane_n ? it->span_lane[ordinal] : 0;
        const uint32_t nlex = (uint32_t)(top - it->lex);
        ludus__open *o = &it->span[it->nspan++];
        o->site = m->shown;
        o->lane = lane;
        o->span = 1;
        o->unused = 0;
        o->ts_ns = ts;
        o->seq = ((uintptr_t)e >> 4) + obias;
        o->addr = 0;
        o->ordinal = ordinal;
        o->d0 = nlex;
        o->match = m->site;
        o->seq0 = nlex ? top[-1].seq : 0;
        if (m->shown == UINT32_MAX) {
            it->filtered++;
            return 1;
        }
        const uint32_t depth = lane ? it->lane_depth[lane]++ : (*depth0)++;
        if (begins) set_nev((*out)++, LUDUS_NEV_BEGIN, lane, LUDUS_NEV_SPAN, m->shown, depth, ts, 0, 0);
        return 1;
    } else if (f == FAST_SPAN_CLOSE && it->nspan > 0 &&
               (!key || (m->key == key && m->site != UINT32_MAX &&
                         it->span[it->nspan - 1].match == m->site))) { /* the innermost span's end */
        const ludus__open *o = &it->span[--it->nspan];
        if (o->site == UINT32_MAX) {
            it->filtered++;
            return 1;
        }
        const uint8_t lane = o->lane;
        uint32_t depth;
        if (lane) {
            depth = it->lane_depth[lane] ? --it->lane_depth[lane] : 0;
        } else {
            *depth0 -= *depth0 > 0;
            depth = *depth0;
        }
        const uint16_t flags = o->span == 2 ? LUDUS_NEV_SPAN | LUDUS_NEV_FIBER : LUDUS_NEV_SPAN;
        set_nev((*out)++, LUDUS_NEV_END, lane, flags, o->site, depth, ts, o->ts_ns, 0);
        return 1;
    } else if (f == FAST_MARK && (!key || (m->key == key && m->shown != UINT32_MAX))) {
        const uint8_t nev = ludus__kinds[word & LUDUS__K_MASK].nev;
        set_nev((*out)++, nev, 0, 0, key ? m->shown : UINT32_MAX, *depth0, ts, 0,
                nev == LUDUS_NEV_FRAME ? ++it->frame_no : 0);
        return 1;
    }
    return 0;
}

/* Pairs the events of one run until the batch is full or the run ends. The
 * common cases (a scope's begin; the end of the innermost scope, on the
 * thread's own track) run on local copies of the state: the output slot,
 * the lexical stack's top and the track's depth, with room made for a whole
 * batch first, so no check per event; spans and marks (fast_other) on the
 * same state, in that loop when inline_other (it saves a span or mark the
 * loop's exit and its values computed again, and costs the scopes without
 * begins a little: JSON's stream has it off), else right after it;
 * everything else (and a loss marker due, and a time the fast conversion
 * does not cover) goes through step(). Each event
 * of the inline cases emits at most one, so a batch of room raw events
 * fits. Nothing here knows a raw kind: what each does comes from the kind
 * table (it->fast). */
__attribute__((always_inline)) static inline void scan_run_k(ludus__nev_iter *it, const ludus__run *run,
                                                             const int begins, const int inline_other) {
    const ludus__event *const ev = run->ev, *const end = ev + run->n;
    /* an event's recorded address and slot ordinal, from its own address */
    const uintptr_t abias = run->base - (uintptr_t)ev;
    const uint64_t obias = it->ordinal - ((uintptr_t)ev >> 4); /* (e >> 4) - (ev >> 4) = e - ev, aligned or not */
    const uint64_t t0 = it->conv.t0, mul = it->conv.m, lim = fast_limit(&it->conv, it->loss_at);
    const int64_t base = it->conv.base;
    const ludus__event *e = ev + it->pos;
    while (e < end && it->rn < LUDUS__NEV_BATCH && !it->oom) {
        size_t room = LUDUS__NEV_BATCH - it->rn;
        if (room > (size_t)(end - e)) room = (size_t)(end - e);
        if (lex_room(it, it->nlex + room) != 0) break;
        const ludus__event *limit = e + room; /* each of these events pushes and emits at most one */
        const ludus__site_memo *const memo = it->memo;
        const uint8_t *const fast = it->fast;
        ludus__nev *out = it->rb + it->rn;
        ludus__open *top = it->lex + it->nlex; /* one past the innermost open scope */
        uint32_t depth0 = it->lane_depth[0];
        for (;;) {
            /* a scope's begin and the innermost scope's end; no call in this
             * loop: its values stay in registers */
            const ludus__open *const bottom = it->lex;
            while (e < limit) {
                const uintptr_t word = e->word, key = word & ~(uintptr_t)LUDUS__K_MASK;
                const uint64_t x = e->ticks - t0;
                const uint8_t f = fast[word & LUDUS__K_MASK];
                if (__builtin_expect(x - 1 >= lim, 0)) break; /* not the fast conversion, or the loss marker first */
                const int64_t ts = (int64_t)(uint64_t)(((ludus__u128)x * mul) >> 64) + base;
                if (f == FAST_OPEN) {
                    const ludus__site_memo *const m = &memo[((key >> 4) ^ (key >> 12)) & (LUDUS__SITE_MEMO - 1)];
                    const uint32_t site = m->shown;
                    if (__builtin_expect(m->key != key || site == UINT32_MAX, 0))
                        break; /* not looked up yet, or filtered */
                    set_lex_head(top, site);
                    top->ts_ns = ts;
                    top->seq = ((uintptr_t)e >> 4) + obias;
                    top->addr = abias + (uintptr_t)e;
                    top++;
                    e++;
                    if (begins) set_nev(out++, LUDUS_NEV_BEGIN, 0, 0, site, depth0, ts, 0, 0);
                    depth0++;
                    continue;
                }
                if (f == FAST_CLOSE) {
                    if (top == bottom || top[-1].addr != key || top[-1].site == UINT32_MAX) break;
                    top--;
                    e++;
                    depth0 -= depth0 > 0;
                    set_nev(out++, LUDUS_NEV_END, 0, 0, top->site, depth0, ts, top->ts_ns, 0);
                    continue;
                }
                if (!inline_other || !fast_other(it, e, word, key, f, ts, obias, &out, top, &depth0, begins)) break;
                e++;
            }
            if (e == limit) break;
            /* spans and marks, the loop's values computed again (kept live
             * across it, they cost the scopes more than they save) */
            if (!inline_other) {
                const uintptr_t word = e->word, key = word & ~(uintptr_t)LUDUS__K_MASK;
                const uint64_t x = e->ticks - t0;
                const int64_t ts = (int64_t)(uint64_t)(((ludus__u128)x * mul) >> 64) + base;
                if (x - 1 < lim &&
                    fast_other(it, e, word, key, fast[word & LUDUS__K_MASK], ts, obias, &out, top, &depth0, begins)) {
                    e++;
                    continue;
                }
            }
            /* the rest (an end that is not the innermost scope's, a site not
             * looked up yet, a loss marker due, ...) through step(), which may
             * emit more than one */
            it->rn = (uint32_t)(out - it->rb);
            it->nlex = (uint32_t)(top - it->lex);
            it->lane_depth[0] = depth0;
            e = ev + step(it, run, (size_t)(e - ev));
            out = it->rb + it->rn;
            top = it->lex + it->nlex;
            depth0 = it->lane_depth[0];
            if (it->oom || it->rn >= LUDUS__NEV_BATCH || e >= limit) break;
            if ((size_t)(limit - e) > LUDUS__NEV_BATCH - it->rn) limit = e + (LUDUS__NEV_BATCH - it->rn);
        }
        it->rn = (uint32_t)(out - it->rb);
        it->nlex = (uint32_t)(top - it->lex);
        it->lane_depth[0] = depth0;
    }
    it->pos = (size_t)(e - ev);
}

/* The same loop made twice: with the begins, and without (no_begins). */
static void scan_run(ludus__nev_iter *it, const ludus__run *run) {
    scan_run_k(it, run, 1, 1);
}

static void scan_run_no_begins(ludus__nev_iter *it, const ludus__run *run) {
    scan_run_k(it, run, 0, 0);
}

/* Every event through step(): the reference the inline loop must equal
 * (ludus__nev_slow_path, for tests). */
static void scan_run_slow(ludus__nev_iter *it, const ludus__run *run) {
    size_t pos = it->pos;
    while (pos < run->n && it->rn < LUDUS__NEV_BATCH && !it->oom) pos = step(it, run, pos);
    it->pos = pos;
}

/* The next raw batch into it->rb; 0 at the end of the stream. */
static uint32_t fill_raw(ludus__nev_iter *it) {
    it->rn = it->rpos = 0;
    while (it->rn < LUDUS__NEV_BATCH && !it->done && !it->oom) {
        const ludus__run *run = current_run(it);
        if (run && it->deciding) {
            scan_run_deciding(it, run);
        } else if (run && it->slow_path) {
            scan_run_slow(it, run);
        } else if (run && it->no_begins) {
            scan_run_no_begins(it, run);
        } else if (run) {
            scan_run(it, run);
        } else if (!it->oom) {
            close_all(it);
            it->done = 1;
        }
    }
    if (it->oom) it->rn = 0;
    return it->rn;
}

int ludus__nev_next_raw(ludus__nev_iter *it, ludus__nev *out) {
    if (it->rpos == it->rn && !fill_raw(it)) return 0;
    *out = it->rb[it->rpos++];
    return 1;
}

int ludus__nev_fill(ludus__nev_iter *it) {
    it->opos = it->on = 0;
    if (!it->c->cut) {
        it->on = fill_raw(it);
        it->ob = it->rb; /* after: filling may have grown (moved) the batch */
        it->rpos = it->rn;
        return it->on != 0;
    }
    if (!it->cb) {
        it->cb = ludus__malloc(LUDUS__NEV_BATCH * sizeof *it->cb);
        if (!it->cb) {
            it->oom = 1;
            return 0;
        }
    }
    uint32_t n = 0;
    while (n < LUDUS__NEV_BATCH && ludus__nev_next_cut(it, &it->cb[n])) n++;
    it->ob = it->cb;
    it->on = n;
    return n != 0;
}

void ludus__nev_no_begins(ludus__nev_iter *it) {
    if (!it->c->cut && it->th->no_flows) it->no_begins = 1;
}

void ludus__nev_slow_path(ludus__nev_iter *it) {
    it->slow_path = 1;
}

void ludus__nev_load_here(ludus__nev_iter *it) {
    it->load_here = 1;
}

int ludus__nev_error(const ludus__nev_iter *it) {
    if (it->load_error) return it->load_error;
    return it->oom ? LUDUS_ENOMEM : 0;
}

/* Back to the start of the stream, keeping the lanes decided. */
static void rewind_stream(ludus__nev_iter *it) {
    ludus__run_ahead_stop(it->ahead);
    it->ahead = NULL;
    it->ahead_tried = 0;
    it->run = 0;
    it->pos = 0;
    it->ordinal = 0;
    it->cursor = it->th->load_first;
    it->loaded = 0;
    it->nseen = 0;
    it->nlex = it->nspan = 0;
    memset(it->lane_depth, 0, sizeof it->lane_depth);
    it->span_ordinal = 0;
    it->rpos = it->rn = 0;
    it->opos = it->on = 0;
    it->done = 0;
    it->loss_at = it->th->first_drop_ns != LUDUS__NO_DROP ? it->th->first_drop_ns : INT64_MAX;
    it->frame_no = 0;
    it->orphan_ends = it->filtered = it->mismatched = it->unknown = 0;
    it->text_n = 0;
}

int ludus__nev_init(ludus__nev_iter *it, const ludus_capture *c, uint32_t thread) {
    memset(it, 0, sizeof *it);
    it->c = c;
    ludus__tick_conv_init(&it->conv, c);
    it->th = &c->threads[thread];
    it->rcap = LUDUS__NEV_BATCH + 64;
    it->rb = ludus__malloc(it->rcap * sizeof *it->rb);
    it->memo = ludus__malloc(LUDUS__SITE_MEMO * sizeof *it->memo);
    if (!it->rb || !it->memo) {
        it->oom = 1;
        return LUDUS_ENOMEM;
    }
    for (uint32_t i = 0; i < LUDUS__SITE_MEMO; i++) it->memo[i] = (ludus__site_memo){0, UINT32_MAX, UINT32_MAX};
    for (unsigned k = 0; k < 16; k++) it->fast[k] = fast_kind(&ludus__kinds[k]);
    rewind_stream(it);
    if (it->th->spans == 0) return 0;
    if (it->th->lanes_decided) {
        it->span_lane = it->th->span_lane;
        it->span_lane_n = it->th->span_lane_n;
        return 0;
    }
    /* Lanes: one pass deciding where each span goes, kept in the thread's
     * entry for every later stream (a capture is used by one thread at a
     * time). A file's count is bounded by its slots. */
    uint64_t n = it->th->spans;
    if (it->th->slots && n > it->th->slots) n = it->th->slots;
    it->span_lane = ludus__calloc(n ? n : 1, 1);
    if (!it->span_lane) {
        it->oom = 1;
        return LUDUS_ENOMEM;
    }
    it->span_lane_n = n;
    it->deciding = 1;
    while (fill_raw(it)) {
    }
    it->deciding = 0;
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) {
        ludus__free(it->lane_iv[k]);
        it->lane_iv[k] = NULL;
        it->lane_n[k] = it->lane_cap[k] = 0;
    }
    if (it->oom) {
        ludus__free(it->span_lane);
        it->span_lane = NULL;
        return ludus__nev_error(it);
    }
    ludus__cap_thread *th = (ludus__cap_thread *)it->th; /* the cache of a capture in use by this thread only */
    th->span_lane = it->span_lane;
    th->span_lane_n = it->span_lane_n;
    th->lanes_decided = 1;
    th->lanes_owned = 1;
    rewind_stream(it);
    return 0;
}

void ludus__nev_free(ludus__nev_iter *it) {
    ludus__run_ahead_stop(it->ahead);
    ludus__free(it->lex);
    ludus__free(it->span);
    ludus__free(it->rb);
    ludus__free(it->cb);
    ludus__free(it->memo);
    ludus__free(it->seen);
    ludus__free(it->cut_open);
    ludus__free(it->text);
    ludus__free(it->orphans);
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) ludus__free(it->lane_iv[k]);
    ludus__free(it->rbuf.ev);
    ludus__free(it->rbuf.bytes);
    memset(it, 0, sizeof *it);
}
