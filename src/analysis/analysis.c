/* The analysis object's public face: creation over the last in-memory
 * capture, window parsing, accessors and destruction. The pass itself is in
 * tree.c, frames in frames.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

int ludus_analysis_create(ludus_capture *c, const ludus_analysis_desc *desc, ludus_analysis **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!c) return ludus__fail(LUDUS_EINVAL, "capture is NULL");
    return ludus__analyze(c, desc, out);
}

void ludus_analysis_destroy(ludus_analysis *a) {
    if (!a) return;
    ludus__annotations_free(a); /* before the sites that hold it */
    for (uint32_t i = 0; i < a->nsites; i++) {
        ludus__acc_free(&a->sites[i].incl);
        ludus__acc_free(&a->sites[i].excl);
    }
    for (uint32_t i = 0; i < a->nnodes; i++) {
        ludus__acc_free(&a->nodes[i].incl);
        ludus__acc_free(&a->nodes[i].excl);
    }
    for (size_t i = 0; i < a->nrun_mem; i++) ludus__free(a->run_mem[i]);
    ludus__free(a->run_mem);
    ludus__free(a->strings);
    ludus__free(a->sites);
    ludus__free(a->nodes);
    ludus__free(a->node_hash);
    ludus__mark_set_release(a->mark_set);
    ludus__free(a->unlogged);
    ludus__free(a->carried);
    ludus__free(a->carried_top);
    ludus__free(a->hitches);
    ludus__hitches_free(a);
    ludus__threads_free(a);
    ludus__free(a->truns);
    ludus__counters_free(a);
    ludus__free(a->locks);
    ludus__timeline_free(a);
    ludus__free(a);
}

/* "12.5ms", "300us", "2s", "1500" (ms). */
static int parse_time(const char *s, const char *end, int64_t *ns) {
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof buf) return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *unit;
    double v = strtod(buf, &unit);
    if (unit == buf || v < 0) return -1;
    double mul = 1e6;
    if (!strcmp(unit, "ns"))
        mul = 1;
    else if (!strcmp(unit, "us"))
        mul = 1e3;
    else if (!strcmp(unit, "ms") || !*unit)
        mul = 1e6;
    else if (!strcmp(unit, "s"))
        mul = 1e9;
    else
        return -1;
    *ns = (int64_t)(v * mul + 0.5);
    return 0;
}

int ludus_window_parse(const char *text, ludus_analysis_desc *d) {
    if (!text || !d) return LUDUS_EINVAL;
    if (!strcmp(text, "all")) {
        d->window = LUDUS_WINDOW_ALL;
        return 0;
    }
    if (!strncmp(text, "last:", 5)) {
        char *e;
        unsigned long n = strtoul(text + 5, &e, 10);
        if (e == text + 5 || *e || n == 0 || n > UINT32_MAX) return LUDUS_EINVAL;
        d->window = LUDUS_WINDOW_LAST_FRAMES;
        d->last_frames = (uint32_t)n;
        return 0;
    }
    if (!strncmp(text, "range:", 6)) {
        const char *p = text + 6, *dash = strchr(p, '-');
        int64_t t0, t1;
        if (!dash || parse_time(p, dash, &t0) || parse_time(dash + 1, dash + 1 + strlen(dash + 1), &t1) || t1 <= t0)
            return LUDUS_EINVAL;
        d->window = LUDUS_WINDOW_RANGE;
        d->range_begin_ns = t0;
        d->range_end_ns = t1;
        return 0;
    }
    return LUDUS_EINVAL;
}

void ludus_analysis_get_summary(const ludus_analysis *a, ludus_analysis_summary *out) {
    *out = a->sum;
}
uint32_t ludus_analysis_site_count(const ludus_analysis *a) {
    return a->nsites;
}
const ludus_site_stats *ludus_analysis_site(const ludus_analysis *a, uint32_t i) {
    return i < a->nsites ? &a->sites[i].pub : NULL;
}
int64_t ludus_analysis_find_site(const ludus_analysis *a, const char *name) {
    for (uint32_t i = 0; i < a->nsites; i++)
        if (!strcmp(a->sites[i].pub.name, name)) return i;
    return -1;
}
uint32_t ludus_analysis_path_count(const ludus_analysis *a) {
    return a->nnodes;
}
const ludus_path_stats *ludus_analysis_path(const ludus_analysis *a, uint32_t i) {
    return i < a->nnodes ? &a->nodes[i].pub : NULL;
}

size_t ludus__path_text(const ludus_analysis *a, uint32_t node, char *buf, size_t cap) {
    uint32_t chain[256];
    uint32_t n = 0;
    for (uint32_t x = node; x != UINT32_MAX && n < 256; x = a->nodes[x].pub.parent) chain[n++] = x;
    size_t len = 0;
    if (cap) buf[0] = 0;
    for (uint32_t i = n; i-- > 0;) {
        const ludus_path_stats *x = &a->nodes[chain[i]].pub;
        const char *sep = i + 1 == n ? "" : (x->flags & LUDUS_STAT_FOLDED) ? "/.../" : "/";
        char label[1024]; /* a name another scope site shares: with its file:line, so two paths never read alike */
        int w = snprintf(buf + len, len < cap ? cap - len : 0, "%s%s", sep,
                         ludus_analysis_site_label(a, x->site, label, sizeof label));
        if (w > 0) len += (size_t)w;
        if (len >= cap) {
            len = cap ? cap - 1 : 0;
            break;
        }
    }
    return len;
}

int64_t ludus_analysis_find_path(const ludus_analysis *a, const char *slash_path) {
    char buf[1024];
    for (uint32_t i = 0; i < a->nnodes; i++) {
        ludus__path_text(a, i, buf, sizeof buf);
        if (!strcmp(buf, slash_path)) return i;
    }
    return -1;
}

uint64_t ludus_analysis_frame_count(const ludus_analysis *a) {
    return a->nmarks + 1;
}

int ludus_analysis_frame(const ludus_analysis *a, uint64_t f, ludus_frame_info *out) {
    if (f > a->nmarks) return LUDUS_EINVAL;
    memset(out, 0, sizeof *out);
    out->index = f;
    out->begin_ns = ludus__frame_begin(a, f);
    out->end_ns = ludus__frame_end(a, f);
    out->unlogged_ns = ludus__frame_unlogged(a, f);
    out->complete = f >= 1 && f < a->nmarks;
    out->lead_in = f == 0;
    out->in_window = f >= a->win_f0 && f < a->win_f1;
    out->hitch = out->in_window && out->end_ns - out->begin_ns > a->sum.hitch_threshold_ns;
    out->cpu_ns = ludus__frame_cpu(a, f);
    return 0;
}

uint32_t ludus_analysis_hitch_count(const ludus_analysis *a) {
    return a->nhitches;
}
const ludus_hitch *ludus_analysis_hitch(const ludus_analysis *a, uint32_t i) {
    return i < a->nhitches ? &a->hitches[i] : NULL;
}
