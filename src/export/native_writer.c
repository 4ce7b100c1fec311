/* Native capture file writer (.ludus version 5, LUDUS__FORMAT_VERSION, src/format/file_format.h):
 * header, metadata, stats, site and thread tables, then each thread's runs
 * as event blocks, then an end record; each record with its CRC-32C. The
 * compact encoding (the default) stores tick deltas, site indexes and the
 * distance from an end back to its begin as varints, then compressed by
 * zstd when the build has it (block_zstd.c); the raw encoding
 * writes the recorded 16-byte events as they are. Both are written from the
 * capture as read (a file, or a cut of one, saves again the same way). */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../format/file_format.h"
#include "../base/varint.h"
#include "../format/file_meta.h"
#include "../capture/async_zones.h"
#include "export_internal.h"

/* A record is built whole in memory (tables are bounded by sites and
 * threads; a block by its piece) so its CRC comes first in the head. */
static void rb_u32(ludus__bytes *r, uint32_t v) {
    uint8_t b[4];
    ludus__nf_put_U32(b, v);
    ludus__bytes_put(r, b, 4);
}

/* Writes a record: head with CRC over (tag, aux, length) and payload. */
static void write_record(ludus__writer *w, uint32_t tag, uint32_t aux, const void *payload, uint64_t len) {
    uint8_t head[ludus__nf_record_BYTES];
    ludus__nf_record_head(head, tag, aux, payload, len);
    ludus__w_bytes(w, head, sizeof head);
    ludus__w_bytes(w, payload, (size_t)len);
}

/* A time cut saved as a file (ludus_capture_cut, then save): the events of
 * [from, to] ns since capture start; the file's capture is that range. */
typedef struct cut_range {
    int on;
    int64_t from, to; /* ns since the source's start */
    uint64_t *slots;  /* per thread with spans or incomplete slices: the slots the cut holds */
} cut_range;

/* A cut thread's count of spans or incomplete slices, bounded by the slots
 * its blocks hold, as the reader bounds them: a view counts an async zone
 * that meets the cut on the thread that began it, even where that thread's
 * cut stops before the begin (its ticks went past `to` earlier, as only a
 * damaged file's do). */
static uint64_t cut_bound(const cut_range *cut, uint32_t t, uint64_t n) {
    return cut->on && n > cut->slots[t] ? cut->slots[t] : n;
}

static void write_header(ludus__writer *w, const ludus_capture *c, const cut_range *cut) {
    ludus__nf_header h;
    memset(&h, 0, sizeof h);
    h.magic = LUDUS__NF_MAGIC;
    h.version = LUDUS__FORMAT_VERSION;
    h.bom = LUDUS__NF_BOM;
    h.header_bytes = ludus__nf_header_BYTES;
    h.clock = c->clock_tsc ? 1u : 0u;
    h.pid = c->pid;
    h.c0_ticks = c->c0.ticks, h.c0_ns = c->c0.ns, h.c0_window = c->c0.window_ns;
    h.c1_ticks = c->c1.ticks, h.c1_ns = c->c1.ns, h.c1_window = c->c1.window_ns;
    h.start_ns = cut->on ? c->start_ns + cut->from : c->start_ns;
    h.end_ns = cut->on ? c->start_ns + cut->to : c->end_ns;
    h.nsites = c->nsites;
    h.nthreads = c->nthreads;
    h.gen = c->gen;
    uint8_t b[ludus__nf_header_BYTES];
    ludus__nf_header_put(b, &h);
    h.crc = ludus__crc32c(0, b, ludus__nf_header_offset("crc"));
    ludus__nf_header_put(b, &h);
    ludus__w_bytes(w, b, sizeof b);
}

static void write_meta(ludus__writer *w, const ludus_capture *c, const cut_range *cut, ludus__bytes *r) {
    ludus__nf_meta m;
    if (ludus__nf_meta_make(&m, c, cut->on, cut->from, cut->to, NULL) != 0)
        r->oom = 1; /* the file would lack the manifest: an error, not a quieter file */
    r->n = 0;
    size_t len = ludus__nf_meta_bytes(&m);
    uint8_t *p = ludus__bytes_room(r, len);
    if (p) {
        ludus__nf_meta_put(p, &m);
        r->n += len;
    }
    ludus__nf_meta_free(&m);
    if (p) write_record(w, LUDUS__NF_META, m.n, r->b, r->n);
}

