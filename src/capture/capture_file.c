/* Reader of native capture files (.ludus, docs/format.md). Open validates the
 * header, loads the metadata, site and thread tables and walks the framing
 * of every record (block payloads are skipped, not read), so memory is
 * bounded by sites + threads. Event blocks are read one at a time when a
 * ludus__nev_iter reaches them (the run loader), so the exporters and the
 * analysis run unchanged on a file. Every defect is LUDUS_EFORMAT with the
 * byte offset in the detail. Views restricted to some threads and to a time
 * range are in cut.c. */
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native_format.h"

struct ludus_capture_file {
    FILE *fp;
    uint64_t size;
    uint32_t version;
    ludus__captured c;
    char *arena;      /* site strings, NUL-terminated */
    char *categories; /* copy from the metadata, or NULL */
    uint32_t blocks;
    uint64_t slots;
    int compact;
    int error; /* first load error */
};

#define FMT_FAIL(off, ...) fmt_fail(f, (uint64_t)(off), __VA_ARGS__)

__attribute__((format(printf, 3, 4))) static int fmt_fail(ludus_capture_file *f, uint64_t off, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!f->error) f->error = LUDUS_EFORMAT;
    return ludus__fail(LUDUS_EFORMAT, "offset %" PRIu64 ": %s", off, msg);
}

/* Reads n bytes at off; a range past the end is a format error. */
static int read_at(ludus_capture_file *f, uint64_t off, void *p, size_t n, const char *what) {
    if (off > f->size || n > f->size - off)
        return FMT_FAIL(off, "%s of %zu bytes runs past the end of the file (%" PRIu64 " bytes)", what, n, f->size);
    if (off > (uint64_t)LONG_MAX || fseek(f->fp, (long)off, SEEK_SET) != 0 || fread(p, 1, n, f->fp) != n) {
        if (!f->error) f->error = LUDUS_EIO;
        return ludus__fail(LUDUS_EIO, "offset %" PRIu64 ": cannot read %s (%zu bytes)", off, what, n);
    }
    return 0;
}

/* ---- varints (compact blocks) ---- */

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (*p >= end) return -1;
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

static int site_key(const ludus__captured *c, uint64_t idx, uintptr_t *key) {
    if (idx >= c->nsites) return -1;
    *key = c->sites[idx].key;
    return 0;
}

/* Decodes a compact block of n slots (format.md "Compact blocks"). off is
 * the payload's file offset, for the error detail. */
