/* zstd-compressed compact blocks (docs/format.md "Compressed blocks"): a
 * compact block's bytes as one zstd frame at level 1, after their length.
 * Built with LUDUS_ZSTD (LUDUS_HAVE_ZSTD, Debian's libzstd); without it
 * nothing is compressed and a compressed block is refused by name, so the
 * compact path is always there. The writers (native_writer.c, stream.c)
 * and the reader (file_reader.c) call only this file. */
#include "file_format.h"

#ifdef LUDUS_HAVE_ZSTD
#define ZSTD_STATIC_LINKING_ONLY /* ZSTD_customMem: zstd allocates through the library's allocator */
#include <zstd.h>
#include <zstd_errors.h>

#include "../platform/alloc.h"

static void *zalloc(void *opaque, size_t n) {
    (void)opaque;
    return ludus__malloc(n);
}
static void zfree(void *opaque, void *p) {
    (void)opaque;
    ludus__free(p);
}
/* zstd's memory comes from ludus__malloc: the allocation hooks and the
 * fault injector see it as every other allocation of the library. */
static const ZSTD_customMem mem = {zalloc, zfree, NULL};

/* Level 1: the synthetic engine's blocks compress 7.3x at level 1 and
 * 7.4x at level 3 (bench/RESULTS.md), and the writer's cost is per event. */
#define LEVEL 1

int ludus__zstd_built(void) {
    return 1;
}

size_t ludus__zstd_block(ludus__zstd **z, const uint8_t *compact, size_t len, size_t slots, uint8_t *out) {
    if (!*z) *z = (ludus__zstd *)ZSTD_createCCtx_advanced(mem);
    if (!*z) return LUDUS__ZSTD_NOMEM;
    size_t cap = LUDUS__NF_ZSTD_BOUND(len);
    size_t k = ZSTD_compressCCtx((ZSTD_CCtx *)*z, out + LUDUS__NF_ZSTD_HEAD, cap, compact, len, LEVEL);
    if (ZSTD_isError(k)) return ZSTD_getErrorCode(k) == ZSTD_error_memory_allocation ? LUDUS__ZSTD_NOMEM : 0;
    /* no bytes saved, or a frame too small for the reader's bound on its slots: compact */
    if (LUDUS__NF_ZSTD_HEAD + k >= len || slots > (uint64_t)k * LUDUS__NF_ZSTD_MAX_SLOTS_PER_BYTE) return 0;
    ludus__nf_put_U64(out, len);
    return LUDUS__NF_ZSTD_HEAD + k;
}

void ludus__zstd_free(ludus__zstd *z) {
    ZSTD_freeCCtx((ZSTD_CCtx *)z);
}

int ludus__zstd_unblock(const uint8_t *in, size_t n, uint8_t *out, size_t want, const char **why) {
    unsigned long long size = ZSTD_getFrameContentSize(in, n);
    if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN) {
        *why = "not a zstd frame with its size";
        return -1;
    }
    if (size != want) {
        *why = "the zstd frame's size is not the length its head gives";
        return -1;
    }
    if (ZSTD_findFrameCompressedSize(in, n) != n) {
        *why = "the zstd frame does not end where the block ends";
        return -1;
    }
    ZSTD_DCtx *dc = ZSTD_createDCtx_advanced(mem);
    if (!dc) {
        *why = "out of memory";
        return -2;
    }
    size_t k = ZSTD_decompressDCtx(dc, out, want, in, n);
    ZSTD_freeDCtx(dc);
    if (ZSTD_isError(k)) {
        *why = ZSTD_getErrorName(k);
        return -1;
    }
    if (k != want) {
        *why = "the zstd frame holds fewer bytes than its head gives";
        return -1;
    }
    return 0;
}

#else /* built without zstd: blocks stay compact, a compressed one is refused */

int ludus__zstd_built(void) {
    return 0;
}

size_t ludus__zstd_block(ludus__zstd **z, const uint8_t *compact, size_t len, size_t slots, uint8_t *out) {
    (void)z, (void)compact, (void)len, (void)slots, (void)out;
    return 0;
}

void ludus__zstd_free(ludus__zstd *z) {
    (void)z;
}

int ludus__zstd_unblock(const uint8_t *in, size_t n, uint8_t *out, size_t want, const char **why) {
    (void)in, (void)n, (void)out, (void)want;
    *why = "built without zstd";
    return -1;
}

#endif
