/* Compact event blocks (docs/format.md "Compact blocks"), encoded and
 * decoded by the kind table: per event a tag byte (kind, and a small site
 * index), the tick delta as a zigzag varint, then what the kind's word and
 * payload columns say it carries. Ends store the distance back to their
 * begin in slots, so a typical scope costs 4-6 bytes. */
#include <string.h>

#include "file_format.h"

static uint8_t *put_site(const ludus_capture *c, uint8_t *p, uintptr_t key, unsigned *s) {
    uint32_t idx = key ? ludus__site_index(c, key) : UINT32_MAX;
    if (idx == UINT32_MAX) { /* no site (or none in the table: written as none) */
        *s = 0;
        return p;
    }
    if (idx < 14) {
        *s = idx + 1;
        return p;
    }
    *s = 15;
    return ludus__varint_put(p, idx);
}

size_t ludus__compact_encode(const ludus_capture *c, const ludus__event *ev, size_t n, uintptr_t base, uint8_t *out) {
    uint8_t *p = out;
    uint64_t prev = 0;
    for (size_t i = 0; i < n; i++) {
        const ludus__event *e = &ev[i];
        unsigned k = (unsigned)(e->word & LUDUS__K_MASK);
        const ludus__kind_info *ki = &ludus__kinds[k];
        uintptr_t addr = base + i * sizeof(ludus__event);
        uint8_t *tag = p++;
        unsigned s = 0;
        p = ludus__varint_put(p, ludus__zigzag((int64_t)(e->ticks - prev)));
        prev = e->ticks;
        if (ki->word == LUDUS__W_SITE || ki->word == LUDUS__W_SITE0)
            p = put_site(c, p, e->word & ~(uintptr_t)LUDUS__K_MASK, &s);
        else if (ki->word == LUDUS__W_REF)
            p = ludus__varint_put(p, ludus__zigzag((int64_t)(addr - (e->word & ~(uintptr_t)LUDUS__K_MASK)) >> 4));
        *tag = (uint8_t)(k | (s << 4));
        if (ki->slots < 2 || i + 1 >= n) continue;
        const ludus__event *q = &ev[++i];
        switch (ki->payload) {
        case LUDUS__P_FLOW:
            p = ludus__varint_put(p, q->ticks);
            break;
        case LUDUS__P_FLOW_NAMED: {
            p = ludus__varint_put(p, q->ticks);
            uint32_t idx = ludus__site_index(c, LUDUS__FLOW_NAME_KEY(q->word));
            p = ludus__varint_put(p, idx == UINT32_MAX ? 0 : (uint64_t)idx + 1);
            break;
        }
        case LUDUS__P_I64:
            p = ludus__varint_put(p, ludus__zigzag((int64_t)q->ticks));
            break;
        case LUDUS__P_F64:
            p = ludus__nf_put_U64(p, q->ticks);
            break;
        case LUDUS__P_STAT:
            p = ludus__varint_put(p, ludus__zigzag((int64_t)q->ticks));
            p = ludus__varint_put(p, (uint64_t)q->word);
            break;
        case LUDUS__P_POINT:
            p = ludus__varint_put(p, q->ticks ? ludus__zigzag((int64_t)(addr - (uintptr_t)q->ticks) >> 4) + 1 : 0);
            p = ludus__varint_put(p, (uint64_t)q->word);
            break;
        case LUDUS__P_TEXT: { /* level, length, then the text's bytes */
            size_t len = (size_t)q->word, k = LUDUS__TEXT_SLOTS(len);
            if (len > LUDUS_MESSAGE_MAX || i + k >= n) len = k = 0; /* a live capture never has one */
            p = ludus__varint_put(p, q->ticks);
            p = ludus__varint_put(p, (uint64_t)len);
            memcpy(p, &ev[i + 1], len);
            p += len;
            i += k;
            break;
        }
        case LUDUS__P_ASYNC: {
            p = ludus__varint_put(p, q->ticks);
            uint32_t idx = q->word ? ludus__site_index(c, (uintptr_t)q->word) : UINT32_MAX;
            p = ludus__varint_put(p, idx == UINT32_MAX ? 0 : (uint64_t)idx + 1);
            break;
        }
        case LUDUS__P_SWITCH:
            p = ludus__varint_put(p, q->ticks);
            break;
        default:
            break;
        }
    }
    return (size_t)(p - out);
}

#define BAD(msg)                  \
    do {                          \
        *bad = (size_t)(at - in); \
        *why = msg;               \
        return -1;                \
    } while (0)

