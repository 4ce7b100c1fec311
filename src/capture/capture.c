/* Capture objects: reference counting, cuts (views of a capture restricted
 * to some threads and a time range) and what `ludus-trace info` shows. The
 * variants differ only in their source (capture_build.h,
 * ludus__source_ops): this file knows none of them but the cut's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "capture_gpu.h"
#include "nev.h"

ludus_capture *ludus__capture_new(const ludus__source_ops *src) {
    ludus_capture *c = ludus__calloc(1, sizeof *c);
    if (!c) return NULL;
    c->refs = 1;
    c->src = src;
    c->file.version = LUDUS__FORMAT_VERSION;
    return c;
}

void ludus_capture_retain(ludus_capture *c) {
    if (c) __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
}

void ludus_capture_release(ludus_capture *c) {
    if (!c) return;
    if (__atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) ludus__capture_free(c);
}

/* The capture owns its GPU data's memory (src/gpu/ fills it). */
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

int ludus__capture_run(const ludus_capture *c, uint32_t t, uint32_t i, uint64_t *cursor, ludus__run *out,
                       ludus__run_buf *buf) {
    if (c->src->load_run) return c->src->load_run(c, cursor, out, buf);
    *out = c->threads[t].runs[i];
    return 0;
}

static const ludus__source_ops given_source = {"given", NULL, ludus__build_recorded, NULL, NULL, 0};

void ludus__capture_given_init(ludus_capture *c, ludus__cap_thread *threads, uint32_t nthreads, int64_t end_ns) {
    memset(c, 0, sizeof *c);
    memset(threads, 0, nthreads * sizeof *threads);
    c->src = &given_source;
    c->refs = 1;
    c->end_ns = end_ns;
    c->threads = threads;
    c->nthreads = nthreads;
    for (uint32_t t = 0; t < nthreads; t++) threads[t].first_drop_ns = LUDUS__NO_DROP;
}

/* What reading made and what the capture holds beside its source's part:
 * the async zones, the span lanes, and unless it borrows them (a cut) its
 * sites, categories, manifest, GPU data and ring begins. */
static void free_view(ludus_capture *c) {
    ludus__async_free(c); /* a cut clips its own zones from its parent's */
    for (uint32_t i = 0; i < c->nthreads; i++) {
        if (c->threads[i].lanes_owned) ludus__free(c->threads[i].span_lane);
        ludus__mark_set_release(c->threads[i].marks);
    }
    if (c->src->borrows) return;
    ludus__free(c->sites);
    ludus__free(c->site_hash);
    ludus__arena_free(&c->site_text);
    ludus__free(c->categories);
    ludus__free(c->mem_cov);
    ludus__gpu_free(c->gpu);
    ludus__free(c->ring_synth);
}

void ludus__capture_given_free(ludus_capture *c) {
    free_view(c);
}

/* The source's part first (what it owns may hold pointers into the
 * view), then the prepared view, then the attachments. */
void ludus__capture_free(ludus_capture *c) {
    if (c->src->free) c->src->free(c);
    free_view(c);
    if (!c->src->borrows)
        for (uint32_t i = 0; i < c->nthreads; i++) ludus__free(c->threads[i].runs);
    ludus__free(c->threads);
    ludus__free(c);
}

/* ---- cuts: a view of a parent capture ---- */

/* A cut reads its parent's runs: in memory, or loaded by the parent's
 * source from the parent's file. */
static int view_load_run(const ludus_capture *v, uint64_t *cursor, ludus__run *out, ludus__run_buf *buf) {
    return v->parent->src->load_run(v->parent, cursor, out, buf);
}
static void view_free(ludus_capture *v) {
    ludus_capture_release(v->parent);
}
static const ludus__source_ops view_of_memory = {"cut", NULL, NULL, NULL, view_free, 1};
static const ludus__source_ops view_of_loaded = {"cut", NULL, NULL, view_load_run, view_free, 1};

void ludus__capture_mark_trigger(ludus_capture *c, const char *reason, int64_t at_ns, const char *detail) {
    snprintf(c->trigger.reason, sizeof c->trigger.reason, "%s", reason && reason[0] ? reason : "trigger");
    c->trigger.ns = at_ns;
    snprintf(c->trigger.detail, sizeof c->trigger.detail, "%s", detail ? detail : "");
}

/* What a cut has of its parent: the recording (clock, times, process,
 * crash, counts of the recorder), and by reference the prepared view
 * (sites, their text, categories) and the attachments (GPU data, memory
 * manifest). Its threads, counts and async zones are its own. */
