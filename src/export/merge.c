/* Captures of several processes on one timeline (ludus_captures_save_merged,
 * <ludus/capture.h>). Processes of one machine share CLOCK_MONOTONIC, which
 * every capture's start is in, so aligning them is a shift each: ts 0 is
 * the earliest start.
 *
 * JSON: the exporter writes each capture's events with its shift
 * (chrome_json.c), one process each (its pid), and the metadata of all.
 * Perfetto protobuf: each capture is exported on its own and its packets
 * are rewritten on the way out: times shifted, packet sequences and
 * track uuids moved to a range of their own (capture i: sequences + i<<20,
 * uuids + i<<40; the exporter's are small), everything else copied. A time
 * is shifted where it is whole: a packet's timestamp on a sequence without
 * the incremental clock (pftrace.c), or with a clock id of its own, and the
 * BOOTTIME reading of a ClockSnapshot (which moves every delta of its
 * sequence with it); a delta is copied. Flow
 * ids are kept, so a flow whose id the caller gave both processes links
 * them. */
#include <stdlib.h>
#include <string.h>

#include "export_internal.h"

static void put_varint(ludus__bytes *o, uint64_t v) {
    uint8_t t[10];
    size_t k = 0;
    do {
        t[k++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    ludus__bytes_put(o, t, k);
}

/* ---- the packet rewrite ---- */

/* Messages on the way to a field that changes. */
enum { M_TRACE, M_PACKET, M_EVENT, M_DESC, M_DEFAULTS, M_EVENT_DEFAULTS, M_SNAPSHOT, M_CLOCK };
/* What happens to a field's value. */
enum { OP_NEST, OP_TS, OP_SEQ, OP_UUID, OP_FLOW };
/* The clocks (trace-formats.md B.7): BOOTTIME, the trace's; 64, the
 * sequence-scoped incremental one. */
enum { BOOTTIME = 6, INCREMENTAL = 64 };

typedef struct rule {
    uint8_t msg;
    uint8_t field;
    uint8_t op;
    uint8_t child; /* OP_NEST: the message inside */
} rule;

/* trace-formats.md part B: Trace.packet; TracePacket.timestamp,
 * trusted_packet_sequence_id, track_event, trace_packet_defaults,
 * track_descriptor; TrackEvent.track_uuid, flow_ids and
 * terminating_flow_ids (fixed64); TrackDescriptor.uuid and
 * parent_uuid; TracePacketDefaults.track_event_defaults;
 * TrackEventDefaults.track_uuid. */
static const rule rules[] = {
    {M_TRACE, 1, OP_NEST, M_PACKET},
    {M_PACKET, 6, OP_NEST, M_SNAPSHOT},
    {M_PACKET, 8, OP_TS, 0},
    {M_PACKET, 10, OP_SEQ, 0},
    {M_PACKET, 11, OP_NEST, M_EVENT},
    {M_PACKET, 59, OP_NEST, M_DEFAULTS},
    {M_PACKET, 60, OP_NEST, M_DESC},
    {M_EVENT, 11, OP_UUID, 0},
    {M_EVENT, 47, OP_FLOW, 0},
    {M_EVENT, 48, OP_FLOW, 0},
    {M_DESC, 1, OP_UUID, 0},
    {M_DESC, 5, OP_UUID, 0},
    {M_DEFAULTS, 11, OP_NEST, M_EVENT_DEFAULTS},
    {M_EVENT_DEFAULTS, 11, OP_UUID, 0},
    {M_SNAPSHOT, 1, OP_NEST, M_CLOCK},
    {M_CLOCK, 2, OP_TS, 0},
};

typedef struct remap {
    uint64_t shift_ns, seq_base, uuid_base, flow_space;
    int shift_ts;         /* the message being rewritten holds a whole time (OP_TS applies) */
    uint8_t *incremental; /* per sequence: its defaults name the incremental clock */
    size_t nincremental;
} remap;

/* One step of the rewrite per field (a table: the flow ids are fixed64,
 * the rest varints or nested messages). */
static const rule *rule_of(int msg, uint64_t field) {
    for (size_t i = 0; i < sizeof rules / sizeof rules[0]; i++)
        if (rules[i].msg == msg && rules[i].field == field) return &rules[i];
    return NULL;
}

static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    uint64_t x = 0;
    for (int s = 0; s < 64 && *p < end; s += 7) {
        uint8_t b = *(*p)++;
        x |= (uint64_t)(b & 0x7f) << s;
        if (!(b & 0x80)) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* The first varint field f of the message (p, n): 1 and *v, or 0. */
static int find_varint(const uint8_t *p, size_t n, uint64_t f, uint64_t *v) {
    const uint8_t *end = p + n;
    uint64_t tag, x;
    while (p < end && get_varint(&p, end, &tag) == 0) {
        switch (tag & 7) {
        case 0:
            if (get_varint(&p, end, &x)) return 0;
            if (tag >> 3 == f) {
                *v = x;
                return 1;
            }
            break;
        case 1:
            p += 8;
            break;
        case 5:
            p += 4;
            break;
        case 2:
            if (get_varint(&p, end, &x) || x > (uint64_t)(end - p)) return 0;
            p += x;
            break;
        default:
            return 0;
        }
    }
    return 0;
}

/* The first length-delimited field f of the message (p, n): 1, *q and *qn. */
static int find_message(const uint8_t *p, size_t n, uint64_t f, const uint8_t **q, size_t *qn) {
    const uint8_t *end = p + n;
    uint64_t tag, x;
    while (p < end && get_varint(&p, end, &tag) == 0) {
        unsigned wt = (unsigned)(tag & 7);
        if (wt == 0) {
            if (get_varint(&p, end, &x)) return 0;
        } else if (wt == 1 || wt == 5) {
            p += wt == 1 ? 8 : 4;
        } else if (wt == 2) {
            if (get_varint(&p, end, &x) || x > (uint64_t)(end - p)) return 0;
            if (tag >> 3 == f) {
                *q = p;
                *qn = (size_t)x;
                return 1;
            }
            p += x;
        } else {
            return 0;
        }
    }
    return 0;
}

/* Before a packet is rewritten: whether its timestamp is whole (a sequence
 * without the incremental clock in its defaults, or a clock id of the
 * packet's own), its defaults read first (they hold from this packet on).
 * -1: out of memory. */
static int packet_times(const uint8_t *p, size_t n, remap *r) {
    uint64_t seq = 0, flags = 0, clock = 0;
    const uint8_t *d;
    size_t dn;
    find_varint(p, n, 10, &seq);
    if (seq >= r->nincremental) {
        size_t cap = r->nincremental ? r->nincremental : 16;
        while (cap <= seq && cap < ((size_t)1 << 32)) cap *= 2;
        if (cap <= seq) return 0; /* not one the exporter writes: its times whole */
        uint8_t *k = ludus__realloc(r->incremental, cap);
        if (!k) return -1;
        memset(k + r->nincremental, 0, cap - r->nincremental);
        r->incremental = k;
        r->nincremental = cap;
    }
    if (find_varint(p, n, 13, &flags) && (flags & 1)) r->incremental[seq] = 0; /* cleared: defaults too */
    if (find_message(p, n, 59, &d, &dn)) r->incremental[seq] = find_varint(d, dn, 58, &clock) && clock == INCREMENTAL;
    r->shift_ts = !r->incremental[seq] || find_varint(p, n, 58, &clock);
    return 0;
}

/* Rewrites message msg (p, n) into o; -1 when it is not well formed (-2:
 * out of memory). */
static int rewrite(const uint8_t *p, size_t n, int msg, remap *r, ludus__bytes *o) {
    const uint8_t *end = p + n;
    while (p < end) {
        const uint8_t *field_start = p;
        uint64_t tag, v;
        if (get_varint(&p, end, &tag)) return -1;
        const rule *ru = rule_of(msg, tag >> 3);
        switch (tag & 7) {
        case 0:
            if (get_varint(&p, end, &v)) return -1;
            if (ru && ru->op != OP_NEST && (ru->op != OP_TS || r->shift_ts)) {
                v += ru->op == OP_TS ? r->shift_ns : ru->op == OP_SEQ ? r->seq_base : r->uuid_base;
                put_varint(o, tag);
                put_varint(o, v);
                continue;
            }
            break;
        case 1:
            if (end - p < 8) return -1;
            if (ru && ru->op == OP_FLOW) {
                uint64_t id = 0;
                for (int b = 0; b < 8; b++) id |= (uint64_t)p[b] << (8 * b);
                id = ludus__merged_flow_id(id, r->flow_space);
                uint8_t le[8];
                for (int b = 0; b < 8; b++) le[b] = (uint8_t)(id >> (8 * b));
                put_varint(o, tag);
                ludus__bytes_put(o, le, 8);
                p += 8;
                continue;
            }
            p += 8;
            break;
        case 5:
            if (end - p < 4) return -1;
            p += 4;
            break;
        case 2:
            if (get_varint(&p, end, &v) || v > (uint64_t)(end - p)) return -1;
            if (ru && ru->op == OP_NEST) {
                ludus__bytes inner = {0};
                uint64_t clock = 0;
                int shift_ts = r->shift_ts, rc = 0;
                if (ru->child == M_PACKET && packet_times(p, (size_t)v, r) != 0) rc = -2;
                if (ru->child == M_CLOCK) /* a snapshot's reading: BOOTTIME's is whole, the incremental one's stays */
                    r->shift_ts = find_varint(p, (size_t)v, 1, &clock) && clock == BOOTTIME;
                if (rc == 0) rc = rewrite(p, (size_t)v, ru->child, r, &inner);
                if (ru->child == M_CLOCK) r->shift_ts = shift_ts;
                if (rc == 0 && !inner.oom) {
                    put_varint(o, tag);
                    put_varint(o, inner.n);
                    ludus__bytes_put(o, inner.b, inner.n);
                }
                ludus__free(inner.b);
                if (rc) return rc;
                if (inner.oom) o->oom = 1;
                p += v;
                continue;
            }
            p += v;
            break;
        default:
            return -1; /* groups: never written by the exporter */
        }
        ludus__bytes_put(o, field_start, (size_t)(p - field_start)); /* as it was */
    }
    return 0;
}

/* ---- the merge ---- */

static int pftrace_merged(ludus_capture *const *cs, uint32_t n, int64_t origin_ns, ludus__writer *w) {
    for (uint32_t i = 0; i < n && !w->failed; i++) {
        ludus__bytes one = {0}, out = {0};
        int rc = ludus_capture_write(cs[i], LUDUS_FORMAT_PFTRACE, 0, ludus__bytes_write, &one);
        if (rc == 0 && one.oom) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
        remap r = {(uint64_t)(cs[i]->start_ns - origin_ns),
                   (uint64_t)i << 20,
                   (uint64_t)i << 40,
                   ludus__merge_flow_space(i),
                   1,
                   NULL,
                   0};
        int wr = rc == 0 ? rewrite(one.b, one.n, M_TRACE, &r, &out) : 0;
        ludus__free(r.incremental);
        if (wr == -2) out.oom = 1;
        if (wr == -1) rc = ludus__fail(LUDUS_EFORMAT, "capture %u: its Perfetto export did not parse back", i);
        if (rc == 0 && out.oom) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
        if (rc == 0) ludus__w_bytes(w, out.b, out.n);
        ludus__free(one.b);
        ludus__free(out.b);
        if (rc) return rc;
    }
    return w->failed ? LUDUS_EIO : 0;
}

static int check_inputs(ludus_capture *const *cs, uint32_t n, int format, int64_t *origin_ns) {
    if (!cs || n == 0) return ludus__fail(LUDUS_EINVAL, "no capture to merge");
    if (n > 4096) return ludus__fail(LUDUS_EINVAL, "at most 4096 captures are merged");
    if (format != LUDUS_FORMAT_JSON && format != LUDUS_FORMAT_PFTRACE)
        return ludus__fail(LUDUS_EINVAL, "a merge is written as JSON or Perfetto protobuf (format %d)", format);
    *origin_ns = INT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        if (!cs[i]) return ludus__fail(LUDUS_EINVAL, "capture %u is NULL", i);
        int rc = ludus__prepare(cs[i]);
        if (rc) return rc;
        if (cs[i]->start_ns < *origin_ns) *origin_ns = cs[i]->start_ns;
    }
    return 0;
}

typedef struct merge_job {
    ludus_capture *const *cs;
    uint32_t n;
    int format;
    int64_t origin_ns;
} merge_job;

static int merged(ludus__writer *w, const char *what, void *arg) {
    const merge_job *j = arg;
    int rc = j->format == LUDUS_FORMAT_JSON ? ludus__export_json_merged(j->cs, j->n, j->origin_ns, w)
                                            : pftrace_merged(j->cs, j->n, j->origin_ns, w);
    if (rc == 0 && ludus__w_flush(w) != 0) rc = LUDUS_EIO;
    if (rc == LUDUS_EIO)
        return ludus__fail(rc, "writing the merge to %s failed after %llu bytes", what, (unsigned long long)w->bytes);
    return rc;
}

int ludus_captures_write_merged(ludus_capture *const *captures, uint32_t n, int format, ludus_write_fn write,
                                void *user_data) {
    merge_job j = {captures, n, format, 0};
    int rc = check_inputs(captures, n, format, &j.origin_ns);
    if (rc) return rc;
    if (!write) return ludus__fail(LUDUS_EINVAL, "write is NULL");
    return ludus__export_to(NULL, write, user_data, merged, &j);
}

int ludus_captures_save_merged(ludus_capture *const *captures, uint32_t n, int format, const char *path) {
    merge_job j = {captures, n, format, 0};
    int rc = check_inputs(captures, n, format, &j.origin_ns);
    if (rc) return rc;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    return ludus__export_to(path, NULL, NULL, merged, &j);
}
