/* Perfetto protobuf export (.pftrace, trace-formats.md part B), streamed
 * through the bounded writer. Layout: sequence 1 carries the process track
 * and a "ludus capture" instant whose debug annotations hold the clock and
 * the loss/filter/incomplete counts; each thread writes on its own sequence
 * (id thread + 2), whose first packet clears the incremental state, sets the
 * thread's track as the default track_uuid and describes the thread track
 * (named with its loss count when it lost events). Spans that do not nest on
 * the thread's track go on child tracks ("<thread> spans k"). Names and
 * categories are interned per sequence (iid = site index + 1 + extras).
 * Slices are SLICE_BEGIN/SLICE_END, marks, losses and mismatched span ends
 * INSTANT, counters COUNTER on a process-level counter track per site
 * (described before its first value, doubles kept exactly), flow ends are
 * INSTANTs carrying flow_ids / terminating_flow_ids.
 *
 * Times are ns since capture start. A thread's sequence uses incremental
 * timestamps as Perfetto's SDK does (TrackEventInternal::ResetIncrementalState):
 * its first packet clears the state, sets timestamp_clock_id = 64 in the
 * defaults and carries a ClockSnapshot of that sequence-scoped clock
 * (is_incremental, 0) and BOOTTIME (0, the trace's clock), so each packet's
 * timestamp is the delta in ns from the sequence's previous timestamped
 * packet; a time before that one is written whole on BOOTTIME
 * (timestamp_clock_id = 6) and leaves the clock where it was. Every time is
 * still an exact integer ns. The other sequences (metadata, async zones,
 * GPU) write whole times, no clock id. The common packets (a slice's begin
 * whose name is interned, its end with nothing to annotate, on the thread's
 * track) are copied from bytes made once per site and per sequence. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <stdlib.h>
#include <string.h>

#include <stdio.h>

#include "export_internal.h"
#include "proto_writer.h"

/* TracePacket fields */
#define TP_CLOCK_SNAPSHOT 6
#define TP_TIMESTAMP 8
#define TP_SEQ_ID 10
#define TP_TRACK_EVENT 11
#define TP_INTERNED 12
#define TP_SEQ_FLAGS 13
#define TP_CLOCK_ID 58
#define TP_DEFAULTS 59
#define TP_TRACK_DESC 60
/* TrackEvent fields */
#define TE_CATEGORY_IIDS 3
#define TE_DEBUG 4
#define TE_TYPE 9
#define TE_NAME_IID 10
#define TE_TRACK_UUID 11
#define TE_CATEGORIES 22
#define TE_NAME 23
#define TE_COUNTER_VALUE 30
#define TE_DOUBLE_COUNTER_VALUE 44
#define TE_FLOW_IDS 47
#define TE_TERMINATING_FLOW_IDS 48
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
/* Only SEQ_INCREMENTAL_STATE_CLEARED (on each sequence's first packet) is
 * written: the state is valid from there to the end of the file, so the
 * NEEDS flag (2) would only cost 2 bytes an event (the size target is 1/5
 * of the JSON). */
enum { SEQ_CLEARED = 1 };
/* Clocks (trace-formats.md B.7): the trace's (BOOTTIME), and the
 * sequence-scoped incremental one a thread's packets use by default. */
enum { PF_CLOCK_BOOTTIME = 6, PF_CLOCK_INCREMENTAL = 64 };

#define PROCESS_UUID 1u
/* Thread t's track, and its span lanes right after it. */
#define LANE_UUID(t, lane) (2u + (uint64_t)(t)*LUDUS__MAX_LANES + (lane))
#define THREAD_UUID(t) LANE_UUID(t, 0)
/* After the thread tracks: small uuids keep counter events short. */
#define COUNTER_UUID(site, series) \
    (2u + (uint64_t)s->c->nthreads * LUDUS__MAX_LANES + (uint64_t)(site)*LUDUS__SERIES_PER_SITE + (series))
#define META_SEQ 1u
#define MAX_STR LUDUS__PB_MAX_STR

/* Extra interned names and categories, after the sites' iids. */
enum { XN_FLOW = 1, XN_LABEL, XN_COUNT = XN_LABEL + LUDUS_NEV_COUNT };
enum { XC_CAT = 1, XC_COUNT = XC_CAT + LUDUS_NEV_COUNT };
/* Debug annotation name iids. */
enum { DA_INCOMPLETE = 1, DA_CLIPPED, DA_UNWOUND, DA_FRAME, DA_LOST, DA_MISMATCH, DA_COUNT };
static const char *const da_text[DA_COUNT] = {NULL,   "incomplete",         "clipped", "unwound", "frame",
                                              "lost", "mismatched_span_end"};

/* Extra names: "flow", then each normalised kind's label; extra categories:
 * each normalised kind's category. */
static const char *xn_text(int i) {
    return i == XN_FLOW ? "flow" : ludus__nevs[i - XN_LABEL].label;
}
static const char *xc_text(int i) {
    return ludus__nevs[i - XC_CAT].category;
}

/* The kinds written from bytes made once per site (a slice begin, a mark):
 * what write_event gives each, the category when the site names none. */
#define FAST_KINDS 2
static const struct {
    uint8_t kind, type;
} fast_kinds[FAST_KINDS] = {{LUDUS_NEV_BEGIN, TYPE_SLICE_BEGIN}, {LUDUS_NEV_MARK, TYPE_INSTANT}};

typedef struct pf_state {
    ludus__writer *w;
    const ludus__captured *c;
    uint32_t seq;
    uint32_t *name_seq; /* per site: sequence on which its name/category is interned */
    uint32_t xn_seq[XN_COUNT], xc_seq[XC_COUNT], da_seq[DA_COUNT];
    unsigned char *counter_described;
    const ludus__nev_iter *it; /* the thread's stream (a message's text) */
    ludus__slice_args args;    /* annotations of the open slices */
    uint32_t thread;
    uint32_t lanes_described; /* bit k: lane k of the current thread */
    int incremental;          /* the current sequence's times are deltas on PF_CLOCK_INCREMENTAL */
    uint64_t last_ts;         /* the incremental clock's value: the sequence's last time */
    /* the common packets' bytes after the timestamp (fast_begin, fast_end) */
    uint8_t seq_bytes[8], end_bytes[32]; /* end_bytes: read 8 + 16 at a time (fast_packet) */
    size_t seq_n, end_n;
    /* per site and fast kind (fast_kinds): its track_event {category, type,
     * name}, and the sequence on which that packet is ready (what it names
     * interned; 0: none) */
    uint8_t (*site_te)[FAST_KINDS][16];
    uint8_t (*site_te_n)[FAST_KINDS];
    uint32_t (*fast_seq)[FAST_KINDS];
} pf_state;

