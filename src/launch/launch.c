/* Launch-to-exit capture: with LUDUS_TRACE=PATH in the environment a capture
 * starts when the library loads and is written to PATH at exit (.json,
 * .pftrace or .ludus by extension; "%p" becomes the process id, so a forked
 * child that goes on running writes a file of its own). LUDUS_TRACE_CHUNKS
 * sets the pool in 64 KiB chunks (default 1024 = 64 MiB, reserved, faulted
 * in by a background thread). With LUDUS_TRACE_MODE=rolling the rolling
 * window runs instead (include/ludus/rolling.h): the last
 * LUDUS_TRACE_WINDOW_MS (default 4000) are kept, every hitch writes the
 * window around it next to PATH (PATH's stem, the time and the reason:
 * app-20261201-101500-123-hitch.ludus), SIGUSR2 does the same, and at exit
 * the last window is written to PATH, and a line says which hitches got no
 * file and why. Its trigger (LUDUS_TRACE_HITCH, LUDUS_TRACE_BUDGET_MS,
 * LUDUS_TRACE_TRIGGER_COUNTER), LUDUS_TRACE_POST_MS, LUDUS_TRACE_COOLDOWN_MS
 * and LUDUS_TRACE_MAX_FILES are set there too (rolling_env). A crash (SIGSEGV, SIGBUS, SIGFPE,
 * SIGILL, SIGABRT) writes the capture to PATH, or the window next to it
 * (reason crash-SIGSEGV and the like), before the program dies of it
 * (ludus_crash_capture_begin); LUDUS_TRACE_CRASH=0 leaves the program's
 * signal handlers alone. LUDUS_TRACE_POOL=FILE makes the pool that file
 * (ludus_capture_desc.pool_file): after kill -9, `ludus-trace recover FILE
 * OUT` reads back what was recorded (not with the rolling window).
 * LUDUS_TRACE_MODE=stream streams the capture into PATH (.ludus) as it
 * records (ludus_capture_desc.stream_path): a pool of LUDUS_TRACE_CHUNKS
 * holds any length, and the exit line says what the disk took.
 * LUDUS_LIVE=1 (with LUDUS_TRACE or without) makes the process watchable
 * from outside (ludus_live_start, docs/live.md). The variables are checked here, at
 * load, and a bad value is said once on stderr. This file sits above the exporters:
 * the recorder never links it; both libraries hold it, and a static link
 * takes it in through ludus__launch_link, which every instrumented file
 * names (<ludus/profiling.h>; ludus::ludus and ludus.pc also pass -u). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ludus/live.h>
#include <ludus/rolling.h>

#include "../postmortem/postmortem.h"
#include "../platform/file_read.h"

/* What instrumented code names so that a static link takes this file in
 * (no code refers to it: src/record/threads.c knows the file is there from
 * launch_init, and a program without it says so under LUDUS_TRACE). */
const int ludus__launch_link = 1;

/* What LUDUS_TRACE asked for, kept from load to exit. */
static struct {
    char trace_path[4096];
    int format;
    int launched;     /* the capture running is ours */
    int live;         /* LUDUS_LIVE started the live view's publisher */
    int rolling_mode; /* ... and it is a rolling window */
    int stream_mode;  /* ... or a streamed capture (LUDUS_TRACE_MODE=stream) */
    /* The rolling window's strings (the desc points at them) */
    char counter[128], counter_stat[64]; /* LUDUS_TRACE_TRIGGER_COUNTER's */
    char dir[4200], prefix[64];          /* where the hitch files go */
    uint32_t window_ms;                  /* the rolling window's (0 before it begins) */
} launch_state;

static void expand(char *out, size_t cap) {
    ludus__expand_pid(launch_state.trace_path, ludus__os_pid(), out, cap);
}
/* The rolling window's files at exit: how many, and the hitches that got
 * none of their own and why (each file says the same of the time before
 * it). st: read before the last window was taken; the counts of the
 * files written since are read again. */
