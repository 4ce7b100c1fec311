/* Chrome/Perfetto JSON export of the last ended capture (trace-formats.md
 * part A). Streams thread by thread through the bounded writer; times are ns
 * since capture start written as microseconds with three decimals from
 * integers. Each thread's events stay together in the file: the DevTools
 * engine pairs B/E with one stack in file order across threads. Speed: each
 * site's ,"name":..,"cat":.. and each thread's ,"pid":..,"tid":..,"ts": are
 * formatted once and copied per event.
 * Flows: each end of a flow is a 1 ns slice with an s/f event at the
 * same pid, tid, category and timestamp, so DevTools (which binds v1 flows
 * only that way) and Perfetto (which binds to the enclosing slice) agree. */
#include <stdlib.h>
#include <string.h>

#include "../capture/capture_internal.h"
#include "export_internal.h"
#include "writer.h"

/* Per-export formatting state: the pid/tid part of the current thread's
 * events and every site's name/category snippet (memory bounded by sites). */
typedef struct json_ctx {
    char tid_part[96]; /* ","pid":P,"tid":T,"ts": */
    size_t tid_len;
    ludus__writer *sn; /* scratch writer the snippets are formatted into */
    char *snip;        /* all snippets, back to back */
    size_t *snip_off;  /* nsites + 1 offsets */
    const ludus__site_info *sites;
    size_t nsites;
} json_ctx;

static json_ctx *cur_ctx; /* control calls come from one thread */

static void set_thread(json_ctx *x, int pid, uint64_t tid) {
    char *p = x->tid_part;
    memcpy(p, "\",\"pid\":", 8);
    p += 8;
    if (pid < 0) *p++ = '-';
    p = ludus__fmt_u64(p, pid < 0 ? (uint64_t)0 - (uint64_t)(int64_t)pid : (uint64_t)pid);
    memcpy(p, ",\"tid\":", 7);
    p += 7;
    p = ludus__fmt_u64(p, tid);
    memcpy(p, ",\"ts\":", 6);
    p += 6;
    x->tid_len = (size_t)(p - x->tid_part);
}

static void head_x(ludus__writer *w, const json_ctx *x, char ph, int64_t ts) {
    char *p = ludus__w_reserve(w, 48 + sizeof x->tid_part);
    memcpy(p, ",\n{\"ph\":\"", 9);
    p[9] = ph;
    p += 10;
    memcpy(p, x->tid_part, sizeof x->tid_part); /* fixed size: inlined, no call */
    p += x->tid_len;
    ludus__w_commit(w, ludus__fmt_us(p, ts));
}

static void head(ludus__writer *w, const char *ph, int pid, uint64_t tid, int64_t ts) {
    if (cur_ctx) {
        head_x(w, cur_ctx, ph[0], ts);
        return;
    }
    json_ctx x;
    set_thread(&x, pid, tid);
    head_x(w, &x, ph[0], ts);
}

static void name_cat_fmt(ludus__writer *w, const ludus__site_info *s, const char *default_cat) {
    ludus__w_str(w, ",\"name\":");
    ludus__w_json_str(w, s->name, s->name_len);
    ludus__w_str(w, ",\"cat\":");
    if (s->category)
        ludus__w_json_str(w, s->category, s->category_len);
    else
        ludus__w_json_str(w, default_cat, strlen(default_cat));
}

static void name_cat(ludus__writer *w, const ludus__site_info *s, const char *default_cat) {
    const json_ctx *x = cur_ctx;
    if (x && x->snip && !strcmp(default_cat, "default")) {
        size_t i = (size_t)(s - x->sites);
        size_t n = x->snip_off[i + 1] - x->snip_off[i];
        if (n <= 64) {
            /* Copy a fixed 64 bytes (inlined) and keep n: the block has 64
             * bytes of padding, and the extra bytes are overwritten. */
            char *p = ludus__w_reserve(w, 64);
            memcpy(p, x->snip + x->snip_off[i], 64);
            ludus__w_commit(w, p + n);
        } else {
            ludus__w_bytes(w, x->snip + x->snip_off[i], n);
        }
        return;
    }
    name_cat_fmt(w, s, default_cat);
}

/* Formats every site's snippet once, into one malloc'd block. */
static int snip_write(void *ud, const void *data, size_t n) {
    json_ctx *x = ud;
    size_t have = x->snip_off[0]; /* running length kept in slot 0 while building */
    char *b = realloc(x->snip, have + n);
    if (!b) return -1;
    memcpy(b + have, data, n);
    x->snip = b;
    x->snip_off[0] = have + n;
    return 0;
}

