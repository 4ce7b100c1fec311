/* GPU statistics of a capture (<ludus/analysis.h>, docs/gpu.md): per
 * track the frames' GPU time, per pass its device durations, exact
 * percentiles; the text and JSON report, alone or against a base capture
 * (ludus-trace report and diff print it beside the CPU's). Device time
 * only: no clock mapping is involved, so calibration does not matter here. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

typedef struct frame_series {
    uint64_t *frame;
    int64_t *ns;
    uint64_t n;
} frame_series;

struct ludus_gpu_stats {
    ludus_gpu_track_stats *tracks;
    frame_series *series; /* per track, in frame order */
    uint32_t ntracks;
    ludus_gpu_pass_stats *passes;
    uint32_t npasses;
    char **names; /* owned copies: tracks', then passes' */
    uint32_t nnames, names_cap;
};

static const char *const cov_names[] = {
#define COV_NAME(name, text, meaning) text,
    LUDUS_GPU_COVERAGE(COV_NAME)
#undef COV_NAME
};

/* Nearest rank of the sorted v[0, n). */
static int64_t rank(const int64_t *v, uint64_t n, double q) {
    uint64_t k = (uint64_t)(q * (double)n + 0.999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1];
}

static void durations(int64_t *v, uint64_t n, ludus_gpu_duration_stats *out) {
    memset(out, 0, sizeof *out);
    if (!n) return;
    ludus__sort_i64(v, n);
    out->count = n;
    double mean = 0;
    int over = 0;
    for (uint64_t i = 0; i < n; i++) { /* a file's durations may add past 2^63: the total saturates */
        int64_t t;
        if (!over && __builtin_add_overflow(out->total_ns, v[i], &t)) over = 1;
        out->total_ns = over ? (v[i] > 0 ? INT64_MAX : out->total_ns) : t;
        mean += ((double)v[i] - mean) / (double)(i + 1);
    }
    /* then a running mean, which may round to 2^63 or below -2^63: held inside the type */
    if (over)
        out->mean_ns = mean >= 0x1p63 ? INT64_MAX : mean < -0x1p63 ? INT64_MIN : (int64_t)mean;
    else
        out->mean_ns = out->total_ns / (int64_t)n;
    out->min_ns = v[0];
    out->max_ns = v[n - 1];
    out->p50_ns = rank(v, n, 0.50);
    out->p95_ns = rank(v, n, 0.95);
}

static char *keep(ludus_gpu_stats *s, const char *text) {
    if (s->nnames == s->names_cap) {
        uint32_t cap = s->names_cap ? s->names_cap * 2 : 16;
        char **n = ludus__realloc(s->names, cap * sizeof *n);
        if (!n) return NULL;
        s->names = n;
        s->names_cap = cap;
    }
    char *t = ludus__strdup(text);
    if (t) s->names[s->nnames++] = t;
    return t;
}

void ludus_gpu_stats_destroy(ludus_gpu_stats *s) {
    if (!s) return;
    for (uint32_t i = 0; i < s->nnames; i++) ludus__free(s->names[i]);
    ludus__free(s->names);
    for (uint32_t i = 0; s->series && i < s->ntracks; i++) {
        ludus__free(s->series[i].frame);
        ludus__free(s->series[i].ns);
    }
    ludus__free(s->series);
    ludus__free(s->tracks);
    ludus__free(s->passes);
    ludus__free(s);
}