static void write_stats(ludus__writer *w, const ludus_capture *c, const cut_range *cut, ludus__bytes *r) {
    uint64_t incomplete = 0; /* the threads' sum, as their entries hold it */
    for (uint32_t t = 0; t < c->nthreads; t++) incomplete += cut_bound(cut, t, c->threads[t].incomplete);
    ludus__nf_stats s = {c->unregistered_drops,
                         c->bytes_used,
                         c->interner_drops,
                         c->id_collisions,
                         c->events,
                         c->dropped,
                         incomplete,
                         c->unwound,
                         c->orphan_ends,
                         c->filtered,
                         c->frames,
                         c->mismatched,
                         c->nonfinite,
                         c->texts_cut,
                         c->keys_dropped};
    r->n = 0;
    rb_u32(r, ludus__nf_stats_BYTES);
    uint8_t *p = ludus__bytes_room(r, ludus__nf_stats_BYTES);
    if (!p) return;
    ludus__nf_stats_put(p, &s);
    r->n += ludus__nf_stats_BYTES;
    write_record(w, LUDUS__NF_STATS, 0, r->b, r->n);
}

/* A table the reader would refuse (more bytes than a table may hold) is
 * never written: the save fails instead, and the capture stays for
 * another format. */
static int table_fits(const ludus__bytes *r, const char *what) {
    if (r->n <= LUDUS__NF_MAX_TABLE_BYTES) return 0;
    return ludus__fail(LUDUS_EOVERFLOW,
                       "the %s table needs %llu bytes, more than a .ludus file holds (%u): write JSON or .pftrace",
                       what, (unsigned long long)r->n, LUDUS__NF_MAX_TABLE_BYTES);
}

static int write_sites(ludus__writer *w, const ludus_capture *c, ludus__bytes *r) {
    r->n = 0;
    rb_u32(r, ludus__nf_site_BYTES);
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        uint8_t *p = ludus__bytes_room(r, ludus__nf_site_size(s));
        if (!p) return 0; /* r->oom says it */
        r->n = (size_t)(ludus__nf_put_site_entry(p, s) - r->b);
    }
    int rc = table_fits(r, "site");
    if (rc == 0) write_record(w, LUDUS__NF_SITES, c->nsites, r->b, r->n);
    return rc;
}

static int write_threads(ludus__writer *w, const ludus_capture *c, const cut_range *cut, ludus__bytes *r) {
    r->n = 0;
    rb_u32(r, ludus__nf_thread_BYTES);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        size_t nn = strnlen(th->name, sizeof th->name - 1);
        /* a cut: losses that began by its end are its losses (as the cut counts them), from its start */
        uint64_t dropped = th->dropped;
        int64_t first = th->first_drop_ns;
        if (cut->on && first != LUDUS__NO_DROP && first > cut->to) dropped = 0, first = LUDUS__NO_DROP;
        if (cut->on && first != LUDUS__NO_DROP) first = first > cut->from ? first - cut->from : 0;
        ludus__nf_thread e = {.tid = th->tid,
                              .dropped = dropped,
                              .first_drop_ns = first,
                              .spans = cut_bound(cut, t, th->spans),
                              .events = th->events,
                              .incomplete = cut_bound(cut, t, th->incomplete),
                              .unwound = th->unwound,
                              .orphan_ends = th->orphan_ends,
                              .filtered = th->filtered,
                              .frames = th->frames,
                              .mismatched = th->mismatched,
                              .exited = th->exited ? 1u : 0u,
                              .lanes = th->lanes,
                              .name_len = (uint32_t)nn,
                              .async_plus1 = th->async_counted ? th->async_events + 1 : 0};
        uint8_t *p = ludus__bytes_room(r, ludus__nf_thread_BYTES);
        if (!p) return 0; /* r->oom says it */
        ludus__nf_thread_put(p, &e);
        r->n += ludus__nf_thread_BYTES;
        ludus__bytes_put(r, th->name, nn);
    }
    int rc = table_fits(r, "thread");
    if (rc == 0) write_record(w, LUDUS__NF_THREADS, c->nthreads, r->b, r->n);
    return rc;
}

