/* The flight recorder (include/ludus/rolling.h): one capture that forgets.
 * Each thread writes over its own oldest piece of the pool once that piece
 * lies wholly before the window, or when the pool has no other room
 * (src/record/emit.c, ring_reuse): no switch, no pause, no thread that
 * reads what producers wrote. A snapshot copies what every thread holds
 * while they go on (src/session/ring_snapshot.c); ends whose begins were
 * written over get a begin at their thread's first event when the copy is
 * first read (src/capture/ring_start.c). Triggers (a hitch, a call, a
 * signal, a counter) are taken by the window's thread once their
 * post-trigger time has passed, and written by the writer thread, which
 * runs at the lowest priority.
 *
 * Locks: begin and end run under the session's control lock
 * (src/session/session.h: one owner of the recorder; a window the live view
 * runs is a guest's, ended whenever the program begins anything); `lock`
 * serialises snapshots, the window's thread and the end; the writer has its
 * own. The trigger slot and the frame statistics are
 * lock-free: ludus_rolling_trigger may run in a signal handler. */
#include <ludus/overlay.h>
#include <ludus/rolling.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../backend/backend.h"
#include "../platform/background.h"
#include "../platform/crash.h"
#include "../platform/sync.h"
#include "../capture/capture_build.h"
#include "../capture/nev.h"
#include "../session/session.h"
#include "../postmortem/postmortem.h"
#include "flight.h"

#define REASON_MAX 40
#define DETAIL_MAX 320   /* what a trigger saw, written into its file (capture_model.h) */
#define POLL_NS 50000000 /* the window's thread looks at the clock this often (a trigger wakes it) */
#define RATE_NS 20000000 /* the tick rate is measured over the first 20 ms */

static struct {
    int on;                  /* atomic */
    int owner;               /* atomic: LUDUS__OWNER_* of the running window */
    ludus_capture_desc desc; /* the recording's */
    char *categories;        /* desc.categories, owned */
    ludus_rolling_desc rd;   /* defaults applied */
    char directory[256], prefix[64];
    int64_t window_ns, post_ns, cooldown_ns;
    int rate_known; /* the window's length in ticks is set (ludus__session_set_ring) */
    int warmed;     /* the copy memory was touched once (warm_copy) */
    int64_t begun_ns;
    ludus__mutex lock;
    ludus__thread watcher, writer;
    int stop; /* atomic */
    ludus__wakeup wake;
    /* the trigger slot: 0 free, 1 being filled, 2 waiting, 3 being taken
     * (the window's thread copies it out) */
    uint32_t pending;
    int64_t trigger_ns;
    char reason[REASON_MAX];
    char detail[DETAIL_MAX];
    int64_t sev;               /* a hitch's frame length (the worse, the longer); 0: not a hitch */
    int64_t prev_ns, prev_sev; /* the hitch it replaced while waiting (prev_sev 0: none) */
    int64_t last_taken_ns;
    int64_t cool_worst; /* the worst hitch taken in the cooldown that runs (the window's thread) */
    int64_t budget_ns;
    /* atomics: a hitch that found the slot being taken (the window's thread
     * looks at it once it is done), and what got no file since the last one */
    int64_t missed_sev, missed_ns;
    struct {
        uint64_t cooled, replaced, coalesced, over_max, busy, hitches;
        int64_t worst_ns;
    } since;
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
} R = {.lock = LUDUS__MUTEX_INIT, .wlock = LUDUS__MUTEX_INIT, .wcond = LUDUS__COND_INIT};

/* The running window's, whoever owns it. */
static int window_on(void) {
    return __atomic_load_n(&R.on, __ATOMIC_ACQUIRE);
}

static int window_of(int owner) {
    return window_on() && __atomic_load_n(&R.owner, __ATOMIC_ACQUIRE) == owner;
}

int ludus_rolling_active(void) { /* the program's: the live view's is not its */
    return window_of(LUDUS__OWNER_PROGRAM);
}

int ludus__rolling_guest_runs(void) {
    return window_of(LUDUS__OWNER_GUEST);
}

static void count(uint64_t *field) {
    __atomic_fetch_add(field, 1u, __ATOMIC_RELAXED);
}

/* ---- local time ---- */

/* Local time without the C library's time zone lock: the offset from UTC
 * is read through the C library (localtime_r, which takes that lock) at
 * begin and at each poll of the window's thread; the crash path
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
/* ---- the window ---- */