static int decode_compact(ludus_capture_file *f, const uint8_t *in, size_t len, ludus__event *ev, size_t n,
                          uint64_t off) {
    const ludus__captured *c = &f->c;
    const uint8_t *p = in, *end = in + len;
    uint64_t prev = 0, v;
    for (size_t i = 0; i < n; i++) {
        uint64_t at = off + (uint64_t)(p - in);
        if (p >= end) return FMT_FAIL(at, "compact block ends after %zu of %zu slots", i, n);
        unsigned tag = *p++, k = tag & 15, s = tag >> 4;
        if (get_varint(&p, end, &v)) return FMT_FAIL(at, "bad tick varint in slot %zu", i);
        prev += (v >> 1) ^ (uint64_t) - (int64_t)(v & 1);
        ev[i].ticks = prev;
        ev[i].word = k;
        if (ludus__nf_site_kind(k)) {
            uintptr_t key;
            if (s == 0) {
                if (get_varint(&p, end, &v)) return FMT_FAIL(at, "bad word varint in slot %zu", i);
                ev[i].word = (uintptr_t)v;
                if ((ev[i].word & LUDUS__K_MASK) != k) return FMT_FAIL(at, "word of slot %zu has another kind", i);
                continue;
            }
            uint64_t idx = s - 1;
            if (s == 15 && get_varint(&p, end, &idx)) return FMT_FAIL(at, "bad site varint in slot %zu", i);
            if (site_key(c, idx, &key))
                return FMT_FAIL(at, "site index %" PRIu64 " out of range (%u sites)", idx, c->nsites);
            ev[i].word = key | k;
        } else if (s != 0) {
            return FMT_FAIL(at, "slot %zu of kind %u has a site field", i, k);
        }
        if (k >= LUDUS__K_FLOW_OUT && k <= LUDUS__K_COUNTER_F64 && i + 1 < n) {
            i++;
            if (get_varint(&p, end, &v)) return FMT_FAIL(at, "bad payload varint in slot %zu", i);
            ev[i].ticks = v;
            ev[i].word = 0;
            if (k == LUDUS__K_FLOW_OUT) {
                if (get_varint(&p, end, &v)) return FMT_FAIL(at, "bad flow name varint in slot %zu", i);
                if (v == 0) {
                    if (get_varint(&p, end, &v)) return FMT_FAIL(at, "bad flow word varint in slot %zu", i);
                    ev[i].word = (uintptr_t)v;
                } else {
                    uintptr_t key;
                    if (site_key(c, v - 1, &key))
                        return FMT_FAIL(at, "flow name index %" PRIu64 " out of range (%u sites)", v - 1, c->nsites);
                    /* the payload word whose flow-name key this is */
                    ev[i].word = (uintptr_t)LUDUS__FLOW_NAME_PTR(key);
                    if (LUDUS__FLOW_NAME_KEY(ev[i].word) != key)
                        return FMT_FAIL(at, "site %" PRIu64 " is not a flow name", v - 1);
                }
            }
        }
    }
    if (p != end)
        return FMT_FAIL(off + (uint64_t)(p - in), "%zu bytes left over after the compact block", (size_t)(end - p));
    return 0;
}

/* ---- run loader ---- */

/* Parses a block's framing at off; on success *slots, *enc, *len (payload). */
static int block_frame(ludus_capture_file *f, uint64_t off, const uint8_t h[32], uint32_t *thread, uint64_t *slots,
                       uint32_t *enc, uint64_t *len) {
    *thread = ludus__get_u32(h + 4);
    *len = ludus__get_u64(h + 8);
    if (*len > f->size - off - LUDUS__NF_REC_BYTES)
        return FMT_FAIL(off + 8, "block length %" PRIu64 " exceeds file size", *len);
    if (*len < LUDUS__NF_BLOCK_HEAD) return FMT_FAIL(off + 8, "block length %" PRIu64 " is too short", *len);
    *enc = ludus__get_u32(h + 16);
    *slots = ludus__get_u64(h + 24);
    if (*enc != LUDUS__NF_RAW && *enc != LUDUS__NF_COMPACT)
        return FMT_FAIL(off + 16, "unknown block encoding %u", *enc);
    if (*slots == 0 || *slots > LUDUS__NF_MAX_BLOCK_SLOTS)
        return FMT_FAIL(off + 24, "block of %" PRIu64 " slots (1..%u allowed)", *slots, LUDUS__NF_MAX_BLOCK_SLOTS);
    uint64_t data = *len - LUDUS__NF_BLOCK_HEAD;
    if (*enc == LUDUS__NF_RAW && data != *slots * 16)
        return FMT_FAIL(off + 8, "raw block of %" PRIu64 " slots has %" PRIu64 " data bytes", *slots, data);
    if (*enc == LUDUS__NF_COMPACT && (data < 2 || data > *slots * 24 + 16))
        return FMT_FAIL(off + 8, "compact block of %" PRIu64 " slots has %" PRIu64 " data bytes", *slots, data);
    return 0;
}

