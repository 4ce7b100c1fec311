/* Native capture files through the public API: save -> open (from a path
 * and from memory) -> the JSON of the file equals the direct JSON export
 * byte for byte (compact and raw encodings); a re-save is identical; the
 * file read back from memory is mutated in memory: a cut at every offset and
 * every byte flipped give LUDUS_EFORMAT naming an offset (every record
 * carries a CRC-32C, so nothing damaged is ever read as data); a file whose
 * checksums were redone around a bad tick is refused by the time check;
 * empty captures and I/O failures keep their contracts. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct membuf {
    char *data;
    size_t len, cap;
} membuf;

static int mem_write(void *ud, const void *p, size_t n) {
    membuf *b = ud;
    if (b->len + n > b->cap) {
        size_t cap = (b->len + n) * 2;
        char *d = realloc(b->data, cap);
        if (!d) return -1;
        b->data = d;
        b->cap = cap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
    return 0;
}

static char dir[256];
static char path_compact[300], path_raw[300], path_zstd[300];

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("Worker \"quoted\"");
    for (int i = 0; i < 50; i++) {
        LUDUS_PROFILE_SCOPE(Job, jobs);
        LUDUS_PROFILE_MARK(Tick);
    }
    return NULL;
}

/* A capture with slices, marks, frames, counters, flows, spans, a second
 * thread and a scope left open (incomplete). */
static void record_capture(void) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 64;
    d.chunk_bytes = 4096; /* several blocks per thread */
    assert_int_equal(ludus_capture_begin(&d), 0);
    ludus_thread_register("Main");
    uint32_t ctr = ludus_site_intern("Queue depth");
    uint32_t fctr = ludus_site_intern("Load");
    for (int f = 0; f < 40; f++) {
        LUDUS_PROFILE_SCOPE(Frame, main);
        {
            LUDUS_PROFILE_SCOPE(Update);
            ludus_counter_sample(ctr, f - 5);
            ludus_counter_sample_f64(fctr, f * 0.25);
        }
        uint64_t id = LUDUS_PROFILE_FLOW_OUT(Dispatch);
        LUDUS_PROFILE_FLOW_IN(id);
        LUDUS_PROFILE_MARK(Hitch);
        LUDUS_PROFILE_BEGIN(Span);
        LUDUS_PROFILE_END();
        LUDUS_PROFILE_COUNT(Draws, f * 7 - 20); /* frame statistics: FRAME_STAT events */
        LUDUS_PROFILE_GAUGE(Depth, -f);
        LUDUS_PROFILE_FRAME();
    }
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
    LUDUS_PROFILE_BEGIN(LeftOpen);
    assert_int_equal(ludus_capture_end(NULL), 0);
}

/* The last ended capture in format at path. */
static int save_last_as(int format, const char *path, unsigned flags) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_save(c, format, flags, path);
    ludus_capture_release(c);
    return rc;
}

/* The last ended capture as .ludus at path (flags: LUDUS_SAVE_RAW or 0). */
static int save_last(const char *path, unsigned flags) {
    return save_last_as(LUDUS_FORMAT_LUDUS, path, flags);
}

static char *json_of(ludus_capture *c, size_t *len) {
    membuf b = {0};
    int rc = ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, mem_write, &b);
    if (rc) fprintf(stderr, "write: %s\n", ludus_last_error_detail());
    assert_int_equal(rc, 0);
    *len = b.len;
    return b.data;
}

static uint8_t *read_all(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    *n = (size_t)ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *d = malloc(*n ? *n : 1);
    assert_int_equal(fread(d, 1, *n, fp), *n);
    fclose(fp);
    return d;
}

static void write_all(const char *path, const uint8_t *d, size_t n) {
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(d, 1, n, fp), n);
    fclose(fp);
}

/* Opens bytes from memory, reads every event into JSON and pftrace, and
 * analyses them; returns the first failure. Never crashes. */
static int open_and_drain(const uint8_t *d, size_t n) {
    ludus_capture *c;
    int rc = ludus_capture_open_memory(d, n, &c);
    if (rc) return rc;
    membuf b = {0};
    rc = ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, mem_write, &b);
    free(b.data);
    memset(&b, 0, sizeof b);
    if (!rc) rc = ludus_capture_write(c, LUDUS_FORMAT_PFTRACE, 0, mem_write, &b);
    free(b.data);
    ludus_analysis *a = NULL;
    if (!rc) rc = ludus_analysis_create(c, NULL, &a);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    return rc;
}

static void test_round_trip(void **state) {
    (void)state;
    ludus_capture *live;
    assert_int_equal(ludus_capture_last(&live), 0);
    size_t n0, n1, n2;
    char *j0 = json_of(live, &n0);
    assert_int_equal(save_last(path_compact, LUDUS_SAVE_UNCOMPRESSED), 0);
    assert_int_equal(save_last(path_raw, LUDUS_SAVE_RAW), 0);
    assert_int_equal(save_last(path_zstd, 0), 0); /* compressed where the build has zstd */
    ludus_capture *fc, *fr, *fz;
    assert_int_equal(ludus_capture_open(path_compact, &fc), 0);
    assert_int_equal(ludus_capture_open(path_raw, &fr), 0);
    assert_int_equal(ludus_capture_open(path_zstd, &fz), 0);
    char *j1 = json_of(fc, &n1);
    char *j2 = json_of(fr, &n2);
    assert_int_equal(n0, n1);
    assert_memory_equal(j0, j1, n0);
    assert_int_equal(n0, n2);
    assert_memory_equal(j0, j2, n0);
    size_t n4;
    char *j4 = json_of(fz, &n4);
    assert_int_equal(n0, n4);
    assert_memory_equal(j0, j4, n0);
    free(j4);
    /* the summary of the file matches the live one */
    ludus_capture_summary s;
    assert_int_equal(ludus_capture_get_summary(live, &s), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(fc, &in), 0);
    assert_int_equal(in.summary.events, s.events);
    assert_int_equal(in.threads, s.threads);
    assert_int_equal(in.summary.incomplete, s.incomplete);
    assert_true(in.summary.incomplete >= 1);
    assert_int_equal(in.summary.frames, 40);
    assert_true(in.blocks > 2);
    assert_int_equal(in.compact, 1);
    assert_int_equal(in.compressed, 0);
    /* compact is much smaller than raw, and compressed smaller again */
    size_t nc, nr, nz;
    uint8_t *cb = read_all(path_compact, &nc), *rb = read_all(path_raw, &nr), *zb = read_all(path_zstd, &nz);
    assert_true(nc * 3 < nr);
    assert_int_equal(ludus_capture_get_info(fz, &in), 0);
    assert_int_equal(in.compressed, LUDUS_TEST_ZSTD);
    if (LUDUS_TEST_ZSTD)
        assert_true(nz < nc);
    else
        assert_int_equal(nz, nc);
    /* re-saving a file gives the same bytes, in either encoding */
    membuf b = {0};
    assert_int_equal(ludus_capture_write(fc, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_UNCOMPRESSED, mem_write, &b), 0);
    assert_int_equal(b.len, nc);
    assert_memory_equal(b.data, cb, nc);
    free(b.data);
    memset(&b, 0, sizeof b); /* the compressed file re-saved, either way */
    assert_int_equal(ludus_capture_write(fz, LUDUS_FORMAT_LUDUS, 0, mem_write, &b), 0);
    assert_int_equal(b.len, nz);
    assert_memory_equal(b.data, zb, nz);
    free(b.data);
    memset(&b, 0, sizeof b);
    assert_int_equal(ludus_capture_write(fz, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_UNCOMPRESSED, mem_write, &b), 0);
    assert_int_equal(b.len, nc);
    assert_memory_equal(b.data, cb, nc);
    free(b.data);
    memset(&b, 0, sizeof b);
    assert_int_equal(ludus_capture_write(fc, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_RAW, mem_write, &b), 0);
    assert_int_equal(b.len, nr);
    assert_memory_equal(b.data, rb, nr);
    free(b.data);
    /* the same file from memory reads the same */
    ludus_capture *fm;
    assert_int_equal(ludus_capture_open_memory(cb, nc, &fm), 0);
    size_t n3;
    char *j3 = json_of(fm, &n3);
    assert_int_equal(n3, n0);
    assert_memory_equal(j3, j0, n0);
    ludus_capture_release(fm);
    ludus_capture_release(fc);
    ludus_capture_release(fr);
    ludus_capture_release(fz);
    ludus_capture_release(live);
    free(zb);
    free(cb);
    free(rb);
    free(j0);
    free(j1);
    free(j2);
    free(j3);
}

