/* The timeline beside the scopes: log messages per frame (counts by level,
 * the first warnings and errors) and async zones as their own tree (per
 * track and site: counts, durations, the frames they span). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"
#include "../base/grow.h"

static int cmp_u64(const void *x, const void *y) {
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

/* The frame holding ts: the marks at or before it (0: the lead-in). */
static uint64_t frame_of(const ludus_analysis *a, int64_t ts) {
    uint64_t lo = 0, hi = a->nmarks;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (a->marks[mid] <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int ludus__message_event(ludus_analysis *a, const ludus__nev_iter *it, const ludus__nev *ev, const char *thread,
                         int in_window) {
    if (!in_window) return 0;
    if (LUDUS__GROW(a->msgs, a->nmsgs, a->msgs_cap, 256) != 0) return -1;
    int level = ev->value < 4 ? (int)ev->value : LUDUS_LOG_ERROR;
    a->msgs[a->nmsgs++] = (ludus__an_msg){ev->ts_ns, level};
    if (level < LUDUS_LOG_WARNING) return 0;
    /* The first ones by time: streams come thread by thread, so keep the
     * earliest 16 seen so far. */
    uint32_t n = a->nfirst_msgs, cap = sizeof a->first_msgs / sizeof a->first_msgs[0];
    if (n == cap && a->first_msgs[n - 1].ts_ns <= ev->ts_ns) return 0;
    size_t len, o = 0;
    const char *text = ludus__nev_text(it, ev, &len);
    char *copy = ludus__malloc(2 * len + 1 + strlen(thread) + 1);
    if (!copy) return -1;
    for (size_t i = 0; i < len; i++) { /* a NUL in the text is shown, not an end of it */
        if (text[i] == 0) {
            copy[o++] = '\\';
            copy[o++] = '0';
        } else {
            copy[o++] = text[i];
        }
    }
    copy[o] = 0;
    len = o;
    strcpy(copy + len + 1, thread);
    if (n == cap) ludus__free((char *)a->first_msgs[--n].text);
    uint32_t k = n;
    while (k > 0 && a->first_msgs[k - 1].ts_ns > ev->ts_ns) {
        a->first_msgs[k] = a->first_msgs[k - 1];
        k--;
    }
    a->first_msgs[k] = (ludus_message_info){ev->ts_ns, 0, level, copy, copy + len + 1};
    a->nfirst_msgs = n + 1;
    return 0;
}

/* ---- thread busy time ---- */

int ludus__busy_init(ludus_analysis *a, ludus__captured *c) {
    int rc = ludus__async_ensure(c);
    if (rc || c->async.n == 0) return rc;
    a->busy = ludus__calloc(c->nthreads, sizeof *a->busy);
    if (!a->busy) return LUDUS_ENOMEM;
    a->nbusy = c->nthreads;
    return 0;
}

int ludus__busy_add(ludus_analysis *a, uint32_t thread, int64_t t0, int64_t t1) {
    ludus__busy *b = &a->busy[thread];
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        int64_t *x = ludus__realloc(b->t0, cap * sizeof *x), *y = x ? ludus__realloc(b->t1, cap * sizeof *y) : NULL;
        if (x) b->t0 = x;
        if (y) b->t1 = y;
        if (!x || !y) return -1;
        b->cap = cap;
    }
    b->t0[b->n] = t0;
    b->t1[b->n] = t1;
    b->n++;
    return 0;
}

/* Busy time of thread b in [lo, hi]: its intervals are disjoint and in
 * order (top-level scopes of one track), so two binary searches and the
 * running totals. */
static int64_t busy_in(const ludus__busy *b, int64_t lo, int64_t hi) {
    if (b->n == 0 || hi <= lo) return 0;
    size_t i = 0, j = b->n, k; /* i: first interval ending after lo */
    while (i < j) {
        k = i + (j - i) / 2;
        if (b->t1[k] <= lo)
            i = k + 1;
        else
            j = k;
    }
    size_t e = i, f = b->n; /* e: first interval beginning at or after hi */
    while (e < f) {
        k = e + (f - e) / 2;
        if (b->t0[k] < hi)
            e = k + 1;
        else
            f = k;
    }
    if (i >= e) return 0;
    int64_t sum = b->cum[e] - b->cum[i];
    if (b->t0[i] < lo) sum -= lo - b->t0[i];
    if (b->t1[e - 1] > hi) sum -= b->t1[e - 1] - hi;
    return sum;
}

static int busy_finish(ludus_analysis *a) {
    for (uint32_t t = 0; t < a->nbusy; t++) {
        ludus__busy *b = &a->busy[t];
        b->cum = ludus__malloc((b->n + 1) * sizeof *b->cum);
        if (!b->cum) return LUDUS_ENOMEM;
        b->cum[0] = 0;
        for (size_t i = 0; i < b->n; i++) b->cum[i + 1] = b->cum[i] + (b->t1[i] - b->t0[i]);
    }
    return 0;
}

static void busy_free(ludus_analysis *a) {
    for (uint32_t t = 0; t < a->nbusy; t++) {
        ludus__free(a->busy[t].t0);
        ludus__free(a->busy[t].t1);
        ludus__free(a->busy[t].cum);
    }
    ludus__free(a->busy);
    a->busy = NULL;
    a->nbusy = 0;
}

static int cmp_zone_key(const void *x, const void *y) {
    const ludus__async_zone *a = *(const ludus__async_zone *const *)x, *b = *(const ludus__async_zone *const *)y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

static int async_finish(ludus_analysis *a, ludus__captured *c, int64_t w0, int64_t w1) {
    int rc = ludus__async_ensure(c);
    if (rc) return rc;
    const ludus__async_zone **z = ludus__malloc((c->async.n ? c->async.n : 1) * sizeof *z);
    if (!z) return LUDUS_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->async.n; i++)
        if (c->async.zones[i].begin_ns >= w0 && c->async.zones[i].begin_ns < w1) z[n++] = &c->async.zones[i];
    qsort(z, n, sizeof *z, cmp_zone_key);
    a->asyncs = ludus__calloc(n ? n : 1, sizeof *a->asyncs);
    if (!a->asyncs) {
        ludus__free(z);
        return LUDUS_ENOMEM;
    }
    for (uint32_t i = 0; i < n && rc == 0;) {
        uint32_t j = i;
        ludus__acc acc;
        memset(&acc, 0, sizeof acc);
        ludus_async_stats *s = &a->asyncs[a->nasyncs++];
        const ludus__async_track *t = &c->async.tracks[z[i]->track];
        /* names copied: the analysis outlives the capture */
        const char *tn = t->site != UINT32_MAX ? c->sites[t->site].name : "<invalid track>";
        const char *zn = z[i]->site != UINT32_MAX ? c->sites[z[i]->site].name : "<begin cut away>";
        size_t tl = strlen(tn), zl = strlen(zn);
        char *names = ludus__malloc(tl + zl + 2);
        if (!names) {
            rc = LUDUS_ENOMEM;
            a->nasyncs--;
            break;
        }
        memcpy(names, tn, tl + 1);
        memcpy(names + tl + 1, zn, zl + 1);
        s->track = names;
        s->name = names + tl + 1;
        double spans = 0;
        int64_t total = 0;
        for (; j < n && cmp_zone_key(&z[i], &z[j]) == 0; j++) {
            const ludus__async_zone *q = z[j];
            s->zones++;
            if (q->depth + 1 > s->max_depth) s->max_depth = q->depth + 1;
            if (q->flags & LUDUS_NEV_INCOMPLETE) {
                s->incomplete++;
                continue;
            }
            if (q->end_thread != q->begin_thread) s->cross_thread++;
            uint64_t f = frame_of(a, q->end_ns) - frame_of(a, q->begin_ns) + 1;
            spans += (double)f;
            if (f > s->frames_spanned_max) s->frames_spanned_max = f;
            if (ludus__acc_add(&acc, q->end_ns - q->begin_ns, a->desc.exact)) rc = LUDUS_ENOMEM;
            if (a->busy) {
                if (q->begin_thread != UINT32_MAX)
                    s->thread_busy_ns += busy_in(&a->busy[q->begin_thread], q->begin_ns, q->end_ns);
                if (q->end_thread != UINT32_MAX && q->end_thread != q->begin_thread)
                    s->thread_busy_ns += busy_in(&a->busy[q->end_thread], q->begin_ns, q->end_ns);
            }
            total += q->end_ns - q->begin_ns;
        }
        s->thread_busy_share = total > 0 ? (double)s->thread_busy_ns / (double)total : 0;
        uint64_t done = s->zones - s->incomplete;
        s->frames_spanned_mean = done ? spans / (double)done : 0;
        ludus__acc_stats(&acc, a->desc.exact, &s->duration);
        ludus__acc_free(&acc);
        i = j;
    }
    ludus__free(z);
    return rc;
}

static int messages_finish(ludus_analysis *a);

int ludus__timeline_finish(ludus_analysis *a, ludus__captured *c, int64_t w0, int64_t w1) {
    for (uint32_t i = 0; i < a->nfirst_msgs; i++) a->first_msgs[i].frame = frame_of(a, a->first_msgs[i].ts_ns);
    int rc = messages_finish(a);
    if (rc == 0) rc = busy_finish(a);
    if (rc == 0) rc = async_finish(a, c, w0, w1);
    busy_free(a); /* only the zones needed it */
    return rc;
}

void ludus__timeline_free(ludus_analysis *a) {
    for (uint32_t i = 0; i < a->nfirst_msgs; i++) ludus__free((char *)a->first_msgs[i].text);
    busy_free(a);
    ludus__free(a->msgs);
    ludus__free(a->warn_frames);
    for (uint32_t i = 0; i < a->nasyncs; i++) ludus__free((char *)a->asyncs[i].track);
    ludus__free(a->asyncs);
}

/* ---- accessors ---- */

static int in_window_frame(const ludus_analysis *a, uint64_t f) {
    return f >= a->win_f0 && f < a->win_f1;
}

/* Warnings and errors as (frame << 1 | is_error), sorted (debug and info
 * left out), and the message statistics: made once, when the analysis is
 * finished, so the accessors and reports allocate nothing. */
static int messages_finish(ludus_analysis *a) {
    uint64_t *f = ludus__malloc((a->nmsgs ? a->nmsgs : 1) * sizeof *f);
    if (!f) return LUDUS_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < a->nmsgs; i++)
        if (a->msgs[i].level >= LUDUS_LOG_WARNING)
            f[n++] = frame_of(a, a->msgs[i].ts) << 1 | (a->msgs[i].level == LUDUS_LOG_ERROR);
    qsort(f, n, sizeof *f, cmp_u64);
    a->warn_frames = f;
    a->nwarn_frames = n;
    ludus_message_stats *out = &a->msg_stats;
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < a->nmsgs; i++) out->count[a->msgs[i].level]++;
    uint64_t last = UINT64_MAX, warn = 0, err = 0, worst = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t fr = f[i] >> 1;
        if (!in_window_frame(a, fr)) continue;
        if (fr != last) {
            last = fr;
            warn = err = 0;
        }
        if (f[i] & 1) {
            if (err++ == 0) out->frames_with_errors++;
        } else if (warn++ == 0) {
            out->frames_with_warnings++;
        }
        if (warn + err > worst) worst = warn + err;
    }
    out->max_warnings_per_frame = worst;
    return 0;
}