/* The timestamp field: on the current sequence when it is incremental, the
 * delta from its last time (a time before it: whole, on BOOTTIME);
 * elsewhere the whole time. */
static uint8_t *ts_field(pf_state *s, uint8_t *p, uint64_t ts, uint32_t seq) {
    if (!s->incremental || seq != s->seq) return ludus__pb_uint(p, TP_TIMESTAMP, ts);
    if (ts >= s->last_ts) {
        p = ludus__pb_uint(p, TP_TIMESTAMP, ts - s->last_ts);
        s->last_ts = ts;
        return p;
    }
    p = ludus__pb_uint(p, TP_TIMESTAMP, ts);
    return ludus__pb_uint(p, TP_CLOCK_ID, PF_CLOCK_BOOTTIME);
}

static uint8_t *packet_open(pf_state *s, uint8_t *p, uint8_t **mark, uint64_t ts, int has_ts, uint32_t seq,
                            uint32_t flags) {
    p = ludus__pb_open(p, 1, mark);
    if (has_ts) p = ts_field(s, p, ts, seq);
    p = ludus__pb_uint(p, TP_SEQ_ID, seq);
    if (flags) p = ludus__pb_uint(p, TP_SEQ_FLAGS, flags);
    return p;
}

static uint8_t *interned_entry(uint8_t *p, uint32_t field, uint64_t iid, const char *s, size_t n) {
    uint8_t *m;
    p = ludus__pb_open(p, field, &m);
    p = ludus__pb_uint(p, 1, iid);
    p = ludus__pb_str(p, 2, s, n);
    return ludus__pb_close(p, m);
}

/* ---- metadata: process track and capture counts ---- */

static uint8_t *da_u64(uint8_t *p, const char *name, uint64_t v) {
    uint8_t *m;
    p = ludus__pb_open(p, TE_DEBUG, &m);
    p = ludus__pb_str(p, 10, name, strlen(name));
    p = ludus__pb_uint(p, 3, v);
    return ludus__pb_close(p, m);
}
static uint8_t *da_i64(uint8_t *p, const char *name, int64_t v) {
    uint8_t *m;
    p = ludus__pb_open(p, TE_DEBUG, &m);
    p = ludus__pb_str(p, 10, name, strlen(name));
    p = ludus__pb_int(p, 4, v);
    return ludus__pb_close(p, m);
}
static uint8_t *da_str(uint8_t *p, const char *name, const char *v) {
    uint8_t *m;
    p = ludus__pb_open(p, TE_DEBUG, &m);
    p = ludus__pb_str(p, 10, name, strlen(name));
    p = ludus__pb_str(p, 6, v, strlen(v));
    return ludus__pb_close(p, m);
}

static int write_process(pf_state *s) {
    const ludus__captured *c = s->c;
    uint8_t *pm, *m, *m2;
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 0, META_SEQ, SEQ_CLEARED);
    p = ludus__pb_open(p, TP_TRACK_DESC, &m);
    p = ludus__pb_uint(p, 1, PROCESS_UUID);
    p = ludus__pb_open(p, 3, &m2);
    p = ludus__pb_int(p, 1, c->pid);
    p = ludus__pb_str(p, 6, c->process_name, strnlen(c->process_name, sizeof c->process_name));
    p = ludus__pb_close(p, m2);
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));

    /* The capture's counts: an instant at 0 on the process track. */
    p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 1, META_SEQ, 0);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
    p = ludus__pb_uint(p, TE_TRACK_UUID, PROCESS_UUID);
    p = ludus__pb_bytes(p, TE_NAME, "ludus capture", 13);
    p = da_str(p, "ludus_version", LUDUS_VERSION_STRING);
    p = da_str(p, "clock", c->clock_tsc ? "tsc" : "monotonic");
    p = da_u64(p, "rate_ticks", c->c1.ticks - c->c0.ticks);
    p = da_u64(p, "rate_ns", (uint64_t)(c->c1.ns - c->c0.ns));
    p = da_i64(p, "capture_start_ns", c->start_ns);
    p = da_i64(p, "capture_end_ns", c->end_ns);
    p = da_u64(p, "events", c->events);
    p = da_u64(p, "dropped", c->dropped);
    p = da_u64(p, "unregistered_thread_drops", c->unregistered_drops);
    p = da_u64(p, "filtered", c->filtered);
    p = da_u64(p, "incomplete", c->incomplete);
    p = da_u64(p, "unwound", c->unwound);
    p = da_u64(p, "orphan_ends", c->orphan_ends);
    p = da_u64(p, "mismatched_span_ends", c->mismatched);
    p = da_u64(p, "async_unmatched_ends", c->async.unmatched);
    p = da_u64(p, "nonfinite_counter_samples", c->nonfinite);
    p = da_u64(p, "annotation_texts_cut", c->texts_cut);
    p = da_u64(p, "annotation_keys_dropped", c->keys_dropped);
    p = da_u64(p, "frames", c->frames);
    p = da_u64(p, "interner_drops", c->interner_drops);
    p = da_u64(p, "counters_refused", c->counters_refused);
    p = da_u64(p, "counter_adds_lost", c->counter_adds_lost);
    p = da_u64(p, "site_id_collisions", c->id_collisions);
    if (c->crash.signal) { /* ended by a crash (crash.c) */
        p = da_str(p, "crash_signal", c->crash.signal_name);
        p = da_u64(p, "crash_tid", c->crash.tid);
    }
    if (c->trigger.reason[0]) { /* the rolling window's trigger this window was taken for */
        p = da_str(p, "trigger", c->trigger.reason);
        p = da_str(p, "trigger_detail", c->trigger.detail);
        p = da_u64(p, "trigger_at_ns", (uint64_t)(c->trigger.ns - c->start_ns));
    }
    if (c->nmem_cov) {
        char *cov = ludus__mem_cov_text(c); /* lines of tab-separated fields, as in .ludus (docs/format.md) */
        if (!cov) return LUDUS_ENOMEM;
        p = da_str(p, "memory_coverage", cov);
        ludus__free(cov);
    }
    if (c->cut) {
        p = da_i64(p, "cut_from_ns", c->cut_from_ns);
        p = da_i64(p, "cut_to_ns", c->cut_to_ns);
    }
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    return 0;
}

