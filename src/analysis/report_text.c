/* Reports for terminals and machines: the text summary (states the
 * definitions that are easy to misread), CSV (one row per site and per path)
 * and the dispatcher over every format. Output helpers shared by the JSON,
 * HTML and diff writers live here too. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

void ludus__w_fmt(ludus__writer *w, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n >= sizeof tmp) n = sizeof tmp - 1;
    ludus__w_bytes(w, tmp, (size_t)n);
}

const char *ludus__dur(char *buf, size_t cap, double ns) {
    double a = ns < 0 ? -ns : ns;
    if (a < 1e3)
        snprintf(buf, cap, "%.0f ns", ns);
    else if (a < 1e6)
        snprintf(buf, cap, "%.2f us", ns / 1e3);
    else if (a < 1e9)
        snprintf(buf, cap, "%.2f ms", ns / 1e6);
    else
        snprintf(buf, cap, "%.3f s", ns / 1e9);
    return buf;
}

/* ---- text ---- */

/* Appends to a bounded string. */
__attribute__((format(printf, 3, 4))) static void append(char *buf, size_t cap, const char *fmt, ...) {
    size_t n = strlen(buf);
    if (n + 1 >= cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + n, cap - n, fmt, ap);
    va_end(ap);
}

/* Sort keys carry what they compare: no state outside the call (two
 * threads may report two analyses at once). */
typedef struct site_key {
    const ludus_site_stats *s;
    uint32_t index;
} site_key;

/* Hitches worst first (longest frame; ties in frame order). */
static int by_frame_ns(const void *x, const void *y) {
    const ludus_hitch *a = *(const ludus_hitch *const *)x, *b = *(const ludus_hitch *const *)y;
    if (a->frame_ns != b->frame_ns) return a->frame_ns > b->frame_ns ? -1 : 1;
    return a->frame < b->frame ? -1 : a->frame > b->frame;
}

