/* GPU timing, transport-neutral (<ludus/gpu.h>, docs/gpu.md). GPU samples
 * are not hot-path events: a backend hands them over once per frame after
 * readback, so they do not go through the event streams. While a capture
 * runs, each context keeps what it is handed in the store below (under one
 * lock); when the capture ends, session.c moves the store into the capture
 * object (ludus__gpu_capture_end), where the placement is derived once
 * (gpu_data.c). Files keep the raw samples and points (the GPU record,
 * src/format/gpu_codec.c) and place them again when read. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../platform/sync.h"
#include "gpu_data.h"
#include "gpu_store.h"
#include "../base/text.h"

#define MAX_CONTEXTS 64u
#define MAX_DEVIATION_NS 50000 /* a calibration point less certain than this is rejected */

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
} gpu_store = {.lock = LUDUS__MUTEX_INIT};

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

/* ---- the store ---- */

void ludus__gpu_capture_begin(int64_t start_ns, int record) {
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_free(gpu_store.data);
    gpu_store.nfree = 0;
    gpu_store.not_recorded = !record;
    gpu_store.data = record ? ludus__calloc(1, sizeof *gpu_store.data) : NULL;
    gpu_store.start_ns = start_ns;
    for (uint32_t i = 0; i < MAX_CONTEXTS && gpu_store.data; i++)
        if (gpu_store.ctx[i] && ludus__gpu_add_ctx(gpu_store.data, &gpu_store.ctx[i]->info, &gpu_store.ctx[i]->slot)) {
            ludus__gpu_free(gpu_store.data); /* out of memory: this capture has no GPU data */
            gpu_store.data = NULL;
        }
    ludus__mutex_unlock(&gpu_store.lock);
}

/* Only the forking thread runs in the child: the lock may have been held
 * by another thread of the parent, and the store may be mid-change, so both
 * start afresh (the parent's store is left to leak in the child). */
void ludus__gpu_after_fork(int capture, int64_t start_ns) {
    ludus__mutex_init(&gpu_store.lock);
    gpu_store.data = NULL;
    gpu_store.nfree = 0;
    gpu_store.not_recorded = 0;
    if (capture) ludus__gpu_capture_begin(start_ns, 1);
}

/* In the copy writing a crash: a thread of the crashed process that held
 * the lock may have left the store half changed (a sample counted, not yet
 * written): its samples are left out, never read half written. */
void ludus__gpu_crashed(void) {
    if (ludus__mutex_trylock(&gpu_store.lock) == 0) {
        ludus__mutex_unlock(&gpu_store.lock);
        return;
    }
    ludus__mutex_init(&gpu_store.lock);
    gpu_store.data = NULL;
    gpu_store.nfree = 0;
}

void ludus__gpu_capture_end(ludus_capture *c) {
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_data *g = gpu_store.data;
    gpu_store.data = NULL;
    gpu_store.not_recorded = 0;
    if (g) compact(g, gpu_store.free_slot, gpu_store.nfree);
    gpu_store.nfree = 0;
    ludus__mutex_unlock(&gpu_store.lock);
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
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_data *g = gpu_store.data;
    int rc = 0;
    if (g) {
        int64_t forget = c->start_ns - gpu_store.start_ns; /* the store's times count from the recording's start */
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
        rc = ludus__gpu_append(&copy, g, gpu_store.start_ns - c->start_ns);
    }
    ludus__mutex_unlock(&gpu_store.lock);
    if (rc || !copy || (copy->nctx == 0 && copy->ns == 0) || ludus__gpu_place(copy)) {
        ludus__gpu_free(copy);
        return;
    }
    c->gpu = copy;
}

int ludus_gpu_context_create(const ludus_gpu_context_desc *desc, ludus_gpu_context **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!desc || !ludus__gpu_finite_positive(desc->tick_period_ns) || desc->queue < 0 ||
        desc->queue > LUDUS_GPU_QUEUE_COPY || desc->valid_bits > 64)
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
    ludus__mutex_lock(&gpu_store.lock);
    uint32_t i = 0;
    while (i < MAX_CONTEXTS && gpu_store.ctx[i]) i++;
    int rc = 0;
    if (i == MAX_CONTEXTS) {
        rc = LUDUS_ETHREADS;
    } else if (gpu_store.data && gpu_store.nfree) { /* a slot a destroyed context left empty */
        x->slot = gpu_store.free_slot[--gpu_store.nfree];
        gpu_store.data->ctx[x->slot] = *in;
        memset(gpu_store.data->ctx[x->slot].cov, 0, sizeof in->cov);
        gpu_store.data->ctx[x->slot].handed = 0;
    } else if (gpu_store.data && ludus__gpu_add_ctx(gpu_store.data, in, &x->slot)) {
        rc = LUDUS_ENOMEM;
    }
    if (rc == 0) gpu_store.ctx[i] = x;
    ludus__mutex_unlock(&gpu_store.lock);
    if (rc) {
        ludus__free(x);
        return ludus__fail(rc, rc == LUDUS_ETHREADS ? "%u GPU contexts live" : "out of memory", MAX_CONTEXTS);
    }
    *out = x;
    return 0;
}