static int build_snippets(json_ctx *x, const ludus__captured *c) {
    x->snip = NULL;
    x->sites = c->sites;
    x->nsites = c->nsites;
    x->snip_off = malloc((c->nsites + 1) * sizeof *x->snip_off);
    x->sn = malloc(sizeof *x->sn);
    if (!x->snip_off || !x->sn) return -1;
    size_t *ends = malloc((c->nsites + 1) * sizeof *ends);
    if (!ends) return -1;
    x->snip_off[0] = 0;
    ludus__w_init(x->sn, snip_write, x);
    for (uint32_t i = 0; i < c->nsites; i++) {
        name_cat_fmt(x->sn, &c->sites[i], "default");
        ends[i] = (size_t)x->sn->bytes;
    }
    int rc = ludus__w_flush(x->sn);
    char *padded = realloc(x->snip, x->snip_off[0] + 64);
    if (!padded)
        rc = -1;
    else
        x->snip = padded;
    x->snip_off[0] = 0;
    for (uint32_t i = 0; i < c->nsites; i++) x->snip_off[i + 1] = ends[i];
    free(ends);
    return rc;
}

static void free_snippets(json_ctx *x) {
    free(x->snip);
    free(x->snip_off);
    free(x->sn);
}

static void hex_id(ludus__writer *w, uint64_t id) {
    static const char hex[] = "0123456789abcdef";
    char tmp[20];
    int i = 20;
    do {
        tmp[--i] = hex[id & 15];
        id >>= 4;
    } while (id);
    ludus__w_str(w, ",\"id\":\"0x");
    ludus__w_bytes(w, tmp + i, (size_t)(20 - i));
    ludus__w_ch(w, '"');
}

/* One end of a flow: a 1 ns slice (cat "flow") and the s/f event at the same
 * pid, tid, category and timestamp, which DevTools needs to bind it. The
 * slice is synthetic, so it is placed where it ties with nothing: DevTools
 * and speedscope misorder a slice that ends at the very ns the thread's next
 * event begins. It goes at the flow's time t when that leaves a 1 ns gap
 * before the next event, else as close before t as the previous event allows
 * (the demo's job starts its first scope within 1 ns of its flow). Returns
 * the end of the slice. */
static int64_t flow_end(ludus__writer *w, int pid, uint64_t tid, const ludus__nev *ev, int64_t prev_ns, int64_t next_ns,
                        const char *slice_name, size_t name_len, int out) {
    int64_t at = ev->ts_ns;
    if (next_ns != INT64_MAX && at > next_ns - 2) at = next_ns - 2;
    if (prev_ns != INT64_MIN && at < prev_ns + 1) at = prev_ns + 1;
    if (next_ns != INT64_MAX && at > next_ns - 2) at = ev->ts_ns; /* no room: keep t */
    head(w, "X", pid, tid, at);
    ludus__w_str(w, ",\"dur\":0.001,\"name\":");
    ludus__w_json_str(w, slice_name, name_len);
    ludus__w_str(w, ",\"cat\":\"flow\"}");
    head(w, out ? "s" : "f", pid, tid, at);
    ludus__w_str(w, ",\"name\":\"flow\",\"cat\":\"flow\"");
    hex_id(w, ev->value);
    if (!out) ludus__w_str(w, ",\"bp\":\"e\"");
    ludus__w_ch(w, '}');
    return at + 1;
}

static void meta_kv_u64(ludus__writer *w, const char *k, uint64_t v) {
    ludus__w_str(w, ",\"");
    ludus__w_str(w, k);
    ludus__w_str(w, "\":");
    ludus__w_u64(w, v);
}

