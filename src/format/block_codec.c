/* Compact event blocks (docs/format.md "Compact blocks"), encoded and
 * decoded by the kind table: per event a tag byte (kind, and a small site
 * index), the tick delta as a zigzag varint, then what the kind's word
 * column says it carries, then its payload field by field (the payload
 * table of src/capture/event_table.h). Ends store the distance back to
 * their begin in slots, so a typical scope costs 4-6 bytes. This file
 * knows field types, never kinds. */
#include <string.h>

#include "file_format.h"

/* A site key as written: index + 1, 0 for none (or one not in the table). */
static uint64_t site_ref(const ludus_capture *c, uintptr_t key) {
    uint32_t idx = key ? ludus__site_index(c, key) : UINT32_MAX;
    return idx == UINT32_MAX ? 0 : (uint64_t)idx + 1;
}

static uint8_t *put_site(const ludus_capture *c, uint8_t *p, uintptr_t key, unsigned *s) {
    uint64_t ref = site_ref(c, key);
    if (ref == 0) { /* no site (or none in the table: written as none) */
        *s = 0;
        return p;
    }
    if (ref <= 14) {
        *s = (unsigned)ref;
        return p;
    }
    *s = 15;
    return ludus__varint_put(p, ref - 1);
}

/* One payload field of the slot at addr (the event's first slot). */
static uint8_t *put_field(const ludus_capture *c, uint8_t *p, unsigned f, uint64_t v, uintptr_t addr) {
    switch (f) {
    case LUDUS__F_U64:
        return ludus__varint_put(p, v);
    case LUDUS__F_I64:
        return ludus__varint_put(p, ludus__zigzag((int64_t)v));
    case LUDUS__F_F64:
        return ludus__nf_put_U64(p, v);
    case LUDUS__F_SITE:
    case LUDUS__F_FLOW_NAME:
        return ludus__varint_put(p, site_ref(c, ludus__field_key(f, v)));
    case LUDUS__F_SLOT:
        return ludus__varint_put(p, v ? ludus__zigzag((int64_t)(addr - (uintptr_t)v) >> 4) + 1 : 0);
    case LUDUS__F_STAT:
        return ludus__varint_put(p, v);
    case LUDUS__F_EXT: /* the code, the data's length (the data follows the fields) */
        p = ludus__varint_put(p, LUDUS__EXT_CODE(v));
        return ludus__varint_put(p, LUDUS__EXT_LEN(v));
    default: /* ZERO; TEXT is never written (format 4's) */
        return p;
    }
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
        size_t len = ludus__field_data_len(ki->word_field, q->word), dk = LUDUS__TEXT_SLOTS(len);
        uintptr_t word = q->word;
        if (ludus__field_has_data(ki->word_field) && (len > LUDUS__EXT_DATA_MAX || i + dk >= n))
            len = dk = 0, word = LUDUS__EXT_WORD(LUDUS__EXT_CODE(word), 0); /* a live capture never has one */
        p = put_field(c, p, ki->value_field, q->ticks, addr);
        p = put_field(c, p, ki->word_field, (uint64_t)word, addr);
        if (len) {
            memcpy(p, &ev[i + 1], len);
            p += len;
            i += dk;
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

/* One payload field into *v; NULL when it is malformed (*why set). */
static const uint8_t *get_field(const ludus_capture *c, const uint8_t *p, const uint8_t *end, unsigned f, uint64_t *v,
                                uintptr_t addr, const char **why) {
    uint64_t x, y;
    *v = 0;
    switch (f) {
    case LUDUS__F_ZERO:
        return p;
    case LUDUS__F_U64:
        if (ludus__varint_get(&p, end, v)) goto bad_varint;
        return p;
    case LUDUS__F_I64:
        if (ludus__varint_get(&p, end, &x)) goto bad_varint;
        *v = (uint64_t)ludus__unzigzag(x);
        return p;
    case LUDUS__F_F64:
        if (end - p < 8) {
            *why = "a double is cut by the end of the block";
            return NULL;
        }
        return ludus__nf_get_U64(p, v);
    case LUDUS__F_SITE:
    case LUDUS__F_FLOW_NAME:
        if (ludus__varint_get(&p, end, &x)) goto bad_varint;
        if (x > c->nsites) {
            *why = "a payload's site index is out of range";
            return NULL;
        }
        if (x == 0) return p;
        *v = c->sites[x - 1].key;
        if (f == LUDUS__F_FLOW_NAME) {
            if (!(*v & 1)) {
                *why = "a flow name index names a site that is not a flow name";
                return NULL;
            }
            *v = (uint64_t)(uintptr_t)LUDUS__FLOW_NAME_PTR(*v);
        } else if (*v & 1) {
            *why = "a payload's site index names a flow name";
            return NULL;
        }
        return p;
    case LUDUS__F_SLOT:
        if (ludus__varint_get(&p, end, &x)) goto bad_varint;
        *v = x ? (uint64_t)(addr - ((uintptr_t)ludus__unzigzag(x - 1) << 4)) : 0;
        return p;
    case LUDUS__F_STAT:
        if (ludus__varint_get(&p, end, v)) goto bad_varint;
        if (*v >= LUDUS__STAT_COUNT) {
            *why = "unknown frame statistic";
            return NULL;
        }
        return p;
    case LUDUS__F_EXT:
        if (ludus__varint_get(&p, end, &x) || ludus__varint_get(&p, end, &y)) goto bad_varint;
        if (x == 0 || x > 255) {
            *why = "an extension's sub-kind is not in 1..255";
            return NULL;
        }
        if (y > LUDUS__EXT_DATA_MAX) {
            *why = "an extension's data is longer than the format allows";
            return NULL;
        }
        *v = LUDUS__EXT_WORD(x, y);
        return p;
    case LUDUS__F_TEXT:
        if (ludus__varint_get(&p, end, v)) goto bad_varint;
        if (*v > LUDUS_MESSAGE_MAX) {
            *why = "message text longer than LUDUS_MESSAGE_MAX";
            return NULL;
        }
        return p;
    default:
        *why = "unknown field type";
        return NULL;
    }
bad_varint:
    *why = "a payload field's varint is malformed or cut";
    return NULL;
}

int ludus__compact_decode(const ludus_capture *c, const uint8_t *in, size_t len, ludus__event *ev, size_t n,
                          uintptr_t base, size_t *bad, const char **why) {
    const uint8_t *p = in, *end = in + len, *at = in;
    uint64_t prev = 0, v;
    for (size_t i = 0; i < n; i++) {
        at = p;
        if (p >= end) BAD("the block ends before its last event");
        unsigned tag = *p++, k = tag & 15, s = tag >> 4;
        const ludus__kind_info *ki = ludus__kind_in_format(c->file.version, k);
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
        uint64_t w;
        const char *fwhy = NULL;
        if (!(p = get_field(c, p, end, ki->value_field, &q->ticks, addr, &fwhy)) ||
            !(p = get_field(c, p, end, ki->word_field, &w, addr, &fwhy))) {
            *bad = (size_t)(at - in);
            *why = fwhy;
            return -1;
        }
        q->word = (uintptr_t)w;
        size_t dlen = ludus__field_data_len(ki->word_field, q->word);
        if (ludus__field_has_data(ki->word_field)) { /* the data's bytes, in slots after the payload */
            size_t dk = LUDUS__TEXT_SLOTS(dlen);
            if (dk > n - 1 - i) BAD("an event's data is cut by the end of the block");
            if ((uint64_t)(end - p) < dlen) BAD("an event's data is cut by the end of the data");
            memset(&ev[i + 1], 0, dk * sizeof *ev);
            memcpy(&ev[i + 1], p, dlen);
            p += dlen;
            i += dk;
            if (ki->word_field == LUDUS__F_TEXT) ludus__upgrade_text_payload(q);
        }
    }
    at = p;
    if (p != end) BAD("bytes left over after the block's last event");
    return 0;
}

#undef BAD /* file-local (the single file pastes the sources together: tests/compile/names_lint.py) */