/* How blocks are written: raw, or compact and then compressed where that
 * saves bytes (z: the zstd context, NULL for none); compressed: set once a
 * block was (the index's flag). */
typedef struct block_enc {
    int raw;
    ludus__zstd **z;
    int compressed;
} block_enc;

static int write_block(ludus__writer *w, const ludus_capture *c, uint32_t thread, const ludus__run *run, block_enc *enc,
                       ludus__bytes *r) {
    int raw = enc->raw;
    ludus__zstd **z = enc->z;
    size_t n = run->n;
    size_t max = raw ? n * 16 : LUDUS__NF_COMPACT_MAX(n);
    size_t zmax = z ? LUDUS__NF_ZSTD_HEAD + LUDUS__NF_ZSTD_BOUND(max) : 0;
    r->n = 0;
    uint8_t *p = ludus__bytes_room(r, ludus__nf_block_BYTES + max + zmax);
    if (!p) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %zu slots", n);
    ludus__nf_block b = {raw ? LUDUS__NF_RAW : LUDUS__NF_COMPACT, 0, n, (uint64_t)run->base};
    uint8_t *d = p + ludus__nf_block_BYTES;
    size_t len;
    if (raw) {
        for (size_t i = 0; i < n; i++) {
            d = ludus__nf_put_U64(d, run->ev[i].ticks);
            d = ludus__nf_put_U64(d, (uint64_t)run->ev[i].word);
        }
        len = n * 16;
    } else {
        len = ludus__compact_encode(c, run->ev, n, run->base, d);
        size_t zlen = z ? ludus__zstd_block(z, d, len, n, d + max) : 0;
        if (zlen == LUDUS__ZSTD_NOMEM) return ludus__fail(LUDUS_ENOMEM, "out of memory to compress a block");
        if (zlen) { /* smaller: the compressed bytes in the compact ones' place */
            memmove(d, d + max, zlen);
            len = zlen;
            b.encoding = LUDUS__NF_ZSTD;
            enc->compressed = 1;
        }
    }
    ludus__nf_block_put(p, &b);
    r->n = ludus__nf_block_BYTES + len;
    write_record(w, LUDUS__NF_BLOCK, thread, r->b, r->n);
    return 0;
}

/* The frame thread's marks (format.md, "MARKS"), so the analysis of the
 * file finds its frames without a pass over that thread's blocks. */
static int write_marks(ludus__writer *w, const ludus_capture *c, ludus__bytes *r) {
    uint32_t ft = ludus__frame_thread_of(c);
    if (ft == UINT32_MAX) return 0;
    ludus__mark_set *m;
    int rc = ludus__frame_marks(c, ft, &m);
    if (rc) return rc;
    if (m->n != c->threads[ft].frames) { /* not the marks the thread table counts: none written */
        ludus__mark_set_release(m);
        return 0;
    }
    uint8_t *p = ludus__bytes_room(r, 8 + (size_t)m->n * 20); /* at most 10 bytes a varint */
    if (p) {
        uint8_t *q = ludus__nf_put_U64(p, m->n);
        int64_t ns = 0, cpu = 0;
        for (uint64_t i = 0; i < m->n; i++) {
            q = ludus__varint_put(q, ludus__zigzag((int64_t)((uint64_t)m->ns[i] - (uint64_t)ns)));
            q = ludus__varint_put(q, ludus__zigzag((int64_t)((uint64_t)m->cpu[i] - (uint64_t)cpu)));
            ns = m->ns[i];
            cpu = m->cpu[i];
        }
        write_record(w, LUDUS__NF_MARKS, ft, p, (uint64_t)(q - p));
    }
    ludus__mark_set_release(m);
    return p ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory for the frame marks");
}

/* The summary `info` prints without reading the blocks (format.md,
 * "SUMMARY"): the frame thread as the analysis picks it, the one with
 * the most marks. */
