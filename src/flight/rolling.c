/* The rolling window (include/ludus/rolling.h): a ring of segments, each an
 * ordinary capture, switched by a background thread; snapshots that join
 * them; triggers that hand a snapshot to a writer thread.
 *
 * Segments are one recording: a span begun in one segment and ended in a
 * later one is paired (ludus__same_recording), and a scope's end names its
 * begin by address, which stays unique while both segments are held. When
 * the oldest segment is dropped, what was still open at its end (scopes and
 * spans, per thread) is kept as the thread's "carried" begins, so a later
 * end still finds its begin: a snapshot streams the carried begins first,
 * then the segments' pieces, and cuts the result at the window's start
 * (begins before it are clipped there and flagged). Descriptors of run-time
 * names die with their segment's name table: carried begins point at copies.
 *
 * Locks: `lock` serialises switches, snapshots and the window's state (the
 * switch thread and ludus_rolling_snapshot callers); the writer has its own. The
 * trigger slot and the frame statistics are lock-free: ludus_rolling_trigger may run
 * in a signal handler. */
#include <ludus/overlay.h>
#include <ludus/rolling.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../platform/background.h"
#include "../platform/crash.h"
#include "../platform/sync.h"
#include "../capture/capture_internal.h"

#define REASON_MAX 40
#define DETAIL_MAX 200  /* what a trigger saw, written into its file (capture_internal.h) */
#define POLL_NS 2000000 /* the switch thread looks at the clock and the pool this often */

/* A begin still open when its segment was dropped. */
typedef struct carried {
    ludus__event ev; /* as recorded (its site may be a copy) */
    uintptr_t addr;  /* where it was recorded: ends name it by this */
    int span;        /* 1: a span (paired by site), 0: a scope (by address) */
} carried;

typedef struct thread_carry {
    uint32_t serial;
    carried *e;
    uint32_t n, cap;
    uintptr_t lost[LUDUS__LOST_BEGINS]; /* begins left out at a dropped segment's end (cap_thread.lost_begin) */
    uint32_t nlost;
} thread_carry;

/* Copies of run-time-name descriptors carried past their name table. */
typedef struct site_copy {
    ludus_site site;
    char *name, *function, *file, *category;
} site_copy;

static struct {
    int on;                  /* atomic */
    ludus_capture_desc desc; /* each segment's */
    char *categories;        /* desc.categories, owned */
    ludus_rolling_desc rd;   /* defaults applied */
    char directory[256], prefix[64];
    int64_t window_ns, segment_ns, post_ns, cooldown_ns;
    uint64_t pool_bytes; /* each segment's */
    ludus__mutex lock;
    ludus_capture **seg; /* ended segments, oldest first (held) */
    uint32_t nseg, seg_cap;
    int64_t seg_start_ns; /* CLOCK_MONOTONIC start of the recording segment */
    thread_carry *carry;
    uint32_t ncarry;
    site_copy **copies;
    uint32_t ncopies;
    ludus__thread switcher, writer;
    int stop; /* atomic */
    ludus__wakeup wake;
    /* the trigger slot: 0 free, 1 being filled, 2 waiting */
    uint32_t pending;
    int64_t trigger_ns;
    char reason[REASON_MAX];
    char detail[DETAIL_MAX];
    int64_t last_taken_ns;
    /* the writer */
    ludus__mutex wlock;
    ludus__cond wcond;
    ludus_capture *job;
    char job_reason[REASON_MAX];
    char job_detail[DETAIL_MAX];
    int64_t job_ns;
    int writing, wstop;
    /* frame statistics (one frame thread at a time) */
    uint32_t in_frame; /* atomic */
    int64_t prev_frame_ns;
    int64_t *ring, *sorted;
    uint32_t nring, ring_pos;
    int sig_installed; /* the trigger signal's handler is ours */
    char counter[128], counter_stat[32];
    int counter_was_above;
    uint64_t counter_frame; /* the last frame looked at */
    ludus_rolling_stats st; /* counters are atomic */
    int in_child;           /* a forked child: the background threads are the parent's */
    int64_t utc_offset_s;   /* atomic: local time's offset from UTC (below) */
} R = {.lock = PTHREAD_MUTEX_INITIALIZER, .wlock = PTHREAD_MUTEX_INITIALIZER, .wcond = PTHREAD_COND_INITIALIZER};

int ludus_rolling_active(void) {
    return __atomic_load_n(&R.on, __ATOMIC_ACQUIRE);
}

static void count(uint64_t *field) {
    __atomic_fetch_add(field, 1u, __ATOMIC_RELAXED);
}

/* ---- local time ---- */

/* Local time without the C library's time zone lock: the offset from UTC
 * is read through the C library (localtime_r, which takes that lock) at
 * begin and at each segment switch, on the switch thread; the crash path
 * names its file from it with arithmetic only, since the crashed process
 * may have died with a thread inside localtime_r (glibc's gmtime_r takes
 * the same lock). A change of offset (daylight saving) shows in crash file
 * names a segment later. The offset: R.utc_offset_s. */

static int64_t floor_div(int64_t a, int64_t b) {
    return a / b - (a % b < 0);
}