static uint8_t *thread_desc(pf_state *s, uint8_t *p, uint32_t t, uint32_t lane) {
    const ludus__cap_thread *th = &s->c->threads[t];
    uint8_t *m, *m3;
    char name[160];
    if (lane)
        snprintf(name, sizeof name, "%s spans %u", th->name, lane);
    else if (th->dropped)
        snprintf(name, sizeof name, "%s [%llu events lost]", th->name, (unsigned long long)th->dropped);
    else
        snprintf(name, sizeof name, "%s", th->name);
    p = ludus__pb_open(p, TP_TRACK_DESC, &m);
    p = ludus__pb_uint(p, 1, LANE_UUID(t, lane));
    if (lane) {
        p = ludus__pb_str(p, 2, name, strlen(name));
        p = ludus__pb_uint(p, 5, THREAD_UUID(t)); /* parent_uuid */
    } else {
        p = ludus__pb_open(p, 4, &m3);
        p = ludus__pb_int(p, 1, s->c->pid);
        p = ludus__pb_int(p, 2, (int64_t)th->tid);
        p = ludus__pb_str(p, 5, name, strlen(name));
        p = ludus__pb_close(p, m3);
    }
    return ludus__pb_close(p, m);
}

/* First packet of a thread's sequence: clear, defaults, thread track; and
 * the thread's counts when it lost events. */
static void write_thread_head(pf_state *s, uint32_t t) {
    const ludus__cap_thread *th = &s->c->threads[t];
    uint8_t *pm, *m, *m2;
    s->thread = t;
    s->lanes_described = 1;
    /* clear, the defaults (the thread's track, the incremental clock), and
     * the clock's snapshot: 0 on both (a packet with a snapshot is read no
     * further than it, so the track descriptor has a packet of its own) */
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    s->incremental = 0;
    p = packet_open(s, p, &pm, 0, 0, s->seq, SEQ_CLEARED);
    p = ludus__pb_open(p, TP_DEFAULTS, &m);
    p = ludus__pb_uint(p, TP_CLOCK_ID, PF_CLOCK_INCREMENTAL);
    p = ludus__pb_open(p, 11, &m2);
    p = ludus__pb_uint(p, TE_TRACK_UUID, THREAD_UUID(t));
    p = ludus__pb_close(p, m2);
    p = ludus__pb_close(p, m);
    p = ludus__pb_open(p, TP_CLOCK_SNAPSHOT, &m);
    p = ludus__pb_open(p, 1, &m2);
    p = ludus__pb_uint(p, 1, PF_CLOCK_BOOTTIME);
    p = ludus__pb_uint(p, 2, 0);
    p = ludus__pb_close(p, m2);
    p = ludus__pb_open(p, 1, &m2);
    p = ludus__pb_uint(p, 1, PF_CLOCK_INCREMENTAL);
    p = ludus__pb_uint(p, 2, 0);
    p = ludus__pb_uint(p, 3, 1); /* is_incremental */
    p = ludus__pb_close(p, m2);
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    s->incremental = 1;
    s->last_ts = 0;
    p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 0, s->seq, 0);
    p = thread_desc(s, p, t, 0);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    /* the bytes after a common packet's timestamp: the sequence id, and a
     * slice end's whole track_event {type: SLICE_END} */
    s->seq_n = (size_t)(ludus__pb_uint(s->seq_bytes, TP_SEQ_ID, s->seq) - s->seq_bytes);
    memcpy(s->end_bytes, s->seq_bytes, s->seq_n);
    s->end_n = s->seq_n;
    s->end_bytes[s->end_n++] = (TP_TRACK_EVENT << 3) | LUDUS__PB_LEN;
    s->end_bytes[s->end_n++] = 2;
    s->end_n = (size_t)(ludus__pb_uint(s->end_bytes + s->end_n, TE_TYPE, TYPE_SLICE_END) - s->end_bytes);
    if (th->dropped || th->incomplete || th->unwound || th->orphan_ends || th->mismatched) {
        /* At the start of what the file holds (a cut starts later). */
        uint64_t at = s->c->cut && s->c->cut_from_ns > 0 ? (uint64_t)s->c->cut_from_ns : 0;
        p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
        p = packet_open(s, p, &pm, at, 1, s->seq, 0);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
        p = ludus__pb_bytes(p, TE_NAME, "ludus thread stats", 18);
        p = da_u64(p, "dropped", th->dropped);
        if (th->first_drop_ns != LUDUS__NO_DROP) p = da_i64(p, "first_drop_ns", th->first_drop_ns);
        p = da_u64(p, "incomplete", th->incomplete);
        p = da_u64(p, "unwound", th->unwound);
        p = da_u64(p, "orphan_ends", th->orphan_ends);
        p = da_u64(p, "mismatched_span_ends", th->mismatched);
        p = da_u64(p, "filtered", th->filtered);
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    }
}

/* A span lane's track, described before its first event. */
static void describe_lane(pf_state *s, uint32_t lane) {
    if (s->lanes_described & (1u << lane)) return;
    s->lanes_described |= 1u << lane;
    uint8_t *pm;
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 0, s->seq, 0);
    p = thread_desc(s, p, s->thread, lane);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

/* ---- events ---- */

/* Interned data this packet needs (names, categories, annotation names). */
typedef struct need {
    uint32_t site;        /* site whose name (and category) to intern, or UINT32_MAX */
    int xn, xc, da1, da2; /* extra iids to intern, 0: none */
} need;

static int needs_any(const pf_state *s, const need *n) {
    return (n->site != UINT32_MAX && s->name_seq[n->site] != s->seq) || (n->xn && s->xn_seq[n->xn] != s->seq) ||
           (n->xc && s->xc_seq[n->xc] != s->seq) || (n->da1 && s->da_seq[n->da1] != s->seq) ||
           (n->da2 && s->da_seq[n->da2] != s->seq);
}

static uint8_t *write_interned(pf_state *s, uint8_t *p, const need *n) {
    if (!needs_any(s, n)) return p;
    uint8_t *m;
    p = ludus__pb_open(p, TP_INTERNED, &m);
    if (n->site != UINT32_MAX && s->name_seq[n->site] != s->seq) {
        const ludus__site_info *si = &s->c->sites[n->site];
        s->name_seq[n->site] = s->seq;
        if (si->category) p = interned_entry(p, 1, n->site + 1u + XC_COUNT, si->category, si->category_len);
        p = interned_entry(p, 2, n->site + 1u + XN_COUNT, si->name, si->name_len);
    }
    if (n->xn && s->xn_seq[n->xn] != s->seq) {
        s->xn_seq[n->xn] = s->seq;
        p = interned_entry(p, 2, (uint64_t)n->xn, xn_text(n->xn), strlen(xn_text(n->xn)));
    }
    if (n->xc && s->xc_seq[n->xc] != s->seq) {
        s->xc_seq[n->xc] = s->seq;
        p = interned_entry(p, 1, (uint64_t)n->xc, xc_text(n->xc), strlen(xc_text(n->xc)));
    }
    int da[2] = {n->da1, n->da2};
    for (int i = 0; i < 2; i++)
        if (da[i] && s->da_seq[da[i]] != s->seq) {
            s->da_seq[da[i]] = s->seq;
            p = interned_entry(p, 3, (uint64_t)da[i], da_text[da[i]], strlen(da_text[da[i]]));
        }
    return ludus__pb_close(p, m);
}