static char *dup_or_null(const char *s) {
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = ludus__malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* The window's length in ticks, from the clock's rate since the recording
 * began (once RATE_NS have passed; until then pieces are reused only for
 * room). */
static void measure_rate(void) {
    if (R.rate_known) return;
    ludus__calib_point b = ludus__sess.begin_point, now = ludus__calibrate_point();
    if (!ludus__sess.clock_tsc) {
        ludus__session_set_ring((uint64_t)R.window_ns);
        R.rate_known = 1;
        return;
    }
    int64_t dn = now.ns - b.ns;
    if (dn < RATE_NS || now.ticks <= b.ticks) return;
    ludus__session_set_ring((uint64_t)((ludus__u128)(now.ticks - b.ticks) * (uint64_t)R.window_ns / (uint64_t)dn));
    R.rate_known = 1;
}

/* A copy of the window now (lock held); its cost to the caller is kept in
 * the statistics. */
static int take_window(ludus_capture **out) {
    int64_t t0 = ludus__mono_ns();
    int rc = ludus__session_ring_snapshot(out);
    int64_t took = ludus__mono_ns() - t0;
    __atomic_store_n(&R.st.snapshot_last_ns, took, __ATOMIC_RELAXED);
    if (took > __atomic_load_n(&R.st.snapshot_max_ns, __ATOMIC_RELAXED))
        __atomic_store_n(&R.st.snapshot_max_ns, took, __ATOMIC_RELAXED);
    return rc;
}

int ludus_rolling_snapshot(ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    ludus__mutex_lock(&R.lock);
    int rc = ludus_rolling_active() ? take_window(out) : ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    ludus__mutex_unlock(&R.lock);
    return rc;
}

int ludus__rolling_snapshot_any(ludus_capture **out) {
    *out = NULL;
    ludus__mutex_lock(&R.lock);
    int rc = window_on() ? take_window(out) : ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    ludus__mutex_unlock(&R.lock);
    return rc;
}

/* ---- triggers ---- */

static void atomic_max(int64_t *field, int64_t v) {
    int64_t old = __atomic_load_n(field, __ATOMIC_RELAXED);
    while (v > old && !__atomic_compare_exchange_n(field, &old, v, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
}

/* A hitch that gets no file of its own (sev: its frame's length), and why
 * (one of R.since's counters). */
static void hitch_unwritten(uint64_t *why, int64_t sev) {
    if (sev <= 0) return;
    count(&R.st.hitches_unwritten);
    atomic_max(&R.st.worst_unwritten_ns, sev);
    count(why);
    count(&R.since.hitches);
    atomic_max(&R.since.worst_ns, sev);
}

/* Fills the slot (held at 1): reason, detail, when, how bad. */
static void fill_slot(const char *reason, const char *detail, int64_t at, int64_t sev) {
    __atomic_store_n(&R.trigger_ns, at, __ATOMIC_RELAXED); /* the window's thread reads it to sleep (below) */
    R.sev = sev;
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
}

/* A trigger with what it saw (detail: NULL, or text the caller made; a
 * signal handler passes a literal). Async-signal-safe. */
static void trigger_with(const char *reason, const char *detail) {
    if (!ludus_rolling_active()) return; /* none, or the live view's (it writes no file) */
    count(&R.st.triggers);
    uint32_t free_slot = 0;
    if (!__atomic_compare_exchange_n(&R.pending, &free_slot, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        count(&R.st.coalesced);
        return;
    }
    /* async-signal-safe (clock_gettime), as is everything here */
    fill_slot(reason, detail, ludus__mono_ns(), 0);
    R.prev_sev = 0;
    __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
    ludus__wakeup_post(&R.wake);
}

/* A hitch (the frame thread, at a mark): it takes the free slot; a worse
 * one than a hitch waiting there takes its place (the file's window may
 * still hold the one it replaced: the file says); while the slot is being
 * taken, it is remembered for the window's thread to look at after. */
static void trigger_hitch(const char *detail, int64_t at, int64_t sev) {
    if (!ludus_rolling_active()) return; /* none, or the live view's (it writes no file) */
    count(&R.st.triggers);
    uint32_t st = 0;
    if (__atomic_compare_exchange_n(&R.pending, &st, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        fill_slot("hitch", detail, at, sev);
        R.prev_sev = 0;
        __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
        ludus__wakeup_post(&R.wake);
        return;
    }
    if (st == 2 && __atomic_compare_exchange_n(&R.pending, &st, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        int worse = R.sev > 0 && sev > R.sev;
        if (worse) {
            count(&R.st.replaced);
            hitch_unwritten(&R.since.replaced, R.sev);
            int64_t prev_ns = R.trigger_ns, prev_sev = R.sev;
            fill_slot("hitch", detail, at, sev);
            R.prev_ns = prev_ns;
            R.prev_sev = prev_sev;
        }
        __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
        count(&R.st.coalesced);
        if (!worse) hitch_unwritten(&R.since.coalesced, sev);
        return;
    }
    count(&R.st.coalesced);
    if (st == 3) { /* being taken: the window's thread looks at it once done */
        if (sev > __atomic_load_n(&R.missed_sev, __ATOMIC_RELAXED)) {
            __atomic_store_n(&R.missed_ns, at, __ATOMIC_RELAXED);
            __atomic_store_n(&R.missed_sev, sev, __ATOMIC_RELEASE);
        }
        return;
    }
    hitch_unwritten(&R.since.coalesced, sev);
}

void ludus_rolling_trigger(const char *reason) {
    trigger_with(reason, "ludus_rolling_trigger() called");
}

static void rolling_on_signal(void) {
    trigger_with("signal", "the trigger signal arrived");
}

/* A frame mark: a frame longer than hitch_factor times the running median
 * of the last median_frames frames triggers "hitch". */
/* The counter threshold, on the last frame the ring closed (the frame
 * thread, at a frame mark). */
static void check_counter(void) {
    uint64_t first, last;
    int64_t v;
    if (ludus_frame_ring_frames(&first, &last) != 0 || last == R.counter_frame) return;
    R.counter_frame = last;
    if (ludus_frame_ring_value(last, R.counter, R.counter_stat, &v) != 0) return;
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

/* A test hook (tests/unit/test_rolling.c): the clock a frame mark reads
 * for the running median, when set (a fake clock: a frame's length is the
 * test's, not the scheduler's); ludus__mono_ns otherwise. */
int64_t (*ludus__rolling_frame_clock)(void);

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
    if (R.rd.hitch_factor < 0 && !R.budget_ns) {
        __atomic_store_n(&R.in_frame, 0u, __ATOMIC_RELEASE);
        return;
    }
    int64_t (*clock)(void) = __atomic_load_n(&ludus__rolling_frame_clock, __ATOMIC_ACQUIRE);
    int64_t now = clock ? clock() : ludus__mono_ns();
    int64_t dt = R.prev_frame_ns ? now - R.prev_frame_ns : -1;
    R.prev_frame_ns = now;
    uint32_t m = R.rd.median_frames;
    if (dt >= 0 && R.ring) {
        if (R.nring == m) {
            int64_t median = R.sorted[m / 2];
            __atomic_store_n(&R.st.frame_median_ns, median, __ATOMIC_RELAXED);
            /* a hitch: longer than max(factor x the median, the budget) */
            double th = R.rd.hitch_factor > 0 ? R.rd.hitch_factor * (double)median : 0;
            if (th < (double)R.budget_ns) th = (double)R.budget_ns;
            if ((double)dt > th && ludus_rolling_active()) {
                count(&R.st.hitches);
                char detail[DETAIL_MAX], rule[64];
                if (R.budget_ns && R.rd.hitch_factor > 0)
                    snprintf(rule, sizeof rule, "> max(%.2f x, budget %.3f ms)", R.rd.hitch_factor,
                             (double)R.budget_ns / 1e6);
                else if (R.budget_ns)
                    snprintf(rule, sizeof rule, "> the budget %.3f ms", (double)R.budget_ns / 1e6);
                else
                    snprintf(rule, sizeof rule, "> %.2f x", R.rd.hitch_factor);
                snprintf(detail, sizeof detail,
                         "a frame of %.3f ms, %.2f x the running median %.3f ms of the last %u frames (%s)",
                         (double)dt / 1e6, median > 0 ? (double)dt / (double)median : 0.0, (double)median / 1e6, m,
                         rule);
                trigger_hitch(detail, clock ? ludus__mono_ns() : now,
                              dt); /* a test's frame clock is not the capture's */
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

static void *rolling_writer_main(void *arg) {
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
        if (__atomic_load_n(&R.pending, __ATOMIC_ACQUIRE) == 2) ludus__wakeup_post(&R.wake); /* one may wait for it */
    }
    ludus__mutex_unlock(&R.wlock);
    return NULL;
}

/* What every thread's own oldest pieces lost to being written over: summed
 * over the registered threads (the registry lock held). */
static void evictions(uint64_t *all, uint64_t *in_window) {
    *all = *in_window = 0;
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    uint32_t gen = ludus__sess.gen;
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        const ludus__thread_record *r = &ludus__reg.rec[i];
        if (__atomic_load_n(&r->state, __ATOMIC_ACQUIRE) != LUDUS__REC_LIVE || !r->cold) continue;
        if (__atomic_load_n(&r->cold->gen, __ATOMIC_ACQUIRE) != gen) continue;
        *all += __atomic_load_n(&r->cold->evicted, __ATOMIC_RELAXED);
        *in_window += __atomic_load_n(&r->cold->evicted_in_window, __ATOMIC_RELAXED);
    }
    /* exited threads' pieces given back (pool.c) */
    *all += __atomic_load_n(&ludus__sess.retired_evicted, __ATOMIC_RELAXED);
    *in_window += __atomic_load_n(&ludus__sess.retired_evicted_in_window, __ATOMIC_RELAXED);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

/* ---- the window's thread ---- */

/* The exited threads' pieces that left the window go back to the pool
 * (pool.c; exits and snapshots do it too: a program whose threads come
 * and go while nobody snapshots keeps its pool). */
static void reclaim(void) {
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    if (ludus__armed_gen(__atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE)) == ludus__sess.gen) ludus__ring_reclaim();
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

/* What got no file since the last one, appended to a file's detail (and
 * the counts reset for the next file). */
static void since_text(char *detail, size_t cap) {
    uint64_t h = __atomic_exchange_n(&R.since.hitches, 0, __ATOMIC_RELAXED);
    uint64_t cooled = __atomic_exchange_n(&R.since.cooled, 0, __ATOMIC_RELAXED);
    uint64_t repl = __atomic_exchange_n(&R.since.replaced, 0, __ATOMIC_RELAXED);
    uint64_t coal = __atomic_exchange_n(&R.since.coalesced, 0, __ATOMIC_RELAXED);
    uint64_t over = __atomic_exchange_n(&R.since.over_max, 0, __ATOMIC_RELAXED);
    uint64_t busy = __atomic_exchange_n(&R.since.busy, 0, __ATOMIC_RELAXED);
    int64_t worst = __atomic_exchange_n(&R.since.worst_ns, 0, __ATOMIC_RELAXED);
    if (!h) return;
    size_t n = strlen(detail);
    snprintf(detail + n, cap - n,
             "; not written since the file before: %llu hitch%s (worst %.3f ms:", (unsigned long long)h,
             h == 1 ? "" : "es", (double)worst / 1e6);
    static const char *const why[] = {" %llu in a cooldown, no worse than the hitch written",
                                      " %llu replaced by a worse one", " %llu while another trigger waited",
                                      " %llu after max_files", " %llu while the writer was busy"};
    const uint64_t v[] = {cooled, repl, coal, over, busy};
    int first = 1;
    for (int i = 0; i < 5; i++) {
        if (!v[i]) continue;
        n = strlen(detail);
        if (!first && n + 1 < cap) detail[n++] = ',', detail[n] = 0;
        snprintf(detail + n, cap - n, why[i], (unsigned long long)v[i]);
        first = 0;
    }
    n = strlen(detail);
    snprintf(detail + n, cap - n, ")");
}

/* The trigger waiting in the slot, once its post-trigger time has passed
 * (lock held). Returns 1 when it waits for the writer. */
static int handle_trigger(int64_t now) {
    uint32_t two = 2;
    if (!__atomic_compare_exchange_n(&R.pending, &two, 3u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return 0;
    int64_t at = R.trigger_ns, sev = R.sev;
    int refuse = 0, worse = 0;
    if (R.last_taken_ns && at - R.last_taken_ns < R.cooldown_ns) {
        if (sev > 0 && sev > R.cool_worst) { /* worse than every hitch written in this cooldown: its own file */
            worse = 1;
        } else {
            count(&R.st.cooled);
            if (sev > 0) hitch_unwritten(&R.since.cooled, sev);
            refuse = 1;
        }
    }
    if (!refuse && __atomic_load_n(&R.st.taken, __ATOMIC_RELAXED) >= R.rd.max_files) {
        count(&R.st.over_max);
        if (sev > 0) hitch_unwritten(&R.since.over_max, sev);
        refuse = 1;
    }
    if (!refuse && now < at + R.post_ns) { /* not yet: a worse hitch may still take its place */
        __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
        return 0;
    }
    if (!refuse) {
        ludus__mutex_lock(&R.wlock);
        int busy = R.job != NULL || R.writing;
        ludus__mutex_unlock(&R.wlock);
        if (busy && now - at < R.window_ns / 2) { /* it waits for the writer while its window holds it */
            __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
            return 1;
        }
        if (busy) {
            count(&R.st.writer_busy);
            if (sev > 0) hitch_unwritten(&R.since.busy, sev);
            refuse = 1;
        }
    }
    char reason[REASON_MAX], detail[DETAIL_MAX];
    memcpy(reason, R.reason, sizeof reason);
    memcpy(detail, R.detail, sizeof detail);
    int64_t prev_ns = R.prev_ns, prev_sev = R.prev_sev;
    __atomic_store_n(&R.pending, 0u, __ATOMIC_RELEASE);
    if (refuse) return 0;
    ludus_capture *c = NULL;
    if (take_window(&c) != 0) {
        fprintf(stderr, "ludus: rolling window: taking the window for '%s' failed: %s\n", reason,
                ludus_last_error_detail());
        return 0;
    }
    uint64_t evicted, in_window;
    evictions(&evicted, &in_window);
    int64_t span = c->end_ns - c->start_ns;
    size_t n = strlen(detail);
    if (worse)
        snprintf(detail + n, sizeof detail - n, "; within the cooldown, worse than the %.3f ms hitch written in it",
                 (double)R.cool_worst / 1e6);
    n = strlen(detail);
    if (prev_sev > 0) /* the hitch it replaced: in this window or not */
        snprintf(detail + n, sizeof detail - n, "; it replaced a hitch of %.3f ms %.0f ms before it, which this %s",
                 (double)prev_sev / 1e6, (double)(at - prev_ns) / 1e6,
                 c->start_ns <= prev_ns - prev_sev ? "window holds too" : "window does not hold: no file has it");
    since_text(detail, sizeof detail);
    n = strlen(detail);
    if (in_window && span < R.window_ns) /* said in the file: its window is shorter than asked */
        snprintf(detail + n, sizeof detail - n, "; the pool held %.0f ms of the %.0f ms window", (double)span / 1e6,
                 (double)R.window_ns / 1e6);
    if (worse) count(&R.st.worse_in_cooldown);
    /* a new cooldown from this one, whose bar is its hitch (0: not a hitch, any hitch is worse) */
    R.cool_worst = sev;
    R.last_taken_ns = at;
    count(&R.st.taken);
    ludus__mutex_lock(&R.wlock);
    R.job = c;
    memcpy(R.job_reason, reason, sizeof reason);
    memcpy(R.job_detail, detail, sizeof detail);
    R.job_ns = at;
    ludus__cond_broadcast(&R.wcond);
    ludus__mutex_unlock(&R.wlock);
    /* a hitch that came while the slot was being taken: worse than this one, it gets its own trigger */
    int64_t msev = __atomic_exchange_n(&R.missed_sev, 0, __ATOMIC_ACQUIRE);
    if (msev > 0) {
        int64_t mns = __atomic_load_n(&R.missed_ns, __ATOMIC_RELAXED);
        uint32_t free_slot = 0;
        if (msev > R.cool_worst &&
            __atomic_compare_exchange_n(&R.pending, &free_slot, 1u, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            char d2[DETAIL_MAX];
            snprintf(d2, sizeof d2, "a frame of %.3f ms (it came while the window before was being taken)",
                     (double)msev / 1e6);
            fill_slot("hitch", d2, mns, msev);
            R.prev_sev = 0;
            __atomic_store_n(&R.pending, 2u, __ATOMIC_RELEASE);
        } else {
            hitch_unwritten(msev > R.cool_worst ? &R.since.coalesced : &R.since.cooled, msev);
        }
    }
    return 0;
}

/* Once a window has been recorded, the window's thread takes a snapshot
 * and lets it go: the copy's memory (kept for the next snapshot) is then
 * in, and the first trigger's caller pays a copy, not page faults (a
 * thousand of them for a 1 s window of the demo, 1.3 ms). Lock held. */
static void warm_copy(int64_t now) {
    if (R.warmed || !R.rate_known || now - R.begun_ns < R.window_ns) return;
    ludus_capture *c = NULL;
    if (ludus__session_ring_snapshot(&c) == 0) ludus_capture_release(c);
    R.warmed = 1;
}

/* Sleeps until a trigger or the next poll: it reads nothing the producers
 * write, so it costs them nothing. */
static void *watcher_main(void *arg) {
    (void)arg;
    int waits_writer = 0;
    while (!__atomic_load_n(&R.stop, __ATOMIC_ACQUIRE)) {
        int64_t wait = POLL_NS;
        if (!R.rate_known) wait = RATE_NS / 2;
        if (__atomic_load_n(&R.pending, __ATOMIC_ACQUIRE) == 2 && !waits_writer) {
            int64_t left = __atomic_load_n(&R.trigger_ns, __ATOMIC_RELAXED) + R.post_ns - ludus__mono_ns();
            wait = left < 1000000 ? 1000000 : left < wait ? left : wait;
        }
        ludus__wakeup_wait(&R.wake, wait); /* waiting for the writer: it wakes this thread when done */
        if (__atomic_load_n(&R.stop, __ATOMIC_ACQUIRE)) break;
        ludus__mutex_lock(&R.lock);
        measure_rate();
        refresh_utc_offset();
        reclaim();
        waits_writer = handle_trigger(ludus__mono_ns());
        warm_copy(ludus__mono_ns());
        ludus__mutex_unlock(&R.lock);
    }
    return NULL;
}

/* ---- fork ---- */

static void release_window(void);

/* The child has no background thread: its recording goes on (no trigger),
 * and ludus_rolling_snapshot and ludus_rolling_end work there. The window's
 * locks are made anew in the child (a thread of the parent may have held
 * them; holding them across fork instead would order them against the
 * other fork handlers' locks). */
static void rolling_fork_child(void) {
    ludus__mutex_init(&R.lock);
    ludus__mutex_init(&R.wlock);
    ludus__cond_init(&R.wcond);
    if (!R.on) return;
    if (__atomic_load_n(&R.owner, __ATOMIC_RELAXED) == LUDUS__OWNER_GUEST) {
        /* the live view's window: its thread is not in the child, which
         * starts clean (the session forgets its recording, session.c) */
        R.on = 0;
        R.owner = LUDUS__OWNER_NONE;
        __atomic_store_n(&ludus__frame_hook, NULL, __ATOMIC_RELEASE);
        ludus__rolling_yield = NULL;
        ludus__session_ring_forget();
        release_window();
        return;
    }
    R.in_child = 1;
    R.job = NULL; /* the parent writes it */
    R.writing = 0;
    R.pending = 0;
    __atomic_store_n(&ludus__frame_hook, NULL, __ATOMIC_RELEASE);
}

/* ---- crash ---- */

/* The window written by a crash (crash.c): the recording ends, and what
 * it holds is written from here. In a copy of the crashed process
 * (in_copy) its locks are new and no other thread runs; in the crashed
 * process itself the window's thread may run: the lock is taken (a while,
 * as the crashed thread may hold it). */
static int crash_window_locked(int signo, uint64_t tid, int64_t at_ns, char *path, size_t cap) {
    ludus_capture *ended = NULL;
    int rc = ludus__session_crash_end(&ended);
    if (rc) return rc;
    ludus_capture *c = ended; /* every thread's pieces, as the flight recorder held them */
    ludus__capture_mark_crash(c, signo, tid, at_ns);
    char reason[32];
    snprintf(reason, sizeof reason, "crash-%s", ludus__crash_signal_name(signo));
    window_path(reason, at_ns, 1, path, cap);
    rc = ludus_capture_save(c, R.rd.format, 0, path);
    ludus_capture_release(c);
    return rc;
}

static int crash_window(int signo, uint64_t tid, int64_t at_ns, int in_copy, char *path, size_t cap) {
    if (in_copy) {
        rolling_fork_child();
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
    ludus__free(R.ring);
    ludus__free(R.sorted);
    R.ring = R.sorted = NULL;
    ludus__free(R.categories);
    R.categories = NULL;
}

static int rolling_end_locked(void);

/* The live view's window ends for the program (the control lock held). */
static void rolling_yield(void) {
    if (ludus__rolling_guest_runs()) rolling_end_locked();
}

/* The control lock held, nobody holding the recorder. */
static int rolling_begin_locked(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling, int owner) {
    if (window_on() || ludus__owner() != LUDUS__OWNER_NONE)
        return ludus__fail(LUDUS_EBUSY, "a capture is already active");
    if (capture && capture->pool_file)
        return ludus__fail(LUDUS_EINVAL, "a pool file is for one capture, not the rolling window");
    if (capture && capture->stream_path)
        return ludus__fail(LUDUS_EINVAL, "a streamed capture (stream_path) is one capture, not the rolling window");
    ludus_rolling_desc d;
    if (rolling)
        d = *rolling;
    else
        memset(&d, 0, sizeof d);
    if (!d.window_ms) d.window_ms = 4000;
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
    if (d.median_frames > 100000 || d.post_ms >= d.window_ms || (d.hitch_factor > 0 && d.hitch_factor < 1) ||
        !(d.budget_ms >= 0 && d.budget_ms <= 3600000) || d.format < LUDUS_FORMAT_JSON ||
        d.format > LUDUS_FORMAT_LUDUS || (d.signal != -1 && !ludus__trigger_signal_valid(d.signal)))
        return ludus__fail(LUDUS_EINVAL, "rolling: median_frames up to 100000, post_ms below window_ms, "
                                         "hitch_factor >= 1 (or < 0), budget_ms in 0 .. 3600000, a known format, "
                                         "a catchable signal (or -1)");
    const char *stat = d.counter_stat && *d.counter_stat ? d.counter_stat : "per frame";
    if (d.counter && (strlen(d.counter) >= sizeof R.counter || strlen(stat) >= sizeof R.counter_stat))
        return ludus__fail(LUDUS_EINVAL, "rolling: counter name (127 bytes) or stat (31 bytes) too long");
    const char *dir = d.directory && *d.directory ? d.directory : ".";
    const char *prefix = d.prefix && *d.prefix ? d.prefix : "ludus";
    if (strlen(dir) >= sizeof R.directory || strlen(prefix) >= sizeof R.prefix)
        return ludus__fail(LUDUS_EINVAL, "rolling: directory (255 bytes) or prefix (63 bytes) too long");
    ludus_capture_desc cd;
    ludus_capture_desc_defaults(capture, &cd);
    /* Its whole pool is written, always: faulted in at begin unless asked
     * otherwise, so no library thread competes with the producers while it
     * fills (bench/RESULTS.md, "Faulting the pool in"). */
    if (!capture || !capture->prefault) cd.prefault = LUDUS_PREFAULT_AT_BEGIN;

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
    R.cool_worst = 0;
    R.budget_ns = (int64_t)(d.budget_ms * 1e6 + 0.5);
    R.missed_sev = R.missed_ns = 0;
    memset(&R.since, 0, sizeof R.since);
    R.rate_known = 0;
    R.warmed = 0;
    R.stop = 0;
    R.wstop = 0;
    R.in_child = 0;
    ludus__at_fork_child(rolling_fork_child);
    R.job = NULL;
    R.writing = 0;
    if (!R.ring || !R.sorted || (capture && capture->categories && !R.categories)) {
        release_window();
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    int rc = ludus__capture_begin_locked(&R.desc, owner);
    if (rc) {
        release_window();
        return rc;
    }
    __atomic_store_n(&R.owner, owner, __ATOMIC_RELEASE);
    ludus__session_set_ring(UINT64_MAX); /* pieces reused for room until the window's length in ticks is known */
    R.begun_ns = ludus__mono_ns();
    refresh_utc_offset();
    ludus__wakeup_init(&R.wake);
    __atomic_store_n(&R.on, 1, __ATOMIC_RELEASE);
    ludus__session_rolling(1);
    int have_writer = ludus__thread_start(&R.writer, rolling_writer_main, NULL) == 0;
    if (!have_writer || ludus__thread_start(&R.watcher, watcher_main, NULL) != 0) {
        /* no background thread: no rolling window */
        ludus__mutex_lock(&R.wlock);
        R.wstop = 1;
        ludus__cond_broadcast(&R.wcond);
        ludus__mutex_unlock(&R.wlock);
        if (have_writer) ludus__thread_join(R.writer);
        __atomic_store_n(&R.on, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&R.owner, LUDUS__OWNER_NONE, __ATOMIC_RELEASE);
        ludus__session_rolling(0);
        ludus__session_end();
        ludus__wakeup_destroy(&R.wake);
        release_window();
        return ludus__fail(LUDUS_ENOMEM, "could not start the rolling window's threads");
    }
    __atomic_store_n(&ludus__frame_hook, on_frame, __ATOMIC_RELEASE);
    if (owner == LUDUS__OWNER_PROGRAM) { /* the live view's window writes no file, a crash's neither */
        ludus__crash_rolling = crash_window;
        R.sig_installed = d.signal > 0 && ludus__trigger_signal_install(d.signal, rolling_on_signal) == 0;
    } else {
        ludus__rolling_yield = rolling_yield;
    }
    return 0;
}

int ludus_rolling_begin(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling) {
    const char *elsewhere = ludus__backend_no_capture();
    if (elsewhere) return ludus__fail(LUDUS_EUNSUPPORTED, "%s", elsewhere);
    ludus__control_lock();
    ludus__guest_yield(); /* the program first */
    int rc = rolling_begin_locked(capture, rolling, LUDUS__OWNER_PROGRAM);
    ludus__control_unlock();
    return rc;
}

int ludus__rolling_begin_guest(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling) {
    const char *elsewhere = ludus__backend_no_capture();
    if (elsewhere) return ludus__fail(LUDUS_EUNSUPPORTED, "%s", elsewhere);
    ludus__control_lock();
    int rc = rolling_begin_locked(capture, rolling, LUDUS__OWNER_GUEST);
    ludus__control_unlock();
    return rc;
}

static int rolling_end_locked(void) {
    if (!window_on()) return ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    __atomic_store_n(&ludus__frame_hook, NULL, __ATOMIC_RELEASE);
    ludus__crash_rolling = NULL;
    if (R.sig_installed) ludus__trigger_signal_restore();
    R.sig_installed = 0;
    if (!R.in_child) {
        __atomic_store_n(&R.stop, 1, __ATOMIC_RELEASE);
        ludus__wakeup_post(&R.wake);
        ludus__thread_join(R.watcher);
        ludus__mutex_lock(&R.wlock);
        R.wstop = 1;
        ludus__cond_broadcast(&R.wcond);
        ludus__mutex_unlock(&R.wlock);
        ludus__thread_join(R.writer);
    }
    ludus__mutex_lock(&R.lock);
    __atomic_store_n(&R.on, 0, __ATOMIC_SEQ_CST);
    while (__atomic_load_n(&R.in_frame, __ATOMIC_SEQ_CST)) ludus__yield(); /* a frame still in on_frame */
    if (__atomic_load_n(&R.pending, __ATOMIC_ACQUIRE)) {                   /* dropped with the window */
        count(&R.st.coalesced);
        if (R.sev > 0) hitch_unwritten(&R.since.coalesced, R.sev);
    }
    R.pending = 0;
    ludus__session_rolling(0);
    int rc = ludus__session_end();
    ludus__session_ring_forget();
    release_window();
    __atomic_store_n(&R.owner, LUDUS__OWNER_NONE, __ATOMIC_RELEASE);
    ludus__rolling_yield = NULL;
    ludus__mutex_unlock(&R.lock);
    ludus__wakeup_destroy(&R.wake);
    return rc;
}

int ludus_rolling_end(void) {
    ludus__control_lock();
    int rc = ludus_rolling_active() ? rolling_end_locked() : ludus__fail(LUDUS_ENOCAPTURE, "no rolling capture runs");
    ludus__control_unlock();
    return rc;
}

void ludus__rolling_end_guest(void) {
    ludus__control_lock();
    if (ludus__rolling_guest_runs()) rolling_end_locked();
    ludus__control_unlock();
}

int ludus_rolling_get_stats(ludus_rolling_stats *out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    memset(out, 0, sizeof *out);
#define LOAD(f) out->f = __atomic_load_n(&R.st.f, __ATOMIC_RELAXED)
    LOAD(snapshot_max_ns);
    LOAD(snapshot_last_ns);
    LOAD(triggers);
    LOAD(hitches);
    LOAD(counter_crossings);
    LOAD(taken);
    LOAD(coalesced);
    LOAD(cooled);
    LOAD(over_max);
    LOAD(writer_busy);
    LOAD(frame_median_ns);
    LOAD(replaced);
    LOAD(worse_in_cooldown);
    LOAD(hitches_unwritten);
    LOAD(worst_unwritten_ns);
#undef LOAD
    if (ludus_rolling_active()) evictions(&out->events_evicted, &out->evicted_in_window);
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
        /* under the window's lock: the window's thread takes a trigger and
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
