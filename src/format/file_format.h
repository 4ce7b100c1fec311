/* The native capture file (.ludus), versions 5 and 6 (a streamed capture,
 * LUDUS__NF_STREAMED below): the one definition of its
 * layout, used by the writer (src/export/native_writer.c) and the reader
 * (file_reader.c). Each fixed part is a list of fields; from the list come
 * its C struct, its size and the functions that put it into bytes and get
 * it back, so the writer and the reader cannot disagree. docs/format.md
 * explains the format; keep it in step with this file. */
#ifndef LUDUS_FILE_FORMAT_H
#define LUDUS_FILE_FORMAT_H

#include <stdint.h>
#include <string.h>

#include "../capture/nev.h"
#include "../gpu/gpu_data.h"
#include "../base/varint.h"

/* ---- little-endian fields ---- */

#define LUDUS__NF_CTYPE_U32 uint32_t
#define LUDUS__NF_CTYPE_I32 int32_t
#define LUDUS__NF_CTYPE_U64 uint64_t
#define LUDUS__NF_CTYPE_I64 int64_t
#define LUDUS__NF_SIZE_U32 4
#define LUDUS__NF_SIZE_I32 4
#define LUDUS__NF_SIZE_U64 8
#define LUDUS__NF_SIZE_I64 8

/* Little-endian fields: on a little-endian host one unaligned copy (the
 * byte loop is not always turned into a load), else byte by byte. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define LUDUS__NF_NATIVE_LE 1
#else
#define LUDUS__NF_NATIVE_LE 0
#endif

static inline uint8_t *ludus__nf_put_U64(uint8_t *p, uint64_t v) {
#if LUDUS__NF_NATIVE_LE
    memcpy(p, &v, 8);
#else
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
    return p + 8;
}
static inline uint8_t *ludus__nf_put_U32(uint8_t *p, uint32_t v) {
#if LUDUS__NF_NATIVE_LE
    memcpy(p, &v, 4);
#else
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
#endif
    return p + 4;
}
static inline uint8_t *ludus__nf_put_I64(uint8_t *p, int64_t v) {
    return ludus__nf_put_U64(p, (uint64_t)v);
}
static inline uint8_t *ludus__nf_put_I32(uint8_t *p, int32_t v) {
    return ludus__nf_put_U32(p, (uint32_t)v);
}
static inline const uint8_t *ludus__nf_get_U64(const uint8_t *p, uint64_t *v) {
#if LUDUS__NF_NATIVE_LE
    memcpy(v, p, 8);
#else
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = (x << 8) | p[i];
    *v = x;
#endif
    return p + 8;
}
static inline const uint8_t *ludus__nf_get_U32(const uint8_t *p, uint32_t *v) {
#if LUDUS__NF_NATIVE_LE
    memcpy(v, p, 4);
#else
    uint32_t x = 0;
    for (int i = 3; i >= 0; i--) x = (x << 8) | p[i];
    *v = x;
#endif
    return p + 4;
}
static inline const uint8_t *ludus__nf_get_I64(const uint8_t *p, int64_t *v) {
    uint64_t x;
    p = ludus__nf_get_U64(p, &x);
    *v = (int64_t)x;
    return p;
}
static inline const uint8_t *ludus__nf_get_I32(const uint8_t *p, int32_t *v) {
    uint32_t x;
    p = ludus__nf_get_U32(p, &x);
    *v = (int32_t)x;
    return p;
}

#define LUDUS__NF_MEMBER(T, f) LUDUS__NF_CTYPE_##T f;
#define LUDUS__NF_ADD_SIZE(T, f) +LUDUS__NF_SIZE_##T
#define LUDUS__NF_PUT(T, f) p = ludus__nf_put_##T(p, s->f);
#define LUDUS__NF_GET(T, f) p = ludus__nf_get_##T(p, &s->f);
#define LUDUS__NF_NAMED_OFF(T, f)     \
    if (!strcmp(field, #f)) return o; \
    o += LUDUS__NF_SIZE_##T;

/* A fixed part: struct NAME, NAME_BYTES, NAME_put, NAME_get, and
 * NAME_offset("field") (for error messages). */
#define LUDUS__NF_DEFINE(NAME, FIELDS)                                   \
    typedef struct NAME {                                                \
        FIELDS(LUDUS__NF_MEMBER)                                         \
    } NAME;                                                              \
    enum { NAME##_BYTES = 0 FIELDS(LUDUS__NF_ADD_SIZE) };                \
    static inline uint8_t *NAME##_put(uint8_t *p, const NAME *s) {       \
        FIELDS(LUDUS__NF_PUT) return p;                                  \
    }                                                                    \
    static inline const uint8_t *NAME##_get(NAME *s, const uint8_t *p) { \
        FIELDS(LUDUS__NF_GET) return p;                                  \
    }                                                                    \
    static inline uint64_t NAME##_offset(const char *field) {            \
        uint64_t o = 0;                                                  \
        FIELDS(LUDUS__NF_NAMED_OFF)                                      \
        return 0;                                                        \
    }