static uint8_t *da_bool_iid(uint8_t *p, int iid) {
    *p++ = (TE_DEBUG << 3) | LUDUS__PB_LEN;
    *p++ = 4;
    *p++ = 0x08; /* name_iid */
    *p++ = (uint8_t)iid;
    *p++ = 0x10; /* bool_value */
    *p++ = 1;
    return p;
}

static uint64_t ts_of(const ludus__nev *ev) {
    return ev->ts_ns < 0 ? 0 : (uint64_t)ev->ts_ns;
}

/* A counter track per (site, series): "DrawCalls per frame", "Memory/Render
 * live bytes"; plain samples keep the site's name. */
static void describe_counter(pf_state *s, uint32_t site, uint32_t series) {
    const ludus__site_info *si = &s->c->sites[site];
    uint8_t *pm, *m, *m2;
    char name[MAX_STR + 64];
    size_t n = ludus__utf8_clean(si->name, si->name_len, name, MAX_STR - 64); /* room for the series */
    if (series) n += (size_t)snprintf(name + n, sizeof name - n, " %s", ludus__stats[series - 1].series);
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 0, s->seq, 0);
    p = ludus__pb_open(p, TP_TRACK_DESC, &m);
    p = ludus__pb_uint(p, 1, COUNTER_UUID(site, series));
    p = ludus__pb_str(p, 2, name, n);
    p = ludus__pb_uint(p, 5, PROCESS_UUID);
    p = ludus__pb_open(p, 8, &m2); /* CounterDescriptor: unit (3) COUNT = 2, SIZE_BYTES = 3 */
    if (series) p = ludus__pb_uint(p, 3, ludus__stats[series - 1].unit[0] ? 3 : 2);
    p = ludus__pb_close(p, m2);
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    s->counter_described[(size_t)site * LUDUS__SERIES_PER_SITE + series] = 1;
}

/* The annotation names a slice end's flags need. */
static void end_flags(const ludus__nev *ev, need *n, int *da, int *nda) {
    *nda = 0;
    if (ev->flags & LUDUS_NEV_INCOMPLETE) da[(*nda)++] = DA_INCOMPLETE;
    if (ev->flags & LUDUS_NEV_UNWOUND) da[(*nda)++] = DA_UNWOUND;
    if (ev->flags & LUDUS_NEV_CLIPPED) da[(*nda)++] = DA_CLIPPED;
    n->da1 = *nda > 0 ? da[0] : 0;
    n->da2 = *nda > 1 ? da[1] : 0;
}

/* A log message: an instant named by its text (not interned: texts are
 * mostly distinct), category "log", the level as an annotation. */
/* A scope annotation as a debug annotation {name, typed value}; names are
 * cut at 1 KiB so that a slice's end with every annotation fits the writer's
 * buffer (LUDUS__SLICE_ARGS_MAX of them, texts of at most 1 KiB). */
#define ARG_NAME_MAX 1024u
#define ARGS_PACKET (LUDUS__SLICE_ARGS_MAX * (ARG_NAME_MAX + LUDUS_ANNOTATION_TEXT_MAX + 32) + 256)
static uint8_t *da_arg(pf_state *s, uint8_t *p, const ludus__nev *ev) {
    const ludus__site_info *si = &s->c->sites[ev->site];
    uint8_t *m;
    p = ludus__pb_open(p, TE_DEBUG, &m);
    p = ludus__pb_str_max(p, 10, si->name, si->name_len, ARG_NAME_MAX);
    switch (ludus__nevs[ev->kind].value) {
    case LUDUS__V_I64:
        p = ludus__pb_int(p, 4, (int64_t)ev->value);
        break;
    case LUDUS__V_U64:
        p = ludus__pb_uint(p, 3, ev->value);
        break;
    case LUDUS__V_F64:
        p = ludus__pb_fixed64(p, 5, ev->value);
        break;
    default: {
        size_t n;
        const char *t = ludus__arg_text(s->it, ev, &n);
        p = ludus__pb_str_max(p, 6, t, n, LUDUS_ANNOTATION_TEXT_MAX);
        break;
    }
    }
    return ludus__pb_close(p, m);
}

