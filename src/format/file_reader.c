/* Reader of native capture files (.ludus versions 2 to 6: LUDUS__FORMAT_OLDEST
 * to LUDUS__FORMAT_STREAMED, file_format.h), from a
 * path or from memory, as a capture object. Open checks the header, loads
 * the metadata, site and thread tables, and walks every record checking its
 * framing and its CRC-32C (block payloads are read through a fixed buffer,
 * not kept), so memory is bounded by the tables plus one block, and any
 * damage is found before a verb reports anything. Event blocks are read
 * again one at a time when a stream reaches them (the run loader), checked
 * again, decoded, and their times checked against the capture's range.
 * Every defect is LUDUS_EFORMAT with "offset N: what" in the detail.
 * ludus_capture_open_index reads only the header, the tables and the
 * summary, found through the index at the end of END (no block). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/file_read.h"
#include "file_format.h"
#include "../capture/capture_build.h"
#include "../base/text.h"
#include "../base/varint.h"
#include "../base/grow.h"
#include "../capture/nev.h"

/* A streamed file's blocks: threads interleave, so each block names the
 * next block of its thread (a run loader's cursor is a block's index). */
typedef struct stream_block {
    uint64_t off, next;
} stream_block;

/* A streamed file's MARK_RUN record: where its payload is, and its thread. */
typedef struct mark_run {
    uint64_t base, len;
    uint32_t thread;
} mark_run;

typedef struct reader {
    int fd; /* -1: memory */
    const uint8_t *mem;
    uint64_t size;
    uint64_t margin_ticks; /* events may lie this far outside the capture */
    int streamed;          /* header flag LUDUS__NF_STREAMED */
    stream_block *blk;
    uint64_t nblk, blk_cap;
    uint64_t *last_blk; /* per thread: its last block's index (UINT64_MAX: none yet) */
    uint32_t ndefs;     /* THREAD_DEF records so far */
    mark_run *mk;       /* a streamed file's MARK_RUN records, decoded at its end (the frame thread's) */
    uint64_t nmk, mk_cap;
    /* opened through the index (ludus_capture_open_index): the records from
     * `tail` on are the ones after the blocks; none is a block */
    int index_only;
    uint64_t tail;
    ludus__nf_end_index index;
} reader;

__attribute__((format(printf, 2, 3))) static int fmt_fail(uint64_t off, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ludus__fail(LUDUS_EFORMAT, "malformed input, offset %" PRIu64 ": %s", off, msg);
}
#define FMT_FAIL(off, ...) fmt_fail((uint64_t)(off), __VA_ARGS__)

/* Reads n bytes at off; a range past the end is a format error. */
static int read_at(reader *r, uint64_t off, void *p, size_t n, const char *what) {
    if (off > r->size || n > r->size - off)
        return FMT_FAIL(off, "%s of %zu bytes runs past the end of the file (%" PRIu64 " bytes)", what, n, r->size);
    if (r->fd < 0) {
        memcpy(p, r->mem + off, n);
        return 0;
    }
    int e = ludus__read_at(r->fd, off, p, n);
    if (e) {
        char buf[128];
        ludus__os_strerror(e, buf, sizeof buf);
        return ludus__fail(LUDUS_EIO, "offset %" PRIu64 ": cannot read %s (%zu bytes): %s", off, what, n, buf);
    }
    return 0;
}

/* The record's CRC: its head fields and its payload [off + head, + length),
 * read in pieces through buf (the payload is not kept). */
static int check_crc(reader *r, uint64_t off, const ludus__nf_record *h, const uint8_t *payload) {
    uint8_t head[16];
    uint8_t *p = ludus__nf_put_U32(head, h->tag);
    p = ludus__nf_put_U32(p, h->aux);
    ludus__nf_put_U64(p, h->length);
    uint32_t crc = ludus__crc32c(0, head, sizeof head);
    if (payload) {
        crc = ludus__crc32c(crc, payload, (size_t)h->length);
    } else {
        uint8_t buf[65536];
        for (uint64_t done = 0; done < h->length;) {
            size_t k = h->length - done < sizeof buf ? (size_t)(h->length - done) : sizeof buf;
            int rc = read_at(r, off + ludus__nf_record_BYTES + done, buf, k, "record payload");
            if (rc) return rc;
            crc = ludus__crc32c(crc, buf, k);
            done += k;
        }
    }
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    crc = h->crc; /* let mutations reach the parsers behind the checksum */
#endif
    if (crc != h->crc)
        return FMT_FAIL(off + ludus__nf_record_offset("crc"),
                        "checksum mismatch in a record of tag %u (%" PRIu64 " bytes): the file is damaged", h->tag,
                        h->length);
    return 0;
}

/* ---- run loader ---- */

static int block_frame(uint64_t off, const ludus__nf_record *h, const ludus__nf_block *b) {
    if (h->length < ludus__nf_block_BYTES) return FMT_FAIL(off + 8, "block length %" PRIu64 " is too short", h->length);
    if (b->encoding != LUDUS__NF_RAW && b->encoding != LUDUS__NF_COMPACT && b->encoding != LUDUS__NF_ZSTD)
        return FMT_FAIL(off + ludus__nf_record_BYTES, "unknown block encoding %u", b->encoding);
    if (b->encoding == LUDUS__NF_ZSTD && !ludus__zstd_built())
        return FMT_FAIL(off + ludus__nf_record_BYTES,
                        "a zstd-compressed block (encoding 2): this reader was built without zstd (LUDUS_ZSTD=OFF); "
                        "read or convert the file with a ludus-trace built with it");
    if (b->slots == 0 || b->slots > LUDUS__NF_MAX_BLOCK_SLOTS)
        return FMT_FAIL(off + ludus__nf_record_BYTES + ludus__nf_block_offset("slots"),
                        "block of %" PRIu64 " slots (1..%u allowed)", b->slots, LUDUS__NF_MAX_BLOCK_SLOTS);
    if (b->base & 15)
        return FMT_FAIL(off + ludus__nf_record_BYTES + ludus__nf_block_offset("base"),
                        "block base address not 16-aligned");
    if (b->reserved != 0)
        return FMT_FAIL(off + ludus__nf_record_BYTES + ludus__nf_block_offset("reserved"),
                        "block reserved field is 0x%x, not 0", b->reserved);
    uint64_t data = h->length - ludus__nf_block_BYTES;
    if (b->encoding == LUDUS__NF_RAW && data != b->slots * 16)
        return FMT_FAIL(off + 8, "raw block of %" PRIu64 " slots has %" PRIu64 " data bytes", b->slots, data);
    /* Every compact event takes at least a byte per slot (a tag and a tick
     * delta), so the slots a block claims are bounded by its bytes: memory
     * while reading stays bounded by the file's size. */
    if (b->encoding == LUDUS__NF_COMPACT && (data < b->slots || data < 2 || data > LUDUS__NF_COMPACT_MAX(b->slots)))
        return FMT_FAIL(off + 8, "compact block of %" PRIu64 " slots has %" PRIu64 " data bytes", b->slots, data);
    /* a compressed block: its length and a frame; its slots bounded by its bytes too */
    if (b->encoding == LUDUS__NF_ZSTD &&
        (data <= LUDUS__NF_ZSTD_HEAD || b->slots > (data - LUDUS__NF_ZSTD_HEAD) * LUDUS__NF_ZSTD_MAX_SLOTS_PER_BYTE))
        return FMT_FAIL(off + 8, "zstd-compressed block of %" PRIu64 " slots has %" PRIu64 " data bytes", b->slots,
                        data);
    return 0;
}

/* The ticks an event (or a frame mark) may have: the capture's calibrated
 * range widened by the margin on either side. */
static void tick_range(const reader *r, const ludus_capture *c, uint64_t *lo, uint64_t *hi) {
    *lo = c->c0.ticks > r->margin_ticks ? c->c0.ticks - r->margin_ticks : 0;
    *hi = c->c1.ticks + r->margin_ticks < c->c1.ticks ? UINT64_MAX : c->c1.ticks + r->margin_ticks;
}

/* The decoded events of a block must be events this capture could hold.
 * Raw blocks (the file's slots as recorded) are checked field by field
 * here, and a format 4 file's messages become the MESSAGE extension; a
 * compact block's decoder has done both. */