static void write_metadata(ludus__writer *w, const ludus__captured *c) {
    ludus__w_str(w, "\n],\n\"displayTimeUnit\":\"ns\",\n\"metadata\":{\"ludus_version\":\"" LUDUS_VERSION_STRING "\"");
    ludus__w_str(w, ",\"clock\":{\"source\":");
    ludus__w_str(w, c->clock_tsc ? "\"tsc\"" : "\"monotonic\"");
    ludus__w_str(w, ",\"domain\":\"CLOCK_MONOTONIC\"");
    /* Rate as the exact ratio of the calibration points (no float). */
    meta_kv_u64(w, "rate_ticks", c->c1.ticks - c->c0.ticks);
    meta_kv_u64(w, "rate_ns", (uint64_t)(c->c1.ns - c->c0.ns));
    ludus__w_str(w, ",\"calibration\":[");
    for (int i = 0; i < 2; i++) {
        const ludus__calib_point *p = i ? &c->c1 : &c->c0;
        ludus__w_str(w, i ? ",{\"ticks\":" : "{\"ticks\":");
        ludus__w_u64(w, p->ticks);
        ludus__w_str(w, ",\"ns\":");
        ludus__w_i64(w, p->ns);
        ludus__w_str(w, ",\"window_ns\":");
        ludus__w_i64(w, p->window_ns);
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "]}");
    ludus__w_str(w, ",\"capture_start_ns\":");
    ludus__w_i64(w, c->start_ns);
    ludus__w_str(w, ",\"capture_end_ns\":");
    ludus__w_i64(w, c->end_ns);
    ludus__w_str(w, ",\"time_origin\":\"ts 0 = capture_start_ns\"");
    meta_kv_u64(w, "events", c->events);
    meta_kv_u64(w, "dropped", c->dropped);
    meta_kv_u64(w, "unregistered_thread_drops", c->unregistered_drops);
    meta_kv_u64(w, "filtered", c->filtered);
    meta_kv_u64(w, "incomplete", c->incomplete);
    meta_kv_u64(w, "orphan_ends", c->orphan_ends);
    meta_kv_u64(w, "frames", c->frames);
    meta_kv_u64(w, "interner_drops", c->interner_drops);
    meta_kv_u64(w, "site_id_collisions", c->id_collisions);
    meta_kv_u64(w, "chunks_used", c->chunks_used);
    ludus__w_str(w, ",\"threads\":[");
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        ludus__w_str(w, t ? ",{\"tid\":" : "{\"tid\":");
        ludus__w_u64(w, th->tid);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, th->name, strlen(th->name));
        meta_kv_u64(w, "events", th->events);
        meta_kv_u64(w, "dropped", th->dropped);
        meta_kv_u64(w, "incomplete", th->incomplete);
        meta_kv_u64(w, "orphan_ends", th->orphan_ends);
        meta_kv_u64(w, "filtered", th->filtered);
        ludus__w_str(w, th->exited ? ",\"exited\":true}" : ",\"exited\":false}");
    }
    ludus__w_str(w, "],\"sites\":[");
    for (uint32_t i = 0; i < c->nsites; i++) {
        const ludus__site_info *s = &c->sites[i];
        ludus__w_str(w, i ? ",{\"id\":" : "{\"id\":");
        ludus__w_u64(w, s->id);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, s->name, s->name_len);
        ludus__w_str(w, ",\"file\":");
        ludus__w_json_str(w, s->file, strlen(s->file));
        ludus__w_str(w, ",\"line\":");
        ludus__w_u64(w, s->line);
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "]}}\n");
}

static void write_event(ludus__writer *w, const ludus__captured *c, const ludus__nev *ev, int pid, uint64_t tid) {
    const ludus__site_info *s = ev->site != UINT32_MAX ? &c->sites[ev->site] : NULL;
    switch (ev->kind) {
    case LUDUS_NEV_BEGIN:
        head(w, "B", pid, tid, ev->ts_ns);
        name_cat(w, s, "default");
        ludus__w_ch(w, '}');
        break;
    case LUDUS_NEV_END:
        /* The E repeats its B's name and category: DevTools pairs B/E
         * only when both match, speedscope when the names do, and the
         * args (empty unless incomplete) keep speedscope from merging
         * a slice with a same-named one that begins at the same ns. */
        head(w, "E", pid, tid, ev->ts_ns);
        name_cat(w, s, "default");
        ludus__w_str(w, (ev->flags & LUDUS_NEV_INCOMPLETE) ? ",\"args\":{\"incomplete\":true}}" : ",\"args\":{}}");
        break;
    case LUDUS_NEV_INSTANT:
        head(w, "i", pid, tid, ev->ts_ns);
        name_cat(w, s, "mark");
        ludus__w_str(w, ",\"s\":\"t\"}");
        break;
    case LUDUS_NEV_FRAME:
        head(w, "i", pid, tid, ev->ts_ns);
        ludus__w_str(w, ",\"name\":\"Frame\",\"cat\":\"frame\",\"s\":\"t\",\"args\":{\"frame\":");
        ludus__w_u64(w, ev->value);
        ludus__w_str(w, "}}");
        break;
    case LUDUS_NEV_COUNTER:
    case LUDUS_NEV_COUNTER_F64:
        head(w, "C", pid, tid, ev->ts_ns);
        ludus__w_str(w, ",\"name\":");
        ludus__w_json_str(w, s->name, s->name_len);
        ludus__w_str(w, ",\"args\":{\"value\":");
        if (ev->kind == LUDUS_NEV_COUNTER) {
            ludus__w_i64(w, (int64_t)ev->value);
        } else {
            double d;
            memcpy(&d, &ev->value, sizeof d);
            ludus__w_double(w, d);
        }
        ludus__w_str(w, "}}");
        break;
    }
}