static void check_truncations(const char *src) {
    size_t n;
    uint8_t *d = read_all(src, &n);
    for (size_t k = 0; k < n; k++) {
        ludus_capture *c = (ludus_capture *)1;
        int rc = ludus_capture_open_memory(d, k, &c);
        if (rc != LUDUS_EFORMAT) fprintf(stderr, "truncated at %zu: rc %d\n", k, rc);
        assert_int_equal(rc, LUDUS_EFORMAT);
        assert_null(c);
        assert_non_null(strstr(ludus_last_error_detail(), "offset "));
    }
    free(d);
}

static void test_truncated_every_offset(void **state) {
    (void)state;
    check_truncations(path_compact);
    check_truncations(path_raw);
    check_truncations(path_zstd);
}

/* Every single byte flipped, one at a time, in both encodings: open (which
 * checks every record's CRC) refuses each one, naming an offset. */
static void check_every_flip(const char *src) {
    size_t n;
    uint8_t *d = read_all(src, &n);
    for (size_t k = 0; k < n; k++) {
        d[k] ^= 0xA5;
        int rc = open_and_drain(d, n);
        if (rc != LUDUS_EFORMAT)
            fprintf(stderr, "%s: byte %zu flipped: rc %d (%s)\n", src, k, rc, ludus_last_error_detail());
        assert_int_equal(rc, LUDUS_EFORMAT);
        assert_non_null(strstr(ludus_last_error_detail(), "offset "));
        d[k] ^= 0xA5;
    }
    assert_int_equal(open_and_drain(d, n), 0);
    free(d);
}

static void test_every_flip_detected(void **state) {
    (void)state;
    check_every_flip(path_compact);
    check_every_flip(path_raw);
    check_every_flip(path_zstd);
}

/* Header fields: the messages name the offset and the problem. */
static void test_corrupted_fields(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = read_all(path_compact, &n);
    struct {
        size_t off;
        uint8_t val;
        const char *expect;
    } cases[] = {
        {0, 'X', "offset 0: bad magic"},
        {8, 9, "offset 8: format version 9"},
        {30, 0, "offset 108: header checksum mismatch"},
        {200, 0, "checksum mismatch"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t save = d[cases[i].off];
        d[cases[i].off] = cases[i].val == save ? (uint8_t)~save : cases[i].val;
        ludus_capture *c;
        assert_int_equal(ludus_capture_open_memory(d, n, &c), LUDUS_EFORMAT);
        if (!strstr(ludus_last_error_detail(), cases[i].expect))
            fprintf(stderr, "case %zu: detail '%s'\n", i, ludus_last_error_detail());
        assert_non_null(strstr(ludus_last_error_detail(), cases[i].expect));
        assert_non_null(strstr(ludus_last_error_detail(), "malformed input, offset "));
        d[cases[i].off] = save;
    }
    free(d);
}

/* CRC-32C, bit by bit: an independent implementation to forge checksums. */
static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n) {
    crc = ~crc;
    while (n--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1)));
    }
    return ~crc;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t get64(const uint8_t *p) {
    return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}
static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* The payload of the file's first block record (its block head). */
static uint8_t *first_block(uint8_t *d, size_t n) {
    size_t off = get32(d + 16); /* header_bytes: the first record */
    while (off + 24 <= n) {
        if (get32(d + off) == 5) return d + off + 24;
        off += 24 + (size_t)get64(d + off + 8);
    }
    fail_msg("no block record");
    return NULL;
}

/* The CRC of the record whose head is at rec, after its payload changed. */
static void redo_crc(uint8_t *rec) {
    uint32_t crc = crc32c(0, rec, 16);
    crc = crc32c(crc, rec + 24, (size_t)get64(rec + 8));
    put32(rec + 16, crc);
}

/* A raw block's tick set far outside the capture, its CRC redone: the
 * checksum cannot tell, the time check does (times far outside the capture
 * once gave a frame p99 of 4.6e9 s). */
static void test_forged_tick_refused(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = read_all(path_raw, &n);
    uint8_t *block = first_block(d, n); /* its first event's ticks */
    block[24 + 6] ^= 0x40;
    redo_crc(block - 24);
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "outside the capture's time range"));
    free(d);
}

/* A compact block that claims 2^27 slots in a few bytes, its CRC redone:
 * refused before anything is sized by the claim (memory while reading is
 * bounded by the file's size). */
static void test_block_claim_bounded_by_bytes(void **state) {
    (void)state;
    size_t n;
    uint8_t *d = read_all(path_compact, &n);
    uint8_t *block = first_block(d, n);
    assert_int_equal(get32(block), 1); /* compact */
    put32(block + 8, 1u << 27);        /* slots (low half) */
    put32(block + 12, 0);
    redo_crc(block - 24);
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "data bytes"));
    free(d);
}

/* The file's first block of an encoding (its block head), or NULL. */
static uint8_t *block_of(uint8_t *d, size_t n, uint32_t encoding) {
    size_t off = get32(d + 16);
    while (off + 24 <= n) {
        if (get32(d + off) == 5 && get32(d + off + 24) == encoding) return d + off + 24;
        off += 24 + (size_t)get64(d + off + 8);
    }
    return NULL;
}

/* A zstd-compressed block damaged behind a redone CRC: refused, naming the
 * offset of its frame (its magic damaged, a frame cut short and the file
 * closed up behind it, a length head that lies), or the offset of the
 * block's length for a claim past its slots. */
