/* The streamed capture's writer (stream.h): a library thread that sleeps on
 * a semaphore until a producer hands it a full piece (the slow path that
 * takes the next piece posts it, as the prefault thread is nudged: it never
 * wakes on a timer), then appends each handed piece to the file as a
 * compact event block (sites and threads defined in records before the
 * first block that names them), gives the piece back to the pool and
 * writes a calibration point after the batch. The end writes the last
 * pieces, the tables, the summary and the end record (docs/format.md,
 * "Streamed files"). */
#define _GNU_SOURCE /* strnlen: before any system header */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stream.h"
#include "../base/grow.h"
#include "../base/text.h"
#include "../platform/background.h"
#include "../platform/sync.h"
#include "session_private.h"
#include "../capture/nev.h"
#include "../format/file_format.h"
#include "../format/file_meta.h"
#include "../record/event_kinds.h"

/* What the writer knows of a thread: blocks name it by its index here (its
 * order of first appearance), which is also its place in the THREADS table. */
/* A frame mark of the run being written: its ticks and the thread's CPU
 * ns there (-1: none). */
typedef struct stream_mark {
    int64_t ticks, cpu;
} stream_mark;

typedef struct stream_thread {
    uint32_t serial;
    uint64_t events, frames;
    uint64_t asyncs;       /* ASYNC events written (the THREADS entry's async_plus1 - 1) */
    uint64_t mark_last[4]; /* its last mark in a MARK_RUN record (put_marks; 0 before the first) */
} stream_thread;

struct ludus__stream {
    ludus__file file;
    ludus__wakeup wake;
    ludus__thread thread;
    int started;
    ludus__mutex lock;     /* a batch: the end's stop_giving waits for it */
    uint64_t full;         /* atomic: handed pieces, newest first, linked through their `unused` field */
    uint64_t handed, done; /* atomic: pieces handed, pieces written (ludus__stream_caught_up) */
    uint32_t stop;         /* atomic */
    int give_back;         /* lock: written pieces go back to the pool */
    ludus_capture *tab;    /* the site table so far (a capture object for its table only) */
    uint32_t sites_written;
    uintptr_t known[64]; /* site keys already in tab, direct-mapped (put_run) */
    stream_thread *th;
    uint32_t nthreads, cap;
    uint64_t blocks, slots, events, written; /* written: the file's size */
    int compressed;                          /* a block was written zstd-compressed (the index's flag) */
    uint64_t unwritten;                      /* events of pieces a failed write lost */
    int err;                                 /* the first write error (negative errno) */
    uint8_t *buf;                            /* records of the batch, written at its end */
    size_t n, bcap;
    uint64_t buf_events; /* events in buf */
    uint8_t *scratch;    /* one record's payload */
    stream_mark *marks;  /* the frame marks of the run being written */
    size_t marks_cap;
    ludus__zstd *z; /* the blocks' compression context (built with zstd) */
    size_t scap;
    int clock_tsc;
    int64_t clock_ns; /* when the last CLOCK record was taken */
    ludus__nf_header hdr;
};

static const ludus__source_ops table_only = {"stream sites", NULL, NULL, NULL, NULL, 0};

static int reserve(uint8_t **b, size_t *cap, size_t need) {
    if (need <= *cap) return 0;
    size_t c = *cap ? *cap : 65536;
    while (c < need) c *= 2;
    uint8_t *nb = ludus__realloc(*b, c);
    if (!nb) return -1;
    *b = nb, *cap = c;
    return 0;
}

/* A record into the batch buffer. */
static int put_record(ludus__stream *st, uint32_t tag, uint32_t aux, const void *payload, size_t len) {
    if (reserve(&st->buf, &st->bcap, st->n + ludus__nf_record_BYTES + len) != 0) return -1;
    ludus__nf_record_head(st->buf + st->n, tag, aux, payload, len);
    memcpy(st->buf + st->n + ludus__nf_record_BYTES, payload, len);
    st->n += ludus__nf_record_BYTES + len;
    return 0;
}

/* A failed write loses the buffer's events, and every later one (the
 * file keeps what was written before): counted. */