static int check_events(reader *r, const ludus_capture *c, ludus__event *ev, size_t n, uint64_t data_off, int raw) {
    uintptr_t known[64] = {0}; /* site keys found in the table, direct-mapped */
    uint64_t lo, hi;
    tick_range(r, c, &lo, &hi);
    for (size_t i = 0; i < n;) {
        uint64_t at = data_off + (raw ? i * 16 : 0);
        unsigned kind = (unsigned)(ev[i].word & LUDUS__K_MASK);
        const ludus__kind_info *fk = ludus__kind_in_format(c->file.version, kind); /* as the file holds it */
        const ludus__kind_info *ki = raw ? fk : &ludus__kinds[kind];               /* as decoded */
        if (!fk->valid) return FMT_FAIL(at, "event %zu has the unknown kind %u", i, kind);
        if (fk->since > c->file.version)
            return FMT_FAIL(at, "event %zu has kind %u, which format version %u added (the file is version %u)", i,
                            kind, fk->since, c->file.version);
        if (ev[i].ticks < lo || ev[i].ticks > hi)
            return FMT_FAIL(at,
                            "event %zu lies outside the capture's time range (tick %" PRIu64 ", capture %" PRIu64
                            " .. %" PRIu64 ")",
                            i, ev[i].ticks, c->c0.ticks, c->c1.ticks);
        if (ki->slots == 2 && i + 1 >= n) return FMT_FAIL(at, "event %zu's payload is cut by the end of the block", i);
        if (ki->slots == 2 && ludus__field_data_len(ki->word_field, ev[i + 1].word) > LUDUS__EXT_DATA_MAX)
            return FMT_FAIL(at + 24, "event %zu claims %" PRIu64 " bytes of data (at most %u)", i,
                            (uint64_t)ludus__field_data_len(ki->word_field, ev[i + 1].word), LUDUS__EXT_DATA_MAX);
        size_t slots = ludus__event_slots_in(ki, &ev[i], n - i);
        if (slots > n - i) return FMT_FAIL(at, "event %zu's data is cut by the end of the block", i);
        if (ki->slots == 2 && ki->word_field == LUDUS__F_EXT &&
            ludus__nevs[ludus__exts[LUDUS__EXT_CODE(ev[i + 1].word)].nev].attach &&
            !(ev[i].word & ~(uintptr_t)LUDUS__K_MASK))
            return FMT_FAIL(at + 8, "event %zu is an annotation without a key", i);
        if (raw) {
            if (ki->word == LUDUS__W_SITE && !(ev[i].word & ~(uintptr_t)LUDUS__K_MASK))
                return FMT_FAIL(at + 8, "event %zu of kind %u has no site", i, kind);
            uintptr_t keys[3];
            unsigned nk = ludus__event_keys(ki, ev[i].word, slots > 1 ? ev[i + 1].ticks : 0,
                                            slots > 1 ? ev[i + 1].word : 0, keys);
            for (unsigned j = 0; j < nk; j++) {
                uintptr_t *memo = &known[((keys[j] >> 4) ^ (keys[j] >> 10)) & 63];
                if (*memo == keys[j]) continue;
                if (ludus__site_index(c, keys[j]) == UINT32_MAX)
                    return FMT_FAIL(at + (j ? 16 : 8), "event %zu names a site that is not in the site table", i);
                *memo = keys[j];
            }
            if (ki->slots == 2 && ki->word_field == LUDUS__F_STAT && ev[i + 1].word >= LUDUS__STAT_COUNT)
                return FMT_FAIL(at + 24, "event %zu names an unknown frame statistic %" PRIu64, i,
                                (uint64_t)ev[i + 1].word);
            if (ki->slots == 2 && ki->word_field == LUDUS__F_EXT && LUDUS__EXT_CODE(ev[i + 1].word) == 0)
                return FMT_FAIL(at + 24, "event %zu is an extension with sub-kind 0", i);
            if (ki->word_field == LUDUS__F_TEXT) ludus__upgrade_text_payload(&ev[i + 1]);
        }
        i += slots;
    }
    return 0;
}

/* A zstd-compressed block's events: the frame after the block data's u64
 * length is decompressed after the payload in buf->bytes, then decoded as
 * a compact block. A defect in the frame is reported at the frame's
 * offset; one in the events at the frame's offset with the byte of the
 * decompressed events. */
static int unblock(const ludus_capture *c, const ludus__nf_block *b, ludus__run_buf *buf, size_t plen,
                   uint64_t data_off) {
    uint64_t want;
    ludus__nf_get_U64(buf->bytes + ludus__nf_block_BYTES, &want);
    if (want < b->slots || want < 2 || want > LUDUS__NF_COMPACT_MAX(b->slots))
        return FMT_FAIL(data_off, "zstd-compressed block of %" PRIu64 " slots claims %" PRIu64 " bytes of events",
                        b->slots, want);
    if (plen + want > buf->bytes_cap) {
        uint8_t *nb = ludus__realloc(buf->bytes, plen + (size_t)want);
        if (!nb) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %" PRIu64 " bytes", plen + want);
        buf->bytes = nb;
        buf->bytes_cap = plen + (size_t)want;
    }
    const uint8_t *frame = buf->bytes + ludus__nf_block_BYTES + LUDUS__NF_ZSTD_HEAD;
    size_t flen = plen - ludus__nf_block_BYTES - LUDUS__NF_ZSTD_HEAD, bad;
    uint64_t frame_off = data_off + LUDUS__NF_ZSTD_HEAD;
    uint8_t *events = buf->bytes + plen;
    const char *why;
    int zrc = ludus__zstd_unblock(frame, flen, events, (size_t)want, &why);
    if (zrc == -2) return ludus__fail(LUDUS_ENOMEM, "out of memory to decompress a block of %" PRIu64 " bytes", want);
    if (zrc != 0) return FMT_FAIL(frame_off, "zstd-compressed block: %s", why);
    if (ludus__compact_decode(c, events, (size_t)want, buf->ev, (size_t)b->slots, (uintptr_t)b->base, &bad, &why) != 0)
        return FMT_FAIL(frame_off, "zstd-compressed block, byte %zu of its events: %s", bad, why);
    return 0;
}

static int load_run(const ludus_capture *c, uint64_t *cursor, ludus__run *out, ludus__run_buf *buf) {
    reader *r = c->src_data;
    if (r->index_only)
        return ludus__fail(LUDUS_EUNSUPPORTED, "a capture opened through its index (ludus_capture_open_index) has "
                                               "its tables only, no event: open it with ludus_capture_open");
    uint64_t off = *cursor, next_cursor = 0;
    if (r->streamed) { /* the cursor is the block's index */
        if (*cursor >= r->nblk) return FMT_FAIL(0, "no more blocks of this thread");
        off = r->blk[*cursor].off;
        next_cursor = r->blk[*cursor].next;
    }
    uint8_t hb[ludus__nf_record_BYTES + ludus__nf_block_BYTES];
    ludus__nf_record h;
    for (;;) { /* records of unknown tags between blocks are skipped */
        int rc = read_at(r, off, hb, ludus__nf_record_BYTES, "record header");
        if (rc) return rc;
        ludus__nf_record_get(&h, hb);
        if (h.length > r->size - off - ludus__nf_record_BYTES)
            return FMT_FAIL(off + 8, "record length %" PRIu64 " exceeds the file", h.length);
        if (h.tag == LUDUS__NF_BLOCK) break;
        off += ludus__nf_record_BYTES + h.length;
    }
    int rc = read_at(r, off + ludus__nf_record_BYTES, hb + ludus__nf_record_BYTES, ludus__nf_block_BYTES, "block head");
    if (rc) return rc;
    ludus__nf_block b;
    ludus__nf_block_get(&b, hb + ludus__nf_record_BYTES);
    if ((rc = block_frame(off, &h, &b)) != 0) return rc;
    if (b.slots > buf->cap) {
        ludus__event *e = ludus__realloc(buf->ev, (size_t)b.slots * sizeof *e);
        if (!e) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %" PRIu64 " slots", b.slots);
        buf->ev = e;
        buf->cap = (size_t)b.slots;
    }
    /* The whole payload, block head included, for the checksum. */
    size_t plen = (size_t)h.length;
    if (plen > buf->bytes_cap) {
        uint8_t *nb = ludus__realloc(buf->bytes, plen);
        if (!nb) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %zu bytes", plen);
        buf->bytes = nb;
        buf->bytes_cap = plen;
    }
    if ((rc = read_at(r, off + ludus__nf_record_BYTES, buf->bytes, plen, "block")) != 0) return rc;
    if ((rc = check_crc(r, off, &h, buf->bytes)) != 0) return rc;
    uint64_t data_off = off + ludus__nf_record_BYTES + ludus__nf_block_BYTES;
    const uint8_t *data = buf->bytes + ludus__nf_block_BYTES;
    size_t dlen = plen - ludus__nf_block_BYTES;
    if (b.encoding == LUDUS__NF_RAW && LUDUS__NF_NATIVE_LE && sizeof(ludus__event) == 16 && sizeof(uintptr_t) == 8) {
        memcpy(buf->ev, data, (size_t)b.slots * 16); /* the file's layout is the memory's */
    } else if (b.encoding == LUDUS__NF_RAW) {
        for (size_t i = 0; i < b.slots; i++) {
            const uint8_t *p = ludus__nf_get_U64(data + 16 * i, &buf->ev[i].ticks);
            uint64_t w;
            ludus__nf_get_U64(p, &w);
            buf->ev[i].word = (uintptr_t)w;
        }
    } else if (b.encoding == LUDUS__NF_COMPACT) {
        size_t bad;
        const char *why;
        if (ludus__compact_decode(c, data, dlen, buf->ev, (size_t)b.slots, (uintptr_t)b.base, &bad, &why) != 0)
            return FMT_FAIL(data_off + bad, "compact block: %s", why);
    } else if ((rc = unblock(c, &b, buf, plen, data_off)) != 0) {
        return rc;
    }
    if ((rc = check_events(r, c, buf->ev, (size_t)b.slots, data_off, b.encoding == LUDUS__NF_RAW)) != 0) return rc;
    out->ev = buf->ev;
    out->n = (size_t)b.slots;
    out->base = (uintptr_t)b.base;
    *cursor = r->streamed ? next_cursor : off + ludus__nf_record_BYTES + h.length;
    return 0;
}