static int load_run(const ludus__captured *cc, uint64_t *cursor, ludus__run *out, ludus__run_buf *buf) {
    ludus_capture_file *f = cc->loader;
    uint64_t off = *cursor;
    uint8_t h[32];
    for (;;) { /* skip records of unknown tags between blocks */
        int rc = read_at(f, off, h, LUDUS__NF_REC_BYTES, "record header");
        if (rc) return rc;
        if (ludus__get_u32(h) == LUDUS__NF_BLOCK) break;
        uint64_t len = ludus__get_u64(h + 8);
        if (len > f->size - off - LUDUS__NF_REC_BYTES)
            return FMT_FAIL(off + 8, "record length %" PRIu64 " exceeds file size", len);
        off += LUDUS__NF_REC_BYTES + len;
    }
    int rc = read_at(f, off + LUDUS__NF_REC_BYTES, h + 16, LUDUS__NF_BLOCK_HEAD, "block header");
    if (rc) return rc;
    uint32_t thread, enc;
    uint64_t slots, len;
    if ((rc = block_frame(f, off, h, &thread, &slots, &enc, &len)) != 0) return rc;
    if (slots > buf->cap) {
        ludus__event *e = realloc(buf->ev, (size_t)slots * sizeof *e);
        if (!e) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %" PRIu64 " slots", slots);
        buf->ev = e;
        buf->cap = (size_t)slots;
    }
    uint64_t data_off = off + LUDUS__NF_REC_BYTES + LUDUS__NF_BLOCK_HEAD;
    size_t data = (size_t)(len - LUDUS__NF_BLOCK_HEAD);
    if (enc == LUDUS__NF_RAW) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ && UINTPTR_MAX == UINT64_MAX
        if ((rc = read_at(f, data_off, buf->ev, data, "raw block")) != 0) return rc;
#else
        for (uint64_t i = 0; i < slots; i++) {
            uint8_t b[16];
            if ((rc = read_at(f, data_off + i * 16, b, 16, "raw event")) != 0) return rc;
            buf->ev[i].ticks = ludus__get_u64(b);
            buf->ev[i].word = (uintptr_t)ludus__get_u64(b + 8);
        }
#endif
    } else {
        if (data > buf->bytes_cap) {
            uint8_t *b = realloc(buf->bytes, data);
            if (!b) return ludus__fail(LUDUS_ENOMEM, "out of memory for a block of %zu bytes", data);
            buf->bytes = b;
            buf->bytes_cap = data;
        }
        if ((rc = read_at(f, data_off, buf->bytes, data, "compact block")) != 0) return rc;
        if ((rc = decode_compact(f, buf->bytes, data, buf->ev, (size_t)slots, data_off)) != 0) return rc;
    }
    out->ev = buf->ev;
    out->n = (size_t)slots;
    *cursor = off + LUDUS__NF_REC_BYTES + len;
    return 0;
}

/* ---- open: header and tables ---- */

#define TIME_OK(v) ((v) > -(INT64_C(1) << 62) && (v) < (INT64_C(1) << 62))