static int write_summary(ludus__writer *w, const ludus_capture *c, uint64_t blocks, uint64_t slots, ludus__bytes *r) {
    uint32_t ft = ludus__frame_thread_of(c);
    ludus__nf_summary s = {c->events, c->dropped, ft == UINT32_MAX ? 0 : c->threads[ft].frames, 0, ft, 0,
                           blocks,    slots};
    uint64_t all = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) all += c->threads[t].frames;
    s.marks_elsewhere = all - s.frame_marks;
    r->n = 0;
    rb_u32(r, ludus__nf_summary_BYTES);
    uint8_t *p =
        ludus__bytes_room(r, ludus__nf_summary_BYTES + 4 + (size_t)c->nthreads * ludus__nf_summary_thread_BYTES);
    if (!p) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    p = ludus__nf_summary_put(p, &s);
    p = ludus__nf_put_U32(p, ludus__nf_summary_thread_BYTES);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__nf_summary_thread e = {c->threads[t].events, c->threads[t].frames};
        p = ludus__nf_summary_thread_put(p, &e);
    }
    r->n = (size_t)(p - r->b);
    write_record(w, LUDUS__NF_SUMMARY, 0, r->b, r->n);
    return 0;
}

/* ---- a time cut: each thread's events of [from, to] ----
 *
 * The recorded slots of the range, as they were (a block is a contiguous
 * part of a recorded one, at its address, so ends still name their begins),
 * and before them, at `from`, a copy of each lexical scope and span still
 * open there: a 1-slot block at the begin's own address, so the end in the
 * range closes it. What is open at `to` is closed at the file's end, flagged
 * incomplete, as in any capture. The open scopes at `from` are followed from
 * the thread's start (ends, nested ends, unwinds, span ends) in memory that
 * follows the nesting and the thread's blocks, not its events. An async
 * zone begun before `from` and still open there (the view's zones flagged
 * CLIPPED: they pair across threads, so the view, not this thread's walk,
 * knows which) gets its begin again at `from` on the thread that began it,
 * so its end in the cut, or the file's end, closes it. */

typedef struct cut_open {
    ludus__event ev;
    uintptr_t addr;
    uint64_t seq; /* the slot's ordinal in the thread's stream */
    int span;
} cut_open;

typedef struct cut_state {
    cut_open *open;
    size_t n, cap;
    ludus__seen_run *seen; /* the runs walked before `from`: where an unwind's point lies */
    size_t nseen, seen_cap;
    uint64_t seq;
    int started, done, oom;
    uint64_t from_ticks;
} cut_state;

/* The first tick at or after ns since capture start. */
static uint64_t tick_at(const ludus_capture *c, int64_t ns) {
    uint64_t t;
    if (!c->clock_tsc) {
        t = (uint64_t)(c->start_ns + ns);
    } else {
        /* unsigned 128-bit arithmetic only (the MSVC-ABI build has no signed
         * 128-bit division), the distance from c0 taken apart from its sign */
        int64_t at = c->start_ns + ns - c->c0.ns, span = c->c1.ns - c->c0.ns;
        uint64_t mag = at < 0 ? (uint64_t)0 - (uint64_t)at : (uint64_t)at;
        uint64_t off = span > 0 ? (uint64_t)((ludus__u128)mag * (c->c1.ticks - c->c0.ticks) / (uint64_t)span) : 0;
        t = at < 0 ? c->c0.ticks - off : c->c0.ticks + off;
    }
    for (int i = 0; i < 64 && ludus__ticks_to_ns(c, t) < ns; i++) t++;
    for (int i = 0; i < 64 && t > 0 && ludus__ticks_to_ns(c, t - 1) >= ns; i++) t--;
    return t;
}

static void cut_push(cut_state *st, const ludus__event *ev, uintptr_t addr, int span) {
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        cut_open *o = ludus__realloc(st->open, cap * sizeof *o);
        if (!o) {
            st->oom = 1;
            return;
        }
        st->open = o, st->cap = cap;
    }
    st->open[st->n++] = (cut_open){*ev, addr, st->seq, span};
}

/* Removes open entry i. */
static void cut_drop(cut_state *st, size_t i) {
    memmove(&st->open[i], &st->open[i + 1], (st->n - i - 1) * sizeof *st->open);
    st->n--;
}