/* ---- open: header and tables ---- */

#define TIME_OK(v) ((v) > -(INT64_C(1) << 62) && (v) < (INT64_C(1) << 62))

static int parse_header(reader *r, ludus_capture *c, uint64_t *first_record, uint32_t *nsites, uint32_t *nthreads) {
    uint8_t hb[ludus__nf_header_BYTES];
    if (r->size < ludus__nf_header_BYTES)
        return FMT_FAIL(0, "file of %" PRIu64 " bytes is shorter than the %u-byte header", r->size,
                        (unsigned)ludus__nf_header_BYTES);
    int rc = read_at(r, 0, hb, sizeof hb, "header");
    if (rc) return rc;
    ludus__nf_header h;
    ludus__nf_header_get(&h, hb);
    if (h.magic != LUDUS__NF_MAGIC) return FMT_FAIL(0, "bad magic: not a Ludus capture file");
    if (h.version < LUDUS__FORMAT_OLDEST || h.version > LUDUS__FORMAT_STREAMED)
        return FMT_FAIL(ludus__nf_header_offset("version"), "format version %u (this reader reads versions %u to %u)",
                        h.version, LUDUS__FORMAT_OLDEST, LUDUS__FORMAT_STREAMED);
    c->file.version = h.version;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if (ludus__crc32c(0, hb, ludus__nf_header_offset("crc")) != h.crc)
        return FMT_FAIL(ludus__nf_header_offset("crc"), "header checksum mismatch: the file is damaged");
#endif
    if (h.bom != LUDUS__NF_BOM) return FMT_FAIL(ludus__nf_header_offset("bom"), "bad byte-order mark 0x%08x", h.bom);
    /* version 6 is the streamed layout, and only it */
    uint32_t want_flags = h.version == LUDUS__FORMAT_STREAMED ? LUDUS__NF_STREAMED : 0u;
    if (h.flags != want_flags)
        return FMT_FAIL(ludus__nf_header_offset("flags"), "header flags 0x%x (a version %u file has 0x%x)", h.flags,
                        h.version, want_flags);
    r->streamed = h.flags == LUDUS__NF_STREAMED;
    c->file.streamed = r->streamed;
    if (h.header_bytes != ludus__nf_header_BYTES) /* every header byte is under the checksum */
        return FMT_FAIL(ludus__nf_header_offset("header_bytes"), "header size %u (headers are %u bytes)",
                        h.header_bytes, (unsigned)ludus__nf_header_BYTES);
    if (h.clock > 1) return FMT_FAIL(ludus__nf_header_offset("clock"), "unknown clock source %u", h.clock);
    c->clock_tsc = (int)h.clock;
    c->pid = h.pid;
    c->gen = h.gen;
    c->c0 = (ludus__calib_point){h.c0_ticks, h.c0_ns, h.c0_window};
    c->c1 = (ludus__calib_point){h.c1_ticks, h.c1_ns, h.c1_window};
    const char *field, *why = ludus__calib_check(c->clock_tsc, &c->c0, &c->c1, &field);
    /* a streamed file cut short holds its first header: its range comes from its last CLOCK record */
    if (why && !r->streamed) return FMT_FAIL(ludus__nf_header_offset(field), "%s: %s", field, why);
    c->start_ns = h.start_ns;
    c->end_ns = h.end_ns;
    if (!TIME_OK(c->start_ns) || !TIME_OK(c->end_ns) || c->end_ns < c->start_ns)
        return FMT_FAIL(ludus__nf_header_offset("start_ns"), "capture start/end out of range or out of order");
    if (h.nsites > LUDUS__NF_MAX_SITES)
        return FMT_FAIL(ludus__nf_header_offset("nsites"), "%u sites exceed the limit %u", h.nsites,
                        LUDUS__NF_MAX_SITES);
    if (h.nthreads > LUDUS__NF_MAX_THREADS)
        return FMT_FAIL(ludus__nf_header_offset("nthreads"), "%u threads exceed the limit %u", h.nthreads,
                        LUDUS__NF_MAX_THREADS);
    /* One second of ticks on either side of the capture (events of the
     * inline path may precede the first calibration point by a few ns). */
    r->margin_ticks = why ? 0 : ludus__calib_margin(c->clock_tsc, &c->c0, &c->c1); /* (streamed: set at the end) */
    *first_record = h.header_bytes;
    *nsites = h.nsites;
    *nthreads = h.nthreads;
    return 0;
}

/* A copy of s[0, n) as valid UTF-8 in the capture's arena. */
static const char *text(ludus_capture *c, const void *s, size_t n, size_t *len) {
    size_t cap = n * 3 < LUDUS__NF_MAX_STRING ? n * 3 : LUDUS__NF_MAX_STRING;
    char *out = ludus__arena_alloc(&c->site_text, cap + 1);
    if (!out) return NULL;
    size_t k = ludus__utf8_clean(s, n, out, cap);
    out[k] = 0;
    if (len) *len = k;
    return out;
}

/* "SIGNAME signo tid at_ns" (native_writer.c), after the
 * header (the capture's range is known). */
static int parse_crash(ludus_capture *c, const char *v, uint32_t vn) {
    char text[128], name[16];
    if (vn >= sizeof text) return -1;
    memcpy(text, v, vn);
    text[vn] = 0;
    int signo;
    unsigned long long tid;
    long long at;
    if (sscanf(text, "%15s %d %llu %lld", name, &signo, &tid, &at) != 4 || signo <= 0) return -1;
    if (at < c->start_ns || at > c->end_ns) return -1;
    c->crash.ns = at;
    c->crash.signal_name[ludus__utf8_clean(name, strlen(name), c->crash.signal_name, sizeof c->crash.signal_name - 1)] =
        0;
    c->crash.signal = signo;
    c->crash.tid = tid;
    return 0;
}

/* "reason at_ns detail" (native_writer.c): the reason a word, the detail
 * any text (kept as valid UTF-8). */
static int parse_trigger(ludus_capture *c, const char *v, uint32_t vn) {
    char text[400], reason[40];
    if (vn >= sizeof text) return -1;
    memcpy(text, v, vn);
    text[vn] = 0;
    long long at;
    int used = 0;
    if (sscanf(text, "%39s %lld %n", reason, &at, &used) != 2) return -1;
    c->trigger.reason[ludus__utf8_clean(reason, strlen(reason), c->trigger.reason, sizeof c->trigger.reason - 1)] = 0;
    c->trigger.ns = at;
    const char *d = used ? text + used : "";
    c->trigger.detail[ludus__utf8_clean(d, strlen(d), c->trigger.detail, sizeof c->trigger.detail - 1)] = 0;
    return 0;
}

static int parse_meta(ludus_capture *c, uint64_t base, const uint8_t *p, uint64_t len) {
    for (uint64_t pos = 0; pos < len;) {
        if (len - pos < 8) return FMT_FAIL(base + pos, "metadata entry header truncated");
        uint32_t kn, vn;
        ludus__nf_get_U32(ludus__nf_get_U32(p + pos, &kn), &vn);
        if (kn > LUDUS__NF_MAX_STRING || vn > LUDUS__NF_MAX_STRING || (uint64_t)kn + vn > len - pos - 8)
            return FMT_FAIL(base + pos, "metadata entry lengths %u+%u exceed the record", kn, vn);
        const char *k = (const char *)p + pos + 8, *v = k + kn;
        if (kn == 12 && !memcmp(k, "process_name", 12)) {
            size_t n = ludus__utf8_clean(v, vn, c->process_name, sizeof c->process_name - 1);
            c->process_name[n] = 0;
        } else if (kn == 10 && !memcmp(k, "categories", 10) && !c->categories) {
            size_t cap = (size_t)vn * 3 < LUDUS__NF_MAX_STRING ? (size_t)vn * 3 : LUDUS__NF_MAX_STRING; /* as saved */
            c->categories = ludus__malloc(cap + 1);
            if (!c->categories) return ludus__fail(LUDUS_ENOMEM, "out of memory");
            c->categories[ludus__utf8_clean(v, vn, c->categories, cap)] = 0;
        } else if (kn == 9 && !memcmp(k, "recovered", 9)) {
            c->pool.recovered = 1;
        } else if ((kn == 16 && !memcmp(k, "counters_refused", 16)) ||
                   (kn == 17 && !memcmp(k, "counter_adds_lost", 17))) {
            char num[24];
            unsigned long long x = 0;
            char *end = num;
            if (vn > 0 && vn < sizeof num) {
                memcpy(num, v, vn);
                num[vn] = 0;
                x = strtoull(num, &end, 10);
            }
            if (vn == 0 || vn >= sizeof num || *end || num[0] < '0' || num[0] > '9')
                return FMT_FAIL(base + pos + 8 + kn, "malformed %.*s entry", (int)kn, k);
            if (kn == 16)
                c->counters_refused = x > UINT32_MAX ? UINT32_MAX : (uint32_t)x;
            else
                c->counter_adds_lost = x;
        } else if (kn == 3 && !memcmp(k, "cut", 3)) {
            char num[80];
            long long f, t, d;
            if (vn >= sizeof num) return FMT_FAIL(base + pos + 8 + kn, "malformed cut entry");
            memcpy(num, v, vn);
            num[vn] = 0;
            if (sscanf(num, "%lld %lld %lld", &f, &t, &d) != 3 || f < 0 || t < f || d < t)
                return FMT_FAIL(base + pos + 8 + kn, "malformed cut entry");
            c->file.cut = 1, c->file.cut_from_ns = f, c->file.cut_to_ns = t, c->file.cut_of_ns = d;
        } else if (kn == 7 && !memcmp(k, "trigger", 7)) {
            if (parse_trigger(c, v, vn) != 0) return FMT_FAIL(base + pos + 8 + kn, "malformed trigger entry");
        } else if (kn == 5 && !memcmp(k, "crash", 5)) {
            if (parse_crash(c, v, vn) != 0) return FMT_FAIL(base + pos + 8 + kn, "malformed crash entry");
        } else if (kn == 15 && !memcmp(k, "memory_coverage", 15) && !c->mem_cov) {
            char why[96];
            int rc = ludus__mem_cov_parse(c, v, vn, why, sizeof why);
            if (rc == -2) return ludus__fail(LUDUS_ENOMEM, "out of memory");
            if (rc) return FMT_FAIL(base + pos + 8 + kn, "%s", why);
        }
        pos += 8 + (uint64_t)kn + vn;
    }
    return 0;
}