/* An annotation with no scope open: an instant of its own. */
static void write_lone_arg(pf_state *s, const ludus__nev *ev) {
    uint8_t *pm, *m;
    const ludus__site_info *si = &s->c->sites[ev->site];
    uint8_t *p = ludus__pb_reserve(s->w, ARGS_PACKET);
    p = packet_open(s, p, &pm, ts_of(ev), 1, s->seq, 0);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_bytes(p, TE_CATEGORIES, "annotation", 10);
    p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
    p = ludus__pb_str(p, TE_NAME, si->name, si->name_len);
    p = da_arg(s, p, ev);
    p = da_str(p, "ludus", "annotation without an open scope");
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

static void write_message(pf_state *s, const ludus__nev *ev) {
    uint8_t *pm, *m;
    size_t n;
    const char *text = ludus__nev_text(s->it, ev, &n);
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, ts_of(ev), 1, s->seq, 0);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_bytes(p, TE_CATEGORIES, "log", 3);
    p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
    p = ludus__pb_str(p, TE_NAME, text, n);
    p = da_str(p, "level", ludus_log_level_name((int)ev->value));
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

/* ---- async zones: on their own sequence, a track per lane of each async
 * track (a child of the process), slices begun and ended there; the zone's
 * id as an annotation. Each lane is written as a walk of its nesting (a
 * zone ends before the next zone that is not inside it begins), so a
 * zero-length zone, or one that begins where another ends, can never come
 * out with its end before its begin; Perfetto sorts the lanes' events by
 * time. ---- */

/* What the lane order compares, copied out of the zones: the sort needs no
 * pointer to the capture (qsort has no context argument, and a file-scope
 * one would be shared by two threads exporting two captures). */
typedef struct lane_key {
    uint32_t track, lane;
    int64_t begin_ns;
    uint32_t depth, index;
} lane_key;

static int cmp_lane_order(const void *x, const void *y) {
    const lane_key *a = x, *b = y;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    if (a->lane != b->lane) return a->lane < b->lane ? -1 : 1;
    if (a->begin_ns != b->begin_ns) return a->begin_ns < b->begin_ns ? -1 : 1;
    if (a->depth != b->depth) return a->depth < b->depth ? -1 : 1;
    return a->index < b->index ? -1 : 1;
}

static uint64_t async_uuid(const pf_state *s, uint32_t track, uint32_t lane) {
    uint64_t base = 2u + (uint64_t)s->c->nthreads * LUDUS__MAX_LANES + (uint64_t)s->c->nsites * LUDUS__SERIES_PER_SITE;
    uint64_t off = 0;
    for (uint32_t t = 0; t < track; t++) off += s->c->async.tracks[t].lanes;
    return base + off + lane;
}

static void async_edge(pf_state *s, const ludus__async_zone *z, int begin) {
    const ludus__captured *c = s->c;
    uint8_t *pm, *m;
    int64_t ts = begin ? z->begin_ns : z->end_ns;
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, ts < 0 ? 0 : (uint64_t)ts, 1, s->seq, 0);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_uint(p, TE_TRACK_UUID, async_uuid(s, z->track, z->lane));
    if (begin) {
        const char *name = z->site != UINT32_MAX ? c->sites[z->site].name : "<begin cut away>";
        p = ludus__pb_bytes(p, TE_CATEGORIES, "async", 5);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_SLICE_BEGIN);
        p = ludus__pb_str(p, TE_NAME, name, strlen(name));
        p = da_u64(p, "id", z->id);
        if (z->flags & LUDUS_NEV_CLIPPED) p = da_u64(p, "clipped", 1);
    } else {
        p = ludus__pb_uint(p, TE_TYPE, TYPE_SLICE_END);
        if (z->flags & LUDUS_NEV_INCOMPLETE) p = da_u64(p, "incomplete", 1);
        if (z->flags & LUDUS__ASYNC_END_CLIPPED) p = da_u64(p, "clipped", 1);
    }
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

static int write_async(pf_state *s) {
    const ludus__captured *c = s->c;
    if (c->async.n == 0) return 0;
    uint32_t *order = ludus__malloc((size_t)c->async.n * sizeof *order),
             *stack = ludus__malloc((size_t)c->async.n * sizeof *stack);
    if (!order || !stack) {
        ludus__free(order);
        ludus__free(stack);
        return LUDUS_ENOMEM;
    }
    lane_key *keys = ludus__malloc((size_t)c->async.n * sizeof *keys);
    if (!keys) {
        ludus__free(order);
        ludus__free(stack);
        return LUDUS_ENOMEM;
    }
    for (uint32_t i = 0; i < c->async.n; i++) {
        const ludus__async_zone *z = &c->async.zones[i];
        keys[i] = (lane_key){z->track, z->lane, z->begin_ns, z->depth, i};
    }
    ludus__qsort(keys, c->async.n, sizeof *keys, cmp_lane_order);
    for (uint32_t i = 0; i < c->async.n; i++) order[i] = keys[i].index;
    ludus__free(keys);
    s->seq = c->nthreads + 2;
    s->incremental = 0;
    uint8_t *pm, *m;
    for (uint32_t t = 0; t < c->async.ntracks; t++) {
        const ludus__async_track *k = &c->async.tracks[t];
        const char *tn = k->site != UINT32_MAX ? c->sites[k->site].name : "<invalid track>";
        for (uint32_t lane = 0; lane < k->lanes; lane++) {
            char name[MAX_STR + 32];
            size_t len = ludus__utf8_clean(tn, strlen(tn), name, MAX_STR - 32); /* room for the lane */
            if (lane) len += (size_t)snprintf(name + len, sizeof name - len, " (%u)", lane + 1);
            uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
            p = packet_open(s, p, &pm, 0, 0, s->seq, t == 0 && lane == 0 ? SEQ_CLEARED : 0);
            p = ludus__pb_open(p, TP_TRACK_DESC, &m);
            p = ludus__pb_uint(p, 1, async_uuid(s, t, lane));
            p = ludus__pb_str(p, 2, name, len);
            p = ludus__pb_uint(p, 5, PROCESS_UUID);
            p = ludus__pb_close(p, m);
            ludus__pb_commit(s->w, ludus__pb_close(p, pm));
        }
    }
    /* per lane, in begin order: a zone's parent is the open zone of its id
     * one level up; everything else open on the lane has ended by then */
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->async.n && !s->w->failed; i++) {
        const ludus__async_zone *z = &c->async.zones[order[i]];
        if (i > 0) {
            const ludus__async_zone *prev = &c->async.zones[order[i - 1]];
            if (prev->track != z->track || prev->lane != z->lane)
                while (n) async_edge(s, &c->async.zones[stack[--n]], 0);
        }
        while (n) {
            const ludus__async_zone *top = &c->async.zones[stack[n - 1]];
            if (top->id == z->id && top->depth + 1 == z->depth) break; /* its parent */
            async_edge(s, top, 0);
            n--;
        }
        async_edge(s, z, 1);
        stack[n++] = order[i];
    }
    while (n && !s->w->failed) async_edge(s, &c->async.zones[stack[--n]], 0);
    ludus__free(order);
    ludus__free(stack);
    return 0;
}

/* ---- GPU timing (gpu.c): on a sequence of its own, a track per lane of
 * each GPU context (a child of the process, named after the queue, with
 * "(uncalibrated)" when no calibration placed it), its passes slices begun
 * and ended there (category "gpu", annotations frame, device_ns, error_ns,
 * submit_ns), a pass whose submitter started a flow terminating it; a
 * counter track per context for the frame samples; the context's coverage
 * and calibration as an instant at 0 on its first lane. ---- */

static uint64_t gpu_uuid(const pf_state *s, uint32_t k, uint32_t lane) {
    uint64_t base = async_uuid(s, s->c->async.ntracks, 0);
    return base + (uint64_t)k * (LUDUS__MAX_LANES + 1) + lane;
}
#define GPU_COUNTER_LANE LUDUS__MAX_LANES

