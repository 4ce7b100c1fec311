/* The prepared view of a capture, built on first use (never on the
 * end-capture path): each in-memory thread's pieces as runs, the site table,
 * and the counts of every thread, taken from the normalised stream itself
 * so they always say what the exports hold (a cut counts what it holds). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"

int ludus__build_runs(ludus_capture *c) {
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        if (!th->first || th->runs) continue;
        uint32_t k = 0;
        for (ludus__chunk *ch = th->first; ch; ch = ch->next) k++;
        th->runs = ludus__malloc(k * sizeof *th->runs);
        if (!th->runs) return LUDUS_ENOMEM;
        th->nruns = 0;
        for (ludus__chunk *ch = th->first; ch; ch = ch->next) {
            if (ch->used == 0) continue;
            ludus__run *r = &th->runs[th->nruns++];
            r->ev = LUDUS__CHUNK_EVENTS(ch);
            r->n = (size_t)ch->used;
            r->base = (uintptr_t)r->ev;
            th->slots += ch->used;
        }
    }
    return 0;
}

/* Counts one thread from its normalised stream. */
static int count_thread(ludus_capture *c, uint32_t t) {
    ludus__cap_thread *th = &c->threads[t];
    ludus__nev_iter it;
    ludus__nev ev;
    int rc = ludus__nev_init(&it, c, t);
    uint64_t events = 0, incomplete = 0, unwound = 0, frames = 0, mismatched = 0, nonfinite = 0, flows = 0, cut = 0,
             asyncs = 0;
    ludus__slice_args args; /* a scope's annotation keys, as the exports keep them: those past the limit counted */
    memset(&args, 0, sizeof args);
    ludus__marks marks; /* kept for the analysis and the file's MARKS record */
    memset(&marks, 0, sizeof marks);
    uint32_t lanes = 0;
    while (rc == 0 && ludus__nev_next(&it, &ev)) {
        if (ev.lane + 1u > lanes) lanes = ev.lane + 1u;
        ludus__marks_note(&marks, &ev);
        const uint8_t tr = ludus__nevs[ev.kind].json;
        flows += tr == LUDUS__TR_FLOW_OUT || tr == LUDUS__TR_FLOW_IN;
        switch (ev.kind) {
        case LUDUS_NEV_BEGIN:
            if (!(ev.flags & LUDUS_NEV_CLIPPED)) events++;
            break;
        case LUDUS_NEV_END: {
            const ludus__nev *first;
            ludus__slice_args_take(&args, ev.lane, ev.depth, &first);
            if (ev.flags & LUDUS_NEV_UNWOUND)
                unwound++;
            else if (ev.flags & LUDUS_NEV_INCOMPLETE)
                incomplete++;
            else
                events++;
            break;
        }
        case LUDUS_NEV_LOSS:
        case LUDUS_NEV_CRASH:     /* markers the reader adds, not events */
        case LUDUS_NEV_FRAME_CPU: /* part of the frame mark before it */
            break;
        case LUDUS_NEV_MISMATCH:
            mismatched++;
            events++;
            break;
        case LUDUS_NEV_FRAME:
            frames++;
            events++;
            break;
        case LUDUS_NEV_COUNTER_F64:
            if (((ev.value >> 52) & 0x7ff) == 0x7ff) nonfinite++;
            events++;
            break;
        case LUDUS_NEV_ASYNC_BEGIN:
        case LUDUS_NEV_ASYNC_END:
            if (!c->parent && ludus__async_note(c, t, &ev) != 0) it.oom = 1;
            asyncs++;
            events++;
            break;
        default:
            if (ludus__nevs[ev.kind].attach && ev.depth != UINT32_MAX) ludus__slice_args_add(&args, c, &ev);
            if (ev.kind == LUDUS_NEV_ARG_TEXT && (ev.value & LUDUS__ARG_TEXT_CUT)) cut++;
            events++;
            break;
        }
    }
    if (args.dropped != args.over_max) it.oom = 1; /* no memory to keep the keys: not a count to trust */
    if (rc == 0) rc = ludus__nev_error(&it);
    th->events = events;
    th->incomplete = incomplete;
    th->unwound = unwound;
    th->frames = frames;
    ludus__mark_set_release(th->marks);
    th->marks = NULL;
    if (rc == 0 && !marks.oom && marks.n == frames && frames) { /* kept with the capture */
        th->marks = ludus__mark_set_of(&marks);
    } else {
        ludus__marks_free(&marks);
    }
    th->async_events = asyncs;
    th->async_counted = rc == 0;
    th->no_flows = rc == 0 && flows == 0;
    th->mismatched = c->cut ? mismatched : it.mismatched; /* filtered mismatches count too */
    th->orphan_ends = c->cut ? 0 : it.orphan_ends + th->recorder_orphans;
    th->filtered = c->cut ? 0 : it.filtered;
    th->lanes = lanes > 1 ? lanes - 1 : 0;
    c->nonfinite += nonfinite;
    c->texts_cut += cut;
    c->keys_dropped += args.over_max;
    ludus__slice_args_free(&args);
    c->unknown += it.unknown;
    ludus__nev_free(&it);
    return rc;
}