/* A thread entry of es bytes (at least LUDUS__NF_THREAD_BYTES_MIN): the
 * fields an older writer did not write read as 0. */
static void thread_entry_get(ludus__nf_thread *e, const uint8_t *p, uint32_t es) {
    uint8_t full[ludus__nf_thread_BYTES] = {0};
    memcpy(full, p, es < sizeof full ? es : sizeof full);
    ludus__nf_thread_get(e, full);
}

/* The size of a table's fixed entries, as written (at least what this
 * reader knows). */
static int entry_size(uint64_t base, const uint8_t *p, uint64_t len, uint32_t known, uint32_t *size) {
    if (len < 4) return FMT_FAIL(base, "table record too short");
    ludus__nf_get_U32(p, size);
    if (*size < known || *size > 4096)
        return FMT_FAIL(base, "table entries of %u bytes (this reader needs %u to 4096)", *size, known);
    return 0;
}

/* A table of `count` entries (the record's aux): as many as the header
 * says, entries of a size this reader knows, all within the record. */
static int table_head(uint64_t base, const char *what, uint32_t count, uint32_t expect, const uint8_t *p, uint64_t len,
                      uint32_t known, uint32_t *es) {
    if (count != expect)
        return FMT_FAIL(base - ludus__nf_record_BYTES + ludus__nf_record_offset("aux"),
                        "%s table holds %u %ss, the header says %u", what, count, what, expect);
    int rc = entry_size(base, p, len, known, es);
    if (rc) return rc;
    if ((uint64_t)count * *es > len) return FMT_FAIL(base, "%u %ss cannot fit in %" PRIu64 " bytes", count, what, len);
    return 0;
}

static int parse_stats(ludus_capture *c, uint64_t base, const uint8_t *p, uint64_t len) {
    uint32_t es = 0;
    int rc = entry_size(base, p, len, LUDUS__NF_STATS_MIN_BYTES, &es);
    if (rc) return rc;
    if (len < 4u + es) return FMT_FAIL(base, "stats record of %" PRIu64 " bytes is too short", len);
    uint8_t entry[ludus__nf_stats_BYTES] = {0}; /* fields an older file lacks read as 0 */
    memcpy(entry, p + 4, es < sizeof entry ? es : sizeof entry);
    ludus__nf_stats s;
    ludus__nf_stats_get(&s, entry);
    c->unregistered_drops = s.unregistered_drops;
    c->bytes_used = s.bytes_used;
    c->interner_drops = (uint32_t)s.interner_drops;
    c->id_collisions = (uint32_t)s.id_collisions;
    c->events = s.events;
    c->dropped = s.dropped;
    c->incomplete = s.incomplete;
    c->unwound = s.unwound;
    c->orphan_ends = s.orphan_ends;
    c->filtered = s.filtered;
    c->frames = s.frames;
    c->mismatched = s.mismatched;
    c->nonfinite = s.nonfinite;
    c->texts_cut = s.texts_cut;
    c->keys_dropped = s.keys_dropped;
    return 0;
}

static int parse_sites(ludus_capture *c, uint64_t base, uint32_t count, const uint8_t *p, uint64_t len,
                       uint32_t expect) {
    uint32_t es = 0;
    int rc = table_head(base, "site", count, expect, p, len, ludus__nf_site_BYTES, &es);
    if (rc) return rc;
    uint64_t pos = 4;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = base + pos;
        if (len - pos < es) return FMT_FAIL(at, "site %u truncated", i);
        ludus__nf_site e;
        ludus__nf_site_get(&e, p + pos);
        if (e.key == 0 || (uint64_t)(uintptr_t)e.key != e.key)
            return FMT_FAIL(at, "site %u has key 0 or a key wider than a pointer", i);
        if (e.flags & ~(LUDUS__NF_SITE_ENABLED | LUDUS__NF_SITE_HAS_CATEGORY))
            return FMT_FAIL(at + ludus__nf_site_offset("flags"), "site %u has unknown flags 0x%x", i, e.flags);
        if (e.reserved != 0)
            return FMT_FAIL(at + ludus__nf_site_offset("reserved"), "site %u reserved field is not 0", i);
        uint32_t l[4] = {e.name_len, e.function_len, e.file_len, e.category_len};
        uint64_t total = 0;
        for (int j = 0; j < 4; j++) {
            if (l[j] > LUDUS__NF_MAX_STRING)
                return FMT_FAIL(at + ludus__nf_site_offset("name_len") + 4 * (uint64_t)j,
                                "site %u string of %u bytes exceeds the limit", i, l[j]);
            total += l[j];
        }
        if (!(e.flags & LUDUS__NF_SITE_HAS_CATEGORY) && l[3])
            return FMT_FAIL(at + ludus__nf_site_offset("category_len"), "site %u has category bytes but no category",
                            i);
        if (total > len - pos - es) return FMT_FAIL(at, "site %u strings run past the site table", i);
        const uint8_t *s = p + pos + es;
        ludus__site_info si;
        memset(&si, 0, sizeof si);
        si.key = (uintptr_t)e.key;
        si.id = e.id;
        si.line = e.line;
        si.enabled = (e.flags & LUDUS__NF_SITE_ENABLED) != 0;
        si.name = text(c, s, l[0], &si.name_len);
        si.function = text(c, s + l[0], l[1], NULL);
        si.file = text(c, s + l[0] + l[1], l[2], NULL);
        if (e.flags & LUDUS__NF_SITE_HAS_CATEGORY)
            si.category = text(c, s + l[0] + l[1] + l[2], l[3], &si.category_len);
        if (!si.name || !si.function || !si.file || ((e.flags & LUDUS__NF_SITE_HAS_CATEGORY) && !si.category))
            return ludus__fail(LUDUS_ENOMEM, "out of memory for the site table");
        rc = ludus__site_insert(c, &si);
        if (rc == LUDUS_EFORMAT) return FMT_FAIL(at, "site %u repeats key 0x%" PRIx64, i, e.key);
        if (rc) return ludus__fail(rc, "out of memory for the site table");
        pos += es + total;
    }
    if (pos != len) return FMT_FAIL(base + pos, "%" PRIu64 " bytes left over after the site table", len - pos);
    return ludus__sites_check_ids(c) ? ludus__fail(LUDUS_ENOMEM, "out of memory") : 0;
}

static int parse_threads(ludus_capture *c, uint64_t base, uint32_t count, const uint8_t *p, uint64_t len,
                         uint32_t expect) {
    uint32_t es = 0;
    int rc = table_head(base, "thread", count, expect, p, len, LUDUS__NF_THREAD_BYTES_MIN, &es);
    if (rc) return rc;
    c->threads = ludus__calloc(count ? count : 1, sizeof *c->threads);
    if (!c->threads) return ludus__fail(LUDUS_ENOMEM, "out of memory for the thread table");
    c->nthreads = count;
    uint64_t pos = 4;
    for (uint32_t t = 0; t < count; t++) {
        uint64_t at = base + pos;
        if (len - pos < es) return FMT_FAIL(at, "thread %u truncated", t);
        ludus__nf_thread e;
        thread_entry_get(&e, p + pos, es);
        ludus__cap_thread *th = &c->threads[t];
        if (e.exited > 1) return FMT_FAIL(at + ludus__nf_thread_offset("exited"), "thread %u has a bad exited flag", t);
        if (e.reserved != 0)
            return FMT_FAIL(at + ludus__nf_thread_offset("reserved"), "thread %u reserved field is not 0", t);
        if (e.name_len > 63) return FMT_FAIL(at + ludus__nf_thread_offset("name_len"), "thread %u name too long", t);
        if (e.name_len > len - pos - es) return FMT_FAIL(at, "thread %u name runs past the thread table", t);
        if (e.first_drop_ns != LUDUS__NO_DROP &&
            (e.first_drop_ns < -(INT64_C(1) << 40) || e.first_drop_ns > c->end_ns - c->start_ns + (INT64_C(1) << 40)))
            return FMT_FAIL(at + ludus__nf_thread_offset("first_drop_ns"), "thread %u: time of first loss out of range",
                            t);
        th->tid = e.tid;
        th->dropped = e.dropped;
        th->first_drop_ns = e.first_drop_ns;
        th->spans = e.spans;
        th->events = e.events;
        th->incomplete = e.incomplete;
        th->unwound = e.unwound;
        th->orphan_ends = e.orphan_ends;
        th->filtered = e.filtered;
        th->frames = e.frames;
        th->mismatched = e.mismatched;
        th->async_counted = e.async_plus1 != 0;
        th->async_events = e.async_plus1 ? e.async_plus1 - 1 : 0;
        th->exited = (int)e.exited;
        th->lanes = e.lanes;
        th->name[ludus__utf8_clean((const char *)p + pos + es, e.name_len, th->name, sizeof th->name - 1)] = 0;
        pos += es + e.name_len;
    }
    if (pos != len) return FMT_FAIL(base + pos, "%" PRIu64 " bytes left over after the thread table", len - pos);
    return 0;
}