int ludus__compact_decode(const ludus_capture *c, const uint8_t *in, size_t len, ludus__event *ev, size_t n,
                          uintptr_t base, size_t *bad, const char **why) {
    const uint8_t *p = in, *end = in + len, *at = in;
    uint64_t prev = 0, v;
    for (size_t i = 0; i < n; i++) {
        at = p;
        if (p >= end) BAD("the block ends before its last event");
        unsigned tag = *p++, k = tag & 15, s = tag >> 4;
        const ludus__kind_info *ki = &ludus__kinds[k];
        if (!ki->valid) BAD("unknown event kind");
        if (ludus__varint_get(&p, end, &v)) BAD("bad tick varint");
        prev += (uint64_t)ludus__unzigzag(v);
        uintptr_t addr = base + i * sizeof(ludus__event);
        ev[i].ticks = prev;
        ev[i].word = k;
        if (ki->word == LUDUS__W_SITE || ki->word == LUDUS__W_SITE0) {
            uint64_t idx = s - 1u;
            if (s == 15 && ludus__varint_get(&p, end, &idx)) BAD("bad site index varint");
            if (s == 0) {
                if (ki->word == LUDUS__W_SITE) BAD("an event of this kind needs a site");
            } else {
                if (idx >= c->nsites) BAD("site index out of range");
                ev[i].word = c->sites[idx].key | k;
            }
        } else if (s != 0) {
            BAD("site field on a kind without a site");
        } else if (ki->word == LUDUS__W_REF) {
            if (ludus__varint_get(&p, end, &v)) BAD("bad reference varint");
            ev[i].word = (addr - ((uintptr_t)ludus__unzigzag(v) << 4)) | k;
        }
        if (ki->slots < 2) continue;
        if (i + 1 >= n) BAD("an event's payload is cut by the end of the block");
        ludus__event *q = &ev[++i];
        q->ticks = 0;
        q->word = 0;
        switch (ki->payload) {
        case LUDUS__P_FLOW:
            if (ludus__varint_get(&p, end, &q->ticks)) BAD("bad flow id varint");
            break;
        case LUDUS__P_FLOW_NAMED:
            if (ludus__varint_get(&p, end, &q->ticks) || ludus__varint_get(&p, end, &v)) BAD("bad flow varint");
            if (v > c->nsites) BAD("flow name index out of range");
            if (v) {
                uintptr_t key = c->sites[v - 1].key;
                if (!(key & 1)) BAD("flow name index names a site that is not a flow name");
                q->word = (uintptr_t)LUDUS__FLOW_NAME_PTR(key);
            }
            break;
        case LUDUS__P_I64:
            if (ludus__varint_get(&p, end, &v)) BAD("bad counter varint");
            q->ticks = (uint64_t)ludus__unzigzag(v);
            break;
        case LUDUS__P_F64:
            if (end - p < 8) BAD("double cut by the end of the block");
            p = ludus__nf_get_U64(p, &q->ticks);
            break;
        case LUDUS__P_STAT:
            if (ludus__varint_get(&p, end, &v)) BAD("bad frame statistic varint");
            q->ticks = (uint64_t)ludus__unzigzag(v);
            if (ludus__varint_get(&p, end, &v)) BAD("bad frame statistic varint");
            if (v >= LUDUS__STAT_COUNT) BAD("unknown frame statistic");
            q->word = (uintptr_t)v;
            break;
        case LUDUS__P_POINT: {
            uint64_t gen;
            if (ludus__varint_get(&p, end, &v) || ludus__varint_get(&p, end, &gen)) BAD("bad unwind point varint");
            q->ticks = v ? (uint64_t)(addr - ((uintptr_t)ludus__unzigzag(v - 1) << 4)) : 0;
            q->word = (uintptr_t)gen;
            break;
        }
        case LUDUS__P_TEXT: {
            if (ludus__varint_get(&p, end, &q->ticks) || ludus__varint_get(&p, end, &v)) BAD("bad message varint");
            if (v > LUDUS_MESSAGE_MAX) BAD("message text longer than LUDUS_MESSAGE_MAX");
            size_t k = LUDUS__TEXT_SLOTS(v);
            if (k > n - 1 - i) BAD("a message's text is cut by the end of the block");
            if ((uint64_t)(end - p) < v) BAD("a message's text is cut by the end of the data");
            q->word = (uintptr_t)v;
            memset(&ev[i + 1], 0, k * sizeof *ev);
            memcpy(&ev[i + 1], p, (size_t)v);
            p += v;
            i += k;
            break;
        }
        case LUDUS__P_ASYNC:
            if (ludus__varint_get(&p, end, &q->ticks) || ludus__varint_get(&p, end, &v)) BAD("bad async varint");
            if (v > c->nsites) BAD("async track index out of range");
            if (v) q->word = c->sites[v - 1].key;
            break;
        case LUDUS__P_SWITCH:
            if (ludus__varint_get(&p, end, &q->ticks)) BAD("bad fiber switch varint");
            break;
        default:
            break;
        }
    }
    at = p;
    if (p != end) BAD("bytes left over after the block's last event");
    return 0;
}
