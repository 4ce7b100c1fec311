/* ludus-trace top: a running process's frames and top scopes, live, like
 * top(1): frame time over a named window (last, p50, p99, max, a sparkline
 * with the hitches marked), top scopes by exclusive time per frame, counters,
 * gauges, memory domains, lock waits and losses. A screen redrawn a few
 * times a second on a terminal (plain ANSI escapes, raw keys: pause, window,
 * sort, capture, quit; fits 80x24), plain text or JSON lines when standard
 * output is not one, --once for one reading. Every text the process sends
 * is shown escaped (ludus_text_show): it cannot drive the terminal. */
#define _POSIX_C_SOURCE 200809L
#include <ludus/capture_file.h>
#include <ludus/live.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifndef _WIN32
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <unistd.h>
#endif

#include "live_common.h"
#include "verbs.h"

static const lt_verb top_verb;

enum { SORT_EXCL, SORT_CALLS, SORT_NAME, SORT_COUNT };
static const char *const sort_names[SORT_COUNT] = {"exclusive", "calls", "name"};
#ifndef _WIN32 /* the screen's 'w' key (the screen is POSIX-only) */
static const uint32_t windows[] = {60, 120, 300, 600, 1200, 4096};
#define NWINDOWS (sizeof windows / sizeof windows[0])
#endif
#define HITCH_K 2.0 /* a hitch: a frame longer than 2 x the window's median (as ludus-trace report) */

typedef struct top_opts {
    int once, json;
    uint32_t win_frames;
    unsigned interval_ms, settle_ms;
    int sort;
    double capture_s;
    const char *capture_dir;
} top_opts;

/* ---- figures ---- */

typedef struct frame_stats {
    uint32_t n;
    int64_t last, p50, p99, max, span_ns;
    uint64_t first, lastn; /* frame numbers */
} frame_stats;

static int cmp_i64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* nearest rank, as the overlay and the report */
static int64_t rank(const int64_t *v, uint32_t n, double q) {
    uint32_t k = (uint32_t)(q * n + 0.999999);
    return v[k ? k - 1 : 0];
}

static frame_stats frames_of(const ludus_watch_view *v, uint32_t window, int64_t *scratch) {
    frame_stats s;
    memset(&s, 0, sizeof s);
    uint32_t n = v->nframes < window ? v->nframes : window;
    if (!n) return s;
    const ludus_watch_frame *f = &v->frames[v->nframes - n];
    for (uint32_t i = 0; i < n; i++) scratch[i] = f[i].duration_ns;
    s.n = n;
    s.last = f[n - 1].duration_ns;
    s.first = f[0].number;
    s.lastn = f[n - 1].number;
    s.span_ns = f[n - 1].begin_ns + f[n - 1].duration_ns - f[0].begin_ns;
    qsort(scratch, n, sizeof *scratch, cmp_i64);
    s.p50 = rank(scratch, n, 0.5);
    s.p99 = rank(scratch, n, 0.99);
    s.max = scratch[n - 1];
    return s;
}

static const char *dur(char *b, size_t cap, double ns) {
    if (ns >= 999999.5)
        snprintf(b, cap, "%.2f ms", ns / 1e6);
    else if (ns >= 9999.5)
        snprintf(b, cap, "%.0f us", ns / 1e3);
    else
        snprintf(b, cap, "%.2f us", ns / 1e3);
    return b;
}

static const char *bytes(char *b, size_t cap, int64_t v) {
    double a = (double)(v < 0 ? -v : v);
    const char *sign = v < 0 ? "-" : "";
    if (a >= 1 << 30)
        snprintf(b, cap, "%s%.2f GiB", sign, a / (1 << 30));
    else if (a >= 1 << 20)
        snprintf(b, cap, "%s%.1f MiB", sign, a / (1 << 20));
    else if (a >= 1 << 10)
        snprintf(b, cap, "%s%.1f KiB", sign, a / (1 << 10));
    else
        snprintf(b, cap, "%s%.0f B", sign, a);
    return b;
}

/* calls per frame: rare ones (a hitch's) keep 2 significant digits, as the overlay */
static const char *per_frame(char *b, size_t cap, double x) {
    snprintf(b, cap, x >= 1 || x == 0 ? "%.1f" : "%.2g", x);
    return b;
}