/* ---- the layout ---- */

#define LUDUS__NF_MAGIC UINT64_C(0x504143535544554c) /* the bytes "LUDUSCAP", read little-endian */
#define LUDUS__NF_MAGIC_TEXT "LUDUSCAP"
#define LUDUS__NF_BOM 0x01020304u

/* Header flags. STREAMED (version 6 only): written while the capture ran
 * (src/session/stream.c): blocks come as pieces fill, threads interleaved,
 * each thread's first block after a THREAD_DEF record and each new site in
 * a SITE_DEFS record before the first block that names it, a CLOCK record
 * after every batch of blocks; META, STATS, THREADS, SUMMARY and END come
 * last, and the header is written again at the end (calibration point 1,
 * end time, counts). A file cut short (kill -9, a crash) has no END: the
 * reader takes every whole block, the last CLOCK as the end. */
#define LUDUS__NF_STREAMED 1u
#define LUDUS__FORMAT_STREAMED 6u

/* The file header: at offset 0. crc is the CRC-32C of the bytes before it. */
/* clang-format off */
#define LUDUS__NF_HEADER_FIELDS(X) \
    X(U64, magic) \
    X(U32, version) \
    X(U32, bom) \
    X(U32, header_bytes) \
    X(U32, flags) \
    X(U32, clock) \
    X(I32, pid) \
    X(U64, c0_ticks) \
    X(I64, c0_ns) \
    X(I64, c0_window) \
    X(U64, c1_ticks) \
    X(I64, c1_ns) \
    X(I64, c1_window) \
    X(I64, start_ns) \
    X(I64, end_ns) \
    X(U32, nsites) \
    X(U32, nthreads) \
    X(U32, gen) \
    X(U32, crc)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_header, LUDUS__NF_HEADER_FIELDS)

/* Every record: this head, then `length` bytes of payload. crc is the
 * CRC-32C of tag, aux and length (16 bytes) and then the payload. */
/* clang-format off */
#define LUDUS__NF_RECORD_FIELDS(X) \
    X(U32, tag) \
    X(U32, aux) \
    X(U64, length) \
    X(U32, crc) \
    X(U32, reserved)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_record, LUDUS__NF_RECORD_FIELDS)

enum {
    LUDUS__NF_META = 1,    /* aux: entries; each u32 key length, u32 value length, key, value */
    LUDUS__NF_STATS = 2,   /* u32 entry_bytes, then the stats */
    LUDUS__NF_SITES = 3,   /* aux: sites; u32 entry_bytes, then each site and its strings */
    LUDUS__NF_THREADS = 4, /* aux: threads; u32 entry_bytes, then each thread and its name */
    LUDUS__NF_BLOCK = 5,   /* aux: thread index; the block head, then the events */
    LUDUS__NF_END = 6,     /* the end: must be last */
    LUDUS__NF_GPU = 7,     /* GPU timing (gpu.c), before the first block; readers before it skip it */
    /* streamed files (LUDUS__NF_STREAMED) only */
    LUDUS__NF_CLOCK = 8,       /* a calibration point (ludus__nf_clock): the latest is the end of a cut file */
    LUDUS__NF_SITE_DEFS = 9,   /* aux: sites; as SITES, the sites first named by the blocks after it */
    LUDUS__NF_THREAD_DEF = 10, /* aux: thread index; u32 entry_bytes, one THREADS entry and its name */
    /* any file: what `info` prints without reading the blocks, before END (ludus__nf_summary) */
    LUDUS__NF_SUMMARY = 11,
    /* aux: thread index; the frame thread's marks, after the blocks (format.md "MARKS"): u64 count, then
     * per mark varint zigzag deltas of its time (ns since capture start) and of the thread's CPU time (-1: none) */
    LUDUS__NF_MARKS = 12,
    /* streamed files only; aux: thread index; the frame marks of the BLOCK before it (format.md "MARK_RUN"):
     * u64 count, then per mark varint zigzag deltas of its ticks and of the thread's CPU time (-1: none) */
    LUDUS__NF_MARK_RUN = 13
};

/* Tables start with the size of their fixed entries as written, so a reader
 * takes the fields it knows and skips the ones a later version appends. */
