/* The live side's readers: values of the ring of recent frames by name,
 * and the overlay text. Every statistic names its window (the last N
 * frames, N given) and its denominator; extrema are exact over the window,
 * never decaying. Everything is read under the ring's lock and computed on
 * the caller's thread from copies: the frame thread waits for no more than
 * the copy. */
#include <ludus/capture.h>
#include <ludus/overlay.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../record/event_kinds.h"
#include "../base/text.h"
#include "../record/counters.h"
#include "../record/record.h"
#include "live_internal.h"

int ludus_frame_ring_configure(uint32_t frames) {
    int rc = ludus__ring_configure(frames);
    if (rc == LUDUS_EINVAL) return ludus__fail(rc, "ring frames must be 2 .. %u", LUDUS__RING_MAX);
    if (rc) return ludus__fail(LUDUS_EINVAL, "the ring is configured before the first LUDUS_PROFILE_FRAME");
    return 0;
}

void ludus_frame_ring_enable(void) {
    ludus__live_want_frames();
}

/* The name a site shows: its literal's text. */
static void site_text(const ludus_site *s, char *out, size_t cap) {
    const char *n = s->name ? s->name : s->function;
    size_t len = strlen(n);
    if (s->flags & LUDUS_SITE_TEXT || len >= cap) {
        snprintf(out, cap, "%s", n);
        return;
    }
    out[ludus__c_literal_text(n, len, out)] = 0;
}

void ludus__live_item_name(const ludus__live_item *it, char *out, size_t cap) {
    if (it->owner == LUDUS__OWNER_MEMORY)
        snprintf(out, cap, "Memory/%s", it->domain);
    else
        site_text(it->site, out, cap);
}

/* The ring row of frame `frame` (lock held), or NULL. */
static const ludus__ring_row *row_of(const ludus__ring *r, uint64_t frame, const int64_t **values) {
    if (!r->rows || r->closed == 0) return NULL;
    uint64_t newest = r->closed - 1, oldest = r->closed > r->cap ? r->closed - r->cap : 0;
    const ludus__ring_row *last = &r->rows[newest % r->cap];
    /* rows are numbered consecutively: row k holds frame last->number - (newest - k) */
    if (frame > last->number || last->number - frame > newest - oldest) return NULL;
    uint64_t k = newest - (last->number - frame);
    *values = &r->values[(k % r->cap) * LUDUS__ROW_VALUES];
    return &r->rows[k % r->cap];
}

int ludus_frame_ring_frames(uint64_t *first, uint64_t *last) {
    ludus__live_lock();
    const ludus__ring *r = ludus__live_ring();
    int rc = LUDUS_ENODATA;
    if (r->rows && r->closed) {
        uint64_t n = r->closed < r->cap ? r->closed : r->cap;
        uint64_t hi = r->rows[(r->closed - 1) % r->cap].number;
        if (first) *first = hi - (n - 1);
        if (last) *last = hi;
        rc = 0;
    }
    ludus__live_unlock();
    return rc;
}

int ludus_frame_ring_frame_ns(uint64_t frame, int64_t *begin_ns, int64_t *end_ns) {
    ludus__live_lock();
    const int64_t *v;
    const ludus__ring_row *row = row_of(ludus__live_ring(), frame, &v);
    if (row) {
        if (begin_ns) *begin_ns = row->begin_ns;
        if (end_ns) *end_ns = row->end_ns;
    }
    ludus__live_unlock();
    return row ? 0 : LUDUS_ENODATA;
}

/* The ring value index of (item, stat), or -1 when the stat is not the
 * item's. */
static int value_index(const ludus__live_item *it, unsigned stat) {
    if (ludus__stats[stat].owner != it->owner) return -1;
    switch (it->owner) {
    case LUDUS__OWNER_COUNT:
        return (int)LUDUS__ROW_COUNTER(it->i);
    case LUDUS__OWNER_GAUGE:
        return (int)(LUDUS__ROW_GAUGE(it->i) + (stat - LUDUS__STAT_LAST));
    default:
        return (int)(LUDUS__ROW_DOMAIN(it->i) + (stat - LUDUS__STAT_MEM_LIVE));
    }
}