static int sort_key;
static int cmp_scope(const void *a, const void *b) {
    const ludus_watch_scope *x = a, *y = b;
    if (sort_key == SORT_NAME) return strcmp(x->name, y->name);
    if (sort_key == SORT_CALLS && x->calls != y->calls) return x->calls > y->calls ? -1 : 1;
    if (x->exclusive_ns != y->exclusive_ns) return x->exclusive_ns > y->exclusive_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* ---- text: the screen and plain lines ---- */

typedef struct screen {
    char lines[64][512];
    int n, width, height;
} screen;

static void line(screen *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void line(screen *s, const char *fmt, ...) {
    if (s->n >= s->height || s->n >= 64) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->lines[s->n], sizeof s->lines[s->n], fmt, ap);
    va_end(ap);
    /* cut at the width, between characters (the text is shown escaped: UTF-8 at most) */
    char *l = s->lines[s->n];
    int cols = 0;
    for (char *p = l; *p; p++) {
        if (((unsigned char)*p & 0xc0) != 0x80 && cols++ == s->width) {
            *p = 0;
            break;
        }
    }
    s->n++;
}

static int utf8_terminal(void) {
    const char *v = getenv("LC_ALL");
    if (!v || !*v) v = getenv("LC_CTYPE");
    if (!v || !*v) v = getenv("LANG");
    return v && (strstr(v, "UTF-8") || strstr(v, "utf8") || strstr(v, "UTF8") || strstr(v, "utf-8"));
}

/* The last width frames as bars scaled to the tallest, hitches as '!'. */
static void sparkline(char *out, size_t cap, const ludus_watch_view *v, int width, int64_t p50, int utf8) {
    static const char *const blocks[8] = {"\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    static const char ascii[8] = {'_', '.', '-', ':', '=', '+', '*', '#'};
    uint32_t n = v->nframes < (uint32_t)width ? v->nframes : (uint32_t)width;
    const ludus_watch_frame *f = &v->frames[v->nframes - n];
    int64_t mx = 1;
    for (uint32_t i = 0; i < n; i++)
        if (f[i].duration_ns > mx) mx = f[i].duration_ns;
    size_t o = 0;
    for (uint32_t i = 0; i < n && o + 4 < cap; i++) {
        int64_t d = f[i].duration_ns;
        /* in double and clamped: a process sends any figure, and d * 7
         * overflows for absurd ones */
        double x = (double)(d < 0 ? 0 : d) * 7.0 / (double)mx;
        int lvl = x >= 7.0 ? 7 : x > 0 ? (int)x : 0;
        if (p50 > 0 && (double)d > HITCH_K * (double)p50) {
            out[o++] = '!';
        } else if (utf8) {
            memcpy(out + o, blocks[lvl], 3);
            o += 3;
        } else {
            out[o++] = ascii[lvl];
        }
    }
    out[o] = 0;
}

static const char *state_text(const ludus_watch_view *v) {
    if (v->state & LUDUS_WATCH_EXITED) return "the process exited";
    if (v->state & LUDUS_WATCH_CAPTURING) return "capturing (top scopes wait)";
    if (v->state & LUDUS_WATCH_BUSY) return "the program records its own capture: no top scopes";
    if (v->state & LUDUS_WATCH_FOREIGN) return "top scopes from the program's own rolling window";
    if (v->state & LUDUS_WATCH_SCOPES_LIVE) return "recording top scopes";
    return "starting";
}

static void render(screen *s, const ludus_watch_view *v, const top_opts *o, int paused, const char *status,
                   int64_t *scratch, int interactive) {
    char a[32], b[32], c[32], d[32], e[32], name[256];
    s->n = 0;
    frame_stats fs = frames_of(v, o->win_frames, scratch);
    ludus_text_show(name, sizeof name, v->process, 32);
    if (interactive)
        line(s, "ludus-trace top %llu (%s)%s  window %u  sort %s  keys: p w s c q", (unsigned long long)v->pid, name,
             paused ? " PAUSED" : "", o->win_frames, sort_names[o->sort]);
    else
        line(s, "ludus-trace top %llu (%s): %s", (unsigned long long)v->pid, name, state_text(v));
    if (fs.n == 0) {
        line(s, "frames: none yet (LUDUS_PROFILE_FRAME once per frame)");
    } else {
        line(s, "frame %s  p50 %s  p99 %s  max %s  (%u frames, %s; %llu..%llu)", dur(a, sizeof a, (double)fs.last),
             dur(b, sizeof b, (double)fs.p50), dur(c, sizeof c, (double)fs.p99), dur(d, sizeof d, (double)fs.max), fs.n,
             dur(e, sizeof e, (double)fs.span_ns), (unsigned long long)fs.first, (unsigned long long)fs.lastn);
        if (interactive) {
            char spark[4 * 512];
            sparkline(spark, sizeof spark, v, s->width, fs.p50, utf8_terminal());
            line(s, "%s", spark);
        }
    }
    /* top scopes */
    /* on the screen the scopes get what the rest leaves: the values two to a
     * line (4 lines at most), the lock waits, the losses, the status */
    uint32_t value_lines = (v->nvalues + 1) / 2;
    if (value_lines > 4) value_lines = 4;
    int rows_left = s->height - s->n - 2 - (int)value_lines - 2 - (status && *status ? 1 : 0);
    if (!interactive) rows_left = LUDUS_WATCH_SCOPES;
    if (v->top_rc != 0 || v->nscopes == 0) {
        line(s, "top scopes: %s",
             v->top_rc == LUDUS_ENODATA ? "no complete frame recorded yet"
             : v->top_rc                ? ludus_error_string(v->top_rc)
                                        : state_text(v));
    } else {
        double age = (double)(v->now_ns - v->top_computed_ns) / 1e9;
        line(s, "top scopes over %u frames%s (%s, %s ago): %s", v->top_frames,
             v->top_window_frames && v->top_window_frames != o->win_frames ? " (another watcher's window)" : "",
             dur(a, sizeof a, (double)(v->top_end_ns - v->top_begin_ns)), dur(b, sizeof b, age * 1e9), state_text(v));
        line(s, "  %-40s %10s %8s %10s", "scope", "excl/frame", "calls/fr", "last frame");
        char calls[32];
        ludus_watch_scope sc[LUDUS_WATCH_SCOPES];
        memcpy(sc, v->scopes, v->nscopes * sizeof sc[0]);
        sort_key = o->sort;
        qsort(sc, v->nscopes, sizeof sc[0], cmp_scope);
        double fr = v->top_frames ? v->top_frames : 1;
        for (uint32_t i = 0; i < v->nscopes && (int)i < rows_left; i++) {
            /* two scopes of one name: told apart by file:line */
            int shared = 0;
            for (uint32_t j = 0; j < v->nscopes && !shared; j++) shared = j != i && !strcmp(sc[j].name, sc[i].name);
            if (shared) { /* the name cut first: the location stays whole */
                const char *base = strrchr(sc[i].file, '/');
                char at[160], loc[200];
                snprintf(at, sizeof at, " (%s:%u)", base ? base + 1 : sc[i].file, sc[i].line);
                ludus_text_show(loc, sizeof loc, at, 0);
                size_t ln = strlen(loc);
                ludus_text_show(name, sizeof name, sc[i].name, ln + 8 < 40 ? 40 - ln : 8);
                strncat(name, loc, sizeof name - strlen(name) - 1);
            } else {
                ludus_text_show(name, sizeof name, sc[i].name, 40);
            }
            line(s, "  %-40s %10s %8s %10s", name, dur(a, sizeof a, (double)sc[i].exclusive_ns / fr),
                 per_frame(calls, sizeof calls, (double)sc[i].calls / fr),
                 dur(b, sizeof b, (double)sc[i].last_exclusive_ns));
        }
    }
    /* counters, gauges, memory: two to a line on the screen; over the window
     * the process computed them for (another watcher may have asked last) */
    if (v->nvalues && v->window_frames && v->window_frames != o->win_frames)
        line(s, "values over %u frames (another watcher's window)", v->window_frames);
    char pair[512] = "";
    uint32_t nvalues = interactive && v->nvalues > value_lines * 2 ? value_lines * 2 : v->nvalues;
    for (uint32_t i = 0; i < nvalues; i++) {
        const ludus_watch_value *x = &v->values[i];
        char item[256], nm[64];
        ludus_text_show(nm, sizeof nm, x->name, 24);
        double m = x->frames ? (double)x->sum / x->frames : 0;
        if (x->kind == LUDUS_WATCH_COUNTER)
            snprintf(item, sizeof item, "%s %.1f/frame (max %lld)", nm, m, (long long)x->max);
        else if (x->kind == LUDUS_WATCH_GAUGE)
            snprintf(item, sizeof item, "%s %lld (%lld..%lld)", nm, (long long)x->last, (long long)x->min,
                     (long long)x->max);
        else if (x->unknown)
            snprintf(item, sizeof item, "%s live unknown, +%s/frame", nm, bytes(b, sizeof b, (int64_t)m));
        else
            snprintf(item, sizeof item, "%s %s (peak %s) +%s/frame", nm, bytes(a, sizeof a, x->last),
                     bytes(c, sizeof c, x->max), bytes(b, sizeof b, (int64_t)m));
        if (!interactive) {
            line(s, "  %s", item);
            continue;
        }
        if (!pair[0]) {
            snprintf(pair, sizeof pair, "%-38s", item);
        } else {
            line(s, "%s  %s", pair, item);
            pair[0] = 0;
        }
    }
    if (pair[0]) line(s, "%s", pair);
    if (v->nlocks) {
        char locks[512];
        size_t at = (size_t)snprintf(locks, sizeof locks, "lock waits:");
        double fr = v->top_frames ? v->top_frames : 1;
        for (uint32_t i = 0; i < v->nlocks && at < sizeof locks; i++) {
            ludus_text_show(name, sizeof name, v->locks[i].name, 24);
            char calls[32];
            at += (size_t)snprintf(locks + at, sizeof locks - at, " %s %s/frame (%s waits)", name,
                                   dur(a, sizeof a, (double)v->locks[i].exclusive_ns / fr),
                                   per_frame(calls, sizeof calls, (double)v->locks[i].calls / fr));
        }
        line(s, "%s", locks);
    } else {
        line(s, "lock waits: none in the window");
    }
    line(s, "losses: %llu events dropped in the window, %llu frames missed, %llu counts lost, %u refused",
         (unsigned long long)v->top_dropped, (unsigned long long)v->frames_missed, (unsigned long long)v->lost_adds,
         v->refused);
    if (status && *status) line(s, "%s", status);
}

static void print_plain(const screen *s) {
    for (int i = 0; i < s->n; i++) printf("%s\n", s->lines[i]);
}

/* ---- JSON ---- */

static void json_str(const char *text) {
    char shown[512];
    ludus_text_show(shown, sizeof shown, text, 0); /* valid UTF-8, no control character */
    putchar('"');
    for (const char *p = shown; *p; p++) {
        if (*p == '"' || *p == '\\') putchar('\\');
        putchar(*p);
    }
    putchar('"');
}

static void json_scope(const ludus_watch_scope *x, uint32_t frames) {
    double fr = frames ? frames : 1;
    printf("{\"name\":");
    json_str(x->name);
    printf(",\"file\":");
    json_str(x->file);
    printf(",\"line\":%u,\"lock\":%s,\"exclusive_ns\":%lld,\"calls\":%llu,\"exclusive_ns_per_frame\":%.1f,"
           "\"calls_per_frame\":%.3f,\"last_exclusive_ns\":%lld,\"last_calls\":%llu}",
           x->line, x->lock ? "true" : "false", (long long)x->exclusive_ns, (unsigned long long)x->calls,
           (double)x->exclusive_ns / fr, (double)x->calls / fr, (long long)x->last_exclusive_ns,
           (unsigned long long)x->last_calls);
}

static void print_json(const ludus_watch_view *v, const top_opts *o, int64_t *scratch) {
    static const char *const kinds[4] = {"unknown", "counter", "gauge", "memory"};
    frame_stats fs = frames_of(v, o->win_frames, scratch);
    printf("{\"pid\":%llu,\"process\":", (unsigned long long)v->pid);
    json_str(v->process);
    printf(",\"state\":");
    json_str(state_text(v));
    printf(",\"now_ns\":%lld,\"window_frames\":%u,\"values_window_frames\":%u,", (long long)v->now_ns, o->win_frames,
           v->window_frames);
    printf("\"frames\":{\"count\":%u,\"last_ns\":%lld,\"p50_ns\":%lld,\"p99_ns\":%lld,\"max_ns\":%lld,"
           "\"first_frame\":%llu,\"last_frame\":%llu,\"total\":%llu,\"missed\":%llu,\"list\":[",
           fs.n, (long long)fs.last, (long long)fs.p50, (long long)fs.p99, (long long)fs.max,
           (unsigned long long)fs.first, (unsigned long long)fs.lastn, (unsigned long long)v->frames_total,
           (unsigned long long)v->frames_missed);
    for (uint32_t i = v->nframes - fs.n; i < v->nframes; i++)
        printf("%s[%llu,%lld,%lld]", i > v->nframes - fs.n ? "," : "", (unsigned long long)v->frames[i].number,
               (long long)v->frames[i].begin_ns, (long long)v->frames[i].duration_ns);
    printf("]},\"top\":{\"rc\":%d,\"error\":", v->top_rc);
    json_str(v->top_rc ? ludus_error_string(v->top_rc) : "");
    printf(",\"window_frames\":%u,\"frames\":%u,\"first_frame\":%llu,\"last_frame\":%llu,\"begin_ns\":%lld,"
           "\"end_ns\":%lld,\"computed_ns\":%lld,\"calls\":%llu,\"incomplete\":%llu,\"dropped\":%llu,"
           "\"scopes_total\":%u,\"frame_thread\":",
           v->top_window_frames, v->top_frames, (unsigned long long)v->top_first_frame,
           (unsigned long long)v->top_last_frame, (long long)v->top_begin_ns, (long long)v->top_end_ns,
           (long long)v->top_computed_ns, (unsigned long long)v->top_calls, (unsigned long long)v->top_incomplete,
           (unsigned long long)v->top_dropped, v->top_scopes_total);
    json_str(v->frame_thread);
    printf(",\"scopes\":[");
    for (uint32_t i = 0; i < v->nscopes; i++) {
        if (i) putchar(',');
        json_scope(&v->scopes[i], v->top_frames);
    }
    printf("],\"locks\":[");
    for (uint32_t i = 0; i < v->nlocks; i++) {
        if (i) putchar(',');
        json_scope(&v->locks[i], v->top_frames);
    }
    printf("]},\"values\":[");
    for (uint32_t i = 0; i < v->nvalues; i++) {
        const ludus_watch_value *x = &v->values[i];
        printf("%s{\"name\":", i ? "," : "");
        json_str(x->name);
        printf(",\"kind\":\"%s\",\"frames\":%u,\"last\":%lld,\"min\":%lld,\"max\":%lld,\"sum\":%lld,\"unknown\":%s}",
               kinds[x->kind >= 0 && x->kind <= 3 ? x->kind : 0], x->frames, (long long)x->last, (long long)x->min,
               (long long)x->max, (long long)x->sum, x->unknown ? "true" : "false");
    }
    printf("],\"losses\":{\"events_dropped\":%llu,\"frames_missed\":%llu,\"counts_lost\":%llu,\"refused\":%u},",
           (unsigned long long)v->top_dropped, (unsigned long long)v->frames_missed, (unsigned long long)v->lost_adds,
           v->refused);
    printf("\"capture\":{\"id\":%llu,\"state\":%d,\"rc\":%d,\"ms\":%u,\"events\":%llu,\"dropped\":%llu,"
           "\"frames\":%llu,\"begin_ns\":%lld,\"end_ns\":%lld,\"message\":",
           (unsigned long long)v->capture_id, v->capture_state, v->capture_rc, v->capture_ms,
           (unsigned long long)v->capture_events, (unsigned long long)v->capture_dropped,
           (unsigned long long)v->capture_frames, (long long)v->capture_begin_ns, (long long)v->capture_end_ns);
    json_str(v->capture_message);
    printf(",\"path\":");
    json_str(v->capture_path);
    printf("}}\n");
}

/* ---- the terminal ---- */

#ifndef _WIN32
static struct termios saved_tio;
static volatile sig_atomic_t stop_flag, resized;
static void on_stop(int sig) {
    (void)sig;
    stop_flag = 1;
}
static void on_winch(int sig) {
    (void)sig;
    resized = 1;
}

static int term_enter(void) {
    if (tcgetattr(0, &saved_tio) != 0) return -1;
    struct termios raw = saved_tio;
    raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO); /* ISIG stays: Ctrl-C quits through on_stop */
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(0, TCSANOW, &raw) != 0) return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sa.sa_handler = on_winch;
    sigaction(SIGWINCH, &sa, NULL);
    fputs("\x1b[?1049h\x1b[?25l", stdout); /* the alternate screen, no cursor */
    return 0;
}