static int parse_header(ludus_capture_file *f, uint64_t *first_record) {
    uint8_t h[LUDUS__NF_HEADER_BYTES];
    if (f->size < LUDUS__NF_HEADER_BYTES)
        return FMT_FAIL(0, "file of %" PRIu64 " bytes is shorter than the %u-byte header", f->size,
                        LUDUS__NF_HEADER_BYTES);
    int rc = read_at(f, 0, h, sizeof h, "header");
    if (rc) return rc;
    if (memcmp(h, LUDUS__NF_MAGIC, 8) != 0) return FMT_FAIL(0, "bad magic: not a Ludus capture file");
    f->version = ludus__get_u32(h + 8);
    if (f->version != LUDUS__NF_VERSION)
        return FMT_FAIL(8, "unsupported format version %u (this reader: %u)", f->version, LUDUS__NF_VERSION);
    if (ludus__get_u32(h + 12) != LUDUS__NF_BOM)
        return FMT_FAIL(12, "bad byte-order mark 0x%08x", ludus__get_u32(h + 12));
    uint32_t hb = ludus__get_u32(h + 16);
    if (hb < LUDUS__NF_HEADER_BYTES || hb > f->size) return FMT_FAIL(16, "header size %u out of range", hb);
    uint32_t clock = ludus__get_u32(h + 24);
    if (clock > 1) return FMT_FAIL(24, "unknown clock source %u", clock);
    ludus__captured *c = &f->c;
    c->clock_tsc = (int)clock;
    c->pid = (int)ludus__get_u32(h + 28);
    ludus__calib_point *p[2] = {&c->c0, &c->c1};
    for (int i = 0; i < 2; i++) {
        p[i]->ticks = ludus__get_u64(h + 32 + 24 * i);
        p[i]->ns = (int64_t)ludus__get_u64(h + 40 + 24 * i);
        p[i]->window_ns = (int64_t)ludus__get_u64(h + 48 + 24 * i);
        if (!TIME_OK(p[i]->ns)) return FMT_FAIL(40 + 24 * i, "calibration time out of range");
    }
    if (c->c1.ticks < c->c0.ticks || c->c1.ns < c->c0.ns) return FMT_FAIL(56, "calibration points out of order");
    c->start_ns = (int64_t)ludus__get_u64(h + 80);
    c->end_ns = (int64_t)ludus__get_u64(h + 88);
    if (!TIME_OK(c->start_ns) || !TIME_OK(c->end_ns) || c->end_ns < c->start_ns)
        return FMT_FAIL(80, "capture start/end out of range or out of order");
    c->nsites = 0;
    uint32_t ns = ludus__get_u32(h + 96), nt = ludus__get_u32(h + 100);
    if (ns > LUDUS__NF_MAX_SITES) return FMT_FAIL(96, "%u sites exceed the limit %u", ns, LUDUS__NF_MAX_SITES);
    if (nt > LUDUS__NF_MAX_THREADS) return FMT_FAIL(100, "%u threads exceed the limit %u", nt, LUDUS__NF_MAX_THREADS);
    *first_record = hb;
    return 0;
}