static void flush(ludus__stream *st) {
    if (st->n && !st->err) {
        int e = ludus__file_write(&st->file, st->buf, st->n);
        if (e)
            st->err = e;
        else
            st->written += st->n;
    }
    if (st->err) st->unwritten += st->buf_events, st->events -= st->buf_events;
    st->n = 0;
    st->buf_events = 0;
}

/* A calibration point after a batch, at most every CLOCK_EVERY_NS (a
 * reader of a file cut short takes the last as the end; events up to a
 * second past it still read). */
#define CLOCK_EVERY_NS 100000000
static void put_clock(ludus__stream *st, int always) {
    int64_t now = ludus__mono_ns();
    if (!always && now - st->clock_ns < CLOCK_EVERY_NS) return;
    st->clock_ns = now;
    ludus__calib_point p = ludus__calibrate_point();
    if (!st->clock_tsc) p.ticks = (uint64_t)p.ns;
    ludus__nf_clock e = {p.ticks, p.ns, p.window_ns};
    uint8_t b[ludus__nf_clock_BYTES];
    ludus__nf_clock_put(b, &e);
    put_record(st, LUDUS__NF_CLOCK, 0, b, sizeof b);
}

/* A thread entry (THREAD_DEF and THREADS) into p. async_plus1: its ASYNC
 * events written plus 1 (THREADS: the reader then decodes no thread a second
 * time to look for async zones it does not hold), or 0, not counted (a
 * THREAD_DEF); the other counts are the reader's to make. */
static uint8_t *put_thread(uint8_t *p, const char *name, uint64_t tid, uint64_t dropped, int64_t first_drop_ns,
                           uint64_t spans, int exited, uint64_t async_plus1) {
    size_t nn = strnlen(name, 63);
    ludus__nf_thread e = {tid,          dropped, first_drop_ns, spans, 0, 0, 0, 0, 0, 0, 0, exited ? 1u : 0u, 0,
                          (uint32_t)nn, 0,       async_plus1};
    p = ludus__nf_thread_put(p, &e);
    memcpy(p, name, nn);
    return p + nn;
}

/* The index of the thread of registration `serial`, defined in the file
 * (with its name and tid, read from the registry) when first met. */
static uint32_t thread_index(ludus__stream *st, uint32_t serial) {
    for (uint32_t i = st->nthreads; i-- > 0;)
        if (st->th[i].serial == serial) return i;
    if (st->nthreads == st->cap) {
        uint32_t cap = st->cap ? st->cap * 2 : 16;
        stream_thread *t = ludus__realloc(st->th, cap * sizeof *t);
        if (!t) return UINT32_MAX;
        st->th = t, st->cap = cap;
    }
    char name[64];
    uint64_t tid = 0;
    snprintf(name, sizeof name, "thread %u", serial);
    ludus__mutex_lock(&ludus__reg.lock);
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        const ludus__thread_record *r = &ludus__reg.rec[i];
        if (r->state == LUDUS__REC_LIVE && r->serial == serial) {
            memcpy(name, r->name, sizeof name);
            tid = r->tid;
        }
    }
    ludus__mutex_unlock(&ludus__reg.lock);
    name[63] = 0;
    uint32_t idx = st->nthreads++;
    st->th[idx] = (stream_thread){serial, 0, 0, 0, {0, 0, 0, 0}};
    uint8_t b[4 + ludus__nf_thread_BYTES + 64], *p = ludus__nf_put_U32(b, ludus__nf_thread_BYTES);
    p = put_thread(p, name, tid, 0, LUDUS__NO_DROP, 0, 0, 0);
    put_record(st, LUDUS__NF_THREAD_DEF, idx, b, (size_t)(p - b));
    return idx;
}

/* The sites the table gained since the last SITE_DEFS record. */
static int put_new_sites(ludus__stream *st) {
    const ludus_capture *t = st->tab;
    if (t->nsites == st->sites_written) return 0;
    size_t len = 4;
    for (uint32_t i = st->sites_written; i < t->nsites; i++) len += ludus__nf_site_size(&t->sites[i]);
    if (reserve(&st->scratch, &st->scap, len) != 0) return -1;
    uint8_t *p = ludus__nf_put_U32(st->scratch, ludus__nf_site_BYTES);
    for (uint32_t i = st->sites_written; i < t->nsites; i++) p = ludus__nf_put_site_entry(p, &t->sites[i]);
    int rc = put_record(st, LUDUS__NF_SITE_DEFS, t->nsites - st->sites_written, st->scratch, len);
    st->sites_written = t->nsites;
    return rc;
}