void ludus_analysis_get_messages(const ludus_analysis *a, ludus_message_stats *out) {
    if (a)
        *out = a->msg_stats;
    else
        memset(out, 0, sizeof *out);
}

uint32_t ludus_analysis_first_message_count(const ludus_analysis *a) {
    return a ? a->nfirst_msgs : 0;
}

const ludus_message_info *ludus_analysis_first_message(const ludus_analysis *a, uint32_t index) {
    return a && index < a->nfirst_msgs ? &a->first_msgs[index] : NULL;
}

int ludus_analysis_messages_in_frame(const ludus_analysis *a, uint64_t frame, uint64_t counts[4]) {
    if (!a || !counts || frame > a->nmarks)
        return ludus__fail(LUDUS_EINVAL, "frame %llu out of range", (unsigned long long)frame);
    memset(counts, 0, 4 * sizeof *counts);
    for (size_t i = 0; i < a->nmsgs; i++)
        if (frame_of(a, a->msgs[i].ts) == frame) counts[a->msgs[i].level]++;
    return 0;
}

uint32_t ludus_analysis_async_count(const ludus_analysis *a) {
    return a ? a->nasyncs : 0;
}

const ludus_async_stats *ludus_analysis_async(const ludus_analysis *a, uint32_t index) {
    return a && index < a->nasyncs ? &a->asyncs[index] : NULL;
}

