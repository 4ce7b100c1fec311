/* The watched process's side of the live view (include/ludus/live.h): a
 * library thread that publishes the frame ring, the counters and, while a
 * watcher wants them, the top scopes of a rolling window of its own, and
 * that runs captures on demand. Nothing here runs on the frame thread: the
 * frame ring is the one LUDUS_PROFILE_FRAME already closes, read under its
 * lock by copy. What a watcher writes is read as bounded integers and one
 * bounded path; the published part is written from a private copy and
 * never read back (live_block.h). */
#include <ludus/capture.h>
#include <ludus/live.h>
#include <ludus/overlay.h>
#include <errno.h>
#include <ludus/rolling.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/background.h"
#include "../platform/live_map.h"
#include "../platform/process.h"
#include "../platform/sync.h"
#include "../session/session.h"
#include "../flight/flight.h"
#include "../record/counters.h"
#include "../record/event_kinds.h"
#include "../record/record.h"
#include "live_block.h"
#include "../overlay/live_internal.h"

#define TICK_IDLE_NS (-1)           /* nobody watching: until a watcher rings (a poll where none can) */
#define TICK_WATCHED_NS 100000000ll /* watched: frames copied (the ring's 256 frames last 100 ms at 2,560 fps) */
#define SCOPES_EVERY_NS 500000000ll /* top scopes: a snapshot and one pass over it */
#define ROLLING_MS 2000u
#define ROLLING_CHUNKS 256u  /* 16 MiB for the 2 s window */
#define CAPTURE_CHUNKS 1024u /* 64 MiB, as LUDUS_TRACE's default (LUDUS_LIVE_CHUNKS) */
#define TOP_CAP 256u         /* scopes ranked per pass (lock waits are found among them) */
#define WINDOW_MAX 100000u
#define CAPTURE_MS_MAX 3600000u

static struct {
    ludus__mutex lock; /* start / stop */
    int running;
    ludus__thread thread;
    ludus__wakeup wake;
    int quit;
    ludus__live_map map;
    ludus__live_block *b;
    /* private: never read back from the block */
    ludus__live_published pub;
    uint64_t seq, last_number, cmd_done;
    int ring_wanted, ours_rolling, ours_capture, window_capture, was_watched;
    int resync; /* frames closed while nobody watched are not missed ones */
    int64_t next_scopes_ns, cap_end_ns;
    uint32_t cap_format;
    ludus__live_out out;
    ludus_top_scope top[TOP_CAP];
    ludus__live_item items[LUDUS__MAX_COUNTERS + LUDUS__MAX_GAUGES + LUDUS__MAX_DOMAINS];
    ludus__domain_info domains[LUDUS__MAX_DOMAINS];
} live_state = {.lock = LUDUS__MUTEX_INIT};

/* ---- publishing ---- */

static void publish(void) {
    live_state.pub.published_ns = ludus__mono_ns();
    live_state.pub.publishes++;
    /* seqlock: odd while written; the watcher retries a read that saw it
     * odd or changed */
    /* an exchange, not a store and a fence: its acquire half keeps the copy
     * after it, and TSan models it (it does not model fences) */
    (void)__atomic_exchange_n(&live_state.b->seq, ++live_state.seq, __ATOMIC_ACQ_REL);
    memcpy(&live_state.b->pub, &live_state.pub, sizeof live_state.pub);
    __atomic_store_n(&live_state.b->seq, ++live_state.seq, __ATOMIC_RELEASE);
}

/* text into a fixed field, cut on a character boundary, terminated */
static void put_text(char *dst, size_t cap, const char *src) {
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) {
        n = cap - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80) n--;
    }
    if (n) memcpy(dst, src, n);
    memset(dst + n, 0, cap - n);
}

