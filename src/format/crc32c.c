/* CRC-32C (Castagnoli), the checksum of every record of a .ludus file: the
 * SSE 4.2 crc32 instruction where the CPU has it (8 bytes a step, about 3
 * bytes a cycle), else tables eight bytes at a time. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../platform/platform.h"
#include "../platform/sync.h"
#include "file_format.h"

/* Set once, read after: the tables and whether the CPU has the instruction. */
static struct {
    uint32_t table[8][256];
    ludus__once table_once;
    int hw_state; /* atomic: 0 unknown, 1 yes, 2 no */
} crc32c_state = {.table_once = LUDUS__ONCE_INIT};

static void make_tables(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1)));
        crc32c_state.table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            crc32c_state.table[t][i] =
                (crc32c_state.table[t - 1][i] >> 8) ^ crc32c_state.table[0][crc32c_state.table[t - 1][i] & 0xff];
}

static uint32_t crc_soft(uint32_t c, const unsigned char *p, size_t n) {
    ludus__once_run(&crc32c_state.table_once, make_tables);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= c;
        c = crc32c_state.table[7][w & 0xff] ^ crc32c_state.table[6][(w >> 8) & 0xff] ^
            crc32c_state.table[5][(w >> 16) & 0xff] ^ crc32c_state.table[4][(w >> 24) & 0xff] ^
            crc32c_state.table[3][(w >> 32) & 0xff] ^ crc32c_state.table[2][(w >> 40) & 0xff] ^
            crc32c_state.table[1][(w >> 48) & 0xff] ^ crc32c_state.table[0][w >> 56];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ crc32c_state.table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t c, const unsigned char *p, size_t n) {
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        c64 = __builtin_ia32_crc32di(c64, w);
        p += 8;
        n -= 8;
    }
    c = (uint32_t)c64;
    while (n--) c = __builtin_ia32_crc32qi(c, *p++);
    return c;
}

static int have_hw(void) {
    int s = __atomic_load_n(&crc32c_state.hw_state, __ATOMIC_RELAXED);
    if (!s) {
        s = ludus__cpu_has_sse42() ? 1 : 2;
        __atomic_store_n(&crc32c_state.hw_state, s, __ATOMIC_RELAXED);
    }
    return s == 1;
}
#endif

uint32_t ludus__crc32c(uint32_t crc, const void *data, size_t n) {
    uint32_t c = ~crc;
#if defined(__x86_64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (have_hw()) return ~crc_hw(c, data, n);
#endif
    return ~crc_soft(c, data, n);
}