int ludus__build_recorded(ludus_capture *c) {
    int rc = ludus__build_runs(c);
    if (rc == 0) rc = ludus__fibers_split(c);
    if (rc == 0) rc = ludus__sites_collect(c);
    if (rc == 0 && c->ring) rc = ludus__ring_start(c);
    if (rc == 0) rc = ludus__sites_check_ids(c);
    return rc ? ludus__fail(LUDUS_ENOMEM, "out of memory while preparing the capture") : 0;
}

int ludus__prepare(ludus_capture *c) {
    if (c->prepared) return c->prepare_error;
    if (c->src->settle) c->src->settle(c);
    int rc = c->src->build ? c->src->build(c) : 0;
    c->events = c->incomplete = c->unwound = c->orphan_ends = c->filtered = 0;
    c->frames = c->mismatched = c->nonfinite = c->dropped = c->unknown = c->texts_cut = c->keys_dropped = 0;
    for (uint32_t t = 0; t < c->nthreads && rc == 0; t++) {
        ludus__cap_thread *th = &c->threads[t];
        rc = count_thread(c, t);
        if (rc == LUDUS_ENOMEM) rc = ludus__fail(rc, "out of memory while preparing the capture");
        c->events += th->events;
        c->incomplete += th->incomplete;
        c->unwound += th->unwound;
        c->orphan_ends += th->orphan_ends;
        c->filtered += th->filtered;
        c->frames += th->frames;
        c->mismatched += th->mismatched;
        if (!c->cut || th->first_drop_ns <= c->cut_to_ns) c->dropped += th->dropped;
    }
    if (!c->cut) c->dropped += c->unregistered_drops;
    if (rc == 0 && ludus__async_build(c) != 0)
        rc = ludus__fail(LUDUS_ENOMEM, "out of memory while pairing async zones");
    /* an async zone whose end is synthesised (open at capture end, or cut)
     * is incomplete as a slice is, counted on the thread that began it */
    for (uint32_t i = 0; rc == 0 && i < c->async.n; i++) {
        const ludus__async_zone *z = &c->async.zones[i];
        uint32_t t = z->begin_thread != UINT32_MAX ? z->begin_thread : z->end_thread;
        if (!(z->flags & (LUDUS_NEV_INCOMPLETE | LUDUS__ASYNC_END_CLIPPED)) || t == UINT32_MAX) continue;
        c->threads[t].incomplete++;
        c->incomplete++;
    }
    c->prepared = 1;
    c->prepare_error = rc; /* a damaged file stays damaged: every later use says so */
    return rc;
}

void ludus__thread_summary_fill(const ludus__cap_thread *th, ludus_thread_summary *out) {
    memset(out, 0, sizeof *out);
    memcpy(out->name, th->name, sizeof out->name);
    out->tid = th->tid;
    out->events = th->events;
    out->dropped = th->dropped;
    out->incomplete = th->incomplete;
    out->orphan_ends = th->orphan_ends;
    out->exited = th->exited;
    out->unwound = th->unwound;
    out->mismatched = th->mismatched;
    out->first_drop_ns = th->first_drop_ns == LUDUS__NO_DROP ? -1 : th->first_drop_ns;
    out->span_lanes = th->lanes;
}

/* The pool that would have held every event of c (bytes; 0 when none was
 * dropped): the bytes it used, the dropped events at the bytes an event took
 * on average (payloads and pieces included), the 1/32 kept for scope ends,
 * and a 64 KiB piece per thread left part-filled; rounded up to m x 2^k
 * chunks of 64 KiB (LUDUS_TRACE_CHUNKS's unit) with m in 8 .. 15, so at most
 * 1/8 above the need (a power of two was up to 2x). Never capped: the
 * advice (ludus_pool_advice) says when this machine cannot take it. */