/* Older recorders (format 4, early 5) wrote a memory domain's live, live
 * allocations and peak even after a free of memory it never saw took them
 * below zero, and no "unknown" flag: such a file is read with today's flags.
 * A domain whose figures at capture end are negative (live or peak bytes,
 * or more frees than allocations without a baseline) is unknown, as the
 * recorder now says itself, and its site is marked so the reader drops its
 * live figures (normalize.c); a negative live figure of any domain is
 * dropped there too. */
static void memory_flags_upgrade(ludus_capture *c) {
    for (uint32_t i = 0; i < c->nmem_cov; i++) {
        ludus__mem_cov *m = &c->mem_cov[i];
        if (m->kind != LUDUS__MEM_COV_DOMAIN) continue;
        int has_baseline = (m->flags & LUDUS__MEM_COV_BASELINE) != 0;
        if (m->live_bytes < 0 || m->peak_bytes < 0 || (!has_baseline && m->frees > m->allocs))
            m->flags |= LUDUS__MEM_COV_UNKNOWN;
        if (!(m->flags & LUDUS__MEM_COV_UNKNOWN)) continue;
        char site[sizeof m->name + 8];
        int n = snprintf(site, sizeof site, "Memory/%s", m->name);
        for (uint32_t s = 0; s < c->nsites; s++)
            if (c->sites[s].name_len == (size_t)n && !memcmp(c->sites[s].name, site, (size_t)n))
                c->sites[s].live_unknown = 1;
    }
}

/* Counts claimed by the tables must be possible with the blocks present, so
 * no consumer can be driven to size something by a lie. */
static int check_counts(reader *r, ludus_capture *c) {
    uint64_t ev = 0, inc = 0, unw = 0, orph = 0, filt = 0, fr = 0, mis = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        uint64_t s = th->slots;
        const struct {
            const char *name;
            uint64_t value, limit;
        } claims[] = {{"events", th->events, 2 * s},         {"incomplete", th->incomplete, s},
                      {"unwound", th->unwound, s},           {"orphan_ends", th->orphan_ends, s},
                      {"filtered", th->filtered, s},         {"frames", th->frames, s},
                      {"mismatched", th->mismatched, s},     {"spans", th->spans, s},
                      {"async events", th->async_events, s}, {"lanes", th->lanes, LUDUS__MAX_LANES - 1}};
        for (size_t k = 0; k < sizeof claims / sizeof claims[0] && !r->index_only; k++) /* (blocks unread) */
            if (claims[k].value > claims[k].limit)
                return FMT_FAIL(0, "thread %u claims %" PRIu64 " %s, more than its %" PRIu64 " slots can hold", t,
                                claims[k].value, claims[k].name, s);
        ev += th->events, inc += th->incomplete, unw += th->unwound, orph += th->orphan_ends;
        filt += th->filtered, fr += th->frames, mis += th->mismatched;
    }
    if (ev != c->events || inc != c->incomplete || unw != c->unwound || orph != c->orphan_ends || filt != c->filtered ||
        fr != c->frames || mis != c->mismatched)
        return FMT_FAIL(0, "the capture's totals do not match its thread table");
    return 0;
}

/* ---- streamed files (format 6) ---- */

/* THREAD_DEF: the thread of index aux (the next one), its name and tid. */
static int parse_thread_def(reader *r, ludus_capture *c, uint64_t base, uint32_t idx, const uint8_t *p, uint64_t len) {
    uint32_t es = 0;
    int rc = entry_size(base, p, len, LUDUS__NF_THREAD_BYTES_MIN, &es);
    if (rc) return rc;
    if (idx != r->ndefs) return FMT_FAIL(base - 20, "thread %u defined where thread %u comes next", idx, r->ndefs);
    if (idx >= LUDUS__NF_MAX_THREADS) return FMT_FAIL(base - 20, "more than %u threads", LUDUS__NF_MAX_THREADS);
    if (len < 4u + es) return FMT_FAIL(base, "thread definition truncated");
    ludus__nf_thread e;
    thread_entry_get(&e, p + 4, es);
    if (e.name_len > 63 || e.name_len > len - 4 - es) return FMT_FAIL(base, "thread %u: bad name length", idx);
    ludus__cap_thread *t = ludus__realloc(c->threads, (size_t)(idx + 1) * sizeof *t);
    uint64_t *lb = ludus__realloc(r->last_blk, (size_t)(idx + 1) * sizeof *lb);
    if (t) c->threads = t;
    if (lb) r->last_blk = lb;
    if (!t || !lb) return ludus__fail(LUDUS_ENOMEM, "out of memory for the threads");
    memset(&t[idx], 0, sizeof t[idx]);
    t[idx].tid = e.tid;
    t[idx].first_drop_ns = LUDUS__NO_DROP;
    t[idx].name[ludus__utf8_clean((const char *)p + 4 + es, e.name_len, t[idx].name, sizeof t[idx].name - 1)] = 0;
    lb[idx] = UINT64_MAX;
    r->ndefs = idx + 1;
    c->nthreads = r->ndefs;
    return 0;
}

/* A block of a streamed file: thread `t`'s next, chained to its last. */
static int note_stream_block(reader *r, ludus_capture *c, uint64_t off, uint32_t t) {
    if (r->nblk == r->blk_cap) {
        uint64_t cap = r->blk_cap ? r->blk_cap * 2 : 1024;
        stream_block *b = ludus__realloc(r->blk, (size_t)cap * sizeof *b);
        if (!b) return ludus__fail(LUDUS_ENOMEM, "out of memory for the block index");
        r->blk = b, r->blk_cap = cap;
    }
    uint64_t i = r->nblk++;
    r->blk[i] = (stream_block){off, UINT64_MAX};
    if (r->last_blk[t] == UINT64_MAX)
        c->threads[t].load_first = i;
    else
        r->blk[r->last_blk[t]].next = i;
    r->last_blk[t] = i;
    return 0;
}

/* n marks read from a file, kept with thread th for the analysis
 * (ludus__frame_marks): the arrays are the set's. */
static int keep_marks(ludus__cap_thread *th, int64_t *ns, int64_t *cpu, uint64_t n) {
    ludus__marks m = {ns, cpu, n, n, 0};
    th->marks = ludus__mark_set_of(&m);
    return th->marks ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory for %" PRIu64 " frame marks", n);
}

/* A MARK_RUN record of a streamed file: noted, decoded at the end. */
static int note_mark_run(reader *r, uint64_t base, uint64_t len, uint32_t t) {
    if (LUDUS__GROW(r->mk, r->nmk, r->mk_cap, 256) != 0)
        return ludus__fail(LUDUS_ENOMEM, "out of memory for the frame mark index");
    r->mk[r->nmk++] = (mark_run){base, len, t};
    return 0;
}

/* A complete streamed file's frame marks: the frame thread's MARK_RUN
 * records in order, as a saved file's MARKS record holds them (ticks
 * converted as the normalised stream converts an event's). Kept only when
 * they are every mark the summary counts for the thread: a writer short of
 * memory left a run's out, and the analysis then reads the thread for them.
 * Damage (a mark cut short, bytes after the last, a time outside the
 * capture as an event's is checked, a CPU time below -1) is refused with
 * its offset. */
