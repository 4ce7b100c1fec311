/* GPU timing, transport-neutral (<ludus/gpu.h>, docs/gpu.md). GPU samples
 * are not hot-path events: a backend hands them over once per frame after
 * readback, so they do not go through the event streams. While a capture
 * runs, each context keeps what it is handed in the store below (under one
 * lock); when the capture ends, session.c moves the store into the capture
 * object (ludus__gpu_capture_end), where the placement is derived once: the
 * calibration mapping (linear between accepted points, drift corrected),
 * the error bound of each span, lanes for spans that overlap on a queue,
 * and, without calibration, each frame anchored at its CPU submission.
 * Files keep the raw samples and points (the GPU record) and place them
 * again when read. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../platform/sync.h"
#include "../capture/capture_internal.h"
#include "../format/file_format.h"
#include "../base/text.h"

#define MAX_CONTEXTS 64u
#define MAX_DEVIATION_NS 50000 /* a calibration point less certain than this is rejected */
#define ASSUMED_DRIFT 1e-4     /* one point only: drift taken as 100 ppm (a crystal's tolerance) */
#define DISCORD_FRACTION 1e-3  /* two points whose elapsed times disagree by 0.1% (plus deviations): a break */

struct ludus_gpu_context {
    uint32_t slot; /* in the store's data (the running capture's context index) */
    ludus__gpu_ctx info;
    int live;
};

static struct {
    ludus__mutex lock;
    ludus_gpu_context *ctx[MAX_CONTEXTS];
    ludus__gpu_data *data; /* the running capture's; NULL without one */
    int64_t start_ns;
    /* slots of data->ctx whose context was destroyed with nothing handed
     * over: a context created next takes one, so creating and destroying
     * contexts in one capture does not grow it (dropped at its end) */
    uint32_t *free_slot;
    uint32_t nfree, free_cap;
    int not_recorded; /* a capture runs that records no GPU (ludus_capture_desc.record) */
} S = {.lock = LUDUS__MUTEX_INIT};

/* Nothing of this context is in the capture: no sample, no point, no count. */
static int ctx_empty(const ludus__gpu_ctx *k) {
    for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++)
        if (k->cov[v]) return 0;
    return k->handed == 0;
}

/* The empty slots of g dropped, the samples' and points' contexts renumbered. */
static void compact(ludus__gpu_data *g, const uint32_t *free_slot, uint32_t nfree) {
    if (!nfree) return;
    uint32_t *map = ludus__malloc(g->nctx * sizeof *map);
    if (!map) return; /* out of memory: the empty tracks stay */
    for (uint32_t i = 0; i < g->nctx; i++) map[i] = 0;
    for (uint32_t i = 0; i < nfree; i++)
        if (free_slot[i] < g->nctx) map[free_slot[i]] = UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t i = 0; i < g->nctx; i++) {
        if (map[i] == UINT32_MAX) continue;
        map[i] = n;
        g->ctx[n++] = g->ctx[i];
    }
    g->nctx = n;
    for (uint64_t i = 0; i < g->ns; i++) g->s[i].ctx = map[g->s[i].ctx];
    for (uint64_t i = 0; i < g->ncal; i++) g->cal[i].ctx = map[g->cal[i].ctx];
    ludus__free(map);
}

static const char *const queue_names[] = {"graphics", "compute", "copy"};

/* Without libm (the runtime library needs libc and pthreads only). */
/* GPU times and durations stay within +-2^62 ns (146 years): a file's
 * ticks and periods may be anything, and the difference of any two such
 * times (a span's length) is then never a signed overflow. */
