/* The GPU data of a capture, apart from the recorder's store (gpu.c):
 * placement (the calibration mapping, linear between accepted points,
 * drift corrected; the error bound of each span; lanes for spans that
 * overlap on a queue; without calibration, each frame anchored at its CPU
 * submission), appending a capture's data to another's, the tracks' names
 * and the capture's GPU accessors (<ludus/gpu.h>). No state (gpu_data.h). */
#define _GNU_SOURCE /* strnlen: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_data.h"
#include "../base/text.h"

#define ASSUMED_DRIFT 1e-4    /* one point only: drift taken as 100 ppm (a crystal's tolerance) */
#define DISCORD_FRACTION 1e-3 /* two points whose elapsed times disagree by 0.1% (plus deviations): a break */

/* Without libm (the runtime library needs libc and pthreads only). */
static int64_t round_i64(double x) {
    if (!(x == x)) return 0;
    if (x >= (double)LUDUS__GPU_TIME_LIMIT) return LUDUS__GPU_TIME_LIMIT;
    if (x <= -(double)LUDUS__GPU_TIME_LIMIT) return -LUDUS__GPU_TIME_LIMIT;
    return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}
static int64_t sat_add(int64_t a, int64_t b) { /* a time and a span: clamped, never a signed overflow */
    return ludus__gpu_clamp_time(ludus__gpu_clamp_time(a) + ludus__gpu_clamp_time(b));
}
static double abs_f64(double x) {
    return x < 0 ? -x : x;
}
int ludus__gpu_add_ctx(ludus__gpu_data *g, const ludus__gpu_ctx *info, uint32_t *slot) {
    ludus__gpu_ctx *n = ludus__realloc(g->ctx, (g->nctx + 1) * sizeof *n);
    if (!n) return -1;
    g->ctx = n;
    n[g->nctx] = *info;
    memset(n[g->nctx].cov, 0, sizeof n[g->nctx].cov);
    *slot = g->nctx++;
    return 0;
}