/* New frames of the ring into the block's ring; the values over the window. */
static void copy_ring(uint32_t window) {
    ludus__live_lock();
    const ludus__ring *r = ludus__live_ring();
    uint32_t have = r->rows ? (uint32_t)(r->closed < r->cap ? r->closed : r->cap) : 0;
    for (uint32_t i = have; i > 0; i--) {
        const ludus__ring_row *row = &r->rows[(r->closed - i) % r->cap];
        if (row->number == 0 || row->number <= live_state.last_number) continue;
        if (live_state.last_number && !live_state.resync && row->number > live_state.last_number + 1)
            live_state.pub.frames_missed += row->number - live_state.last_number - 1;
        ludus__live_frame *f = &live_state.pub.frames[live_state.pub.frames_total % LUDUS__LIVE_FRAMES];
        f->number = row->number;
        f->begin_ns = row->begin_ns;
        f->duration_ns = row->end_ns - row->begin_ns;
        live_state.pub.frames_total++;
        live_state.last_number = row->number;
    }
    live_state.resync = 0;
    /* the values: the newest real frames, at most window of them */
    uint32_t w = 0;
    while (w < have && w < window && r->rows[(r->closed - 1 - w) % r->cap].number != 0) w++;
    uint32_t n = ludus__live_items(live_state.items, sizeof live_state.items / sizeof live_state.items[0]);
    uint32_t nd = ludus__live_domains(live_state.domains, LUDUS__MAX_DOMAINS);
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n && nv < LUDUS__LIVE_VALUES && w; i++) {
        const ludus__live_item *it = &live_state.items[i];
        ludus__live_value *v = &live_state.pub.values[nv];
        char name[LUDUS__LIVE_NAME];
        ludus__live_item_name(it, name, sizeof name);
        int64_t last = 0, mn = INT64_MAX, mx = INT64_MIN, sum = 0;
        uint32_t m = 0;
        for (uint32_t k = 0; k < w; k++) { /* newest first */
            uint64_t at = (r->closed - 1 - k) % r->cap;
            const ludus__ring_row *row = &r->rows[at];
            const int64_t *vals = &r->values[at * LUDUS__ROW_VALUES];
            if (!ludus__live_item_in_row(it, row)) continue;
            int64_t x, lo, hi;
            if (it->owner == LUDUS__OWNER_GAUGE) {
                if (!ludus__row_gauge_set(row, it->i)) continue;
                const int64_t *g = &vals[LUDUS__ROW_GAUGE(it->i)];
                x = g[0], lo = g[1], hi = g[2];
            } else if (it->owner == LUDUS__OWNER_COUNT) {
                x = lo = hi = vals[LUDUS__ROW_COUNTER(it->i)];
            } else {
                const int64_t *dv = &vals[LUDUS__ROW_DOMAIN(it->i)];
                x = dv[LUDUS__STAT_MEM_ALLOC_BYTES - LUDUS__STAT_MEM_LIVE];
                lo = dv[LUDUS__STAT_MEM_ALLOCS - LUDUS__STAT_MEM_LIVE]; /* summed below as the allocations */
                hi = dv[LUDUS__STAT_MEM_PEAK - LUDUS__STAT_MEM_LIVE];
            }
            if (m++ == 0) last = x;
            sum += x;
            if (it->owner == LUDUS__OWNER_MEMORY) {
                mn = m == 1 ? lo : mn + lo;
            } else if (lo < mn) {
                mn = lo;
            }
            if (hi > mx) mx = hi;
        }
        if (m == 0) continue;
        memset(v, 0, sizeof *v);
        put_text(v->name, sizeof v->name, name);
        v->kind = it->owner == LUDUS__OWNER_COUNT   ? LUDUS__LIVE_COUNTER
                  : it->owner == LUDUS__OWNER_GAUGE ? LUDUS__LIVE_GAUGE
                                                    : LUDUS__LIVE_MEMORY;
        v->frames = m;
        v->last = last, v->min = mn, v->max = mx, v->sum = sum;
        if (it->owner == LUDUS__OWNER_MEMORY) {
            const ludus__domain_info *di = it->i < nd ? &live_state.domains[it->i] : NULL;
            v->last = di ? di->live_bytes : 0;
            v->unknown = di && di->underflow;
        }
        nv++;
    }
    live_state.pub.nvalues = nv;
    live_state.pub.lost_adds = ludus__live_lost_adds();
    live_state.pub.refused = ludus__live_refused();
    ludus__live_unlock();
}