static int stream_marks(reader *r, ludus_capture *c) {
    uint32_t ft = ludus__frame_thread_of(c);
    if (ft == UINT32_MAX || !r->nmk) return 0;
    ludus__cap_thread *th = &c->threads[ft];
    /* a mark takes two bytes at least: records too short for the summary's
     * count are not the thread's marks, known before 16 bytes a mark are
     * allocated for them */
    uint64_t bytes = 0;
    for (uint64_t k = 0; k < r->nmk; k++)
        if (r->mk[k].thread == ft) bytes += r->mk[k].len;
    if (th->frames > bytes / 2) return 0;
    uint64_t n = th->frames, got = 0, lo, hi;
    tick_range(r, c, &lo, &hi);
    ludus__tick_conv cv;
    ludus__tick_conv_init(&cv, c);
    int64_t *ns = ludus__malloc((n ? n : 1) * sizeof *ns), *cpu = ludus__malloc((n ? n : 1) * sizeof *cpu);
    uint8_t *buf = NULL;
    size_t cap = 0;
    /* the last mark's ticks, their delta, CPU ns, its delta: as unsigned, wrapping as written */
    uint64_t ticks = 0, dticks = 0, at_cpu = 0, dcpu = 0;
    int rc = ns && cpu ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory for %" PRIu64 " frame marks", n), whole = 1;
    for (uint64_t k = 0; k < r->nmk && rc == 0 && whole; k++) {
        const mark_run *m = &r->mk[k];
        if (m->thread != ft) continue;
        if (m->len > cap) {
            uint8_t *b = ludus__realloc(buf, (size_t)m->len);
            if (!b) {
                rc = ludus__fail(LUDUS_ENOMEM, "out of memory for a frame mark record");
                break;
            }
            buf = b, cap = (size_t)m->len;
        }
        if ((rc = read_at(r, m->base, buf, (size_t)m->len, "frame mark record")) != 0) break;
        uint64_t count;
        const uint8_t *q = buf, *end = buf + m->len;
        if (ludus__varint_get(&q, end, &count) != 0) {
            rc = FMT_FAIL(m->base, "frame mark record without its count");
            break;
        }
        if (count > n - got) { /* more than the summary counts: not the thread's marks */
            whole = 0;
            break;
        }
        for (uint64_t i = 0; i < count; i++, got++) {
            uint64_t off = m->base + (uint64_t)(q - buf), dt, dc;
            if (ludus__varint_get(&q, end, &dt) != 0 || ludus__varint_get(&q, end, &dc) != 0) {
                rc = FMT_FAIL(off, "frame mark %" PRIu64 " of %" PRIu64 " is cut short or malformed", i, count);
                break;
            }
            dticks += (uint64_t)ludus__unzigzag(dt);
            dcpu += (uint64_t)ludus__unzigzag(dc);
            ticks += dticks;
            at_cpu += dcpu;
            if (ticks < lo || ticks > hi) {
                rc = FMT_FAIL(off,
                              "frame mark %" PRIu64 " at tick %" PRIu64 " lies outside the capture (%" PRIu64
                              " .. %" PRIu64 ")",
                              i, ticks, lo, hi);
                break;
            }
            if ((int64_t)at_cpu < -1) {
                rc = FMT_FAIL(off, "frame mark %" PRIu64 " has the CPU time %" PRId64, i, (int64_t)at_cpu);
                break;
            }
            ns[got] = ludus__tick_conv_ns(&cv, c, ticks);
            cpu[got] = (int64_t)at_cpu;
        }
        if (rc == 0 && q != end) rc = FMT_FAIL(m->base + (uint64_t)(q - buf), "bytes after the last frame mark");
    }
    ludus__free(buf);
    if (rc == 0 && whole && got == n) return keep_marks(th, ns, cpu, n);
    ludus__free(ns);
    ludus__free(cpu);
    return rc;
}

/* SUMMARY (any file since it was added): the frame thread and, in a
 * streamed file, the counts of each thread as the writer counted them. */
static int parse_summary(reader *r, ludus_capture *c, uint64_t base, const uint8_t *p, uint64_t len) {
    uint32_t es = 0, ts = 0;
    int rc = entry_size(base, p, len, ludus__nf_summary_BYTES, &es);
    if (rc) return rc;
    if (len < 8u + es) return FMT_FAIL(base, "summary record of %" PRIu64 " bytes is too short", len);
    ludus__nf_summary s;
    ludus__nf_summary_get(&s, p + 4);
    if ((rc = entry_size(base + 4 + es, p + 4 + es, len - 4 - es, ludus__nf_summary_thread_BYTES, &ts)) != 0) return rc;
    const uint8_t *q = p + 8 + es;
    if ((uint64_t)c->nthreads * ts != len - 8 - es)
        return FMT_FAIL(base, "the summary holds %" PRIu64 " bytes of threads, not %u entries", len - 8 - es,
                        c->nthreads);
    if (s.frame_thread != UINT32_MAX && s.frame_thread >= c->nthreads)
        return FMT_FAIL(base + 4 + ludus__nf_summary_offset("frame_thread"), "the frame thread %u is not a thread",
                        s.frame_thread);
    c->file.has_footer = 1;
    c->file.footer_frame_marks = s.frame_marks;
    c->file.footer_marks_elsewhere = s.marks_elsewhere;
    c->file.footer_frame_thread = s.frame_thread;
    if (!r->streamed) return 0;
    c->events = c->frames = 0;
    for (uint32_t t = 0; t < c->nthreads; t++, q += ts) {
        ludus__nf_summary_thread e;
        ludus__nf_summary_thread_get(&e, q);
        c->threads[t].events = e.events;
        c->threads[t].frames = e.frames;
        c->events += e.events;
        c->frames += e.frames;
    }
    return 0;
}

/* A streamed file without its end (kill -9, a crash): every whole record
 * before off is the capture, its range up to the last CLOCK record. */
/* The MARKS record (format.md): the thread's frame marks, kept with the
 * capture for the analysis (ludus__frame_marks). Every mark is checked as
 * an event's time is: within the capture's range and its margin. */
static int parse_marks(reader *r, ludus_capture *c, uint64_t base, uint32_t t, const uint8_t *p, uint64_t len) {
    if (t >= c->nthreads)
        return FMT_FAIL(base - ludus__nf_record_BYTES + 4, "frame marks of thread %u of %u", t, c->nthreads);
    ludus__cap_thread *th = &c->threads[t];
    if (th->marks) return FMT_FAIL(base - ludus__nf_record_BYTES, "a second frame mark record for thread %u", t);
    if (len < 8) return FMT_FAIL(base, "frame mark record of %" PRIu64 " bytes is too short", len);
    uint64_t n;
    const uint8_t *q = ludus__nf_get_U64(p, &n), *end = p + len;
    if (n != th->frames)
        return FMT_FAIL(base,
                        "the frame mark record holds %" PRIu64 " marks, the thread table %" PRIu64 " for thread %u", n,
                        th->frames, t);
    if (n > (len - 8) / 2) /* two bytes a mark at least: checked before anything is allocated */
        return FMT_FAIL(base, "%" PRIu64 " frame marks cannot fit in %" PRIu64 " bytes", n, len - 8);
    if (n == 0) return 0;
    uint64_t lo, hi;
    tick_range(r, c, &lo, &hi);
    int64_t lo_ns = ludus__ticks_to_ns(c, lo), hi_ns = ludus__ticks_to_ns(c, hi);
    lo_ns -= lo_ns > INT64_MIN; /* an event's time is within 1 ns of this conversion (nev.h) */
    hi_ns += hi_ns < INT64_MAX;
    int64_t *ns = ludus__malloc(n * sizeof *ns), *cpu = ludus__malloc(n * sizeof *cpu);
    int rc = ns && cpu ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory for %" PRIu64 " frame marks", n);
    uint64_t at_ns = 0, at_cpu = 0; /* the previous mark's, as unsigned: the deltas wrap as written */
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        uint64_t off = base + (uint64_t)(q - p), dn, dc;
        if (ludus__varint_get(&q, end, &dn) != 0 || ludus__varint_get(&q, end, &dc) != 0) {
            rc = FMT_FAIL(off, "frame mark %" PRIu64 " of %" PRIu64 " is cut short or malformed", i, n);
            break;
        }
        at_ns += (uint64_t)ludus__unzigzag(dn);
        at_cpu += (uint64_t)ludus__unzigzag(dc);
        ns[i] = (int64_t)at_ns;
        cpu[i] = (int64_t)at_cpu;
        if (ns[i] < lo_ns || ns[i] > hi_ns)
            rc = FMT_FAIL(off,
                          "frame mark %" PRIu64 " at %" PRId64 " ns lies outside the capture (%" PRId64 " .. %" PRId64
                          " ns)",
                          i, ns[i], lo_ns, hi_ns);
        else if (cpu[i] < -1)
            rc = FMT_FAIL(off, "frame mark %" PRIu64 " has the CPU time %" PRId64, i, cpu[i]);
    }
    if (rc == 0 && q != end) rc = FMT_FAIL(base + (uint64_t)(q - p), "bytes after the last frame mark");
    if (rc) {
        ludus__free(ns);
        ludus__free(cpu);
        return rc;
    }
    return keep_marks(th, ns, cpu, n);
}

/* A streamed file cut short ends at its last event, not at its last CLOCK:
 * the blocks of the batch after that CLOCK were written before the cut (a
 * killed Box2D run: 10 ms of events past it, whose open scopes were closed
 * at the CLOCK, before they began). Each thread's last block holds its
 * latest events; one that cannot be read is left to the analysis, which
 * reports it where it reads it. */
static void stream_cut_end(ludus_capture *c) {
    const reader *r = c->src_data;
    ludus__run_buf buf = {NULL, 0, NULL, 0};
    uint64_t last = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        uint64_t cursor = r->last_blk ? r->last_blk[t] : UINT64_MAX;
        ludus__run run;
        if (cursor == UINT64_MAX || load_run(c, &cursor, &run, &buf) != 0) continue;
        for (size_t i = 0; i < run.n;) {
            size_t k = ludus__event_slots(&run.ev[i], run.n - i);
            if (run.ev[i].ticks > last) last = run.ev[i].ticks;
            i += k ? k : 1;
        }
    }
    ludus__free(buf.ev);
    ludus__free(buf.bytes);
    int64_t end = last ? c->start_ns + ludus__ticks_to_ns(c, last) : c->end_ns; /* (ns since the start) */
    if (end > c->end_ns && TIME_OK(end)) c->end_ns = end;
}