/* ---- report sections ---- */

void ludus__report_timeline_text(const ludus_analysis *a, ludus__writer *w) {
    ludus_message_stats m;
    ludus_analysis_get_messages(a, &m);
    if (m.count[0] + m.count[1] + m.count[2] + m.count[3]) {
        ludus__w_fmt(w,
                     "\nmessages: %llu errors, %llu warnings, %llu info, %llu debug; frames with errors %llu, with "
                     "warnings %llu\n",
                     (unsigned long long)m.count[3], (unsigned long long)m.count[2], (unsigned long long)m.count[1],
                     (unsigned long long)m.count[0], (unsigned long long)m.frames_with_errors,
                     (unsigned long long)m.frames_with_warnings);
        for (uint32_t i = 0; i < a->nfirst_msgs; i++) {
            const ludus_message_info *x = &a->first_msgs[i];
            char t[32], thread[80], text[256];
            ludus__w_fmt(w, "  %-7s frame %-6llu at %10s  [%s] %s\n", ludus_log_level_name(x->level),
                         (unsigned long long)x->frame, ludus__dur(t, sizeof t, (double)x->ts_ns),
                         ludus__text_name(thread, sizeof thread, x->thread, 64),
                         ludus__text_name(text, sizeof text, x->text, 200));
        }
    }
    if (a->nasyncs) {
        ludus__w_fmt(w, "\nasync zones (their own tree, begun in the window; frames: frames spanned, mean; busy: time "
                        "their threads spent in top-level scopes while open, share of the zones' time)\n");
        ludus__w_fmt(w, "  %-16s %-24s %8s %6s %10s %10s %10s %8s %8s %6s\n", "track", "zone", "zones", "open", "p50",
                     "p90", "max", "frames", "x-thread", "busy");
        for (uint32_t i = 0; i < a->nasyncs; i++) {
            const ludus_async_stats *s = &a->asyncs[i];
            char b1[32], b2[32], b3[32], track[32], name[32];
            ludus__w_fmt(w, "  %-16s %-24s %8llu %6llu %10s %10s %10s %8.1f %8llu %5.0f%%\n",
                         ludus__text_name(track, sizeof track, s->track, 16),
                         ludus__text_name(name, sizeof name, s->name, 24), (unsigned long long)s->zones,
                         (unsigned long long)s->incomplete, ludus__dur(b1, sizeof b1, (double)s->duration.p50_ns),
                         ludus__dur(b2, sizeof b2, (double)s->duration.p90_ns),
                         ludus__dur(b3, sizeof b3, (double)s->duration.max_ns), s->frames_spanned_mean,
                         (unsigned long long)s->cross_thread, 100.0 * s->thread_busy_share);
        }
    }
}

