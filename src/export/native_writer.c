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

static size_t clamp_len(size_t n) {
    return n > LUDUS__NF_MAX_STRING ? LUDUS__NF_MAX_STRING : n;
}

static void write_header(ludus__writer *w, const ludus_capture *c) {
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
    h.start_ns = c->start_ns;
    h.end_ns = c->end_ns;
    h.nsites = c->nsites;
    h.nthreads = c->nthreads;
    h.gen = c->gen;
    uint8_t b[ludus__nf_header_BYTES];
    ludus__nf_header_put(b, &h);
    h.crc = ludus__crc32c(0, b, ludus__nf_header_offset("crc"));
    ludus__nf_header_put(b, &h);
    ludus__w_bytes(w, b, sizeof b);
}

static void write_meta(ludus__writer *w, const ludus_capture *c, ludus__bytes *r) {
    char *cov = c->nmem_cov ? ludus__mem_cov_text(c) : NULL;
    if (c->nmem_cov && !cov) r->oom = 1; /* the file would lack the manifest: an error, not a quieter file */
    char crash[128];                     /* "SIGNAME signo tid at_ns" */
    snprintf(crash, sizeof crash, "%s %d %llu %lld", c->crash_signal_name, c->crash_signal,
             (unsigned long long)c->crash_tid, (long long)c->crash_ns);
    char refused[24], lost[24]; /* in metadata: readers skip keys they do not know */
    snprintf(refused, sizeof refused, "%u", c->counters_refused);
    snprintf(lost, sizeof lost, "%llu", (unsigned long long)c->counter_adds_lost);
    char trigger[400]; /* "reason at_ns detail": under the 400 bytes a reader takes */
    snprintf(trigger, sizeof trigger, "%s %lld %s", c->trigger_reason, (long long)c->trigger_ns, c->trigger_detail);
    const char *keys[9] = {"ludus_version", "process_name",     "categories",        "memory_coverage", "crash",
                           "recovered",     "counters_refused", "counter_adds_lost", "trigger"};
    const char *vals[9] = {LUDUS_VERSION_STRING,
                           c->process_name,
                           c->categories,
                           cov,
                           c->crash_signal ? crash : NULL,
                           c->recovered ? "pool file" : NULL,
                           c->counters_refused ? refused : NULL,
                           c->counter_adds_lost ? lost : NULL,
                           c->trigger_reason[0] ? trigger : NULL};
    uint32_t n = 0;
    r->n = 0;
    for (int i = 0; i < 9; i++) {
        if (!vals[i]) continue;
        size_t kn = strlen(keys[i]), vn = clamp_len(strlen(vals[i]));
        rb_u32(r, (uint32_t)kn);
        rb_u32(r, (uint32_t)vn);
        ludus__bytes_put(r, keys[i], kn);
        ludus__bytes_put(r, vals[i], vn);
        n++;
    }
    ludus__free(cov);
    write_record(w, LUDUS__NF_META, n, r->b, r->n);
}

static void write_stats(ludus__writer *w, const ludus_capture *c, ludus__bytes *r) {
    ludus__nf_stats s = {
        c->unregistered_drops, c->bytes_used, c->interner_drops, c->id_collisions, c->events, c->dropped,
        c->incomplete,         c->unwound,    c->orphan_ends,    c->filtered,      c->frames, c->mismatched,
        c->nonfinite,          c->texts_cut,  c->keys_dropped};
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

static int write_threads(ludus__writer *w, const ludus_capture *c, ludus__bytes *r) {
    r->n = 0;
    rb_u32(r, ludus__nf_thread_BYTES);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        size_t nn = strnlen(th->name, sizeof th->name - 1);
        ludus__nf_thread e = {th->tid,        th->dropped,          th->first_drop_ns, th->spans,    th->events,
                              th->incomplete, th->unwound,          th->orphan_ends,   th->filtered, th->frames,
                              th->mismatched, th->exited ? 1u : 0u, th->lanes,         (uint32_t)nn, 0};
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

/* A block: raw, compact, or compact then compressed (z: the zstd context,
 * NULL for none) when that saves bytes. */
static int write_block(ludus__writer *w, const ludus_capture *c, uint32_t thread, const ludus__run *run, int raw,
                       ludus__zstd **z, ludus__bytes *r) {
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
        }
    }
    ludus__nf_block_put(p, &b);
    r->n = ludus__nf_block_BYTES + len;
    write_record(w, LUDUS__NF_BLOCK, thread, r->b, r->n);
    return 0;
}