static int cmp_frame(const void *a, const void *b) {
    const ludus__gpu_sample *x = *(const ludus__gpu_sample *const *)a, *y = *(const ludus__gpu_sample *const *)b;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int cmp_name(const void *a, const void *b) {
    const ludus__gpu_sample *x = *(const ludus__gpu_sample *const *)a, *y = *(const ludus__gpu_sample *const *)b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x < y ? -1 : x > y; /* stable: the samples' order */
}

static int cmp_pass(const void *a, const void *b) {
    const ludus_gpu_pass_stats *x = a, *y = b;
    if (x->track != y->track) return x->track < y->track ? -1 : 1;
    if (x->duration.total_ns != y->duration.total_ns) return x->duration.total_ns > y->duration.total_ns ? -1 : 1;
    return strcmp(x->pass, y->pass);
}

int ludus_gpu_stats_create(ludus_capture *c, ludus_gpu_stats **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g || !g->ns) return ludus__fail(LUDUS_ENODATA, "the capture has no GPU sample");
    ludus_gpu_stats *s = ludus__calloc(1, sizeof *s);
    const ludus__gpu_sample **by = ludus__malloc(g->ns * sizeof *by);
    int64_t *v = ludus__malloc(g->ns * sizeof *v);
    uint32_t passes_cap = 0;
    if (!s || !by || !v) goto oom;
    s->tracks = ludus__calloc(g->nctx, sizeof *s->tracks);
    s->series = ludus__calloc(g->nctx, sizeof *s->series);
    if (!s->tracks || !s->series) goto oom;
    for (uint32_t k = 0; k < g->nctx; k++) {
        ludus_gpu_track_stats *t = &s->tracks[s->ntracks++];
        if (!(t->track = keep(s, g->ctx[k].name))) goto oom;
        t->calibrated = g->ctx[k].calibrated;
        memcpy(t->coverage, g->ctx[k].cov, sizeof t->coverage);
        /* the track's samples in frame order: a frame's time is its frame
         * sample, else its passes' envelope */
        uint64_t n = 0, nv = 0;
        for (uint64_t i = 0; i < g->ns; i++)
            if (g->s[i].ctx == k && ludus__gpu_shown(c, &g->s[i])) by[n++] = &g->s[i];
        qsort(by, n, sizeof *by, cmp_frame);
        frame_series *fs = &s->series[k];
        fs->frame = ludus__malloc((n ? n : 1) * sizeof *fs->frame);
        fs->ns = ludus__malloc((n ? n : 1) * sizeof *fs->ns);
        if (!fs->frame || !fs->ns) goto oom;
        for (uint64_t i = 0; i < n;) {
            uint64_t j = i;
            int64_t frame_ns = -1, b = INT64_MAX, e = INT64_MIN;
            for (; j < n && by[j]->frame == by[i]->frame; j++) {
                if (by[j]->name == UINT32_MAX) frame_ns = by[j]->device_ns;
                if (by[j]->begin_ns < b) b = by[j]->begin_ns;
                if (by[j]->end_ns > e) e = by[j]->end_ns;
            }
            if (frame_ns < 0) {
                frame_ns = e - b;
                t->envelope_frames++;
            }
            fs->frame[fs->n] = by[i]->frame;
            fs->ns[fs->n++] = frame_ns;
            v[nv++] = frame_ns;
            i = j;
        }
        t->frames = nv;
        durations(v, nv, &t->frame_time);
        /* passes of the track: one entry per name (its samples sorted by
         * name: no pass over every name for every track) */
        uint64_t m = 0;
        for (uint64_t i = 0; i < n; i++)
            if (by[i]->name != UINT32_MAX) by[m++] = by[i];
        qsort(by, m, sizeof *by, cmp_name);
        for (uint64_t i = 0; i < m;) {
            uint64_t j = i, nv2 = 0;
            for (; j < m && by[j]->name == by[i]->name; j++) v[nv2++] = by[j]->device_ns;
            if (s->npasses == passes_cap) {
                uint32_t cap = passes_cap ? passes_cap * 2 : 16;
                ludus_gpu_pass_stats *p = ludus__realloc(s->passes, cap * sizeof *p);
                if (!p) goto oom;
                s->passes = p;
                passes_cap = cap;
            }
            ludus_gpu_pass_stats *p = &s->passes[s->npasses++];
            memset(p, 0, sizeof *p);
            p->track = k;
            if (!(p->pass = keep(s, g->names[by[i]->name]))) goto oom;
            p->calls_per_frame = nv ? (double)nv2 / (double)nv : 0;
            durations(v, nv2, &p->duration);
            i = j;
        }
    }
    if (s->npasses) qsort(s->passes, s->npasses, sizeof *s->passes, cmp_pass);
    ludus__free(by);
    ludus__free(v);
    *out = s;
    return 0;
oom:
    ludus__free(by);
    ludus__free(v);
    ludus_gpu_stats_destroy(s);
    return ludus__fail(LUDUS_ENOMEM, "out of memory");
}

uint32_t ludus_gpu_stats_track_count(const ludus_gpu_stats *s) {
    return s ? s->ntracks : 0;
}
const ludus_gpu_track_stats *ludus_gpu_stats_track(const ludus_gpu_stats *s, uint32_t i) {
    return s && i < s->ntracks ? &s->tracks[i] : NULL;
}
uint32_t ludus_gpu_stats_pass_count(const ludus_gpu_stats *s) {
    return s ? s->npasses : 0;
}
const ludus_gpu_pass_stats *ludus_gpu_stats_pass(const ludus_gpu_stats *s, uint32_t i) {
    return s && i < s->npasses ? &s->passes[i] : NULL;
}

/* ---- the report ---- */