static void test_zstd_block_defects(void **state) {
    (void)state;
    if (!LUDUS_TEST_ZSTD) skip();
    size_t n;
    uint8_t *d = read_all(path_zstd, &n);
    uint8_t *block = block_of(d, n, 2);
    assert_non_null(block);
    size_t frame = (size_t)(block - d) + 24 + 8, flen = (size_t)get64(block - 24 + 8) - 24 - 8;
    char want[64];
    snprintf(want, sizeof want, "offset %zu: zstd-compressed block", frame);
    /* the frame's magic number damaged (a byte of its literals could decode to other valid
     * events: the record's CRC is what finds those, test_every_flip_detected) */
    uint8_t *dup = malloc(n);
    memcpy(dup, d, n);
    dup[frame + 1] ^= 0x5a;
    redo_crc(dup + (block - d) - 24);
    assert_int_equal(open_and_drain(dup, n), LUDUS_EFORMAT);
    if (!strstr(ludus_last_error_detail(), want)) fprintf(stderr, "flip: %s\n", ludus_last_error_detail());
    assert_non_null(strstr(ludus_last_error_detail(), want));
    /* the frame's last 3 bytes cut, the record shortened and the file closed up */
    memcpy(dup, d, n);
    size_t rec = (size_t)(block - d) - 24, end = frame + flen;
    memmove(dup + end - 3, dup + end, n - end);
    put32(dup + rec + 8, (uint32_t)(get64(d + rec + 8) - 3));
    redo_crc(dup + rec);
    assert_int_equal(open_and_drain(dup, n - 3), LUDUS_EFORMAT);
    if (!strstr(ludus_last_error_detail(), want)) fprintf(stderr, "cut: %s\n", ludus_last_error_detail());
    assert_non_null(strstr(ludus_last_error_detail(), want));
    /* the length head one byte off */
    memcpy(dup, d, n);
    put32(dup + frame - 8, get32(d + frame - 8) + 1);
    redo_crc(dup + rec);
    assert_int_equal(open_and_drain(dup, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), want));
    assert_non_null(strstr(ludus_last_error_detail(), "not the length its head gives"));
    /* a length no block of its slots could have */
    memcpy(dup, d, n);
    put32(dup + frame - 8, 1);
    redo_crc(dup + rec);
    assert_int_equal(open_and_drain(dup, n), LUDUS_EFORMAT);
    snprintf(want, sizeof want, "offset %zu: zstd-compressed block of", frame - 8);
    assert_non_null(strstr(ludus_last_error_detail(), want));
    /* 2^27 slots claimed by a frame of a few bytes: refused at open, before any allocation */
    memcpy(dup, d, n);
    put32(dup + (block - d) + 8, 1u << 27);
    put32(dup + (block - d) + 12, 0);
    redo_crc(dup + rec);
    assert_int_equal(open_and_drain(dup, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "data bytes"));
    free(dup);
    free(d);
}

/* A compressed file written by this library (tests/format/data, the
 * synthetic engine): a build with zstd reads it, equal to its uncompressed
 * re-save; a build without refuses it, naming the offset and why, and
 * never reads past it. */
static void test_zstd_file(void **state) {
    (void)state;
    char path[600];
    snprintf(path, sizeof path, "%s/zstd-blocks.ludus", LUDUS_TEST_DATA);
    ludus_capture *c = NULL;
    int rc = ludus_capture_open(path, &c);
    if (!LUDUS_TEST_ZSTD) {
        assert_int_equal(rc, LUDUS_EFORMAT);
        assert_null(c);
        const char *why = ludus_last_error_detail();
        if (!strstr(why, "built without zstd")) fprintf(stderr, "detail: %s\n", why);
        assert_non_null(strstr(why, "malformed input, offset "));
        assert_non_null(strstr(why, "built without zstd"));
        return;
    }
    assert_int_equal(rc, 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.compressed, 1);
    assert_int_equal(in.summary.events, 6120);
    membuf b = {0};
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_UNCOMPRESSED, mem_write, &b), 0);
    ludus_capture *u;
    assert_int_equal(ludus_capture_open_memory(b.data, b.len, &u), 0);
    assert_null(block_of((uint8_t *)b.data, b.len, 2));
    size_t n1, n2;
    char *j1 = json_of(c, &n1), *j2 = json_of(u, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(j1, j2, n1);
    free(j1);
    free(j2);
    ludus_capture_release(u);
    free(b.data);
    ludus_capture_release(c);
}

/* Version 3 only added event kinds: a version 2 file reads as before, and
 * one that holds a kind version 3 added is refused with both versions. */
static void test_version_2(void **state) {
    (void)state;
    size_t n;
    /* the raw file: a compact block's decoder would read a version 5 extension event as the
     * version 4 message of that kind value, and fail on its payload before any version check */
    uint8_t *d = read_all(path_raw, &n);
    put32(d + 8, 2);
    put32(d + 108, crc32c(0, d, 108));
    /* it holds frame statistics (version 3) and frame CPU times, extension events (13: a message in
     * version 4): refused for the first of them met, naming both versions */
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    const char *why = ludus_last_error_detail();
    assert_true(strstr(why, "which format version 3 added (the file is version 2)") ||
                strstr(why, "which format version 4 added (the file is version 2)"));
    free(d);
    /* a capture without frame marks has none: as a version 2 file it reads */
    assert_int_equal(ludus_capture_begin(NULL), 0);
    { LUDUS_PROFILE_SCOPE(NoFrames); }
    assert_int_equal(ludus_capture_end(NULL), 0);
    char v2[320];
    snprintf(v2, sizeof v2, "%s/v2.ludus", dir);
    assert_int_equal(save_last(v2, 0), 0);
    d = read_all(v2, &n);
    put32(d + 8, 2);
    put32(d + 108, crc32c(0, d, 108));
    assert_int_equal(open_and_drain(d, n), 0);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open_memory(d, n, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.version, 2);
    assert_int_equal(in.summary.events, 2);
    ludus_capture_release(c);
    free(d);
    unlink(v2);
}

/* Ends the capture and returns its raw .ludus file's bytes (the file is
 * removed). */
static uint8_t *ended_raw(const char *name, size_t *n) {
    assert_int_equal(ludus_capture_end(NULL), 0);
    char raw[320];
    snprintf(raw, sizeof raw, "%s/%s.ludus", dir, name);
    assert_int_equal(save_last(raw, LUDUS_SAVE_RAW), 0);
    uint8_t *d = read_all(raw, n);
    unlink(raw);
    return d;
}

/* The payload word of a message (version 5: the MESSAGE extension,
 * sub-kind | length << 8), written little-endian at p. */
static void put_word(uint8_t *p, uint64_t w) {
    put32(p, (uint32_t)w);
    put32(p + 4, (uint32_t)(w >> 32));
}

/* Messages: version 5 holds them as an extension event; a version 4 file
 * holds the older MESSAGE kind ({level, length}) and reads back as the same
 * messages; a version 3 file cannot hold one. A message whose length is past
 * the limit, or whose text runs past its block, is refused with its offset.
 * The text is found in a raw block by its bytes. */