#define TIME_LIMIT (((int64_t)1 << 62) - 1)
static int64_t clamp_time(int64_t t) {
    return t > TIME_LIMIT ? TIME_LIMIT : t < -TIME_LIMIT ? -TIME_LIMIT : t;
}
static int64_t round_i64(double x) {
    if (!(x == x)) return 0;
    if (x >= (double)TIME_LIMIT) return TIME_LIMIT;
    if (x <= -(double)TIME_LIMIT) return -TIME_LIMIT;
    return (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
}
static int64_t sat_add(int64_t a, int64_t b) { /* a time and a span: clamped, never a signed overflow */
    return clamp_time(clamp_time(a) + clamp_time(b));
}
static double abs_f64(double x) {
    return x < 0 ? -x : x;
}
static int finite_positive(double x) {
    return x > 0 && x <= 1e300; /* false for NaN and infinity */
}

/* t - ref in ticks modulo 2^bits, as a signed distance (half the range each way). */
static int64_t tick_delta(uint64_t t, uint64_t ref, uint32_t bits) {
    uint64_t d = t - ref;
    if (bits >= 64) return (int64_t)d;
    uint64_t mask = (UINT64_C(1) << bits) - 1;
    d &= mask;
    return d >> (bits - 1) ? (int64_t)(d | ~mask) : (int64_t)d;
}

/* ---- the store ---- */

static int add_ctx(ludus__gpu_data *g, const ludus__gpu_ctx *info, uint32_t *slot) {
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
static uint32_t name_index(ludus__gpu_data *g, const char *name) {
    /* the stored form: valid, at most LUDUS__NF_MAX_STRING bytes (what a
     * file holds), cut between characters */
    size_t len = strnlen(name, LUDUS__NF_MAX_STRING + 1);
    char *clean = NULL;
    if (len > LUDUS__NF_MAX_STRING || !ludus__utf8_valid(name, len)) {
        clean = ludus__malloc(LUDUS__NF_MAX_STRING + 1);
        if (!clean) return UINT32_MAX;
        len = strnlen(name, 4 * LUDUS__NF_MAX_STRING);
        clean[ludus__utf8_clean(name, len, clean, LUDUS__NF_MAX_STRING)] = 0;
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

void ludus__gpu_free(ludus__gpu_data *g) {
    if (!g) return;
    for (uint32_t i = 0; i < g->nnames; i++) ludus__free(g->names[i]);
    ludus__free(g->names);
    ludus__free(g->name_hash);
    ludus__free(g->ctx);
    ludus__free(g->s);
    ludus__free(g->cal);
    ludus__free(g);
}

void ludus__gpu_capture_begin(int64_t start_ns, int record) {
    ludus__mutex_lock(&S.lock);
    ludus__gpu_free(S.data);
    S.nfree = 0;
    S.not_recorded = !record;
    S.data = record ? ludus__calloc(1, sizeof *S.data) : NULL;
    S.start_ns = start_ns;
    for (uint32_t i = 0; i < MAX_CONTEXTS && S.data; i++)
        if (S.ctx[i] && add_ctx(S.data, &S.ctx[i]->info, &S.ctx[i]->slot)) {
            ludus__gpu_free(S.data); /* out of memory: this capture has no GPU data */
            S.data = NULL;
        }
    ludus__mutex_unlock(&S.lock);
}

/* Only the forking thread runs in the child: the lock may have been held
 * by another thread of the parent, and the store may be mid-change, so both
 * start afresh (the parent's store is left to leak in the child). */
void ludus__gpu_after_fork(int capture, int64_t start_ns) {
    ludus__mutex_init(&S.lock);
    S.data = NULL;
    S.nfree = 0;
    S.not_recorded = 0;
    if (capture) ludus__gpu_capture_begin(start_ns, 1);
}

/* In the copy writing a crash: a thread of the crashed process that held
 * the lock may have left the store half changed (a sample counted, not yet
 * written): its samples are left out, never read half written. */
void ludus__gpu_crashed(void) {
    if (ludus__mutex_trylock(&S.lock) == 0) {
        ludus__mutex_unlock(&S.lock);
        return;
    }
    ludus__mutex_init(&S.lock);
    S.data = NULL;
    S.nfree = 0;
}

void ludus__gpu_capture_end(ludus_capture *c) {
    ludus__mutex_lock(&S.lock);
    ludus__gpu_data *g = S.data;
    S.data = NULL;
    S.not_recorded = 0;
    if (g) compact(g, S.free_slot, S.nfree);
    S.nfree = 0;
    ludus__mutex_unlock(&S.lock);
    if (!g) return;
    /* handed over between the capture's end and this take, submitted after
     * the end: not this capture's (a moment later they would have been
     * refused, as between captures) */
    uint64_t kept = 0;
    for (uint64_t i = 0; c && i < g->ns; i++)
        if (g->s[i].submit_ns <= c->end_ns - c->start_ns) g->s[kept++] = g->s[i];
    if (c) g->ns = kept;
    if (!c || (g->nctx == 0 && g->ns == 0)) {
        ludus__gpu_free(g);
        return;
    }
    if (ludus__gpu_place(g)) { /* out of memory: no GPU data rather than half of it */
        ludus__gpu_free(g);
        return;
    }
    c->gpu = g;
}

void ludus__gpu_ring_copy(ludus_capture *c) {
    ludus__gpu_data *copy = NULL;
    ludus__mutex_lock(&S.lock);
    ludus__gpu_data *g = S.data;
    int rc = 0;
    if (g) {
        int64_t forget = c->start_ns - S.start_ns; /* the store's times count from the recording's start */
        uint64_t kept = 0;
        for (uint64_t i = 0; i < g->ns; i++)
            if (g->s[i].submit_ns >= forget) g->s[kept++] = g->s[i];
        g->ns = kept;
        /* calibration points: those since, and each context's last before
         * (one pass from the end, then the kept ones moved to the front) */
        uint8_t *seen = ludus__calloc(g->nctx ? g->nctx : 1, 1);
        if (seen) {
            uint64_t to = g->ncal;
            for (uint64_t i = g->ncal; i-- > 0;) {
                uint32_t x = g->cal[i].ctx;
                if (g->cal[i].cpu_ns < forget && (x >= g->nctx || seen[x]++)) continue;
                g->cal[--to] = g->cal[i];
            }
            if (to < g->ncal) memmove(g->cal, g->cal + to, (g->ncal - to) * sizeof *g->cal);
            g->ncal -= to;
            ludus__free(seen);
        }
        rc = ludus__gpu_append(&copy, g, S.start_ns - c->start_ns);
    }
    ludus__mutex_unlock(&S.lock);
    if (rc || !copy || (copy->nctx == 0 && copy->ns == 0) || ludus__gpu_place(copy)) {
        ludus__gpu_free(copy);
        return;
    }
    c->gpu = copy;
}

int ludus_gpu_context_create(const ludus_gpu_context_desc *desc, ludus_gpu_context **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!desc || !finite_positive(desc->tick_period_ns) || desc->queue < 0 || desc->queue > LUDUS_GPU_QUEUE_COPY ||
        desc->valid_bits > 64)
        return ludus__fail(LUDUS_EINVAL, "a GPU context needs a tick period > 0, a queue kind and valid_bits <= 64");
    ludus_gpu_context *x = ludus__calloc(1, sizeof *x);
    if (!x) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus__gpu_ctx *in = &x->info;
    if (desc->name)
        in->name[ludus__utf8_clean(desc->name, strnlen(desc->name, 63), in->name, sizeof in->name - 1)] = 0;
    else
        snprintf(in->name, sizeof in->name, "GPU %s", queue_names[desc->queue]);
    if (desc->device)
        in->device[ludus__utf8_clean(desc->device, strnlen(desc->device, 63), in->device, sizeof in->device - 1)] = 0;
    in->queue = (uint32_t)desc->queue;
    in->period_ns = desc->tick_period_ns;
    in->valid_bits = desc->valid_bits ? desc->valid_bits : 64;
    x->live = 1;
    ludus__mutex_lock(&S.lock);
    uint32_t i = 0;
    while (i < MAX_CONTEXTS && S.ctx[i]) i++;
    int rc = 0;
    if (i == MAX_CONTEXTS) {
        rc = LUDUS_ETHREADS;
    } else if (S.data && S.nfree) { /* a slot a destroyed context left empty */
        x->slot = S.free_slot[--S.nfree];
        S.data->ctx[x->slot] = *in;
        memset(S.data->ctx[x->slot].cov, 0, sizeof in->cov);
        S.data->ctx[x->slot].handed = 0;
    } else if (S.data && add_ctx(S.data, in, &x->slot)) {
        rc = LUDUS_ENOMEM;
    }
    if (rc == 0) S.ctx[i] = x;
    ludus__mutex_unlock(&S.lock);
    if (rc) {
        ludus__free(x);
        return ludus__fail(rc, rc == LUDUS_ETHREADS ? "%u GPU contexts live" : "out of memory", MAX_CONTEXTS);
    }
    *out = x;
    return 0;
}

static ludus__gpu_ctx *running_ctx(ludus_gpu_context *x) {
    return S.data && x->slot < S.data->nctx ? &S.data->ctx[x->slot] : NULL;
}

void ludus_gpu_context_destroy(ludus_gpu_context *x) {
    if (!x) return;
    ludus__backend_gpu_forget(x);
    ludus__mutex_lock(&S.lock);
    int known = 0;
    for (uint32_t i = 0; i < MAX_CONTEXTS; i++)
        if (S.ctx[i] == x) S.ctx[i] = NULL, known = 1;
    ludus__gpu_ctx *k = known ? running_ctx(x) : NULL;
    if (k && ctx_empty(k)) { /* nothing of it in the capture: its slot is taken again */
        if (S.nfree == S.free_cap) {
            uint32_t cap = S.free_cap ? S.free_cap * 2 : 16;
            uint32_t *n = ludus__realloc(S.free_slot, cap * sizeof *n);
            if (n) S.free_slot = n, S.free_cap = cap;
        }
        if (S.nfree < S.free_cap) S.free_slot[S.nfree++] = x->slot;
    }
    ludus__mutex_unlock(&S.lock);
    ludus__free(x);
}

int64_t ludus_gpu_cpu_now_ns(void) {
    return ludus__mono_ns();
}

int ludus_gpu_submit(ludus_gpu_context *x, const ludus_gpu_sample *smp, uint32_t n) {
    if (!x || (n && !smp)) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    int rc = 0;
    ludus__backend_gpu_ctx bx = {x, x->info.name, x->info.period_ns, x->info.valid_bits};
    if (ludus__backend_gpu_submit(&bx, smp, n, &rc)) return rc; /* a Tracy build's GPU context, not a capture's store */
    ludus__mutex_lock(&S.lock);
    ludus__gpu_data *g = S.data;
    ludus__gpu_ctx *ci = running_ctx(x);
    if (!g || !ci) {
        rc = S.not_recorded ? 0 : LUDUS_ENOCAPTURE; /* a capture that records no GPU takes it and drops it */
        goto out;
    }
    if (g->ns + n > g->s_cap) {
        uint64_t cap = g->s_cap ? g->s_cap : 256;
        while (cap < g->ns + n) cap *= 2;
        ludus__gpu_sample *s = ludus__realloc(g->s, cap * sizeof *s);
        if (!s) {
            rc = LUDUS_ENOMEM;
            goto out;
        }
        g->s = s;
        g->s_cap = cap;
    }
    for (uint32_t i = 0; i < n; i++) {
        const ludus_gpu_sample *in = &smp[i];
        if (in->submit_ns < S.start_ns) {
            ci->cov[LUDUS_GPU_BEFORE_CAPTURE]++;
            continue;
        }
        uint32_t bits = ci->valid_bits;
        uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        if (tick_delta(in->end_ticks, in->begin_ticks, bits) < 0) { /* ends before it begins */
            ci->cov[LUDUS_GPU_INVALID]++;
            continue;
        }
        if ((in->end_ticks & mask) < (in->begin_ticks & mask)) ci->cov[LUDUS_GPU_WRAPPED]++;
        uint32_t name = in->pass ? name_index(g, in->pass) : UINT32_MAX;
        if (in->pass && name == UINT32_MAX) {
            rc = LUDUS_ENOMEM;
            goto out;
        }
        ludus__gpu_sample *o = &g->s[g->ns++];
        ci->handed++;
        memset(o, 0, sizeof *o);
        o->ctx = x->slot;
        o->name = name;
        o->frame = in->frame;
        o->begin_ticks = in->begin_ticks;
        o->end_ticks = in->end_ticks;
        o->flow_id = in->flow_id;
        o->period_ns = finite_positive(in->tick_period_ns) ? in->tick_period_ns : ci->period_ns;
        o->submit_ns = clamp_time(in->submit_ns - S.start_ns); /* >= 0: earlier ones were left out */
    }
out:
    ludus__mutex_unlock(&S.lock);
    return rc ? ludus__fail(rc, rc == LUDUS_ENOCAPTURE ? "no capture is active" : "out of memory") : 0;
}

int ludus_gpu_calibrate(ludus_gpu_context *x, uint64_t gpu_ticks, int64_t cpu_ns, int64_t max_deviation_ns) {
    if (!x || max_deviation_ns < 0) return ludus__fail(LUDUS_EINVAL, "bad argument");
    int rc = 0;
    ludus__backend_gpu_ctx bx = {x, x->info.name, x->info.period_ns, x->info.valid_bits};
    if (ludus__backend_gpu_calibrate(&bx, gpu_ticks, cpu_ns, max_deviation_ns <= MAX_DEVIATION_NS, &rc)) return rc;
    ludus__mutex_lock(&S.lock);
    ludus__gpu_data *g = S.data;
    ludus__gpu_ctx *ci = running_ctx(x);
    if (!g || !ci) {
        rc = S.not_recorded ? 0 : LUDUS_ENOCAPTURE; /* a capture that records no GPU takes it and drops it */
    } else if (max_deviation_ns > MAX_DEVIATION_NS) {
        ci->cov[LUDUS_GPU_CALIBRATION_REJECTED]++;
    } else {
        if (g->ncal == g->cal_cap) {
            uint64_t cap = g->cal_cap ? g->cal_cap * 2 : 64;
            ludus__gpu_cal *n = ludus__realloc(g->cal, cap * sizeof *n);
            if (!n) rc = LUDUS_ENOMEM;
            if (n) g->cal = n, g->cal_cap = cap;
        }
        int64_t at;
        if (__builtin_sub_overflow(cpu_ns, S.start_ns, &at)) at = cpu_ns < 0 ? -TIME_LIMIT : TIME_LIMIT;
        if (rc == 0) {
            g->cal[g->ncal++] = (ludus__gpu_cal){x->slot, gpu_ticks, clamp_time(at), clamp_time(max_deviation_ns)};
            ci->handed++;
        }
    }
    ludus__mutex_unlock(&S.lock);
    return rc ? ludus__fail(rc, rc == LUDUS_ENOCAPTURE ? "no capture is active" : "out of memory") : 0;
}

void ludus_gpu_count(ludus_gpu_context *x, int what, uint64_t n) {
    if (!x || what < 0 || what >= LUDUS_GPU_COVERAGE_COUNT) return;
    ludus__mutex_lock(&S.lock);
    ludus__gpu_ctx *ci = running_ctx(x);
    if (ci) ci->cov[what] += n;
    ludus__mutex_unlock(&S.lock);
}

/* ---- placement ---- */

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
        if (tick_delta(t, cal[mid].ticks, bits) >= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t i = (int64_t)lo - 1;        /* -1: before the first point */
    if (i >= 0 && i + 1 < (int64_t)n) { /* between two points: interpolated */
        const ludus__gpu_cal *a = &cal[i], *b = &cal[i + 1];
        double dt = (double)tick_delta(b->ticks, a->ticks, bits);
        double slope = dt > 0 ? (double)(b->cpu_ns - a->cpu_ns) / dt : period;
        *err = a->dev_ns > b->dev_ns ? a->dev_ns : b->dev_ns;
        *extra = 0;
        return sat_add(a->cpu_ns, round_i64((double)tick_delta(t, a->ticks, bits) * slope));
    }
    /* outside: from the nearest point, along its segment's slope */
    int64_t p = i < 0 ? 0 : i;
    const ludus__gpu_cal *a = &cal[p];
    int64_t q = i < 0 ? 1 : i - 1; /* its neighbour */
    double slope = period, rel = ASSUMED_DRIFT;
    if (q >= 0 && q < (int64_t)n) {
        const ludus__gpu_cal *b = &cal[q];
        double dt = (double)tick_delta(b->ticks, a->ticks, bits), dc = (double)(b->cpu_ns - a->cpu_ns);
        if (dt != 0 && dc != 0) {
            slope = dc / dt;
            rel = ((double)a->dev_ns + (double)b->dev_ns) / abs_f64(dc);
        }
    }
    double d = (double)tick_delta(t, a->ticks, bits) * slope;
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
        double dt = (double)tick_delta(cal[i].ticks, cal[i - 1].ticks, bits) * ci->period_ns;
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
        int64_t dticks = tick_delta(x->end_ticks, x->begin_ticks, bits);
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
                if (tick_delta(s[j].begin_ticks, first, bits) < 0) first = s[j].begin_ticks;
            }
            for (uint64_t m = i; m < j; m++) {
                double period = s[m].period_ns > 0 ? s[m].period_ns : ci->period_ns;
                s[m].begin_ns = sat_add(anchor, round_i64((double)tick_delta(s[m].begin_ticks, first, bits) * period));
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
        if (j == g->nctx && add_ctx(g, sc, &j)) rc = LUDUS_ENOMEM;
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT && rc == 0; v++) g->ctx[j].cov[v] += sc->cov[v];
        map[k] = j;
    }
    for (uint32_t i = 0; i < src->nnames && rc == 0; i++)
        if ((nmap[i] = name_index(g, src->names[i])) == UINT32_MAX) rc = LUDUS_ENOMEM;
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

/* ---- the .ludus GPU record (file_format.h: LUDUS__NF_GPU) ---- */

static uint64_t f64_bits(double d) {
    uint64_t u;
    memcpy(&u, &d, 8);
    return u;
}
static double bits_f64(uint64_t u) {
    double d;
    memcpy(&d, &u, 8);
    return d;
}

uint8_t *ludus__gpu_encode(const ludus__gpu_data *g, size_t *n) {
    size_t cap = ludus__nf_gpu_head_BYTES +
                 (size_t)g->nctx * (ludus__nf_gpu_ctx_BYTES + 8 * LUDUS_GPU_COVERAGE_COUNT + 128) +
                 (size_t)g->ns * ludus__nf_gpu_sample_BYTES + (size_t)g->ncal * ludus__nf_gpu_cal_BYTES;
    for (uint32_t i = 0; i < g->nnames; i++) cap += 4 + strlen(g->names[i]);
    uint8_t *b = ludus__malloc(cap), *p = b;
    if (!b) return NULL;
    ludus__nf_gpu_head h = {ludus__nf_gpu_ctx_BYTES,
                            ludus__nf_gpu_sample_BYTES,
                            ludus__nf_gpu_cal_BYTES,
                            g->nctx,
                            g->nnames,
                            0,
                            g->ns,
                            g->ncal};
    ludus__nf_gpu_head_put(p, &h);
    p += ludus__nf_gpu_head_BYTES;
    for (uint32_t i = 0; i < g->nctx; i++) {
        const ludus__gpu_ctx *k = &g->ctx[i];
        uint32_t nl = (uint32_t)strlen(k->name), dl = (uint32_t)strlen(k->device);
        ludus__nf_gpu_ctx e = {k->queue, k->valid_bits, f64_bits(k->period_ns), nl, dl, LUDUS_GPU_COVERAGE_COUNT, 0};
        ludus__nf_gpu_ctx_put(p, &e);
        p += ludus__nf_gpu_ctx_BYTES;
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++) p = ludus__nf_put_U64(p, k->cov[v]);
        memcpy(p, k->name, nl);
        p += nl;
        memcpy(p, k->device, dl);
        p += dl;
    }
    for (uint32_t i = 0; i < g->nnames; i++) {
        uint32_t l = (uint32_t)strlen(g->names[i]);
        p = ludus__nf_put_U32(p, l);
        memcpy(p, g->names[i], l);
        p += l;
    }
    for (uint64_t i = 0; i < g->ns; i++) {
        const ludus__gpu_sample *s = &g->s[i];
        ludus__nf_gpu_sample e = {
            s->ctx, s->name, s->frame, s->begin_ticks, s->end_ticks, s->flow_id, f64_bits(s->period_ns), s->submit_ns};
        ludus__nf_gpu_sample_put(p, &e);
        p += ludus__nf_gpu_sample_BYTES;
    }
    for (uint64_t i = 0; i < g->ncal; i++) {
        const ludus__gpu_cal *x = &g->cal[i];
        ludus__nf_gpu_cal e = {x->ctx, 0, x->ticks, x->cpu_ns, x->dev_ns};
        ludus__nf_gpu_cal_put(p, &e);
        p += ludus__nf_gpu_cal_BYTES;
    }
    *n = (size_t)(p - b);
    return b;
}

#define BAD(...) (snprintf(why, why_cap, __VA_ARGS__), -1)

int ludus__gpu_decode(ludus_capture *c, const uint8_t *p, size_t n, char *why, size_t why_cap) {
    if (c->gpu) return BAD("a second GPU record");
    if (n < ludus__nf_gpu_head_BYTES) return BAD("GPU record too short");
    ludus__nf_gpu_head h;
    ludus__nf_gpu_head_get(&h, p);
    if (h.ctx_bytes < ludus__nf_gpu_ctx_BYTES || h.sample_bytes < ludus__nf_gpu_sample_BYTES ||
        h.cal_bytes < ludus__nf_gpu_cal_BYTES || h.ctx_bytes > 4096 || h.sample_bytes > 4096 || h.cal_bytes > 4096)
        return BAD("GPU record entry sizes %u/%u/%u are not ones this reader knows", h.ctx_bytes, h.sample_bytes,
                   h.cal_bytes);
    /* every count bounded by the record's length, as the writer wrote it:
     * a capture of any number of contexts reads back */
    if (h.nctx > n / h.ctx_bytes || h.nnames > n / 4 || h.nsamples > n / h.sample_bytes || h.ncal > n / h.cal_bytes)
        return BAD("GPU record counts exceed its length");
    ludus__gpu_data *g = ludus__calloc(1, sizeof *g);
    if (!g) return -2;
    c->gpu = g;
    g->ctx = ludus__calloc(h.nctx ? h.nctx : 1, sizeof *g->ctx);
    g->names = ludus__calloc(h.nnames ? h.nnames : 1, sizeof *g->names);
    g->names_cap = h.nnames;
    g->s = ludus__calloc(h.nsamples ? h.nsamples : 1, sizeof *g->s);
    g->cal = ludus__calloc(h.ncal ? h.ncal : 1, sizeof *g->cal);
    if (!g->ctx || !g->names || !g->s || !g->cal) return -2;
    size_t off = ludus__nf_gpu_head_BYTES;
    for (uint32_t i = 0; i < h.nctx; i++) {
        if (n - off < h.ctx_bytes) return BAD("GPU context %u truncated", i);
        ludus__nf_gpu_ctx e;
        ludus__nf_gpu_ctx_get(&e, p + off);
        off += h.ctx_bytes;
        if (e.cov_count > 256 || (n - off) / 8 < e.cov_count) return BAD("GPU context %u coverage truncated", i);
        ludus__gpu_ctx *k = &g->ctx[g->nctx];
        for (uint32_t v = 0; v < e.cov_count; v++, off += 8)
            if (v < LUDUS_GPU_COVERAGE_COUNT) ludus__nf_get_U64(p + off, &k->cov[v]);
        if (e.name_len > 63 || e.device_len > 63 || n - off < (size_t)e.name_len + e.device_len)
            return BAD("GPU context %u names are too long", i);
        k->name[ludus__utf8_clean((const char *)p + off, e.name_len, k->name, sizeof k->name - 1)] = 0;
        off += e.name_len;
        k->device[ludus__utf8_clean((const char *)p + off, e.device_len, k->device, sizeof k->device - 1)] = 0;
        off += e.device_len;
        k->queue = e.queue;
        k->valid_bits = e.valid_bits;
        k->period_ns = bits_f64(e.period_bits);
        if (k->queue > LUDUS_GPU_QUEUE_COPY || k->valid_bits == 0 || k->valid_bits > 64 ||
            !finite_positive(k->period_ns))
            return BAD("GPU context %u: queue %u, %u valid bits, period not > 0", i, k->queue, k->valid_bits);
        g->nctx++;
    }
    for (uint32_t i = 0; i < h.nnames; i++) {
        if (n - off < 4) return BAD("GPU pass name %u truncated", i);
        uint32_t l;
        ludus__nf_get_U32(p + off, &l);
        off += 4;
        if (l > LUDUS__NF_MAX_STRING || n - off < l) return BAD("GPU pass name %u: %u bytes", i, l);
        size_t cap = (size_t)l * 3 < LUDUS__NF_MAX_STRING ? (size_t)l * 3 : LUDUS__NF_MAX_STRING; /* as saved again */
        char *s = ludus__malloc(cap + 1);
        if (!s) return -2;
        s[ludus__utf8_clean((const char *)p + off, l, s, cap)] = 0;
        g->names[g->nnames++] = s;
        off += l;
    }
    for (uint64_t i = 0; i < h.nsamples; i++) {
        if (n - off < h.sample_bytes) return BAD("GPU sample %llu truncated", (unsigned long long)i);
        ludus__nf_gpu_sample e;
        ludus__nf_gpu_sample_get(&e, p + off);
        off += h.sample_bytes;
        if (e.ctx >= g->nctx || (e.name != UINT32_MAX && e.name >= g->nnames))
            return BAD("GPU sample %llu names context %u, pass %u", (unsigned long long)i, e.ctx, e.name);
        ludus__gpu_sample *s = &g->s[g->ns++];
        memset(s, 0, sizeof *s);
        s->ctx = e.ctx;
        s->name = e.name;
        s->frame = e.frame;
        s->begin_ticks = e.begin_ticks;
        s->end_ticks = e.end_ticks;
        s->flow_id = e.flow_id;
        s->period_ns = bits_f64(e.period_bits);
        if (!finite_positive(s->period_ns)) s->period_ns = 0; /* the context's */
        s->submit_ns = clamp_time(e.submit_ns);
    }
    g->s_cap = g->ns;
    for (uint64_t i = 0; i < h.ncal; i++) {
        if (n - off < h.cal_bytes) return BAD("GPU calibration point %llu truncated", (unsigned long long)i);
        ludus__nf_gpu_cal e;
        ludus__nf_gpu_cal_get(&e, p + off);
        off += h.cal_bytes;
        if (e.ctx >= g->nctx || e.dev_ns < 0)
            return BAD("GPU calibration point %llu: context %u", (unsigned long long)i, e.ctx);
        g->cal[g->ncal++] = (ludus__gpu_cal){e.ctx, e.ticks, clamp_time(e.cpu_ns), clamp_time(e.dev_ns)};
    }
    g->cal_cap = g->ncal;
    return ludus__gpu_place(g) ? -2 : 0;
}