static void gpu_track(pf_state *s, uint64_t uuid, const char *name, int counter, int first) {
    uint8_t *pm, *m, *m2;
    uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
    p = packet_open(s, p, &pm, 0, 0, s->seq, first ? SEQ_CLEARED : 0);
    p = ludus__pb_open(p, TP_TRACK_DESC, &m);
    p = ludus__pb_uint(p, 1, uuid);
    p = ludus__pb_str(p, 2, name, strlen(name));
    p = ludus__pb_uint(p, 5, PROCESS_UUID);
    if (counter) {
        p = ludus__pb_open(p, 8, &m2);
        p = ludus__pb_close(p, m2);
    }
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

static void write_gpu(pf_state *s) {
    static const char *const cov_names[] = {
#define COV_NAME(name, text, meaning) text,
        LUDUS_GPU_COVERAGE(COV_NAME)
#undef COV_NAME
    };
    const ludus__captured *c = s->c;
    const ludus__gpu_data *g = ludus__gpu_of(c);
    if (!g || !g->nctx) return;
    s->seq = c->nthreads + 3;
    s->incremental = 0;
    char name[160];
    uint8_t *pm, *m;
    for (uint32_t k = 0; k < g->nctx && !s->w->failed; k++) {
        const ludus__gpu_ctx *gc = &g->ctx[k];
        for (uint32_t lane = 0; lane < (gc->lanes ? gc->lanes : 1); lane++) {
            ludus__gpu_track_name(gc, lane, name, sizeof name);
            gpu_track(s, gpu_uuid(s, k, lane), name, 0, k == 0 && lane == 0);
        }
        snprintf(name, sizeof name, "%s frame time (ns)", gc->name);
        gpu_track(s, gpu_uuid(s, k, GPU_COUNTER_LANE), name, 1, 0);
        uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
        p = packet_open(s, p, &pm, 0, 1, s->seq, 0);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
        p = ludus__pb_uint(p, TE_TRACK_UUID, gpu_uuid(s, k, 0));
        p = ludus__pb_bytes(p, TE_NAME, "ludus gpu", 9);
        p = da_str(p, "device", gc->device);
        p = da_u64(p, "queue", gc->queue);
        p = da_u64(p, "calibrated", (uint64_t)gc->calibrated);
        p = da_u64(p, "calibration_points", gc->ncal);
        p = da_u64(p, "calibration_breaks", gc->breaks);
        p = da_i64(p, "max_error_ns", gc->max_error_ns);
        p = da_u64(p, "valid_bits", gc->valid_bits);
        for (int v = 0; v < LUDUS_GPU_COVERAGE_COUNT; v++) p = da_u64(p, cov_names[v], gc->cov[v]);
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    }
    for (uint64_t i = 0; i < g->ns && !s->w->failed; i++) {
        const ludus__gpu_sample *x = &g->s[i];
        if (!ludus__gpu_shown(c, x)) continue;
        uint64_t b = x->begin_ns < 0 ? 0 : (uint64_t)x->begin_ns, e = x->end_ns < 0 ? 0 : (uint64_t)x->end_ns;
        uint8_t *p = ludus__pb_reserve(s->w, LUDUS__PB_MAX_PACKET);
        p = packet_open(s, p, &pm, b, 1, s->seq, 0);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        if (x->name == UINT32_MAX) { /* P1: the frame's GPU time */
            p = ludus__pb_uint(p, TE_TYPE, TYPE_COUNTER);
            p = ludus__pb_uint(p, TE_TRACK_UUID, gpu_uuid(s, x->ctx, GPU_COUNTER_LANE));
            p = ludus__pb_int(p, TE_COUNTER_VALUE, x->device_ns);
            p = ludus__pb_close(p, m);
            ludus__pb_commit(s->w, ludus__pb_close(p, pm));
            continue;
        }
        const char *pn = g->names[x->name];
        p = ludus__pb_uint(p, TE_TRACK_UUID, gpu_uuid(s, x->ctx, x->lane));
        p = ludus__pb_bytes(p, TE_CATEGORIES, "gpu", 3);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_SLICE_BEGIN);
        p = ludus__pb_str(p, TE_NAME, pn, strlen(pn));
        p = da_u64(p, "frame", x->frame);
        p = da_i64(p, "device_ns", x->device_ns);
        p = da_i64(p, "error_ns", x->error_ns);
        p = da_i64(p, "submit_ns", x->submit_ns);
        if (x->flags & LUDUS_GPU_SPAN_UNCALIBRATED) p = da_u64(p, "uncalibrated", 1);
        if (x->flags & LUDUS_GPU_SPAN_EXTRAPOLATED) p = da_u64(p, "extrapolated", 1);
        if (x->flow_id) p = ludus__pb_fixed64(p, TE_TERMINATING_FLOW_IDS, x->flow_id);
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
        p = ludus__pb_reserve(s->w, 64);
        p = packet_open(s, p, &pm, e, 1, s->seq, 0);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_SLICE_END);
        p = ludus__pb_uint(p, TE_TRACK_UUID, gpu_uuid(s, x->ctx, x->lane));
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    }
}