static ludus__gpu_ctx *running_ctx(ludus_gpu_context *x) {
    return gpu_store.data && x->slot < gpu_store.data->nctx ? &gpu_store.data->ctx[x->slot] : NULL;
}

void ludus_gpu_context_destroy(ludus_gpu_context *x) {
    if (!x) return;
    ludus__backend_gpu_forget(x);
    ludus__mutex_lock(&gpu_store.lock);
    int known = 0;
    for (uint32_t i = 0; i < MAX_CONTEXTS; i++)
        if (gpu_store.ctx[i] == x) gpu_store.ctx[i] = NULL, known = 1;
    ludus__gpu_ctx *k = known ? running_ctx(x) : NULL;
    if (k && ctx_empty(k)) { /* nothing of it in the capture: its slot is taken again */
        if (gpu_store.nfree == gpu_store.free_cap) {
            uint32_t cap = gpu_store.free_cap ? gpu_store.free_cap * 2 : 16;
            uint32_t *n = ludus__realloc(gpu_store.free_slot, cap * sizeof *n);
            if (n) gpu_store.free_slot = n, gpu_store.free_cap = cap;
        }
        if (gpu_store.nfree < gpu_store.free_cap) gpu_store.free_slot[gpu_store.nfree++] = x->slot;
    }
    ludus__mutex_unlock(&gpu_store.lock);
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
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_data *g = gpu_store.data;
    ludus__gpu_ctx *ci = running_ctx(x);
    if (!g || !ci) {
        rc = gpu_store.not_recorded ? 0 : LUDUS_ENOCAPTURE; /* a capture that records no GPU takes it and drops it */
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
        if (in->submit_ns < gpu_store.start_ns) {
            ci->cov[LUDUS_GPU_BEFORE_CAPTURE]++;
            continue;
        }
        uint32_t bits = ci->valid_bits;
        uint64_t mask = bits >= 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
        if (ludus__gpu_tick_delta(in->end_ticks, in->begin_ticks, bits) < 0) { /* ends before it begins */
            ci->cov[LUDUS_GPU_INVALID]++;
            continue;
        }
        if ((in->end_ticks & mask) < (in->begin_ticks & mask)) ci->cov[LUDUS_GPU_WRAPPED]++;
        uint32_t name = in->pass ? ludus__gpu_name_index(g, in->pass) : UINT32_MAX;
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
        o->period_ns = ludus__gpu_finite_positive(in->tick_period_ns) ? in->tick_period_ns : ci->period_ns;
        o->submit_ns = ludus__gpu_clamp_time(in->submit_ns - gpu_store.start_ns); /* >= 0: earlier ones were left out */
    }
out:
    ludus__mutex_unlock(&gpu_store.lock);
    return rc ? ludus__fail(rc, rc == LUDUS_ENOCAPTURE ? "no capture is active" : "out of memory") : 0;
}

int ludus_gpu_calibrate(ludus_gpu_context *x, uint64_t gpu_ticks, int64_t cpu_ns, int64_t max_deviation_ns) {
    if (!x || max_deviation_ns < 0) return ludus__fail(LUDUS_EINVAL, "bad argument");
    int rc = 0;
    ludus__backend_gpu_ctx bx = {x, x->info.name, x->info.period_ns, x->info.valid_bits};
    if (ludus__backend_gpu_calibrate(&bx, gpu_ticks, cpu_ns, max_deviation_ns <= MAX_DEVIATION_NS, &rc)) return rc;
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_data *g = gpu_store.data;
    ludus__gpu_ctx *ci = running_ctx(x);
    if (!g || !ci) {
        rc = gpu_store.not_recorded ? 0 : LUDUS_ENOCAPTURE; /* a capture that records no GPU takes it and drops it */
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
        if (__builtin_sub_overflow(cpu_ns, gpu_store.start_ns, &at))
            at = cpu_ns < 0 ? -LUDUS__GPU_TIME_LIMIT : LUDUS__GPU_TIME_LIMIT;
        if (rc == 0) {
            g->cal[g->ncal++] = (ludus__gpu_cal){x->slot, gpu_ticks, ludus__gpu_clamp_time(at),
                                                 ludus__gpu_clamp_time(max_deviation_ns)};
            ci->handed++;
        }
    }
    ludus__mutex_unlock(&gpu_store.lock);
    return rc ? ludus__fail(rc, rc == LUDUS_ENOCAPTURE ? "no capture is active" : "out of memory") : 0;
}

void ludus_gpu_note_coverage(ludus_gpu_context *x, int what, uint64_t n) {
    if (!x || what < 0 || what >= LUDUS_GPU_COVERAGE_COUNT) return;
    ludus__mutex_lock(&gpu_store.lock);
    ludus__gpu_ctx *ci = running_ctx(x);
    if (ci) ci->cov[what] += n;
    ludus__mutex_unlock(&gpu_store.lock);
}

/* ---- placement ---- */
