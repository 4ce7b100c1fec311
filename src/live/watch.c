/* The watcher's side of the live view (include/ludus/live.h): opens a
 * process's block, reads it under its seqlock into a view whose every count
 * is clamped to its array and every string terminated (a hostile or broken
 * process shows wrong figures, never more), writes the heartbeat and
 * capture commands. */
#include <errno.h>
#include <stddef.h>
#include <ludus/live.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/background.h"
#include "../platform/live_map.h"
#include "../record/record.h"
#include "live_block.h"

struct ludus_watch {
    ludus__live_map map;
    ludus__live_block *b;
    uint64_t pid;
    uint32_t own_pid;
    ludus__live_published *copy; /* the last consistent read */
    /* this watcher's last capture command, until its result is read: when
     * the process dies first, its temporary is removed here */
    uint64_t cmd_id;
    char cmd_path[LUDUS__LIVE_PATH];
};

int ludus_watch_open(uint64_t pid, ludus_watch **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    ludus__live_map m;
    uint32_t uid;
    int e = ludus__live_map_open(pid, sizeof(ludus__live_block), &m, &uid);
    switch (e) {
    case 0:
        break;
    case -ESRCH:
        return ludus__fail(LUDUS_ENODATA, "no process %llu is running", (unsigned long long)pid);
    case -EACCES:
    case -EPERM:
        if (uid == UINT32_MAX) /* Windows: the process cannot be opened (another user's, or elevated) */
            return ludus__fail(LUDUS_EINVAL, "process %llu cannot be opened by this user: only its user can watch it",
                               (unsigned long long)pid);
        return ludus__fail(LUDUS_EINVAL, "process %llu belongs to user %u: only that user (or root) can watch it",
                           (unsigned long long)pid, uid);
    case -ENOENT:
        return ludus__fail(LUDUS_ENODATA,
                           "process %llu publishes nothing to watch: start it with LUDUS_LIVE=1 in its environment, "
                           "or call ludus_live_start() (<ludus/live.h>)",
                           (unsigned long long)pid);
    case -EINVAL:
        return ludus__fail(LUDUS_EFORMAT,
                           "process %llu has a block named ludus-live that is not a live block (too "
                           "small, another owner or not sealed)",
                           (unsigned long long)pid);
    case -ENOSYS:
        return ludus__fail(LUDUS_EUNSUPPORTED,
                           "watching a process is not built for this system (Linux and Windows only)");
    default: {
        char why[128];
        ludus__os_strerror(e, why, sizeof why);
        return ludus__fail(LUDUS_EIO, "process %llu: %s", (unsigned long long)pid, why);
    }
    }
    ludus__live_block *b = m.p;
    int rc = 0;
    if (memcmp(b->magic, LUDUS__LIVE_MAGIC, sizeof LUDUS__LIVE_MAGIC) != 0)
        rc = ludus__fail(LUDUS_ENODATA, "process %llu is still starting its live block (try again)",
                         (unsigned long long)pid);
    else if (b->version != LUDUS__LIVE_VERSION || b->block_bytes != sizeof(ludus__live_block))
        rc = ludus__fail(LUDUS_EFORMAT,
                         "process %llu publishes a live block of version %u (%u bytes); this ludus-trace reads "
                         "version %u (%zu bytes): use the ludus-trace of the library it links",
                         (unsigned long long)pid, b->version, b->block_bytes, LUDUS__LIVE_VERSION,
                         sizeof(ludus__live_block));
    else if (b->pid != pid)
        rc = ludus__fail(LUDUS_ENODATA,
                         "process %llu holds the live block of process %llu (inherited across fork): it publishes "
                         "nothing of its own",
                         (unsigned long long)pid, (unsigned long long)b->pid);
    ludus_watch *w = rc ? NULL : ludus__calloc(1, sizeof *w);
    ludus__live_published *copy = w ? ludus__calloc(1, sizeof *copy) : NULL;
    if (!rc && !copy) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
    if (rc) {
        ludus__free(w);
        ludus__live_map_close(&m);
        return rc;
    }
    w->map = m;
    w->b = b;
    w->pid = pid;
    w->own_pid = (uint32_t)ludus__os_pid();
    w->copy = copy;
    *out = w;
    return 0;
}

void ludus_watch_close(ludus_watch *w) {
    if (!w) return;
    ludus__live_map_close(&w->map);
    ludus__free(w->copy);
    ludus__free(w);
}

int ludus_watch_alive(const ludus_watch *w) {
    return w && ludus__live_map_alive(&w->map);
}

