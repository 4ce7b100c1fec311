/* The robust per-call shift between two samples of durations: the
 * Hodges-Lehmann estimate (the median of every pairwise difference NEW -
 * BASE) on a log scale, so it is a ratio, with its distribution-free
 * confidence interval (the order statistics of the pairwise differences that
 * invert the Mann-Whitney test, Lehmann 1975), and the quantiles of the
 * normal and Student t distributions the verdicts need. A sample is a sorted
 * list of weighted points (an exact duration, or a histogram bucket's middle
 * with its count), so the pairs are counted, never listed: memory stays
 * bounded by buckets, and the k-th difference is found by bisection over a
 * count of the pairs below a value (linear in the points). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"

static double log_ns(double ns) {
    return log1p(ns > 0 ? ns : 0);
}

static int pts_push(ludus__pts *p, double v, uint64_t w) {
    if (LUDUS__GROW(p->p, p->n, p->cap, 256) != 0) return -1;
    p->p[p->n].v = v;
    p->p[p->n].w = w;
    p->n++;
    p->total += w;
    return 0;
}

int ludus__pts_add_acc(ludus__pts *p, const ludus__acc *a, int exact) {
    if (exact && a->nexact == a->n) {
        for (size_t i = 0; i < a->nexact; i++)
            if (pts_push(p, log_ns((double)a->exact[i]), 1) != 0) return -1;
        return 0;
    }
    uint64_t tmp[LUDUS__HIST_SUB];
    for (uint32_t oct = 0; oct < LUDUS__HIST_OCT; oct++) {
        const uint64_t *o = ludus__acc_octave(a, oct, tmp);
        if (!o) continue; /* an octave never used: its buckets are empty */
        for (uint32_t k = 0; k < LUDUS__HIST_SUB; k++) {
            uint64_t c = o[k];
            if (!c) continue;
            int64_t mid = ludus__hist_bucket_mid(oct * LUDUS__HIST_SUB + k); /* as the percentiles: clamped */
            if (mid < a->min) mid = a->min;
            if (mid > a->max) mid = a->max;
            if (pts_push(p, log_ns((double)mid), c) != 0) return -1;
        }
    }
    return 0;
}

void ludus__pts_finish(ludus__pts *p) {
    if (!p->n) return;
    _Static_assert(sizeof(ludus__pt) == 16 && offsetof(ludus__pt, v) == 0, "a point is its double key first");
    ludus__sort_f64_pairs(p->p, p->n);
    size_t k = 0;
    for (size_t i = 1; i < p->n; i++) {
        if (p->p[i].v == p->p[k].v)
            p->p[k].w += p->p[i].w;
        else
            p->p[++k] = p->p[i];
    }
    p->n = k + 1;
}

void ludus__pts_free(ludus__pts *p) {
    ludus__free(p->p);
    memset(p, 0, sizeof *p);
}

double ludus__pts_median(const ludus__pts *p) {
    if (!p->total) return 0;
    /* the lower median when the total is even: one rule for exact and binned */
    uint64_t k = (p->total + 1) / 2, seen = 0;
    for (size_t i = 0; i < p->n; i++) {
        seen += p->p[i].w;
        if (seen >= k) return p->p[i].v;
    }
    return p->p[p->n - 1].v;
}

/* Pairs (x in a, y in b) with y - x <= d, weighted. */
static double pairs_le(const ludus__pts *a, const ludus__pts *b, double d) {
    double cnt = 0, below = 0; /* weight of a's points < the threshold */
    size_t i = 0;
    for (size_t j = 0; j < b->n; j++) {
        double t = b->p[j].v - d; /* y - x <= d  <=>  x >= y - d */
        while (i < a->n && a->p[i].v < t) below += (double)a->p[i++].w;
        cnt += (double)b->p[j].w * ((double)a->total - below);
    }
    return cnt;
}

/* The k-th smallest pairwise difference (1-based, k <= total pairs): the
 * smallest d with at least k pairs <= d. Bisection to the last bit. */
static double kth_diff(const ludus__pts *a, const ludus__pts *b, double k) {
    double lo = b->p[0].v - a->p[a->n - 1].v, hi = b->p[b->n - 1].v - a->p[0].v;
    if (pairs_le(a, b, lo) >= k) return lo;
    for (int it = 0; it < 200; it++) { /* invariant: pairs_le(lo) < k <= pairs_le(hi) */
        double mid = lo + (hi - lo) / 2;
        if (mid <= lo || mid >= hi) break;
        if (pairs_le(a, b, mid) >= k)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* Sum of t^3 - t over the tie groups of the pooled sample. */
static double tie_sum(const ludus__pts *a, const ludus__pts *b) {
    size_t i = 0, j = 0;
    double s = 0;
    while (i < a->n || j < b->n) {
        double v = i < a->n && (j >= b->n || a->p[i].v <= b->p[j].v) ? a->p[i].v : b->p[j].v;
        double t = 0;
        if (i < a->n && a->p[i].v == v) t += (double)a->p[i++].w;
        if (j < b->n && b->p[j].v == v) t += (double)b->p[j++].w;
        s += t * t * t - t;
    }
    return s;
}

int ludus__hl_shift(const ludus__pts *a, const ludus__pts *b, double z, ludus__shift *out) {
    out->est = 0;
    out->lo = -HUGE_VAL;
    out->hi = HUGE_VAL;
    if (!a->total || !b->total) return -1;
    double na = (double)a->total, nb = (double)b->total, np = na * nb;
    if (fmod(np, 2) == 1)
        out->est = kth_diff(a, b, (np + 1) / 2);
    else
        out->est = (kth_diff(a, b, np / 2) + kth_diff(a, b, np / 2 + 1)) / 2;
    double nn = na + nb;
    double var = np / 12.0 * ((nn + 1) - (nn > 1 ? tie_sum(a, b) / (nn * (nn - 1)) : 0));
    double c = floor(np / 2 - z * sqrt(var > 0 ? var : 0));
    if (c >= 1) {
        out->lo = kth_diff(a, b, c);
        out->hi = kth_diff(a, b, np + 1 - c);
    }
    return 0;
}

/* ---- quantiles ---- */

double ludus__z_two_sided(double alpha) {
    /* erfc(z / sqrt 2) = alpha, by bisection: erfc is monotone */
    double lo = 0, hi = 40;
    for (int it = 0; it < 200; it++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / sqrt(2.0)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Continued fraction of the regularised incomplete beta (Lentz). */
static double beta_cf(double a, double b, double x) {
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny) d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m, aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        if (fabs(d) < tiny) d = tiny;
        c = 1 + aa / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return h;
}

static double inc_beta(double a, double b, double x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2)) return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

double ludus__t_two_sided(double alpha, double df) {
    /* P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2) = alpha, by bisection on t */
    double lo = 0, hi = 1;
    while (inc_beta(df / 2, 0.5, df / (df + hi * hi)) > alpha && hi < 1e12) hi *= 2;
    for (int it = 0; it < 200; it++) {
        double mid = (lo + hi) / 2;
        if (inc_beta(df / 2, 0.5, df / (df + mid * mid)) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}