static void put(ludus__writer *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(ludus__writer *w, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) ludus__w_bytes(w, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static double ms(int64_t ns) {
    return (double)ns / 1e6;
}

static const ludus_gpu_track_stats *find_track(const ludus_gpu_stats *s, const char *name, uint32_t *index) {
    for (uint32_t i = 0; s && i < s->ntracks; i++)
        if (!strcmp(s->tracks[i].track, name)) {
            if (index) *index = i;
            return &s->tracks[i];
        }
    return NULL;
}

static const ludus_gpu_pass_stats *find_pass(const ludus_gpu_stats *s, const char *track, const char *pass) {
    uint32_t k;
    if (!find_track(s, track, &k)) return NULL;
    for (uint32_t i = 0; i < s->npasses; i++)
        if (s->passes[i].track == k && !strcmp(s->passes[i].pass, pass)) return &s->passes[i];
    return NULL;
}

/* "slower", "faster" or "same": median and mean moved the same way by more than 5%. */
static const char *verdict(const ludus_gpu_duration_stats *b, const ludus_gpu_duration_stats *n) {
    if (!b || !b->count || !n->count) return "new";
    double r50 = b->p50_ns ? (double)n->p50_ns / (double)b->p50_ns : 1,
           rm = b->mean_ns ? (double)n->mean_ns / (double)b->mean_ns : 1;
    if (r50 > 1.05 && rm > 1.05) return "slower";
    if (r50 < 1 / 1.05 && rm < 1 / 1.05) return "faster";
    return "same";
}

static void text_row(ludus__writer *w, const char *label, const ludus_gpu_duration_stats *d,
                     const ludus_gpu_duration_stats *b, double per_frame) {
    char name[64];
    ludus__text_name(name, sizeof name, label, 28);
    if (b) {
        put(w, "    %-28s %10.3f -> %10.3f  %+7.1f%%  %10.3f -> %10.3f  %s\n", name, ms(b ? b->p50_ns : 0),
            ms(d->p50_ns), b && b->p50_ns ? 100.0 * ((double)d->p50_ns / (double)b->p50_ns - 1) : 0.0,
            ms(b ? b->mean_ns : 0), ms(d->mean_ns), verdict(b, d));
        return;
    }
    put(w, "    %-28s %8llu %7.2f %10.3f %10.3f %10.3f %10.3f %12.3f\n", name, (unsigned long long)d->count, per_frame,
        ms(d->mean_ns), ms(d->p50_ns), ms(d->p95_ns), ms(d->max_ns), ms(d->total_ns));
}

static void json_dur(ludus__writer *w, const char *key, const ludus_gpu_duration_stats *d) {
    put(w,
        "\"%s\":{\"count\":%llu,\"total_ns\":%lld,\"mean_ns\":%lld,\"min_ns\":%lld,\"p50_ns\":%lld,\"p95_ns\":%lld,"
        "\"max_ns\":%lld}",
        key, (unsigned long long)d->count, (long long)d->total_ns, (long long)d->mean_ns, (long long)d->min_ns,
        (long long)d->p50_ns, (long long)d->p95_ns, (long long)d->max_ns);
}

void ludus__gpu_stats_json(const ludus_gpu_stats *s, ludus__writer *w) {
    put(w, "{\"tracks\":[");
    for (uint32_t i = 0; i < s->ntracks; i++) {
        const ludus_gpu_track_stats *t = &s->tracks[i];
        put(w, "%s{\"track\":", i ? "," : "");
        ludus__w_json_str(w, t->track, strlen(t->track));
        put(w, ",\"calibrated\":%s,", t->calibrated ? "true" : "false");
        json_dur(w, "frame_time", &t->frame_time);
        put(w, ",\"frames\":[");
        for (uint64_t f = 0; f < s->series[i].n; f++)
            put(w, "%s[%llu,%lld]", f ? "," : "", (unsigned long long)s->series[i].frame[f],
                (long long)s->series[i].ns[f]);
        put(w, "]}");
    }
    put(w, "],\"passes\":[");
    for (uint32_t i = 0; i < s->npasses; i++) {
        const ludus_gpu_pass_stats *p = &s->passes[i];
        put(w, "%s{\"track\":", i ? "," : "");
        ludus__w_jstr(w, s->tracks[p->track].track);
        put(w, ",\"pass\":");
        ludus__w_jstr(w, p->pass);
        put(w, ",\"calls_per_frame\":%.4f,", p->calls_per_frame);
        json_dur(w, "duration", &p->duration);
        put(w, "}");
    }
    put(w, "]}");
}

static void report_json(ludus__writer *w, const ludus_gpu_stats *s, const ludus_gpu_stats *base) {
    put(w, "{\"gpu\":{\"tracks\":[");
    for (uint32_t i = 0; i < s->ntracks; i++) {
        const ludus_gpu_track_stats *t = &s->tracks[i];
        put(w, "%s{\"track\":", i ? "," : "");
        ludus__w_json_str(w, t->track, strlen(t->track));
        put(w, ",\"calibrated\":%s,\"frames\":%llu,\"envelope_frames\":%llu,", t->calibrated ? "true" : "false",
            (unsigned long long)t->frames, (unsigned long long)t->envelope_frames);
        json_dur(w, "frame_time", &t->frame_time);
        const ludus_gpu_track_stats *bt = base ? find_track(base, t->track, NULL) : NULL;
        if (bt) {
            put(w, ",");
            json_dur(w, "base_frame_time", &bt->frame_time);
            put(w, ",\"verdict\":\"%s\"", verdict(&bt->frame_time, &t->frame_time));
        }
        put(w, ",\"coverage\":{");
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++)
            put(w, "%s\"%s\":%llu", v ? "," : "", cov_names[v], (unsigned long long)t->coverage[v]);
        put(w, "}}");
    }
    put(w, "],\"passes\":[");
    for (uint32_t i = 0; i < s->npasses; i++) {
        const ludus_gpu_pass_stats *p = &s->passes[i];
        put(w, "%s{\"track\":", i ? "," : "");
        ludus__w_jstr(w, s->tracks[p->track].track);
        put(w, ",\"pass\":");
        ludus__w_jstr(w, p->pass);
        put(w, ",\"calls_per_frame\":%.4f,", p->calls_per_frame);
        json_dur(w, "duration", &p->duration);
        const ludus_gpu_pass_stats *bp = base ? find_pass(base, s->tracks[p->track].track, p->pass) : NULL;
        if (base) {
            if (bp) {
                put(w, ",");
                json_dur(w, "base_duration", &bp->duration);
            }
            put(w, ",\"verdict\":\"%s\"", verdict(bp ? &bp->duration : NULL, &p->duration));
        }
        put(w, "}");
    }
    put(w, "]}}\n");
}

int ludus_gpu_report(const ludus_gpu_stats *s, const ludus_gpu_stats *base, int format, ludus_write_fn write,
                     void *user_data) {
    if (!s || !write) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    if (format != LUDUS_REPORT_TEXT && format != LUDUS_REPORT_JSON)
        return ludus__fail(LUDUS_EINVAL, "the GPU report is text or JSON");
    ludus__writer *w = ludus__malloc(sizeof *w);
    if (!w) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__w_init(w, write, user_data);
    if (format == LUDUS_REPORT_JSON) {
        report_json(w, s, base);
    } else {
        put(w, "\nGPU (device time, ms; docs/gpu.md)%s\n", base ? ": base -> new, median and mean" : "");
        for (uint32_t k = 0; k < s->ntracks; k++) {
            const ludus_gpu_track_stats *t = &s->tracks[k];
            char name[160];
            put(w, "  %s%s: %llu frames", ludus__text_name(name, sizeof name, t->track, 0),
                t->calibrated ? "" : " (uncalibrated)", (unsigned long long)t->frames);
            if (t->envelope_frames)
                put(w, " (%llu timed by their passes' envelope)", (unsigned long long)t->envelope_frames);
            put(w, "; coverage:");
            for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++)
                if (v != LUDUS_GPU_FRAMES) put(w, " %s %llu", cov_names[v], (unsigned long long)t->coverage[v]);
            put(w, "\n");
            if (base)
                put(w, "    %-28s %10s    %10s  %8s  %10s    %10s\n", "", "p50 base", "p50 new", "change", "mean base",
                    "mean new");
            else
                put(w, "    %-28s %8s %7s %10s %10s %10s %10s %12s\n", "", "count", "/frame", "mean", "p50", "p95",
                    "max", "total");
            const ludus_gpu_track_stats *bt = base ? find_track(base, t->track, NULL) : NULL;
            if (!base || bt) text_row(w, "GPU frame time", &t->frame_time, bt ? &bt->frame_time : NULL, 1.0);
            for (uint32_t i = 0; i < s->npasses; i++) {
                const ludus_gpu_pass_stats *p = &s->passes[i];
                if (p->track != k) continue;
                const ludus_gpu_pass_stats *bp = base ? find_pass(base, t->track, p->pass) : NULL;
                if (base && !bp) {
                    char name[64];
                    put(w, "    %-28s %10s -> %10.3f  (new pass)\n", ludus__text_name(name, sizeof name, p->pass, 28),
                        "-", ms(p->duration.p50_ns));
                    continue;
                }
                text_row(w, p->pass, &p->duration, bp ? &bp->duration : NULL, p->calls_per_frame);
            }
        }
        for (uint32_t i = 0; base && i < base->npasses; i++) {
            const ludus_gpu_pass_stats *bp = &base->passes[i];
            char name[64], track[160];
            if (!find_pass(s, base->tracks[bp->track].track, bp->pass))
                put(w, "    %-28s %10.3f -> %10s  (gone from %s)\n", ludus__text_name(name, sizeof name, bp->pass, 28),
                    ms(bp->duration.p50_ns), "-",
                    ludus__text_name(track, sizeof track, base->tracks[bp->track].track, 0));
        }
    }
    int rc = ludus__w_flush(w) || w->failed ? LUDUS_EIO : 0;
    ludus__free(w);
    return rc ? ludus__fail(rc, "writing the GPU report failed") : 0;
}
