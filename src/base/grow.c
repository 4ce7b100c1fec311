/* The one grow-array step (grow.h). The array's pointer and capacity are
 * reached through their addresses and copied bytewise, so one function
 * serves every element type and the three capacity types. */
#include "grow.h"

#include <stdint.h>
#include <string.h>

#include "../platform/alloc.h"

int ludus__grow(void *p_addr, void *cap_addr, size_t cap_size, size_t n, size_t elem, size_t first) {
    uint64_t cap = 0, limit = cap_size == sizeof(uint32_t) ? UINT32_MAX : UINT64_MAX;
    if (cap_size == sizeof(uint32_t)) {
        uint32_t c32;
        memcpy(&c32, cap_addr, sizeof c32);
        cap = c32;
    } else {
        memcpy(&cap, cap_addr, sizeof cap);
    }
    if (n < cap) return 0;
    uint64_t want = cap ? cap : (first ? first : 1);
    while (want <= n) {
        if (want > limit / 2) return -1;
        want *= 2;
    }
    if (want > limit || want > SIZE_MAX / elem) return -1;
    void *old;
    memcpy(&old, p_addr, sizeof old);
    void *grown = ludus__realloc(old, (size_t)want * elem);
    if (!grown) return -1;
    memcpy(p_addr, &grown, sizeof grown);
    if (cap_size == sizeof(uint32_t)) {
        uint32_t c32 = (uint32_t)want;
        memcpy(cap_addr, &c32, sizeof c32);
    } else {
        memcpy(cap_addr, &want, sizeof want);
    }
    return 0;
}