/* One event before `from`: what it opens or closes. */
static void cut_track(cut_state *st, const ludus_capture *c, const ludus__event *ev, size_t slots, uintptr_t addr) {
    unsigned kind = (unsigned)(ev->word & LUDUS__K_MASK);
    uintptr_t key = ev->word & ~(uintptr_t)LUDUS__K_MASK;
    if (kind == LUDUS__KIND_BEGIN || kind == LUDUS__KIND_SPAN_BEGIN) {
        cut_push(st, ev, addr, kind == LUDUS__KIND_SPAN_BEGIN);
    } else if (kind == LUDUS__KIND_END) { /* its begin, and the scopes still open inside it */
        for (size_t i = st->n; i > 0; i--)
            if (!st->open[i - 1].span && st->open[i - 1].addr == key) {
                for (size_t j = st->n; j >= i; j--)
                    if (!st->open[j - 1].span) cut_drop(st, j - 1);
                break;
            }
    } else if (kind == LUDUS__KIND_SPAN_END) { /* the most recent span of its site (0: the innermost) */
        for (size_t i = st->n; i > 0; i--)
            if (st->open[i - 1].span && (!key || (st->open[i - 1].ev.word & ~(uintptr_t)LUDUS__K_MASK) == key)) {
                cut_drop(st, i - 1);
                break;
            }
    } else if (kind == LUDUS__KIND_UNWIND && slots == 2) { /* scopes begun at or after the point */
        uint64_t point = ev[1].ticks, from_seq = 0;
        int found = 0;
        if (point && (uint64_t)ev[1].word == c->gen)
            for (size_t r = st->nseen; r > 0 && !found; r--) {
                const ludus__seen_run *sr = &st->seen[r - 1];
                if (point >= sr->base && point < sr->base + 16 * sr->n)
                    found = 1, from_seq = sr->ordinal + (point - sr->base) / 16;
            }
        for (size_t j = st->n; j > 0; j--)
            if (!st->open[j - 1].span && (!found || st->open[j - 1].seq >= from_seq)) cut_drop(st, j - 1);
    }
}

/* The scopes open at `from`, each a 1-slot block at its begin's address,
 * then the async zones thread t began before `from` that are open there,
 * each a 2-slot ASYNC begin (its site, then {id, track}). Their raw slots
 * are not at hand, so each takes an address in the first page, which no
 * recorded slot has: no end or unwind point can name it. */
static int cut_emit_open(ludus__writer *w, const ludus_capture *c, uint32_t t, cut_state *st, block_enc *enc,
                         ludus__bytes *r, uint64_t *blocks, uint64_t *slots) {
    st->started = 1;
    for (size_t i = 0; i < st->n; i++) {
        ludus__event ev = {st->open[i].ev.ticks, st->open[i].ev.word};
        ev.ticks = st->from_ticks;
        ludus__run run = {&ev, 1, st->open[i].addr};
        int rc = w ? write_block(w, c, t, &run, enc, r) : 0;
        if (rc) return rc;
        ++*blocks, ++*slots;
    }
    uintptr_t addr = 2 * sizeof(ludus__event);
    for (uint32_t i = 0; i < c->async.n; i++) {
        const ludus__async_zone *z = &c->async.zones[i];
        if (!(z->flags & LUDUS_NEV_CLIPPED) || z->begin_thread != t || z->site >= c->nsites ||
            z->track >= c->async.ntracks || c->async.tracks[z->track].site >= c->nsites)
            continue;
        ludus__event ev[2] = {{st->from_ticks, c->sites[z->site].key | LUDUS__KIND_ASYNC},
                              {z->id, c->sites[c->async.tracks[z->track].site].key}};
        ludus__run run = {ev, 2, addr};
        int rc = w ? write_block(w, c, t, &run, enc, r) : 0;
        if (rc) return rc;
        ++*blocks, *slots += 2;
        addr = addr + 2 * sizeof(ludus__event) < 4096 ? addr + 2 * sizeof(ludus__event) : 2 * sizeof(ludus__event);
    }
    return 0;
}

