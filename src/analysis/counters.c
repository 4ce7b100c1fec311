/* Counter tracks of an analysis: per (site, series), the per-frame
 * statistics a frame's snapshot recorded (on the frame thread, closing the
 * frame its mark ends) and the timeline samples of plots (any thread). A
 * statistic is computed over the window's complete frames that hold a
 * value, and says how many of the window's frames that is. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"

static const char *const kind_of_owner[] = {"count", "gauge", "memory"};

/* The track of (site, series), created on first use; NULL without memory. */
static ludus__an_counter *track(ludus_analysis *a, uint32_t site, uint32_t series) {
    if (!a->counter_at) {
        a->counter_at =
            ludus__calloc((size_t)(a->nsites ? a->nsites : 1) * LUDUS__SERIES_PER_SITE, sizeof *a->counter_at);
        if (!a->counter_at) return NULL;
    }
    uint32_t *at = &a->counter_at[(size_t)site * LUDUS__SERIES_PER_SITE + series];
    if (*at) return &a->counters[*at - 1];
    if (LUDUS__GROW(a->counters, a->ncounters, a->counters_cap, 16) != 0) return NULL;
    ludus__an_counter *k = &a->counters[a->ncounters++];
    memset(k, 0, sizeof *k);
    k->pub.site = site;
    k->pub.name = a->sites[site].pub.name;
    if (series) {
        const ludus__stat_info *st = &ludus__stats[series - 1];
        k->pub.series = st->series;
        k->pub.unit = st->unit;
        k->pub.kind = kind_of_owner[st->owner];
        k->pub.per_frame = st->per_frame;
    } else {
        k->pub.series = "samples";
        k->pub.unit = "";
        k->pub.kind = "plot";
    }
    k->series = series;
    *at = a->ncounters;
    return k;
}

int ludus__counter_event(ludus_analysis *a, const ludus__nev *ev, int on_frame_thread, uint64_t marks_seen,
                         int in_window) {
    if (ev->site == UINT32_MAX) return 0;
    if (ev->series && !on_frame_thread) { /* a snapshot of LUDUS_PROFILE_FRAME called off the frame thread */
        a->sum.counter_values_elsewhere++;
        return 0;
    }
    ludus__an_counter *k = track(a, ev->site, ev->series);
    if (!k) return -1;
    double v;
    int64_t exact = 0;
    int is_float = ludus__nevs[ev->kind].analysis == LUDUS__TR_COUNTER_F64;
    if (is_float) {
        memcpy(&v, &ev->value, sizeof v);
        if (!isfinite(v)) return 0;
        k->real = 1;
    } else {
        exact = (int64_t)ev->value;
        v = (double)exact;
    }
    if (ev->series) {
        if (marks_seen == 0) return 0; /* its mark was lost */
        /* the snapshot taken at mark n closes frame n - 1 (frame 0: the lead-in) */
        return ludus__frame_kept(a, marks_seen - 1) ? ludus__vrun_put(&k->v, marks_seen - 1, v, exact, is_float) : 0;
    }
    return in_window ? ludus__vrun_put(&k->v, 0, v, exact, is_float) : 0;
}

static double nearest_rank(const double *v, size_t n, double q) {
    size_t k = (size_t)ceil(q * (double)n);
    return v[k ? k - 1 : 0];
}

/* The sum of an integer track's values in the window: exact while it fits
 * an int64, else held at INT64_MAX or INT64_MIN from the first add that
 * passes it (never wrapped) and flagged; every output says so. */
static double exact_total(const ludus__an_counter *k, const ludus_analysis *a, int *saturated) {
    int64_t t = 0;
    *saturated = 0;
    ludus__vrun_it it;
    for (ludus__vrun_begin(&k->v, &it); ludus__vrun_next(&it);) {
        if (k->series && (it.v.frame < a->win_f0 || it.v.frame >= a->win_f1)) continue;
        if (__builtin_add_overflow(t, it.v.exact, &t)) {
            *saturated = 1;
            return it.v.exact > 0 ? (double)INT64_MAX : (double)INT64_MIN;
        }
    }
    return (double)t;
}

int ludus__counters_finish(ludus_analysis *a) {
    uint64_t nw = a->win_f1 > a->win_f0 ? a->win_f1 - a->win_f0 : 0;
    for (uint32_t i = 0; i < a->ncounters; i++) {
        ludus__an_counter *k = &a->counters[i];
        ludus_counter_stats *s = &k->pub;
        s->frames_in_window = nw;
        ludus__vrun_fit(&k->v); /* written: read from here on */
        double *x = ludus__malloc((k->v.n ? k->v.n : 1) * sizeof *x);
        if (!x) return -1;
        size_t m = 0;
        ludus__vrun_it it;
        for (ludus__vrun_begin(&k->v, &it); ludus__vrun_next(&it);)
            if (!k->series || (it.v.frame >= a->win_f0 && it.v.frame < a->win_f1)) x[m++] = it.v.value;
        s->values = m;
        double total = 0;
        for (size_t j = 0; j < m; j++) total += x[j];
        if (m) {
            ludus__sort_f64(x, m);
            s->total = k->real ? total : exact_total(k, a, &s->saturated);
            s->mean = total / (double)m; /* the double sum: a saturated total does not bend the mean */
            s->min = x[0];
            s->max = x[m - 1];
            s->p50 = nearest_rank(x, m, 0.5);
            s->p99 = nearest_rank(x, m, 0.99);
        }
        ludus__free(x);
    }
    return 0;
}

void ludus__counters_free(ludus_analysis *a) {
    for (uint32_t i = 0; i < a->ncounters; i++) ludus__vrun_free(&a->counters[i].v);
    ludus__free(a->counters);
    ludus__free(a->counter_at);
}

uint32_t ludus_analysis_counter_count(const ludus_analysis *a) {
    return a ? a->ncounters : 0;
}

const ludus_counter_stats *ludus_analysis_counter(const ludus_analysis *a, uint32_t i) {
    return a && i < a->ncounters ? &a->counters[i].pub : NULL;
}

int64_t ludus_analysis_find_counter(const ludus_analysis *a, const char *name, const char *series) {
    if (!a || !name || !series) return -1;
    for (uint32_t i = 0; i < a->ncounters; i++)
        if (!strcmp(a->counters[i].pub.name, name) && !strcmp(a->counters[i].pub.series, series)) return i;
    return -1;
}

int ludus_analysis_counter_in_frame(const ludus_analysis *a, uint32_t i, uint64_t frame, double *value) {
    if (!a || i >= a->ncounters || !a->counters[i].series) return LUDUS_EINVAL;
    ludus__counter_value v; /* values in frame order: one a frame */
    if (!ludus__vrun_find(&a->counters[i].v, frame, &v)) return LUDUS_ENODATA;
    if (value) *value = v.value;
    return 0;
}
