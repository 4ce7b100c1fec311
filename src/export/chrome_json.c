/* Chrome/Perfetto JSON export of the last ended capture (trace-formats.md
 * part A). Streams thread by thread through the bounded writer; times are ns
 * since capture start written as microseconds with three decimals from
 * integers. Each thread's events stay together in the file: the DevTools
 * engine pairs B/E with one stack in file order across threads. Flows: each end of a flow is a 1 ns slice with an s/f event at the
 * same pid, tid, category and timestamp, so DevTools (which binds v1 flows
 * only that way) and Perfetto (which binds to the enclosing slice) agree. */
#include <string.h>

#include "../capture/capture_internal.h"
#include "export_internal.h"
#include "writer.h"

static void head(ludus__writer *w, const char *ph, int pid, uint64_t tid, int64_t ts) {
    ludus__w_str(w, ",\n{\"ph\":\"");
    ludus__w_str(w, ph);
    ludus__w_str(w, "\",\"pid\":");
    ludus__w_i64(w, pid);
    ludus__w_str(w, ",\"tid\":");
    ludus__w_u64(w, tid);
    ludus__w_str(w, ",\"ts\":");
    ludus__w_us(w, ts);
}

static void name_cat(ludus__writer *w, const ludus__site_info *s, const char *default_cat) {
    ludus__w_str(w, ",\"name\":");
    ludus__w_json_str(w, s->name, s->name_len);
    ludus__w_str(w, ",\"cat\":");
    if (s->category)
        ludus__w_json_str(w, s->category, s->category_len);
    else
        ludus__w_json_str(w, default_cat, strlen(default_cat));
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

static void flow_end(ludus__writer *w, int pid, uint64_t tid, const ludus__nev *ev,
                     const char *slice_name, size_t name_len, int out) {
    head(w, "X", pid, tid, ev->ts_ns);
    ludus__w_str(w, ",\"dur\":0.001,\"name\":");
    ludus__w_json_str(w, slice_name, name_len);
    ludus__w_str(w, ",\"cat\":\"flow\"}");
    head(w, out ? "s" : "f", pid, tid, ev->ts_ns);
    ludus__w_str(w, ",\"name\":\"flow\",\"cat\":\"flow\"");
    hex_id(w, ev->value);
    if (!out) ludus__w_str(w, ",\"bp\":\"e\"");
    ludus__w_ch(w, '}');
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

int ludus__export_chrome_json(ludus__captured *c, ludus__writer *w) {
    int rc = ludus__prepare(c);
    if (rc) return rc;
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
        ludus__nev_iter it;
        ludus__nev ev;
        ludus__nev_init(&it, c, t);
        while (ludus__nev_next(&it, &ev)) {
            const ludus__site_info *s = ev.site != UINT32_MAX ? &c->sites[ev.site] : NULL;
            switch (ev.kind) {
            case LUDUS_NEV_BEGIN:
                head(w, "B", pid, th->tid, ev.ts_ns);
                name_cat(w, s, "default");
                ludus__w_ch(w, '}');
                break;
            case LUDUS_NEV_END:
                /* The E repeats its B's name and category: DevTools pairs B/E
                 * only when both match, speedscope when the names do, and the
                 * args (empty unless incomplete) keep speedscope from merging
                 * a slice with a same-named one that begins at the same ns. */
                head(w, "E", pid, th->tid, ev.ts_ns);
                name_cat(w, s, "default");
                ludus__w_str(w, (ev.flags & LUDUS_NEV_INCOMPLETE) ? ",\"args\":{\"incomplete\":true}}"
                                                                 : ",\"args\":{}}");
                break;
            case LUDUS_NEV_INSTANT:
                head(w, "i", pid, th->tid, ev.ts_ns);
                name_cat(w, s, "mark");
                ludus__w_str(w, ",\"s\":\"t\"}");
                break;
            case LUDUS_NEV_FRAME:
                head(w, "i", pid, th->tid, ev.ts_ns);
                ludus__w_str(w, ",\"name\":\"Frame\",\"cat\":\"frame\",\"s\":\"t\",\"args\":{\"frame\":");
                ludus__w_u64(w, ev.value);
                ludus__w_str(w, "}}");
                break;
            case LUDUS_NEV_COUNTER:
            case LUDUS_NEV_COUNTER_F64:
                head(w, "C", pid, th->tid, ev.ts_ns);
                ludus__w_str(w, ",\"name\":");
                ludus__w_json_str(w, s->name, s->name_len);
                ludus__w_str(w, ",\"args\":{\"value\":");
                if (ev.kind == LUDUS_NEV_COUNTER) {
                    ludus__w_i64(w, (int64_t)ev.value);
                } else {
                    double d;
                    memcpy(&d, &ev.value, sizeof d);
                    ludus__w_double(w, d);
                }
                ludus__w_str(w, "}}");
                break;
            case LUDUS_NEV_FLOW_OUT:
                flow_end(w, pid, th->tid, &ev, s ? s->name : "flow", s ? s->name_len : 4, 1);
                break;
            case LUDUS_NEV_FLOW_IN:
                flow_end(w, pid, th->tid, &ev, "flow in", 7, 0);
                break;
            }
        }
        int oom = it.oom;
        ludus__nev_free(&it);
        if (oom) return LUDUS_ENOMEM;
    }
    write_metadata(w, c);
    return ludus__w_flush(w) ? LUDUS_EIO : 0;
}

static ludus__writer file_writer; /* 64 KiB: control calls come from one thread */

int ludus_export_perfetto_trace(const char *path) {
    ludus__captured *c = &ludus__last;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    if (!c->valid) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    int rc = ludus__prepare(c);
    if (rc) return ludus__fail(rc, "out of memory while preparing the capture");
    if (c->events == 0) return ludus__fail(LUDUS_ENODATA, "the capture holds no event; %s untouched", path);
    ludus__file f;
    if (ludus__file_create(&f, path) != 0)
        return ludus__fail(LUDUS_EIO, "cannot create %s.tmp", path);
    ludus__w_init(&file_writer, ludus__w_file_cb, &f);
    rc = ludus__export_chrome_json(c, &file_writer);
    if (rc != 0) {
        ludus__file_abort(&f);
        return ludus__fail(rc, "writing %s failed after %llu bytes; the capture is kept", path,
                           (unsigned long long)file_writer.bytes);
    }
    if (ludus__file_commit(&f) != 0)
        return ludus__fail(LUDUS_EIO, "cannot close or rename %s; the capture is kept", path);
    return 0;
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
