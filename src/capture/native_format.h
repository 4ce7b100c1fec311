/* The native capture file (.ludus) as both sides see it: record tags, sizes
 * and little-endian field helpers shared by the writer (src/export/
 * native_writer.c) and the reader (capture_file.c). docs/format.md is the
 * specification; keep the two in step. */
#ifndef LUDUS_NATIVE_FORMAT_H
#define LUDUS_NATIVE_FORMAT_H

#include <ludus/capture_file.h>
#include <string.h>

#include "capture_internal.h"

#define LUDUS__NF_MAGIC "LUDUSCAP"
#define LUDUS__NF_VERSION 1u
#define LUDUS__NF_BOM 0x01020304u /* written little-endian: 04 03 02 01 */
#define LUDUS__NF_HEADER_BYTES 112u
#define LUDUS__NF_REC_BYTES 16u    /* u32 tag, u32 aux, u64 payload length */
#define LUDUS__NF_BLOCK_HEAD 16u   /* u32 encoding, u32 reserved, u64 slots */
#define LUDUS__NF_SITE_BYTES 36u   /* fixed part of a site entry */
#define LUDUS__NF_THREAD_BYTES 64u /* fixed part of a thread entry */
#define LUDUS__NF_STATS_BYTES 80u

enum {
    LUDUS__NF_META = 1,
    LUDUS__NF_STATS = 2,
    LUDUS__NF_SITES = 3,
    LUDUS__NF_THREADS = 4,
    LUDUS__NF_BLOCK = 5,
    LUDUS__NF_END = 6
};
enum { LUDUS__NF_RAW = 0, LUDUS__NF_COMPACT = 1 };

/* Reader limits: a file past them is refused (LUDUS_EFORMAT), so a hostile
 * file cannot make the reader allocate without bound. */
#define LUDUS__NF_MAX_THREADS 65536u
#define LUDUS__NF_MAX_SITES (1u << 22)
#define LUDUS__NF_MAX_TABLE_BYTES (256u << 20)
#define LUDUS__NF_MAX_BLOCK_SLOTS (1u << 27) /* the largest chunk (2 GiB) */
#define LUDUS__NF_MAX_STRING 4096u

static inline void ludus__put_u32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline void ludus__put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}
static inline uint32_t ludus__get_u32(const uint8_t *p) {
    uint32_t v = 0;
    for (int i = 3; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}
static inline uint64_t ludus__get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

/* Kinds whose word is a site address (compact encoding names them by index). */
static inline int ludus__nf_site_kind(unsigned k) {
    return k == LUDUS__K_BEGIN || k == LUDUS__K_INSTANT || k == LUDUS__K_FRAME || k == LUDUS__K_COUNTER ||
           k == LUDUS__K_COUNTER_F64;
}

/* The capture an opened file exposes to the exporters and the analysis. */
LUDUS_HIDDEN ludus__captured *ludus__capture_file_view(ludus_capture_file *f);
/* A view of the file restricted to some threads (keep[i] != 0) and, when
 * cut, to [from_ns, to_ns] since capture start. The view borrows the file's
 * tables; free it with ludus__capture_view_free before closing the file. */
LUDUS_HIDDEN int ludus__capture_file_subview(ludus_capture_file *f, const unsigned char *keep, int cut, int64_t from_ns,
                                             int64_t to_ns, ludus__captured **out);
LUDUS_HIDDEN void ludus__capture_view_free(ludus__captured *v);
/* The LUDUS_E* code and detail of the file's first load error (0 if none). */
LUDUS_HIDDEN int ludus__capture_file_error(const ludus_capture_file *f);

#endif