/* Reads a table record's payload into a new buffer (bounded). */
static int read_table(ludus_capture_file *f, uint64_t off, uint64_t len, uint8_t **out) {
    if (len > LUDUS__NF_MAX_TABLE_BYTES) return FMT_FAIL(off + 8, "table of %" PRIu64 " bytes exceeds the limit", len);
    *out = malloc(len ? (size_t)len : 1);
    if (!*out) return ludus__fail(LUDUS_ENOMEM, "out of memory for a table of %" PRIu64 " bytes", len);
    int rc = read_at(f, off + LUDUS__NF_REC_BYTES, *out, (size_t)len, "table");
    if (rc) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

static int parse_meta(ludus_capture_file *f, uint64_t off, const uint8_t *p, uint64_t len) {
    uint64_t pos = 0, base = off + LUDUS__NF_REC_BYTES;
    while (pos < len) {
        if (len - pos < 8) return FMT_FAIL(base + pos, "metadata entry header truncated");
        uint32_t kn = ludus__get_u32(p + pos), vn = ludus__get_u32(p + pos + 4);
        if (kn > LUDUS__NF_MAX_STRING || vn > LUDUS__NF_MAX_STRING || kn + vn > len - pos - 8)
            return FMT_FAIL(base + pos, "metadata entry lengths %u+%u exceed the record", kn, vn);
        const char *k = (const char *)p + pos + 8, *v = k + kn;
        if (kn == 12 && !memcmp(k, "process_name", 12)) {
            size_t n = vn < sizeof f->c.process_name - 1 ? vn : sizeof f->c.process_name - 1;
            memcpy(f->c.process_name, v, n);
            f->c.process_name[n] = 0;
        } else if (kn == 10 && !memcmp(k, "categories", 10) && !f->categories) {
            f->categories = malloc((size_t)vn + 1);
            if (!f->categories) return ludus__fail(LUDUS_ENOMEM, "out of memory");
            memcpy(f->categories, v, vn);
            f->categories[vn] = 0;
            f->c.categories = f->categories;
        }
        pos += 8 + (uint64_t)kn + vn;
    }
    return 0;
}

static int parse_stats(ludus_capture_file *f, uint64_t off, const uint8_t *p, uint64_t len) {
    if (len < LUDUS__NF_STATS_BYTES) return FMT_FAIL(off + 8, "stats record of %" PRIu64 " bytes is too short", len);
    ludus__captured *c = &f->c;
    uint64_t v[10];
    for (int i = 0; i < 10; i++) v[i] = ludus__get_u64(p + 8 * i);
    c->unregistered_drops = v[0];
    c->chunks_used = (uint32_t)v[1];
    c->interner_drops = (uint32_t)v[2];
    c->id_collisions = (uint32_t)v[3];
    c->events = v[4];
    c->dropped = v[5];
    c->incomplete = v[6];
    c->orphan_ends = v[7];
    c->filtered = v[8];
    c->frames = v[9];
    return 0;
}

static int parse_sites(ludus_capture_file *f, uint64_t off, uint32_t count, const uint8_t *p, uint64_t len,
                       uint32_t expect) {
    ludus__captured *c = &f->c;
    uint64_t base = off + LUDUS__NF_REC_BYTES;
    if (count != expect) return FMT_FAIL(off + 4, "site table holds %u sites, the header says %u", count, expect);
    if ((uint64_t)count * LUDUS__NF_SITE_BYTES > len)
        return FMT_FAIL(off + 4, "%u sites cannot fit in %" PRIu64 " bytes", count, len);
    f->arena = malloc((size_t)len + 4u * count + 1);
    if (!f->arena) return ludus__fail(LUDUS_ENOMEM, "out of memory for the site table");
    char *a = f->arena;
    uint64_t pos = 0;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t at = base + pos;
        if (len - pos < LUDUS__NF_SITE_BYTES) return FMT_FAIL(at, "site %u truncated", i);
        const uint8_t *e = p + pos;
        ludus__site_info si;
        memset(&si, 0, sizeof si);
        si.key = (uintptr_t)ludus__get_u64(e);
        if (si.key == 0 || (uint64_t)si.key != ludus__get_u64(e))
            return FMT_FAIL(at, "site %u has key 0 or a key wider than a pointer", i);
        si.id = ludus__get_u32(e + 8);
        si.line = ludus__get_u32(e + 12);
        if (e[16] > 1 || e[17] > 1) return FMT_FAIL(at + 16, "site %u has bad flags", i);
        si.enabled = e[16];
        uint32_t l[4];
        uint64_t total = 0;
        for (int j = 0; j < 4; j++) {
            l[j] = ludus__get_u32(e + 20 + 4 * j);
            if (l[j] > LUDUS__NF_MAX_STRING)
                return FMT_FAIL(at + 20 + 4 * (uint64_t)j, "site %u string of %u bytes exceeds the limit", i, l[j]);
            total += l[j];
        }
        if (!e[17] && l[3]) return FMT_FAIL(at + 32, "site %u has category bytes but no category", i);
        if (total > len - pos - LUDUS__NF_SITE_BYTES) return FMT_FAIL(at, "site %u strings run past the site table", i);
        const char *s = (const char *)e + LUDUS__NF_SITE_BYTES;
        const char *str[4];
        for (int j = 0; j < 4; j++) {
            memcpy(a, s, l[j]);
            a[l[j]] = 0;
            str[j] = a;
            a += l[j] + 1;
            s += l[j];
        }
        si.name = str[0];
        si.name_len = l[0];
        si.function = str[1];
        si.file = str[2];
        si.category = e[17] ? str[3] : NULL;
        si.category_len = e[17] ? l[3] : 0;
        int rc = ludus__site_insert(c, &si);
        if (rc == LUDUS_EFORMAT) return FMT_FAIL(at, "site %u repeats key 0x%" PRIx64, i, (uint64_t)si.key);
        if (rc) return ludus__fail(rc, "out of memory for the site table");
        pos += LUDUS__NF_SITE_BYTES + total;
    }
    if (pos != len) return FMT_FAIL(base + pos, "%" PRIu64 " bytes left over after the site table", len - pos);
    return 0;
}