static void view_of(ludus_capture *v, const ludus_capture *src) {
    v->gen = src->gen;
    v->clock_tsc = src->clock_tsc;
    v->c0 = src->c0;
    v->c1 = src->c1;
    v->start_ns = src->start_ns;
    v->end_ns = src->end_ns;
    v->pid = src->pid;
    memcpy(v->process_name, src->process_name, sizeof v->process_name);
    v->crash = src->crash;
    v->trigger = src->trigger;
    v->pool.recovered = src->pool.recovered;
    v->file.cut = src->file.cut;
    v->file.cut_from_ns = src->file.cut_from_ns;
    v->file.cut_to_ns = src->file.cut_to_ns;
    v->file.cut_of_ns = src->file.cut_of_ns;
    v->unregistered_drops = src->unregistered_drops;
    v->interner_drops = src->interner_drops;
    v->bytes_used = src->bytes_used;
    v->file.version = src->file.version;
    v->file.bytes = src->file.bytes;
    v->file.blocks = src->file.blocks;
    v->file.slots = src->file.slots;
    v->file.compact = src->file.compact;
    v->file.compressed = src->file.compressed;
    /* borrowed: the view never frees them (view_of_*.borrows) */
    v->categories = src->categories;
    v->sites = src->sites;
    v->nsites = src->nsites;
    v->site_hash = src->site_hash;
    v->site_hash_cap = src->site_hash_cap;
    v->site_text = src->site_text;
    v->id_collisions = src->id_collisions;
    v->mem_cov = src->mem_cov;
    v->nmem_cov = src->nmem_cov;
    v->gpu = src->gpu;
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
    ludus_capture *v = ludus__capture_new(src->src->load_run ? &view_of_loaded : &view_of_memory);
    if (!v) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    uint32_t nt = cut->threads ? cut->nthreads : src->nthreads;
    v->threads = ludus__calloc(nt ? nt : 1, sizeof *v->threads);
    if (!v->threads) {
        ludus__free(v);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    view_of(v, src);
    v->nthreads = nt;
    for (uint32_t i = 0; i < nt; i++) {
        v->threads[i] = src->threads[cut->threads ? cut->threads[i] : i];
        v->threads[i].lanes_owned = 0; /* borrowed from the parent when it had decided them */
        v->threads[i].marks = NULL;    /* its own, noted when it is prepared */
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
    out->version = c->file.version;
    out->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    out->calib_ticks[0] = c->c0.ticks;
    out->calib_ticks[1] = c->c1.ticks;
    out->calib_ns[0] = c->c0.ns;
    out->calib_ns[1] = c->c1.ns;
    out->start_ns = c->start_ns;
    out->end_ns = c->end_ns;
    out->threads = c->nthreads;
    out->sites = c->file.index_only ? c->file.index_sites : c->nsites; /* (index only: the site table is not read) */
    out->blocks = c->file.blocks;
    out->compact = c->file.compact;
    out->compressed = c->file.compressed;
    out->slots = c->file.slots;
    out->file_bytes = c->file.bytes;
    out->pid = c->pid;
    out->process_name = c->process_name;
    out->categories = c->categories;
    out->cut = c->cut;
    out->cut_from_ns = c->cut_from_ns;
    out->cut_to_ns = c->cut_to_ns;
    out->crash_signal = c->crash.signal;
    out->crash_signal_name = c->crash.signal_name;
    out->crash_tid = c->crash.tid;
    out->crash_ns = c->crash.ns;
    out->trigger_reason = c->trigger.reason[0] ? c->trigger.reason : NULL;
    out->trigger_ns = c->trigger.ns;
    out->trigger_detail = c->trigger.reason[0] ? c->trigger.detail : NULL;
    out->recovered = c->pool.recovered;
    out->streamed = c->file.streamed;
    out->stream_cut = c->file.stream_cut;
    out->has_summary = c->file.has_footer && !c->cut;
    out->summary_frame_marks = c->file.footer_frame_marks;
    out->summary_marks_elsewhere = c->file.footer_marks_elsewhere;
    out->summary_frame_thread = c->file.footer_frame_thread < c->nthreads && c->file.footer_frame_marks
                                    ? c->threads[c->file.footer_frame_thread].name
                                    : NULL;
    out->index_only = c->file.index_only;
    out->file_cut = c->file.cut;
    out->file_cut_from_ns = c->file.cut_from_ns;
    out->file_cut_to_ns = c->file.cut_to_ns;
    out->file_cut_of_ns = c->file.cut_of_ns;
    if (!c->src->load_run) /* runs in memory: what a file would hold */
        for (uint32_t t = 0; t < c->nthreads; t++)
            out->slots += c->threads[t].slots, out->blocks += c->threads[t].nruns;
    return ludus_capture_get_summary(c, &out->summary);
}