int ludus__live_item_in_row(const ludus__live_item *it, const ludus__ring_row *row) {
    uint32_t n = it->owner == LUDUS__OWNER_COUNT   ? row->ncounters
                 : it->owner == LUDUS__OWNER_GAUGE ? row->ngauges
                                                   : row->ndomains;
    return it->i < n;
}

#define MAX_ITEMS (LUDUS__MAX_COUNTERS + LUDUS__MAX_GAUGES + LUDUS__MAX_DOMAINS)

/* Copies of the live tables, each used under the live lock (counters.c). */
static struct {
    ludus__live_item value_items[MAX_ITEMS]; /* ludus_frame_ring_value's */
    ludus__live_item text_items[MAX_ITEMS];  /* the overlay text's */
    ludus__domain_info text_domains[LUDUS__MAX_DOMAINS];
} overlay_state;

int ludus_frame_ring_value(uint64_t frame, const char *name, const char *stat, int64_t *out) {
    if (!name || !stat || !out) return ludus__fail(LUDUS_EINVAL, "name, stat and out are required");
    unsigned st = 0;
    while (st < LUDUS__STAT_COUNT && strcmp(ludus__stats[st].series, stat)) st++;
    if (st == LUDUS__STAT_COUNT) return ludus__fail(LUDUS_EINVAL, "unknown statistic \"%s\"", stat);
    ludus__live_lock();
    uint32_t n = ludus__live_items(overlay_state.value_items, MAX_ITEMS);
    int rc = LUDUS_EINVAL, vi = -1;
    const ludus__live_item *it = NULL;
    char text[160];
    for (uint32_t i = 0; i < n && !it; i++) {
        ludus__live_item_name(&overlay_state.value_items[i], text, sizeof text);
        if (!strcmp(text, name) && (vi = value_index(&overlay_state.value_items[i], st)) >= 0)
            it = &overlay_state.value_items[i];
    }
    if (it) {
        const int64_t *v;
        const ludus__ring_row *row = row_of(ludus__live_ring(), frame, &v);
        rc = LUDUS_ENODATA;
        int known =
            !row ||
            (it->owner == LUDUS__OWNER_GAUGE ? ludus__row_gauge_set(row, it->i)
             : it->owner == LUDUS__OWNER_COUNT
                 ? 1
                 : !((row->domains_unknown >> it->i & 1u) &&
                     (st == LUDUS__STAT_MEM_LIVE || st == LUDUS__STAT_MEM_LIVE_ALLOCS || st == LUDUS__STAT_MEM_PEAK)));
        if (row && ludus__live_item_in_row(it, row) && known) {
            *out = v[vi];
            rc = 0;
        }
    }
    ludus__live_unlock();
    if (rc == LUDUS_EINVAL) return ludus__fail(rc, "no counter, gauge or domain \"%s\" with \"%s\"", name, stat);
    return rc;
}

/* ---- the overlay ---- */

typedef struct text_out {
    char *buf;
    size_t size, len;
} text_out;