/* clang-format off */
#define LUDUS__NF_STATS_FIELDS(X) \
    X(U64, unregistered_drops) \
    X(U64, bytes_used) \
    X(U64, interner_drops) \
    X(U64, id_collisions) \
    X(U64, events) \
    X(U64, dropped) \
    X(U64, incomplete) \
    X(U64, unwound) \
    X(U64, orphan_ends) \
    X(U64, filtered) \
    X(U64, frames) \
    X(U64, mismatched) \
    X(U64, nonfinite) \
    X(U64, texts_cut) \
    X(U64, keys_dropped)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_stats, LUDUS__NF_STATS_FIELDS)
/* The STATS entry of files before the annotation counts (texts_cut,
 * keys_dropped): read as 0 from them. */
#define LUDUS__NF_STATS_MIN_BYTES 104u

#define LUDUS__NF_SITE_ENABLED 1u
#define LUDUS__NF_SITE_HAS_CATEGORY 2u
/* clang-format off */
#define LUDUS__NF_SITE_FIELDS(X) \
    X(U64, key) \
    X(U32, id) \
    X(U32, line) \
    X(U32, flags) \
    X(U32, name_len) \
    X(U32, function_len) \
    X(U32, file_len) \
    X(U32, category_len) \
    X(U32, reserved)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_site, LUDUS__NF_SITE_FIELDS)

/* clang-format off */
#define LUDUS__NF_THREAD_FIELDS(X) \
    X(U64, tid) \
    X(U64, dropped) \
    X(I64, first_drop_ns) \
    X(U64, spans) \
    X(U64, events) \
    X(U64, incomplete) \
    X(U64, unwound) \
    X(U64, orphan_ends) \
    X(U64, filtered) \
    X(U64, frames) \
    X(U64, mismatched) \
    X(U32, exited) \
    X(U32, lanes) \
    X(U32, name_len) \
    X(U32, reserved) \
    X(U64, async_plus1)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_thread, LUDUS__NF_THREAD_FIELDS)
/* A thread entry before async_plus1 (the thread's async begins and ends
 * plus 1; 0: not counted): readers take such entries with the field 0. */
#define LUDUS__NF_THREAD_BYTES_MIN 104

/* Block encodings. ZSTD (block_zstd.c, built with LUDUS_ZSTD): a compact
 * block's bytes compressed as one zstd frame, after a u64 giving their
 * length; a reader built without zstd refuses it by name and offset. */
enum { LUDUS__NF_RAW = 0, LUDUS__NF_COMPACT = 1, LUDUS__NF_ZSTD = 2 };
/* base: the address the block's first slot had when recorded (an end names
 * its begin by address). */
/* clang-format off */
#define LUDUS__NF_BLOCK_FIELDS(X) \
    X(U32, encoding) \
    X(U32, reserved) \
    X(U64, slots) \
    X(U64, base)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_block, LUDUS__NF_BLOCK_FIELDS)

/* CLOCK: a calibration point, taken after the blocks before it were
 * handed to the writer (every event in them is older). */
/* clang-format off */
#define LUDUS__NF_CLOCK_FIELDS(X) \
    X(U64, ticks) \
    X(I64, ns) \
    X(I64, window)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_clock, LUDUS__NF_CLOCK_FIELDS)

/* SUMMARY: u32 entry_bytes, this, then u32 thread_bytes and per thread (in
 * the THREADS table's order) a ludus__nf_summary_thread. Events as the
 * writer counted them (recorded events: a begin, an end, a mark ...;
 * payload slots not counted); frame_thread: the thread with the most frame
 * marks (the analysis's frame thread), UINT32_MAX when none. */
/* clang-format off */
#define LUDUS__NF_SUMMARY_FIELDS(X) \
    X(U64, events) \
    X(U64, dropped) \
    X(U64, frame_marks) \
    X(U64, marks_elsewhere) \
    X(U32, frame_thread) \
    X(U32, streamed) \
    X(U64, blocks) \
    X(U64, slots)
#define LUDUS__NF_SUMMARY_THREAD_FIELDS(X) \
    X(U64, events) \
    X(U64, frames)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_summary, LUDUS__NF_SUMMARY_FIELDS)
LUDUS__NF_DEFINE(ludus__nf_summary_thread, LUDUS__NF_SUMMARY_THREAD_FIELDS)

/* clang-format off */
#define LUDUS__NF_END_FIELDS(X) \
    X(U64, blocks) \
    X(U64, slots)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_end, LUDUS__NF_END_FIELDS)