/* a fixed field of the block as a terminated string */
static void take_text(char *dst, size_t cap, const char *src, size_t src_cap) {
    size_t n = 0, max = cap - 1 < src_cap ? cap - 1 : src_cap;
    while (n < max && src[n]) n++;
    memcpy(dst, src, n);
    dst[n] = 0;
}

static uint32_t clamp_u32(uint32_t v, uint32_t max) {
    return v < max ? v : max;
}

static void take_scope(ludus_watch_scope *o, const ludus__live_scope *s) {
    take_text(o->name, sizeof o->name, s->name, sizeof s->name);
    take_text(o->file, sizeof o->file, s->file, sizeof s->file);
    o->line = s->line;
    o->lock = s->lock != 0;
    o->exclusive_ns = s->exclusive_ns;
    o->calls = s->calls;
    o->last_exclusive_ns = s->last_exclusive_ns;
    o->last_calls = s->last_calls;
}

static void heartbeat(ludus_watch *w, int want_scopes, uint32_t window_frames) {
    ludus__live_watcher_area *a = &w->b->w;
    int64_t now = ludus__mono_ns();
    if (window_frames) __atomic_store_n(&a->window_frames, clamp_u32(window_frames, 100000), __ATOMIC_RELAXED);
    __atomic_store_n(&a->heartbeat_ns, now, __ATOMIC_RELAXED);
    if (want_scopes) __atomic_store_n(&a->scopes_heartbeat_ns, now, __ATOMIC_RELAXED);
    ludus__live_map_ring(&w->map); /* a process idle since the last watcher left wakes now */
}

int ludus_watch_read(ludus_watch *w, int want_scopes, uint32_t window_frames, ludus_watch_view *out) {
    if (!w || !out) return ludus__fail(LUDUS_EINVAL, "w and out are required");
    heartbeat(w, want_scopes, window_frames); /* 0: the window stays as another watcher set it */
    ludus__live_block *b = w->b;
    ludus__live_published *p = w->copy;
    int got = 0;
    for (int tries = 0; tries < 64 && !got; tries++) {
        uint64_t s1 = __atomic_load_n(&b->seq, __ATOMIC_ACQUIRE);
        if (s1 & 1) {
            ludus__sleep_ns(200000);
            continue;
        }
        memcpy(p, &b->pub, sizeof *p);
        /* read again by an add of 0: its release half keeps the copy before
         * it (a fence TSan models) */
        got = __atomic_fetch_add(&b->seq, 0u, __ATOMIC_ACQ_REL) == s1;
    }
    int alive = ludus__live_map_alive(&w->map);
    if (w->cmd_id && got && p->cap_seq == w->cmd_id &&
        (p->cap_state == LUDUS__LIVE_CAP_DONE || p->cap_state == LUDUS__LIVE_CAP_FAILED))
        w->cmd_id = 0;         /* its result is in: the process put the file in place or removed its temporary */
    if (w->cmd_id && !alive) { /* it died (or exec'd) while writing it: the temporary goes too */
        ludus__live_out_remove_stale(w->cmd_path, w->pid);
        w->cmd_id = 0;
    }
    if (!got)
        return alive ? ludus__fail(LUDUS_EBUSY,
                                   "process %llu left its block half-written on every try (stopped while "
                                   "publishing: SIGSTOP, a debugger?)",
                                   (unsigned long long)w->pid)
                     : LUDUS_ENODATA;
    memset(out, 0, offsetof(ludus_watch_view, frames));
    out->pid = w->pid;
    take_text(out->process, sizeof out->process, b->process, sizeof b->process);
    out->start_ns = b->start_ns;
    out->now_ns = ludus__mono_ns();
    out->published_ns = p->published_ns;
    out->publishes = p->publishes;
    out->state = p->state;
    out->window_frames = p->window_frames;
    out->top_window_frames = p->top_window_frames;
    out->frames_total = p->frames_total;
    out->frames_missed = p->frames_missed;
    /* the newest frames, oldest first; at most the ring */
    uint64_t n = p->frames_total < LUDUS__LIVE_FRAMES ? p->frames_total : LUDUS__LIVE_FRAMES;
    out->nframes = (uint32_t)n;
    for (uint64_t k = 0; k < n; k++) {
        const ludus__live_frame *f = &p->frames[(p->frames_total - n + k) % LUDUS__LIVE_FRAMES];
        out->frames[k].number = f->number;
        out->frames[k].begin_ns = f->begin_ns;
        out->frames[k].duration_ns = f->duration_ns;
    }
    out->top_rc = p->top_rc > 0 || p->top_rc < -100 ? LUDUS_EFORMAT : p->top_rc;
    out->top_frames = p->top_frames;
    out->top_first_frame = p->top_first_frame;
    out->top_last_frame = p->top_last_frame;
    out->top_begin_ns = p->top_begin_ns;
    out->top_end_ns = p->top_end_ns;
    out->top_computed_ns = p->top_computed_ns;
    out->top_calls = p->top_calls;
    out->top_incomplete = p->top_incomplete;
    out->top_dropped = p->top_dropped;
    out->top_scopes_total = p->top_scopes_total;
    take_text(out->frame_thread, sizeof out->frame_thread, p->frame_thread, sizeof p->frame_thread);
    out->nscopes = clamp_u32(p->nscopes, LUDUS__LIVE_SCOPES);
    for (uint32_t i = 0; i < out->nscopes; i++) take_scope(&out->scopes[i], &p->scopes[i]);
    out->nlocks = clamp_u32(p->nlocks, LUDUS__LIVE_LOCKS);
    for (uint32_t i = 0; i < out->nlocks; i++) take_scope(&out->locks[i], &p->locks[i]);
    out->nvalues = clamp_u32(p->nvalues, LUDUS__LIVE_VALUES);
    for (uint32_t i = 0; i < out->nvalues; i++) {
        const ludus__live_value *v = &p->values[i];
        ludus_watch_value *o = &out->values[i];
        take_text(o->name, sizeof o->name, v->name, sizeof v->name);
        o->kind = v->kind >= LUDUS__LIVE_COUNTER && v->kind <= LUDUS__LIVE_MEMORY ? (int)v->kind : 0;
        o->frames = v->frames;
        o->last = v->last, o->min = v->min, o->max = v->max, o->sum = v->sum;
        o->unknown = v->unknown != 0;
    }
    out->lost_adds = p->lost_adds;
    out->refused = p->refused;
    out->capture_id = p->cap_seq;
    out->capture_state = p->cap_state <= LUDUS__LIVE_CAP_FAILED ? (int)p->cap_state : LUDUS__LIVE_CAP_FAILED;
    out->capture_rc = p->cap_rc > 0 || p->cap_rc < -100 ? LUDUS_EFORMAT : p->cap_rc;
    out->capture_ms = p->cap_ms;
    out->capture_events = p->cap_events;
    out->capture_dropped = p->cap_dropped;
    out->capture_frames = p->cap_frames;
    out->capture_begin_ns = p->cap_begin_ns;
    out->capture_end_ns = p->cap_end_ns;
    take_text(out->capture_message, sizeof out->capture_message, p->cap_message, sizeof p->cap_message);
    take_text(out->capture_path, sizeof out->capture_path, p->cap_path, sizeof p->cap_path);
    if (!alive) out->state |= LUDUS_WATCH_EXITED;
    return alive ? 0 : LUDUS_ENODATA;
}

