/* Native capture file writer (.ludus, docs/format.md): header, metadata,
 * site and thread tables, then each thread's runs as event blocks, then an
 * end record. The raw encoding writes the recorded 16-byte events as they
 * are (straight from the pool to the file, no copy through the buffer); the
 * compact encoding stores delta ticks and site indexes as varints. */
#include <stdlib.h>
#include <string.h>

#include "../capture/native_format.h"
#include "export_formats.h"
#include "export_internal.h"
#include "writer.h"

_Static_assert(sizeof(ludus__event) == 16, "the raw block encoding is 16-byte events");

/* Large payloads bypass the buffer: flushed data first, then the payload. */
static void w_big(ludus__writer *w, const void *p, size_t n) {
    if (n < 16384) {
        ludus__w_bytes(w, p, n);
        return;
    }
    ludus__w_flush(w);
    if (!w->failed && w->write(w->user_data, p, n) != 0) w->failed = 1;
    w->bytes += n;
}

static void w_record(ludus__writer *w, uint32_t tag, uint32_t aux, uint64_t len) {
    uint8_t h[LUDUS__NF_REC_BYTES];
    ludus__put_u32(h, tag);
    ludus__put_u32(h + 4, aux);
    ludus__put_u64(h + 8, len);
    ludus__w_bytes(w, h, sizeof h);
}

static void w_u32(ludus__writer *w, uint32_t v) {
    uint8_t b[4];
    ludus__put_u32(b, v);
    ludus__w_bytes(w, b, 4);
}
static void w_u64(ludus__writer *w, uint64_t v) {
    uint8_t b[8];
    ludus__put_u64(b, v);
    ludus__w_bytes(w, b, 8);
}

static size_t clamp_len(size_t n) {
    return n > LUDUS__NF_MAX_STRING ? LUDUS__NF_MAX_STRING : n;
}

/* ---- header and tables ---- */

static void write_header(ludus__writer *w, const ludus__captured *c) {
    uint8_t h[LUDUS__NF_HEADER_BYTES];
    memset(h, 0, sizeof h);
    memcpy(h, LUDUS__NF_MAGIC, 8);
    ludus__put_u32(h + 8, LUDUS__NF_VERSION);
    ludus__put_u32(h + 12, LUDUS__NF_BOM);
    ludus__put_u32(h + 16, LUDUS__NF_HEADER_BYTES);
    ludus__put_u32(h + 20, 0); /* flags */
    ludus__put_u32(h + 24, c->clock_tsc ? 1u : 0u);
    ludus__put_u32(h + 28, (uint32_t)c->pid);
    const ludus__calib_point *p[2] = {&c->c0, &c->c1};
    for (int i = 0; i < 2; i++) {
        ludus__put_u64(h + 32 + 24 * i, p[i]->ticks);
        ludus__put_u64(h + 40 + 24 * i, (uint64_t)p[i]->ns);
        ludus__put_u64(h + 48 + 24 * i, (uint64_t)p[i]->window_ns);
    }
    ludus__put_u64(h + 80, (uint64_t)c->start_ns);
    ludus__put_u64(h + 88, (uint64_t)c->end_ns);
    ludus__put_u32(h + 96, c->nsites);
    ludus__put_u32(h + 100, c->nthreads);
    ludus__w_bytes(w, h, sizeof h);
}

static void meta_entry(ludus__writer *w, const char *k, const char *v) {
    size_t kn = strlen(k), vn = clamp_len(strlen(v));
    w_u32(w, (uint32_t)kn);
    w_u32(w, (uint32_t)vn);
    ludus__w_bytes(w, k, kn);
    ludus__w_bytes(w, v, vn);
}
static uint64_t meta_size(const char *k, const char *v) {
    return 8 + strlen(k) + clamp_len(strlen(v));
}

static void write_meta(ludus__writer *w, const ludus__captured *c) {
    const char *keys[3] = {"ludus_version", "process_name", "categories"};
    const char *vals[3] = {LUDUS_VERSION_STRING, c->process_name, c->categories};
    uint64_t len = 0;
    uint32_t n = 0;
    for (int i = 0; i < 3; i++)
        if (vals[i]) len += meta_size(keys[i], vals[i]), n++;
    w_record(w, LUDUS__NF_META, n, len);
    for (int i = 0; i < 3; i++)
        if (vals[i]) meta_entry(w, keys[i], vals[i]);
}