/* One run of a thread of the cut: its events in [from, to] as a block
 * (w NULL: counted only). */
static int cut_run(ludus__writer *w, const ludus_capture *c, uint32_t t, const ludus__run *run,
                   const ludus__tick_conv *tc, cut_state *st, block_enc *enc, ludus__bytes *r, uint64_t *blocks,
                   uint64_t *slots) {
    size_t i = 0, first = SIZE_MAX, last = 0;
    if (st->nseen == st->seen_cap) {
        size_t cap = st->seen_cap ? st->seen_cap * 2 : 64;
        ludus__seen_run *sr = ludus__realloc(st->seen, cap * sizeof *sr);
        if (!sr) return ludus__fail(LUDUS_ENOMEM, "out of memory");
        st->seen = sr, st->seen_cap = cap;
    }
    st->seen[st->nseen++] = (ludus__seen_run){run->base, run->n, st->seq};
    while (i < run->n && !st->done) {
        size_t k = ludus__event_slots(&run->ev[i], run->n - i);
        if (k == 0 || k > run->n - i) k = run->n - i; /* (checked by the reader: not here) */
        int64_t ns = ludus__tick_conv_ns(tc, c, run->ev[i].ticks);
        if (ns > c->cut_to_ns) {
            st->done = 1;
        } else if (ns < c->cut_from_ns && first == SIZE_MAX) {
            if (!st->started) cut_track(st, c, &run->ev[i], k, run->base + 16 * i);
            if (st->oom) return ludus__fail(LUDUS_ENOMEM, "out of memory");
        } else {
            if (!st->started) {
                int rc = cut_emit_open(w, c, t, st, enc, r, blocks, slots);
                if (rc) return rc;
            }
            if (first == SIZE_MAX) first = i;
            last = i + k;
        }
        i += k;
        st->seq += k;
    }
    if (first == SIZE_MAX) return 0;
    ludus__run part = {run->ev + first, last - first, run->base + 16 * first};
    int rc = w ? write_block(w, c, t, &part, enc, r) : 0;
    ++*blocks, *slots += part.n;
    return rc;
}

/* Thread t's blocks: all of them, or those of the cut (w NULL: the cut's
 * blocks and slots counted, nothing written). */
static int write_thread(ludus__writer *w, const ludus_capture *c, const cut_range *cut, uint32_t t, block_enc *enc,
                        ludus__bytes *r, ludus__run_buf *rb, uint64_t *blocks, uint64_t *slots) {
    const ludus__cap_thread *th = &c->threads[t];
    uint64_t cursor = th->load_first;
    ludus__tick_conv tc;
    ludus__tick_conv_init(&tc, c);
    cut_state st;
    memset(&st, 0, sizeof st);
    if (cut->on) st.from_ticks = tick_at(c, cut->from);
    int rc = 0;
    for (uint32_t i = 0; i < th->nruns && rc == 0 && !(w && w->failed) && !st.done; i++) {
        ludus__run run;
        rc = ludus__capture_run(c, t, i, &cursor, &run, rb);
        if (rc) break;
        if (run.n == 0) continue;
        if (cut->on) {
            rc = cut_run(w, c, t, &run, &tc, &st, enc, r, blocks, slots);
            continue;
        }
        rc = write_block(w, c, t, &run, enc, r);
        ++*blocks;
        *slots += run.n;
    }
    /* a thread whose events all lie outside the cut: what it left open at `from` spans the cut */
    if (cut->on && rc == 0 && !st.started) rc = cut_emit_open(w, c, t, &st, enc, r, blocks, slots);
    ludus__free(st.open);
    ludus__free(st.seen);
    return rc;
}