static void term_leave(void) {
    fputs("\x1b[?25h\x1b[?1049l", stdout);
    fflush(stdout);
    tcsetattr(0, TCSANOW, &saved_tio);
}

static void term_size(int *w, int *h) {
    struct winsize ws;
    *w = 80, *h = 24;
    if (ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40 && ws.ws_row >= 10) *w = ws.ws_col, *h = ws.ws_row;
    if (*w > 500) *w = 500;
    if (*h > 64) *h = 64;
}

/* A key within ms, or 0. */
static int term_key(unsigned ms) {
    struct pollfd p = {0, POLLIN, 0};
    if (poll(&p, 1, (int)ms) <= 0) return 0;
    unsigned char k;
    return read(0, &k, 1) == 1 ? k : 0;
}

static void capture_path(char *out, size_t cap, const top_opts *o, uint64_t pid) {
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    char stamp[32];
    strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
    snprintf(out, cap, "%s/ludus-%llu-%s.ludus", o->capture_dir ? o->capture_dir : ".", (unsigned long long)pid, stamp);
}

static int run_screen(ludus_watch *w, ludus_watch_view *v, top_opts *o, int64_t *scratch) {
    if (term_enter() != 0) {
        fprintf(stderr, "ludus-trace top: standard input is not a terminal (use --once or --json)\n");
        return LT_USAGE;
    }
    screen *s = calloc(1, sizeof *s);
    ludus_watch_view *shown = calloc(1, sizeof *shown);
    int paused = 0, rc = LT_OK, exited = 0, have = 0;
    uint64_t cap_id = 0;
    char status[4600] = "", path[4096];
    term_size(&s->width, &s->height);
    while (s && shown && !stop_flag) {
        int r = ludus_watch_read(w, 1, o->win_frames, v);
        if (r == LUDUS_ENODATA) exited = 1;
        if (r == LUDUS_EBUSY) /* the figures shown stay the last whole ones: say why */
            snprintf(status, sizeof status, "%s", ludus_last_error_detail());
        if (r == 0 || r == LUDUS_ENODATA) {
            if (!paused || !have) memcpy(shown, v, sizeof *v);
            have = 1;
        }
        if (cap_id && v->capture_id == cap_id) {
            if (v->capture_state == LUDUS_WATCH_CAPTURE_RUNNING) {
                snprintf(status, sizeof status, "capture: recording %.1f s into %s", v->capture_ms / 1000.0, path);
            } else if (v->capture_state == LUDUS_WATCH_CAPTURE_DONE) {
                snprintf(status, sizeof status, "capture: wrote %s (%llu frames, %llu events, %llu dropped)", path,
                         (unsigned long long)v->capture_frames, (unsigned long long)v->capture_events,
                         (unsigned long long)v->capture_dropped);
                cap_id = 0;
            } else if (v->capture_state == LUDUS_WATCH_CAPTURE_FAILED) {
                char m[300];
                snprintf(status, sizeof status, "capture failed: %s",
                         ludus_text_show(m, sizeof m, v->capture_message, 0));
                cap_id = 0;
            }
        }
        if (resized) {
            resized = 0;
            term_size(&s->width, &s->height);
        }
        if (have) {
            render(s, shown, o, paused, status, scratch, 1);
            fputs("\x1b[H", stdout);
            for (int i = 0; i < s->n; i++) /* no newline after the last: the screen never scrolls */
                printf("%s\x1b[K%s", s->lines[i], i + 1 < s->n ? "\r\n" : "");
            fputs("\x1b[J", stdout);
            fflush(stdout);
        }
        if (exited) break;
        int k = term_key(o->interval_ms);
        if (k == 'q' || k == 'Q' || k == 3) break;
        if (k == 'p' || k == ' ') paused = !paused;
        if (k == 'w' || k == 'W') {
            size_t i = 0;
            while (i < NWINDOWS && windows[i] <= o->win_frames) i++;
            o->win_frames = windows[i % NWINDOWS];
        }
        if (k == 's' || k == 'S') o->sort = (o->sort + 1) % SORT_COUNT;
        if ((k == 'c' || k == 'C') && !cap_id) {
            capture_path(path, sizeof path, o, v->pid);
            int crc = ludus_watch_capture(w, (uint32_t)(o->capture_s * 1000 + 0.5), path, &cap_id);
            if (crc) {
                char m[300];
                snprintf(status, sizeof status, "capture refused: %s",
                         ludus_text_show(m, sizeof m, ludus_last_error_detail(), 0));
                cap_id = 0;
            } else {
                snprintf(status, sizeof status, "capture: asked for %.1f s into %s", o->capture_s, path);
            }
        }
    }
    term_leave();
    if (exited) printf("ludus-trace top: process %llu exited\n", (unsigned long long)v->pid);
    if (!s || !shown) rc = LT_IO;
    free(s);
    free(shown);
    return rc;
}
#else
static int run_screen(ludus_watch *w, ludus_watch_view *v, top_opts *o, int64_t *scratch) {
    (void)w, (void)v, (void)o, (void)scratch;
    fprintf(stderr, "ludus-trace top: the live screen is not built for Windows yet (use --once or --json)\n");
    return LT_USAGE;
}
#endif