static void test_messages(void **state) {
    (void)state;
    assert_int_equal(ludus_capture_begin(NULL), 0);
    ludus_log(LUDUS_LOG_ERROR, "needle-%s", "text");
    { LUDUS_PROFILE_SCOPE(After); }
    size_t n;
    uint8_t *d = ended_raw("msg", &n);
    assert_int_equal(open_and_drain(d, n), 0);
    uint8_t *text = memmem(d, n, "needle-text", 11);
    assert_non_null(text);
    uint8_t *block = first_block(d, n);
    /* version 4's layout of the same message: {level, length} */
    put_word(text - 8, 11);
    redo_crc(block - 24);
    put32(d + 8, 4);
    put32(d + 108, crc32c(0, d, 108));
    ludus_capture *c;
    assert_int_equal(ludus_capture_open_memory(d, n, &c), 0);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.events, 3); /* the message and the scope's begin and end */
    ludus_analysis_destroy(a);
    size_t jn;
    char *json = json_of(c, &jn);
    char *at = memmem(json, jn, "\"name\":\"needle-text\",\"cat\":\"log\"", 32);
    assert_non_null(at); /* the same message, with its level */
    assert_non_null(strstr(at, "\"level\":\"error\""));
    free(json);
    ludus_capture_release(c);
    assert_int_equal(open_and_drain(d, n), 0);
    put32(d + 8, 3);
    put32(d + 108, crc32c(0, d, 108));
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "which format version 4 added (the file is version 3)"));
    put32(d + 8, 5);
    put32(d + 108, crc32c(0, d, 108));
    put_word(text - 8, 1 | (UINT64_C(5000) << 8)); /* the payload slot: sub-kind MESSAGE, 5000 bytes */
    redo_crc(block - 24);
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "claims 5000 bytes of data"));
    put_word(text - 8, 1 | (UINT64_C(1000) << 8)); /* within the limit, past the block */
    redo_crc(block - 24);
    assert_int_equal(open_and_drain(d, n), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "data is cut by the end of the block"));
    free(d);
}

/* Files of format 4, written by the library before the extension kind
 * (tests/format/data, one compact, one raw): their messages (a literal, a
 * formatted one, a deferred LUDUS_PROFILE_LOG) read back as they were. */
static void test_format4_files(void **state) {
    (void)state;
    static const char *const files[] = {"v4-messages-compact.ludus", "v4-messages-raw.ludus"};
    for (size_t f = 0; f < 2; f++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", LUDUS_TEST_DATA, files[f]);
        ludus_capture *c;
        assert_int_equal(ludus_capture_open(path, &c), 0);
        ludus_capture_info in;
        assert_int_equal(ludus_capture_get_info(c, &in), 0);
        assert_int_equal(in.version, 4);
        size_t jn;
        char *json = json_of(c, &jn);
        static const char *const want[][2] = {
            {"literal warning", "warning"}, {"formatted 42 now", "error"}, {"deferred text 7", "info"}};
        for (size_t i = 0; i < 3; i++) {
            char needle[128];
            snprintf(needle, sizeof needle, "\"name\":\"%s\",\"cat\":\"log\"", want[i][0]);
            char *at = strstr(json, needle);
            assert_non_null(at);
            snprintf(needle, sizeof needle, "\"level\":\"%s\"", want[i][1]);
            char *end = strchr(at, '}');
            assert_non_null(end);
            assert_true(strstr(at, needle) && strstr(at, needle) < end);
        }
        assert_non_null(strstr(json, "\"name\":\"Outer\""));
        free(json);
        ludus_capture_release(c);
    }
}

/* The record (its head) holding byte at of a file. */
static uint8_t *record_at(uint8_t *d, size_t n, const uint8_t *at) {
    size_t off = get32(d + 16);
    while (off + 24 <= n) {
        size_t next = off + 24 + (size_t)get64(d + off + 8);
        if ((size_t)(at - d) >= off && (size_t)(at - d) < next) return d + off;
        off = next;
    }
    fail_msg("no record holds the byte");
    return NULL;
}

/* A raw file of today's recorder relabelled version 4: the frame marks'
 * CPU-time extensions (kind 13 with sub-kind 7, which version 4 cannot
 * hold: there 13 is MESSAGE {level, length}) become empty info messages. */
static void relabel_v4(uint8_t *d, size_t n) {
    size_t off = get32(d + 16);
    while (off + 24 <= n) {
        size_t len = (size_t)get64(d + off + 8);
        if (get32(d + off) == 5) { /* a block: its 24-byte head, then 16-byte slots */
            uint8_t *ev = d + off + 48;
            size_t slots = (len - 24) / 16;
            for (size_t i = 0; i + 1 < slots; i++)
                if ((get64(ev + 16 * i + 8) & 15) == 13 && get64(ev + 16 * (i + 1) + 8) == 7) {
                    put_word(ev + 16 * (i + 1), LUDUS_LOG_INFO);
                    put_word(ev + 16 * (i + 1) + 8, 0);
                    i++;
                }
            redo_crc(d + off);
        }
        off += 24 + len;
    }
    put32(d + 8, 4);
    put32(d + 108, crc32c(0, d, 108));
}

/* Older recorders (format 4, early 5) wrote a memory domain's live figures
 * below zero after a free of memory it never saw, and no "unknown" flag in
 * the manifest. Such a file (made here: a raw save set to version 4, one
 * domain's live bytes negative in one frame, another's at capture end) is
 * read with today's flags: the second domain is unknown (its live figures
 * dropped, churn kept), the negative value is no value, and no output shows
 * a negative live figure. (Old code: live min -4242, the domain not unknown.) */
static void test_format4_negative_memory(void **state) {
    (void)state;
    ludus_memory_domain fine = ludus_memory_domain_register("OldFine");
    ludus_memory_domain gone = ludus_memory_domain_register("OldGone");
    assert_int_equal(ludus_capture_begin(NULL), 0);
    LUDUS_PROFILE_FRAME();
    ludus_memory_alloc(fine, 4242);
    ludus_memory_alloc(gone, 4343);
    for (int f = 0; f < 4; f++) LUDUS_PROFILE_FRAME();
    size_t n;
    uint8_t *d = ended_raw("oldmem", &n);
    /* OldFine's live bytes in its first frame (a raw payload slot {value, stat 4}) as an old recorder's -4242 */
    uint8_t slot[16] = {0};
    put_word(slot, 4242);
    put_word(slot + 8, 4); /* LUDUS__STAT_MEM_LIVE */
    uint8_t *at = memmem(d, n, slot, sizeof slot);
    assert_non_null(at);
    put_word(at, (uint64_t)-4242);
    redo_crc(record_at(d, n, at));
    /* OldGone's manifest line: live bytes -434 at capture end (baseline 0, live, peak) */
    at = memmem(d, n, "\t0\t4343\t4343\t", 13);
    assert_non_null(at);
    memcpy(at + 3, "-434", 4);
    redo_crc(record_at(d, n, at));
    relabel_v4(d, n);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open_memory(d, n, &c), 0);
    ludus_capture_info in;
    assert_int_equal(ludus_capture_get_info(c, &in), 0);
    assert_int_equal(in.version, 4);
    int seen = 0;
    for (uint32_t i = 0; i < ludus_capture_memory_coverage_count(c); i++) {
        ludus_memory_coverage m;
        assert_int_equal(ludus_capture_memory_coverage(c, i, &m), 0);
        if (!strcmp(m.name, "OldGone")) seen |= 1, assert_true(m.unknown);
        if (!strcmp(m.name, "OldFine")) seen |= 2, assert_false(m.unknown);
    }
    assert_int_equal(seen, 3);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    for (uint32_t i = 0; i < ludus_analysis_counter_count(a); i++) {
        const ludus_counter_stats *x = ludus_analysis_counter(a, i);
        if (strncmp(x->name, "Memory/Old", 10)) continue;
        assert_true(x->values == 0 || x->min >= 0); /* no negative memory figure */
        int live = !strcmp(x->series, "live bytes") || !strcmp(x->series, "live allocations") ||
                   !strcmp(x->series, "peak live bytes");
        if (!strcmp(x->name, "Memory/OldGone") && live) assert_int_equal(x->values, 0);
    }
    int64_t k = ludus_analysis_find_counter(a, "Memory/OldFine", "live bytes");
    assert_true(k >= 0);
    const ludus_counter_stats *fl = ludus_analysis_counter(a, (uint32_t)k);
    assert_true(fl->values >= 1 && fl->min == 4242.0); /* the frames with a true value */
    k = ludus_analysis_find_counter(a, "Memory/OldGone", "bytes allocated");
    assert_true(k >= 0);
    assert_true(ludus_analysis_counter(a, (uint32_t)k)->total == 4343.0); /* churn stays */
    ludus_analysis_destroy(a);
    size_t jn;
    char *json = json_of(c, &jn);
    assert_null(memmem(json, jn, "-4242", 5));
    free(json);
    ludus_capture_release(c);
    free(d);
}

