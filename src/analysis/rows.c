/* Rows (ludus_analysis_rows): every event of an analysed capture, one at a
 * time, with what the analysis derived for it: the frame its begin lies in
 * (the frame thread's marks, counted as tree.c counts them), a slice's
 * caller-context path (the analysis's own path index, looked up, never
 * rebuilt), its depth and the slice around it. Memory: each lane's open
 * slices and their annotations, one event block. */
#include <math.h>
#include <string.h>

#include "analysis_internal.h"

typedef struct open_slice {
    uint64_t id;
    int64_t begin;
    uint64_t frame;
    uint32_t site, node;
    int fiber;
} open_slice;

typedef struct rows_lane {
    open_slice *e;
    uint32_t depth, cap;
} rows_lane;

typedef struct rows_pass {
    const ludus_analysis *a;
    ludus__captured *c;
    ludus_row_fn fn;
    void *ud;
    rows_lane lanes[LUDUS__MAX_LANES];
    ludus__slice_args args;
    uint64_t next_id;
} rows_pass;

/* The frame a time on another thread than the frame thread lies in. */
static uint64_t frame_at(const ludus_analysis *a, int64_t ts) {
    uint64_t lo = 0, hi = a->nmarks; /* marks[k] begins frame k + 1 */
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (a->marks[mid] <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The innermost slice open on the thread: the latest begun top of a lane. */
static uint64_t open_slice_id(const rows_pass *p) {
    uint64_t best = LUDUS_ROW_NONE;
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) {
        const rows_lane *L = &p->lanes[k];
        if (L->depth && (best == LUDUS_ROW_NONE || L->e[L->depth - 1].id > best)) best = L->e[L->depth - 1].id;
    }
    return best;
}

static const char *site_name(const ludus_analysis *a, uint32_t site, const char *label) {
    return site < a->nsites ? a->sites[site].pub.name : label;
}

static const char *site_category(const ludus_analysis *a, uint32_t site, const char *fallback) {
    if (site < a->nsites && a->sites[site].pub.category[0]) return a->sites[site].pub.category;
    return fallback ? fallback : "";
}

static void row_init(ludus_row *r, int kind, uint32_t thread) {
    memset(r, 0, sizeof *r);
    r->kind = kind;
    r->thread = thread;
    r->end_thread = UINT32_MAX;
    r->parent_id = r->slice_id = LUDUS_ROW_NONE;
    r->site = r->path = r->counter = UINT32_MAX;
    r->category = "";
}

static uint32_t row_flags(uint16_t nev_flags) {
    uint32_t f = 0;
    if (nev_flags & LUDUS_NEV_INCOMPLETE) f |= LUDUS_ROW_INCOMPLETE;
    if (nev_flags & LUDUS_NEV_CLIPPED) f |= LUDUS_ROW_CLIPPED;
    if (nev_flags & LUDUS_NEV_UNWOUND) f |= LUDUS_ROW_UNWOUND;
    if (nev_flags & LUDUS_NEV_SPAN) f |= LUDUS_ROW_SPAN;
    if (nev_flags & LUDUS_NEV_FIBER) f |= LUDUS_ROW_FIBER;
    return f;
}

/* The annotations of a slice that ends, as ARG rows. */
static int emit_args(rows_pass *p, const ludus__nev_iter *it, const ludus__nev *args, uint32_t n, uint32_t t,
                     uint64_t slice) {
    for (uint32_t i = 0; i < n; i++) {
        ludus_row r;
        row_init(&r, LUDUS_ROW_ARG, t);
        r.slice_id = slice;
        r.ts_ns = args[i].ts_ns;
        r.site = args[i].site;
        r.name = site_name(p->a, args[i].site, "");
        switch (ludus__nevs[args[i].kind].value) {
        case LUDUS__V_I64:
            r.value_type = 1;
            r.int_value = (int64_t)args[i].value;
            r.real_value = (double)r.int_value;
            break;
        case LUDUS__V_U64:
            r.value_type = args[i].value > INT64_MAX ? 2 : 1; /* past INT64_MAX: real */
            r.int_value = (int64_t)args[i].value;
            r.real_value = (double)args[i].value;
            break;
        case LUDUS__V_F64:
            r.value_type = 2;
            memcpy(&r.real_value, &args[i].value, sizeof r.real_value);
            break;
        default:
            r.value_type = 3;
            r.text = ludus__arg_text(it, &args[i], &r.text_len);
            break;
        }
        int rc = p->fn(p->ud, &r);
        if (rc) return rc;
    }
    return 0;
}

static int run_thread(rows_pass *p, uint32_t t, int is_frame_thread) {
    const ludus_analysis *a = p->a;
    ludus__captured *c = p->c;
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) p->lanes[k].depth = 0;
    ludus__slice_args_reset(&p->args);
    uint64_t cursor = 0; /* marks passed on the frame thread */
    ludus__nev_iter it;
    ludus__nev ev;
    ludus_row r;
    int rc = ludus__nev_init(&it, c, t), stop = 0;
    while (rc == 0 && !stop && ludus__nev_next(&it, &ev)) {
        const ludus__nev_info *ni = &ludus__nevs[ev.kind];
        rows_lane *L = &p->lanes[ev.lane];
        uint64_t frame = is_frame_thread ? cursor : frame_at(a, ev.ts_ns);
        switch (ev.kind) {
        case LUDUS_NEV_FRAME:
            if (is_frame_thread) cursor++;
            continue;
        case LUDUS_NEV_BEGIN: {
            if (L->depth == L->cap) {
                uint32_t cap = L->cap ? L->cap * 2 : 64;
                open_slice *n = ludus__realloc(L->e, cap * sizeof *n);
                if (!n) goto oom;
                L->e = n;
                L->cap = cap;
            }
            open_slice *e = &L->e[L->depth];
            e->id = p->next_id++;
            e->begin = ev.ts_ns;
            e->frame = frame;
            e->site = ev.site;
            e->fiber = (ev.flags & LUDUS_NEV_FIBER) != 0;
            /* The analysis's path of this slice (tree.c): the enclosing
             * path and this site, folded at LUDUS_PATH_DEPTH; a fiber run
             * has none of its own (it carries the enclosing one). */
            uint32_t parent = L->depth ? L->e[L->depth - 1].node : UINT32_MAX;
            if (e->fiber) {
                e->node = parent;
            } else {
                if (parent != UINT32_MAX && a->nodes[parent].pub.depth >= LUDUS_PATH_DEPTH - 1)
                    parent = a->nodes[parent].pub.parent;
                e->node = ev.site < a->nsites ? ludus__path_find(a, parent, ev.site) : UINT32_MAX;
            }
            L->depth++;
            continue;
        }
        case LUDUS_NEV_END: {
            if (L->depth == 0) continue; /* the iterator pairs: cannot happen */
            open_slice e = L->e[--L->depth];
            const ludus__nev *args;
            uint32_t nargs = ludus__slice_args_take(&p->args, ev.lane, ev.depth, &args);
            if (nargs && (stop = emit_args(p, &it, args, nargs, t, e.id)) != 0) break;
            row_init(&r, LUDUS_ROW_SLICE, t);
            r.flags = row_flags(ev.flags);
            r.id = e.id;
            r.parent_id = L->depth ? L->e[L->depth - 1].id : LUDUS_ROW_NONE;
            r.ts_ns = e.begin;
            r.dur_ns = ev.ts_ns > e.begin ? ev.ts_ns - e.begin : 0;
            r.depth = L->depth;
            r.lane = ev.lane;
            r.site = e.site;
            r.path = e.fiber ? UINT32_MAX : e.node;
            r.frame = e.frame;
            r.name = site_name(a, e.site, "");
            r.category = site_category(a, e.site, ni->category);
            stop = p->fn(p->ud, &r);
            continue;
        }
        default:
            break;
        }
        switch (ni->analysis) {
        case LUDUS__TR_ARG:
            if (ev.depth < L->depth) ludus__slice_args_add(&p->args, c, &ev); /* else: no scope open */
            continue;
        case LUDUS__TR_COUNTER_I64:
        case LUDUS__TR_COUNTER_F64:
            row_init(&r, LUDUS_ROW_COUNTER, t);
            if (ni->analysis == LUDUS__TR_COUNTER_F64) {
                memcpy(&r.real_value, &ev.value, sizeof r.real_value);
                if (!isfinite(r.real_value)) continue; /* counted: summary.nonfinite_counter_samples */
                r.value_type = 2;
            } else {
                r.int_value = (int64_t)ev.value;
                r.real_value = (double)r.int_value;
                r.value_type = 1;
            }
            if (ev.site < a->nsites && a->counter_at) {
                uint32_t at = a->counter_at[(size_t)ev.site * LUDUS__SERIES_PER_SITE + ev.series];
                if (at) r.counter = at - 1;
            }
            if (ev.series) { /* a frame snapshot closes the frame its mark ends (counters.c) */
                if (!is_frame_thread || cursor == 0) r.counter = UINT32_MAX;
                frame = cursor ? cursor - 1 : 0;
            }
            break;
        case LUDUS__TR_MESSAGE:
            row_init(&r, LUDUS_ROW_MESSAGE, t);
            r.level = (int)ev.value;
            r.text = ludus__nev_text(&it, &ev, &r.text_len);
            break;
        default:
            if (ni->json == LUDUS__TR_FLOW_OUT || ni->json == LUDUS__TR_FLOW_IN) {
                row_init(&r, LUDUS_ROW_FLOW, t);
                r.int_value = (int64_t)ev.value;
                if (ni->json == LUDUS__TR_FLOW_IN) r.flags |= LUDUS_ROW_FLOW_IN;
            } else if (ni->json == LUDUS__TR_INSTANT) {
                row_init(&r, LUDUS_ROW_INSTANT, t);
                if (ev.kind == LUDUS_NEV_LOSS) r.int_value = (int64_t)ev.value; /* events lost */
            } else {
                continue;
            }
            break;
        }
        r.ts_ns = ev.ts_ns;
        r.frame = frame;
        r.site = ev.site < a->nsites ? ev.site : UINT32_MAX;
        r.name = site_name(a, ev.site, ni->label);
        r.category = site_category(a, ev.site, ni->category);
        r.slice_id = open_slice_id(p);
        stop = p->fn(p->ud, &r);
    }
    if (rc == 0) rc = ludus__nev_error(&it);
    ludus__nev_free(&it);
    return rc ? rc : stop;
oom:
    ludus__nev_free(&it);
    return ludus__fail(LUDUS_ENOMEM, "out of memory while reading rows");
}