static void write_stats(ludus__writer *w, const ludus__captured *c) {
    w_record(w, LUDUS__NF_STATS, 0, LUDUS__NF_STATS_BYTES);
    const uint64_t v[10] = {
        c->unregistered_drops, c->chunks_used, c->interner_drops, c->id_collisions, c->events, c->dropped,
        c->incomplete,         c->orphan_ends, c->filtered,       c->frames};
    for (int i = 0; i < 10; i++) w_u64(w, v[i]);
}

static void write_sites(ludus__writer *w, const ludus__captured *c) {
    uint64_t len = 0;
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        len += LUDUS__NF_SITE_BYTES + clamp_len(s->name_len) + clamp_len(strlen(s->function)) +
               clamp_len(strlen(s->file)) + (s->category ? clamp_len(s->category_len) : 0);
    }
    w_record(w, LUDUS__NF_SITES, c->nsites, len);
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        size_t nn = clamp_len(s->name_len), fn = clamp_len(strlen(s->function)), ln = clamp_len(strlen(s->file)),
               cn = s->category ? clamp_len(s->category_len) : 0;
        uint8_t e[LUDUS__NF_SITE_BYTES];
        ludus__put_u64(e, (uint64_t)s->key);
        ludus__put_u32(e + 8, s->id);
        ludus__put_u32(e + 12, s->line);
        e[16] = (uint8_t)(s->enabled ? 1 : 0);
        e[17] = (uint8_t)(s->category ? 1 : 0);
        e[18] = e[19] = 0;
        ludus__put_u32(e + 20, (uint32_t)nn);
        ludus__put_u32(e + 24, (uint32_t)fn);
        ludus__put_u32(e + 28, (uint32_t)ln);
        ludus__put_u32(e + 32, (uint32_t)cn);
        ludus__w_bytes(w, e, sizeof e);
        ludus__w_bytes(w, s->name, nn);
        ludus__w_bytes(w, s->function, fn);
        ludus__w_bytes(w, s->file, ln);
        if (cn) ludus__w_bytes(w, s->category, cn);
    }
}

static void write_threads(ludus__writer *w, const ludus__captured *c) {
    uint64_t len = 0;
    for (uint32_t t = 0; t < c->nthreads; t++)
        len += LUDUS__NF_THREAD_BYTES + strnlen(c->threads[t].name, sizeof c->threads[t].name - 1);
    w_record(w, LUDUS__NF_THREADS, c->nthreads, len);
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        size_t nn = strnlen(th->name, sizeof th->name - 1);
        const uint64_t v[7] = {th->tid,         th->dropped,  th->events, th->incomplete,
                               th->orphan_ends, th->filtered, th->frames};
        for (int i = 0; i < 7; i++) w_u64(w, v[i]);
        w_u32(w, th->exited ? 1u : 0u);
        w_u32(w, (uint32_t)nn);
        ludus__w_bytes(w, th->name, nn);
    }
}

/* ---- event blocks ---- */

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t i = 0;
    while (v >= 0x80) {
        p[i++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[i++] = (uint8_t)v;
    return i;
}

/* Compact encoding of one run (format.md "Compact blocks"); returns bytes. */
static size_t encode_compact(const ludus__captured *c, const ludus__event *ev, size_t n, uint8_t *out) {
    uint8_t *p = out;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        const ludus__event *e = &ev[i];
        unsigned k = (unsigned)(e->word & LUDUS__K_MASK);
        uint8_t *tag = p++;
        unsigned s = 0;
        uint64_t d = e->ticks - prev;
        prev = e->ticks;
        p += put_varint(p, (d << 1) ^ (uint64_t)((int64_t)d >> 63)); /* zigzag */
        if (ludus__nf_site_kind(k)) {
            uintptr_t key = e->word & ~(uintptr_t)LUDUS__K_MASK;
            uint32_t idx = key ? ludus__site_index(c, key) : UINT32_MAX;
            if (idx == UINT32_MAX) {
                p += put_varint(p, (uint64_t)e->word); /* s = 0: the raw word */
            } else if (idx < 14) {
                s = idx + 1;
            } else {
                s = 15;
                p += put_varint(p, idx);
            }
        }
        *tag = (uint8_t)(k | (s << 4));
        if (k >= LUDUS__K_FLOW_OUT && k <= LUDUS__K_COUNTER_F64 && i + 1 < n) {
            i++;
            p += put_varint(p, ev[i].ticks);
            if (k == LUDUS__K_FLOW_OUT) {
                uint32_t idx = ludus__site_index(c, LUDUS__FLOW_NAME_KEY(ev[i].word));
                if (idx == UINT32_MAX) {
                    *p++ = 0;
                    p += put_varint(p, (uint64_t)ev[i].word);
                } else {
                    p += put_varint(p, (uint64_t)idx + 1);
                }
            }
        }
    }
    return (size_t)(p - out);
}