/* The frame marks of a run's block (format.md, "MARK_RUN"), after it: so a
 * reader finds the frames without reading the frame thread twice. Each
 * mark is the change of its delta (frames are much alike: 3 bytes a mark
 * where deltas take 5), going on from the thread's record before. Without
 * memory the record is left out: the reader then counts fewer marks than
 * frames and reads the thread for them, as it reads a file without any. */
static void put_marks(ludus__stream *st, uint32_t t, uint64_t n) {
    if (!n || reserve(&st->scratch, &st->scap, 10 + (size_t)n * 20) != 0) return; /* at most 10 bytes a varint */
    stream_thread *th = &st->th[t];
    uint8_t *p = ludus__varint_put(st->scratch, n);
    uint64_t last[4]; /* ticks, their delta, CPU ns, its delta: as unsigned, wrapping as written */
    memcpy(last, th->mark_last, sizeof last);
    for (uint64_t i = 0; i < n; i++) {
        const int64_t v2[2] = {st->marks[i].ticks, st->marks[i].cpu};
        for (int k = 0; k < 2; k++) {
            uint64_t v = (uint64_t)v2[k], d = v - last[2 * k];
            p = ludus__varint_put(p, ludus__zigzag((int64_t)(d - last[2 * k + 1])));
            last[2 * k] = v;
            last[2 * k + 1] = d;
        }
    }
    if (put_record(st, LUDUS__NF_MARK_RUN, t, st->scratch, (size_t)(p - st->scratch)) == 0)
        memcpy(th->mark_last, last, sizeof last);
}

/* One thread's run of n slots recorded at ev: its sites, then the block,
 * then its frame marks. 0, or -1 when out of memory (the run is lost,
 * counted). */
static int put_run(ludus__stream *st, uint32_t serial, const ludus__event *ev, size_t n) {
    /* one walk: the events, the frames and their CPU times (as the
     * normalised stream holds them: ludus__marks_note), and the sites the
     * table lacks (a key met here before skips the table's hash: sites are
     * few, events many) */
    uint64_t events = 0, frames = 0, asyncs = 0;
    int oom = 0, marks_lost = 0;
    for (size_t i = 0; i < n;) {
        unsigned k = (unsigned)(ev[i].word & LUDUS__K_MASK);
        const ludus__kind_info *ki = &ludus__kinds[k];
        events++;
        size_t s = ki->valid ? ludus__event_slots_in(ki, &ev[i], n - i) : 1;
        if (s > n - i) s = n - i;
        asyncs += k == LUDUS__KIND_ASYNC;
        if (k == LUDUS__KIND_FRAME) {
            if (!marks_lost && LUDUS__GROW(st->marks, frames, st->marks_cap, 256) != 0) marks_lost = 1;
            if (!marks_lost) st->marks[frames] = (stream_mark){(int64_t)ev[i].ticks, -1};
            frames++;
        } else if (k == LUDUS__KIND_EXT && s > 1 && LUDUS__EXT_CODE(ev[i + 1].word) == LUDUS__EXT_FRAME_CPU && frames &&
                   !marks_lost && st->marks[frames - 1].cpu < 0 && (int64_t)ev[i + 1].ticks >= 0) {
            st->marks[frames - 1].cpu = (int64_t)ev[i + 1].ticks;
        }
        uintptr_t keys[3];
        unsigned nk =
            ki->valid ? ludus__event_keys(ki, ev[i].word, s > 1 ? ev[i + 1].ticks : 0, s > 1 ? ev[i + 1].word : 0, keys)
                      : 0;
        for (unsigned j = 0; j < nk; j++) {
            uintptr_t *memo = &st->known[((keys[j] >> 4) ^ (keys[j] >> 10)) & 63];
            if (*memo == keys[j]) continue;
            oom |= ludus__sites_collect_run(st->tab, &ev[i], s) != 0; /* adds the event's keys */
            *memo = keys[j];
        }
        i += s;
    }
    uint32_t t = thread_index(st, serial);
    /* the compact bytes, then (built with zstd) their compressed form after them */
    size_t cmax = LUDUS__NF_COMPACT_MAX(n), max = ludus__nf_block_BYTES + cmax;
    if (ludus__zstd_built()) max += LUDUS__NF_ZSTD_HEAD + LUDUS__NF_ZSTD_BOUND(cmax);
    if (t == UINT32_MAX || oom || put_new_sites(st) != 0 || reserve(&st->scratch, &st->scap, max) != 0) {
        st->unwritten += events;
        return -1;
    }
    ludus__nf_block b = {LUDUS__NF_COMPACT, 0, n, (uint64_t)(uintptr_t)ev};
    uint8_t *p = st->scratch + ludus__nf_block_BYTES;
    size_t len = ludus__compact_encode(st->tab, ev, n, (uintptr_t)ev, p);
    size_t zlen = ludus__zstd_built() ? ludus__zstd_block(&st->z, p, len, n, p + cmax) : 0;
    if (zlen == LUDUS__ZSTD_NOMEM) zlen = 0; /* the block goes compact: bigger, nothing lost */
    if (zlen) {                              /* smaller: the compressed bytes in the compact ones' place */
        memmove(p, p + cmax, zlen);
        len = zlen;
        b.encoding = LUDUS__NF_ZSTD;
        st->compressed = 1;
    }
    ludus__nf_block_put(st->scratch, &b);
    if (put_record(st, LUDUS__NF_BLOCK, t, st->scratch, ludus__nf_block_BYTES + len) != 0) {
        st->unwritten += events;
        return -1;
    }
    if (!marks_lost) put_marks(st, t, frames);
    st->th[t].events += events;
    st->th[t].frames += frames;
    st->th[t].asyncs += asyncs;
    st->events += events;
    st->buf_events += events;
    st->blocks++;
    st->slots += n;
    return 0;
}