static int parse_threads(ludus_capture_file *f, uint64_t off, uint32_t count, const uint8_t *p, uint64_t len,
                         uint32_t expect) {
    ludus__captured *c = &f->c;
    uint64_t base = off + LUDUS__NF_REC_BYTES;
    if (count != expect) return FMT_FAIL(off + 4, "thread table holds %u threads, the header says %u", count, expect);
    if ((uint64_t)count * LUDUS__NF_THREAD_BYTES > len)
        return FMT_FAIL(off + 4, "%u threads cannot fit in %" PRIu64 " bytes", count, len);
    c->threads = calloc(count ? count : 1, sizeof *c->threads);
    if (!c->threads) return ludus__fail(LUDUS_ENOMEM, "out of memory for the thread table");
    c->nthreads = count;
    uint64_t pos = 0;
    for (uint32_t t = 0; t < count; t++) {
        uint64_t at = base + pos;
        if (len - pos < LUDUS__NF_THREAD_BYTES) return FMT_FAIL(at, "thread %u truncated", t);
        const uint8_t *e = p + pos;
        ludus__cap_thread *th = &c->threads[t];
        th->tid = ludus__get_u64(e);
        th->dropped = ludus__get_u64(e + 8);
        th->events = ludus__get_u64(e + 16);
        th->incomplete = ludus__get_u64(e + 24);
        th->orphan_ends = ludus__get_u64(e + 32);
        th->filtered = ludus__get_u64(e + 40);
        th->frames = ludus__get_u64(e + 48);
        uint32_t exited = ludus__get_u32(e + 56), nl = ludus__get_u32(e + 60);
        if (exited > 1) return FMT_FAIL(at + 56, "thread %u has a bad exited flag %u", t, exited);
        th->exited = (int)exited;
        if (nl > sizeof th->name - 1) return FMT_FAIL(at + 60, "thread %u name of %u bytes exceeds 63", t, nl);
        if (nl > len - pos - LUDUS__NF_THREAD_BYTES)
            return FMT_FAIL(at + 60, "thread %u name runs past the thread table", t);
        memcpy(th->name, e + LUDUS__NF_THREAD_BYTES, nl);
        th->name[nl] = 0;
        pos += LUDUS__NF_THREAD_BYTES + nl;
    }
    if (pos != len) return FMT_FAIL(base + pos, "%" PRIu64 " bytes left over after the thread table", len - pos);
    return 0;
}

/* Counts claimed by the tables must be possible with the blocks present, so
 * no consumer can be driven to size something by a lie. */
static int check_counts(ludus_capture_file *f, const uint64_t *thread_slots) {
    ludus__captured *c = &f->c;
    uint64_t ev = 0, inc = 0, orph = 0, filt = 0, fr = 0, drop = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        uint64_t s = thread_slots[t];
        if (th->events > 2 * s || th->incomplete > s || th->orphan_ends > s || th->filtered > s || th->frames > s)
            return FMT_FAIL(LUDUS__NF_HEADER_BYTES, "thread %u counts exceed its %" PRIu64 " slots", t, s);
        ev += th->events, inc += th->incomplete, orph += th->orphan_ends, filt += th->filtered, fr += th->frames;
        if (__builtin_add_overflow(drop, th->dropped, &drop))
            return FMT_FAIL(LUDUS__NF_HEADER_BYTES, "drop counts overflow");
    }
    if (ev != c->events || inc != c->incomplete || orph != c->orphan_ends || filt != c->filtered || fr != c->frames)
        return FMT_FAIL(LUDUS__NF_HEADER_BYTES, "capture totals do not match the thread table");
    return 0;
}