int ludus__save_native(ludus_capture *c, ludus__writer *w, unsigned flags) {
    cut_range cut = {c->cut, c->cut_from_ns, c->cut_to_ns, NULL};
    int raw = (flags & LUDUS_SAVE_RAW) != 0;
    ludus__run_buf rb = {NULL, 0, NULL, 0};
    /* what the reader refuses is never written (it would lose the capture) */
    if (c->nsites > LUDUS__NF_MAX_SITES || c->nthreads > LUDUS__NF_MAX_THREADS)
        return ludus__fail(LUDUS_EOVERFLOW,
                           "%u sites and %u threads: a .ludus file holds at most %u and %u; write JSON or .pftrace",
                           c->nsites, c->nthreads, LUDUS__NF_MAX_SITES, LUDUS__NF_MAX_THREADS);
    ludus__bytes r = {NULL, 0, 0, 0};
    /* the zones open at `from` are carried into the cut: the view knows them */
    if (cut.on && ludus__async_ensure(c) != 0) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    /* the slots of the cut of each thread with spans or incomplete slices, before its tables: they bound them */
    if (cut.on) {
        cut.slots = ludus__calloc(c->nthreads ? c->nthreads : 1, sizeof *cut.slots);
        if (!cut.slots) return ludus__fail(LUDUS_ENOMEM, "out of memory");
        for (uint32_t t = 0; t < c->nthreads; t++) {
            uint64_t nb = 0;
            block_enc count_only = {raw, NULL, 0};
            const ludus__cap_thread *th = &c->threads[t];
            int prc = th->spans || th->incomplete
                          ? write_thread(NULL, c, &cut, t, &count_only, &r, &rb, &nb, &cut.slots[t])
                          : 0;
            if (prc) {
                ludus__free(cut.slots);
                ludus__free(rb.ev);
                ludus__free(rb.bytes);
                return prc;
            }
        }
    }
    write_header(w, c, &cut);
    write_meta(w, c, &cut, &r);
    write_stats(w, c, &cut, &r);
    int trc = write_sites(w, c, &r);
    if (trc == 0) trc = write_threads(w, c, &cut, &r);
    ludus__free(cut.slots);
    if (trc) {
        ludus__free(r.b);
        ludus__free(rb.ev);
        ludus__free(rb.bytes);
        return trc;
    }
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (g && !w->failed && !cut.on) { /* GPU timing: after the tables, before the blocks (a cut leaves it out) */
        size_t gn;
        uint8_t *gb = ludus__gpu_encode(g, &gn);
        if (!gb) {
            ludus__free(r.b);
            ludus__free(rb.ev);
            ludus__free(rb.bytes);
            return ludus__fail(LUDUS_ENOMEM, "out of memory");
        }
        write_record(w, LUDUS__NF_GPU, g->nctx, gb, gn);
        ludus__free(gb);
    }
    int rc = r.oom ? ludus__fail(LUDUS_ENOMEM, "out of memory") : 0;
    uint64_t blocks = 0, slots = 0;
    ludus__zstd *zctx = NULL; /* compressed compact blocks, unless asked otherwise or built without zstd */
    block_enc enc = {raw, (flags & LUDUS_SAVE_UNCOMPRESSED) || !ludus__zstd_built() ? NULL : &zctx, 0};
    for (uint32_t t = 0; t < c->nthreads && rc == 0 && !w->failed; t++)
        rc = write_thread(w, c, &cut, t, &enc, &r, &rb, &blocks, &slots);
    ludus__free(rb.ev);
    ludus__free(rb.bytes);
    ludus__zstd_free(zctx);
    uint64_t tail = w->bytes; /* the index's tail: the marks and the summary, after the last block */
    r.n = 0;
    if (rc == 0 && !w->failed && !cut.on) rc = write_marks(w, c, &r); /* a cut's marks are counted from its blocks */
    if (rc == 0 && !w->failed) rc = write_summary(w, c, blocks, slots, &r);
    if (rc == 0) {
        ludus__nf_end_index e = {blocks,
                                 slots,
                                 tail,
                                 (blocks && !raw ? LUDUS__NF_END_COMPACT : 0u) |
                                     (enc.compressed ? LUDUS__NF_END_COMPRESSED : 0u),
                                 ludus__nf_end_index_BYTES,
                                 LUDUS__NF_END_MAGIC};
        uint8_t b[ludus__nf_end_index_BYTES];
        ludus__nf_end_index_put(b, &e);
        write_record(w, LUDUS__NF_END, 0, b, sizeof b);
    }
    ludus__free(r.b);
    return rc ? rc : (w->failed ? LUDUS_EIO : 0);
}
