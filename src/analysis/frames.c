/* Frames: the frame-time series of the window (frame k = [mark k, mark k+1)
 * on the frame thread, marks counted from 1; frame 0, the lead-in before
 * the first mark, and the tail after the last mark are not frames), the
 * frame thread's CPU time per frame, the unlogged remainder per frame,
 * calls per frame per site, and hitches (frame time > max(k x median of the
 * window, the budget)); what grew in each is hitches.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"
#include "../base/parallel.h"

void ludus__cells_per_frame(const ludus_analysis *a, const ludus__crun *run, int calls, double *out) {
    uint64_t nw = a->win_f1 - a->win_f0;
    for (uint64_t i = 0; i < nw; i++) out[i] = 0;
    ludus__crun_it it;
    for (ludus__crun_begin(run, &it); ludus__crun_next(&it);)
        if (it.c.frame >= a->win_f0 && it.c.frame < a->win_f1)
            out[it.c.frame - a->win_f0] = calls ? (double)it.c.calls : (double)it.c.excl;
}

int ludus__is_hitch_frame(const ludus_analysis *a, uint32_t *at, uint64_t f) {
    uint32_t lo = *at, hi = a->sum.hitches;
    if (lo >= hi || a->hitch_frames[lo] >= f) return lo < hi && a->hitch_frames[lo] == f;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (a->hitch_frames[mid] < f)
            lo = mid + 1;
        else
            hi = mid;
    }
    *at = lo;
    return lo < a->sum.hitches && a->hitch_frames[lo] == f;
}

int ludus_analysis_site_in_frame(const ludus_analysis *a, uint32_t site, uint64_t frame, uint64_t *calls,
                                 int64_t *excl_ns) {
    if (site >= a->nsites) return LUDUS_EINVAL;
    ludus__cell c;
    int found = frame <= UINT32_MAX && ludus__crun_find(&a->sites[site].run, (uint32_t)frame, &c);
    if (calls) *calls = found ? c.calls : 0;
    if (excl_ns) *excl_ns = found ? c.excl : 0;
    return 0;
}

/* Before the pass: the window's frame times, the threshold (max of k x
 * the median and the budget), which frames are hitches and which of them
 * the pass looks at bin by bin (the worst LUDUS_HITCH_DETAILED), and the
 * frame thread's CPU time per frame. */
int ludus__frames_plan(ludus_analysis *a) {
    ludus_analysis_summary *s = &a->sum;
    s->frames_complete = a->nmarks > 1 ? a->nmarks - 1 : 0;
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    s->frames_in_window = nw;
    s->budget_ns = a->desc.budget_ns > 0 ? a->desc.budget_ns : 0;
    if (nw == 0) return 0;
    ludus__acc ft, cpu;
    memset(&ft, 0, sizeof ft);
    memset(&cpu, 0, sizeof cpu);
    int64_t *off = ludus__malloc(nw * sizeof *off);
    uint64_t noff = 0;
    int bad = !off;
    for (uint64_t f = a->win_f0; f < a->win_f1 && !bad; f++) {
        int64_t len = ludus__frame_end(a, f) - ludus__frame_begin(a, f), c = ludus__frame_cpu(a, f);
        bad |= ludus__acc_add(&ft, len, 1) != 0;
        if (c >= 0) {
            bad |= ludus__acc_add(&cpu, c, 1) != 0;
            off[noff++] = len > c ? len - c : 0;
        }
    }
    if (!bad) {
        ludus__acc_stats(&ft, 1, &s->frame_time);
        ludus__acc_stats(&cpu, 1, &s->frame_cpu);
    }
    ludus__acc_free(&ft);
    ludus__acc_free(&cpu);
    if (bad) {
        ludus__free(off);
        return -1;
    }
    s->median_frame_ns = s->frame_time.p50_ns;
    s->median_frame_cpu_ns = s->frame_cpu.count ? s->frame_cpu.p50_ns : 0;
    a->med_cpu = s->median_frame_cpu_ns;
    if (noff) a->med_off = ludus__kth_i64(off, noff, (noff + 1) / 2 - 1);
    ludus__free(off);
    int64_t th = (int64_t)(a->desc.hitch_k * (double)s->median_frame_ns);
    s->hitch_threshold_ns = th > s->budget_ns ? th : s->budget_ns;
    for (uint64_t f = a->win_f0; f < a->win_f1; f++)
        if (ludus__frame_end(a, f) - ludus__frame_begin(a, f) > s->hitch_threshold_ns) s->hitches++;
    a->hitch_frames = ludus__malloc((s->hitches ? s->hitches : 1) * sizeof *a->hitch_frames);
    if (!a->hitch_frames) return -1;
    uint32_t n = 0;
    for (uint64_t f = a->win_f0; f < a->win_f1; f++)
        if (ludus__frame_end(a, f) - ludus__frame_begin(a, f) > s->hitch_threshold_ns) a->hitch_frames[n++] = f;
    /* the detailed ones: the worst, in frame order */
    uint32_t nd = n < LUDUS_HITCH_DETAILED ? n : LUDUS_HITCH_DETAILED;
    if (nd == 0) return 0;
    uint64_t *pick = ludus__malloc(n * sizeof *pick);
    a->hplan = ludus__calloc(nd, sizeof *a->hplan);
    if (!pick || !a->hplan) {
        ludus__free(pick);
        return -1;
    }
    if (nd < n) { /* by length (longest first; ties: the earlier frame), then the first nd by frame */
        int64_t *key = ludus__malloc(n * sizeof *key);
        if (!key) {
            ludus__free(pick);
            return -1;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint64_t f = a->hitch_frames[i];
            key[i] = ludus__frame_end(a, f) - ludus__frame_begin(a, f);
        }
        int64_t cut = 0; /* the nd-th longest */
        int64_t *tmp = ludus__malloc(n * sizeof *tmp);
        if (!tmp) {
            ludus__free(key);
            ludus__free(pick);
            return -1;
        }
        memcpy(tmp, key, n * sizeof *tmp);
        cut = ludus__kth_i64(tmp, n, n - nd);
        ludus__free(tmp);
        uint32_t above = 0, k = 0;
        for (uint32_t i = 0; i < n; i++) above += key[i] > cut;
        uint32_t ties = nd - above;
        for (uint32_t i = 0; i < n && k < nd; i++)
            if (key[i] > cut || (key[i] == cut && ties && ties--)) pick[k++] = a->hitch_frames[i];
        ludus__free(key);
    } else {
        memcpy(pick, a->hitch_frames, n * sizeof *pick);
    }
    for (uint32_t i = 0; i < nd; i++) {
        a->hplan[i].frame = pick[i];
        a->hplan[i].b = ludus__frame_begin(a, pick[i]);
        a->hplan[i].e = ludus__frame_end(a, pick[i]);
    }
    a->nhplan = nd;
    s->hitches_detailed = nd;
    ludus__free(pick);
    return 0;
}