static void scope_of(ludus__live_scope *o, const ludus_top_scope *t) {
    put_text(o->name, sizeof o->name, t->name);
    put_text(o->file, sizeof o->file, t->file);
    o->line = t->line;
    o->lock = t->category && !strcmp(t->category, "lock");
    o->exclusive_ns = t->exclusive_ns;
    o->calls = t->calls;
    o->last_exclusive_ns = t->last_exclusive_ns;
    o->last_calls = t->last_calls;
}

/* Top scopes of capture c over its last `window` frames into the block. */
static void top_from(ludus_capture *c, uint32_t window) {
    ludus_overlay_desc d;
    memset(&d, 0, sizeof d);
    d.window_frames = window;
    ludus_top_window tw;
    int n = ludus_overlay_top_scopes(c, &d, live_state.top, TOP_CAP, &tw);
    ludus_capture_summary sum;
    int64_t start = ludus_capture_get_summary(c, &sum) == 0 ? sum.start_ns : 0;
    live_state.pub.top_computed_ns = ludus__mono_ns();
    live_state.pub.top_window_frames = window; /* published with them: another watcher's window may come next */
    live_state.pub.nscopes = live_state.pub.nlocks = 0;
    if (n < 0) {
        live_state.pub.top_rc = n;
        return;
    }
    live_state.pub.top_rc = 0;
    live_state.pub.top_frames = tw.frames;
    live_state.pub.top_first_frame = tw.first_frame;
    live_state.pub.top_last_frame = tw.last_frame;
    live_state.pub.top_begin_ns = start + tw.begin_ns;
    live_state.pub.top_end_ns = start + tw.end_ns;
    live_state.pub.top_calls = tw.calls;
    live_state.pub.top_incomplete = tw.incomplete;
    live_state.pub.top_dropped = tw.dropped;
    live_state.pub.top_scopes_total = tw.scopes;
    put_text(live_state.pub.frame_thread, sizeof live_state.pub.frame_thread, tw.frame_thread);
    for (int i = 0; i < n; i++) {
        if (live_state.pub.nscopes < LUDUS__LIVE_SCOPES)
            scope_of(&live_state.pub.scopes[live_state.pub.nscopes++], &live_state.top[i]);
        if (live_state.top[i].category && !strcmp(live_state.top[i].category, "lock") &&
            live_state.pub.nlocks < LUDUS__LIVE_LOCKS)
            scope_of(&live_state.pub.locks[live_state.pub.nlocks++], &live_state.top[i]);
    }
}

/* ---- recording: the rolling window for the top scopes, captures on demand ---- */

/* The library's recordings are a guest's (src/session/session.h, "the
 * recorder's one owner"): begun only when the program holds nothing, ended
 * for the program whenever it begins anything; a capture ended so is
 * written as it stands and says why. */
static void rolling_stop(void) {
    if (live_state.ours_rolling) ludus__rolling_end_guest();
    live_state.ours_rolling = 0;
}

static int rolling_start(void) {
    ludus_capture_desc cd;
    memset(&cd, 0, sizeof cd);
    cd.chunk_count = ROLLING_CHUNKS;
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    rd.window_ms = ROLLING_MS;
    rd.hitch_factor = LUDUS_ROLLING_NONE; /* it never writes a file */
    rd.post_ms = (uint32_t)LUDUS_ROLLING_NONE;
    rd.cooldown_ms = (uint32_t)LUDUS_ROLLING_NONE;
    rd.signal = LUDUS_ROLLING_NONE;
    int rc = ludus__rolling_begin_guest(&cd, &rd);
    live_state.ours_rolling = rc == 0;
    return rc;
}

