/* The .ludus GPU record (file_format.h: LUDUS__NF_GPU): a capture's GPU
 * data (src/gpu/gpu_data.h) written and read back, placed again when read. */
#include <stdio.h>
#include <string.h>

#include "file_format.h"
#include "../gpu/gpu_data.h"
#include "../base/text.h"

_Static_assert(LUDUS__GPU_NAME_MAX == LUDUS__NF_MAX_STRING, "a GPU pass name is a file's string");

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
            !ludus__gpu_finite_positive(k->period_ns))
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
        if (!ludus__gpu_finite_positive(s->period_ns)) s->period_ns = 0; /* the context's */
        s->submit_ns = ludus__gpu_clamp_time(e.submit_ns);
    }
    g->s_cap = g->ns;
    for (uint64_t i = 0; i < h.ncal; i++) {
        if (n - off < h.cal_bytes) return BAD("GPU calibration point %llu truncated", (unsigned long long)i);
        ludus__nf_gpu_cal e;
        ludus__nf_gpu_cal_get(&e, p + off);
        off += h.cal_bytes;
        if (e.ctx >= g->nctx || e.dev_ns < 0)
            return BAD("GPU calibration point %llu: context %u", (unsigned long long)i, e.ctx);
        g->cal[g->ncal++] =
            (ludus__gpu_cal){e.ctx, e.ticks, ludus__gpu_clamp_time(e.cpu_ns), ludus__gpu_clamp_time(e.dev_ns)};
    }
    g->cal_cap = g->ncal;
    return ludus__gpu_place(g) ? -2 : 0;
}
