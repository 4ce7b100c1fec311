/* Threads: each thread's busy time per window frame (its top-level scopes
 * on its own track, split at the frame marks) and its top scopes by
 * exclusive time, from the per (thread, site, frame) cells the pass keeps
 * (a->truns, tree.c); the reports' per-thread sections. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"
#include "../base/parallel.h"

/* The thread's busy time in frame k grows by ns (k at or after its last frame). */
static int busy_put(ludus__an_thread *t, uint64_t k, int64_t ns) {
    if (t->busy_last.calls && t->busy_last.frame == k) {
        t->busy_last.excl += ns;
        return 0;
    }
    if (t->busy_last.calls) {
        t->busy_last.incl = t->busy_last.excl;
        t->busy_last.calls = 0;
        if (ludus__crun_put(&t->busy_w, &t->busy_last) != 0) return -1;
    }
    t->busy_last = (ludus__cell){(uint32_t)k, 0, 1, ns, 0};
    return 0;
}

int ludus__thread_busy_add(ludus_analysis *a, uint32_t thread, uint32_t frame, int64_t b, int64_t e) {
    ludus__an_thread *t = &a->threads[thread];
    const int64_t *m = a->marks;
    /* the common case: within the frame it began in, which the thread is already in */
    if (ludus__thread_busy_fast(t, m, a->nmarks, frame, b, e)) return 0;
    for (uint64_t k = frame > a->keep_f0 ? frame : a->keep_f0; k < a->keep_f1; k++) {
        int64_t fb = k == 0 ? 0 : m[k - 1], fe = k < a->nmarks ? m[k] : a->end_ns;
        if (fb >= e) break;
        int64_t lo = b > fb ? b : fb, hi = e < fe ? e : fe;
        if (hi <= lo) continue;
        if (busy_put(t, k, hi - lo) != 0) return -1;
    }
    return 0;
}

int ludus__thread_busy_end(ludus_analysis *a) {
    for (uint32_t i = 0; i < a->nthreads; i++) {
        ludus__an_thread *t = &a->threads[i];
        if (t->busy_last.calls) {
            t->busy_last.incl = t->busy_last.excl;
            t->busy_last.calls = 0;
            if (ludus__crun_put(&t->busy_w, &t->busy_last) != 0) return -1;
        }
        int rc = ludus__crun_end(&t->busy_w, &t->busy);
        ludus__crun_writer_free(&t->busy_w);
        if (rc) return -1;
    }
    return 0;
}

void ludus__threads_free(ludus_analysis *a) {
    for (uint32_t i = 0; i < a->nthreads; i++) {
        ludus__crun_writer_free(&a->threads[i].busy_w);
        ludus__crun_free(&a->threads[i].busy);
    }
    ludus__free(a->threads);
    a->threads = NULL;
    a->nthreads = 0;
}

/* The run of (thread, site), or NULL, by binary search. */
static const ludus__trun *trun_find(const ludus_analysis *a, uint32_t thread, uint32_t site) {
    uint32_t lo = 0, hi = a->ntruns;
    while (lo < hi) {
        uint32_t m = (lo + hi) / 2;
        const ludus__trun *r = &a->truns[m];
        if (r->thread != thread ? r->thread < thread : r->site < site)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < a->ntruns && a->truns[lo].thread == thread && a->truns[lo].site == site ? &a->truns[lo] : NULL;
}

int64_t ludus__tcell_median(const ludus_analysis *a, uint32_t thread, uint32_t site) {
    const ludus__trun *r = trun_find(a, thread, site);
    return r ? r->med : 0;
}

/* ---- sites that wait on other threads ----
 * A scope whose own time is a wait for work on other threads (a parent
 * whose jobs a worker stole, then waits for them without a scope of its
 * own) looks, thread by thread, like a scope that works: its exclusive
 * time grows when the workers run slower or take more of the jobs. What
 * tells it apart: it is a parent whose own time is the time between its
 * children (hitches.c's definition of a scope that can wait; a leaf's own
 * time is its work), and per (thread, site) over the window frames it ran in:
 * the other threads were busy for at least half of its exclusive time in
 * those frames (each frame: the smaller of the two), and its exclusive
 * time follows theirs from frame to frame (Spearman's rank correlation >=
 * WAIT_R: it waits longer when they work longer). Work that runs beside
 * the workers does not follow them; a caller that keeps the jobs the
 * workers did not take does the opposite. Judged over WAIT_MIN_FRAMES
 * frames at least; a site waits when the (thread, site) runs that wait
 * hold at least half of its exclusive time. */
#define WAIT_R 0.5
#define WAIT_MIN_FRAMES 10

/* A value, and twice its rank among the others (ties: their mean rank,
 * so twice it is a whole number); frame: the window frame it is of, then
 * twice its rank in the first series once the second is ranked. 16 bytes
 * with the double first, as ludus__sort_f64_pairs sorts. */
typedef struct rank_rec {
    double v;
    uint32_t frame, rank2;
} rank_rec;

/* r sorted by v (stable), and each one's rank2 set. */
static void rank_sorted(rank_rec *r, size_t n) {
    ludus__sort_f64_pairs(r, n);
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && r[j].v == r[i].v;) j++;
        for (size_t k = i; k < j; k++) r[k].rank2 = (uint32_t)(i + 1 + j);
    }
}

