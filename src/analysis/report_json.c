/* The JSON report: everything the text report says, in full, with the
 * definitions, the window, the loss counts and the error bound written next
 * to the numbers. For the HTML report it adds per-frame, per-path
 * exclusive time so a flame graph can be drawn for one frame, and bounds what
 * grows with frames (ludus__report_json's html). */
#include <stdio.h>
#include <stdlib.h>

#include "analysis_internal.h"

void ludus__json_stats(ludus__writer *w, const ludus_duration_stats *s) {
    ludus__w_fmt(w,
                 "{\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":%.1f,\"min_ns\":%lld,\"p50_ns\":%lld,"
                 "\"p90_ns\":%lld,\"p99_ns\":%lld,\"max_ns\":%lld}",
                 (unsigned long long)s->count, (long long)s->total_ns, s->mean_ns, (long long)s->min_ns,
                 (long long)s->p50_ns, (long long)s->p90_ns, (long long)s->p99_ns, (long long)s->max_ns);
}

static int cmp_i64_desc(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a > b ? -1 : a < b;
}

uint32_t ludus__html_hitches_cut(const ludus_analysis *a, int64_t *cut_ns, uint32_t *ties, int64_t *omitted_max_ns) {
    *cut_ns = INT64_MIN;
    *ties = 0;
    *omitted_max_ns = 0;
    if (a->nhitches <= LUDUS__HTML_HITCHES) return 0;
    int64_t *v = ludus__malloc(a->nhitches * sizeof *v);
    if (!v) return 0; /* out of memory: every hitch listed */
    for (uint32_t i = 0; i < a->nhitches; i++) v[i] = a->hitches[i].frame_ns;
    qsort(v, a->nhitches, sizeof *v, cmp_i64_desc);
    *cut_ns = v[LUDUS__HTML_HITCHES - 1];
    uint32_t above = 0;
    while (above < a->nhitches && v[above] > *cut_ns) above++;
    *ties = LUDUS__HTML_HITCHES - above; /* the earliest of those as long as the cut */
    *omitted_max_ns = v[LUDUS__HTML_HITCHES];
    ludus__free(v);
    return a->nhitches - LUDUS__HTML_HITCHES;
}

/* Frames [b, e)'s shortest and longest (ties: the earlier). */
static void bucket_extremes(const ludus_analysis *a, uint64_t b, uint64_t e, uint64_t *lo, uint64_t *hi) {
    int64_t dlo = INT64_MAX, dhi = INT64_MIN;
    for (uint64_t f = b; f < e; f++) {
        int64_t d = ludus__frame_end(a, f) - ludus__frame_begin(a, f);
        if (d < dlo) dlo = d, *lo = f;
        if (d > dhi) dhi = d, *hi = f;
    }
}

static void frame_entry(const ludus_analysis *a, ludus__writer *w, uint64_t f, int first, int with_index) {
    ludus_frame_info fi;
    ludus_analysis_frame(a, f, &fi);
    ludus__w_fmt(w, "%s[%lld,%lld,%lld,%d,%d,%lld", first ? "" : ",", (long long)fi.begin_ns,
                 (long long)(fi.end_ns - fi.begin_ns), (long long)fi.unlogged_ns, fi.in_window, fi.hitch,
                 (long long)fi.cpu_ns);
    if (with_index) ludus__w_fmt(w, ",%llu", (unsigned long long)f);
    ludus__w_ch(w, ']');
}

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