/* Writes the handed pieces, oldest first, giving each back once its
 * events are in the buffer. */
static void write_handed(ludus__stream *st) {
    uint64_t head = __atomic_exchange_n(&st->full, 0, __ATOMIC_ACQUIRE);
    if (!head) return;
    ludus__chunk *rev = NULL; /* the stack is newest first */
    for (ludus__chunk *ch = (ludus__chunk *)(uintptr_t)head; ch;) {
        ludus__chunk *next = (ludus__chunk *)(uintptr_t)ch->unused;
        ch->unused = (uint64_t)(uintptr_t)rev;
        rev = ch;
        ch = next;
    }
    uint64_t n_done = 0;
    ludus__mutex_lock(&st->lock);
    while (rev) {
        ludus__chunk *ch = rev;
        rev = (ludus__chunk *)(uintptr_t)ch->unused;
        ch->unused = 0;
        uint64_t used = __atomic_load_n(&ch->used, __ATOMIC_RELAXED);
        if (used) put_run(st, ch->thread, LUDUS__CHUNK_EVENTS(ch), (size_t)used);
        if (st->n >= (4u << 20)) flush(st); /* a long batch: the buffer stays a few MiB */
        if (st->give_back) ludus__pool_give_back(ch);
        n_done++;
    }
    put_clock(st, 0);
    ludus__mutex_unlock(&st->lock);
    flush(st);
    __atomic_fetch_add(&st->done, n_done, __ATOMIC_RELEASE);
}

static void *stream_writer_main(void *arg) {
    ludus__stream *st = arg;
    while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
        ludus__wakeup_wait(&st->wake, -1); /* a handed piece, or stop */
        write_handed(st);
    }
    write_handed(st);
    return NULL;
}