/* Spearman's rank correlation of a run's exclusive time per frame and the
 * other threads' busy time in the same frames: r[k] = {its time in a
 * window frame, that frame - win_f0} on entry; all[f]: the others' time in
 * window frame f. Summed in doubles, as before the ranks were whole
 * numbers: no 128-bit integers (MSVC has none; clang's need a runtime
 * library). */
static double rank_corr(rank_rec *r, const int64_t *all, size_t n) {
    if (n >= UINT32_MAX / 2) return 0; /* twice a rank would not fit (never: that many frames) */
    rank_sorted(r, n);
    for (size_t k = 0; k < n; k++) {
        r[k].v = (double)all[r[k].frame];
        r[k].frame = r[k].rank2;
    }
    rank_sorted(r, n);
    int64_t mid = (int64_t)n + 1; /* twice the mean rank */
    double sxy = 0, sxx = 0, syy = 0;
    for (size_t k = 0; k < n; k++) {
        double dx = (double)((int64_t)r[k].frame - mid), dy = (double)((int64_t)r[k].rank2 - mid);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    return sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : 0;
}

/* Adds sign x thread t's busy time in each window frame to all[frame - win_f0]. */
static void busy_in_window(const ludus_analysis *a, const ludus__an_thread *t, int64_t *all, int64_t sign) {
    ludus__crun_it it;
    for (ludus__crun_begin(&t->busy, &it); ludus__crun_next(&it);)
        if (it.c.frame >= a->win_f0 && it.c.frame < a->win_f1) all[it.c.frame - a->win_f0] += sign * it.c.excl;
}

/* The finish's runs (here and frames.c) are read on several threads once
 * they hold this many cells: below, a thread's start costs more than it
 * saves. Each run's figures are its item's own; what adds runs up is done
 * after, in run order, so the results are the same on any number. */
#define FINISH_PARALLEL_CELLS 200000u
unsigned ludus__finish_threads = LUDUS__PARALLEL_MAX;

unsigned ludus__finish_threads_for(uint64_t cells) {
    return cells >= FINISH_PARALLEL_CELLS ? ludus__finish_threads : 1u;
}

/* e: room for the longest run's (most) rank_recs. */
static int sites_waiting(ludus_analysis *a, rank_rec *e) {
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    if (!nw || a->nthreads < 2) return 0;
    int64_t *all = ludus__calloc(nw, sizeof *all);
    int64_t *own = ludus__calloc(a->nsites + 1, sizeof *own), *waiting = ludus__calloc(a->nsites + 1, sizeof *own);
    int rc = -1;
    if (!all || !own || !waiting) goto done;
    for (uint32_t t = 0; t < a->nthreads; t++) busy_in_window(a, &a->threads[t], all, 1);
    /* per thread (the runs go by thread, then site): its own busy time
     * taken out of `all` while its runs are read, so `all` says what the
     * others were busy with; put back after */
    for (uint32_t r = 0, r_end; r < a->ntruns; r = r_end) {
        uint32_t thread = a->truns[r].thread;
        for (r_end = r + 1; r_end < a->ntruns && a->truns[r_end].thread == thread;) r_end++;
        const ludus__an_thread *th = thread < a->nthreads ? &a->threads[thread] : NULL;
        if (th) busy_in_window(a, th, all, -1);
        for (uint32_t k = r; k < r_end; k++) {
            const ludus__trun *run = &a->truns[k];
            size_t n = 0;
            int64_t mine = 0, covered = 0;
            ludus__crun_it it;
            for (ludus__crun_begin(&run->run, &it); th && ludus__crun_next(&it);) {
                const ludus__cell *c = &it.c;
                if (c->frame < a->win_f0 || c->frame >= a->win_f1 || c->excl <= 0) continue;
                int64_t others = all[c->frame - a->win_f0];
                mine += c->excl;
                covered += c->excl < others ? c->excl : others > 0 ? others : 0;
                e[n++] = (rank_rec){(double)c->excl, (uint32_t)(c->frame - a->win_f0), 0};
            }
            if (run->site >= a->nsites) continue;
            own[run->site] += mine;
            if (n >= WAIT_MIN_FRAMES && 2 * covered >= mine && ludus__site_parentish(&a->sites[run->site]) &&
                rank_corr(e, all, n) >= WAIT_R)
                waiting[run->site] += mine;
        }
        if (th) busy_in_window(a, th, all, 1);
    }
    for (uint32_t s = 0; s < a->nsites; s++) a->sites[s].waits_on_others = own[s] > 0 && 2 * waiting[s] >= own[s];
    rc = 0;
done:
    ludus__free(all);
    ludus__free(own);
    ludus__free(waiting);
    return rc;
}

int ludus__site_waits(const ludus_analysis *a, uint32_t site) {
    return site < a->nsites && (a->sites[site].wait_kind || a->sites[site].waits_on_others);
}

/* Per (thread, site) run: its median over the window frames (a frame
 * without a cell: 0), its exclusive time and calls in them. */
typedef struct trun_job {
    ludus_analysis *a;
    int64_t *excl;
    uint64_t *calls;
    int64_t *v[LUDUS__PARALLEL_MAX]; /* per worker: room for the longest run's values */
} trun_job;

static void trun_one(void *arg, unsigned worker, uint32_t r) {
    trun_job *j = arg;
    const ludus_analysis *a = j->a;
    ludus__trun *run = &a->truns[r];
    int64_t *v = j->v[worker];
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0, nin = 0, calls = 0;
    int64_t excl = 0;
    ludus__crun_it it;
    for (ludus__crun_begin(&run->run, &it); ludus__crun_next(&it);) {
        const ludus__cell *c = &it.c;
        if (c->frame < a->win_f0 || c->frame >= a->win_f1) continue;
        v[nin++] = c->excl;
        excl += c->excl;
        calls += c->calls;
    }
    run->med = nw && nin ? ludus__kth_after_zeros(v, nin, nw, (nw + 1) / 2 - 1) : 0;
    j->excl[r] = excl;
    j->calls[r] = calls;
}

/* A thread's busy time per window frame: its total, worst frame and percentiles. */
static void busy_one(void *arg, unsigned worker, uint32_t ti) {
    trun_job *j = arg;
    const ludus_analysis *a = j->a;
    ludus__an_thread *x = &a->threads[ti];
    ludus_thread_stats *t = &x->pub;
    int64_t *v = j->v[worker];
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0, nin = 0;
    ludus__crun_it it;
    for (ludus__crun_begin(&x->busy, &it); ludus__crun_next(&it);) {
        int64_t ns = it.c.excl;
        if (it.c.frame < a->win_f0 || it.c.frame >= a->win_f1 || ns <= 0) continue;
        v[nin++] = ns;
        t->busy_total_ns += ns;
        if (ns > t->busy_max_ns) t->busy_max_ns = ns, t->busy_max_frame = it.c.frame;
    }
    t->frames_busy = nin;
    if (!nw) return;
    t->busy_per_frame_ns = (double)t->busy_total_ns / (double)nw;
    t->busy_share = a->sum.frame_time.total_ns ? (double)t->busy_total_ns / (double)a->sum.frame_time.total_ns : 0;
    t->busy_p50_ns = ludus__kth_after_zeros(v, nin, nw, (nw + 1) / 2 - 1);
    t->busy_p90_ns = ludus__kth_after_zeros(v, nin, nw, (nw * 9 + 9) / 10 - 1);
}

int ludus__threads_finish(ludus_analysis *a) {
    size_t most = 0; /* the longest run of cells (thread, site), or of a thread's busy frames */
    uint64_t cells = 0;
    for (uint32_t t = 0; t < a->nthreads; t++) {
        if (a->threads[t].busy.n > most) most = a->threads[t].busy.n;
        cells += a->threads[t].busy.n;
    }
    for (uint32_t r = 0; r < a->ntruns; r++) {
        if (a->truns[r].run.n > most) most = a->truns[r].run.n;
        cells += a->truns[r].run.n;
    }
    unsigned workers =
        ludus__parallel_workers(a->ntruns > a->nthreads ? a->ntruns : a->nthreads, ludus__finish_threads_for(cells));
    /* One buffer: the workers' values for the medians (8 bytes a frame each), then the
     * waiting test's ranks (16 bytes a frame, on one thread): the two never add up. */
    size_t per = (most + 1) * sizeof(int64_t), bytes = (most + 1) * sizeof(rank_rec);
    if (bytes < workers * per) bytes = workers * per;
    char *room = ludus__malloc(bytes);
    trun_job j = {
        a, ludus__malloc((a->ntruns + 1) * sizeof *j.excl), ludus__malloc((a->ntruns + 1) * sizeof *j.calls), {NULL}};
    int rc = -1;
    if (!room || !j.excl || !j.calls) goto done;
    for (unsigned w = 0; w < workers; w++) j.v[w] = (int64_t *)(void *)(room + w * per);
    ludus__parallel_for(a->ntruns, workers, trun_one, &j);
    /* the thread's top scopes by their exclusive time in the window frames, in run order */
    for (uint32_t r = 0; r < a->ntruns; r++) {
        const ludus__trun *run = &a->truns[r];
        int64_t excl = j.excl[r];
        if (run->thread >= a->nthreads || excl <= 0) continue;
        ludus_thread_stats *t = &a->threads[run->thread].pub;
        int at = LUDUS_THREAD_TOP;
        while (at > 0 && (t->top_site[at - 1] == UINT32_MAX || t->top_excl_ns[at - 1] < excl)) at--;
        if (at == LUDUS_THREAD_TOP) continue;
        for (int m = LUDUS_THREAD_TOP - 1; m > at; m--) {
            t->top_site[m] = t->top_site[m - 1];
            t->top_excl_ns[m] = t->top_excl_ns[m - 1];
            t->top_calls[m] = t->top_calls[m - 1];
        }
        t->top_site[at] = run->site;
        t->top_excl_ns[at] = excl;
        t->top_calls[at] = j.calls[r];
    }
    ludus__parallel_for(a->nthreads, workers, busy_one, &j);
    rc = sites_waiting(a, (rank_rec *)(void *)room);
done:
    ludus__free(room);
    ludus__free(j.excl);
    ludus__free(j.calls);
    return rc;
}

uint32_t ludus_analysis_thread_count(const ludus_analysis *a) {
    return a ? a->nthreads : 0;
}

const ludus_thread_stats *ludus_analysis_thread(const ludus_analysis *a, uint32_t i) {
    return a && i < a->nthreads ? &a->threads[i].pub : NULL;
}

/* ---- reports ---- */

typedef struct thread_key {
    const ludus_thread_stats *t;
    uint32_t index;
} thread_key;

/* The frame thread first, then by busy time (ties: capture order). */
static int by_busy(const void *x, const void *y) {
    const thread_key *a = x, *b = y;
    if (a->t->is_frame_thread != b->t->is_frame_thread) return a->t->is_frame_thread ? -1 : 1;
    if (a->t->busy_total_ns != b->t->busy_total_ns) return a->t->busy_total_ns > b->t->busy_total_ns ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

static thread_key *sorted_threads(const ludus_analysis *a) {
    thread_key *k = ludus__malloc((a->nthreads ? a->nthreads : 1) * sizeof *k);
    if (!k) return NULL;
    for (uint32_t i = 0; i < a->nthreads; i++) k[i] = (thread_key){&a->threads[i].pub, i};
    qsort(k, a->nthreads, sizeof *k, by_busy);
    return k;
}

int ludus__report_threads_text(const ludus_analysis *a, ludus__writer *w, uint32_t top) {
    const ludus_analysis_summary *s = &a->sum;
    if (!a->nthreads || !s->frames_in_window) return 0;
    thread_key *k = sorted_threads(a);
    if (!k) return LUDUS_ENOMEM; /* a report without its threads is no report */
    char b[5][32], name[96], label[200], item[256];
    uint32_t shown = a->nthreads < top ? a->nthreads : top;
    ludus__w_fmt(w,
                 "\nThreads: busy = time in the thread's top-level scopes within each of the %llu window frames "
                 "(split at the marks;\na frame it did not run in counts 0); top: its scopes by exclusive time "
                 "per window frame\n%-32s %11s %10s %10s %10s %6s\n",
                 (unsigned long long)s->frames_in_window, "thread", "busy/frame", "p50", "p90", "max", "busy");
    for (uint32_t i = 0; i < shown; i++) {
        const ludus_thread_stats *t = k[i].t;
        char nm[64];
        snprintf(nm, sizeof nm, "%s", t->is_frame_thread ? " (frame thread)" : t->dropped ? " (!)" : "");
        ludus__text_name(name, sizeof name, t->name, 32 - strlen(nm));
        ludus__w_fmt(w, "%s%-*s %11s %10s %10s %10s %5.0f%%\n", name, (int)(32 - strlen(name)), nm,
                     ludus__dur(b[0], 32, t->busy_per_frame_ns), ludus__dur(b[1], 32, (double)t->busy_p50_ns),
                     ludus__dur(b[2], 32, (double)t->busy_p90_ns), ludus__dur(b[3], 32, (double)t->busy_max_ns),
                     100 * t->busy_share);
        if (t->top_site[0] == UINT32_MAX) continue;
        ludus__w_str(w, "    top:");
        for (int j = 0; j < LUDUS_THREAD_TOP && t->top_site[j] != UINT32_MAX; j++) {
            snprintf(item, sizeof item, "%s", ludus_analysis_site_label(a, t->top_site[j], label, sizeof label));
            ludus__w_fmt(w, "%s %s %s", j ? "," : "", ludus__text_name(label, sizeof label, item, 60),
                         ludus__dur(b[4], 32, (double)t->top_excl_ns[j] / (double)s->frames_in_window));
        }
        ludus__w_str(w, "\n");
    }
    if (a->nthreads > shown)
        ludus__w_fmt(w, "  ... %u more threads (--top N lists more, --json all)\n", a->nthreads - shown);
    ludus__free(k);
    return 0;
}

void ludus__report_threads_json(const ludus_analysis *a, ludus__writer *w) {
    const ludus_analysis_summary *s = &a->sum;
    char label[200];
    ludus__w_str(w, ",\n\"threads\":[");
    for (uint32_t i = 0; i < a->nthreads; i++) {
        const ludus_thread_stats *t = &a->threads[i].pub;
        ludus__w_fmt(w, "%s\n{\"index\":%u,\"name\":", i ? "," : "", i);
        ludus__w_jstr(w, t->name);
        ludus__w_fmt(w,
                     ",\"tid\":%llu,\"frame_thread\":%s,\"dropped\":%llu,\"frames_busy\":%llu,\"busy_total_ns\":%lld,"
                     "\"busy_per_frame_ns\":%.1f,\"busy_p50_ns\":%lld,\"busy_p90_ns\":%lld,\"busy_max_ns\":%lld,"
                     "\"busy_max_frame\":%llu,\"busy_share\":%.4f,\"top\":[",
                     (unsigned long long)t->tid, t->is_frame_thread ? "true" : "false", (unsigned long long)t->dropped,
                     (unsigned long long)t->frames_busy, (long long)t->busy_total_ns, t->busy_per_frame_ns,
                     (long long)t->busy_p50_ns, (long long)t->busy_p90_ns, (long long)t->busy_max_ns,
                     (unsigned long long)t->busy_max_frame, t->busy_share);
        for (int j = 0; j < LUDUS_THREAD_TOP && t->top_site[j] != UINT32_MAX; j++) {
            ludus__w_fmt(w, "%s{\"site\":%u,\"label\":", j ? "," : "", t->top_site[j]);
            ludus__w_jstr(w, ludus_analysis_site_label(a, t->top_site[j], label, sizeof label));
            ludus__w_fmt(w, ",\"excl_ns\":%lld,\"excl_per_frame_ns\":%.1f,\"calls\":%llu}",
                         (long long)t->top_excl_ns[j],
                         s->frames_in_window ? (double)t->top_excl_ns[j] / (double)s->frames_in_window : 0.0,
                         (unsigned long long)t->top_calls[j]);
        }
        ludus__w_str(w, "]}");
    }
    ludus__w_str(w, "]");
}