static void test_errors(void **state) {
    (void)state;
    char bad[320];
    /* I/O failure: a directory that does not exist; the capture is kept */
    snprintf(bad, sizeof bad, "%s/no/such/dir/x.ludus", dir);
    assert_int_equal(save_last(bad, 0), LUDUS_EIO);
    assert_non_null(strstr(ludus_last_error_detail(), "No such file or directory"));
    assert_int_equal(save_last(path_raw, 0), 0);
    assert_int_equal(save_last(path_raw, 0x80), LUDUS_EINVAL);
    assert_int_equal(save_last(NULL, 0), LUDUS_EINVAL);
    /* open errors */
    ludus_capture *c;
    assert_int_equal(ludus_capture_open(bad, &c), LUDUS_EIO);
    assert_int_equal(ludus_capture_open(path_raw, NULL), LUDUS_EINVAL);
    assert_int_equal(ludus_capture_open_memory(NULL, 10, &c), LUDUS_EINVAL);
    assert_int_equal(ludus_capture_open(dir, &c), LUDUS_EIO); /* a directory */
    ludus_capture_release(NULL);
    /* empty capture: ENODATA and the file is left untouched */
    char empty[320];
    snprintf(empty, sizeof empty, "%s/empty.ludus", dir);
    write_all(empty, (const uint8_t *)"keep", 4);
    assert_int_equal(ludus_capture_begin(NULL), 0);
    assert_int_equal(ludus_capture_end(NULL), 0);
    assert_int_equal(save_last(empty, 0), LUDUS_ENODATA);
    assert_int_equal(save_last_as(LUDUS_FORMAT_PFTRACE, empty, 0), LUDUS_ENODATA);
    size_t n;
    uint8_t *d = read_all(empty, &n);
    assert_int_equal(n, 4);
    assert_memory_equal(d, "keep", 4);
    free(d);
}

/* The index at the end of the file (END's appended fields): an open through
 * it reads the header, the tables and the summary and says what the full
 * open says, without reading a block (a damaged block goes unseen; report
 * and convert find it); its capture has no events (LUDUS_EUNSUPPORTED). A
 * file without the index (END of 16 bytes, as before it) is read whole; a
 * damaged index falls back to the full read, which names the damage; an
 * index whose tail points before the blocks is refused. (Old code: no
 * ludus_capture_open_index, and END held 16 bytes.) */
/* Ends the running capture, saves it (compact) as dir/name and returns
 * the file's bytes (the file removed). */
static uint8_t *end_and_read(const char *name, size_t *n) {
    assert_int_equal(ludus_capture_end(NULL), 0);
    char path[320];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    assert_int_equal(save_last(path, 0), 0);
    uint8_t *d = read_all(path, n);
    unlink(path);
    return d;
}

/* The last record of a tag (its head), or NULL. */
static uint8_t *record_of_tag(uint8_t *d, size_t n, uint32_t tag) {
    uint8_t *rec = NULL;
    for (size_t off = get32(d + 16); off + 24 <= n; off += 24 + (size_t)get64(d + off + 8))
        if (get32(d + off) == tag) rec = d + off;
    return rec;
}

static void *idle_worker(void *arg) {
    (void)arg;
    ludus_thread_register("No zones");
    for (int i = 0; i < 20; i++) {
        LUDUS_PROFILE_SCOPE(Idle);
    }
    return NULL;
}

/* The async zones an analysis of the file in d finds (-1: refused). */
static int64_t async_zones_of(const uint8_t *d, size_t n) {
    ludus_capture *c;
    if (ludus_capture_open_memory(d, n, &c) != 0) return -1;
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    int64_t zones = 0;
    for (uint32_t i = 0; i < ludus_analysis_async_count(a); i++) zones += (int64_t)ludus_analysis_async(a, i)->zones;
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    return zones;
}

/* A saved file's thread table says each thread's async begins and ends
 * (async_plus1, 0: not counted), so reading its zones decodes only the
 * threads that hold some: the count is taken as the file says it (as
 * every count), refused when its slots cannot hold it. Files before the
 * field (104-byte entries: test_format4_files) read it as not counted. */
static void test_async_count_in_thread_table(void **state) {
    (void)state;
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    assert_int_equal(ludus_capture_begin(&cd), 0);
    ludus_thread_register("Zones");
    uint32_t track = ludus_async_track("Loading"), load = ludus_site_intern("Load");
    for (uint64_t id = 1; id <= 3; id++) ludus_async_begin(track, id, load);
    for (uint64_t id = 1; id <= 3; id++) ludus_async_end(track, id);
    pthread_t t;
    pthread_create(&t, NULL, idle_worker, NULL);
    pthread_join(t, NULL);
    size_t n;
    uint8_t *d = end_and_read("async_count.ludus", &n);
    uint8_t *rec = record_of_tag(d, n, 4); /* THREADS */
    assert_non_null(rec);
    uint32_t es = get32(rec + 24), nthreads = get32(rec + 4);
    assert_int_equal(es, 112); /* 104 before the field */
    uint8_t *zones_at = NULL, *none_at = NULL;
    for (uint32_t i = 0, pos = 4; i < nthreads; i++) {
        uint8_t *e = rec + 24 + pos;
        uint32_t name_len = get32(e + 96);
        if (name_len == 5 && !memcmp(e + es, "Zones", 5)) zones_at = e + 104;
        if (name_len == 8 && !memcmp(e + es, "No zones", 8)) none_at = e + 104;
        pos += es + name_len;
    }
    assert_non_null(zones_at);
    assert_non_null(none_at);
    assert_int_equal(get64(zones_at), 6 + 1); /* three begins and three ends */
    assert_int_equal(get64(none_at), 0 + 1);
    assert_int_equal(async_zones_of(d, n), 3);
    /* the thread said to hold none is not read for zones */
    put_word(zones_at, 1);
    redo_crc(rec);
    assert_int_equal(async_zones_of(d, n), 0);
    /* not counted: read */
    put_word(zones_at, 0);
    redo_crc(rec);
    assert_int_equal(async_zones_of(d, n), 3);
    /* more than its slots hold: refused, said */
    put_word(zones_at, UINT64_C(1) << 40);
    redo_crc(rec);
    assert_int_equal(async_zones_of(d, n), -1);
    assert_non_null(strstr(ludus_last_error_detail(), "async events"));
    free(d);
}

/* ---- the frame thread's marks (the MARKS record, tag 12) ---- */

static size_t put_varint(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) p[n++] = (uint8_t)(v | 0x80), v >>= 7;
    p[n++] = (uint8_t)v;
    return n;
}