static void rolling_exit_line(const ludus_rolling_stats *before) {
    ludus_rolling_stats st = *before;
    ludus_rolling_get_stats(&st); /* ended: the counters stay */
    if (!st.hitches && !st.files_written) return;
    fprintf(stderr, "ludus: rolling window: %llu hitch%s, %llu file%s written", (unsigned long long)st.hitches,
            st.hitches == 1 ? "" : "es", (unsigned long long)st.files_written, st.files_written == 1 ? "" : "s");
    if (st.worse_in_cooldown)
        fprintf(stderr, " (%llu for a hitch worse than the one written in its cooldown)",
                (unsigned long long)st.worse_in_cooldown);
    if (st.hitches_unwritten) {
        fprintf(stderr, "; %llu hitch%s got no file of its own, the worst %.3f ms (triggers not taken:",
                (unsigned long long)st.hitches_unwritten, st.hitches_unwritten == 1 ? "" : "es",
                (double)st.worst_unwritten_ns / 1e6);
        const char *sep = "";
        if (st.cooled)
            fprintf(stderr, "%s %llu in a cooldown, no worse than the hitch written", sep,
                    (unsigned long long)st.cooled),
                sep = ",";
        if (st.coalesced)
            fprintf(stderr, "%s %llu while another waited (%llu replaced by a worse hitch, whose file may hold them)",
                    sep, (unsigned long long)st.coalesced, (unsigned long long)st.replaced),
                sep = ",";
        if (st.over_max)
            fprintf(stderr, "%s %llu after LUDUS_TRACE_MAX_FILES", sep, (unsigned long long)st.over_max), sep = ",";
        if (st.writer_busy)
            fprintf(stderr, "%s %llu while the writer was busy", sep, (unsigned long long)st.writer_busy);
        fprintf(stderr, "; each file's trigger says what was not written before it)");
    }
    if (st.write_errors) fprintf(stderr, "; %llu write errors", (unsigned long long)st.write_errors);
    fputc('\n', stderr);
}