static uint32_t capture_chunks(void) {
    const char *e = ludus__getenv("LUDUS_LIVE_CHUNKS");
    char *end;
    unsigned long v = e && *e ? strtoul(e, &end, 10) : 0;
    return e && *e && !*end && v >= 1 && v <= (1u << 24) ? (uint32_t)v : CAPTURE_CHUNKS;
}

static void cap_fail(int rc, const char *what) {
    live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
    live_state.pub.cap_rc = rc;
    snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message, "%s: %s (%.160s)", what,
             ludus_error_string(rc), ludus_last_error_detail());
}

/* A capture command read from the watcher area (bounded: ms checked, path
 * terminated, absolute). */
static void capture_start(uint64_t seq, uint32_t ms, const char *path) {
    memset(live_state.pub.cap_message, 0, sizeof live_state.pub.cap_message);
    live_state.pub.cap_seq = seq;
    live_state.pub.cap_ms = ms;
    live_state.pub.cap_rc = 0;
    live_state.pub.cap_events = live_state.pub.cap_dropped = live_state.pub.cap_frames = 0;
    live_state.pub.cap_begin_ns = live_state.pub.cap_end_ns = 0;
    put_text(live_state.pub.cap_path, sizeof live_state.pub.cap_path, path);
    live_state.cap_format = (uint32_t)ludus_format_from_path(path);
    int absolute = ludus__live_path_absolute(path);
    if (ms < 1 || ms > CAPTURE_MS_MAX || !absolute || !live_state.cap_format) {
        live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
        live_state.pub.cap_rc = LUDUS_EINVAL;
        snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message, "refused: %s",
                 !live_state.cap_format ? "the path's extension names no format (.ludus, .json, .pftrace)"
                 : !absolute            ? "the path is not absolute"
                                        : "the length is not 1 .. 3600000 ms");
        return;
    }
    /* the file first: a path that cannot be written fails now, not after N seconds */
    int e = ludus__live_out_create(path, &live_state.out);
    if (e) {
        char why[128];
        ludus__os_strerror(e, why, sizeof why);
        live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
        live_state.pub.cap_rc = LUDUS_EIO;
        snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                 "cannot create a file beside %.100s: %.100s", path, why);
        return;
    }
    live_state.window_capture = 0;
    if (ludus_rolling_active()) {
        live_state.window_capture = 1; /* the program's own window: its last ms when they have passed */
    } else {
        rolling_stop();
        ludus_capture_desc cd;
        memset(&cd, 0, sizeof cd);
        cd.chunk_count = capture_chunks();
        int rc = ludus__guest_capture_begin(&cd);
        if (rc) {
            ludus__live_out_abort(&live_state.out);
            if (rc == LUDUS_EBUSY) {
                live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
                live_state.pub.cap_rc = LUDUS_EBUSY;
                snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                         "the process records a capture of its own (LUDUS_TRACE, or its own ludus_capture_begin)");
            } else {
                cap_fail(rc, "capture begin");
            }
            return;
        }
        live_state.ours_capture = 1;
    }
    live_state.pub.cap_state = LUDUS__LIVE_CAP_RUNNING;
    live_state.pub.cap_begin_ns = ludus__mono_ns();
    live_state.cap_end_ns = live_state.pub.cap_begin_ns + (int64_t)ms * 1000000;
}