void ludus__report_timeline_json(const ludus_analysis *a, ludus__writer *w) {
    ludus_message_stats m;
    ludus_analysis_get_messages(a, &m);
    ludus__w_fmt(w,
                 ",\"messages\":{\"debug\":%llu,\"info\":%llu,\"warning\":%llu,\"error\":%llu,"
                 "\"frames_with_warnings\":%llu,\"frames_with_errors\":%llu,\"first\":[",
                 (unsigned long long)m.count[0], (unsigned long long)m.count[1], (unsigned long long)m.count[2],
                 (unsigned long long)m.count[3], (unsigned long long)m.frames_with_warnings,
                 (unsigned long long)m.frames_with_errors);
    for (uint32_t i = 0; i < a->nfirst_msgs; i++) {
        const ludus_message_info *x = &a->first_msgs[i];
        ludus__w_fmt(w, "%s{\"level\":\"%s\",\"frame\":%llu,\"ts_ns\":%lld,\"thread\":", i ? "," : "",
                     ludus_log_level_name(x->level), (unsigned long long)x->frame, (long long)x->ts_ns);
        ludus__w_jstr(w, x->thread);
        ludus__w_fmt(w, ",\"text\":");
        ludus__w_jstr(w, x->text);
        ludus__w_fmt(w, "}");
    }
    /* [frame, warnings, errors] of each frame that had any (the HTML chart marks them) */
    ludus__w_fmt(w, "],\"frames\":[");
    size_t n = a->nwarn_frames;
    const uint64_t *f = a->warn_frames;
    for (size_t i = 0, k = 0; i < n;) {
        uint64_t fr = f[i] >> 1, wn = 0, er = 0;
        for (; i < n && f[i] >> 1 == fr; i++) {
            if (f[i] & 1)
                er++;
            else
                wn++;
        }
        ludus__w_fmt(w, "%s[%llu,%llu,%llu]", k++ ? "," : "", (unsigned long long)fr, (unsigned long long)wn,
                     (unsigned long long)er);
    }
    ludus__w_fmt(w, "]},\"async\":[");
    for (uint32_t i = 0; i < a->nasyncs; i++) {
        const ludus_async_stats *s = &a->asyncs[i];
        ludus__w_fmt(w, "%s{\"track\":", i ? "," : "");
        ludus__w_jstr(w, s->track);
        ludus__w_fmt(w, ",\"name\":");
        ludus__w_jstr(w, s->name);
        ludus__w_fmt(w,
                     ",\"zones\":%llu,\"incomplete\":%llu,\"cross_thread\":%llu,\"frames_spanned_mean\":%.3f,"
                     "\"frames_spanned_max\":%llu,\"max_depth\":%u,\"thread_busy_ns\":%lld,"
                     "\"thread_busy_share\":%.4f,\"duration\":",
                     (unsigned long long)s->zones, (unsigned long long)s->incomplete,
                     (unsigned long long)s->cross_thread, s->frames_spanned_mean,
                     (unsigned long long)s->frames_spanned_max, s->max_depth, (long long)s->thread_busy_ns,
                     s->thread_busy_share);
        ludus__json_stats(w, &s->duration);
        ludus__w_fmt(w, "}");
    }
    ludus__w_fmt(w, "]");
}