static int stream_cut_at(reader *r, ludus_capture *c, uint64_t off, const ludus__calib_point *last_clock,
                         int have_table) {
    c->file.stream_cut = 1;
    c->file.has_footer = 0;
    if (last_clock) {
        c->c1 = *last_clock;
        c->end_ns = last_clock->ns;
    }
    if (!TIME_OK(c->end_ns) || c->end_ns < c->start_ns)
        return FMT_FAIL(off, "a streamed capture cut short whose last calibration point is out of range");
    const char *field, *why = ludus__calib_check(c->clock_tsc, &c->c0, &c->c1, &field);
    if (why)
        return FMT_FAIL(off,
                        "a streamed capture cut short before its first calibration point (%s: %s): no event "
                        "of it can be placed in time",
                        field, why);
    r->margin_ticks = ludus__calib_margin(c->clock_tsc, &c->c0, &c->c1);
    stream_cut_end(c);
    /* the counts of the threads come from their events (ludus__prepare); their
     * span begins, which place spans on lanes, are the thread table's (bounded
     * by the slots, as check_counts would), or without it the slots, a bound:
     * with none, every span would go on the thread's own track, cut short by
     * the scopes it crosses */
    c->events = c->frames = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        th->events = th->frames = 0;
        th->spans = have_table && th->spans < th->slots ? th->spans : th->slots;
    }
    return 0;
}

static int parse_records(reader *r, ludus_capture *c, uint64_t off, uint32_t nsites, uint32_t nthreads) {
    int have_stats = 0, have_sites = 0, have_threads = 0;
    int64_t last_thread = -1;
    ludus__calib_point clock;
    int have_clock = 0;
    if (r->streamed) have_sites = 1; /* its sites come in SITE_DEFS records */
    int jumped = 0;                  /* index only: past the blocks, to the tail */
    if (r->index_only && r->streamed) {
        off = r->tail, jumped = 1;
        r->ndefs = nthreads; /* the THREAD_DEFs are not read: the table at the end holds them all */
    }
    for (;;) {
        if (r->streamed && (r->size - off < ludus__nf_record_BYTES))
            return stream_cut_at(r, c, off, have_clock ? &clock : NULL, have_threads);
        if (off == r->size) return FMT_FAIL(off, "the file ends without an end record (truncated?)");
        if (r->size - off < ludus__nf_record_BYTES)
            return FMT_FAIL(off, "record header truncated (%" PRIu64 " bytes left)", r->size - off);
        uint8_t hb[ludus__nf_record_BYTES + ludus__nf_block_BYTES];
        int rc = read_at(r, off, hb, ludus__nf_record_BYTES, "record header");
        if (rc) return rc;
        ludus__nf_record h;
        ludus__nf_record_get(&h, hb);
        if (r->streamed && h.length > r->size - off - ludus__nf_record_BYTES) /* the record being written */
            return stream_cut_at(r, c, off, have_clock ? &clock : NULL, have_threads);
        if (h.length > r->size - off - ludus__nf_record_BYTES)
            return FMT_FAIL(off + ludus__nf_record_offset("length"), "record length %" PRIu64 " exceeds the file",
                            h.length);
        if (h.reserved != 0) /* not under the checksum: must be 0 */
            return FMT_FAIL(off + ludus__nf_record_offset("reserved"), "reserved field is %u, not 0", h.reserved);
        uint64_t base = off + ludus__nf_record_BYTES;
        int in_body = h.tag == LUDUS__NF_BLOCK ||
                      (r->streamed &&
                       (h.tag == LUDUS__NF_THREAD_DEF || h.tag == LUDUS__NF_SITE_DEFS || h.tag == LUDUS__NF_MARK_RUN));
        if (r->index_only && in_body && jumped)
            return FMT_FAIL(off, "a record of tag %u after the index's tail (offset %" PRIu64 ")", h.tag, r->tail);
        if (r->index_only && in_body) { /* the first block: the index says where the blocks end */
            if (r->tail < off) return FMT_FAIL(off, "the index's tail %" PRIu64 " is before the blocks", r->tail);
            off = r->tail, jumped = 1;
            continue;
        }
        int table = h.tag == LUDUS__NF_META || h.tag == LUDUS__NF_STATS || h.tag == LUDUS__NF_SITES ||
                    h.tag == LUDUS__NF_THREADS || h.tag == LUDUS__NF_END || h.tag == LUDUS__NF_GPU;
        if (table && h.tag != LUDUS__NF_END && last_thread >= 0 && !r->streamed)
            return FMT_FAIL(off, "table record %u after the first event block", h.tag);
        if (r->streamed && h.tag == LUDUS__NF_SITES) return FMT_FAIL(off, "a site table in a streamed file");
        int streamed_tag = h.tag == LUDUS__NF_CLOCK || h.tag == LUDUS__NF_SITE_DEFS || h.tag == LUDUS__NF_THREAD_DEF;
        int is_mark_run = h.tag == LUDUS__NF_MARK_RUN && r->streamed;  /* read at the end: checksummed now */
        if (streamed_tag && !r->streamed) streamed_tag = 0, h.tag = 0; /* another file's: skipped */
        int marks = h.tag == LUDUS__NF_MARKS && !r->index_only; /* info has no use for them: checksummed, skipped */
        int small = table || streamed_tag || h.tag == LUDUS__NF_SUMMARY || marks;
        uint8_t *p = NULL;
        if (small) {
            /* the GPU record grows with the samples (bounded by the file,
             * checked above); the tables with sites and threads */
            if (h.length > LUDUS__NF_MAX_TABLE_BYTES && h.tag != LUDUS__NF_GPU && !marks)
                return FMT_FAIL(off + 8, "table of %" PRIu64 " bytes exceeds the limit", h.length);
            p = ludus__malloc(h.length ? (size_t)h.length : 1);
            if (!p) return ludus__fail(LUDUS_ENOMEM, "out of memory for a table of %" PRIu64 " bytes", h.length);
            rc = read_at(r, base, p, (size_t)h.length, "table");
            if (rc == 0) rc = check_crc(r, off, &h, p);
        } else {
            rc = check_crc(r, off, &h, NULL);
        }
        if (rc == 0) switch (h.tag) {
            case LUDUS__NF_META:
                rc = parse_meta(c, base, p, h.length);
                break;
            case LUDUS__NF_STATS:
                rc = have_stats++ ? FMT_FAIL(off, "a second stats record") : parse_stats(c, base, p, h.length);
                break;
            case LUDUS__NF_SITES:
                rc = have_sites++ ? FMT_FAIL(off, "a second site table")
                                  : parse_sites(c, base, h.aux, p, h.length, nsites);
                break;
            case LUDUS__NF_THREADS: {
                if (have_threads++) {
                    rc = FMT_FAIL(off, "a second thread table");
                    break;
                }
                /* a streamed file's: the threads it defined, now with their losses */
                ludus__cap_thread *defs = c->threads;
                uint32_t ndefs = r->ndefs;
                c->threads = NULL;
                if (r->streamed && h.aux != ndefs)
                    rc = FMT_FAIL(off + 4, "the thread table holds %u threads, the file defined %u", h.aux, ndefs);
                else
                    rc = parse_threads(c, base, h.aux, p, h.length, nthreads);
                for (uint32_t t = 0; rc == 0 && defs && t < ndefs; t++) { /* (index only: none read) */
                    c->threads[t].load_first = defs[t].load_first;
                    c->threads[t].nruns = defs[t].nruns;
                    c->threads[t].slots = defs[t].slots;
                }
                if (rc && !c->threads) c->threads = defs, defs = NULL; /* freed with the capture */
                ludus__free(defs);
                break;
            }
            case LUDUS__NF_SITE_DEFS:
                rc = parse_sites(c, base, h.aux, p, h.length, h.aux);
                break;
            case LUDUS__NF_THREAD_DEF:
                rc = have_threads ? FMT_FAIL(off, "a thread defined after the thread table")
                                  : parse_thread_def(r, c, base, h.aux, p, h.length);
                break;
            case LUDUS__NF_CLOCK: {
                if (h.length < ludus__nf_clock_BYTES) {
                    rc = FMT_FAIL(off + 8, "clock record of %" PRIu64 " bytes is too short", h.length);
                    break;
                }
                ludus__nf_clock k;
                ludus__nf_clock_get(&k, p);
                clock = (ludus__calib_point){k.ticks, k.ns, k.window};
                have_clock = 1;
                break;
            }
            case LUDUS__NF_SUMMARY:
                rc = have_threads ? parse_summary(r, c, base, p, h.length)
                                  : FMT_FAIL(off, "a summary before the thread table");
                break;
            case LUDUS__NF_MARKS:
                if (marks)
                    rc = have_threads ? parse_marks(r, c, base, h.aux, p, h.length)
                                      : FMT_FAIL(off, "frame marks before the thread table");
                break;
            case LUDUS__NF_MARK_RUN:
                if (!is_mark_run) break; /* another file's: skipped */
                if (have_threads)
                    rc = FMT_FAIL(off, "frame marks of a block after the thread table");
                else if (h.aux >= c->nthreads)
                    rc = FMT_FAIL(off + 4, "frame marks of thread %u of %u", h.aux, c->nthreads);
                else
                    rc = note_mark_run(r, base, h.length, h.aux);
                break;
            case LUDUS__NF_GPU: {
                char why[128];
                int g = ludus__gpu_decode(c, p, (size_t)h.length, why, sizeof why);
                rc = g == -2 ? ludus__fail(LUDUS_ENOMEM, "out of memory") : g ? FMT_FAIL(base, "%s", why) : 0;
                break;
            }
            case LUDUS__NF_BLOCK: {
                if (!r->streamed && (!have_stats || !have_sites || !have_threads)) {
                    rc = FMT_FAIL(off, "an event block before the stats, site and thread tables");
                    break;
                }
                if (h.length < ludus__nf_block_BYTES) {
                    rc = FMT_FAIL(off + 8, "block length %" PRIu64 " is too short", h.length);
                    break;
                }
                if ((rc = read_at(r, base, hb + ludus__nf_record_BYTES, ludus__nf_block_BYTES, "block head")) != 0)
                    break;
                ludus__nf_block b;
                ludus__nf_block_get(&b, hb + ludus__nf_record_BYTES);
                if ((rc = block_frame(off, &h, &b)) != 0) break;
                if (h.aux >= c->nthreads) {
                    rc = FMT_FAIL(off + 4, "a block names thread %u of %u", h.aux, c->nthreads);
                    break;
                }
                if (r->streamed && (have_threads || (rc = note_stream_block(r, c, off, h.aux)) != 0)) {
                    if (!rc) rc = FMT_FAIL(off, "an event block after the thread table");
                    break;
                }
                if ((int64_t)h.aux < last_thread && !r->streamed) {
                    rc = FMT_FAIL(off + 4, "a block of thread %u after one of thread %" PRId64 " (blocks go by thread)",
                                  h.aux, last_thread);
                    break;
                }
                ludus__cap_thread *th = &c->threads[h.aux];
                if (th->nruns == 0 && !r->streamed) th->load_first = off;
                if (th->nruns == UINT32_MAX) {
                    rc = FMT_FAIL(off, "too many blocks");
                    break;
                }
                th->nruns++;
                th->slots += b.slots;
                c->file.blocks++;
                c->file.slots += b.slots;
                if (b.encoding != LUDUS__NF_RAW) c->file.compact = 1;
                if (b.encoding == LUDUS__NF_ZSTD) c->file.compressed = 1;
                last_thread = h.aux;
                break;
            }
            case LUDUS__NF_END: {
                if (!have_stats || !have_sites || !have_threads) {
                    rc = FMT_FAIL(off, "the end record comes before the stats, site and thread tables");
                    break;
                }
                if (base + h.length != r->size) {
                    rc = FMT_FAIL(off, "the end record is not at the end of the file");
                    break;
                }
                if (h.length < ludus__nf_end_BYTES) {
                    rc = FMT_FAIL(off + 8, "end record of %" PRIu64 " bytes is too short", h.length);
                    break;
                }
                ludus__nf_end e;
                ludus__nf_end_get(&e, p);
                if (e.blocks != c->file.blocks || e.slots != c->file.slots) {
                    rc = FMT_FAIL(base,
                                  "the end record counts %" PRIu64 " blocks / %" PRIu64
                                  " slots, the file holds %" PRIu64 " / %" PRIu64,
                                  e.blocks, e.slots, c->file.blocks, c->file.slots);
                    break;
                }
                ludus__free(p);
                if (r->streamed && (c->nsites != (r->index_only ? 0 : nsites) || c->nthreads != nthreads))
                    return FMT_FAIL(0, "the header counts %u sites and %u threads, the file defined %u and %u", nsites,
                                    nthreads, c->nsites, c->nthreads);
                if (r->streamed) { /* its header was written again at the end: now it must calibrate */
                    const char *field, *why = ludus__calib_check(c->clock_tsc, &c->c0, &c->c1, &field);
                    if (why) return FMT_FAIL(ludus__nf_header_offset(field), "%s: %s", field, why);
                    r->margin_ticks = ludus__calib_margin(c->clock_tsc, &c->c0, &c->c1);
                }
                rc = check_counts(r, c);
                if (rc == 0) memory_flags_upgrade(c);
                if (rc == 0 && r->streamed && !r->index_only) rc = stream_marks(r, c);
                return rc;
            }
            default:
                break; /* unknown records are skipped (later minor versions) */
            }
        ludus__free(p);
        if (rc) return rc;
        off = base + h.length;
    }
}