static void pb_write_event(pf_state *s, const ludus__nev *ev) {
    const ludus__captured *c = s->c;
    const ludus__nev_info *ni = &ludus__nevs[ev->kind];
    uint8_t *pm, *m;
    uint64_t ts = ts_of(ev);
    if (ev->lane) describe_lane(s, ev->lane);
    if (ni->pftrace == LUDUS__TR_SLICE_END) { /* the common case: no interning unless flagged */
        need n = {UINT32_MAX, 0, 0, 0, 0};
        int da[3], nda = 0;
        const ludus__nev *args;
        uint32_t nargs = ludus__slice_args_take(&s->args, ev->lane, ev->depth, &args);
        if (ev->flags & (LUDUS_NEV_INCOMPLETE | LUDUS_NEV_UNWOUND | LUDUS_NEV_CLIPPED)) end_flags(ev, &n, da, &nda);
        uint8_t *p = ludus__pb_reserve(s->w, nargs ? ARGS_PACKET : nda ? 256 : 64);
        p = packet_open(s, p, &pm, ts, 1, s->seq, 0);
        if (nda) p = write_interned(s, p, &n);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_SLICE_END);
        if (ev->lane) p = ludus__pb_uint(p, TE_TRACK_UUID, LANE_UUID(s->thread, ev->lane));
        for (int i = 0; i < nda; i++) p = da_bool_iid(p, da[i]);
        for (uint32_t i = 0; i < nargs; i++) p = da_arg(s, p, &args[i]);
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
        return;
    }
    if (ni->pftrace == LUDUS__TR_COUNTER_I64 || ni->pftrace == LUDUS__TR_COUNTER_F64) {
        if (ev->site == UINT32_MAX) return;
        if (!s->counter_described[(size_t)ev->site * LUDUS__SERIES_PER_SITE + ev->series])
            describe_counter(s, ev->site, ev->series);
        uint8_t *p = ludus__pb_reserve(s->w, 64);
        p = packet_open(s, p, &pm, ts, 1, s->seq, 0);
        p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
        p = ludus__pb_uint(p, TE_TYPE, TYPE_COUNTER);
        p = ludus__pb_uint(p, TE_TRACK_UUID, COUNTER_UUID(ev->site, ev->series));
        if (ni->pftrace == LUDUS__TR_COUNTER_I64)
            p = ludus__pb_int(p, TE_COUNTER_VALUE, (int64_t)ev->value);
        else
            p = ludus__pb_fixed64(p, TE_DOUBLE_COUNTER_VALUE, ev->value);
        p = ludus__pb_close(p, m);
        ludus__pb_commit(s->w, ludus__pb_close(p, pm));
        return;
    }
    if (ni->pftrace == LUDUS__TR_NONE) return;
    if (ni->pftrace == LUDUS__TR_ARG) {
        if (ev->depth == UINT32_MAX)
            write_lone_arg(s, ev);
        else
            ludus__slice_args_add(&s->args, s->c, ev);
        return;
    }
    if (ni->pftrace == LUDUS__TR_MESSAGE) {
        write_message(s, ev);
        return;
    }
    /* Slice begins, instants, frames, flows: a name and a category. */
    need n = {UINT32_MAX, 0, 0, 0, 0};
    uint64_t name_iid, cat_iid;
    const ludus__site_info *si = ev->site != UINT32_MAX ? &c->sites[ev->site] : NULL;
    int type = ni->pftrace == LUDUS__TR_SLICE_BEGIN ? TYPE_SLICE_BEGIN : TYPE_INSTANT;
    if (si && !(ni->pftrace == LUDUS__TR_FLOW_IN)) {
        n.site = ev->site;
        name_iid = ev->site + 1u + XN_COUNT;
    } else {
        n.xn = ni->label ? XN_LABEL + ev->kind : XN_FLOW;
        name_iid = (uint64_t)n.xn;
    }
    if (si && si->category && !(ni->pftrace == LUDUS__TR_FLOW_IN)) {
        cat_iid = ev->site + 1u + XC_COUNT;
    } else {
        n.xc = XC_CAT + ev->kind;
        cat_iid = (uint64_t)n.xc;
    }
    if (ev->kind == LUDUS_NEV_FRAME) n.da1 = DA_FRAME;
    if (ev->kind == LUDUS_NEV_LOSS) n.da1 = DA_LOST;
    if (ev->kind == LUDUS_NEV_MISMATCH) n.da1 = DA_MISMATCH;
    if (ev->flags & LUDUS_NEV_CLIPPED) n.da2 = DA_CLIPPED;
    int fresh = needs_any(s, &n);
    uint8_t *p = ludus__pb_reserve(s->w, fresh ? LUDUS__PB_MAX_PACKET : 96);
    p = packet_open(s, p, &pm, ts, 1, s->seq, 0);
    if (fresh) p = write_interned(s, p, &n);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_uint(p, TE_CATEGORY_IIDS, cat_iid);
    p = ludus__pb_uint(p, TE_TYPE, (uint64_t)type);
    p = ludus__pb_uint(p, TE_NAME_IID, name_iid);
    if (ev->lane) p = ludus__pb_uint(p, TE_TRACK_UUID, LANE_UUID(s->thread, ev->lane));
    if (ni->pftrace == LUDUS__TR_FLOW_OUT) p = ludus__pb_fixed64(p, TE_FLOW_IDS, ev->value);
    if (ni->pftrace == LUDUS__TR_FLOW_IN) p = ludus__pb_fixed64(p, TE_TERMINATING_FLOW_IDS, ev->value);
    if (ev->kind == LUDUS_NEV_FRAME || ev->kind == LUDUS_NEV_LOSS) {
        uint8_t *dm;
        p = ludus__pb_open(p, TE_DEBUG, &dm);
        p = ludus__pb_uint(p, 1, (uint64_t)n.da1);
        p = ludus__pb_uint(p, 3, ev->value);
        p = ludus__pb_close(p, dm);
    }
    if (ev->kind == LUDUS_NEV_MISMATCH) p = da_bool_iid(p, DA_MISMATCH);
    if (ev->flags & LUDUS_NEV_CLIPPED) p = da_bool_iid(p, DA_CLIPPED);
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
    /* its name and category are interned on this sequence now: later begins
     * of the site take the common packet (write_thread_events) */
    if (n.site != UINT32_MAX)
        for (int k = 0; k < FAST_KINDS; k++)
            if (ev->kind == fast_kinds[k].kind) s->fast_seq[n.site][k] = s->seq;
}

/* ---- the common packets, from bytes made once ---- */

/* Each site's slice begin and mark as a track_event {category_iids, type,
 * name_iid}: the iids write_event gives it (the category's own, or the
 * kind's). */
static int build_site_te(pf_state *s) {
    const ludus__captured *c = s->c;
    size_t n = c->nsites ? c->nsites : 1;
    s->site_te = ludus__malloc(n * sizeof *s->site_te);
    s->site_te_n = ludus__malloc(n * sizeof *s->site_te_n);
    s->fast_seq = ludus__calloc(n, sizeof *s->fast_seq); /* 0: no sequence */
    if (!s->site_te || !s->site_te_n || !s->fast_seq) return -1;
    for (uint32_t i = 0; i < c->nsites; i++)
        for (int k = 0; k < FAST_KINDS; k++) {
            uint8_t *p = s->site_te[i][k], *m;
            uint64_t cat = c->sites[i].category ? i + 1u + XC_COUNT : (uint64_t)(XC_CAT + fast_kinds[k].kind);
            p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
            p = ludus__pb_uint(p, TE_CATEGORY_IIDS, cat);
            p = ludus__pb_uint(p, TE_TYPE, fast_kinds[k].type);
            p = ludus__pb_uint(p, TE_NAME_IID, i + 1u + XN_COUNT);
            s->site_te_n[i][k] = (uint8_t)(ludus__pb_close(p, m) - s->site_te[i][k]); /* at most 2 + 4 + 2 + 4 */
        }
    return 0;
}

/* A packet {timestamp: delta, then b[0, n) and b2[0, n2)} at q (n <= 8,
 * n2 <= 16: fixed-size copies, inlined; the bytes past n are overwritten
 * or left out). Returns its end; at most 2 + 1 + 10 + 8 + 16 bytes. */
#define FAST_PACKET_MAX 40
static inline uint8_t *fast_packet(uint8_t *p, uint64_t delta, const uint8_t *b, size_t n, const uint8_t *b2,
                                   size_t n2) {
    uint8_t *q = p + 3;
    p[0] = 0x0A; /* Trace.packet */
    p[2] = (TP_TIMESTAMP << 3) | LUDUS__PB_VARINT;
    if (delta < 0x80)
        *q++ = (uint8_t)delta;
    else
        q = ludus__varint_put(q, delta);
    memcpy(q, b, 8);
    q += n;
    memcpy(q, b2, 16);
    q += n2;
    p[1] = (uint8_t)(q - p - 2);
    return q;
}