static void capture_finish(uint32_t window, int abandon) {
    ludus_capture *c = NULL;
    uint32_t cut_ms = 0;
    int rc, yielded = 0;
    if (live_state.window_capture) {
        rc = ludus__rolling_snapshot_any(&c);
        ludus_capture_summary s;
        /* its last ms, cut; a .ludus file holds whole threads, not a time cut: the whole window then */
        if (rc == 0 && live_state.cap_format != LUDUS_FORMAT_LUDUS && ludus_capture_get_summary(c, &s) == 0 &&
            s.end_ns - s.start_ns > (int64_t)live_state.pub.cap_ms * 1000000) {
            ludus_cut_desc cut;
            memset(&cut, 0, sizeof cut);
            cut.time = 1;
            cut.to_ns = s.end_ns - s.start_ns;
            cut.from_ns = cut.to_ns - (int64_t)live_state.pub.cap_ms * 1000000;
            ludus_capture *k = NULL;
            rc = ludus_capture_cut(c, &cut, &k);
            ludus_capture_release(c);
            c = k;
            cut_ms = live_state.pub.cap_ms;
        }
    } else {
        rc = ludus__guest_capture_end(&c, &yielded);
        live_state.ours_capture = 0;
    }
    int was_window = live_state.window_capture;
    live_state.window_capture = 0;
    if (rc == 0 && abandon) rc = LUDUS_ENOCAPTURE;
    if (rc) {
        ludus__live_out_abort(&live_state.out);
        if (rc == LUDUS_ENOCAPTURE && !abandon && was_window) {
            snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                     "the program ended its rolling window before the seconds asked for had passed");
            live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
            live_state.pub.cap_rc = rc;
            ludus_capture_release(c);
            return;
        }
        if (abandon)
            snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                     "the process exited (or stopped publishing) first");
        else
            cap_fail(rc, "capture");
        live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
        live_state.pub.cap_rc = rc;
        ludus_capture_release(c);
        return;
    }
    ludus_capture_summary s;
    if (ludus_capture_get_summary(c, &s) == 0) {
        live_state.pub.cap_events = s.events;
        live_state.pub.cap_dropped = s.dropped;
        live_state.pub.cap_frames = s.frames;
        live_state.pub.cap_begin_ns = s.start_ns;
        live_state.pub.cap_end_ns = s.end_ns;
        if (cut_ms && s.end_ns - s.start_ns > (int64_t)cut_ms * 1000000) /* a cut keeps its source's bounds */
            live_state.pub.cap_begin_ns = s.end_ns - (int64_t)cut_ms * 1000000;
    }
    /* the capture's own top scopes: the watcher sees those of the seconds it asked for */
    top_from(c, window);
    rc = ludus_capture_write(c, (int)live_state.cap_format, 0, ludus__live_out_write, &live_state.out);
    if (rc == 0) {
        int e = ludus__live_out_commit(&live_state.out);
        if (e) {
            char why[128];
            ludus__os_strerror(e, why, sizeof why);
            live_state.pub.cap_state = LUDUS__LIVE_CAP_FAILED;
            live_state.pub.cap_rc = LUDUS_EIO;
            snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                     "cannot put the file in place: %.100s", why);
        } else {
            live_state.pub.cap_state = LUDUS__LIVE_CAP_DONE;
            if (yielded) /* the program began a capture of its own: it had the recorder */
                snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                         "wrote %llu events (%llu dropped) of %.3f s: cut short, the program began a capture of its "
                         "own",
                         (unsigned long long)s.events, (unsigned long long)s.dropped,
                         (double)(s.end_ns - s.start_ns) / 1e9);
            else
                snprintf(live_state.pub.cap_message, sizeof live_state.pub.cap_message,
                         "wrote %llu events (%llu dropped)", (unsigned long long)s.events,
                         (unsigned long long)s.dropped);
        }
    } else {
        ludus__live_out_abort(&live_state.out);
        cap_fail(rc, "write");
    }
    ludus_capture_release(c);
}

/* ---- the thread ---- */

static int fresh(int64_t hb, int64_t now) {
    return hb > 0 && hb <= now + 1000000000 && now - hb < LUDUS__LIVE_STALE_NS;
}