/* The index, appended to END by every writer since it was added (readers
 * before it read the END fields above and ignore the rest): where the
 * records after the blocks start (tail: the first record after every
 * BLOCK, THREAD_DEF and SITE_DEFS), flags (compact, compressed blocks), and last
 * the END payload's length and a magic, so a reader finds the END record
 * from the file's last 12 bytes and reads the header, the tables and the
 * summary without the blocks (ludus_capture_open_index). Fields a later
 * version adds go before `length`. */
#define LUDUS__NF_END_MAGIC UINT64_C(0x444e45535544554c) /* the bytes "LUDUSEND", read little-endian */
#define LUDUS__NF_END_COMPACT 1u                         /* at least one block is compact (or compressed) */
#define LUDUS__NF_END_COMPRESSED 2u                      /* at least one block is zstd-compressed (LUDUS__NF_ZSTD) */
/* clang-format off */
#define LUDUS__NF_END_INDEX_FIELDS(X) \
    X(U64, blocks) \
    X(U64, slots) \
    X(U64, tail) \
    X(U32, flags) \
    X(U32, length) \
    X(U64, magic)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_end_index, LUDUS__NF_END_INDEX_FIELDS)

/* The GPU record: this head, then the contexts (each its fixed part, its
 * coverage counts as cov_count u64 in LUDUS_GPU_COVERAGE order, its name
 * and device), the pass names (u32 length, bytes), the samples, the
 * calibration points. Entry sizes as written: a reader takes the fields it
 * knows. */
/* clang-format off */
#define LUDUS__NF_GPU_HEAD_FIELDS(X) \
    X(U32, ctx_bytes) \
    X(U32, sample_bytes) \
    X(U32, cal_bytes) \
    X(U32, nctx) \
    X(U32, nnames) \
    X(U32, reserved) \
    X(U64, nsamples) \
    X(U64, ncal)
#define LUDUS__NF_GPU_CTX_FIELDS(X) \
    X(U32, queue) \
    X(U32, valid_bits) \
    X(U64, period_bits) \
    X(U32, name_len) \
    X(U32, device_len) \
    X(U32, cov_count) \
    X(U32, reserved)
#define LUDUS__NF_GPU_SAMPLE_FIELDS(X) \
    X(U32, ctx) \
    X(U32, name) \
    X(U64, frame) \
    X(U64, begin_ticks) \
    X(U64, end_ticks) \
    X(U64, flow_id) \
    X(U64, period_bits) \
    X(I64, submit_ns)
#define LUDUS__NF_GPU_CAL_FIELDS(X) \
    X(U32, ctx) \
    X(U32, reserved) \
    X(U64, ticks) \
    X(I64, cpu_ns) \
    X(I64, dev_ns)
/* clang-format on */
LUDUS__NF_DEFINE(ludus__nf_gpu_head, LUDUS__NF_GPU_HEAD_FIELDS)
LUDUS__NF_DEFINE(ludus__nf_gpu_ctx, LUDUS__NF_GPU_CTX_FIELDS)
LUDUS__NF_DEFINE(ludus__nf_gpu_sample, LUDUS__NF_GPU_SAMPLE_FIELDS)
LUDUS__NF_DEFINE(ludus__nf_gpu_cal, LUDUS__NF_GPU_CAL_FIELDS)

/* Reader limits: a file past them is refused (LUDUS_EFORMAT), so a hostile
 * file cannot make the reader allocate without bound. */
#define LUDUS__NF_MAX_THREADS (1u << 21) /* a capture's threads, exited ones too (the table's bytes bound it too) */
#define LUDUS__NF_MAX_SITES (1u << 22)
#define LUDUS__NF_MAX_TABLE_BYTES (256u << 20)
#define LUDUS__NF_MAX_BLOCK_SLOTS (1u << 27) /* the largest piece (2 GiB) */
#define LUDUS__NF_MAX_STRING 4096u

/* A site's entry and strings (SITES, SITE_DEFS), into p (room for
 * ludus__nf_site_size(s) bytes); returns the end. */