/* Days since 1970-01-01 of a civil date, and back (H. Hinnant's algorithms,
 * proleptic Gregorian calendar). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2;
    int64_t era = floor_div(y, 400), yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

static void civil_from_seconds(int64_t s, struct tm *tm) {
    int64_t z = floor_div(s, 86400), sod = s - z * 86400;
    z += 719468;
    int64_t era = floor_div(z, 146097), doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t m = mp < 10 ? mp + 3 : mp - 9;
    memset(tm, 0, sizeof *tm);
    tm->tm_year = (int)(yoe + era * 400 + (m <= 2) - 1900);
    tm->tm_mon = (int)(m - 1);
    tm->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
    tm->tm_hour = (int)(sod / 3600);
    tm->tm_min = (int)(sod / 60 % 60);
    tm->tm_sec = (int)(sod % 60);
}

static void refresh_utc_offset(void) {
    int64_t wall_s = floor_div(ludus__wall_ns(), 1000000000);
    struct tm tm;
    ludus__local_time(wall_s * 1000000000, &tm);
    int64_t local = days_from_civil(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday) * 86400 + tm.tm_hour * 3600 +
                    tm.tm_min * 60 + tm.tm_sec;
    __atomic_store_n(&R.utc_offset_s, local - wall_s, __ATOMIC_RELAXED);
}

/* ---- carried begins ---- */

static thread_carry *carry_of(uint32_t serial, int create) {
    for (uint32_t i = 0; i < R.ncarry; i++)
        if (R.carry[i].serial == serial) return &R.carry[i];
    if (!create) return NULL;
    thread_carry *n = ludus__realloc(R.carry, (R.ncarry + 1) * sizeof *n);
    if (!n) return NULL;
    R.carry = n;
    n = &R.carry[R.ncarry++];
    memset(n, 0, sizeof *n);
    n->serial = serial;
    return n;
}

static int carry_push(thread_carry *tc, const ludus__event *e, uintptr_t addr, int span) {
    if (tc->n == tc->cap) {
        uint32_t cap = tc->cap ? tc->cap * 2 : 16;
        carried *n = ludus__realloc(tc->e, cap * sizeof *n);
        if (!n) return -1;
        tc->e = n;
        tc->cap = cap;
    }
    tc->e[tc->n++] = (carried){*e, addr, span};
    return 0;
}

static void carry_remove(thread_carry *tc, uint32_t i) {
    memmove(&tc->e[i], &tc->e[i + 1], (tc->n - i - 1) * sizeof *tc->e);
    tc->n--;
}

/* Replays one thread's runs of a dropped segment over its carried begins:
 * what is still open at the segment's end stays carried. Roles come from
 * the kind table; kinds that open nothing pass. */
static int carry_replay(thread_carry *tc, const ludus__cap_thread *th) {
    for (uint32_t r = 0; r < th->nruns; r++) {
        const ludus__run *run = &th->runs[r];
        for (size_t i = 0; i < run->n;) {
            const ludus__event *e = &run->ev[i];
            const ludus__kind_info *ki = &ludus__kinds[e->word & LUDUS__K_MASK];
            size_t k = ludus__event_slots(e, run->n - i);
            if (k == 0 || k > run->n - i) break;
            uintptr_t key = e->word & ~(uintptr_t)LUDUS__K_MASK;
            if (ki->role == LUDUS__R_OPEN) {
                if (carry_push(tc, e, run->base + i * sizeof *e, 0)) return -1;
            } else if (ki->role == LUDUS__R_CLOSE) {
                uint32_t j = tc->n;
                while (j > 0 && (tc->e[j - 1].span || tc->e[j - 1].addr != key)) j--;
                if (j == 0) /* the end of a begin left out: the slot goes */
                    for (uint32_t q = 0; q < tc->nlost; q++)
                        if (tc->lost[q] == key) {
                            memmove(tc->lost + q, tc->lost + q + 1, (tc->nlost - q - 1) * sizeof *tc->lost);
                            tc->nlost--;
                            break;
                        }
                if (j > 0) { /* it closes its scope and the scopes unwound inside it */
                    uint32_t w = j - 1;
                    for (uint32_t q = j - 1; q < tc->n; q++)
                        if (tc->e[q].span) tc->e[w++] = tc->e[q];
                    tc->n = w;
                }
            } else if (ki->role == LUDUS__R_SPAN_OPEN) {
                if (carry_push(tc, e, 0, 1)) return -1;
            } else if (ki->role == LUDUS__R_SPAN_CLOSE) {
                uint32_t j = tc->n;
                while (j > 0 &&
                       (!tc->e[j - 1].span || (key && (tc->e[j - 1].ev.word & ~(uintptr_t)LUDUS__K_MASK) != key)))
                    j--;
                if (j > 0) carry_remove(tc, j - 1);
            }
            i += k;
        }
    }
    return 0;
}

static char *dup_or_null(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = ludus__malloc(n);
    return d ? memcpy(d, s, n) : NULL;
}

/* A copy of a run-time name's descriptor that outlives its name table. */
static const ludus_site *copy_site(const ludus_site *s) {
    for (uint32_t i = 0; i < R.ncopies; i++) {
        const ludus_site *c = &R.copies[i]->site;
        if (c->line == s->line && c->flags == s->flags && !strcmp(c->name ? c->name : "", s->name ? s->name : "") &&
            !strcmp(c->file ? c->file : "", s->file ? s->file : ""))
            return c;
    }
    site_copy **n = ludus__realloc(R.copies, (R.ncopies + 1) * sizeof *n);
    if (!n) return NULL;
    R.copies = n;
    site_copy *c =
        ludus__aligned_alloc(sizeof *c, 16); /* descriptors are 16-aligned; never freed (see release_window) */
    if (!c) return NULL;
    memset(c, 0, sizeof *c);
    c->name = dup_or_null(s->name);
    c->function = dup_or_null(s->function);
    c->file = dup_or_null(s->file);
    c->category = dup_or_null(s->category);
    c->site = (ludus_site){c->name, c->function, c->file, c->category, s->line, s->flags};
    R.copies[R.ncopies++] = c;
    return &c->site;
}