static void destroy_reader(ludus_capture *c) {
    reader *r = c->src_data;
    if (!r) return;
    if (r->fd >= 0) ludus__read_close(r->fd);
    ludus__free(r->blk);
    ludus__free(r->last_blk);
    ludus__free(r->mk);
    ludus__free(r);
    c->src_data = NULL;
}

/* A capture file: its tables read at open, its blocks loaded one at a
 * time as a stream reaches them. */
static const ludus__source_ops file_source = {"file", NULL, NULL, load_run, destroy_reader, 0};

static int open_source(reader *r, ludus_capture **out) {
    ludus_capture *c = ludus__capture_new(&file_source);
    if (!c) {
        if (r->fd >= 0) ludus__read_close(r->fd);
        ludus__free(r);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    c->src_data = r;
    c->file.bytes = r->size;
    uint64_t first = 0;
    uint32_t nsites = 0, nthreads = 0;
    if (r->index_only) { /* the blocks are not walked: their counts come from the index */
        c->file.blocks = r->index.blocks;
        c->file.slots = r->index.slots;
        c->file.compact = (r->index.flags & LUDUS__NF_END_COMPACT) != 0;
        c->file.compressed = (r->index.flags & LUDUS__NF_END_COMPRESSED) != 0;
    }
    int rc = parse_header(r, c, &first, &nsites, &nthreads);
    if (rc == 0) rc = parse_records(r, c, first, nsites, nthreads);
    if (rc == 0 && r->index_only) {
        c->file.index_only = 1;
        c->file.index_sites = nsites;
        /* every thread's events are behind load_run, which refuses them */
        for (uint32_t t = 0; t < c->nthreads; t++) c->threads[t].nruns = 1, c->threads[t].load_first = 0;
    }
    if (rc) {
        ludus_capture_release(c);
        return rc; /* the detail is set */
    }
    /* sites and counts come from the file; a streamed file cut short, or
     * one without a summary, counts its events when first read */
    c->prepared = !r->streamed || (c->file.has_footer && !c->file.stream_cut);
    *out = c;
    return 0;
}

/* A reader of the file at path (*out NULL on failure, the detail set). */
static int open_file_reader(const char *path, ludus_capture **out, reader **rout) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    reader *r = ludus__calloc(1, sizeof *r);
    if (!r) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    int e = ludus__read_open(path, &r->fd, &r->size);
    if (e) {
        char buf[128];
        ludus__free(r);
        ludus__os_strerror(e, buf, sizeof buf);
        return ludus__fail(LUDUS_EIO, "cannot open %s: %s", path, buf);
    }
    *rout = r;
    return 0;
}

int ludus_capture_open(const char *path, ludus_capture **out) {
    reader *r = NULL;
    int rc = open_file_reader(path, out, &r);
    return rc ? rc : open_source(r, out);
}

/* The index at the end of the END record (file_format.h): found from the
 * file's last 12 bytes, checked (its record's framing and CRC, the tail
 * within the file). 0 when the file has a sound one; anything else, and the
 * file is read in full (older files, streamed files cut short, damage,
 * which the full read then names). */
static int find_index(reader *r) {
    uint8_t tb[12];
    uint64_t min = ludus__nf_header_BYTES + ludus__nf_record_BYTES + ludus__nf_end_index_BYTES;
    if (r->size < min || read_at(r, r->size - sizeof tb, tb, sizeof tb, "index") != 0) return -1;
    uint32_t len;
    uint64_t magic;
    ludus__nf_get_U64(ludus__nf_get_U32(tb, &len), &magic);
    if (magic != LUDUS__NF_END_MAGIC || len < ludus__nf_end_index_BYTES || len > 4096 ||
        len > r->size - ludus__nf_header_BYTES - ludus__nf_record_BYTES)
        return -1;
    uint64_t off = r->size - len - ludus__nf_record_BYTES;
    uint8_t b[ludus__nf_record_BYTES + 4096];
    if (read_at(r, off, b, ludus__nf_record_BYTES + len, "end record") != 0) return -1;
    ludus__nf_record h;
    ludus__nf_record_get(&h, b);
    if (h.tag != LUDUS__NF_END || h.length != len || h.reserved != 0) return -1;
    if (check_crc(r, off, &h, b + ludus__nf_record_BYTES) != 0) return -1;
    ludus__nf_end_index_get(&r->index, b + ludus__nf_record_BYTES);
    if (r->index.tail < ludus__nf_header_BYTES || r->index.tail > off) return -1;
    r->tail = r->index.tail;
    return 0;
}

int ludus_capture_open_index(const char *path, ludus_capture **out) {
    reader *r = NULL;
    int rc = open_file_reader(path, out, &r);
    if (rc) return rc;
    r->index_only = find_index(r) == 0;
    return open_source(r, out);
}

int ludus_capture_open_memory(const void *data, size_t size, ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!data && size) return ludus__fail(LUDUS_EINVAL, "data is NULL");
    reader *r = ludus__calloc(1, sizeof *r);
    if (!r) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    r->fd = -1;
    r->mem = data;
    r->size = size;
    return open_source(r, out);
}