int ludus_watch_capture(ludus_watch *w, uint32_t ms, const char *path, uint64_t *id) {
    if (!w || !path || !*path) return ludus__fail(LUDUS_EINVAL, "w and path are required");
    if (ms < 1 || ms > 3600000) return ludus__fail(LUDUS_EINVAL, "%u ms is not 1 .. 3600000", ms);
    char abs[LUDUS__LIVE_PATH];
    int e = ludus__live_absolute(path, abs, sizeof abs);
    if (e) {
        char why[128];
        ludus__os_strerror(e, why, sizeof why);
        return ludus__fail(LUDUS_EINVAL, "%s: %s", path, why);
    }
    ludus__live_watcher_area *a = &w->b->w;
    uint32_t free_claim = 0;
    if (!__atomic_compare_exchange_n(&a->claim, &free_claim, w->own_pid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        /* a claim whose watcher is gone is taken over */
        if (!ludus__live_pid_running(free_claim) &&
            __atomic_compare_exchange_n(&a->claim, &free_claim, w->own_pid, 0, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED)) {
        } else {
            return ludus__fail(LUDUS_EBUSY, "another watcher (pid %u) is asking for a capture", free_claim);
        }
    }
    uint64_t seq = __atomic_load_n(&a->cmd_seq, __ATOMIC_RELAXED) + 1;
    memset(a->cmd_path, 0, sizeof a->cmd_path);
    memcpy(a->cmd_path, abs, strlen(abs));
    __atomic_store_n(&a->cmd_kind, (uint32_t)LUDUS__LIVE_CMD_CAPTURE, __ATOMIC_RELAXED);
    __atomic_store_n(&a->cmd_ms, ms, __ATOMIC_RELAXED);
    __atomic_store_n(&a->cmd_seq, seq, __ATOMIC_RELEASE);
    heartbeat(w, 0, 0);
    w->cmd_id = seq;
    memcpy(w->cmd_path, abs, strlen(abs) + 1);
    if (id) *id = seq;
    return 0;
}