uint64_t ludus__pool_bytes_needed(const ludus_capture *c) {
    if (!c->dropped) return 0;
    uint64_t per = c->events ? (c->bytes_used + c->events - 1) / c->events : 16;
    if (per < 16) per = 16;
    uint64_t need = c->bytes_used + c->dropped * per;
    need += need / 31 + (uint64_t)c->nthreads * 65536;
    uint64_t chunks = (need + 65535) / 65536, step = 1;
    while (chunks > 15 * step) step *= 2; /* chunks <= 15 step: a multiple of step has m <= 15 */
    chunks = (chunks + step - 1) / step * step;
    return chunks * 65536;
}

uint32_t ludus_pool_chunks_max(void) {
    uint64_t phys = ludus__phys_bytes(), cap = (uint64_t)1 << 24;
    if (phys && phys / 2 / 65536 < cap) cap = phys / 2 / 65536;
    return cap ? (uint32_t)cap : 1;
}

uint64_t ludus_pool_advice(uint64_t pool_bytes_needed, char *buf, size_t cap) {
    uint64_t chunks = (pool_bytes_needed + 65535) / 65536, most = ludus_pool_chunks_max();
    int n;
    if (chunks <= most)
        n = snprintf(buf, cap,
                     "a pool of %llu MiB would have held every event: LUDUS_TRACE_CHUNKS=%llu "
                     "(ludus_capture_desc.chunk_count, 64 KiB chunks)",
                     (unsigned long long)(pool_bytes_needed >> 20), (unsigned long long)chunks);
    else
        n = snprintf(buf, cap,
                     "every event would have needed a pool of %llu MiB, more than this machine takes "
                     "(LUDUS_TRACE_CHUNKS at most %llu: 2^24 and half its %.1f GiB of memory): record it "
                     "streaming (LUDUS_TRACE_MODE=stream) or cut it shorter (LUDUS_TRACE_MODE=rolling keeps "
                     "the last seconds)",
                     (unsigned long long)(pool_bytes_needed >> 20), (unsigned long long)most,
                     (double)ludus__phys_bytes() / (1 << 30));
    (void)n;
    return chunks <= most ? chunks : 0;
}

int ludus_capture_get_summary(ludus_capture *c, ludus_capture_summary *out) {
    if (!c || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    int rc = ludus__prepare(c);
    if (rc) return rc;
    memset(out, 0, sizeof *out);
    out->threads = c->nthreads;
    out->events = c->events;
    out->dropped = c->dropped;
    out->filtered = c->filtered;
    out->incomplete = c->incomplete;
    out->orphan_ends = c->orphan_ends;
    out->frames = c->frames;
    out->start_ns = c->start_ns;
    out->end_ns = c->end_ns;
    out->chunks_used = (uint32_t)((c->bytes_used + 65535) / 65536);
    out->interner_drops = c->interner_drops;
    out->counters_refused = c->counters_refused;
    out->counter_adds_lost = c->counter_adds_lost;
    out->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    out->unwound = c->unwound;
    out->mismatched = c->mismatched;
    out->nonfinite_counter_samples = c->nonfinite;
    out->unknown_events = c->unknown;
    out->unregistered_thread_drops = c->unregistered_drops;
    out->site_id_collisions = c->id_collisions;
    out->bytes_used = c->bytes_used;
    out->pool_bytes_needed = ludus__pool_bytes_needed(c);
    out->annotation_texts_cut = c->texts_cut;
    out->annotation_keys_dropped = c->keys_dropped;
    return 0;
}

uint32_t ludus_capture_thread_count(ludus_capture *c) {
    return c ? c->nthreads : 0;
}

int ludus_capture_thread(ludus_capture *c, uint32_t index, ludus_thread_summary *out) {
    if (!c || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    if (index >= c->nthreads)
        return ludus__fail(LUDUS_EINVAL, "thread index %u out of range (%u threads)", index, c->nthreads);
    int rc = ludus__prepare(c);
    if (rc) return rc;
    ludus__thread_summary_fill(&c->threads[index], out);
    return 0;
}