/* A thread's events. The common packets are written at a pointer of this
 * loop's own, room for a batch of them reserved at once: a slice begin on
 * the thread's track whose packet is ready (fast_seq: its name and category
 * interned on this sequence) and a slice end there with nothing to
 * annotate, each at or after the sequence's last time; the rest through
 * write_event, the pointer committed first. */
static void write_thread_events(pf_state *s, ludus__nev_iter *it) {
    ludus__writer *w = s->w;
    /* what the common packets read, in locals (the packets' byte stores
     * could alias anything, so fields of s would be read again per event);
     * what write_event changes is read again after it */
    const uint32_t seq = s->seq;
    uint32_t(*const fast_seq)[FAST_KINDS] = s->fast_seq;
    uint8_t(*const te)[FAST_KINDS][16] = s->site_te;
    uint8_t(*const te_n)[FAST_KINDS] = s->site_te_n;
    const uint8_t *const seq_bytes = s->seq_bytes, *const end_bytes = s->end_bytes;
    const size_t seq_n = s->seq_n, end_n = s->end_n;
    while (!w->failed && ludus__nev_fill(it)) {
        const ludus__nev *ev = it->ob, *const end = ev + it->on;
        it->opos = it->on;
        uint8_t *p = ludus__pb_reserve(w, (size_t)(end - ev) * FAST_PACKET_MAX);
        uint64_t last = s->last_ts;
        int no_args = s->args.lane[0].n == 0; /* no annotation waits on the track (slice_args_take: none) */
        for (; ev < end; ev++) {
            /* a time before the last (a negative one too, last >= 0) takes write_event */
            if (ev->ts_ns >= (int64_t)last && (ev->lane | (ev->flags & LUDUS_NEV_CLIPPED)) == 0) {
                const uint64_t ts = (uint64_t)ev->ts_ns;
                if (ev->kind == LUDUS_NEV_BEGIN && fast_seq[ev->site][0] == seq) {
                    p = fast_packet(p, ts - last, seq_bytes, seq_n, te[ev->site][0], te_n[ev->site][0]);
                    last = ts;
                    continue;
                }
                if (ev->kind == LUDUS_NEV_END && !(ev->flags & (LUDUS_NEV_INCOMPLETE | LUDUS_NEV_UNWOUND)) && no_args) {
                    /* end_n is 6 .. 10 (the sequence id's varint): past 8 bytes the rest goes as b2 */
                    p = fast_packet(p, ts - last, end_bytes, end_n < 8 ? end_n : 8, end_bytes + 8,
                                    end_n > 8 ? end_n - 8 : 0);
                    last = ts;
                    continue;
                }
                if (ev->kind == LUDUS_NEV_MARK && ev->site != UINT32_MAX && fast_seq[ev->site][1] == seq) {
                    p = fast_packet(p, ts - last, seq_bytes, seq_n, te[ev->site][1], te_n[ev->site][1]);
                    last = ts;
                    continue;
                }
            }
            ludus__pb_commit(w, p);
            s->last_ts = last;
            pb_write_event(s, ev);
            last = s->last_ts;
            no_args = s->args.lane[0].n == 0;
            p = ludus__pb_reserve(w, (size_t)(end - ev) * FAST_PACKET_MAX);
        }
        ludus__pb_commit(w, p);
        s->last_ts = last;
    }
}

/* Annotations past a slice's LUDUS__SLICE_ARGS_MAX keys, and values a
 * later one of the same key replaced: counted in an instant on the metadata
 * sequence, as the other counts. */
static void write_args_dropped(pf_state *s) {
    uint8_t *pm, *m;
    uint8_t *p = ludus__pb_reserve(s->w, 256);
    p = packet_open(s, p, &pm, 0, 1, META_SEQ, 0);
    p = ludus__pb_open(p, TP_TRACK_EVENT, &m);
    p = ludus__pb_uint(p, TE_TYPE, TYPE_INSTANT);
    p = ludus__pb_uint(p, TE_TRACK_UUID, PROCESS_UUID);
    p = ludus__pb_bytes(p, TE_NAME, "ludus annotations", 17);
    p = da_u64(p, "annotations_dropped", s->args.dropped);
    p = da_u64(p, "annotations_superseded", s->args.superseded);
    p = ludus__pb_close(p, m);
    ludus__pb_commit(s->w, ludus__pb_close(p, pm));
}

int ludus__export_pftrace(ludus__captured *c, ludus__writer *w, unsigned flags) {
    (void)flags;
    pf_state s;
    memset(&s, 0, sizeof s);
    s.w = w;
    s.c = c;
    s.name_seq = ludus__calloc(c->nsites ? c->nsites : 1, sizeof *s.name_seq);
    s.counter_described = ludus__calloc(c->nsites ? c->nsites : 1, LUDUS__SERIES_PER_SITE);
    if (!s.name_seq || !s.counter_described || build_site_te(&s) != 0) {
        ludus__free(s.name_seq);
        ludus__free(s.counter_described);
        ludus__free(s.site_te);
        ludus__free(s.site_te_n);
        ludus__free(s.fast_seq);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int rc = write_process(&s);
    for (uint32_t t = 0; t < c->nthreads && !w->failed && rc == 0; t++) {
        s.seq = t + 2;
        write_thread_head(&s, t);
        ludus__nev_iter it;
        rc = ludus__nev_init(&it, c, t);
        s.it = &it;
        ludus__slice_args_reset(&s.args);
        if (rc == 0) write_thread_events(&s, &it);
        if (rc == 0) rc = ludus__nev_error(&it);
        ludus__nev_free(&it);
    }
    if (rc == 0 && !w->failed) rc = ludus__async_ensure(c);
    if (rc == 0 && !w->failed) rc = write_async(&s);
    if (rc == 0 && !w->failed) write_gpu(&s);
    if (rc == 0 && !w->failed && (s.args.dropped || s.args.superseded)) write_args_dropped(&s);
    ludus__slice_args_free(&s.args);
    ludus__free(s.name_seq);
    ludus__free(s.counter_described);
    ludus__free(s.site_te);
    ludus__free(s.site_te_n);
    ludus__free(s.fast_seq);
    if (rc == LUDUS_ENOMEM) return ludus__fail(rc, "out of memory during the export");
    return rc ? rc : (w->failed ? LUDUS_EIO : 0);
}