typedef struct block_out {
    uint8_t *scratch;
    size_t cap;
    uint64_t blocks, slots;
} block_out;

static int write_block(ludus__writer *w, const ludus__captured *c, uint32_t thread, const ludus__event *ev, size_t n,
                       unsigned flags, block_out *bo) {
    uint8_t bh[LUDUS__NF_BLOCK_HEAD];
    ludus__put_u32(bh + 4, 0);
    ludus__put_u64(bh + 8, n);
    bo->blocks++;
    bo->slots += n;
    if (flags & LUDUS_SAVE_COMPACT) {
        size_t need = n * 24 + 16; /* tag + 2 varints per slot at worst */
        if (need > bo->cap) {
            uint8_t *s = realloc(bo->scratch, need);
            if (!s) return LUDUS_ENOMEM;
            bo->scratch = s;
            bo->cap = need;
        }
        size_t len = encode_compact(c, ev, n, bo->scratch);
        ludus__put_u32(bh, LUDUS__NF_COMPACT);
        w_record(w, LUDUS__NF_BLOCK, thread, LUDUS__NF_BLOCK_HEAD + len);
        ludus__w_bytes(w, bh, sizeof bh);
        w_big(w, bo->scratch, len);
        return 0;
    }
    ludus__put_u32(bh, LUDUS__NF_RAW);
    w_record(w, LUDUS__NF_BLOCK, thread, LUDUS__NF_BLOCK_HEAD + (uint64_t)n * 16);
    ludus__w_bytes(w, bh, sizeof bh);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && UINTPTR_MAX == UINT64_MAX
    w_big(w, ev, n * sizeof *ev); /* the file layout is the memory layout */
#else
    for (size_t i = 0; i < n; i++) {
        uint8_t b[16];
        ludus__put_u64(b, ev[i].ticks);
        ludus__put_u64(b + 8, (uint64_t)ev[i].word);
        ludus__w_bytes(w, b, 16);
    }
#endif
    return 0;
}

int ludus__save_native(ludus__captured *c, ludus__writer *w, unsigned flags) {
    int rc = ludus__prepare(c);
    if (rc) return rc;
    write_header(w, c);
    write_meta(w, c);
    write_stats(w, c);
    write_sites(w, c);
    write_threads(w, c);
    block_out bo = {NULL, 0, 0, 0};
    ludus__run_buf rb = {NULL, 0, NULL, 0};
    for (uint32_t t = 0; t < c->nthreads && rc == 0 && !w->failed; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        uint64_t cursor = th->load_first;
        for (uint32_t r = 0; r < th->nruns && rc == 0 && !w->failed; r++) {
            ludus__run run;
            if (c->load_run) {
                rc = c->load_run(c, &cursor, &run, &rb);
                if (rc) break;
            } else {
                run = th->runs[r];
            }
            if (run.n) rc = write_block(w, c, t, run.ev, run.n, flags, &bo);
        }
    }
    free(bo.scratch);
    free(rb.ev);
    free(rb.bytes);
    if (rc) return rc;
    w_record(w, LUDUS__NF_END, 0, 16);
    w_u64(w, bo.blocks);
    w_u64(w, bo.slots);
    return ludus__w_flush(w) ? LUDUS_EIO : 0;
}

/* ---- public entry points ---- */

int ludus_save_capture_ex(const char *path, unsigned flags) {
    if (flags & ~LUDUS_SAVE_COMPACT) return ludus__fail(LUDUS_EINVAL, "unknown save flags 0x%x", flags);
    return ludus__export_last_to_file(path, ludus__save_native, flags);
}

int ludus_save_capture(const char *path) {
    return ludus_save_capture_ex(path, LUDUS_SAVE_RAW);
}