static uint32_t hash_text(const char *s) {
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Puts names[i] into the hash (which has room). */
static void hash_put(ludus__gpu_data *g, uint32_t i) {
    uint32_t mask = g->hash_cap - 1, j = hash_text(g->names[i]) & mask;
    while (g->name_hash[j]) j = (j + 1) & mask;
    g->name_hash[j] = i + 1;
}

/* The index of the pass name that `name` shows as (its UTF-8 made valid,
 * as every name is kept), added when new; UINT32_MAX out of memory. A name
 * with invalid bytes and its clean form are one pass. */
uint32_t ludus__gpu_name_index(ludus__gpu_data *g, const char *name) {
    /* the stored form: valid, at most LUDUS__GPU_NAME_MAX bytes (what a
     * file holds), cut between characters */
    size_t len = strnlen(name, LUDUS__GPU_NAME_MAX + 1);
    char *clean = NULL;
    if (len > LUDUS__GPU_NAME_MAX || !ludus__utf8_valid(name, len)) {
        clean = ludus__malloc(LUDUS__GPU_NAME_MAX + 1);
        if (!clean) return UINT32_MAX;
        len = strnlen(name, 4 * LUDUS__GPU_NAME_MAX);
        clean[ludus__utf8_clean(name, len, clean, LUDUS__GPU_NAME_MAX)] = 0;
        name = clean;
    }
    if ((g->nnames + 1) * 2 > g->hash_cap || g->hashed < g->nnames) { /* grow, or take in names read from a file */
        uint32_t cap = g->hash_cap ? g->hash_cap : 64;
        while ((g->nnames + 1) * 2 > cap) cap *= 2;
        if (cap != g->hash_cap) {
            uint32_t *h = ludus__calloc(cap, sizeof *h);
            if (!h) goto oom;
            ludus__free(g->name_hash);
            g->name_hash = h;
            g->hash_cap = cap;
            g->hashed = 0;
        }
        for (; g->hashed < g->nnames; g->hashed++) hash_put(g, g->hashed);
    }
    uint32_t mask = g->hash_cap - 1;
    for (uint32_t j = hash_text(name) & mask; g->name_hash[j]; j = (j + 1) & mask)
        if (strcmp(g->names[g->name_hash[j] - 1], name) == 0) {
            ludus__free(clean);
            return g->name_hash[j] - 1;
        }
    if (g->nnames >= g->names_cap) {
        uint32_t cap = g->nnames ? g->nnames * 2 : 16;
        char **n = ludus__realloc(g->names, cap * sizeof *n);
        if (!n) goto oom;
        g->names = n;
        g->names_cap = cap;
    }
    if (!clean && !(clean = ludus__strdup(name))) return UINT32_MAX;
    g->names[g->nnames] = clean;
    hash_put(g, g->nnames);
    g->hashed = g->nnames + 1;
    return g->nnames++;
oom:
    ludus__free(clean);
    return UINT32_MAX;
}

static int cmp_cal(const void *a, const void *b) {
    const ludus__gpu_cal *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    return x->cpu_ns < y->cpu_ns ? -1 : x->cpu_ns > y->cpu_ns;
}

static int cmp_sample(const void *a, const void *b) {
    const ludus__gpu_sample *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    if (x->begin_ns != y->begin_ns) return x->begin_ns < y->begin_ns ? -1 : 1;
    if (x->end_ns != y->end_ns) return x->end_ns > y->end_ns ? -1 : 1;
    return x->frame < y->frame ? -1 : x->frame > y->frame;
}

static int cmp_frame(const void *a, const void *b) {
    const ludus__gpu_sample *x = a, *y = b;
    if (x->ctx != y->ctx) return x->ctx < y->ctx ? -1 : 1;
    if (x->frame != y->frame) return x->frame < y->frame ? -1 : 1;
    return x->submit_ns < y->submit_ns ? -1 : x->submit_ns > y->submit_ns;
}

/* Maps GPU ticks t onto ns since capture start through the points
 * cal[0, n) of one epoch (in time order, no break between them: their ticks
 * grow with their time). *err: the bound; *extra: outside the points. */
static int64_t map_ticks(const ludus__gpu_cal *cal, uint32_t n, uint64_t t, double period, uint32_t bits, int64_t *err,
                         int *extra) {
    /* the last point at or before t (signed distances fall with i) */
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (ludus__gpu_tick_delta(t, cal[mid].ticks, bits) >= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t i = (int64_t)lo - 1;        /* -1: before the first point */
    if (i >= 0 && i + 1 < (int64_t)n) { /* between two points: interpolated */
        const ludus__gpu_cal *a = &cal[i], *b = &cal[i + 1];
        double dt = (double)ludus__gpu_tick_delta(b->ticks, a->ticks, bits);
        double slope = dt > 0 ? (double)(b->cpu_ns - a->cpu_ns) / dt : period;
        *err = a->dev_ns > b->dev_ns ? a->dev_ns : b->dev_ns;
        *extra = 0;
        return sat_add(a->cpu_ns, round_i64((double)ludus__gpu_tick_delta(t, a->ticks, bits) * slope));
    }
    /* outside: from the nearest point, along its segment's slope */
    int64_t p = i < 0 ? 0 : i;
    const ludus__gpu_cal *a = &cal[p];
    int64_t q = i < 0 ? 1 : i - 1; /* its neighbour */
    double slope = period, rel = ASSUMED_DRIFT;
    if (q >= 0 && q < (int64_t)n) {
        const ludus__gpu_cal *b = &cal[q];
        double dt = (double)ludus__gpu_tick_delta(b->ticks, a->ticks, bits), dc = (double)(b->cpu_ns - a->cpu_ns);
        if (dt != 0 && dc != 0) {
            slope = dc / dt;
            rel = ((double)a->dev_ns + (double)b->dev_ns) / abs_f64(dc);
        }
    }
    double d = (double)ludus__gpu_tick_delta(t, a->ticks, bits) * slope;
    *err = sat_add(a->dev_ns, round_i64(abs_f64(d) * rel + 0.5));
    *extra = 1;
    return sat_add(a->cpu_ns, round_i64(d));
}

/* The epoch (points between breaks) a sample belongs to: the one holding
 * the last point at or before its CPU submission (the GPU runs it after). */
static void epoch_of(const ludus__gpu_cal *cal, const uint8_t *brk, uint32_t n, int64_t submit_ns, uint32_t *a,
                     uint32_t *b) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (cal[mid].cpu_ns <= submit_ns)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t j = lo ? lo - 1 : 0;
    *a = j;
    while (*a > 0 && !brk[*a]) (*a)--;
    *b = j + 1;
    while (*b < n && !brk[*b]) (*b)++;
}

static int place_ctx(ludus__gpu_data *g, uint32_t k, ludus__gpu_sample *s, uint64_t ns, ludus__gpu_cal *cal,
                     uint32_t ncal) {
    ludus__gpu_ctx *ci = &g->ctx[k];
    uint32_t bits = ci->valid_bits ? ci->valid_bits : 64;
    /* accepted points: a point that disagrees with the one before marks a break */
    uint8_t *brk = ludus__calloc(ncal ? ncal : 1, 1);
    if (!brk) return -1;
    for (uint32_t i = 1; i < ncal; i++) {
        double dt = (double)ludus__gpu_tick_delta(cal[i].ticks, cal[i - 1].ticks, bits) * ci->period_ns;
        double dc = (double)(cal[i].cpu_ns - cal[i - 1].cpu_ns);
        double tol = DISCORD_FRACTION * abs_f64(dc) + (double)cal[i].dev_ns + (double)cal[i - 1].dev_ns;
        if (abs_f64(dt - dc) > tol || dt <= 0) brk[i] = 1;
    }
    ci->ncal = ncal;
    ci->calibrated = ncal > 0;
    ci->max_error_ns = 0;
    ci->samples = ns;
    ci->passes = 0;
    for (uint64_t i = 0; i < ns; i++) {
        ludus__gpu_sample *x = &s[i];
        x->flags = 0;
        double period = x->period_ns > 0 ? x->period_ns : ci->period_ns;
        int64_t dticks = ludus__gpu_tick_delta(x->end_ticks, x->begin_ticks, bits);
        if (bits < 64 && x->end_ticks < x->begin_ticks) x->flags |= LUDUS_GPU_SPAN_WRAPPED;
        if (dticks < 0) dticks = 0; /* counted invalid at hand-over by the backend; never negative here */
        x->device_ns = (int64_t)round_i64((double)dticks * period);
        if (x->name != UINT32_MAX) ci->passes++;
        if (ncal) {
            int64_t e0, e1;
            int x0, x1;
            uint32_t a, b;
            epoch_of(cal, brk, ncal, x->submit_ns, &a, &b);
            x->begin_ns = map_ticks(cal + a, b - a, x->begin_ticks, period, bits, &e0, &x0);
            x->end_ns = map_ticks(cal + a, b - a, x->begin_ticks + (uint64_t)dticks, period, bits, &e1, &x1);
            if (x->end_ns < x->begin_ns) x->end_ns = x->begin_ns;
            x->error_ns = e0 > e1 ? e0 : e1;
            if (x0 || x1) x->flags |= LUDUS_GPU_SPAN_EXTRAPOLATED;
            if (x->error_ns > ci->max_error_ns) ci->max_error_ns = x->error_ns;
        }
    }
    ci->breaks = 0;
    for (uint32_t i = 1; i < ncal; i++) ci->breaks += brk[i];
    ludus__free(brk);
    if (!ncal && ns) { /* anchored at each frame's CPU submission, spaced by device time */
        ludus__qsort(s, ns, sizeof *s, cmp_frame);
        for (uint64_t i = 0; i < ns;) {
            uint64_t j = i;
            int64_t anchor = s[i].submit_ns;
            uint64_t first = s[i].begin_ticks;
            for (; j < ns && s[j].frame == s[i].frame; j++) {
                if (s[j].submit_ns < anchor) anchor = s[j].submit_ns;
                if (ludus__gpu_tick_delta(s[j].begin_ticks, first, bits) < 0) first = s[j].begin_ticks;
            }
            for (uint64_t m = i; m < j; m++) {
                double period = s[m].period_ns > 0 ? s[m].period_ns : ci->period_ns;
                s[m].begin_ns =
                    sat_add(anchor, round_i64((double)ludus__gpu_tick_delta(s[m].begin_ticks, first, bits) * period));
                s[m].end_ns = sat_add(s[m].begin_ns, s[m].device_ns);
                s[m].error_ns = 0;
                s[m].flags |= LUDUS_GPU_SPAN_UNCALIBRATED;
            }
            i = j;
        }
    }
    /* lanes: in begin order, the first lane whose last span has ended; frame
     * samples are counters, not spans, and take no lane */
    if (ns) ludus__qsort(s, ns, sizeof *s, cmp_sample);
    int64_t lane_end[LUDUS__MAX_LANES];
    uint32_t used = 0;
    for (uint64_t i = 0; i < ns; i++) {
        if (s[i].name == UINT32_MAX) continue;
        uint32_t l = 0;
        while (l < used && lane_end[l] > s[i].begin_ns) l++;
        if (l == LUDUS__MAX_LANES) { /* 32 overlapping passes: the last lane takes the rest */
            l = LUDUS__MAX_LANES - 1;
            if (s[i].end_ns > lane_end[l]) lane_end[l] = s[i].end_ns;
        } else {
            if (l == used) used++;
            lane_end[l] = s[i].end_ns;
        }
        s[i].lane = l;
    }
    ci->lanes = used;
    return 0;
}

int ludus__gpu_place(ludus__gpu_data *g) {
    if (!g) return 0;
    /* by context, in time order */
    if (g->ncal) ludus__qsort(g->cal, g->ncal, sizeof *g->cal, cmp_cal);       /* (qsort of NULL, 0 is undefined) */
    for (uint64_t i = 0; i < g->ns; i++) g->s[i].begin_ns = g->s[i].submit_ns; /* group by context first */
    if (g->ns) ludus__qsort(g->s, g->ns, sizeof *g->s, cmp_sample);
    uint64_t si = 0, ci = 0;
    for (uint32_t k = 0; k < g->nctx; k++) {
        uint64_t s0 = si, c0 = ci;
        while (si < g->ns && g->s[si].ctx == k) si++;
        while (ci < g->ncal && g->cal[ci].ctx == k) ci++;
        if (place_ctx(g, k, g->s + s0, si - s0, g->cal + c0, (uint32_t)(ci - c0))) return LUDUS_ENOMEM;
    }
    return 0;
}

const ludus__gpu_data *ludus__gpu_of(const ludus_capture *c) {
    while (c && !c->gpu) c = c->parent;
    return c ? c->gpu : NULL;
}

int ludus__gpu_append(ludus__gpu_data **dst, const ludus__gpu_data *src, int64_t shift_ns) {
    if (!src) return 0;
    ludus__gpu_data *g = *dst;
    if (!g && !(g = *dst = ludus__calloc(1, sizeof *g))) return LUDUS_ENOMEM;
    uint32_t *map = ludus__calloc(src->nctx ? src->nctx : 1, sizeof *map);
    uint32_t *nmap = ludus__calloc(src->nnames ? src->nnames : 1, sizeof *nmap);
    int rc = !map || !nmap ? LUDUS_ENOMEM : 0;
    for (uint32_t k = 0; k < src->nctx && rc == 0; k++) {
        const ludus__gpu_ctx *sc = &src->ctx[k];
        uint32_t j = 0;
        while (j < g->nctx && !(g->ctx[j].queue == sc->queue && strcmp(g->ctx[j].name, sc->name) == 0)) j++;
        if (j == g->nctx && ludus__gpu_add_ctx(g, sc, &j)) rc = LUDUS_ENOMEM;
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT && rc == 0; v++) g->ctx[j].cov[v] += sc->cov[v];
        map[k] = j;
    }
    for (uint32_t i = 0; i < src->nnames && rc == 0; i++)
        if ((nmap[i] = ludus__gpu_name_index(g, src->names[i])) == UINT32_MAX) rc = LUDUS_ENOMEM;
    if (rc == 0 && src->ns) {
        ludus__gpu_sample *s = ludus__realloc(g->s, (g->ns + src->ns) * sizeof *s);
        if (!s) rc = LUDUS_ENOMEM;
        if (s) {
            g->s = s;
            g->s_cap = g->ns + src->ns;
            for (uint64_t i = 0; i < src->ns; i++) {
                ludus__gpu_sample x = src->s[i];
                x.ctx = map[x.ctx];
                if (x.name != UINT32_MAX) x.name = nmap[x.name];
                x.submit_ns += shift_ns;
                g->s[g->ns++] = x;
            }
        }
    }
    if (rc == 0 && src->ncal) {
        ludus__gpu_cal *cl = ludus__realloc(g->cal, (g->ncal + src->ncal) * sizeof *cl);
        if (!cl) rc = LUDUS_ENOMEM;
        if (cl) {
            g->cal = cl;
            g->cal_cap = g->ncal + src->ncal;
            for (uint64_t i = 0; i < src->ncal; i++) {
                ludus__gpu_cal x = src->cal[i];
                x.ctx = map[x.ctx];
                x.cpu_ns += shift_ns;
                g->cal[g->ncal++] = x;
            }
        }
    }
    ludus__free(map);
    ludus__free(nmap);
    return rc;
}