void ludus__stream_hand(ludus__stream *st, ludus__chunk *piece) {
    uint64_t old = __atomic_load_n(&st->full, __ATOMIC_RELAXED);
    do piece->unused = old;
    while (!__atomic_compare_exchange_n(&st->full, &old, (uint64_t)(uintptr_t)piece, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
    __atomic_fetch_add(&st->handed, 1u, __ATOMIC_RELAXED);
    ludus__wakeup_post(&st->wake);
}

int ludus__stream_caught_up(ludus__stream *st) {
    return __atomic_load_n(&st->done, __ATOMIC_ACQUIRE) == __atomic_load_n(&st->handed, __ATOMIC_RELAXED);
}

void ludus__stream_stop_giving(ludus__stream *st) {
    if (!st) return;
    ludus__mutex_lock(&st->lock);
    st->give_back = 0;
    ludus__mutex_unlock(&st->lock);
}

/* The header: appended at the start, written over at the end. */
static void stream_write_header(ludus__stream *st, int again) {
    uint8_t b[ludus__nf_header_BYTES];
    st->hdr.crc = 0;
    ludus__nf_header_put(b, &st->hdr);
    st->hdr.crc = ludus__crc32c(0, b, ludus__nf_header_offset("crc"));
    ludus__nf_header_put(b, &st->hdr);
    int e = again ? ludus__file_write_at(&st->file, 0, b, sizeof b) : ludus__file_write(&st->file, b, sizeof b);
    if (e && !st->err) st->err = e;
}

int ludus__stream_open(const char *path, ludus__stream **out) {
    *out = NULL;
    ludus__stream *st = ludus__calloc(1, sizeof *st);
    if (!st) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    int e = ludus__file_create_direct(&st->file, path);
    if (e) {
        char why[128];
        ludus__os_strerror(e, why, sizeof why);
        ludus__free(st);
        return ludus__fail(LUDUS_EIO, "cannot create the stream file %s: %s", path, why);
    }
    st->tab = ludus__capture_new(&table_only);
    if (!st->tab || ludus__wakeup_init(&st->wake) != 0) {
        ludus_capture_release(st->tab);
        ludus__file_abort(&st->file);
        ludus__free(st);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    st->give_back = 1;
    ludus__mutex_init(&st->lock);
    *out = st;
    return 0;
}

void ludus__stream_start(ludus__stream *st, const ludus__session *s) {
    if (s->categories) st->tab->categories = ludus__strdup(s->categories); /* NULL: every site enabled */
    st->clock_tsc = s->clock_tsc;
    ludus__nf_header *h = &st->hdr;
    h->magic = LUDUS__NF_MAGIC;
    h->version = LUDUS__FORMAT_STREAMED;
    h->bom = LUDUS__NF_BOM;
    h->header_bytes = ludus__nf_header_BYTES;
    h->flags = LUDUS__NF_STREAMED;
    h->clock = s->clock_tsc ? 1u : 0u;
    h->pid = s->pid;
    h->c0_ticks = s->begin_point.ticks, h->c0_ns = s->begin_point.ns, h->c0_window = s->begin_point.window_ns;
    /* until the end rewrites it: the range of a capture cut short comes
     * from its last CLOCK record */
    h->c1_ticks = h->c0_ticks, h->c1_ns = h->c0_ns, h->c1_window = h->c0_window;
    h->start_ns = h->end_ns = s->begin_point.ns;
    h->gen = s->gen;
    stream_write_header(st, 0);
    st->written = ludus__nf_header_BYTES;
    /* without the thread, the end writes every piece handed (the pool
     * meanwhile drops what it cannot hold, counted) */
    st->started = ludus__thread_start(&st->thread, stream_writer_main, st) == 0;
}

static void stop_thread(ludus__stream *st) {
    if (!st->started) return;
    __atomic_store_n(&st->stop, 1u, __ATOMIC_RELEASE);
    ludus__wakeup_post(&st->wake);
    ludus__thread_join(st->thread);
    st->started = 0;
}

static void stream_free(ludus__stream *st) {
    ludus__wakeup_destroy(&st->wake);
    ludus_capture_release(st->tab);
    ludus__free(st->th);
    ludus__free(st->buf);
    ludus__free(st->scratch);
    ludus__free(st->marks);
    ludus__zstd_free(st->z);
    ludus__mutex_destroy(&st->lock);
    ludus__free(st);
}

void ludus__stream_abort(ludus__stream *st) {
    if (!st) return;
    stop_thread(st);
    ludus__file_commit(&st->file);
    stream_free(st);
}

void ludus__stream_forget(ludus__stream *st) {
    if (!st) return;
    ludus__file_abort(&st->file); /* closes this process's descriptor only: the file stays the parent's */
    ludus__free(st->th);
    ludus__free(st->buf);
    ludus__free(st->scratch);
    ludus__free(st->marks);
    ludus__zstd_free(st->z);
    ludus__free(st); /* its thread, lock, semaphore and site table were the parent's */
}

/* ---- the end: tables, summary, end record ---- */

/* The write rate that would have kept the dropped events too: the bytes
 * written over the duration, plus the dropped events at the written ones'
 * mean size (0 when none was dropped). Higher than the written rate
 * whenever one was, whatever the share. */
static double needed_rate(uint64_t written, uint64_t events, uint64_t dropped, int64_t dur) {
    if (!dropped || dur <= 0) return 0.0;
    double per_event = events ? (double)written / (double)events : 16.0;
    return ((double)written + per_event * (double)dropped) * 1e9 / (double)dur;
}

static int put_meta(ludus__stream *st, const ludus_capture *c, uint64_t dropped, double needed) {
    char stream[96];
    snprintf(stream, sizeof stream, "%llu %llu %.0f", (unsigned long long)st->events, (unsigned long long)dropped,
             needed);
    ludus__nf_meta m;
    int rc = ludus__nf_meta_make(&m, c, 0, 0, 0, stream);
    size_t len = ludus__nf_meta_bytes(&m);
    if (reserve(&st->scratch, &st->scap, len) == 0) {
        ludus__nf_meta_put(st->scratch, &m);
        put_record(st, LUDUS__NF_META, m.n, st->scratch, len);
    } else {
        rc = LUDUS_ENOMEM;
    }
    ludus__nf_meta_free(&m);
    return rc;
}

/* The GPU samples handed over while it ran (the GPU store keeps them until
 * the end, as for a capture in memory): one record after the blocks. */
static int put_gpu(ludus__stream *st, const ludus_capture *c) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g) return 0;
    size_t n = 0;
    uint8_t *b = ludus__gpu_encode(g, &n);
    if (!b) return LUDUS_ENOMEM;
    put_record(st, LUDUS__NF_GPU, g->nctx, b, n);
    ludus__free(b);
    return 0;
}

int ludus__stream_finish(ludus__stream *st, ludus_capture *c, ludus_stream_result *out) {
    memset(out, 0, sizeof *out);
    stop_thread(st);  /* it wrote every piece handed before the end */
    write_handed(st); /* (no thread: all of them) */
    /* each thread's last pieces, in the capture's thread order */
    for (uint32_t t = 0; t < c->nthreads; t++) {
        for (ludus__chunk *ch = c->threads[t].first; ch; ch = ch->next)
            if (ch->used) put_run(st, c->threads[t].serial, LUDUS__CHUNK_EVENTS(ch), (size_t)ch->used);
        thread_index(st, c->threads[t].serial); /* a thread with no event still has its entry */
        if (st->n >= (4u << 20)) flush(st);
    }
    uint64_t dropped = c->unregistered_drops;
    for (uint32_t t = 0; t < c->nthreads; t++) dropped += c->threads[t].dropped;
    dropped += st->unwritten;
    int64_t dur = c->end_ns - c->start_ns;
    /* (the file's: the bytes before its end records, which are yet to be written) */
    double needed = needed_rate(st->written, st->events, dropped, dur);
    uint64_t tail = st->written + st->n; /* the index's tail: META, after every block and definition */
    /* what the file would lack without memory: the end fails (the file keeps the rest) */
    int lacks = put_meta(st, c, dropped, needed) != 0 ? 1 : 0;
    if (put_gpu(st, c) != 0) lacks |= 2;
    /* STATS: the normalised counts (and the cut annotation counts, which the
     * normaliser makes) are not counted in a streamed file yet: 0 here */
    ludus__nf_stats stats = {
        c->unregistered_drops, c->bytes_used, c->interner_drops, 0, 0, dropped, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    uint8_t sb[4 + ludus__nf_stats_BYTES];
    ludus__nf_stats_put(ludus__nf_put_U32(sb, ludus__nf_stats_BYTES), &stats);
    put_record(st, LUDUS__NF_STATS, 0, sb, sizeof sb);
    /* THREADS, in the writer's order; losses from the capture */
    size_t len = 4 + (size_t)st->nthreads * (ludus__nf_thread_BYTES + 63);
    if (reserve(&st->scratch, &st->scap, len) == 0) {
        uint8_t *p = ludus__nf_put_U32(st->scratch, ludus__nf_thread_BYTES);
        for (uint32_t i = 0; i < st->nthreads; i++) {
            const ludus__cap_thread *th = NULL;
            for (uint32_t t = 0; t < c->nthreads && !th; t++)
                if (c->threads[t].serial == st->th[i].serial) th = &c->threads[t];
            char name[64];
            snprintf(name, sizeof name, "thread %u", st->th[i].serial);
            uint64_t async_plus1 = st->th[i].asyncs + 1;
            p = th ? put_thread(p, th->name, th->tid, th->dropped, th->first_drop_ns, th->spans, th->exited,
                                async_plus1)
                   : put_thread(p, name, 0, 0, LUDUS__NO_DROP, 0, 0, async_plus1);
        }
        put_record(st, LUDUS__NF_THREADS, st->nthreads, st->scratch, (size_t)(p - st->scratch));
    }
    /* SUMMARY: what `info` prints without reading the blocks */
    ludus__nf_summary sum = {st->events, dropped, 0, 0, UINT32_MAX, 1, st->blocks, st->slots};
    uint64_t all = 0;
    for (uint32_t i = 0; i < st->nthreads; i++) {
        all += st->th[i].frames;
        if (st->th[i].frames > sum.frame_marks) sum.frame_marks = st->th[i].frames, sum.frame_thread = i;
    }
    sum.marks_elsewhere = all - sum.frame_marks;
    len = 8 + ludus__nf_summary_BYTES + (size_t)st->nthreads * ludus__nf_summary_thread_BYTES;
    if (reserve(&st->scratch, &st->scap, len) == 0) {
        uint8_t *p = ludus__nf_summary_put(ludus__nf_put_U32(st->scratch, ludus__nf_summary_BYTES), &sum);
        p = ludus__nf_put_U32(p, ludus__nf_summary_thread_BYTES);
        for (uint32_t i = 0; i < st->nthreads; i++) {
            ludus__nf_summary_thread e = {st->th[i].events, st->th[i].frames};
            p = ludus__nf_summary_thread_put(p, &e);
        }
        put_record(st, LUDUS__NF_SUMMARY, 0, st->scratch, len);
    }
    ludus__nf_end_index end = {st->blocks,
                               st->slots,
                               tail,
                               (st->blocks ? LUDUS__NF_END_COMPACT : 0u) |
                                   (st->compressed ? LUDUS__NF_END_COMPRESSED : 0u),
                               ludus__nf_end_index_BYTES,
                               LUDUS__NF_END_MAGIC};
    uint8_t eb[ludus__nf_end_index_BYTES];
    ludus__nf_end_index_put(eb, &end);
    put_record(st, LUDUS__NF_END, 0, eb, sizeof eb);
    flush(st);
    /* the header, complete: the capture's end, its tables' counts */
    st->hdr.c1_ticks = c->c1.ticks, st->hdr.c1_ns = c->c1.ns, st->hdr.c1_window = c->c1.window_ns;
    st->hdr.end_ns = c->end_ns;
    st->hdr.nsites = st->tab->nsites;
    st->hdr.nthreads = st->nthreads;
    if (!st->err) stream_write_header(st, 1);
    int e = ludus__file_commit(&st->file);
    if (e && !st->err) st->err = e;
    out->events = st->events;
    out->dropped = dropped;
    out->bytes = st->written;
    out->blocks = st->blocks;
    out->duration_ns = dur;
    out->written_bytes_per_s = dur > 0 ? (double)st->written * 1e9 / (double)dur : 0.0;
    out->needed_bytes_per_s = needed_rate(st->written, st->events, dropped, dur); /* beside written's, end included */
    out->error = st->err ? LUDUS_EIO : 0;
    int rc = 0;
    if (lacks && !st->err)
        rc = ludus__fail(LUDUS_ENOMEM, "out of memory for the streamed file's %s (the file holds the events)",
                         lacks == 1   ? "memory manifest"
                         : lacks == 2 ? "GPU samples"
                                      : "memory manifest and GPU samples");
    if (st->err) {
        char why[128];
        ludus__os_strerror(st->err, why, sizeof why);
        rc = ludus__fail(LUDUS_EIO, "the stream file could not be written: %s (it holds what was written before)", why);
    }
    stream_free(st);
    return rc;
}