static int by_excl_total(const void *x, const void *y) {
    const ludus_site_stats *a = ((const site_key *)x)->s, *b = ((const site_key *)y)->s;
    if (a->exclusive.total_ns != b->exclusive.total_ns) return a->exclusive.total_ns > b->exclusive.total_ns ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* A counter value: bytes in binary units, counts as integers when whole. */
static const char *cval(char *b, size_t cap, double v, const char *unit) {
    double m = fabs(v);
    if (unit[0] && m >= 1024) {
        const char *u = m >= 1073741824.0 ? "GiB" : m >= 1048576.0 ? "MiB" : "KiB";
        double d = m >= 1073741824.0 ? 1073741824.0 : m >= 1048576.0 ? 1048576.0 : 1024.0;
        snprintf(b, cap, "%.2f %s", v / d, u);
    } else if (v == floor(v) && m < 1e15) {
        snprintf(b, cap, "%.0f%s", v, unit[0] ? " B" : "");
    } else {
        snprintf(b, cap, "%.2f%s", v, unit[0] ? " B" : "");
    }
    return b;
}

/* A site's name in a column `width` wide; when another site has its name,
 * cut shorter and followed by " (file:line)" so the two rows differ. */
static const char *site_cell(const ludus_analysis *a, uint32_t site, char *out, size_t cap, size_t width) {
    const ludus__an_site *si = &a->sites[site];
    if (!si->name_shared) return ludus__text_name(out, cap, si->pub.name, width);
    char label[300], loc[200];
    ludus_analysis_site_label(a, site, label, sizeof label);
    const char *paren = label + strlen(si->pub.name); /* " (file:line)" */
    ludus__text_name(loc, sizeof loc, paren, 0);
    size_t ln = strlen(loc), keep = width > ln + 4 ? width - ln : 4;
    ludus__text_name(out, cap, si->pub.name, keep);
    size_t n = strlen(out);
    snprintf(out + n, cap > n ? cap - n : 0, "%s", loc);
    return out;
}

/* Counters: per-frame statistics (counters, gauges, memory domains), then
 * timeline samples (plots). */
static void counters_text(const ludus_analysis *a, ludus__writer *w) {
    const ludus_analysis_summary *s = &a->sum;
    char b[6][32];
    for (int pass = 0; pass < 2; pass++) {
        int head = 0;
        for (uint32_t i = 0; i < a->ncounters; i++) {
            const ludus_counter_stats *x = &a->counters[i].pub;
            if ((a->counters[i].series == 0) != pass) continue;
            if (!head++) {
                if (pass == 0)
                    ludus__w_fmt(w,
                                 "\nCounters per frame (over the window's %llu complete frames; \"frames\" = those "
                                 "holding a value; percentiles exact)\n%-24s %-18s %9s %12s %12s %12s %12s %12s\n",
                                 (unsigned long long)s->frames_in_window, "counter", "per frame", "frames", "mean",
                                 "min", "p50", "p99", "max");
                else
                    ludus__w_fmt(w,
                                 "\nPlotted samples (in the window, any thread)\n%-24s %-18s %9s %12s %12s %12s "
                                 "%12s %12s\n",
                                 "counter", "", "samples", "mean", "min", "p50", "p99", "max");
            }
            char name[64], frames[32];
            if (pass == 0)
                snprintf(frames, sizeof frames, "%llu/%llu", (unsigned long long)x->values,
                         (unsigned long long)x->frames_in_window);
            else
                snprintf(frames, sizeof frames, "%llu", (unsigned long long)x->values);
            ludus__w_fmt(
                w, "%-24s %-18s %9s %12s %12s %12s %12s %12s\n", ludus__text_name(name, sizeof name, x->name, 24),
                pass == 0 ? x->series : "", frames, cval(b[0], 32, x->mean, x->unit), cval(b[1], 32, x->min, x->unit),
                cval(b[2], 32, x->p50, x->unit), cval(b[3], 32, x->p99, x->unit), cval(b[4], 32, x->max, x->unit));
        }
    }
    for (uint32_t i = 0; i < a->ncounters; i++) {
        const ludus_counter_stats *x = &a->counters[i].pub;
        char name[64];
        if (x->saturated)
            ludus__w_fmt(w, "  %s %s: the window's sum is saturated at %s (it passes the int64 range)\n",
                         ludus__text_name(name, sizeof name, x->name, 0), x->series,
                         x->total > 0 ? "INT64_MAX" : "INT64_MIN");
    }
    if (s->counter_values_elsewhere)
        ludus__w_fmt(w, "  %llu frame snapshots were recorded off the frame thread and left out\n",
                     (unsigned long long)s->counter_values_elsewhere);
}

/* The annotated sites among the top ones (by exclusive time), each with its
 * slowest annotated calls: what the annotations say about the heavy calls. */
static void annotated_text(const ludus_analysis *a, const site_key *order, uint32_t n, uint32_t top, ludus__writer *w) {
    uint32_t shown = 0;
    char b1[32], b2[32], name[64], thread[80], ann[256];
    for (uint32_t k = 0; k < n && shown < top; k++) {
        const ludus_site_stats *x = order[k].s;
        ludus_annotated_call call[LUDUS_SLOWEST_CALLS];
        uint32_t nc = ludus_analysis_site_slowest(a, order[k].index, call, LUDUS_SLOWEST_CALLS);
        if (!nc) continue;
        if (shown++ == 0)
            ludus__w_str(w, "\nAnnotated sites: the slowest annotated calls (inclusive) with their annotations\n");
        ludus__w_fmt(w, "%-28s %llu of %llu calls annotated\n", site_cell(a, order[k].index, name, sizeof name, 28),
                     (unsigned long long)x->annotated, (unsigned long long)x->calls);
        for (uint32_t i = 0; i < nc && i < LUDUS_SLOWEST_CALLS; i++)
            ludus__w_fmt(w, "  %10s  frame %-6llu at %10s  [%s]  %s\n", ludus__dur(b1, 32, (double)call[i].duration_ns),
                         (unsigned long long)call[i].frame, ludus__dur(b2, 32, (double)call[i].begin_ns),
                         ludus__text_name(thread, sizeof thread, call[i].thread, 64),
                         ludus__text_name(ann, sizeof ann, call[i].annotations, 200));
    }
}

static int text_report(const ludus_analysis *a, const ludus_report_options *o, ludus__writer *w) {
    const ludus_analysis_summary *s = &a->sum;
    char b1[32], b2[32], b3[32], b4[32], b5[32], b6[32], b7[32], b8[32];
    char name[256];
    ludus__w_fmt(w, "Ludus report: %s\n", ludus__text_name(name, sizeof name, o->title, 0));
    ludus__w_fmt(w, "Capture: %s, clock %s, %u threads, %llu events\n", ludus__dur(b1, 32, (double)s->duration_ns),
                 s->clock_name, s->threads, (unsigned long long)s->events);
    if (s->recovered)
        ludus__w_str(w, "Recovered from a pool file its process left behind: slices open then are incomplete\n");
    if (s->crash_signal)
        ludus__w_fmt(w, "Ended by a crash: %s (signal %d) in thread %llu; slices open then are incomplete\n",
                     ludus__text_name(name, sizeof name, s->crash_signal_name, 0), s->crash_signal,
                     (unsigned long long)s->crash_tid);
    if (s->trigger_reason) {
        char detail[512];
        ludus__w_fmt(w, "Written by the rolling window for a trigger: %s at %s",
                     ludus__text_name(name, sizeof name, s->trigger_reason, 40),
                     ludus__dur(b1, 32, (double)s->trigger_ns));
        if (s->trigger_detail[0])
            ludus__w_fmt(w, ": %s", ludus__text_name(detail, sizeof detail, s->trigger_detail, 320));
        if (s->trigger_frame) ludus__w_fmt(w, " (frame %llu ends there)", (unsigned long long)s->trigger_frame);
        ludus__w_str(w, "\n");
    }
    ludus__w_fmt(w,
                 "Loss: %llu dropped events, %llu incomplete slices, %llu unwound slices, %llu orphan ends, "
                 "%llu filtered events",
                 (unsigned long long)s->dropped, (unsigned long long)s->incomplete, (unsigned long long)s->unwound,
                 (unsigned long long)s->orphan_ends, (unsigned long long)s->filtered);
    if (s->interner_drops) ludus__w_fmt(w, ", %u run-time names refused", (unsigned)s->interner_drops);
    if (s->clock_anomalies) ludus__w_fmt(w, ", %llu ends before their begin", (unsigned long long)s->clock_anomalies);
    ludus__w_str(w, "\n");
    if (s->incomplete)
        ludus__w_str(w, "  incomplete slices were closed at capture end: counted, never used as durations\n");
    if (s->unwound)
        ludus__w_str(w, "  unwound slices were skipped by a non-local exit (longjmp) and closed where that was found: "
                        "counted, never used as durations\n");
    if (s->dropped) {
        ludus__w_str(w, "  WARNING: events were dropped; sites marked '!' ran on a thread that lost events: their "
                        "counts are lower bounds\n");
        if (s->pool_bytes_needed) {
            char advice[320];
            ludus_pool_advice(s->pool_bytes_needed, advice, sizeof advice);
            ludus__w_fmt(w, "  %s\n", advice);
        }
    }
    if (s->folded)
        ludus__w_fmt(w,
                     "  %llu scopes began deeper than %d levels: each is counted on the path of its first %d "
                     "enclosing scopes and itself (folded, '/.../' in the path)\n",
                     (unsigned long long)s->folded, LUDUS_PATH_DEPTH, LUDUS_PATH_DEPTH - 2);
    if (s->excl_unknown)
        ludus__w_fmt(w,
                     "  %llu calls ran while their thread was losing events: their children may be missing, so "
                     "their exclusive time\n  is left out of the exclusive columns (flag excl?:N), never charged to "
                     "them; inclusive times stand\n",
                     (unsigned long long)s->excl_unknown);
    ludus__w_fmt(w, "Window: %s [%s .. %s]", ludus__text_name(name, sizeof name, s->window, 0),
                 ludus__dur(b1, 32, (double)s->window_begin_ns), ludus__dur(b2, 32, (double)s->window_end_ns));
    if (s->frame_marks)
        ludus__w_fmt(w, ", %llu complete frames in the window (of %llu) on thread \"%s\"\n",
                     (unsigned long long)s->frames_in_window, (unsigned long long)s->frames_complete,
                     ludus__text_name(name, sizeof name, s->frame_thread, 0));
    else
        ludus__w_str(w, ", no frame marks\n");
    if (s->exact)
        ludus__w_str(w, "Percentiles: exact (--exact: every duration kept, memory grows with the events)\n");
    else
        ludus__w_fmt(w,
                     "Percentiles: nearest rank from a log-linear histogram, relative error <= %.2f%% "
                     "(count, total, min, max exact)\n",
                     s->percentile_rel_error * 100);
    ludus__w_str(w,
                 "Times are elapsed wall-clock time, not CPU time (waits and preemption count). "
                 "Inclusive = entry to exit;\nexclusive = inclusive minus the union of child scopes on the same track "
                 "(thread or span lane). "
                 "Time summed over threads can exceed frame time.\n");

    if (s->frames_in_window) {
        const ludus_duration_stats *f = &s->frame_time;
        ludus__w_fmt(w, "\nFrame time (%llu frames, exact): p50 %s  p90 %s  p99 %s  max %s  mean %s\n",
                     (unsigned long long)f->count, ludus__dur(b1, 32, (double)f->p50_ns),
                     ludus__dur(b2, 32, (double)f->p90_ns), ludus__dur(b3, 32, (double)f->p99_ns),
                     ludus__dur(b4, 32, (double)f->max_ns), ludus__dur(b5, 32, f->mean_ns));
        if (s->frame_cpu.count) {
            const ludus_duration_stats *c = &s->frame_cpu;
            ludus__w_fmt(w,
                         "Frame thread CPU time (%llu frames; its thread clock at each mark): p50 %s  p90 %s  max %s  "
                         "(%.0f%% of its wall time; the rest it waited or was preempted)\n",
                         (unsigned long long)c->count, ludus__dur(b1, 32, (double)c->p50_ns),
                         ludus__dur(b2, 32, (double)c->p90_ns), ludus__dur(b3, 32, (double)c->max_ns),
                         f->total_ns ? 100.0 * (double)c->total_ns / (double)f->total_ns : 0.0);
        }
        ludus__w_fmt(
            w, "Unlogged remainder (frame thread time outside its top-level scopes): mean %s per frame (%.1f%%)\n",
            ludus__dur(b1, 32, (double)s->unlogged_total_ns / (double)f->count),
            f->total_ns ? 100.0 * (double)s->unlogged_total_ns / (double)f->total_ns : 0.0);
        if (s->budget_ns)
            ludus__w_fmt(w, "Hitches (frame > max(%.2f x median %s, budget %s) = %s): %u, worst first.\n", s->hitch_k,
                         ludus__dur(b1, 32, (double)s->median_frame_ns), ludus__dur(b3, 32, (double)s->budget_ns),
                         ludus__dur(b2, 32, (double)s->hitch_threshold_ns), s->hitches);
        else
            ludus__w_fmt(w, "Hitches (frame > %.2f x median %s = %s): %u, worst first.\n", s->hitch_k,
                         ludus__dur(b1, 32, (double)s->median_frame_ns),
                         ludus__dur(b2, 32, (double)s->hitch_threshold_ns), s->hitches);
        if (s->hitches)
            ludus__w_str(w,
                         "  grew: exclusive time of SCOPE on THREAD against its median frame (the unlogged remainder "
                         "and scopes crossing\n  the frame's opening mark too); the work first (the frame thread's, "
                         "or what it waited on), then the scopes\n  that only waited for it, then other threads' "
                         "growth the frame thread did not wait for (beside)\n");
        if (s->hitches > s->hitches_detailed)
            ludus__w_fmt(w, "  waits looked for in the %u worst hitches; the others name what grew only\n",
                         s->hitches_detailed);
        const ludus_hitch **worst = ludus__malloc((a->nhitches ? a->nhitches : 1) * sizeof *worst);
        if (!worst) return LUDUS_ENOMEM; /* a report without its worst hitch is no report */
        for (uint32_t i = 0; i < a->nhitches; i++) worst[i] = &a->hitches[i];
        qsort(worst, a->nhitches, sizeof *worst, by_frame_ns);
        uint32_t listed = a->nhitches < o->top ? a->nhitches : o->top;
        for (uint32_t i = 0; i < listed; i++) {
            const ludus_hitch *h = worst[i];
            ludus__w_fmt(w, "  frame %6llu  %10s  %5.2fx  %s", (unsigned long long)h->frame,
                         ludus__dur(b1, 32, (double)h->frame_ns), h->ratio, ludus__hitch_kind_text(h->kind));
            if (h->cpu_ns >= 0)
                ludus__w_fmt(w, " (frame thread CPU %s, %s%s)", ludus__dur(b2, 32, (double)h->cpu_ns),
                             h->cpu_extra_ns >= 0 ? "+" : "", ludus__dur(b3, 32, (double)h->cpu_extra_ns));
            ludus__w_str(w, "  grew:");
            char item[400];
            for (int g = 0; g < LUDUS_HITCH_GREW && h->grew_site[g] != LUDUS_HITCH_NONE; g++) {
                ludus__w_fmt(w, "%s %s +%s", g ? "," : "",
                             ludus__text_name(name, sizeof name, ludus__hitch_item(a, h, g, item, sizeof item), 120),
                             ludus__dur(b2, 32, (double)h->grew_ns[g]));
                uint32_t on = h->grew_waited_on[g];
                if (h->grew_role[g] == LUDUS_HITCH_WAITING && on < LUDUS_HITCH_GREW && h->grew_thread[on] < a->nthreads)
                    ludus__w_fmt(w, " (waiting on %s)",
                                 ludus__text_name(name, sizeof name, a->threads[h->grew_thread[on]].pub.name, 60));
                else if (h->grew_role[g] == LUDUS_HITCH_WAITING)
                    ludus__w_str(w, " (waiting)");
                else if (h->grew_role[g] == LUDUS_HITCH_BESIDE)
                    ludus__w_str(w, " (beside)");
            }
            if (h->grew_site[0] == LUDUS_HITCH_NONE) ludus__w_str(w, " nothing above its median");
            if (h->explained_over)
                ludus__w_fmt(w,
                             "  (the items add up to %.0f%% of the extra %s: each against its own median, and other "
                             "scopes ran below theirs)\n",
                             100 * h->explained, ludus__dur(b2, 32, (double)h->extra_ns));
            else
                ludus__w_fmt(w, "  (explains %.0f%% of the extra %s)\n", 100 * h->explained,
                             ludus__dur(b2, 32, (double)h->extra_ns));
        }
        if (a->nhitches > listed) {
            int64_t more = 0;
            for (uint32_t i = listed; i < a->nhitches; i++) more += worst[i]->frame_ns;
            ludus__w_fmt(w, "  ... %u more hitches, %s to %s each, %s in all (--top N lists more, --json all)\n",
                         a->nhitches - listed, ludus__dur(b1, 32, (double)worst[a->nhitches - 1]->frame_ns),
                         ludus__dur(b2, 32, (double)worst[listed]->frame_ns), ludus__dur(b3, 32, (double)more));
        }
        ludus__free(worst);
        int rc = ludus__report_threads_text(a, w, o->top);
        if (rc) return rc;
    } else {
        ludus__w_str(w, "\nNo complete frame in the window: per-site statistics only.\n");
    }

    counters_text(a, w);
    ludus__report_locks_text(a, w);
    ludus__report_timeline_text(a, w);

    site_key *order = ludus__malloc((a->nsites ? a->nsites : 1) * sizeof *order);
    if (!order) return LUDUS_ENOMEM; /* a report without its sites is no report */
    /* Scope sites only: markers, frame marks, flows and counters have no
     * calls and no durations. */
    uint32_t nscoped = 0;
    for (uint32_t i = 0; i < a->nsites; i++)
        if (a->sites[i].pub.calls || a->sites[i].pub.incomplete || a->sites[i].pub.unwound)
            order[nscoped++] = (site_key){&a->sites[i].pub, i};
    qsort(order, nscoped, sizeof *order, by_excl_total);
    uint32_t top = o->top < nscoped ? o->top : nscoped;
    ludus__w_fmt(w, "\nTop %u of %u scope sites by exclusive time (excl: per call; incl: outermost calls only)\n", top,
                 nscoped);
    ludus__w_fmt(w, "%-28s %9s %9s %10s %10s %10s %10s %10s %10s %10s %10s  %s\n", "site", "calls", "calls/fr",
                 "excl total", "excl mean", "excl p50", "excl p90", "excl p99", "excl max", "incl p50", "incl p99",
                 "flags");
    for (uint32_t k = 0; k < top; k++) {
        const ludus_site_stats *x = order[k].s;
        char cpf[32], flags[128];
        if (s->frames_in_window)
            snprintf(cpf, sizeof cpf, "%.2f", x->calls_per_frame);
        else
            snprintf(cpf, sizeof cpf, "-");
        flags[0] = 0;
        if (x->flags & LUDUS_STAT_LOSSY) append(flags, sizeof flags, "! ");
        if (x->incomplete) append(flags, sizeof flags, "incomplete:%llu ", (unsigned long long)x->incomplete);
        if (x->unwound) append(flags, sizeof flags, "unwound:%llu ", (unsigned long long)x->unwound);
        if (x->excl_unknown) append(flags, sizeof flags, "excl?:%llu ", (unsigned long long)x->excl_unknown);
        if (x->recursive) append(flags, sizeof flags, "recursive:%llu", (unsigned long long)x->recursive);
        ludus__w_fmt(w, "%-28s %9llu %9s %10s %10s %10s %10s %10s %10s %10s %10s  %s\n",
                     site_cell(a, order[k].index, name, sizeof name, 28), (unsigned long long)x->calls, cpf,
                     ludus__dur(b1, 32, (double)x->exclusive.total_ns), ludus__dur(b2, 32, x->exclusive.mean_ns),
                     ludus__dur(b3, 32, (double)x->exclusive.p50_ns), ludus__dur(b4, 32, (double)x->exclusive.p90_ns),
                     ludus__dur(b5, 32, (double)x->exclusive.p99_ns), ludus__dur(b6, 32, (double)x->exclusive.max_ns),
                     ludus__dur(b7, 32, (double)x->inclusive.p50_ns), ludus__dur(b8, 32, (double)x->inclusive.p99_ns),
                     flags);
    }
    annotated_text(a, order, nscoped, top, w);
    ludus__free(order);
    return 0;
}

/* ---- CSV ---- */

static void csv_stats(ludus__writer *w, const ludus_duration_stats *s) {
    ludus__w_fmt(w, ",%lld,%.1f,%lld,%lld,%lld,%lld,%lld", (long long)s->total_ns, s->mean_ns, (long long)s->p50_ns,
                 (long long)s->p90_ns, (long long)s->p99_ns, (long long)s->min_ns, (long long)s->max_ns);
}

static void csv_report(const ludus_analysis *a, ludus__writer *w) {
    ludus__w_str(w, "kind,name,path,category,file,line,calls,incomplete,recursive,calls_per_frame,"
                    "excl_total_ns,excl_mean_ns,excl_p50_ns,excl_p90_ns,excl_p99_ns,excl_min_ns,excl_max_ns,"
                    "incl_total_ns,incl_mean_ns,incl_p50_ns,incl_p90_ns,incl_p99_ns,incl_min_ns,incl_max_ns,"
                    "lossy,window,percentiles,unwound,excl_unknown,excl_partial\n");
    const char *pct = a->sum.exact ? "exact" : "histogram<=0.78%";
    for (uint32_t i = 0; i < a->nsites; i++) {
        const ludus_site_stats *x = &a->sites[i].pub;
        ludus__w_str(w, "site,");
        ludus__w_csv(w, x->name);
        ludus__w_str(w, ",,");
        ludus__w_csv(w, x->category);
        ludus__w_ch(w, ',');
        ludus__w_csv(w, x->file);
        ludus__w_fmt(w, ",%u,%llu,%llu,%llu,%.4f", x->line, (unsigned long long)x->calls,
                     (unsigned long long)x->incomplete, (unsigned long long)x->recursive, x->calls_per_frame);
        csv_stats(w, &x->exclusive);
        csv_stats(w, &x->inclusive);
        ludus__w_fmt(w, ",%d,", (x->flags & LUDUS_STAT_LOSSY) != 0);
        ludus__w_csv(w, a->sum.window);
        ludus__w_fmt(w, ",%s,%llu,%llu,%d\n", pct, (unsigned long long)x->unwound, (unsigned long long)x->excl_unknown,
                     (x->flags & LUDUS_STAT_EXCL_PARTIAL) != 0);
    }
    char path[1024];
    for (uint32_t i = 0; i < a->nnodes; i++) {
        const ludus_path_stats *x = &a->nodes[i].pub;
        const ludus_site_stats *site = &a->sites[x->site].pub;
        ludus__path_text(a, i, path, sizeof path);
        ludus__w_str(w, "path,");
        ludus__w_csv(w, site->name);
        ludus__w_ch(w, ',');
        ludus__w_csv(w, path);
        ludus__w_ch(w, ',');
        ludus__w_csv(w, site->category);
        ludus__w_ch(w, ',');
        ludus__w_csv(w, site->file);
        ludus__w_fmt(w, ",%u,%llu,%llu,0,", site->line, (unsigned long long)x->calls,
                     (unsigned long long)x->incomplete);
        csv_stats(w, &x->exclusive);
        csv_stats(w, &x->inclusive);
        /* a path's incomplete counts its unwound activations too: no unwound column of its own */
        ludus__w_fmt(w, ",%d,", (x->flags & LUDUS_STAT_LOSSY) != 0);
        ludus__w_csv(w, a->sum.window);
        ludus__w_fmt(w, ",%s,,%llu,%d\n", pct, (unsigned long long)x->excl_unknown,
                     (x->flags & LUDUS_STAT_EXCL_PARTIAL) != 0);
    }
}

int ludus_analysis_report(const ludus_analysis *a, const ludus_diff *diff, int format, const ludus_report_options *opt,
                          ludus_write_fn write, void *user_data) {
    if (!a || !write) return ludus__fail(LUDUS_EINVAL, "analysis or write callback is NULL");
    ludus_report_options o = {0, NULL, NULL};
    if (opt) o = *opt;
    if (!o.top) o.top = 20;
    if (!o.title) o.title = "capture";
    ludus__writer *w = ludus__malloc(sizeof *w);
    if (!w) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__w_init(w, write, user_data);
    int rc = 0;
    switch (format) {
    case LUDUS_REPORT_TEXT:
        rc = text_report(a, &o, w);
        break;
    case LUDUS_REPORT_JSON:
        rc = ludus__report_json(a, w, 0);
        break;
    case LUDUS_REPORT_CSV:
        csv_report(a, w);
        break;
    case LUDUS_REPORT_HTML:
        rc = ludus__report_html(a, diff, w, &o);
        break;
    default:
        rc = LUDUS_EINVAL;
    }
    ludus__w_flush(w);
    int failed = w->failed;
    ludus__free(w);
    if (rc) return ludus__fail(rc, "report failed");
    if (failed) return ludus__fail(LUDUS_EIO, "the report could not be written");
    return 0;
}