static void write_at_exit(void) {
    if (!launch_state.launched || (launch_state.rolling_mode ? !ludus_rolling_active() : !ludus_capture_active()))
        return; /* cancelled, or the program ended it itself */
    launch_state.launched = 0;
    char path[4200];
    expand(path, sizeof path);
    ludus_capture *c = NULL;
    int rc;
    ludus_rolling_stats st;
    memset(&st, 0, sizeof st);
    if (launch_state.stream_mode) { /* the file is written as it records: the end writes the rest */
        ludus_stream_result sr;
        rc = ludus_capture_end(NULL);
        if (ludus_capture_get_stream_result(&sr) != 0) {
            fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", path, ludus_error_string(rc),
                    ludus_last_error_detail());
            return;
        }
        if (rc)
            fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", path, ludus_error_string(rc),
                    ludus_last_error_detail());
        fprintf(stderr, "ludus: wrote %s (%llu events, %llu dropped; streamed %.1f MB at %.1f MB/s", path,
                (unsigned long long)sr.events, (unsigned long long)sr.dropped, (double)sr.bytes / 1e6,
                sr.written_bytes_per_s / 1e6);
        if (sr.needed_bytes_per_s > 0)
            fprintf(stderr,
                    ": the writer fell behind (the disk or its CPU); %.1f MB/s would have kept every event, or a "
                    "larger pool "
                    "(LUDUS_TRACE_CHUNKS) would ride out the stalls",
                    sr.needed_bytes_per_s / 1e6);
        fprintf(stderr, ")\n");
        return;
    }
    if (launch_state.rolling_mode) {
        ludus_rolling_get_stats(&st);
        /* the last window, taken first: waiting for a hitch file being
         * written (up to 2 s on a loaded machine) would move the window past
         * the program's last frames; then that file is finished */
        rc = ludus_rolling_snapshot(&c);
        ludus_rolling_flush(2000);
        ludus_rolling_end();
    } else {
        rc = ludus_capture_end(NULL);
        if (rc == 0) rc = ludus_capture_last(&c);
    }
    if (rc == 0) rc = ludus_capture_save(c, launch_state.format, 0, path);
    ludus_capture_summary s;
    if (rc == 0) rc = ludus_capture_get_summary(c, &s);
    int64_t span = rc == 0 ? s.end_ns - s.start_ns : 0;
    if (rc)
        fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", path, ludus_error_string(rc), ludus_last_error_detail());
    else if (launch_state.rolling_mode && st.evicted_in_window && span > 0 &&
             span < (int64_t)launch_state.window_ms * 1000000) {
        /* the pool held less than the window for some thread: what would hold it */
        uint64_t need = (uint64_t)((double)s.bytes_used * (double)launch_state.window_ms * 1.25e6 / (double)span),
                 chunks = 1;
        while (chunks * 65536 < need && chunks < (UINT64_C(1) << 24)) chunks *= 2;
        fprintf(stderr,
                "ludus: wrote %s (%llu events, %llu dropped; the pool held %.0f ms of the %u ms window: "
                "LUDUS_TRACE_CHUNKS=%llu would hold it)\n",
                path, (unsigned long long)s.events, (unsigned long long)s.dropped, (double)span / 1e6,
                launch_state.window_ms, (unsigned long long)chunks);
    } else if (s.pool_bytes_needed && !launch_state.rolling_mode) {
        char advice[320];
        if (ludus_pool_advice(s.pool_bytes_needed, advice, sizeof advice))
            fprintf(stderr,
                    "ludus: wrote %s (%llu events, %llu dropped: the pool was full; LUDUS_TRACE_CHUNKS=%llu would "
                    "have held them)\n",
                    path, (unsigned long long)s.events, (unsigned long long)s.dropped,
                    (unsigned long long)(s.pool_bytes_needed / 65536));
        else /* no pool of this machine would: the advice says what to do instead */
            fprintf(stderr, "ludus: wrote %s (%llu events, %llu dropped: the pool was full; %s)\n", path,
                    (unsigned long long)s.events, (unsigned long long)s.dropped, advice);
    } else
        fprintf(stderr, "ludus: wrote %s (%llu events, %llu dropped)\n", path, (unsigned long long)s.events,
                (unsigned long long)s.dropped);
    if (launch_state.rolling_mode && rc == 0) rolling_exit_line(&st);
    ludus_capture_release(c);
}

void ludus_launch_cancel(void) {
    if (launch_state.live) ludus_live_stop(); /* a tool run from a watchable program is not watchable itself */
    launch_state.live = 0;
    if (!launch_state.launched) return;
    launch_state.launched = 0;
    if (launch_state.rolling_mode)
        ludus_rolling_end();
    else if (ludus_capture_active())
        ludus_capture_end(NULL);
}

/* A number of ms from the environment in lo .. hi; "0" gives none_value
 * (LUDUS_ROLLING_NONE: none) when none_value is not 0. 0 unset, 1 set,
 * -1 bad (said). */
static int env_ms(const char *name, unsigned long lo, unsigned long hi, uint32_t none_value, uint32_t *out) {
    const char *v = ludus__getenv(name);
    if (!v || !*v) return 0;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || v[0] == '-' || ((x < lo || x > hi) && !(x == 0 && none_value))) {
        fprintf(stderr, "ludus: %s=%s is not a number in %lu .. %lu%s; not tracing\n", name, v, lo, hi,
                none_value ? " (0: none)" : "");
        return -1;
    }
    *out = x == 0 && none_value ? none_value : (uint32_t)x;
    return 1;
}