/* ---- the verb ---- */

static int is_tty_out(void) {
#ifdef _WIN32
    return 0;
#else
    return isatty(1) && isatty(0);
#endif
}

/* A block left half-written this long: the process is stopped while
 * publishing (SIGSTOP, a debugger), and --once says so instead of waiting. */
#define BUSY_GIVE_UP_MS 3000

static int64_t now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Plain lines or JSON: --once prints one reading after settle_ms (the
 * process's first top scopes take that long), else one per interval until
 * the process exits. */
static int run_lines(ludus_watch *w, ludus_watch_view *v, const top_opts *o, int64_t *scratch) {
    screen *s = calloc(1, sizeof *s);
    if (!s) return LT_IO;
    s->width = 500;
    s->height = 64;
    int64_t start = now_ms(), last_print = 0, first_ns = 0, busy_since = 0;
    int rc = LT_OK;
    for (;;) {
        int r = ludus_watch_read(w, 1, o->win_frames, v);
        int64_t t = now_ms();
        int exited = r == LUDUS_ENODATA;
        if (r != 0 && !exited) { /* busy: read again, a while */
            if (!busy_since) busy_since = t;
            if (t - busy_since >= BUSY_GIVE_UP_MS) {
                fprintf(stderr, "ludus-trace top: %s; gave up after %d s\n", ludus_last_error_detail(),
                        BUSY_GIVE_UP_MS / 1000);
                rc = LT_IO;
                break;
            }
            lt_live_sleep_ms(20);
            continue;
        }
        busy_since = 0;
        if (!first_ns) first_ns = v->now_ns;
        /* --once: after settle_ms, at the first reading whose top scopes were computed since this
         * watcher came (the process records only then), or 10 s later without them */
        int64_t waited = t - start;
        int scopes_new = v->top_rc == 0 && v->nscopes && v->top_computed_ns >= first_ns;
        int ready = !o->once || exited || (waited >= (int64_t)o->settle_ms && (v->state & LUDUS_WATCH_BUSY)) ||
                    (waited >= (int64_t)o->settle_ms && (scopes_new || waited >= (int64_t)o->settle_ms + 10000));
        if (ready && (o->once || exited || t - last_print >= (int64_t)o->interval_ms)) {
            if (o->json) {
                print_json(v, o, scratch);
            } else {
                render(s, v, o, 0, "", scratch, 0);
                print_plain(s);
                if (!o->once) putchar('\n');
            }
            fflush(stdout);
            last_print = t;
            if (o->once) break;
        }
        if (exited) {
            if (!o->json) printf("ludus-trace top: process %llu exited\n", (unsigned long long)v->pid);
            break;
        }
        lt_live_sleep_ms(100);
    }
    free(s);
    return rc;
}

static int run_top(int argc, char **argv) {
    top_opts o;
    memset(&o, 0, sizeof o);
    o.win_frames = 120;
    o.interval_ms = 250;
    o.settle_ms = 2500;
    o.capture_s = 2;
    const char *pid_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int takes = !strcmp(a, "--window") || !strcmp(a, "--interval") || !strcmp(a, "--settle") ||
                    !strcmp(a, "--sort") || !strcmp(a, "--capture-seconds") || !strcmp(a, "--capture-dir");
        if (takes && i + 1 >= argc) return lt_missing_value(&top_verb, a);
        char *end = NULL;
        if (!strcmp(a, "--once")) {
            o.once = 1;
        } else if (!strcmp(a, "--json")) {
            o.json = 1;
        } else if (!strcmp(a, "--window")) {
            unsigned long x = strtoul(argv[++i], &end, 10);
            if (*end || x < 2 || x > LUDUS_WATCH_FRAMES) return lt_usage(&top_verb, "--window takes 2 .. 4096 frames");
            o.win_frames = (uint32_t)x;
        } else if (!strcmp(a, "--interval") || !strcmp(a, "--settle")) {
            unsigned long x = strtoul(argv[++i], &end, 10);
            if (*end || x < 50 || x > 60000) return lt_usage(&top_verb, "--interval and --settle take 50 .. 60000 ms");
            *(!strcmp(a, "--interval") ? &o.interval_ms : &o.settle_ms) = (unsigned)x;
        } else if (!strcmp(a, "--sort")) {
            const char *k = argv[++i];
            o.sort = !strcmp(k, "exclusive") ? SORT_EXCL
                     : !strcmp(k, "calls")   ? SORT_CALLS
                     : !strcmp(k, "name")    ? SORT_NAME
                                             : -1;
            if (o.sort < 0) return lt_usage(&top_verb, "--sort takes exclusive, calls or name");
        } else if (!strcmp(a, "--capture-seconds")) {
            o.capture_s = strtod(argv[++i], &end);
            if (*end || !(o.capture_s >= 0.001 && o.capture_s <= 3600))
                return lt_usage(&top_verb, "--capture-seconds takes 0.001 .. 3600");
        } else if (!strcmp(a, "--capture-dir")) {
            o.capture_dir = argv[++i];
        } else if (a[0] == '-' && a[1]) {
            return lt_unknown_option(&top_verb, a);
        } else if (!pid_arg) {
            pid_arg = a;
        } else {
            return lt_usage(&top_verb, "one process id only");
        }
    }
    if (!pid_arg) return lt_usage(&top_verb, "no process id given");
    uint64_t pid;
    if (lt_live_parse_pid(pid_arg, &pid) != 0) return lt_usage(&top_verb, "the process id is not a number");
    ludus_watch *w;
    int rc = lt_live_open("top", pid, &w);
    if (rc) return rc;
    ludus_watch_view *v = calloc(1, sizeof *v);
    int64_t *scratch = calloc(LUDUS_WATCH_FRAMES, sizeof *scratch);
    if (!v || !scratch)
        rc = LT_IO;
    else if (o.once || o.json || !is_tty_out())
        rc = run_lines(w, v, &o, scratch);
    else
        rc = run_screen(w, v, &o, scratch);
    free(v);
    free(scratch);
    ludus_watch_close(w);
    return rc;
}

static const lt_verb top_verb = {
    "top", "watch a running process (LUDUS_LIVE=1): frame times, top scopes, counters, live",
    "usage: ludus-trace top PID [options]\n"
    "  PID: a process started with LUDUS_LIVE=1 (or that called ludus_live_start), of this user\n"
    "  --window N            frames the figures cover (default 120; 2 .. 4096; the top scopes\n"
    "                        cover at most the process's 2 s window)\n"
    "  --interval MS         refresh every MS (default 250)\n"
    "  --sort K              exclusive (default) | calls | name\n"
    "  --once                one reading after --settle MS (default 2500: the first top scopes)\n"
    "  --json                JSON (one document per reading) instead of text\n"
    "  --capture-seconds N   what the c key records (default 2), into --capture-dir (default .)\n"
    "On a terminal: a screen redrawn every interval; keys p pause, w window, s sort,\n"
    "c capture, q quit. Elsewhere: plain lines per reading. Exits when the process does.\n",
    "--window N, --interval MS, --sort K, --once, --settle MS, --json, --capture-seconds N, --capture-dir D, --help",
    run_top};
LUDUS_TRACE_VERB(top_verb)