int ludus__report_json(const ludus_analysis *a, ludus__writer *w, int html) {
    const ludus_analysis_summary *s = &a->sum;
    ludus__w_str(
        w, "{\"ludus_report\":1,\n\"definitions\":{"
           "\"time\":\"elapsed wall-clock ns, not CPU time\","
           "\"inclusive\":\"entry to exit; per site over outermost activations only (recursion never double counts)\","
           "\"exclusive\":\"inclusive minus the union of child scopes on the same track (the thread or a span "
           "lane); activations that ran while their thread was losing events are left out (excl_unknown)\","
           "\"frame\":\"frame k = [mark k, mark k+1) on the frame thread, marks counted from 1; frame 0 (before the "
           "first mark) and the tail after the last mark are not frames\","
           "\"counters\":\"per-frame statistics over the window's complete frames that hold a value (values of "
           "frames_in_window); a frame's value is the snapshot its closing mark recorded; plots: the samples in the "
           "window; percentiles exact, nearest rank; total: an integer track's sum, held at the int64 limit it passes "
           "(saturated: true), never wrapped\","
           "\"attribution\":\"a scope belongs to the frame and window its begin falls in\","
           "\"unlogged\":\"frame thread time inside the frame not covered by its top-level scopes (-1: a frame outside "
           "a window other than all, whose per-frame figures are not kept)\","
           "\"hitch\":\"frame time > max(hitch_k x median frame time of the window, budget_ns); its items: the "
           "exclusive time that grew against its median frame, per scope and thread, the work first (the frame "
           "thread's, or what it waited on), then the scopes that only waited for it, then other threads' growth "
           "it did not wait for (beside)\","
           "\"cpu\":\"the frame thread's CPU time in a frame: its thread clock at the two marks; -1: not "
           "recorded\","
           "\"busy\":\"a thread's time in its top-level scopes within a frame, split at the marks\","
           "\"label\":\"a site's name, with (file:line) when another site has the same name\","
           "\"incomplete\":\"slices closed at capture end: counted, never used as durations\","
           "\"unwound\":\"slices cut short by a non-local exit (longjmp): counted, never used as durations\","
           "\"threads\":\"time summed over threads can exceed frame time\",");
    ludus__w_fmt(w,
                 "\"paths\":\"caller-context paths of at most %d sites: a scope begun deeper is counted on the path "
                 "of its first %d enclosing scopes and itself, the levels between folded away (flag folded, '/.../' "
                 "in the path; capture.folded counts them); a folded path's inclusive time counts its outermost "
                 "activations only\"},\n",
                 LUDUS_PATH_DEPTH, LUDUS_PATH_DEPTH - 2);
    ludus__w_fmt(w,
                 "\"capture\":{\"duration_ns\":%lld,\"clock\":\"%s\",\"threads\":%u,\"events\":%llu,"
                 "\"dropped\":%llu,\"incomplete\":%llu,\"unwound\":%llu,\"excl_unknown\":%llu,"
                 "\"orphan_ends\":%llu,\"filtered\":%llu,\"interner_drops\":%llu,\"clock_anomalies\":%llu,"
                 "\"folded\":%llu,\"pool_bytes_needed\":%llu",
                 (long long)s->duration_ns, s->clock_name, s->threads, (unsigned long long)s->events,
                 (unsigned long long)s->dropped, (unsigned long long)s->incomplete, (unsigned long long)s->unwound,
                 (unsigned long long)s->excl_unknown, (unsigned long long)s->orphan_ends,
                 (unsigned long long)s->filtered, (unsigned long long)s->interner_drops,
                 (unsigned long long)s->clock_anomalies, (unsigned long long)s->folded,
                 (unsigned long long)s->pool_bytes_needed);
    if (s->crash_signal) {
        ludus__w_str(w, ",\"crash\":{\"signal\":");
        ludus__w_json_str(w, s->crash_signal_name, strlen(s->crash_signal_name));
        ludus__w_fmt(w, ",\"signo\":%d,\"tid\":%llu}", s->crash_signal, (unsigned long long)s->crash_tid);
    }
    if (s->trigger_reason) { /* the rolling window's trigger this file was written for */
        ludus__w_str(w, ",\"trigger\":{\"reason\":");
        ludus__w_jstr(w, s->trigger_reason);
        ludus__w_str(w, ",\"detail\":");
        ludus__w_jstr(w, s->trigger_detail);
        ludus__w_fmt(w, ",\"at_ns\":%lld,\"frame\":%llu}", (long long)s->trigger_ns,
                     (unsigned long long)s->trigger_frame);
    }
    ludus__w_str(w, "},\n");
    ludus__w_str(w, "\"window\":{\"name\":");
    ludus__w_jstr(w, s->window);
    ludus__w_fmt(w, ",\"begin_ns\":%lld,\"end_ns\":%lld,\"first_frame\":%llu,\"frames\":%llu},\n",
                 (long long)s->window_begin_ns, (long long)s->window_end_ns, (unsigned long long)a->win_f0,
                 (unsigned long long)s->frames_in_window);
    ludus__w_fmt(w, "\"percentiles\":{\"method\":\"%s\",\"rank\":\"nearest\",\"rel_error\":%.6f,\"exact\":%s},\n",
                 s->exact ? "exact (every duration kept; memory grows with the events)" : "log-linear histogram",
                 s->percentile_rel_error, s->exact ? "true" : "false");
    ludus__w_str(w, "\"frames\":{\"thread\":");
    ludus__w_jstr(w, s->frame_thread);
    ludus__w_fmt(w, ",\"marks\":%llu,\"marks_elsewhere\":%llu,\"complete\":%llu,\"lossy\":%s,\"time\":",
                 (unsigned long long)s->frame_marks, (unsigned long long)s->frame_marks_elsewhere,
                 (unsigned long long)s->frames_complete, s->frame_thread_lossy ? "true" : "false");
    ludus__json_stats(w, &s->frame_time);
    ludus__w_fmt(w,
                 ",\"median_ns\":%lld,\"hitch_k\":%.3f,\"budget_ns\":%lld,\"hitch_threshold_ns\":%lld,"
                 "\"unlogged_total_ns\":%lld,\"hitches_detailed\":%u,\"cpu\":",
                 (long long)s->median_frame_ns, s->hitch_k, (long long)s->budget_ns, (long long)s->hitch_threshold_ns,
                 (long long)s->unlogged_total_ns, s->hitches_detailed);
    ludus__json_stats(w, &s->frame_cpu);
    /* [begin_ns, duration_ns, unlogged_ns, in_window, hitch, cpu_ns] per index from 0 (the lead-in,
     * "lead_in": not a frame) to the last complete frame */
    /* HTML beyond 2 x LUDUS__HTML_BUCKETS frames: per bucket of `step` frames its shortest and
     * longest (a spike survives), each with its index as a 7th value; "step" and "count" say so.
     * shown: those frames and the listed hitches' (the cells below are theirs only) */
    uint64_t step = html && a->nmarks > 2 * (uint64_t)LUDUS__HTML_BUCKETS
                        ? (a->nmarks + LUDUS__HTML_BUCKETS - 1) / LUDUS__HTML_BUCKETS
                        : 1;
    uint64_t *shown = NULL;
    size_t nshown = 0;
    int64_t cut_ns = INT64_MIN, omitted_max = 0;
    uint32_t ties = 0, omitted = html ? ludus__html_hitches_cut(a, &cut_ns, &ties, &omitted_max) : 0;
    if (step > 1) shown = ludus__malloc((2 * LUDUS__HTML_BUCKETS + LUDUS__HTML_HITCHES + 2) * sizeof *shown);
    ludus__w_str(w, ",\"lead_in\":0,\"series\":[");
    if (step == 1) {
        for (uint64_t f = 0; f < a->nmarks; f++) frame_entry(a, w, f, f == 0, 0);
    } else {
        for (uint64_t b = 0; b < a->nmarks; b += step) {
            uint64_t e = b + step < a->nmarks ? b + step : a->nmarks, lo = b, hi = b;
            bucket_extremes(a, b, e, &lo, &hi);
            uint64_t first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
            frame_entry(a, w, first, b == 0, 1);
            if (shown) shown[nshown++] = first;
            if (second != first) {
                frame_entry(a, w, second, 0, 1);
                if (shown) shown[nshown++] = second;
            }
        }
    }
    ludus__w_str(w, "]");
    if (step > 1)
        ludus__w_fmt(w, ",\"step\":%llu,\"count\":%llu", (unsigned long long)step, (unsigned long long)a->nmarks);
    ludus__w_str(w, "},\n\"hitches\":[");
    for (uint32_t i = 0, listed = 0, tie = ties; i < a->nhitches; i++) {
        const ludus_hitch *h = &a->hitches[i];
        if (omitted && !(h->frame_ns > cut_ns || (h->frame_ns == cut_ns && tie && tie--))) continue;
        if (shown && step > 1) shown[nshown++] = h->frame;
        ludus__w_str(w, listed++ ? "," : "");
        static const char *const kinds[] = {"unknown", "work", "waiting", "preempted", "limited"};
        ludus__w_fmt(w,
                     "{\"frame\":%llu,\"frame_ns\":%lld,\"ratio\":%.3f,\"extra_ns\":%lld,\"explained\":%.4f,"
                     "\"explained_over\":%s,\"kind\":\"%s\",\"kind_text\":\"%s\",\"cpu_ns\":%lld,"
                     "\"cpu_extra_ns\":%lld,\"detailed\":%s,\"grew\":[",
                     (unsigned long long)h->frame, (long long)h->frame_ns, h->ratio, (long long)h->extra_ns,
                     h->explained, h->explained_over ? "true" : "false",
                     kinds[h->kind >= 0 && h->kind <= 4 ? h->kind : 0], ludus__hitch_kind_text(h->kind),
                     (long long)h->cpu_ns, (long long)h->cpu_extra_ns, h->detailed ? "true" : "false");
        char item[400];
        for (int g = 0; g < LUDUS_HITCH_GREW && h->grew_site[g] != LUDUS_HITCH_NONE; g++) {
            uint32_t who = h->grew_site[g], t = h->grew_thread[g];
            ludus__w_fmt(w, "%s{\"site\":%lld,\"kind\":\"%s\",\"thread\":%lld,\"role\":\"%s\",\"caused\":%s,",
                         g ? "," : "", who < a->nsites ? (long long)who : -1LL,
                         who == LUDUS_HITCH_UNLOGGED  ? "unlogged"
                         : who == LUDUS_HITCH_CARRIED ? "crossing"
                                                      : "site",
                         t < a->nthreads ? (long long)t : -1LL, ludus__hitch_role_text(h->grew_role[g]),
                         h->grew_caused[g] ? "true" : "false");
            ludus__w_fmt(w, "\"waited_on\":%lld,\"thread_name\":",
                         h->grew_waited_on[g] < LUDUS_HITCH_GREW ? (long long)h->grew_waited_on[g] : -1LL);
            ludus__w_jstr(w, t < a->nthreads ? a->threads[t].pub.name : "");
            ludus__w_str(w, ",\"name\":");
            ludus__w_jstr(w, ludus__hitch_item(a, h, g, item, sizeof item));
            ludus__w_fmt(w, ",\"delta_excl_ns\":%lld}", (long long)h->grew_ns[g]);
        }
        ludus__w_str(w, "]}");
    }
    ludus__w_str(w, "]");
    if (omitted)
        ludus__w_fmt(w, ",\"hitches_omitted\":%u,\"hitches_omitted_max_ns\":%lld", omitted, (long long)omitted_max);
    ludus__w_str(w, ",\n\"sites\":[");
    for (uint32_t i = 0; i < a->nsites; i++) {
        const ludus_site_stats *x = &a->sites[i].pub;
        ludus__w_fmt(w, "%s\n{\"index\":%u,\"id\":%u,\"name\":", i ? "," : "", i, x->id);
        ludus__w_jstr(w, x->name);
        if (a->sites[i].name_shared) { /* another site has its name */
            char label[400];
            ludus__w_str(w, ",\"label\":");
            ludus__w_jstr(w, ludus_analysis_site_label(a, i, label, sizeof label));
        }
        ludus__w_str(w, ",\"category\":");
        ludus__w_jstr(w, x->category);
        ludus__w_str(w, ",\"file\":");
        ludus__w_jstr(w, x->file);
        ludus__w_fmt(w,
                     ",\"line\":%u,\"calls\":%llu,\"incomplete\":%llu,\"unwound\":%llu,\"recursive\":%llu,"
                     "\"calls_per_frame\":%.4f,\"median_frame_excl_ns\":%lld,\"threads\":%u,\"lossy\":%s,"
                     "\"excl_unknown\":%llu,\"excl_partial\":%s,\"inclusive\":",
                     x->line, (unsigned long long)x->calls, (unsigned long long)x->incomplete,
                     (unsigned long long)x->unwound, (unsigned long long)x->recursive, x->calls_per_frame,
                     (long long)x->median_frame_excl_ns, x->threads, (x->flags & LUDUS_STAT_LOSSY) ? "true" : "false",
                     (unsigned long long)x->excl_unknown, (x->flags & LUDUS_STAT_EXCL_PARTIAL) ? "true" : "false");
        ludus__json_stats(w, &x->inclusive);
        ludus__w_str(w, ",\"exclusive\":");
        ludus__json_stats(w, &x->exclusive);
        ludus_annotated_call call[LUDUS_SLOWEST_CALLS];
        uint32_t nc = ludus_analysis_site_slowest(a, i, call, LUDUS_SLOWEST_CALLS);
        if (x->annotated) ludus__w_fmt(w, ",\"annotated\":%llu", (unsigned long long)x->annotated);
        for (uint32_t k = 0; k < nc && k < LUDUS_SLOWEST_CALLS; k++) {
            ludus__w_fmt(w, "%s{\"begin_ns\":%lld,\"duration_ns\":%lld,\"frame\":%llu,\"thread\":",
                         k ? "," : ",\"slowest_annotated\":[", (long long)call[k].begin_ns,
                         (long long)call[k].duration_ns, (unsigned long long)call[k].frame);
            ludus__w_jstr(w, call[k].thread);
            ludus__w_str(w, ",\"annotations\":");
            ludus__w_jstr(w, call[k].annotations);
            ludus__w_str(w, k + 1 == nc || k + 1 == LUDUS_SLOWEST_CALLS ? "}]" : "}");
        }
        ludus__w_ch(w, '}');
    }
    ludus__w_fmt(w, "],\n\"paths_depth\":%d,\"paths\":[", LUDUS_PATH_DEPTH);
    char path[1024];
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const ludus_path_stats *x = &a->nodes[i].pub;
        ludus__path_text(a, i, path, sizeof path);
        ludus__w_fmt(w, "%s\n{\"index\":%u,\"parent\":%lld,\"site\":%u,\"depth\":%u,\"path\":", i ? "," : "", i,
                     x->parent == UINT32_MAX ? -1LL : (long long)x->parent, x->site, x->depth);
        ludus__w_jstr(w, path);
        ludus__w_fmt(w,
                     ",\"calls\":%llu,\"incomplete\":%llu,\"lossy\":%s,\"excl_unknown\":%llu,\"excl_partial\":%s,"
                     "\"folded\":%s,\"inclusive\":",
                     (unsigned long long)x->calls, (unsigned long long)x->incomplete,
                     (x->flags & LUDUS_STAT_LOSSY) ? "true" : "false", (unsigned long long)x->excl_unknown,
                     (x->flags & LUDUS_STAT_EXCL_PARTIAL) ? "true" : "false",
                     (x->flags & LUDUS_STAT_FOLDED) ? "true" : "false");
        ludus__json_stats(w, &x->inclusive);
        ludus__w_str(w, ",\"exclusive\":");
        ludus__json_stats(w, &x->exclusive);
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "],\n\"counters\":[");
    for (uint32_t i = 0; i < a->ncounters; i++) {
        const ludus__an_counter *k = &a->counters[i];
        const ludus_counter_stats *x = &k->pub;
        ludus__w_str(w, i ? ",\n{\"name\":" : "\n{\"name\":");
        ludus__w_jstr(w, x->name);
        ludus__w_fmt(w,
                     ",\"series\":\"%s\",\"kind\":\"%s\",\"unit\":\"%s\",\"site\":%u,\"per_frame\":%s,\"values\":%llu,"
                     "\"frames_in_window\":%llu,\"mean\":%.17g,\"min\":%.17g,\"p50\":%.17g,\"p99\":%.17g,\"max\":%.17g,"
                     "\"total\":%.17g,\"saturated\":%s",
                     x->series, x->kind, x->unit, x->site, x->per_frame ? "true" : "false",
                     (unsigned long long)x->values, (unsigned long long)x->frames_in_window, x->mean, x->min, x->p50,
                     x->p99, x->max, x->total, x->saturated ? "true" : "false");
        if (k->series) { /* [frame, value] of the window's frames */
            ludus__w_str(w, ",\"frames\":[");
            int first = 1;
            ludus__vrun_it it;
            ludus__vrun_begin(&k->v, &it);
            int more = ludus__vrun_next(&it);
            for (uint64_t at = 0; more;) {
                /* one frame, or one bucket of step frames (frame order): its lowest and highest value */
                ludus__counter_value lo = it.v, hi = it.v;
                uint64_t lo_at = at, hi_at = at, bucket = step > 1 ? it.v.frame / step : 0;
                while ((more = ludus__vrun_next(&it)) != 0 && (++at, step > 1) && it.v.frame / step == bucket) {
                    if (it.v.value < lo.value) lo = it.v, lo_at = at;
                    if (it.v.value > hi.value) hi = it.v, hi_at = at;
                }
                for (int q = 0; q < 2; q++) {
                    const ludus__counter_value *x = q ? (lo_at < hi_at ? &hi : &lo) : (lo_at < hi_at ? &lo : &hi);
                    if (q && lo_at == hi_at) break;
                    if (x->frame < a->win_f0 || x->frame >= a->win_f1) continue;
                    ludus__w_fmt(w, "%s[%llu,%.17g]", first ? "" : ",", (unsigned long long)x->frame, x->value);
                    first = 0;
                }
            }
            ludus__w_ch(w, ']');
        }
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "]");
    ludus__report_threads_json(a, w);
    ludus__report_locks_json(a, w);
    ludus__report_timeline_json(a, w);
    if (html) {
        /* [frame, path, calls, excl_ns(, annotations)] of the window frames (decimated: of the frames shown),
         * bounded so the page stays usable */
        if (shown) qsort(shown, nshown, sizeof *shown, cmp_u64);
        ludus__w_str(w, ",\n\"cells\":[");
        size_t n = 0;
        for (uint32_t node = 0; node < a->nnodes; node++) {
            ludus__crun_it it;
            for (ludus__crun_begin(&a->nodes[node].run, &it); n < 2000000 && ludus__crun_next(&it);) {
                const ludus__cell *c = &it.c;
                if (c->frame >= a->nmarks) continue;
                uint64_t fr = c->frame;
                if (step > 1 && (!shown || !bsearch(&fr, shown, nshown, sizeof *shown, cmp_u64))) continue;
                ludus__w_fmt(w, "%s[%u,%u,%llu,%lld", n++ ? "," : "", c->frame, node, (unsigned long long)c->calls,
                             (long long)c->excl);
                if (c->arg) { /* the annotations of the cell's slowest annotated call */
                    ludus__w_ch(w, ',');
                    ludus__w_jstr(w, ludus__cell_text(a, c->arg));
                }
                ludus__w_ch(w, ']');
            }
        }
        ludus__w_str(w, "]");
    }
    ludus__free(shown);
    ludus__w_str(w, "}\n");
    return 0;
}