static inline size_t ludus__nf_clamp(size_t n) {
    return n > LUDUS__NF_MAX_STRING ? LUDUS__NF_MAX_STRING : n;
}
static inline size_t ludus__nf_site_size(const ludus__site_info *s) {
    return ludus__nf_site_BYTES + ludus__nf_clamp(s->name_len) + ludus__nf_clamp(strlen(s->function)) +
           ludus__nf_clamp(strlen(s->file)) + (s->category ? ludus__nf_clamp(s->category_len) : 0);
}
static inline uint8_t *ludus__nf_put_site_entry(uint8_t *p, const ludus__site_info *s) {
    size_t nn = ludus__nf_clamp(s->name_len), fn = ludus__nf_clamp(strlen(s->function)),
           ln = ludus__nf_clamp(strlen(s->file)), cn = s->category ? ludus__nf_clamp(s->category_len) : 0;
    ludus__nf_site e = {(uint64_t)s->key,
                        s->id,
                        s->line,
                        (s->enabled ? LUDUS__NF_SITE_ENABLED : 0u) | (s->category ? LUDUS__NF_SITE_HAS_CATEGORY : 0u),
                        (uint32_t)nn,
                        (uint32_t)fn,
                        (uint32_t)ln,
                        (uint32_t)cn,
                        0};
    p = ludus__nf_site_put(p, &e);
    memcpy(p, s->name, nn), p += nn;
    memcpy(p, s->function, fn), p += fn;
    memcpy(p, s->file, ln), p += ln;
    if (cn) memcpy(p, s->category, cn), p += cn;
    return p;
}

/* ---- CRC-32C (crc32c.c): crc of the bytes so far, then more bytes ---- */
LUDUS_HIDDEN uint32_t ludus__crc32c(uint32_t crc, const void *data, size_t n);

/* A record's head for a payload (its CRC over the head's first 16 bytes,
 * then the payload): what both writers put before every record. */
static inline void ludus__nf_record_head(uint8_t out[ludus__nf_record_BYTES], uint32_t tag, uint32_t aux,
                                         const void *payload, uint64_t len) {
    ludus__nf_record h = {tag, aux, len, 0, 0};
    ludus__nf_record_put(out, &h);
    h.crc = ludus__crc32c(ludus__crc32c(0, out, 16), payload, (size_t)len);
    ludus__nf_record_put(out, &h);
}

/* ---- compact blocks (block_codec.c) ---- */

/* Worst case bytes of a compact block of n slots. */
#define LUDUS__NF_COMPACT_MAX(n) ((n)*20u + 16u)
/* Encodes n slots recorded at base; site keys become indexes of c's site
 * table. Returns the bytes written to out. */
LUDUS_HIDDEN size_t ludus__compact_encode(const ludus_capture *c, const ludus__event *ev, size_t n, uintptr_t base,
                                          uint8_t *out);
/* Decodes a compact block of n slots recorded at base; 0, or -1 with *bad
 * the offset within in of the defect and *why what it is. */
LUDUS_HIDDEN int ludus__compact_decode(const ludus_capture *c, const uint8_t *in, size_t len, ludus__event *ev,
                                       size_t n, uintptr_t base, size_t *bad, const char **why);

/* ---- zstd-compressed compact blocks (block_zstd.c) ---- */

/* A compressed block's data: u64 compact bytes, then at most this many
 * bytes of zstd frame (ZSTD_COMPRESSBOUND, rounded up). */
#define LUDUS__NF_ZSTD_HEAD 8u
#define LUDUS__NF_ZSTD_BOUND(len) ((len) + ((len) >> 8) + 128u)
/* A compressed block claims at most this many slots per byte of frame, so
 * a hostile file cannot make the reader decompress without bound (the
 * synthetic engine's blocks hold about 5 slots a byte). */
#define LUDUS__NF_ZSTD_MAX_SLOTS_PER_BYTE 1024u

typedef struct ludus__zstd ludus__zstd; /* a compression context */
/* 1 when this build has zstd (LUDUS_ZSTD), else 0. */
LUDUS__SIBLING int ludus__zstd_built(void);
/* Compresses a compact block's len bytes (slots: its slots) into out (room for
 * LUDUS__NF_ZSTD_HEAD + LUDUS__NF_ZSTD_BOUND(len)): the u64 length, then the
 * frame. *z is the context, made on first use (ludus__zstd_free). Returns the
 * bytes written, 0 when the block is better left compact (no zstd, no bytes
 * saved, or more slots than the reader takes for the frame's bytes), LUDUS__ZSTD_NOMEM when zstd ran out of memory. */
#define LUDUS__ZSTD_NOMEM SIZE_MAX
LUDUS_HIDDEN size_t ludus__zstd_block(ludus__zstd **z, const uint8_t *compact, size_t len, size_t slots, uint8_t *out);
LUDUS_HIDDEN void ludus__zstd_free(ludus__zstd *z);
/* The compact bytes of a compressed block's frame in[0, n) into out (room
 * for want, the length its head gave). 0, or -1 with *why what is wrong
 * (a static string, or zstd's error name), -2 when out of memory. */
LUDUS__SIBLING int ludus__zstd_unblock(const uint8_t *in, size_t n, uint8_t *out, size_t want, const char **why);

#endif