static int export_json(ludus__captured *c, ludus__writer *w, json_ctx *x);

int ludus__export_chrome_json(ludus__captured *c, ludus__writer *w) {
    int rc = ludus__prepare(c);
    if (rc) return rc;
    json_ctx x;
    memset(&x, 0, sizeof x);
    if (build_snippets(&x, c) != 0) {
        free_snippets(&x);
        return LUDUS_ENOMEM;
    }
    rc = export_json(c, w, &x);
    cur_ctx = NULL;
    free_snippets(&x);
    return rc;
}

static int export_json(ludus__captured *c, ludus__writer *w, json_ctx *x) {
    const int pid = c->pid;
    ludus__w_str(w, "{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":");
    ludus__w_i64(w, pid);
    ludus__w_str(w, ",\"name\":\"process_name\",\"args\":{\"name\":");
    ludus__w_json_str(w, c->process_name, strlen(c->process_name));
    ludus__w_str(w, "}}");
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        head(w, "M", pid, th->tid, 0);
        ludus__w_str(w, ",\"name\":\"thread_name\",\"args\":{\"name\":");
        ludus__w_json_str(w, th->name, strlen(th->name));
        ludus__w_str(w, "}}");
        head(w, "M", pid, th->tid, 0);
        ludus__w_str(w, ",\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":");
        ludus__w_u64(w, t);
        ludus__w_str(w, "}}");
    }
    for (uint32_t t = 0; t < c->nthreads && !w->failed; t++) {
        const ludus__cap_thread *th = &c->threads[t];
        set_thread(x, pid, th->tid);
        cur_ctx = x;
        ludus__nev_iter it;
        ludus__nev ev;
        ludus__nev_init(&it, c, t);
        /* One event of lookahead: a flow end is placed knowing the next
         * event's time, and a scope that begins and ends at the same ns is
         * written as one X of duration 0 (viewers misorder a B and an E at
         * one timestamp). */
        ludus__nev next;
        int have = ludus__nev_next(&it, &ev);
        int64_t prev_ns = INT64_MIN;
        while (have) {
            int have_next = ludus__nev_next(&it, &next);
            if (ev.kind == LUDUS_NEV_FLOW_OUT || ev.kind == LUDUS_NEV_FLOW_IN) {
                const ludus__site_info *fs = ev.site != UINT32_MAX ? &c->sites[ev.site] : NULL;
                int out = ev.kind == LUDUS_NEV_FLOW_OUT;
                prev_ns = flow_end(w, pid, th->tid, &ev, prev_ns, have_next ? next.ts_ns : INT64_MAX,
                                   out ? (fs ? fs->name : "flow") : "flow in", out ? (fs ? fs->name_len : 4) : 7, out);
            } else if (ev.kind == LUDUS_NEV_BEGIN && have_next && next.kind == LUDUS_NEV_END &&
                       next.ts_ns == ev.ts_ns && !(next.flags & LUDUS_NEV_INCOMPLETE)) {
                head(w, "X", pid, th->tid, ev.ts_ns);
                ludus__w_str(w, ",\"dur\":0.000");
                name_cat(w, &c->sites[ev.site], "default");
                ludus__w_ch(w, '}');
                prev_ns = ev.ts_ns;
                have_next = ludus__nev_next(&it, &next); /* the END is written */
            } else {
                write_event(w, c, &ev, pid, th->tid);
                prev_ns = ev.ts_ns;
            }
            ev = next;
            have = have_next;
        }
        int oom = it.oom;
        ludus__nev_free(&it);
        if (oom) return LUDUS_ENOMEM;
    }
    write_metadata(w, c);
    return ludus__w_flush(w) ? LUDUS_EIO : 0;
}

static int json_exporter(ludus__captured *c, ludus__writer *w, unsigned flags) {
    (void)flags;
    return ludus__export_chrome_json(c, w);
}

int ludus_export_perfetto_trace(const char *path) {
    return ludus__export_last_to_file(path, json_exporter, 0);
}

static ludus__writer cb_writer;

int ludus_export_json_to(int (*write)(void *user_data, const void *data, size_t n), void *user_data) {
    ludus__captured *c = &ludus__last;
    if (!write) return ludus__fail(LUDUS_EINVAL, "write is NULL");
    if (!c->valid) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    int rc = ludus__prepare(c);
    if (rc) return ludus__fail(rc, "out of memory while preparing the capture");
    if (c->events == 0) return ludus__fail(LUDUS_ENODATA, "the capture holds no event");
    ludus__w_init(&cb_writer, write, user_data);
    rc = ludus__export_chrome_json(c, &cb_writer);
    return rc ? ludus__fail(rc, "the writer failed; the capture is kept") : 0;
}
