/* Frames: the frame-time series of the window (frame k = [mark k, mark k+1)
 * on the frame thread, marks counted from 1; frame 0, the lead-in before
 * the first mark, and the tail after the last mark are not frames),
 * the unlogged remainder per frame, calls per frame per site, and hitches
 * (frame time > k x median of the window) with what grew most against its
 * own median frame: sites' exclusive time, the unlogged remainder, and time
 * carried across the frame's opening mark. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

void ludus__cells_per_frame(const ludus_analysis *a, const ludus__cell *run, uint32_t n, int calls, double *out) {
    uint64_t nw = a->win_f1 - a->win_f0;
    for (uint64_t i = 0; i < nw; i++) out[i] = 0;
    for (uint32_t i = 0; i < n; i++)
        if (run[i].frame >= a->win_f0 && run[i].frame < a->win_f1)
            out[run[i].frame - a->win_f0] = calls ? (double)run[i].calls : (double)run[i].excl;
}

static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b;
}

static int cmp_frame_site(const void *x, const void *y) {
    const ludus__cell *a = *(const ludus__cell *const *)x, *b = *(const ludus__cell *const *)y;
    if (a->frame != b->frame) return a->frame < b->frame ? -1 : 1;
    return a->ent < b->ent ? -1 : a->ent > b->ent;
}

int ludus__cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static const ludus__cell *site_cell(const ludus_analysis *a, uint32_t site, uint64_t frame) {
    const ludus__an_site *s = &a->sites[site];
    const ludus__cell *run = a->site_cells + s->cells_at;
    uint32_t lo = 0, hi = s->ncells;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (run[mid].frame < frame)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->ncells && run[lo].frame == frame ? &run[lo] : NULL;
}

int ludus_analysis_site_in_frame(const ludus_analysis *a, uint32_t site, uint64_t frame, uint64_t *calls,
                                 int64_t *excl_ns) {
    if (site >= a->nsites) return LUDUS_EINVAL;
    const ludus__cell *c = site_cell(a, site, frame);
    if (calls) *calls = c ? c->calls : 0;
    if (excl_ns) *excl_ns = c ? c->excl : 0;
    return 0;
}

int ludus__frames_finish(ludus_analysis *a) {
    ludus_analysis_summary *s = &a->sum;
    /* A hitch or a counter fires at the mark that ends the frame: its time is
     * read in the frame hook right after the mark (microseconds later; the
     * two clocks agree within the calibration's few microseconds). marks[k]
     * ends frame k: the last k with marks[k] <= trigger + 20 us. Not more:
     * the frames that catch up after a stall are often shorter than 1 ms
     * (a program under Lua: ten of 50 us after each stall). */
    if (s->trigger_reason && a->nmarks > 1) {
        uint64_t lo = 0, hi = a->nmarks;
        while (lo < hi) {
            uint64_t mid = (lo + hi) / 2;
            if (a->marks[mid] <= s->trigger_ns + 20000)
                lo = mid + 1;
            else
                hi = mid;
        }
        s->trigger_frame = lo >= 2 ? lo - 1 : 0; /* frame 0 is the lead-in */
    }
    /* coverage -> unlogged remainder */
    for (uint64_t k = 0; k <= a->nmarks; k++) {
        int64_t len = ludus__frame_end(a, k) - ludus__frame_begin(a, k);
        int64_t u = len - a->unlogged[k];
        a->unlogged[k] = a->nmarks ? (u > 0 ? u : 0) : 0;
    }
    s->frames_complete = a->nmarks > 1 ? a->nmarks - 1 : 0;
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    s->frames_in_window = nw;
    if (nw == 0) return 0;
    ludus__acc ft;
    memset(&ft, 0, sizeof ft);
    for (uint64_t f = a->win_f0; f < a->win_f1; f++) {
        if (ludus__acc_add(&ft, ludus__frame_end(a, f) - ludus__frame_begin(a, f), 1) != 0) {
            ludus__acc_free(&ft);
            return -1;
        }
        s->unlogged_total_ns += a->unlogged[f];
    }
    ludus__acc_stats(&ft, 1, &s->frame_time);
    ludus__acc_free(&ft);
    s->median_frame_ns = s->frame_time.p50_ns;
    s->hitch_threshold_ns = (int64_t)(a->desc.hitch_k * (double)s->median_frame_ns);

    /* per site over the window frames, from its cells only (a frame without
     * one is a zero): never sites x frames */
    int64_t *ex = ludus__malloc((a->nsite_cells ? a->nsite_cells : 1) * sizeof *ex);
    if (!ex) return -1;
    for (uint32_t i = 0; i < a->nsites; i++) {
        ludus__an_site *si = &a->sites[i];
        const ludus__cell *run = a->site_cells + si->cells_at;
        double calls = 0;
        uint64_t nin = 0;
        for (uint32_t k = 0; k < si->ncells; k++)
            if (run[k].frame >= a->win_f0 && run[k].frame < a->win_f1) {
                calls += (double)run[k].calls;
                ex[nin++] = run[k].excl;
            }
        si->pub.calls_per_frame = calls / (double)nw;
        qsort(ex, nin, sizeof *ex, cmp_i64);
        uint64_t k = (nw + 1) / 2 - 1, zeros = nw - nin; /* the sorted values: the zeros, then the cells' */
        si->pub.median_frame_excl_ns = k < zeros ? 0 : ex[k - zeros];
    }
    ludus__free(ex);

    for (uint64_t f = a->win_f0; f < a->win_f1; f++)
        if (ludus__frame_end(a, f) - ludus__frame_begin(a, f) > s->hitch_threshold_ns) s->hitches++;
    a->hitches = ludus__calloc(s->hitches ? s->hitches : 1, sizeof *a->hitches);
    if (!a->hitches) return -1;
    /* medians over the window frames of the unlogged remainder and the carried time */
    int64_t med_unlogged = 0, med_carried = 0;
    if (s->hitches) {
        int64_t *v = ludus__malloc(nw * sizeof *v);
        if (!v) return -1;
        for (int which = 0; which < 2; which++) {
            for (uint64_t f = a->win_f0; f < a->win_f1; f++)
                v[f - a->win_f0] = which ? a->carried[f].ns : a->unlogged[f];
            qsort(v, nw, sizeof *v, cmp_i64);
            *(which ? &med_carried : &med_unlogged) = v[(nw + 1) / 2 - 1];
        }
        ludus__free(v);
    }
    /* the site cells of each frame (frame, then site): a hitch looks at the
     * sites that ran in it, never at every site */
    const ludus__cell **by_frame = NULL;
    if (s->hitches) {
        by_frame = ludus__malloc((a->nsite_cells ? a->nsite_cells : 1) * sizeof *by_frame);
        if (!by_frame) return -1;
        for (size_t i = 0; i < a->nsite_cells; i++) by_frame[i] = &a->site_cells[i];
        qsort(by_frame, a->nsite_cells, sizeof *by_frame, cmp_frame_site);
    }
    size_t at = 0;
    for (uint64_t f = a->win_f0; f < a->win_f1; f++) {
        int64_t len = ludus__frame_end(a, f) - ludus__frame_begin(a, f);
        if (len <= s->hitch_threshold_ns) continue;
        while (at < a->nsite_cells && by_frame[at]->frame < f) at++;
        size_t end = at;
        while (end < a->nsite_cells && by_frame[end]->frame == f) end++;
        ludus_hitch *h = &a->hitches[a->nhitches++];
        h->frame = f;
        h->frame_ns = len;
        h->ratio = s->median_frame_ns ? (double)len / (double)s->median_frame_ns : 0;
        h->extra_ns = len - s->median_frame_ns;
        h->carried_site = a->carried[f].ns ? a->carried[f].site : UINT32_MAX;
        for (int g = 0; g < LUDUS_HITCH_GREW; g++) h->grew_site[g] = UINT32_MAX;
        for (size_t i = at; i < end + 2; i++) { /* the sites that ran in f (by index), the remainder, the carried */
            int64_t d;
            uint32_t who;
            if (i == end) {
                d = a->unlogged[f] - med_unlogged;
                who = LUDUS_HITCH_UNLOGGED;
            } else if (i == end + 1) {
                d = a->carried[f].ns - med_carried;
                who = LUDUS_HITCH_CARRIED;
            } else {
                who = by_frame[i]->ent; /* a site without a cell in f: d = -median <= 0 */
                d = by_frame[i]->excl - a->sites[who].pub.median_frame_excl_ns;
            }
            if (d <= 0) continue;
            for (int g = 0; g < LUDUS_HITCH_GREW; g++) {
                if (h->grew_site[g] != UINT32_MAX && d <= h->grew_ns[g]) continue;
                for (int m = LUDUS_HITCH_GREW - 1; m > g; m--) {
                    h->grew_site[m] = h->grew_site[m - 1];
                    h->grew_ns[m] = h->grew_ns[m - 1];
                }
                h->grew_site[g] = who;
                h->grew_ns[g] = d;
                break;
            }
        }
        int64_t sum = 0; /* the frame thread's items: a worker's time runs beside the frame */
        for (int g = 0; g < LUDUS_HITCH_GREW && h->grew_site[g] != UINT32_MAX; g++)
            if (h->grew_site[g] >= a->nsites || a->sites[h->grew_site[g]].on_frame_thread) sum += h->grew_ns[g];
        h->explained = h->extra_ns > 0 ? (double)sum / (double)h->extra_ns : 0;
        at = end;
    }
    ludus__free(by_frame);
    return 0;
}

const char *ludus__hitch_item(const ludus_analysis *a, const ludus_hitch *h, int g, char *buf, size_t cap) {
    uint32_t who = h->grew_site[g];
    if (who == LUDUS_HITCH_UNLOGGED) return "(unlogged remainder)";
    if (who == LUDUS_HITCH_CARRIED) {
        snprintf(buf, cap, "(crossing the mark: %s)",
                 h->carried_site < a->nsites ? a->sites[h->carried_site].pub.name : "?");
        return buf;
    }
    if (who >= a->nsites) return "?";
    if (a->sites[who].on_frame_thread) return a->sites[who].pub.name;
    snprintf(buf, cap, "%s (other thread)", a->sites[who].pub.name);
    return buf;
}