static int run_async(rows_pass *p) {
    ludus__captured *c = p->c;
    int rc = ludus__async_ensure(c);
    if (rc) return rc;
    for (uint32_t i = 0; i < c->async.n; i++) {
        const ludus__async_zone *z = &c->async.zones[i];
        const ludus__async_track *tr = &c->async.tracks[z->track];
        ludus_row r;
        row_init(&r, LUDUS_ROW_ASYNC, z->begin_thread);
        r.end_thread = z->end_thread;
        r.flags = (z->flags & LUDUS_NEV_INCOMPLETE ? LUDUS_ROW_INCOMPLETE : 0) |
                  (z->flags & (LUDUS_NEV_CLIPPED | LUDUS__ASYNC_END_CLIPPED) ? LUDUS_ROW_CLIPPED : 0);
        r.id = z->id;
        r.ts_ns = z->begin_ns;
        r.dur_ns = z->end_ns > z->begin_ns ? z->end_ns - z->begin_ns : 0;
        r.depth = z->depth;
        r.lane = z->lane;
        r.site = z->site < p->a->nsites ? z->site : UINT32_MAX;
        r.frame = frame_at(p->a, z->begin_ns);
        r.name = site_name(p->a, z->site, "");
        r.category = site_category(p->a, z->site, "async");
        r.text = site_name(p->a, tr->site, "");
        r.text_len = strlen(r.text);
        if ((rc = p->fn(p->ud, &r)) != 0) return rc;
    }
    return 0;
}

int ludus_analysis_rows(const ludus_analysis *a, ludus_capture *c, ludus_row_fn fn, void *user_data) {
    if (!a || !c || !fn) return ludus__fail(LUDUS_EINVAL, "analysis, capture or callback is NULL");
    int rc = ludus__prepare(c);
    if (rc) return rc;
    if (c->nsites != a->nsites || c->end_ns - c->start_ns != a->end_ns)
        return ludus__fail(LUDUS_EINVAL, "the capture is not the one the analysis was made from");
    rows_pass p;
    memset(&p, 0, sizeof p);
    p.a = a;
    p.c = c;
    p.fn = fn;
    p.ud = user_data;
    /* The frame thread: the one with the most marks, as the analysis picks it. */
    uint32_t ft = UINT32_MAX;
    uint64_t best = 0;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (c->threads[t].frames > best) best = c->threads[t].frames, ft = t;
    for (uint32_t t = 0; t < c->nthreads && rc == 0; t++) rc = run_thread(&p, t, t == ft);
    if (rc == 0) rc = run_async(&p);
    for (uint32_t k = 0; k < LUDUS__MAX_LANES; k++) ludus__free(p.lanes[k].e);
    ludus__slice_args_free(&p.args);
    return rc;
}