void ludus__gpu_track_name(const ludus__gpu_ctx *k, uint32_t lane, char *buf, size_t n) {
    int m = snprintf(buf, n, "%s%s", k->name, k->calibrated ? "" : " (uncalibrated)");
    if (lane && m > 0 && (size_t)m < n) snprintf(buf + m, n - (size_t)m, " lane %u", lane + 1);
}

/* ---- the public view of a capture's GPU data ---- */

uint32_t ludus_capture_gpu_track_count(ludus_capture *c) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    return g ? g->nctx : 0;
}

int ludus_capture_gpu_track(ludus_capture *c, uint32_t i, ludus_gpu_track_info *out) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g || i >= g->nctx || !out) return ludus__fail(LUDUS_EINVAL, "no GPU track %u", i);
    const ludus__gpu_ctx *k = &g->ctx[i];
    memset(out, 0, sizeof *out);
    out->name = k->name;
    out->device = k->device;
    out->queue = (int)k->queue;
    out->tick_period_ns = k->period_ns;
    out->valid_bits = k->valid_bits;
    out->calibrated = k->calibrated;
    out->calibration_points = k->ncal;
    out->calibration_breaks = k->breaks;
    out->lanes = k->lanes;
    out->max_error_ns = k->max_error_ns;
    out->samples = k->samples;
    out->passes = k->passes;
    memcpy(out->coverage, k->cov, sizeof out->coverage);
    return 0;
}

uint64_t ludus_capture_gpu_span_count(ludus_capture *c) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    return g ? g->ns : 0;
}

int ludus_capture_gpu_span(ludus_capture *c, uint64_t i, ludus_gpu_span *out) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g || i >= g->ns || !out) return ludus__fail(LUDUS_EINVAL, "no GPU span %llu", (unsigned long long)i);
    const ludus__gpu_sample *s = &g->s[i];
    out->track = s->ctx;
    out->pass = s->name != UINT32_MAX ? g->names[s->name] : NULL;
    out->frame = s->frame;
    out->begin_ns = s->begin_ns;
    out->end_ns = s->end_ns;
    out->device_ns = s->device_ns;
    out->error_ns = s->error_ns;
    out->submit_ns = s->submit_ns;
    out->flow_id = s->flow_id;
    out->lane = s->lane;
    out->flags = s->flags;
    return 0;
}
