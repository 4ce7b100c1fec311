/* Capture objects: reference counting, cuts (views of a capture restricted
 * to some threads and a time range) and what `ludus-trace info` shows. The
 * types differ only in where runs come from (capture_internal.h). */
#include <stdlib.h>
#include <string.h>

#include "capture_internal.h"

ludus_capture *ludus__capture_new(int type) {
    ludus_capture *c = ludus__calloc(1, sizeof *c);
    if (!c) return NULL;
    c->refs = 1;
    c->type = type;
    c->format_version = LUDUS__FORMAT_VERSION;
    return c;
}

void ludus_capture_retain(ludus_capture *c) {
    if (c) __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void ludus_capture_release(ludus_capture *c) {
    if (!c) return;
    if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) ludus__capture_free(c);
}

void ludus__capture_free(ludus_capture *c) {
    if (c->destroy) c->destroy(c);
    if (c->type == LUDUS__CAP_MEMORY) {
        ludus__capture_release_pool(c);
        ludus__names_destroy(c->names);
    }
    ludus__free(c->stragglers);
    ludus__free(c->late);
    ludus__async_free(c);
    for (uint32_t i = 0; i < c->nthreads; i++)
        if (c->threads[i].lanes_owned) ludus__free(c->threads[i].span_lane);
    if (!c->borrowed) {
        for (uint32_t i = 0; i < c->nthreads; i++) ludus__free(c->threads[i].runs);
        ludus__free(c->sites);
        ludus__free(c->site_hash);
        ludus__arena_free(&c->site_text);
        ludus__free(c->categories);
        ludus__free(c->mem_cov);
        ludus__gpu_free(c->gpu);
    }
    ludus__free(c->threads);
    ludus_capture_release(c->parent);
    for (uint32_t i = 0; i < c->nparts; i++) ludus_capture_release(c->parts[i]);
    ludus__free(c->parts);
    ludus__free(c->carried);
    ludus__free(c);
}

int ludus_capture_cut(ludus_capture *src, const ludus_cut_desc *cut, ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!src || !cut) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    int rc = ludus__prepare(src);
    if (rc) return rc;
    int64_t dur = src->end_ns - src->start_ns;
    int64_t from = 0, to = dur;
    if (src->cut) from = src->cut_from_ns, to = src->cut_to_ns;
    if (cut->time) {
        if (cut->from_ns > cut->to_ns)
            return ludus__fail(LUDUS_EINVAL, "the cut's start (%lld ns) is after its end (%lld ns)",
                               (long long)cut->from_ns, (long long)cut->to_ns);
        if (cut->from_ns > to || cut->to_ns < from)
            return ludus__fail(LUDUS_EINVAL,
                               "the cut [%lld, %lld] ns selects nothing: the capture spans [%lld, %lld] ns",
                               (long long)cut->from_ns, (long long)cut->to_ns, (long long)from, (long long)to);
        if (cut->from_ns > from) from = cut->from_ns;
        if (cut->to_ns < to) to = cut->to_ns;
    }
    if (cut->threads && cut->nthreads == 0) return ludus__fail(LUDUS_EINVAL, "the cut keeps no thread");
    for (uint32_t i = 0; cut->threads && i < cut->nthreads; i++)
        if (cut->threads[i] >= src->nthreads)
            return ludus__fail(LUDUS_EINVAL, "thread index %u out of range (%u threads)", cut->threads[i],
                               src->nthreads);
    ludus_capture *v = ludus__capture_new(LUDUS__CAP_VIEW);
    if (!v) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    uint32_t nt = cut->threads ? cut->nthreads : src->nthreads;
    v->threads = ludus__calloc(nt ? nt : 1, sizeof *v->threads);
    if (!v->threads) {
        ludus__free(v);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    /* Everything but the ownership: the view reads through its parent. */
    ludus__cap_thread *threads = v->threads;
    int type = v->type;
    *v = *src;
    v->refs = 1;
    v->type = type;
    v->threads = threads;
    v->destroy = NULL;
    v->borrowed = 1;
    v->pool_mem = NULL;
    v->prefault = NULL;
    v->names = NULL;
    v->stragglers = NULL;
    v->nstragglers = 0;
    v->prepared = 0;
    v->prepare_error = 0;
    v->async = NULL; /* its own, clipped from the parent's */
    v->async_tracks = NULL;
    v->async_raw = NULL;
    v->nasync = v->nasync_tracks = v->async_tracks_cap = 0;
    v->nasync_raw = v->async_raw_cap = 0;
    v->async_ready = v->async_error = 0;
    v->parts = NULL; /* the parent holds them */
    v->nparts = 0;
    v->carried = NULL;
    v->nthreads = nt;
    for (uint32_t i = 0; i < nt; i++) {
        v->threads[i] = src->threads[cut->threads ? cut->threads[i] : i];
        v->threads[i].lanes_owned = 0; /* borrowed from the parent when it had decided them */
    }
    v->cut = cut->time || src->cut;
    v->cut_from_ns = from;
    v->cut_to_ns = to;
    if (cut->threads) v->unregistered_drops = 0;
    ludus_capture_retain(src);
    v->parent = src;
    rc = ludus__prepare(v);
    if (rc) {
        ludus_capture_release(v);
        return rc;
    }
    *out = v;
    return 0;
}

int ludus_capture_get_info(ludus_capture *c, ludus_capture_info *out) {
    if (!c || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    int rc = ludus__prepare(c);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->version = c->format_version;
    out->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    out->calib_ticks[0] = c->c0.ticks;
    out->calib_ticks[1] = c->c1.ticks;
    out->calib_ns[0] = c->c0.ns;
    out->calib_ns[1] = c->c1.ns;
    out->start_ns = c->start_ns;
    out->end_ns = c->end_ns;
    out->threads = c->nthreads;
    out->sites = c->nsites;
    out->blocks = c->blocks;
    out->compact = c->compact;
    out->slots = c->slots;
    out->file_bytes = c->file_bytes;
    out->pid = c->pid;
    out->process_name = c->process_name;
    out->categories = c->categories;
    out->cut = c->cut;
    out->cut_from_ns = c->cut_from_ns;
    out->cut_to_ns = c->cut_to_ns;
    out->crash_signal = c->crash_signal;
    out->crash_signal_name = c->crash_signal_name;
    out->crash_tid = c->crash_tid;
    out->crash_ns = c->crash_ns;
    out->recovered = c->recovered;
    if (c->type == LUDUS__CAP_MEMORY)
        for (uint32_t t = 0; t < c->nthreads; t++)
            out->slots += c->threads[t].slots, out->blocks += c->threads[t].nruns;
    return ludus_capture_summarize(c, &out->summary);
}