/* Drops the oldest segment, carrying what was open at its end. */
static void drop_oldest(void) {
    ludus_capture *s = R.seg[0];
    memmove(R.seg, R.seg + 1, (R.nseg - 1) * sizeof *R.seg);
    R.nseg--;
    ludus__capture_quiesce(s);
    if (ludus__build_runs(s) == 0) {
        for (uint32_t t = 0; t < s->nthreads; t++) {
            const ludus__cap_thread *th = &s->threads[t];
            thread_carry *tc = carry_of(th->serial, 1);
            if (!tc) continue;
            if (carry_replay(tc, th) != 0 || th->exited) tc->n = 0; /* an exited thread's scopes ended with it */
            for (uint32_t k = 0; k < th->nlost_begin && !th->exited; k++)
                ludus__lost_begin_add(tc->lost, &tc->nlost, th->lost_begin[k]);
            if (th->exited) tc->nlost = 0;
            for (uint32_t i = 0; i < tc->n; i++) {
                const ludus_site *site = (const ludus_site *)(tc->e[i].ev.word & ~(uintptr_t)LUDUS__K_MASK);
                if (!ludus__names_contains(s->names, site)) continue;
                const ludus_site *copy = copy_site(site);
                if (!copy) { /* without a name it cannot be shown: its end becomes an orphan */
                    carry_remove(tc, i--);
                    continue;
                }
                tc->e[i].ev.word = (uintptr_t)copy | (tc->e[i].ev.word & LUDUS__K_MASK);
            }
        }
    }
    ludus__session_offer_pool(s); /* its pool serves the next segment when nobody else holds it */
}

/* ---- the window as a capture ---- */

static ludus__cap_thread *joined_thread(ludus_capture *j, uint32_t serial) {
    for (uint32_t i = 0; i < j->nthreads; i++)
        if (j->threads[i].serial == serial) return &j->threads[i];
    return NULL;
}

static int append_runs(ludus__cap_thread *th, const ludus__run *runs, uint32_t n) {
    if (!n) return 0;
    ludus__run *r = ludus__realloc(th->runs, (th->nruns + n) * sizeof *r);
    if (!r) return -1;
    th->runs = r;
    memcpy(r + th->nruns, runs, n * sizeof *r);
    th->nruns += n;
    for (uint32_t i = 0; i < n; i++) th->slots += runs[i].n;
    return 0;
}

/* A snapshot's source: the segments it joins (held: its runs are theirs)
 * and the begins carried from before them. */
typedef struct snapshot {
    ludus_capture **parts;
    uint32_t nparts;
    ludus__event *carried;
} snapshot;

static void snapshot_free(ludus_capture *c) {
    snapshot *sn = c->src_data;
    if (!sn) return;
    for (uint32_t i = 0; i < sn->nparts; i++) ludus_capture_release(sn->parts[i]);
    ludus__free(sn->parts);
    ludus__free(sn->carried);
    ludus__free(sn);
}

static const ludus__source_ops snapshot_source = {"snapshot", NULL, ludus__build_recorded, NULL, snapshot_free, 0};

/* The held segments joined into one in-memory capture (lock held). */
static ludus_capture *join_segments(void) {
    ludus_capture *j = ludus__capture_new(&snapshot_source);
    snapshot *sn = j ? ludus__calloc(1, sizeof *sn) : NULL;
    if (!sn) {
        ludus__free(j);
        return NULL;
    }
    j->src_data = sn;
    const ludus_capture *first = R.seg[0], *lastc = R.seg[R.nseg - 1];
    sn->parts = ludus__calloc(R.nseg, sizeof *sn->parts);
    uint32_t maxthreads = 0, ncarried = 0;
    for (uint32_t i = 0; i < R.nseg; i++) maxthreads += R.seg[i]->nthreads;
    for (uint32_t i = 0; i < R.ncarry; i++) ncarried += R.carry[i].n;
    j->threads = ludus__calloc(maxthreads + R.ncarry + 1, sizeof *j->threads);
    sn->carried = ludus__calloc(ncarried + 1, sizeof *sn->carried);
    if (!sn->parts || !j->threads || !sn->carried) goto fail;
    j->gen = lastc->gen;
    j->gen_first = first->gen;
    j->clock_tsc = lastc->clock_tsc;
    j->c0 = first->c0;
    j->c1 = lastc->c1;
    j->start_ns = first->start_ns;
    j->end_ns = lastc->end_ns;
    j->pid = lastc->pid;
    memcpy(j->process_name, lastc->process_name, sizeof j->process_name);
    if (lastc->categories && !(j->categories = dup_or_null(lastc->categories))) goto fail;
    if (lastc->nmem_cov) {
        j->mem_cov = ludus__malloc(lastc->nmem_cov * sizeof *j->mem_cov);
        if (!j->mem_cov) goto fail;
        memcpy(j->mem_cov, lastc->mem_cov, lastc->nmem_cov * sizeof *j->mem_cov);
        j->nmem_cov = lastc->nmem_cov;
    }
    /* carried begins first, at the window's start: one run each (its
     * address is its own) */
    uint32_t nc = 0;
    for (uint32_t i = 0; i < R.ncarry; i++) {
        const thread_carry *tc = &R.carry[i];
        if (!tc->n && !tc->nlost) continue;
        ludus__cap_thread *th = &j->threads[j->nthreads++];
        th->serial = tc->serial;
        th->first_drop_ns = LUDUS__NO_DROP;
        for (uint32_t k = 0; k < tc->nlost; k++) ludus__lost_begin_add(th->lost_begin, &th->nlost_begin, tc->lost[k]);
        for (uint32_t k = 0; k < tc->n; k++) {
            sn->carried[nc] = tc->e[k].ev;
            sn->carried[nc].ticks = first->c0.ticks;
            ludus__run run = {&sn->carried[nc], 1, tc->e[k].addr};
            nc++;
            if (append_runs(th, &run, 1)) goto fail;
            if (tc->e[k].span) th->spans++;
        }
    }
    for (uint32_t i = 0; i < R.nseg; i++) {
        ludus_capture *s = R.seg[i];
        ludus__capture_quiesce(s);
        if (ludus__build_runs(s)) goto fail;
        ludus_capture_retain(s);
        sn->parts[sn->nparts++] = s;
        if (ludus__gpu_append(&j->gpu, s->gpu, s->start_ns - j->start_ns)) goto fail; /* GPU samples, re-based */
        j->unregistered_drops += s->unregistered_drops;
        j->interner_drops += s->interner_drops;
        j->counters_refused += s->counters_refused;
        j->counter_adds_lost += s->counter_adds_lost;
        j->bytes_used += s->bytes_used;
        for (uint32_t t = 0; t < s->nthreads; t++) {
            const ludus__cap_thread *st = &s->threads[t];
            ludus__cap_thread *th = joined_thread(j, st->serial);
            if (!th) {
                th = &j->threads[j->nthreads++];
                th->serial = st->serial;
                th->first_drop_ns = LUDUS__NO_DROP;
            }
            memcpy(th->name, st->name, sizeof th->name); /* the latest name */
            th->tid = st->tid;
            th->exited = st->exited;
            th->dropped += st->dropped;
            if (st->first_drop_ns != LUDUS__NO_DROP && th->first_drop_ns == LUDUS__NO_DROP)
                th->first_drop_ns = st->first_drop_ns + (s->start_ns - j->start_ns);
            th->spans += st->spans;
            th->recorder_orphans += st->recorder_orphans;
            for (uint32_t k = 0; k < st->nlost_begin; k++)
                ludus__lost_begin_add(th->lost_begin, &th->nlost_begin, st->lost_begin[k]);
            if (append_runs(th, st->runs, st->nruns)) goto fail;
        }
    }
    if (j->gpu && ludus__gpu_place(j->gpu)) goto fail;
    return j;
fail:
    ludus_capture_release(j);
    return NULL;
}