/* The rolling window's settings from the environment (docs/capture.md, the LUDUS_TRACE table):
 * LUDUS_TRACE_WINDOW_MS, LUDUS_TRACE_POST_MS, LUDUS_TRACE_COOLDOWN_MS,
 * LUDUS_TRACE_MAX_FILES, LUDUS_TRACE_HITCH (a factor of the running median,
 * or "off"), LUDUS_TRACE_BUDGET_MS (the frame budget: no frame within it is
 * a hitch), LUDUS_TRACE_TRIGGER_COUNTER ("NAME>N" or "NAME:STAT>N", STAT as
 * ludus_frame_ring_value's, default "per frame"). 0, or -1 after saying what is bad. */
static int rolling_env(ludus_rolling_desc *rd) {
    if (env_ms("LUDUS_TRACE_WINDOW_MS", 100, 3600000, 0, &rd->window_ms) < 0) return -1;
    if (env_ms("LUDUS_TRACE_POST_MS", 1, 3600000, (uint32_t)LUDUS_ROLLING_NONE, &rd->post_ms) < 0) return -1;
    if (env_ms("LUDUS_TRACE_COOLDOWN_MS", 1, 86400000, (uint32_t)LUDUS_ROLLING_NONE, &rd->cooldown_ms) < 0) return -1;
    if (env_ms("LUDUS_TRACE_MAX_FILES", 1, 1000000, 0, &rd->max_files) < 0) return -1;
    const char *b = ludus__getenv("LUDUS_TRACE_BUDGET_MS");
    if (b && *b) {
        char *end;
        double ms = strtod(b, &end);
        if (*end || !(ms > 0 && ms <= 3600000)) {
            fprintf(stderr,
                    "ludus: LUDUS_TRACE_BUDGET_MS=%s is not a frame budget in ms (0 < MS <= 3600000); not "
                    "tracing\n",
                    b);
            return -1;
        }
        rd->budget_ms = ms;
    }
    const char *h = ludus__getenv("LUDUS_TRACE_HITCH");
    if (h && *h) {
        char *end;
        double f = strtod(h, &end);
        if (!strcmp(h, "off"))
            rd->hitch_factor = LUDUS_ROLLING_NONE;
        else if (*end || !(f >= 1.0 && f <= 1000.0)) {
            fprintf(stderr, "ludus: LUDUS_TRACE_HITCH=%s is not a factor in 1 .. 1000 (or off); not tracing\n", h);
            return -1;
        } else
            rd->hitch_factor = f;
    }
    const char *t = ludus__getenv("LUDUS_TRACE_TRIGGER_COUNTER");
    if (t && *t) {
        const char *gt = strchr(t, '>'), *colon = strchr(t, ':');
        char *end = NULL;
        long long above = gt ? strtoll(gt + 1, &end, 10) : 0;
        if (colon && colon > gt) colon = NULL;
        size_t nlen = gt ? (size_t)((colon ? colon : gt) - t) : 0;
        size_t slen = colon ? (size_t)(gt - colon - 1) : 0;
        if (!gt || nlen == 0 || nlen >= sizeof launch_state.counter ||
            (colon && (slen == 0 || slen >= sizeof launch_state.counter_stat)) || gt[1] == 0 || *end) {
            fprintf(stderr,
                    "ludus: LUDUS_TRACE_TRIGGER_COUNTER=%s: use NAME>N or NAME:STAT>N (a counter, gauge or memory "
                    "domain; STAT as in the overlay, default \"per frame\"); not tracing\n",
                    t);
            return -1;
        }
        memcpy(launch_state.counter, t, nlen);
        launch_state.counter[nlen] = 0;
        rd->counter = launch_state.counter;
        if (colon) {
            memcpy(launch_state.counter_stat, colon + 1, slen);
            launch_state.counter_stat[slen] = 0;
            rd->counter_stat = launch_state.counter_stat;
        }
        rd->counter_above = above;
    }
    return 0;
}

/* LUDUS_TRACE_MODE=rolling: hitch files go next to the trace path, named
 * after its stem. */