/* The summary `info` prints without reading the blocks (format.md,
 * "SUMMARY"): the frame thread as the analysis picks it, the one with
 * the most marks. */
static int write_summary(ludus__writer *w, const ludus_capture *c, uint64_t blocks, uint64_t slots, ludus__bytes *r) {
    ludus__nf_summary s = {c->events, c->dropped, 0, 0, UINT32_MAX, 0, blocks, slots};
    uint64_t all = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        all += c->threads[t].frames;
        if (c->threads[t].frames > s.frame_marks) s.frame_marks = c->threads[t].frames, s.frame_thread = t;
    }
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

int ludus__save_native(ludus_capture *c, ludus__writer *w, unsigned flags) {
    if (c->cut)
        return ludus__fail(
            LUDUS_EUNSUPPORTED,
            "a time cut cannot be saved as .ludus (its blocks hold whole threads): write JSON or .pftrace");
    /* what the reader refuses is never written (it would lose the capture) */
    if (c->nsites > LUDUS__NF_MAX_SITES || c->nthreads > LUDUS__NF_MAX_THREADS)
        return ludus__fail(LUDUS_EOVERFLOW,
                           "%u sites and %u threads: a .ludus file holds at most %u and %u; write JSON or .pftrace",
                           c->nsites, c->nthreads, LUDUS__NF_MAX_SITES, LUDUS__NF_MAX_THREADS);
    ludus__bytes r = {NULL, 0, 0, 0};
    write_header(w, c);
    write_meta(w, c, &r);
    write_stats(w, c, &r);
    int trc = write_sites(w, c, &r);
    if (trc == 0) trc = write_threads(w, c, &r);
    if (trc) {
        ludus__free(r.b);
        return trc;
    }
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (g && !w->failed) { /* GPU timing: after the tables, before the blocks */
        size_t gn;
        uint8_t *gb = ludus__gpu_encode(g, &gn);
        if (!gb) {
            ludus__free(r.b);
            return ludus__fail(LUDUS_ENOMEM, "out of memory");
        }
        write_record(w, LUDUS__NF_GPU, g->nctx, gb, gn);
        ludus__free(gb);
    }
    int rc = r.oom ? ludus__fail(LUDUS_ENOMEM, "out of memory") : 0;
    uint64_t blocks = 0, slots = 0;
    ludus__run_buf rb = {NULL, 0, NULL, 0};
    ludus__zstd *zctx = NULL; /* compressed compact blocks, unless asked otherwise or built without zstd */
    ludus__zstd **z = (flags & LUDUS_SAVE_UNCOMPRESSED) || !ludus__zstd_built() ? NULL : &zctx;
    for (uint32_t t = 0; t < c->nthreads && rc == 0 && !w->failed; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        uint64_t cursor = th->load_first;
        for (uint32_t i = 0; i < th->nruns && rc == 0 && !w->failed; i++) {
            ludus__run run;
            if (c->src->load_run) {
                rc = c->src->load_run(c, &cursor, &run, &rb);
                if (rc) break;
            } else {
                run = th->runs[i];
            }
            if (run.n == 0) continue;
            rc = write_block(w, c, t, &run, (flags & LUDUS_SAVE_RAW) != 0, z, &r);
            blocks++;
            slots += run.n;
        }
    }
    ludus__free(rb.ev);
    ludus__free(rb.bytes);
    ludus__zstd_free(zctx);
    if (rc == 0 && !w->failed) rc = write_summary(w, c, blocks, slots, &r);
    if (rc == 0) {
        ludus__nf_end e = {blocks, slots};
        uint8_t b[ludus__nf_end_BYTES];
        ludus__nf_end_put(b, &e);
        write_record(w, LUDUS__NF_END, 0, b, sizeof b);
    }
    ludus__free(r.b);
    return rc ? rc : (w->failed ? LUDUS_EIO : 0);
}