static int parse_records(ludus_capture_file *f, uint64_t off) {
    ludus__captured *c = &f->c;
    int have_stats = 0, have_sites = 0, have_threads = 0;
    uint32_t expect_sites = 0, expect_threads = 0;
    uint8_t h0[LUDUS__NF_HEADER_BYTES];
    int rc = read_at(f, 0, h0, sizeof h0, "header");
    if (rc) return rc;
    expect_sites = ludus__get_u32(h0 + 96);
    expect_threads = ludus__get_u32(h0 + 100);
    int64_t last_thread = -1;
    uint64_t *thread_slots = NULL;
    for (;;) {
        if (off == f->size) {
            rc = FMT_FAIL(off, "file ends without an end record (truncated?)");
            break;
        }
        uint8_t h[32];
        if (f->size - off < LUDUS__NF_REC_BYTES) {
            rc = FMT_FAIL(off, "record header truncated (%" PRIu64 " bytes left)", f->size - off);
            break;
        }
        if ((rc = read_at(f, off, h, LUDUS__NF_REC_BYTES, "record header")) != 0) break;
        uint32_t tag = ludus__get_u32(h), aux = ludus__get_u32(h + 4);
        uint64_t len = ludus__get_u64(h + 8);
        if (len > f->size - off - LUDUS__NF_REC_BYTES) {
            rc = FMT_FAIL(off + 8, "record length %" PRIu64 " exceeds file size", len);
            break;
        }
        uint8_t *p = NULL;
        int table =
            tag == LUDUS__NF_META || tag == LUDUS__NF_STATS || tag == LUDUS__NF_SITES || tag == LUDUS__NF_THREADS;
        if (table && last_thread >= 0) {
            rc = FMT_FAIL(off, "table record %u after the first event block", tag);
            break;
        }
        if (table && (rc = read_table(f, off, len, &p)) != 0) break;
        switch (tag) {
        case LUDUS__NF_META:
            rc = parse_meta(f, off, p, len);
            break;
        case LUDUS__NF_STATS:
            rc = have_stats++ ? FMT_FAIL(off, "second stats record") : parse_stats(f, off, p, len);
            break;
        case LUDUS__NF_SITES:
            rc = have_sites++ ? FMT_FAIL(off, "second site table") : parse_sites(f, off, aux, p, len, expect_sites);
            break;
        case LUDUS__NF_THREADS:
            rc = have_threads++ ? FMT_FAIL(off, "second thread table")
                                : parse_threads(f, off, aux, p, len, expect_threads);
            if (rc == 0) {
                thread_slots = calloc(c->nthreads ? c->nthreads : 1, sizeof *thread_slots);
                if (!thread_slots) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
            }
            break;
        case LUDUS__NF_BLOCK: {
            if (!have_stats || !have_sites || !have_threads) {
                rc = FMT_FAIL(off, "event block before the stats, site and thread tables");
                break;
            }
            if ((rc = read_at(f, off + LUDUS__NF_REC_BYTES, h + 16,
                              len < LUDUS__NF_BLOCK_HEAD ? (size_t)len : LUDUS__NF_BLOCK_HEAD, "block header")) != 0)
                break;
            uint32_t thread, enc;
            uint64_t slots, blen;
            if ((rc = block_frame(f, off, h, &thread, &slots, &enc, &blen)) != 0) break;
            if (thread >= c->nthreads) {
                rc = FMT_FAIL(off + 4, "block names thread %u of %u", thread, c->nthreads);
                break;
            }
            if ((int64_t)thread < last_thread) {
                rc = FMT_FAIL(off + 4,
                              "block of thread %u after a block of thread %" PRId64 " (blocks are grouped by thread)",
                              thread, last_thread);
                break;
            }
            ludus__cap_thread *th = &c->threads[thread];
            if (th->nruns == 0) th->load_first = off;
            if (th->nruns == UINT32_MAX) {
                rc = FMT_FAIL(off, "too many blocks");
                break;
            }
            th->nruns++;
            f->blocks++;
            f->slots += slots;
            thread_slots[thread] += slots;
            if (enc == LUDUS__NF_COMPACT) f->compact = 1;
            last_thread = thread;
            break;
        }
        case LUDUS__NF_END:
            if (!have_stats || !have_sites || !have_threads) {
                rc = FMT_FAIL(off, "end record before the stats, site and thread tables");
                break;
            }
            if (off + LUDUS__NF_REC_BYTES + len != f->size) {
                rc = FMT_FAIL(off, "end record is not at the end of the file");
                break;
            }
            if (len < 16) {
                rc = FMT_FAIL(off + 8, "end record of %" PRIu64 " bytes is too short", len);
                break;
            }
            if ((rc = read_at(f, off + LUDUS__NF_REC_BYTES, h + 16, 16, "end record")) != 0) break;
            if (ludus__get_u64(h + 16) != f->blocks || ludus__get_u64(h + 24) != f->slots) {
                rc = FMT_FAIL(off + 16,
                              "end record counts %" PRIu64 " blocks / %" PRIu64 " slots, the file holds %u / %" PRIu64,
                              ludus__get_u64(h + 16), ludus__get_u64(h + 24), f->blocks, f->slots);
                break;
            }
            rc = check_counts(f, thread_slots);
            free(thread_slots);
            return rc;
        default:
            break; /* unknown records are skipped (newer minor versions) */
        }
        free(p);
        if (rc) break;
        off += LUDUS__NF_REC_BYTES + len;
    }
    free(thread_slots);
    return rc;
}