/* ---- the diff: warnings and errors per frame ---- */

static const char *metric_name_of(int level) {
    return level == LUDUS_LOG_ERROR ? "errors" : "warnings";
}

typedef struct msg_rate {
    uint64_t count[4];
    double per_frame[4]; /* over the window's complete frames; the count when there are none */
} msg_rate;

static msg_rate rate_of(const ludus_analysis *a) {
    msg_rate r;
    ludus_message_stats m;
    ludus_analysis_get_messages(a, &m);
    ludus_analysis_summary s;
    ludus_analysis_get_summary(a, &s);
    for (int l = 0; l < 4; l++) {
        r.count[l] = m.count[l];
        r.per_frame[l] = s.frames_in_window ? (double)m.count[l] / (double)s.frames_in_window : (double)m.count[l];
    }
    return r;
}

/* NEW's rate over BASE's, - 1; HUGE_VAL when BASE had none and NEW has some. */
static double rate_rel(double base, double newer) {
    if (base > 0) return newer / base - 1;
    return newer > 0 ? HUGE_VAL : 0;
}

uint32_t ludus__messages_diff_text(const ludus_analysis *base, const ludus_analysis *newer, ludus__writer *w) {
    msg_rate a = rate_of(base), b = rate_of(newer);
    if (!a.count[2] && !a.count[3] && !b.count[2] && !b.count[3]) return 0;
    ludus__w_str(w, "\nMessages (per window frame; gates 'errors > +X%', 'warnings > +X%'):\n");
    for (int l = LUDUS_LOG_ERROR; l >= LUDUS_LOG_WARNING; l--) {
        double rel = rate_rel(a.per_frame[l], b.per_frame[l]);
        char change[32];
        if (rel == HUGE_VAL)
            snprintf(change, sizeof change, "new");
        else if (rel == 0)
            snprintf(change, sizeof change, "same");
        else
            snprintf(change, sizeof change, "%+.1f%%", rel * 100);
        ludus__w_fmt(w, "  %-8s %llu -> %llu  (%.4f -> %.4f per frame: %s)\n", metric_name_of(l),
                     (unsigned long long)a.count[l], (unsigned long long)b.count[l], a.per_frame[l], b.per_frame[l],
                     change);
    }
    return 2;
}