/* A site's calls per window frame and median exclusive time per window frame. */
typedef struct site_job {
    ludus_analysis *a;
    int64_t *v[LUDUS__PARALLEL_MAX]; /* per worker: room for the longest run's values */
} site_job;

static void site_one(void *arg, unsigned worker, uint32_t i) {
    site_job *j = arg;
    const ludus_analysis *a = j->a;
    ludus__an_site *si = &a->sites[i];
    int64_t *ex = j->v[worker];
    uint64_t nw = a->sum.frames_in_window, nin = 0;
    double calls = 0;
    ludus__crun_it it;
    for (ludus__crun_begin(&si->run, &it); ludus__crun_next(&it);)
        if (it.c.frame >= a->win_f0 && it.c.frame < a->win_f1) {
            calls += (double)it.c.calls;
            ex[nin++] = it.c.excl;
        }
    si->pub.calls_per_frame = calls / (double)nw;
    si->pub.median_frame_excl_ns = ludus__kth_after_zeros(ex, nin, nw, (nw + 1) / 2 - 1);
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
    for (uint64_t k = a->keep_f0; k < a->keep_f1; k++) {
        int64_t len = ludus__frame_end(a, k) - ludus__frame_begin(a, k);
        int64_t u = len - a->unlogged[k - a->keep_f0];
        a->unlogged[k - a->keep_f0] = a->nmarks ? (u > 0 ? u : 0) : 0;
    }
    uint64_t nw = s->frames_in_window;
    if (nw == 0) return 0;
    for (uint64_t f = a->win_f0; f < a->win_f1; f++) s->unlogged_total_ns += ludus__frame_unlogged(a, f);

    /* per site over the window frames, from its cells only (a frame without
     * one is a zero): never sites x frames */
    uint32_t most = 0;
    uint64_t cells = 0;
    for (uint32_t i = 0; i < a->nsites; i++) {
        if (a->sites[i].run.n > most) most = a->sites[i].run.n;
        cells += a->sites[i].run.n;
    }
    unsigned workers = ludus__parallel_workers(a->nsites, ludus__finish_threads_for(cells));
    size_t per = most ? most : 1;
    int64_t *room = ludus__malloc(workers * per * sizeof *room);
    if (!room) return -1;
    site_job j = {a, {NULL}};
    for (unsigned w = 0; w < workers; w++) j.v[w] = room + w * per;
    ludus__parallel_for(a->nsites, workers, site_one, &j);
    ludus__free(room);

    a->hitches = ludus__calloc(s->hitches ? s->hitches : 1, sizeof *a->hitches);
    if (!a->hitches) return -1;
    if (!s->hitches) return 0;
    /* medians over the window frames of the unlogged remainder and the carried time */
    int64_t med_unlogged = 0, med_carried = 0;
    int64_t *v = ludus__malloc(nw * sizeof *v);
    if (!v) return -1;
    for (int which = 0; which < 2; which++) {
        for (uint64_t f = a->win_f0; f < a->win_f1; f++)
            v[f - a->win_f0] = which ? a->carried[f - a->keep_f0] : ludus__frame_unlogged(a, f);
        *(which ? &med_carried : &med_unlogged) = ludus__kth_i64(v, nw, (nw + 1) / 2 - 1);
    }
    ludus__free(v);
    return ludus__hitches_explain(a, med_unlogged, med_carried);
}

int64_t ludus__frame_unlogged(const ludus_analysis *a, uint64_t f) {
    return ludus__frame_kept(a, f) ? a->unlogged[f - a->keep_f0] : -1;
}

int64_t ludus__frame_cpu(const ludus_analysis *a, uint64_t f) {
    if (f == 0 || f >= a->nmarks || !a->mark_cpu) return -1;
    int64_t c0 = a->mark_cpu[f - 1], c1 = a->mark_cpu[f];
    return c0 >= 0 && c1 >= c0 ? c1 - c0 : -1;
}