static uint64_t get_varint(const uint8_t **p) {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
    }
}

/* The file d with the record at rec (its head) replaced by one of the same
 * tag and aux holding payload (NULL: removed), twice when dup; *out_n its
 * size. */
static uint8_t *with_record(const uint8_t *d, size_t n, const uint8_t *rec, const uint8_t *payload, size_t len, int dup,
                            size_t *out_n) {
    size_t at = (size_t)(rec - d), old = 24 + (size_t)get64(rec + 8);
    size_t add = payload ? 24 + len : 0;
    uint8_t *o = malloc(n - old + add * (dup ? 2 : 1));
    memcpy(o, d, at);
    for (int k = 0; payload && k <= dup; k++) {
        uint8_t *h = o + at + (size_t)k * add;
        memcpy(h, rec, 16);
        put32(h + 8, (uint32_t)len);
        put32(h + 12, (uint32_t)((uint64_t)len >> 32));
        put32(h + 20, 0);
        memcpy(h + 24, payload, len);
        redo_crc(h);
    }
    size_t used = at + add * (dup ? 2 : 1);
    memcpy(o + used, d + at + old, n - at - old);
    *out_n = used + n - at - old;
    return o;
}

/* The JSON report of the file in d (NULL when it is refused). */
static char *report_of(const uint8_t *d, size_t n) {
    ludus_capture *c;
    if (ludus_capture_open_memory(d, n, &c) != 0) return NULL;
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    membuf b = {0};
    assert_int_equal(ludus_analysis_report(a, NULL, LUDUS_REPORT_JSON, NULL, mem_write, &b), 0);
    mem_write(&b, "", 1);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    return b.data;
}

/* A saved file holds its frame thread's marks after the blocks (tag 12:
 * count, then zigzag deltas of time and CPU time), so the analysis of the
 * file takes its frames without a pass over that thread: the report is the
 * same with the record as without it (a file before it: a pass), and one
 * that moves the marks moves the frames (the record is what is read). A
 * record that disagrees with the thread table, lies outside the capture,
 * runs past its marks or comes twice is refused, naming the problem. */
static void test_frame_marks_record(void **state) {
    (void)state;
    assert_int_equal(ludus_capture_begin(NULL), 0);
    pthread_t t;
    pthread_create(&t, NULL, idle_worker, NULL); /* a thread without marks: index 1 or 0 */
    pthread_join(t, NULL);
    ludus_thread_register("Frames");
    for (int f = 0; f < 30; f++) {
        LUDUS_PROFILE_SCOPE(Step);
        for (volatile int k = 0; k < 1000 * (f % 3 + 1); k++) {
        }
        LUDUS_PROFILE_FRAME();
    }
    size_t n;
    uint8_t *d = end_and_read("marks.ludus", &n);
    uint8_t *rec = record_of_tag(d, n, 12); /* MARKS */
    assert_non_null(rec);
    assert_int_equal(get64(rec + 24), 30);
    /* the marks as written, decoded */
    int64_t ns[30], cpu[30], at_ns = 0, at_cpu = 0;
    const uint8_t *q = rec + 32;
    for (int i = 0; i < 30; i++) {
        uint64_t a = get_varint(&q), b = get_varint(&q);
        at_ns += (int64_t)(a >> 1) ^ -(int64_t)(a & 1);
        at_cpu += (int64_t)(b >> 1) ^ -(int64_t)(b & 1);
        ns[i] = at_ns, cpu[i] = at_cpu;
        if (i) assert_true(ns[i] > ns[i - 1]);
        assert_true(cpu[i] >= -1);
    }
    assert_int_equal((size_t)(q - rec - 24), (size_t)get64(rec + 8));

    char *with = report_of(d, n);
    size_t sn;
    uint8_t *stripped = with_record(d, n, rec, NULL, 0, 0, &sn);
    char *without = report_of(stripped, sn);
    assert_non_null(with);
    assert_non_null(without);
    assert_string_equal(with, without);
    ludus_capture *c;
    assert_int_equal(ludus_capture_open_memory(d, n, &c), 0);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    ludus_frame_info fi;
    assert_int_equal(ludus_analysis_frame(a, 5, &fi), 0);
    assert_int_equal(fi.begin_ns, ns[4]);
    assert_int_equal(fi.end_ns, ns[5]);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);

    /* re-encoded with every mark 1 us later: the frames follow the record */
    uint8_t pay[8 + 30 * 20];
    size_t len = 8;
    memcpy(pay, rec + 24, 8);
    for (int i = 0; i < 30; i++) {
        int64_t dn = ns[i] + (i == 0 ? 1000 : 0) - (i ? ns[i - 1] : 0), dc = cpu[i] - (i ? cpu[i - 1] : 0);
        len += put_varint(pay + len, ((uint64_t)dn << 1) ^ (uint64_t)(dn >> 63));
        len += put_varint(pay + len, ((uint64_t)dc << 1) ^ (uint64_t)(dc >> 63));
    }
    size_t mn;
    uint8_t *moved = with_record(d, n, rec, pay, len, 0, &mn);
    assert_int_equal(ludus_capture_open_memory(moved, mn, &c), 0);
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    assert_int_equal(ludus_analysis_frame(a, 5, &fi), 0);
    assert_int_equal(fi.begin_ns, ns[4] + 1000);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    free(moved);

    /* refused: a count the thread table does not say; a mark far outside the capture; a byte after the
     * last mark; the record twice */
    struct {
        int64_t first_delta;
        uint64_t count;
        int extra, dup;
        const char *says;
    } bad[] = {
        {0, 31, 0, 0, "the thread table"},
        {INT64_C(1) << 50, 30, 0, 0, "lies outside the capture"},
        {0, 30, 1, 0, "bytes after the last frame mark"},
        {0, 30, 0, 1, "a second frame mark record"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        uint8_t pb[8 + 30 * 20 + 1];
        memcpy(pb, pay, len);
        size_t pl = 8;
        put32(pb, (uint32_t)bad[k].count);
        put32(pb + 4, 0);
        for (int i = 0; i < 30; i++) {
            int64_t dn = ns[i] + (i == 0 ? bad[k].first_delta : 0) - (i ? ns[i - 1] : 0),
                    dc = cpu[i] - (i ? cpu[i - 1] : 0);
            pl += put_varint(pb + pl, ((uint64_t)dn << 1) ^ (uint64_t)(dn >> 63));
            pl += put_varint(pb + pl, ((uint64_t)dc << 1) ^ (uint64_t)(dc >> 63));
        }
        if (bad[k].extra) pb[pl++] = 0;
        size_t bn;
        uint8_t *bd = with_record(d, n, rec, pb, pl, bad[k].dup, &bn);
        assert_int_equal(ludus_capture_open_memory(bd, bn, &c), LUDUS_EFORMAT);
        if (!strstr(ludus_last_error_detail(), bad[k].says))
            fail_msg("case %zu: \"%s\" does not say \"%s\"", k, ludus_last_error_detail(), bad[k].says);
        free(bd);
    }
    free(with);
    free(without);
    free(stripped);
    free(d);
}

/* ---- a streamed file's frame marks (MARK_RUN records, tag 13) ---- */