int ludus_capture_open(const char *path, ludus_capture_file **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    ludus_capture_file *f = calloc(1, sizeof *f);
    if (!f) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    f->fp = fopen(path, "rb");
    if (!f->fp) {
        free(f);
        return ludus__fail(LUDUS_EIO, "cannot open %s", path);
    }
    long end;
    if (fseek(f->fp, 0, SEEK_END) != 0 || (end = ftell(f->fp)) < 0) {
        ludus_capture_close(f);
        return ludus__fail(LUDUS_EIO, "cannot size %s (not a regular file?)", path);
    }
    f->size = (uint64_t)end;
    uint64_t first = 0;
    int rc = parse_header(f, &first);
    if (rc == 0) rc = parse_records(f, first);
    if (rc) {
        ludus_capture_close(f);
        return rc; /* the detail is set */
    }
    f->error = 0;
    ludus__captured *c = &f->c;
    c->valid = 1;
    c->prepared = 1; /* sites and counts come from the file */
    c->load_run = load_run;
    c->loader = f;
    *out = f;
    return 0;
}

void ludus_capture_close(ludus_capture_file *f) {
    if (!f) return;
    if (f->fp) fclose(f->fp);
    free(f->c.threads);
    free(f->c.sites);
    free(f->c.site_hash);
    free(f->arena);
    free(f->categories);
    free(f);
}

ludus__captured *ludus__capture_file_view(ludus_capture_file *f) {
    return &f->c;
}

int ludus__capture_file_error(const ludus_capture_file *f) {
    return f->error;
}

int ludus_capture_file_get_info(const ludus_capture_file *f, ludus_capture_file_info *out) {
    if (!f || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    const ludus__captured *c = &f->c;
    memset(out, 0, sizeof *out);
    out->version = f->version;
    out->clock_name = c->clock_tsc ? "tsc" : "monotonic";
    out->calib_ticks[0] = c->c0.ticks;
    out->calib_ticks[1] = c->c1.ticks;
    out->calib_ns[0] = c->c0.ns;
    out->calib_ns[1] = c->c1.ns;
    out->start_ns = c->start_ns;
    out->end_ns = c->end_ns;
    out->threads = c->nthreads;
    out->sites = c->nsites;
    out->blocks = f->blocks;
    out->compact = f->compact;
    out->slots = f->slots;
    out->events = c->events;
    out->dropped = c->dropped;
    out->filtered = c->filtered;
    out->incomplete = c->incomplete;
    out->orphan_ends = c->orphan_ends;
    out->frames = c->frames;
    out->file_bytes = f->size;
    out->pid = c->pid;
    out->process_name = c->process_name;
    out->categories = c->categories;
    return 0;
}

int ludus_capture_file_get_thread(const ludus_capture_file *f, uint32_t index, ludus_thread_summary *out) {
    if (!f || !out) return ludus__fail(LUDUS_EINVAL, "NULL argument");
    if (index >= f->c.nthreads) return ludus__fail(LUDUS_EINVAL, "thread index %u out of range", index);
    ludus__thread_summary_fill(&f->c.threads[index], out);
    return 0;
}