static int begin_rolling(const ludus_capture_desc *d, const char *expanded) {
    const char *slash = strrchr(expanded, '/');
    const char *base = slash ? slash + 1 : expanded;
    if (slash)
        snprintf(launch_state.dir, sizeof launch_state.dir, "%.*s", (int)(slash - expanded),
                 slash == expanded ? "/" : expanded);
    else
        strcpy(launch_state.dir, ".");
    const char *dot = strrchr(base, '.');
    snprintf(launch_state.prefix, sizeof launch_state.prefix, "%.*s", (int)(dot ? dot - base : (long)strlen(base)),
             base);
    ludus_rolling_desc rd;
    memset(&rd, 0, sizeof rd);
    if (rolling_env(&rd) != 0) return -1;
    rd.format = launch_state.format;
    rd.directory = launch_state.dir;
    rd.prefix = launch_state.prefix;
    launch_state.window_ms = rd.window_ms ? rd.window_ms : 4000;
    int rc = ludus_rolling_begin(d, &rd);
    if (rc)
        fprintf(stderr, "ludus: LUDUS_TRACE_MODE=rolling: %s (%s)\n", ludus_error_string(rc),
                ludus_last_error_detail());
    return rc;
}

/* The most LUDUS_TRACE_CHUNKS may ask for: 2^24 (1 TiB of pool), and no
 * more than half the machine's physical memory (a pool is reserved, and
 * the rolling window and LUDUS_TRACE_PREFAULT=begin touch all of it). */
/* LUDUS_TRACE_CHUNKS: digits only, 1 .. ludus_pool_chunks_max(). */
static int parse_chunks(const char *s, uint32_t *out) {
    if (!s) {
        *out = 1024;
        return 0;
    }
    uint64_t v = 0, most = ludus_pool_chunks_max();
    if (!*s) return -1;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > most) return -1;
    }
    if (v == 0) return -1;
    *out = (uint32_t)v;
    return 0;
}

/* LUDUS_LIVE=1: watchable from outside (include/ludus/live.h), with or
 * without LUDUS_TRACE. Started after LUDUS_TRACE's capture began: a watcher
 * that came between the two (the block is what it waits for) would have
 * the process record top scopes, and the launch capture would find a
 * capture running (test_live saw it on a loaded machine). */
static void live_init(void) {
    const char *live = ludus__getenv("LUDUS_LIVE");
    if (live && *live && strcmp(live, "0") != 0) {
        int rc = strcmp(live, "1") != 0 ? LUDUS_EINVAL : ludus_live_start();
        if (rc == LUDUS_EINVAL)
            fprintf(stderr, "ludus: LUDUS_LIVE=%s: use 1 (or 0: off); not watchable\n", live);
        else if (rc)
            fprintf(stderr, "ludus: LUDUS_LIVE: %s (%s); not watchable\n", ludus_error_string(rc),
                    ludus_last_error_detail());
        launch_state.live = rc == 0;
    }
}

static void trace_init(void);

/* Priority 200: before the program's own constructors (a capture that
 * starts at load sees them) and the registry's probe (threads.c). */
__attribute__((constructor(200))) static void launch_init(void) {
    ludus__reg.launch_ran = 1;
    trace_init();
    live_init();
}