static void *marking_worker(void *arg) {
    (void)arg;
    ludus_thread_register("Few marks");
    for (int f = 0; f < 3; f++) {
        LUDUS_PROFILE_SCOPE(Side);
        LUDUS_PROFILE_FRAME();
    }
    return NULL;
}

/* d without its records of a tag; *out_n its size. */
static uint8_t *without_tag(const uint8_t *d, size_t n, uint32_t tag, size_t *out_n) {
    uint8_t *o = malloc(n);
    size_t at = get32(d + 16);
    memcpy(o, d, at);
    for (size_t off = at; off + 24 <= n; off += 24 + (size_t)get64(d + off + 8)) {
        size_t len = 24 + (size_t)get64(d + off + 8);
        if (get32(d + off) == tag) continue;
        memcpy(o + at, d + off, len);
        at += len;
    }
    *out_n = at;
    return o;
}

/* The frames of an analysis of the file in d: begin, end and CPU time. */
static int64_t *frames_of(const uint8_t *d, size_t n, uint64_t *nf) {
    ludus_capture *c;
    assert_int_equal(ludus_capture_open_memory(d, n, &c), 0);
    ludus_analysis *a;
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    *nf = ludus_analysis_frame_count(a);
    int64_t *v = malloc((*nf + 1) * 3 * sizeof *v);
    for (uint64_t f = 0; f < *nf; f++) {
        ludus_frame_info fi;
        assert_int_equal(ludus_analysis_frame(a, f, &fi), 0);
        v[3 * f] = fi.begin_ns, v[3 * f + 1] = fi.end_ns, v[3 * f + 2] = fi.cpu_ns;
    }
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    return v;
}

/* A streamed file holds each block's frame marks in the record after it
 * (tag 13: a count, then the change of each delta of ticks and CPU time),
 * so reading it takes the frame thread's frames without a second pass over
 * that thread: the frames and the report are the same with the records as
 * without them (the pass), over several records and a second thread with
 * marks of its own. A record cut short, with a byte after its marks, with a
 * mark outside the capture or of a thread the file has not defined is
 * refused, naming it; one that claims more marks than the thread has is not
 * the thread's: its frames come from the pass. */
static void test_streamed_frame_marks(void **state) {
    (void)state;
    char path[320];
    snprintf(path, sizeof path, "%s/streamed-marks.ludus", dir);
    ludus_capture_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.chunk_bytes = 4096; /* small pieces: a block (and its marks) every few dozen frames */
    desc.chunk_count = 256;  /* room for every event: nothing dropped while the writer writes */
    desc.stream_path = path;
    assert_int_equal(ludus_capture_begin(&desc), 0);
    pthread_t t;
    pthread_create(&t, NULL, marking_worker, NULL);
    pthread_join(t, NULL);
    ludus_thread_register("Frames");
    for (int f = 0; f < 400; f++) {
        LUDUS_PROFILE_SCOPE(Step);
        for (volatile int k = 0; k < 200 * (f % 3 + 1); k++) {
        }
        LUDUS_PROFILE_FRAME();
    }
    assert_int_equal(ludus_capture_end(NULL), 0);
    size_t n;
    uint8_t *d = read_all(path, &n);
    unlink(path);
    /* the records: per thread, their counts add up to its marks */
    uint64_t marks[2] = {0, 0};
    unsigned records[2] = {0, 0};
    uint8_t *first = NULL; /* the frame thread's first record */
    for (size_t off = get32(d + 16); off + 24 <= n; off += 24 + (size_t)get64(d + off + 8)) {
        if (get32(d + off) != 13) continue;
        uint32_t aux = get32(d + off + 4);
        assert_true(aux < 2);
        const uint8_t *q = d + off + 24;
        marks[aux] += get_varint(&q);
        records[aux]++;
    }
    uint32_t ft = marks[0] == 400 ? 0 : 1;
    lt_check_u64("marks in the frame thread's MARK_RUN records", 400, marks[ft]);
    lt_check_u64("marks in the other thread's MARK_RUN records", 3, marks[!ft]);
    lt_check(lt_what("the frame thread's marks in %u records (several blocks)", records[ft]), records[ft] >= 3);
    for (size_t off = get32(d + 16); off + 24 <= n && !first; off += 24 + (size_t)get64(d + off + 8))
        if (get32(d + off) == 13 && get32(d + off + 4) == ft) first = d + off;

    size_t sn;
    uint8_t *stripped = without_tag(d, n, 13, &sn);
    assert_true(sn < n);
    uint64_t nf_with, nf_without;
    int64_t *with = frames_of(d, n, &nf_with), *without = frames_of(stripped, sn, &nf_without);
    lt_check_u64("frames of the streamed file", 401, nf_with); /* the lead-in, 399 frames, the tail */
    lt_check_u64("frames without its MARK_RUN records", nf_with, nf_without);
    int cpu_known = 0;
    for (uint64_t f = 0; f < nf_with * 3; f++) {
        if (with[f] != without[f])
            fail_msg("frame %llu field %llu: %lld with the records, %lld without", (unsigned long long)(f / 3),
                     (unsigned long long)(f % 3), (long long)with[f], (long long)without[f]);
        cpu_known |= f % 3 == 2 && with[f] > 0;
    }
    lt_check("frames with a CPU time (the marks' second value read)", cpu_known);
    char *rw = report_of(d, n), *rs = report_of(stripped, sn);
    assert_non_null(rw);
    assert_non_null(rs);
    assert_string_equal(rw, rs);

    /* the first record rewritten: its payload as written, then broken */
    const uint8_t *q = first + 24, *end = first + 24 + get64(first + 8);
    uint64_t count = get_varint(&q);
    const uint8_t *marks_at = q;
    get_varint(&q);
    get_varint(&q);
    size_t one_mark = (size_t)(q - marks_at), rest = (size_t)(end - marks_at);
    uint8_t pb[4096];
    assert_true(rest + 32 < sizeof pb);
    struct {
        const char *what, *says; /* says NULL: read, its frames from the pass */
    } cases[] = {
        {"cut short", "is cut short or malformed"}, {"a byte after", "bytes after the last frame mark"},
        {"outside", "lies outside the capture"},    {"another thread", "frame marks of thread"},
        {"more than the thread has", NULL},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        size_t pl = 0;
        if (k == 0) { /* two marks announced, one there */
            pl = put_varint(pb, 2);
            memcpy(pb + pl, marks_at, one_mark), pl += one_mark;
        } else if (k == 2) { /* a first mark at tick 2^60 */
            pl = put_varint(pb, 1);
            pl += put_varint(pb + pl, (uint64_t)1 << 61);
            pl += put_varint(pb + pl, 0);
        } else {
            pl = put_varint(pb, k == 4 ? count + 1000 : count);
            memcpy(pb + pl, marks_at, rest), pl += rest;
            if (k == 1) pb[pl++] = 0;
        }
        size_t bn;
        uint8_t *bd = with_record(d, n, first, pb, pl, 0, &bn);
        if (k == 3) { /* the same record naming thread 7 */
            uint8_t *rec = bd + (first - d);
            put32(rec + 4, 7);
            redo_crc(rec);
        }
        ludus_capture *c;
        int rc = ludus_capture_open_memory(bd, bn, &c);
        if (!cases[k].says) {
            if (rc) fail_msg("%s: refused: %s", cases[k].what, ludus_last_error_detail());
            ludus_capture_release(c);
            char *r = report_of(bd, bn);
            assert_non_null(r);
            assert_string_equal(r, rs);
            free(r);
        } else {
            assert_int_equal(rc, LUDUS_EFORMAT);
            if (!strstr(ludus_last_error_detail(), cases[k].says))
                fail_msg("%s: \"%s\" does not say \"%s\"", cases[k].what, ludus_last_error_detail(), cases[k].says);
        }
        free(bd);
    }
    free(rw);
    free(rs);
    free(with);
    free(without);
    free(stripped);
    free(d);
}