/* A new command of the watcher area, copied out; 1 when there is one. */
static int read_command(uint64_t *seq, uint32_t *kind, uint32_t *ms, char *path) {
    ludus__live_watcher_area *w = &live_state.b->w;
    uint64_t s = __atomic_load_n(&w->cmd_seq, __ATOMIC_ACQUIRE);
    if (s == live_state.cmd_done) return 0;
    *kind = __atomic_load_n(&w->cmd_kind, __ATOMIC_RELAXED);
    *ms = __atomic_load_n(&w->cmd_ms, __ATOMIC_RELAXED);
    memcpy(path, w->cmd_path, LUDUS__LIVE_PATH);
    path[LUDUS__LIVE_PATH - 1] = 0;
    /* read again by an add of 0: its release half keeps the reads above
     * before it (a fence TSan models) */
    if (__atomic_fetch_add(&w->cmd_seq, 0u, __ATOMIC_ACQ_REL) != s) return 0; /* rewritten meanwhile: next tick */
    live_state.cmd_done = s;
    *seq = s;
    __atomic_store_n(&w->claim, 0u, __ATOMIC_RELEASE); /* the next watcher may write one */
    return 1;
}

static void *live_main(void *arg) {
    (void)arg;
    static char path[LUDUS__LIVE_PATH];
    int64_t tick = TICK_IDLE_NS;
    for (;;) {
        ludus__live_map_wait(&live_state.map, &live_state.wake, tick);
        if (__atomic_load_n(&live_state.quit, __ATOMIC_ACQUIRE)) break;
        int64_t now = ludus__mono_ns();
        ludus__live_watcher_area *w = &live_state.b->w;
        int watched = fresh(__atomic_load_n(&w->heartbeat_ns, __ATOMIC_RELAXED), now);
        int want_scopes = fresh(__atomic_load_n(&w->scopes_heartbeat_ns, __ATOMIC_RELAXED), now);
        uint32_t window = __atomic_load_n(&w->window_frames, __ATOMIC_RELAXED);
        window = window == 0 ? 120 : window > WINDOW_MAX ? WINDOW_MAX : window;
        uint64_t seq;
        uint32_t kind, ms;
        /* the program took the recorder since the last tick */
        if (live_state.ours_rolling && !ludus__rolling_guest_runs()) live_state.ours_rolling = 0;
        if (live_state.ours_capture && ludus__guest_capture_yielded()) {
            capture_finish(window, 0);
            live_state.next_scopes_ns = now + SCOPES_EVERY_NS * 4;
        }
        int busy = live_state.ours_capture || live_state.window_capture;
        if (!busy && read_command(&seq, &kind, &ms, path) && kind == LUDUS__LIVE_CMD_CAPTURE)
            capture_start(seq, ms, path);
        busy = live_state.ours_capture || live_state.window_capture;
        if (!watched && !busy) {
            rolling_stop();
            if (live_state.was_watched) { /* say it once: nobody reads it now */
                live_state.pub.state = 0;
                publish();
            }
            live_state.was_watched = 0;
            live_state.resync = 1;
            tick = TICK_IDLE_NS;
            continue;
        }
        tick = TICK_WATCHED_NS;
        live_state.was_watched = 1;
        if (!live_state.ring_wanted) { /* one way: the frame thread keeps its ring from now on */
            ludus__live_want_frames();
            live_state.ring_wanted = 1;
        }
        live_state.pub.window_frames = window;
        copy_ring(window);
        uint32_t state = LUDUS__LIVE_ST_WATCHED;
        if (busy) {
            state |= LUDUS__LIVE_ST_CAPTURING;
            if (now >= live_state.cap_end_ns) {
                capture_finish(window, 0);
                live_state.next_scopes_ns = now + SCOPES_EVERY_NS * 4; /* its scopes stay up a while */
            }
        } else if (want_scopes) {
            if (ludus_rolling_active()) /* the program's own window: read, not replaced */
                state |= LUDUS__LIVE_ST_FOREIGN | LUDUS__LIVE_ST_SCOPES;
            else if (live_state.ours_rolling || rolling_start() == 0)
                state |= LUDUS__LIVE_ST_SCOPES;
            else /* the program holds the recorder: the watcher yields, and says so */
                state |= LUDUS__LIVE_ST_BUSY;
            if ((state & LUDUS__LIVE_ST_SCOPES) && now >= live_state.next_scopes_ns) {
                ludus_capture *c = NULL;
                if (ludus__rolling_snapshot_any(&c) == 0) top_from(c, window);
                ludus_capture_release(c);
                live_state.next_scopes_ns = ludus__mono_ns() + SCOPES_EVERY_NS;
            }
        } else {
            rolling_stop();
        }
        live_state.pub.state = state;
        publish();
    }
    if (live_state.ours_capture || live_state.window_capture) capture_finish(120, 1);
    rolling_stop();
    live_state.pub.state = LUDUS__LIVE_ST_EXITED;
    publish();
    return NULL;
}