/* Switches the recording segment (lock held); drop: let the oldest
 * segments go (the switch thread; a snapshot leaves that to it, so its
 * caller does not replay what is dropped). */
static int switch_segment(int64_t now, int drop) {
    ludus_capture *ended = NULL;
    int64_t took = 0;
    int rc = ludus__session_switch(&R.desc, &ended, &took);
    if (rc) return rc;
    if (took > __atomic_load_n(&R.st.switch_max_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&R.st.switch_max_ns, took, __ATOMIC_RELAXED);
    count(&R.st.segments_switched);
    R.seg_start_ns = now;
    refresh_utc_offset();
    if (R.nseg == R.seg_cap) {
        uint32_t cap = R.seg_cap ? R.seg_cap * 2 : 8;
        ludus_capture **n = ludus__realloc(R.seg, cap * sizeof *n);
        if (!n) {
            ludus_capture_release(ended); /* its events are gone: the window starts later */
            return LUDUS_ENOMEM;
        }
        R.seg = n;
        R.seg_cap = cap;
    }
    R.seg[R.nseg++] = ended;
    /* the window: the oldest segment goes once the next one alone reaches
     * back to the window's start (so a snapshot spans window_ms to
     * window_ms + a segment), or when the held segments' events use the
     * memory of segments + 1 pools. Snapshots end segments early: up to
     * 2 x segments + 2 short ones are held. */
    if (!drop) return 0;
    uint64_t held = 0;
    for (uint32_t i = 0; i < R.nseg; i++) held += R.seg[i]->bytes_used;
    uint64_t budget = R.pool_bytes * (R.rd.segments + 1);
    while (R.nseg > 2 * R.rd.segments + 2 || (R.nseg > 1 && held > budget) ||
           (R.nseg > 1 && R.seg[1]->start_ns <= now - R.window_ns)) {
        held -= R.seg[0]->bytes_used;
        drop_oldest();
    }
    return 0;
}

/* The window now (lock held): the held segments joined. */
static int take_window(ludus_capture **out) {
    *out = NULL;
    int rc = switch_segment(ludus__mono_ns(), 0);
    if (rc) return rc;
    if (R.nseg == 0) return ludus__fail(LUDUS_ENODATA, "the window holds no segment yet");
    *out = join_segments();
    return *out ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory while joining the window's segments");
}

int ludus_rolling_snapshot(ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    ludus__mutex_lock(&R.lock);
    int rc = ludus_rolling_active() ? take_window(out) : ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    ludus__mutex_unlock(&R.lock);
    return rc;
}

/* ---- triggers ---- */

/* A trigger with what it saw (detail: NULL, or text the caller made; a
 * signal handler passes a literal). Async-signal-safe. */
static void trigger_with(const char *reason, const char *detail) {
    if (!ludus_rolling_active()) return;
    count(&R.st.triggers);
    uint32_t free_slot = 0;
    if (!__atomic_compare_exchange_n(&R.pending, &free_slot, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        count(&R.st.coalesced);
        return;
    }
    R.trigger_ns = ludus__mono_ns(); /* async-signal-safe (clock_gettime), as is everything here */
    size_t n = 0;
    for (; reason && reason[n] && n < REASON_MAX - 1; n++) {
        char ch = reason[n];
        int ok =
            (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
        R.reason[n] = ok ? ch : '_';
    }
    if (n == 0) R.reason[n++] = 't';
    R.reason[n] = 0;
    size_t k = 0;
    for (; detail && detail[k] && k < DETAIL_MAX - 1; k++) R.detail[k] = detail[k];
    R.detail[k] = 0;
    __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
    ludus__wakeup_post(&R.wake);
}

void ludus_rolling_trigger(const char *reason) {
    trigger_with(reason, "ludus_rolling_trigger() called");
}

static void on_signal(void) {
    trigger_with("signal", "the trigger signal arrived");
}

/* A frame mark: a frame longer than hitch_factor times the running median
 * of the last median_frames frames triggers "hitch". */
/* The counter threshold, on the last frame the ring closed (the frame
 * thread, at a frame mark). */
static void check_counter(void) {
    uint64_t first, last;
    int64_t v;
    if (ludus_live_frames(&first, &last) != 0 || last == R.counter_frame) return;
    R.counter_frame = last;
    if (ludus_live_value(last, R.counter, R.counter_stat, &v) != 0) return;
    int above = v > R.rd.counter_above;
    if (above && !R.counter_was_above) {
        count(&R.st.counter_crossings);
        char detail[DETAIL_MAX];
        snprintf(detail, sizeof detail, "%.120s %.24s = %lld in frame %llu, above %lld", R.counter, R.counter_stat,
                 (long long)v, (unsigned long long)last, (long long)R.rd.counter_above);
        trigger_with("counter", detail);
    }
    R.counter_was_above = above;
}

static void on_frame(void) {
    /* in_frame first, then on (sequentially consistent both, as
     * ludus_rolling_end's store of on and wait for in_frame): the end never
     * frees the statistics under a frame. */
    if (__atomic_exchange_n(&R.in_frame, 1u, __ATOMIC_SEQ_CST)) return; /* frames from two threads at once */
    if (!__atomic_load_n(&R.on, __ATOMIC_SEQ_CST)) {
        __atomic_store_n(&R.in_frame, 0u, __ATOMIC_RELEASE);
        return;
    }
    if (R.counter[0]) check_counter();
    if (R.rd.hitch_factor < 0) {
        __atomic_store_n(&R.in_frame, 0u, __ATOMIC_RELEASE);
        return;
    }
    int64_t now = ludus__mono_ns();
    int64_t dt = R.prev_frame_ns ? now - R.prev_frame_ns : -1;
    R.prev_frame_ns = now;
    uint32_t m = R.rd.median_frames;
    if (dt >= 0 && R.ring) {
        if (R.nring == m) {
            int64_t median = R.sorted[m / 2];
            __atomic_store_n(&R.st.frame_median_ns, median, __ATOMIC_RELAXED);
            if ((double)dt > R.rd.hitch_factor * (double)median) {
                count(&R.st.hitches);
                char detail[DETAIL_MAX];
                snprintf(detail, sizeof detail,
                         "a frame of %.3f ms, %.2f x the running median %.3f ms of the last %u frames (> %.2f x)",
                         (double)dt / 1e6, median > 0 ? (double)dt / (double)median : 0.0, (double)median / 1e6, m,
                         R.rd.hitch_factor);
                trigger_with("hitch", detail);
            }
            /* the oldest leaves the sorted copy */
            int64_t old = R.ring[R.ring_pos];
            uint32_t lo = 0, hi = R.nring;
            while (lo < hi) {
                uint32_t mid = (lo + hi) / 2;
                if (R.sorted[mid] < old)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(&R.sorted[lo], &R.sorted[lo + 1], (R.nring - lo - 1) * sizeof *R.sorted);
            R.nring--;
        }
        R.ring[R.ring_pos] = dt;
        R.ring_pos = (R.ring_pos + 1) % m;
        uint32_t at = R.nring;
        while (at > 0 && R.sorted[at - 1] > dt) {
            R.sorted[at] = R.sorted[at - 1];
            at--;
        }
        R.sorted[at] = dt;
        R.nring++;
    }
    __atomic_store_n(&R.in_frame, 0u, __ATOMIC_RELEASE);
}

/* ---- the writer thread ---- */

static const char *extension(int format) {
    return format == LUDUS_FORMAT_JSON ? "json" : format == LUDUS_FORMAT_PFTRACE ? "pftrace" : "ludus";
}

/* A window's file: the directory, the prefix, the trigger's wall-clock
 * time (from its distance to now) and the reason. in_crash: local time
 * from the offset read last, with no call that may lock. */
static void window_path(const char *reason, int64_t at_ns, int in_crash, char *path, size_t cap) {
    int64_t wall = ludus__wall_ns() - (ludus__mono_ns() - at_ns);
    struct tm tm;
    if (in_crash)
        civil_from_seconds(floor_div(wall, 1000000000) + __atomic_load_n(&R.utc_offset_s, __ATOMIC_RELAXED), &tm);
    else
        ludus__local_time(wall, &tm);
    snprintf(path, cap, "%s/%s-%04d%02d%02d-%02d%02d%02d-%03d-%s.%s", R.directory, R.prefix, tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(wall / 1000000 % 1000), reason,
             extension(R.rd.format));
}

static void write_job(ludus_capture *c, const char *reason, int64_t at_ns, const char *detail) {
    char path[512];
    window_path(reason, at_ns, 0, path, sizeof path);
    ludus__capture_mark_trigger(c, reason, at_ns, detail); /* the file says what it was written for */
    int rc = ludus_capture_save(c, R.rd.format, 0, path);
    ludus__mutex_lock(&R.wlock);
    if (rc == 0) {
        R.st.files_written++;
        snprintf(R.st.last_file, sizeof R.st.last_file, "%s", path);
    } else {
        R.st.write_errors++;
        fprintf(stderr, "ludus: rolling window: writing %s failed: %s (%s)\n", path, ludus_error_string(rc),
                ludus_last_error_detail());
    }
    ludus__mutex_unlock(&R.wlock);
}

static void *writer_main(void *arg) {
    (void)arg;
    /* Runs when a CPU is idle: writing a window must not make the frames
     * that follow it a second hitch. */
    ludus__thread_background();
    ludus__mutex_lock(&R.wlock);
    for (;;) {
        while (!R.job && !R.wstop) ludus__cond_wait(&R.wcond, &R.wlock);
        if (!R.job) break;
        ludus_capture *c = R.job;
        char reason[REASON_MAX], detail[DETAIL_MAX];
        memcpy(reason, R.job_reason, sizeof reason);
        memcpy(detail, R.job_detail, sizeof detail);
        int64_t at = R.job_ns;
        R.job = NULL;
        R.writing = 1;
        ludus__mutex_unlock(&R.wlock);
        write_job(c, reason, at, detail);
        ludus_capture_release(c);
        ludus__mutex_lock(&R.wlock);
        R.writing = 0;
        ludus__cond_broadcast(&R.wcond);
    }
    ludus__mutex_unlock(&R.wlock);
    return NULL;
}

/* ---- the switch thread ---- */

/* The trigger waiting in the slot, once its post-trigger time has passed
 * (lock held). */
static void handle_trigger(int64_t now) {
    if (__atomic_load_n(&R.pending, __ATOMIC_ACQUIRE) != 2) return;
    int64_t at = R.trigger_ns;
    int refuse = 0;
    if (R.last_taken_ns && at - R.last_taken_ns < R.cooldown_ns) {
        count(&R.st.cooled);
        refuse = 1;
    } else if (__atomic_load_n(&R.st.taken, __ATOMIC_RELAXED) >= R.rd.max_files) {
        count(&R.st.over_max);
        refuse = 1;
    }
    if (!refuse && now < at + R.post_ns) return; /* not yet */
    char reason[REASON_MAX], detail[DETAIL_MAX];
    memcpy(reason, R.reason, sizeof reason);
    memcpy(detail, R.detail, sizeof detail);
    __atomic_store_n(&R.pending, 0u, __ATOMIC_RELEASE);
    if (refuse) return;
    ludus__mutex_lock(&R.wlock);
    int busy = R.job != NULL || R.writing;
    ludus__mutex_unlock(&R.wlock);
    if (busy) {
        count(&R.st.writer_busy);
        return;
    }
    ludus_capture *c = NULL;
    if (take_window(&c) != 0) {
        fprintf(stderr, "ludus: rolling window: taking the window for '%s' failed: %s\n", reason,
                ludus_last_error_detail());
        return;
    }
    R.last_taken_ns = at;
    count(&R.st.taken);
    ludus__mutex_lock(&R.wlock);
    R.job = c;
    memcpy(R.job_reason, reason, sizeof reason);
    memcpy(R.job_detail, detail, sizeof detail);
    R.job_ns = at;
    ludus__cond_broadcast(&R.wcond);
    ludus__mutex_unlock(&R.wlock);
}

static void *switcher_main(void *arg) {
    (void)arg;
    while (!__atomic_load_n(&R.stop, __ATOMIC_ACQUIRE)) {
        ludus__wakeup_wait(&R.wake, POLL_NS);
        if (__atomic_load_n(&R.stop, __ATOMIC_ACQUIRE)) break;
        ludus__mutex_lock(&R.lock);
        int64_t now = ludus__mono_ns();
        uint64_t used = __atomic_load_n(&ludus__sess.pool.next, __ATOMIC_RELAXED);
        int full = ludus__sess.pool.bytes && used >= ludus__sess.pool.bytes / 4 * 3;
        if (now - R.seg_start_ns >= R.segment_ns) {
            switch_segment(now, 1);
        } else if (full) {
            count(&R.st.early_switches);
            switch_segment(now, 1);
        }
        handle_trigger(ludus__mono_ns());
        ludus__mutex_unlock(&R.lock);
    }
    return NULL;
}

/* ---- fork ---- */

/* The child has no background thread: its recording goes on in the segment
 * it had (no switch, no trigger), and ludus_rolling_snapshot and ludus_rolling_end
 * work there. The window's locks are made anew in the child (a thread of
 * the parent may have held them; holding them across fork instead would
 * order them against the other fork handlers' locks). */
static void fork_child(void) {
    ludus__mutex_init(&R.lock);
    ludus__mutex_init(&R.wlock);
    ludus__cond_init(&R.wcond);
    if (!R.on) return;
    R.in_child = 1;
    R.job = NULL; /* the parent writes it */
    R.writing = 0;
    R.pending = 0;
    __atomic_store_n(&ludus__frame_hook, NULL, __ATOMIC_RELEASE);
}

/* ---- crash ---- */

/* The window written by a crash (crash.c): the segment recording ends (no
 * next one begins) and the window is written from here. */
static void crash_keep(ludus_capture *ended) {
    for (uint32_t i = 0; i < R.nseg; i++)
        if (R.seg[i] == ended) {
            ludus_capture_release(ended);
            return;
        }
    ludus_capture **n = R.nseg == R.seg_cap ? ludus__realloc(R.seg, (R.seg_cap + 1) * sizeof *n) : R.seg;
    if (n) {
        R.seg = n;
        R.seg_cap += R.nseg == R.seg_cap;
        R.seg[R.nseg++] = ended;
    } else {
        ludus_capture_release(ended);
    }
}

static int crash_window_locked(int signo, uint64_t tid, int64_t at_ns, char *path, size_t cap) {
    /* A switch the crash stopped half way (in the copy its thread is not
     * there) has ended a segment the window does not hold yet: the last
     * capture, when it is one of this window's. */
    ludus_capture *l = NULL;
    if (ludus_capture_last(&l) == 0) {
        uint32_t first = __atomic_load_n(&ludus__rolling_first_gen, __ATOMIC_RELAXED);
        if (first && ludus__gen_within(l->gen, first, ludus__sess.gen ? ludus__sess.gen : l->gen))
            crash_keep(l);
        else
            ludus_capture_release(l);
    }
    ludus_capture *ended = NULL;
    if (ludus__session_crash_end(&ended) == 0) crash_keep(ended);
    if (R.nseg == 0) return ludus__fail(LUDUS_ENODATA, "the window holds no segment");
    ludus_capture *c = join_segments();
    if (!c) return ludus__fail(LUDUS_ENOMEM, "out of memory while joining the window's segments");
    ludus__capture_mark_crash(c, signo, tid, at_ns);
    char reason[32];
    snprintf(reason, sizeof reason, "crash-%s", ludus__crash_signal_name(signo));
    window_path(reason, at_ns, 1, path, cap);
    int rc = ludus_capture_save(c, R.rd.format, 0, path);
    ludus_capture_release(c);
    return rc;
}

/* in_copy: a copy of the crashed process (its locks made anew, no
 * background thread); else the crashed process itself, whose switch
 * thread still runs: the window's lock is taken (a while, as the crashed
 * thread may hold it). */
static int crash_window(int signo, uint64_t tid, int64_t at_ns, int in_copy, char *path, size_t cap) {
    if (in_copy) {
        fork_child();
        return crash_window_locked(signo, tid, at_ns, path, cap);
    }
    for (int tries = 0; ludus__mutex_trylock(&R.lock) != 0; tries++) {
        if (tries == 2000) return ludus__fail(LUDUS_EBUSY, "the window's lock stayed held");
        ludus__sleep_ns(1000000);
    }
    int rc = crash_window_locked(signo, tid, at_ns, path, cap);
    ludus__mutex_unlock(&R.lock);
    return rc;
}

/* ---- begin and end ---- */

static void release_window(void) {
    for (uint32_t i = 0; i < R.nseg; i++) ludus_capture_release(R.seg[i]);
    R.nseg = 0;
    ludus__session_offer_pool(NULL);
    ludus__free(R.seg);
    R.seg = NULL;
    R.seg_cap = 0;
    for (uint32_t i = 0; i < R.ncarry; i++) ludus__free(R.carry[i].e);
    ludus__free(R.carry);
    R.carry = NULL;
    R.ncarry = 0;
    /* Copies of descriptors stay: a snapshot still held may point at them
     * (they are few: one per distinct run-time name carried). */
    ludus__free(R.ring);
    ludus__free(R.sorted);
    R.ring = R.sorted = NULL;
    ludus__free(R.categories);
    R.categories = NULL;
}

int ludus_rolling_begin(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling) {
    const char *elsewhere = ludus__backend_no_capture();
    if (elsewhere) return ludus__fail(LUDUS_EUNSUPPORTED, "%s", elsewhere);
    if (ludus_rolling_active() || ludus_capture_active())
        return ludus__fail(LUDUS_EBUSY, "a capture is already active");
    if (capture && capture->pool_file)
        return ludus__fail(LUDUS_EINVAL, "a pool file is for one capture, not the rolling window's segments");
    ludus_rolling_desc d;
    if (rolling)
        d = *rolling;
    else
        memset(&d, 0, sizeof d);
    if (!d.window_ms) d.window_ms = 4000;
    if (!d.segments) d.segments = 4;
    if (d.hitch_factor == 0) d.hitch_factor = 2.5;
    if (!d.median_frames) d.median_frames = 120;
    if (!d.post_ms) d.post_ms = d.window_ms / 4;
    if (d.post_ms == (uint32_t)LUDUS_ROLLING_NONE) d.post_ms = 0;
    if (!d.cooldown_ms) d.cooldown_ms = 5000;
    if (d.cooldown_ms == (uint32_t)LUDUS_ROLLING_NONE) d.cooldown_ms = 0;
    if (!d.max_files) d.max_files = 16;
    if (!d.signal) d.signal = ludus__trigger_signal_default();
    if (!d.signal) d.signal = -1; /* none on this OS */
    if (!d.format) d.format = LUDUS_FORMAT_LUDUS;
    if (d.segments > 64 || d.median_frames > 100000 || d.post_ms >= d.window_ms ||
        (d.hitch_factor > 0 && d.hitch_factor < 1) || d.format < LUDUS_FORMAT_JSON || d.format > LUDUS_FORMAT_LUDUS ||
        (d.signal != -1 && !ludus__trigger_signal_valid(d.signal)))
        return ludus__fail(LUDUS_EINVAL,
                           "rolling: segments 1..64, median_frames up to 100000, post_ms below window_ms, "
                           "hitch_factor >= 1 (or < 0), a known format, a catchable signal (or -1)");
    const char *stat = d.counter_stat && *d.counter_stat ? d.counter_stat : "per frame";
    if (d.counter && (strlen(d.counter) >= sizeof R.counter || strlen(stat) >= sizeof R.counter_stat))
        return ludus__fail(LUDUS_EINVAL, "rolling: counter name (127 bytes) or stat (31 bytes) too long");
    const char *dir = d.directory && *d.directory ? d.directory : ".";
    const char *prefix = d.prefix && *d.prefix ? d.prefix : "ludus";
    if (strlen(dir) >= sizeof R.directory || strlen(prefix) >= sizeof R.prefix)
        return ludus__fail(LUDUS_EINVAL, "rolling: directory (255 bytes) or prefix (63 bytes) too long");
    ludus_capture_desc cd;
    ludus_capture_desc_defaults(capture, &cd);
    /* The window's memory, shared: each of the segments + 1 held segments
     * and the recording one gets an equal part (at least 4 chunks). */
    uint32_t per = cd.chunk_count / (d.segments + 2);
    cd.chunk_count = per < 4 ? 4 : per;
    R.pool_bytes = (uint64_t)cd.chunk_count * cd.chunk_bytes;

    ludus__mutex_lock(&R.wlock);
    memset(&R.st, 0, sizeof R.st);
    ludus__mutex_unlock(&R.wlock);
    R.rd = d;
    snprintf(R.counter, sizeof R.counter, "%s", d.counter ? d.counter : "");
    snprintf(R.counter_stat, sizeof R.counter_stat, "%s", stat);
    R.counter_was_above = 0;
    R.counter_frame = 0;
    if (R.counter[0]) ludus_frame_ring_enable();
    snprintf(R.directory, sizeof R.directory, "%s", dir);
    snprintf(R.prefix, sizeof R.prefix, "%s", prefix);
    R.window_ns = (int64_t)d.window_ms * 1000000;
    R.segment_ns = R.window_ns / d.segments;
    R.post_ns = (int64_t)d.post_ms * 1000000;
    R.cooldown_ns = (int64_t)d.cooldown_ms * 1000000;
    R.categories = dup_or_null(cd.categories);
    cd.categories = R.categories;
    R.desc = cd;
    R.ring = ludus__calloc(d.median_frames, sizeof *R.ring);
    R.sorted = ludus__calloc(d.median_frames, sizeof *R.sorted);
    R.nring = R.ring_pos = 0;
    R.prev_frame_ns = 0;
    R.pending = 0;
    R.last_taken_ns = 0;
    R.stop = 0;
    R.wstop = 0;
    R.in_child = 0;
    ludus__at_fork_child(fork_child);
    R.job = NULL;
    R.writing = 0;
    if (!R.ring || !R.sorted || (capture && capture->categories && !R.categories)) {
        release_window();
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int rc = ludus_capture_begin(&R.desc);
    if (rc) {
        release_window();
        return rc;
    }
    __atomic_store_n(&ludus__rolling_first_gen, ludus__sess.gen, __ATOMIC_RELAXED);
    R.seg_start_ns = ludus__mono_ns();
    refresh_utc_offset();
    ludus__wakeup_init(&R.wake);
    __atomic_store_n(&R.on, 1, __ATOMIC_RELEASE);
    ludus__session_rolling(1);
    int have_writer = ludus__thread_start(&R.writer, writer_main, NULL) == 0;
    if (!have_writer || ludus__thread_start(&R.switcher, switcher_main, NULL) != 0) {
        /* no background thread: no rolling window */
        ludus__mutex_lock(&R.wlock);
        R.wstop = 1;
        ludus__cond_broadcast(&R.wcond);
        ludus__mutex_unlock(&R.wlock);
        if (have_writer) ludus__thread_join(R.writer);
        __atomic_store_n(&R.on, 0, __ATOMIC_RELEASE);
        ludus__session_rolling(0);
        ludus__session_end();
        ludus__wakeup_destroy(&R.wake);
        release_window();
        return ludus__fail(LUDUS_ENOMEM, "could not start the rolling window's threads");
    }
    __atomic_store_n(&ludus__frame_hook, on_frame, __ATOMIC_RELEASE);
    ludus__crash_rolling = crash_window;
    R.sig_installed = d.signal > 0 && ludus__trigger_signal_install(d.signal, on_signal) == 0;
    return 0;
}

int ludus_rolling_end(void) {
    if (!ludus_rolling_active()) return ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    __atomic_store_n(&ludus__frame_hook, NULL, __ATOMIC_RELEASE);
    ludus__crash_rolling = NULL;
    if (R.sig_installed) ludus__trigger_signal_restore();
    R.sig_installed = 0;
    if (!R.in_child) {
        __atomic_store_n(&R.stop, 1, __ATOMIC_RELEASE);
        ludus__wakeup_post(&R.wake);
        ludus__thread_join(R.switcher);
        ludus__mutex_lock(&R.wlock);
        R.wstop = 1;
        ludus__cond_broadcast(&R.wcond);
        ludus__mutex_unlock(&R.wlock);
        ludus__thread_join(R.writer);
    }
    ludus__mutex_lock(&R.lock);
    __atomic_store_n(&R.on, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&R.in_frame, __ATOMIC_SEQ_CST)) ludus__yield();     /* a frame still in on_frame */
    if (__atomic_load_n(&R.pending, __ATOMIC_ACQUIRE)) count(&R.st.coalesced); /* dropped with the window */
    R.pending = 0;
    ludus__session_rolling(0);
    int rc = ludus__session_end();
    __atomic_store_n(&ludus__rolling_first_gen, 0u, __ATOMIC_RELAXED);
    release_window();
    ludus__mutex_unlock(&R.lock);
    ludus__wakeup_destroy(&R.wake);
    return rc;
}

int ludus_rolling_get_stats(ludus_rolling_stats *out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    memset(out, 0, sizeof *out);
#define LOAD(f) out->f = __atomic_load_n(&R.st.f, __ATOMIC_RELAXED)
    LOAD(segments_switched);
    LOAD(early_switches);
    LOAD(switch_max_ns);
    LOAD(triggers);
    LOAD(hitches);
    LOAD(counter_crossings);
    LOAD(taken);
    LOAD(coalesced);
    LOAD(cooled);
    LOAD(over_max);
    LOAD(writer_busy);
    LOAD(frame_median_ns);
#undef LOAD
    ludus__mutex_lock(&R.wlock); /* the writer's */
    out->files_written = R.st.files_written;
    out->write_errors = R.st.write_errors;
    memcpy(out->last_file, R.st.last_file, sizeof out->last_file);
    ludus__mutex_unlock(&R.wlock);
    return 0;
}

int ludus_rolling_flush(uint32_t timeout_ms) {
    int64_t until = ludus__mono_ns() + (int64_t)timeout_ms * 1000000;
    for (;;) {
        /* under the window's lock: the switch thread takes a trigger and
         * hands its window to the writer while holding it */
        ludus__mutex_lock(&R.lock);
        ludus__mutex_lock(&R.wlock);
        int idle = !R.job && !R.writing && __atomic_load_n(&R.pending, __ATOMIC_ACQUIRE) == 0;
        ludus__mutex_unlock(&R.wlock);
        ludus__mutex_unlock(&R.lock);
        if (idle) return 0;
        if (ludus__mono_ns() >= until) return ludus__fail(LUDUS_EBUSY, "the rolling window is still writing");
        ludus__sleep_ns(1000000);
    }
}