static void overlay_put(text_out *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void overlay_put(text_out *t, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *at = t->len < t->size ? t->buf + t->len : NULL;
    int n = vsnprintf(at, at ? t->size - t->len : 0, fmt, ap);
    va_end(ap);
    if (n > 0) t->len += (size_t)n;
}

static int overlay_cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least q of the values at or
 * below it. v sorted, n > 0. */
static int64_t rank(const int64_t *v, uint32_t n, double q) {
    uint32_t k = (uint32_t)(q * n + 0.999999);
    return v[k ? k - 1 : 0];
}

/* A time with a resolution that fits frame rates from 10 to 10,000 per
 * second: ms with 2 decimals from 1 ms, us below (3 significant digits). */
static const char *dur(char *b, size_t cap, double ns) {
    if (ns >= 999999.5)
        snprintf(b, cap, "%.2f ms", ns / 1e6);
    else if (ns >= 99999.5)
        snprintf(b, cap, "%.0f us", ns / 1e3);
    else if (ns >= 9999.5)
        snprintf(b, cap, "%.1f us", ns / 1e3);
    else
        snprintf(b, cap, "%.2f us", ns / 1e3);
    return b;
}

/* A name for one line: control characters escaped (\n, \t, \xHH), cut
 * at a character boundary after max bytes ("..."). Returns the characters
 * written (for padding). */
static size_t line_name(char *out, size_t cap, const char *name, size_t max) {
    size_t o = 0, chars = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
        char esc[8];
        size_t n;
        if (*p == '\n' || *p == '\t' || *p == '\r')
            n = (size_t)snprintf(esc, sizeof esc, "\\%c", *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
        else if (*p < 0x20 || *p == 0x7f)
            n = (size_t)snprintf(esc, sizeof esc, "\\x%02x", *p);
        else
            esc[0] = (char)*p, n = 1;
        int lead = (*p & 0xc0) != 0x80;
        if (lead && (o + n > max || o + n + 4 > cap)) {
            memcpy(out + o, "...", 3);
            o += 3, chars += 3;
            break;
        }
        memcpy(out + o, esc, n);
        o += n;
        if (lead) chars += n;
    }
    out[o] = 0;
    return chars;
}

#define TOP_MAX 32u /* top scopes listed at most */
#define TOP_NAME 40u

typedef struct top_text {
    int rc;
    uint32_t n;
    ludus_top_window w;
    ludus_top_scope s[TOP_MAX];
} top_text;

static void put_top(text_out *t, const top_text *tt) {
    char a[32], b[32];
    if (tt->rc == LUDUS_ENODATA) {
        overlay_put(t, "top scopes: no complete frame in the capture (two LUDUS_PROFILE_FRAME on one thread)\n");
        return;
    }
    if (tt->rc < 0) {
        overlay_put(t, "top scopes: %s\n", ludus_error_string(tt->rc));
        return;
    }
    const ludus_top_window *w = &tt->w;
    overlay_put(t, "top scopes, exclusive per frame over frames %llu..%llu of the capture (%u frames, %s; last %s):\n",
                (unsigned long long)w->first_frame, (unsigned long long)w->last_frame, w->frames,
                dur(a, sizeof a, (double)(w->end_ns - w->begin_ns)), dur(b, sizeof b, (double)w->last_frame_ns));
    char names[TOP_MAX][TOP_NAME * 4 + 8];
    size_t width[TOP_MAX], widest = 0;
    for (uint32_t i = 0; i < tt->n; i++) {
        width[i] = line_name(names[i], sizeof names[i], tt->s[i].name, TOP_NAME);
        if (width[i] > widest) widest = width[i];
    }
    for (uint32_t i = 0; i < tt->n; i++) {
        const ludus_top_scope *s = &tt->s[i];
        char calls[32], last[64];
        /* calls per frame: rare scopes (a hitch's) keep 2 significant digits */
        snprintf(calls, sizeof calls, s->calls_per_frame >= 1 ? "%.1f" : "%.2g", s->calls_per_frame);
        if (s->last_calls)
            snprintf(last, sizeof last, "%s (%llu)", dur(b, sizeof b, (double)s->last_exclusive_ns),
                     (unsigned long long)s->last_calls);
        else
            snprintf(last, sizeof last, "none");
        overlay_put(t, "  %s%*s %9s (%s calls); last frame %s\n", names[i], (int)(widest - width[i]), "",
                    dur(a, sizeof a, s->exclusive_ns_per_frame), calls, last);
    }
    if (tt->n == 0) overlay_put(t, "  (no scope ended in these frames)\n");
    if (w->scopes > tt->n) overlay_put(t, "  (%u more scopes)\n", w->scopes - tt->n);
    if (w->incomplete)
        overlay_put(t, "  (not counted: %llu call%s that never ended or unwound)\n", (unsigned long long)w->incomplete,
                    w->incomplete == 1 ? "" : "s");
    if (w->dropped)
        overlay_put(t, "  (the capture lost %llu events: figures may be short)\n", (unsigned long long)w->dropped);
}

static const char *bytes(char *b, size_t cap, int64_t v) {
    double a = (double)(v < 0 ? -v : v);
    const char *sign = v < 0 ? "-" : "";
    if (a >= 1 << 30)
        snprintf(b, cap, "%s%.2f GiB", sign, a / (1 << 30));
    else if (a >= 1 << 20)
        snprintf(b, cap, "%s%.1f MiB", sign, a / (1 << 20));
    else if (a >= 1 << 10)
        snprintf(b, cap, "%s%.1f KiB", sign, a / (1 << 10));
    else
        snprintf(b, cap, "%s%.0f B", sign, a);
    return b;
}

int ludus_overlay_format(char *buf, size_t size, const ludus_overlay_desc *desc) {
    if (!buf && size) return ludus__fail(LUDUS_EINVAL, "buf is NULL");
    uint32_t want = desc && desc->window_frames ? desc->window_frames : 120;
    uint32_t max_lines = desc && desc->max_lines ? desc->max_lines : 16;
    text_out t = {buf, size, 0};
    if (size) buf[0] = 0;
    /* the top scopes first, without the ring's lock: the frame thread never waits for them */
    top_text *tt = NULL;
    if (desc && desc->scopes_from) {
        tt = malloc(sizeof *tt);
        if (!tt) return ludus__fail(LUDUS_ENOMEM, "out of memory");
        uint32_t cap = desc->top_scopes ? desc->top_scopes : 5;
        tt->rc = ludus_overlay_top_scopes(desc->scopes_from, desc, tt->s, cap < TOP_MAX ? cap : TOP_MAX, &tt->w);
        tt->n = tt->rc > 0 ? (uint32_t)tt->rc : 0;
    }
    ludus__live_want_frames();
    ludus__live_lock();
    const ludus__ring *r = ludus__live_ring();
    /* the window: the newest real frames (the lead-in is not one) */
    uint32_t have = r->rows ? (uint32_t)(r->closed < r->cap ? r->closed : r->cap) : 0;
    uint32_t w = 0;
    while (w < have && w < want && r->rows[(r->closed - 1 - w) % r->cap].number != 0) w++;
    if (w == 0) {
        ludus__live_unlock();
        overlay_put(&t, "ludus: no complete frame yet (LUDUS_PROFILE_FRAME once per frame)\n");
        if (tt) put_top(&t, tt);
        free(tt);
        return (int)(t.len > INT32_MAX ? INT32_MAX : t.len);
    }
    int64_t *ft = malloc(sizeof *ft * w * 2);
    if (!ft) {
        ludus__live_unlock();
        free(tt);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int64_t *col = ft + w;
    const ludus__ring_row *newest = &r->rows[(r->closed - 1) % r->cap];
    for (uint32_t k = 0; k < w; k++) {
        const ludus__ring_row *row = &r->rows[(r->closed - 1 - k) % r->cap];
        ft[k] = row->end_ns - row->begin_ns;
    }
    qsort(ft, w, sizeof *ft, overlay_cmp_i64);
    char a[32], b[32], c[32], d[32];
    overlay_put(&t, "last %u frames (to frame %llu): p50 %s, p99 %s, max %s\n", w, (unsigned long long)newest->number,
                dur(a, sizeof a, (double)rank(ft, w, 0.5)), dur(b, sizeof b, (double)rank(ft, w, 0.99)),
                dur(c, sizeof c, (double)ft[w - 1]));
    uint32_t n = ludus__live_items(overlay_state.text_items, MAX_ITEMS), lines = 0;
    uint32_t nd = ludus__live_domains(overlay_state.text_domains, LUDUS__MAX_DOMAINS);
    for (uint32_t i = 0; i < n && lines < max_lines; i++, lines++) {
        const ludus__live_item *it = &overlay_state.text_items[i];
        char name[96];
        ludus__live_item_name(it, name, sizeof name);
        /* the frames of the window that hold the item (registered later: fewer) */
        uint32_t m = 0;
        int64_t sum = 0, mx = INT64_MIN, mn = INT64_MAX;
        for (uint32_t k = 0; k < w; k++) {
            uint64_t at = (r->closed - 1 - k) % r->cap;
            const ludus__ring_row *row = &r->rows[at];
            const int64_t *v = &r->values[at * LUDUS__ROW_VALUES];
            if (!ludus__live_item_in_row(it, row)) continue;
            if (it->owner == LUDUS__OWNER_GAUGE) {
                const int64_t *g = &v[LUDUS__ROW_GAUGE(it->i)];
                if (!ludus__row_gauge_set(row, it->i)) continue;
                col[m++] = g[0];
                if (g[1] < mn) mn = g[1];
                if (g[2] > mx) mx = g[2];
            } else if (it->owner == LUDUS__OWNER_COUNT) {
                col[m++] = v[LUDUS__ROW_COUNTER(it->i)];
                sum += v[LUDUS__ROW_COUNTER(it->i)];
                if (v[LUDUS__ROW_COUNTER(it->i)] > mx) mx = v[LUDUS__ROW_COUNTER(it->i)];
            } else {
                const int64_t *dv = &v[LUDUS__ROW_DOMAIN(it->i)];
                col[m++] = dv[LUDUS__STAT_MEM_ALLOC_BYTES - LUDUS__STAT_MEM_LIVE];
                sum += dv[LUDUS__STAT_MEM_ALLOC_BYTES - LUDUS__STAT_MEM_LIVE];
                if (dv[LUDUS__STAT_MEM_PEAK - LUDUS__STAT_MEM_LIVE] > mx)
                    mx = dv[LUDUS__STAT_MEM_PEAK - LUDUS__STAT_MEM_LIVE];
            }
        }
        const char *of = m == w ? "" : " (since its first use)";
        if (m == 0) {
            overlay_put(&t, "%s: no value in the last %u frames\n", name, w);
        } else if (it->owner == LUDUS__OWNER_COUNT) {
            overlay_put(&t, "%s per frame, last %u frames%s: mean %.1f, max %lld\n", name, m, of, (double)sum / m,
                        (long long)mx);
        } else if (it->owner == LUDUS__OWNER_GAUGE) {
            overlay_put(&t, "%s: %lld; last %u frames%s: min %lld, max %lld\n", name, (long long)col[0], m, of,
                        (long long)mn, (long long)mx);
        } else {
            const ludus__domain_info *di = it->i < nd ? &overlay_state.text_domains[it->i] : NULL;
            const char *valid = !di                ? ""
                                : di->underflow    ? " (unknown: frees of untracked memory)"
                                : di->has_baseline ? ""
                                                   : " (since registration)";
            if (di && di->underflow) /* no figure for live or peak: one would be wrong */
                overlay_put(
                    &t,
                    "%s: live unknown (frees of untracked memory; last %u frames%s); allocated %s per frame (mean)\n",
                    name, m, of, bytes(d, sizeof d, sum / m));
            else
                overlay_put(&t, "%s: live %s%s, peak %s (last %u frames%s); allocated %s per frame (mean)\n", name,
                            bytes(a, sizeof a, di ? di->live_bytes : 0), valid, bytes(b, sizeof b, mx), m, of,
                            bytes(d, sizeof d, sum / m));
        }
    }
    if (lines < n) overlay_put(&t, "(%u more not shown)\n", n - lines);
    uint32_t refused = ludus__live_refused();
    if (refused) overlay_put(&t, "ludus: %u counters, gauges or domains refused (tables full)\n", refused);
    uint64_t lost = ludus__live_lost_adds();
    if (lost) overlay_put(&t, "ludus: %llu counts lost (no memory for a thread's shard)\n", (unsigned long long)lost);
    ludus__live_unlock();
    free(ft);
    if (tt) put_top(&t, tt);
    free(tt);
    return (int)(t.len > INT32_MAX ? INT32_MAX : t.len);
}