void ludus__messages_diff_json(const ludus_analysis *base, const ludus_analysis *newer, ludus__writer *w) {
    msg_rate r[2] = {rate_of(base), rate_of(newer)};
    ludus__w_str(w, ",\"messages\":{");
    for (int k = 0; k < 2; k++) {
        ludus__w_fmt(w,
                     "%s\"%s\":{\"debug\":%llu,\"info\":%llu,\"warning\":%llu,\"error\":%llu,"
                     "\"warnings_per_frame\":%.6f,\"errors_per_frame\":%.6f}",
                     k ? "," : "", k ? "new" : "base", (unsigned long long)r[k].count[0],
                     (unsigned long long)r[k].count[1], (unsigned long long)r[k].count[2],
                     (unsigned long long)r[k].count[3], r[k].per_frame[2], r[k].per_frame[3]);
    }
    ludus__w_ch(w, '}');
}

uint32_t ludus__messages_check_gates(const ludus_analysis *base, const ludus_analysis *newer, const ludus_gate *gates,
                                     uint32_t ngates, ludus_write_fn write, void *ud) {
    uint32_t tripped = 0;
    msg_rate a = rate_of(base), b = rate_of(newer);
    for (uint32_t g = 0; g < ngates; g++) {
        const ludus_gate *gt = &gates[g];
        if (gt->metric != LUDUS_METRIC_ERRORS && gt->metric != LUDUS_METRIC_WARNINGS) continue;
        int l = gt->metric == LUDUS_METRIC_ERRORS ? LUDUS_LOG_ERROR : LUDUS_LOG_WARNING;
        double rel = rate_rel(a.per_frame[l], b.per_frame[l]);
        if (!(gt->greater ? rel > gt->rel : rel < gt->rel)) continue;
        tripped++;
        if (write) {
            char line[300];
            int n = rel == HUGE_VAL
                        ? snprintf(line, sizeof line, "gate '%s' tripped: %s: %llu in NEW, none in BASE\n", gt->text,
                                   metric_name_of(l), (unsigned long long)b.count[l])
                        : snprintf(line, sizeof line, "gate '%s' tripped: %s per frame %+.1f%% (%llu -> %llu)\n",
                                   gt->text, metric_name_of(l), rel * 100, (unsigned long long)a.count[l],
                                   (unsigned long long)b.count[l]);
            if (n > 0) write(ud, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        }
    }
    return tripped;
}