static void check_same_info(const ludus_capture_info *a, const ludus_capture_info *b) {
    assert_int_equal(a->version, b->version);
    assert_int_equal(a->blocks, b->blocks);
    assert_int_equal(a->slots, b->slots);
    assert_int_equal(a->compact, b->compact);
    assert_int_equal(a->compressed, b->compressed); /* the index's flag 2 */
    assert_int_equal(a->sites, b->sites);
    assert_int_equal(a->threads, b->threads);
    assert_int_equal(a->start_ns, b->start_ns);
    assert_int_equal(a->end_ns, b->end_ns);
    assert_int_equal(a->summary.events, b->summary.events);
    assert_int_equal(a->summary.dropped, b->summary.dropped);
    assert_int_equal(a->has_summary, b->has_summary);
    assert_int_equal(a->summary_frame_marks, b->summary_frame_marks);
    assert_string_equal(a->process_name, b->process_name);
}

static void test_index_open(void **state) {
    (void)state;
    char path[320];
    snprintf(path, sizeof path, "%s/index.ludus", dir);
    assert_int_equal(save_last(path, 0), 0);
    size_t n;
    uint8_t *d = read_all(path, &n);
    /* the index: END's payload ends with its length (40) and "LUDUSEND" */
    assert_memory_equal(d + n - 8, "LUDUSEND", 8);
    assert_int_equal(get32(d + n - 12), 40);
    uint8_t *end = d + n - 24 - 40;
    assert_int_equal(get32(end), 6);
    ludus_capture *full, *ix;
    assert_int_equal(ludus_capture_open(path, &full), 0);
    assert_int_equal(ludus_capture_open_index(path, &ix), 0);
    ludus_capture_info fi, ii;
    assert_int_equal(ludus_capture_get_info(full, &fi), 0);
    assert_int_equal(ludus_capture_get_info(ix, &ii), 0);
    assert_false(fi.index_only);
    assert_true(ii.index_only);
    assert_true(ii.has_summary);
    check_same_info(&fi, &ii);
    for (uint32_t t = 0; t < fi.threads; t++) {
        ludus_thread_summary a, b;
        assert_int_equal(ludus_capture_thread(full, t, &a), 0);
        assert_int_equal(ludus_capture_thread(ix, t, &b), 0);
        assert_string_equal(a.name, b.name);
        assert_int_equal(a.events, b.events);
        assert_int_equal(a.tid, b.tid);
    }
    membuf b = {0};
    assert_int_equal(ludus_capture_write(ix, LUDUS_FORMAT_JSON, 0, mem_write, &b), LUDUS_EUNSUPPORTED);
    assert_non_null(strstr(ludus_last_error_detail(), "ludus_capture_open_index"));
    free(b.data);
    ludus_capture_release(ix);

    /* a damaged block: the index open does not read it, the full one names it */
    char other[340];
    snprintf(other, sizeof other, "%s/index-other.ludus", dir);
    uint8_t *blk = first_block(d, n);
    blk[40] ^= 0x5a;
    write_all(other, d, n);
    assert_int_equal(ludus_capture_open_index(other, &ix), 0);
    ludus_capture_release(ix);
    assert_int_equal(ludus_capture_open(other, &ix), LUDUS_EFORMAT);
    blk[40] ^= 0x5a;

    /* a damaged index: the full read, which names the END record's checksum */
    end[24 + 16] ^= 1; /* tail */
    write_all(other, d, n);
    assert_int_equal(ludus_capture_open_index(other, &ix), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "checksum mismatch in a record of tag 6"));
    /* ... its checksum redone around a tail before the blocks: refused */
    end[24 + 16] ^= 1;
    end[24 + 16] = 112, end[24 + 17] = 0, end[24 + 18] = 0, end[24 + 19] = 0;
    redo_crc(end);
    write_all(other, d, n);
    assert_int_equal(ludus_capture_open_index(other, &ix), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "before the blocks"));

    /* every byte of the END record flipped: named, never read as an index (the full read's END check) */
    for (size_t k = n - 64; k < n; k++) {
        end[k - (n - 64)] ^= 0x01;
        write_all(other, d, n);
        end[k - (n - 64)] ^= 0x01;
        assert_int_equal(ludus_capture_open_index(other, &ix), LUDUS_EFORMAT);
    }
    /* ... a tail forged onto the last block, checksum redone: a block after the tail, refused */
    size_t last_block = 0;
    for (size_t off = get32(d + 16); off + 24 <= n; off += 24 + (size_t)get64(d + off + 8))
        if (get32(d + off) == 5) last_block = off;
    assert_true(last_block > 0);
    uint8_t saved[4];
    memcpy(saved, end + 24 + 16, 4);
    put32(end + 24 + 16, (uint32_t)last_block);
    redo_crc(end);
    write_all(other, d, n);
    assert_int_equal(ludus_capture_open_index(other, &ix), LUDUS_EFORMAT);
    assert_non_null(strstr(ludus_last_error_detail(), "after the index's tail"));
    memcpy(end + 24 + 16, saved, 4);
    redo_crc(end);

    /* END as files before the index had it (16 bytes): read whole */
    uint8_t *old = read_all(path, &n);
    end = old + n - 24 - 40;
    end[8] = 16;
    redo_crc(end);
    write_all(other, old, n - 24);
    assert_int_equal(ludus_capture_open_index(other, &ix), 0);
    assert_int_equal(ludus_capture_get_info(ix, &ii), 0);
    assert_false(ii.index_only);
    check_same_info(&fi, &ii);
    size_t jn;
    free(json_of(ix, &jn)); /* a complete capture */
    ludus_capture_release(ix);
    ludus_capture_release(full);
    free(old);
    free(d);
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/ludus-format-%d", (int)getpid());
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    if (system(cmd) != 0) return 1;
    snprintf(path_compact, sizeof path_compact, "%s/compact.ludus", dir);
    snprintf(path_raw, sizeof path_raw, "%s/raw.ludus", dir);
    snprintf(path_zstd, sizeof path_zstd, "%s/zstd.ludus", dir);
    record_capture();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated_every_offset),
        cmocka_unit_test(test_every_flip_detected),
        cmocka_unit_test(test_corrupted_fields),
        cmocka_unit_test(test_forged_tick_refused),
        cmocka_unit_test(test_block_claim_bounded_by_bytes),
        cmocka_unit_test(test_zstd_block_defects),
        cmocka_unit_test(test_zstd_file),
        cmocka_unit_test(test_version_2),
        cmocka_unit_test(test_messages),
        cmocka_unit_test(test_format4_files),
        cmocka_unit_test(test_format4_negative_memory),
        cmocka_unit_test(test_index_open),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_async_count_in_thread_table),
        cmocka_unit_test(test_frame_marks_record),
        cmocka_unit_test(test_streamed_frame_marks),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0) return 1;
    return rc;
}