/* LUDUS_TRACE and its variables. */
static void trace_init(void) {
    const char *path = ludus__getenv("LUDUS_TRACE");
    if (!path || !*path) return;
    if (strlen(path) >= sizeof launch_state.trace_path) {
        fprintf(stderr, "ludus: LUDUS_TRACE is longer than %zu bytes; not tracing\n",
                sizeof launch_state.trace_path - 1);
        return;
    }
    strcpy(launch_state.trace_path, path);
    launch_state.format = ludus_format_from_path(path);
    if (!launch_state.format) {
        fprintf(stderr, "ludus: LUDUS_TRACE=%s: unknown extension (use .json, .pftrace or .ludus); not tracing\n",
                path);
        return;
    }
    const char *chunks = ludus__getenv("LUDUS_TRACE_CHUNKS");
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    if (parse_chunks(chunks, &d.chunk_count) != 0) {
        fprintf(stderr,
                "ludus: LUDUS_TRACE_CHUNKS=%s is not a number of 64 KiB chunks in 1 .. %u (at most 2^24, and half "
                "this machine's %.1f GiB of memory); not tracing\n",
                chunks, ludus_pool_chunks_max(), (double)ludus__phys_bytes() / (1 << 30));
        return;
    }
    const char *prefault = ludus__getenv("LUDUS_TRACE_PREFAULT");
    static const char *const prefaults[] = {"", "ahead", "begin", "none"}; /* enum ludus_prefault */
    for (int k = LUDUS_PREFAULT_AHEAD; prefault && *prefault && k <= LUDUS_PREFAULT_NONE; k++)
        if (strcmp(prefault, prefaults[k]) == 0) d.prefault = k;
    if (prefault && *prefault && !d.prefault) {
        fprintf(stderr, "ludus: LUDUS_TRACE_PREFAULT=%s: use ahead (the default), begin or none; not tracing\n",
                prefault);
        return;
    }
    char expanded[4200], why[160];
    expand(expanded, sizeof expanded);
    int err = ludus__path_writable(expanded);
    if (err) {
        ludus__os_strerror(err, why, sizeof why);
        fprintf(stderr, "ludus: LUDUS_TRACE=%s: the file cannot be written there (%s); not tracing\n", path, why);
        return;
    }
    char pool[4200];
    const char *pool_env = ludus__getenv("LUDUS_TRACE_POOL");
    if (pool_env && *pool_env) { /* "%p" as in LUDUS_TRACE */
        if (strlen(pool_env) >= sizeof pool - 16) {
            fprintf(stderr, "ludus: LUDUS_TRACE_POOL is too long; not tracing\n");
            return;
        }
        ludus__expand_pid(pool_env, ludus__os_pid(), pool, sizeof pool);
        d.pool_file = pool;
    }
    const char *mode = ludus__getenv("LUDUS_TRACE_MODE");
    if (mode && *mode && strcmp(mode, "rolling") != 0 && strcmp(mode, "window") != 0 && strcmp(mode, "stream") != 0) {
        fprintf(stderr, "ludus: LUDUS_TRACE_MODE=%s: use window (the default), rolling or stream; not tracing\n", mode);
        return;
    }
    launch_state.rolling_mode = mode && !strcmp(mode, "rolling");
    launch_state.stream_mode = mode && !strcmp(mode, "stream");
    if (launch_state.stream_mode && (launch_state.format != LUDUS_FORMAT_LUDUS || d.pool_file)) {
        fprintf(stderr, "ludus: LUDUS_TRACE_MODE=stream writes a .ludus file, without LUDUS_TRACE_POOL; not "
                        "tracing\n");
        return;
    }
    if (launch_state.stream_mode) d.stream_path = expanded;
    if (launch_state.rolling_mode) {
        if (begin_rolling(&d, expanded) != 0) return;
    } else {
        int rc = ludus_capture_begin(&d);
        if (rc) {
            fprintf(stderr, "ludus: LUDUS_TRACE=%s: %s (%s)\n", path, ludus_error_string(rc),
                    ludus_last_error_detail());
            return;
        }
    }
    launch_state.launched = 1;
    atexit(write_at_exit);
    const char *crash = ludus__getenv("LUDUS_TRACE_CRASH");
    if ((crash && !strcmp(crash, "0")) || launch_state.stream_mode) return; /* a streamed file keeps what was written */
    ludus_crash_desc cd = {launch_state.trace_path, launch_state.format, 0};
    int rc = ludus_crash_capture_begin(&cd);
    if (rc && rc != LUDUS_EUNSUPPORTED)
        fprintf(stderr, "ludus: LUDUS_TRACE: crash capture: %s (%s)\n", ludus_error_string(rc),
                ludus_last_error_detail());
}