/* ---- start and stop ---- */

static void at_exit(void) {
    ludus_live_stop();
}

static void live_fork_child(void) {
    /* the thread is not here: the child publishes nothing, and leaves the
     * parent's block alone (the watcher would take it for the child's) */
    if (!live_state.running) return;
    ludus__mutex_init(&live_state.lock);
    live_state.running = 0;
    live_state.b = NULL;
    live_state.ours_rolling = live_state.ours_capture = live_state.window_capture = 0;
    ludus__live_map_close(&live_state.map);
}

int ludus_live_start(void) {
    static int hooks;
    ludus__mutex_lock(&live_state.lock);
    if (live_state.running) {
        ludus__mutex_unlock(&live_state.lock);
        return 0;
    }
    int e = ludus__live_map_create(sizeof(ludus__live_block), &live_state.map);
    if (e) {
        ludus__mutex_unlock(&live_state.lock);
        char why[128];
        ludus__os_strerror(e, why, sizeof why);
        return ludus__fail(e == -ENOSYS ? LUDUS_EUNSUPPORTED : LUDUS_EIO, "the live block: %.100s", why);
    }
    live_state.b = live_state.map.p;
    memset(&live_state.pub, 0, sizeof live_state.pub);
    live_state.seq = 0;
    live_state.last_number = live_state.cmd_done = 0;
    live_state.ours_rolling = live_state.ours_capture = live_state.window_capture = live_state.was_watched = 0;
    live_state.next_scopes_ns = 0;
    live_state.quit = 0;
    live_state.b->version = LUDUS__LIVE_VERSION;
    live_state.b->block_bytes = (uint32_t)sizeof(ludus__live_block);
    live_state.b->pid = (uint64_t)ludus__os_pid();
    live_state.b->start_ns = ludus__mono_ns();
    ludus__process_name(live_state.b->process, sizeof live_state.b->process);
    publish(); /* seq 2: an empty, consistent view */
    uint64_t magic;
    memcpy(&magic, LUDUS__LIVE_MAGIC, sizeof magic);
    __atomic_store_n((uint64_t *)(void *)live_state.b->magic, magic, __ATOMIC_RELEASE); /* last: the block is whole */
    if (ludus__wakeup_init(&live_state.wake) != 0 || ludus__thread_start(&live_state.thread, live_main, NULL) != 0) {
        ludus__live_map_close(&live_state.map);
        live_state.b = NULL;
        ludus__mutex_unlock(&live_state.lock);
        return ludus__fail(LUDUS_ENOMEM, "cannot start the live thread");
    }
    __atomic_store_n(&live_state.running, 1, __ATOMIC_RELEASE);
    if (!hooks) {
        hooks = 1;
        atexit(at_exit);
        ludus__on_fork(NULL, NULL, live_fork_child);
    }
    ludus__mutex_unlock(&live_state.lock);
    return 0;
}

void ludus_live_stop(void) {
    ludus__mutex_lock(&live_state.lock);
    if (live_state.running) {
        __atomic_store_n(&live_state.quit, 1, __ATOMIC_RELEASE);
        ludus__wakeup_post(&live_state.wake);
        ludus__thread_join(live_state.thread);
        ludus__wakeup_destroy(&live_state.wake);
        ludus__live_map_close(&live_state.map);
        live_state.b = NULL;
        __atomic_store_n(&live_state.running, 0, __ATOMIC_RELEASE);
    }
    ludus__mutex_unlock(&live_state.lock);
}

int ludus_live_publishing(void) {
    return __atomic_load_n(&live_state.running, __ATOMIC_ACQUIRE);
}
