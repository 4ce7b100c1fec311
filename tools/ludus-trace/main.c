/* ludus-trace: off-line tool over capture files. Dispatches to the verbs
 * that registered themselves (verb_*.c), prints help and the version, says
 * what is wrong with a command line, and draws progress. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef _WIN32 /* a thread of Windows' own: libludus.dll exports the winpthreads it holds */
#include <windows.h>
#else
#include <pthread.h>
#endif

#include <ludus/capture_file.h>

#include "verbs.h"

#define MAX_VERBS 16
static const lt_verb *verbs[MAX_VERBS];
static int nverbs;

void lt_register_verb(const lt_verb *v) {
    if (nverbs < MAX_VERBS) verbs[nverbs++] = v;
}

static void print_exit_codes(FILE *f) {
    fprintf(f, "exit codes:\n");
#define LT__EXIT_LINE(name, code, meaning) fprintf(f, "  %d  %s\n", code, meaning);
    LT_EXIT_CODES(LT__EXIT_LINE)
#undef LT__EXIT_LINE
}

static void print_verb_help(const lt_verb *v, FILE *f) {
    fputs(v->usage, f);
    fprintf(f, "options: %s\n", v->options);
    print_exit_codes(f);
}

int lt_usage(const lt_verb *v, const char *problem) {
    if (problem) fprintf(stderr, "ludus-trace %s: %s\n", v->name, problem); /* constant text */
    fprintf(stderr, "%s", v->usage);
    return LT_USAGE;
}

int lt_unknown_option(const lt_verb *v, const char *arg) {
    char shown[256];
    fprintf(stderr, "ludus-trace %s: unknown option '%s'; %s takes: %s (ludus-trace %s --help)\n", /* constant text */
            v->name, ludus_text_show(shown, sizeof shown, arg, 0), v->name, v->options, v->name);
    return LT_USAGE;
}

int lt_missing_value(const lt_verb *v, const char *option) {
    fprintf(stderr, "ludus-trace %s: %s needs a value (ludus-trace %s --help)\n", /* constant text */
            v->name, option, v->name);
    return LT_USAGE;
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* When progress shows: after a second of work, or LUDUS_TRACE_PROGRESS_MS
 * (0: at once, which the tests use instead of a job that takes a second). */
static int64_t progress_after_ns(void) {
    const char *s = getenv("LUDUS_TRACE_PROGRESS_MS");
    if (s && *s) {
        char *end;
        long ms = strtol(s, &end, 10);
        if (!*end && ms >= 0) return (int64_t)ms * 1000000;
    }
    return 1000000000;
}

void lt_progress_begin(lt_progress *p, const char *label, uint64_t total) {
    p->label = label;
    p->total = total ? total : 1;
    p->start_ns = p->last_ns = mono_ns();
    p->after_ns = progress_after_ns();
    p->enabled = isatty(2);
    p->shown = 0;
}

void lt_progress_update(lt_progress *p, uint64_t done) {
    if (!p->enabled) return;
    int64_t now = mono_ns();
    /* Only for work that lasts over the threshold, redrawn 10 times a second. */
    if (now - p->start_ns < p->after_ns || (p->shown && now - p->last_ns < 100000000)) return;
    p->last_ns = now;
    int pct = (int)(done * 100 / p->total);
    if (pct > 100) pct = 100;
    char bar[31];
    memset(bar, ' ', 30);
    memset(bar, '#', (size_t)(pct * 30 / 100));
    bar[30] = 0;
    fprintf(stderr, "\r%s [%s] %3d%%", p->label, bar, pct);
    p->shown = 1;
}

void lt_progress_end(lt_progress *p) {
    if (p->shown) fprintf(stderr, "\r%*s\r", 72, "");
}

/* Work without a total: a thread draws "ludus-trace VERB: WHAT PATH ... 2.3 s"
 * after the threshold, ten times a second, until lt_busy_end. */
typedef struct busy_state {
#ifdef _WIN32
    HANDLE thread;
#else
    pthread_t thread;
#endif
    int running, done, shown; /* done: atomic */
    int held;                 /* lt_busy_hold: set and cleared with no other thread of ours running */
    char line[200];
    int64_t start_ns, after_ns;
} busy_state;
static busy_state busy;

static void busy_draw(int64_t now) {
    fprintf(stderr, "\r%s ... %.1f s ", busy.line, (double)(now - busy.start_ns) / 1e9);
    busy.shown = 1;
}

/* Wakes every 20 ms (lt_busy_end waits at most that), draws every 100 ms
 * once the threshold has passed. */
static void busy_loop(void) {
    int64_t last = 0;
    while (!__atomic_load_n(&busy.done, __ATOMIC_ACQUIRE)) {
        int64_t now = mono_ns();
        if (now - busy.start_ns >= busy.after_ns && now - last >= 100000000) {
            busy_draw(now);
            last = now;
        }
#ifdef _WIN32
        Sleep(20);
#else
        struct timespec nap = {0, 20000000};
        nanosleep(&nap, NULL);
#endif
    }
}
#ifdef _WIN32
static DWORD WINAPI busy_main(LPVOID arg) {
    (void)arg;
    busy_loop();
    return 0;
}
#else
static void *busy_main(void *arg) {
    (void)arg;
    busy_loop();
    return NULL;
}
#endif

void lt_busy_begin(const char *verb, const char *what, const char *path) {
    if (busy.held || busy.running || !isatty(2)) return;
    snprintf(busy.line, sizeof busy.line, "ludus-trace %s: %s %s", verb, what, path ? path : "");
    busy.start_ns = mono_ns();
    busy.after_ns = progress_after_ns();
    busy.done = 0;
    busy.shown = 0;
    if (busy.after_ns == 0) busy_draw(busy.start_ns); /* at once, before the work: what a test sees */
#ifdef _WIN32
    busy.thread = CreateThread(NULL, 0, busy_main, NULL, 0, NULL);
    busy.running = busy.thread != NULL;
#else
    busy.running = pthread_create(&busy.thread, NULL, busy_main, NULL) == 0;
#endif
}

void lt_busy_end(void) {
    if (busy.held) return;
    if (busy.running) {
        __atomic_store_n(&busy.done, 1, __ATOMIC_RELEASE);
#ifdef _WIN32
        WaitForSingleObject(busy.thread, INFINITE);
        CloseHandle(busy.thread);
#else
        pthread_join(busy.thread, NULL);
#endif
        busy.running = 0;
    }
    if (busy.shown) fprintf(stderr, "\r%*s\r", (int)strlen(busy.line) + 16, "");
    busy.shown = 0;
}

void lt_busy_hold(const char *verb, const char *what, const char *path) {
    lt_busy_begin(verb, what, path);
    busy.held = 1;
}

void lt_busy_release(void) {
    busy.held = 0;
    lt_busy_end();
}

static void print_help(FILE *f) {
    fprintf(f, "usage: ludus-trace VERB [ARGS]   (ludus-trace VERB --help for a verb's usage)\n"
               "       ludus-trace --version\n\n");
    for (int i = 0; i < nverbs; i++) fprintf(f, "  %-10s %s\n", verbs[i]->name, verbs[i]->summary); /* constant text */
    fprintf(f, "\nFILE \"-\" is standard input (one per command); OUT \"-\" standard output; -o OUT as well as\n"
               "the positional OUT on every verb that writes. Progress on stderr for work over a second,\n"
               "only on a terminal.\n\n");
    print_exit_codes(f);
}

static void print_version(void) {
    printf("ludus-trace %s (Ludus Profiling)\n", LUDUS_VERSION_STRING);
}

int main(int argc, char **argv) {
    /* The tool links the library, whose launch-to-exit capture (LUDUS_TRACE)
     * may have started in this process too: it is meant for other programs. */
    ludus_launch_cancel();
    if (argc < 2) {
        print_help(stderr);
        return LT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        print_help(stdout);
        return LT_OK;
    }
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        print_version();
        return LT_OK;
    }
    for (int i = 0; i < nverbs; i++) {
        if (strcmp(argv[1], verbs[i]->name) != 0) continue;
        for (int a = 2; a < argc; a++) {
            if (!strcmp(argv[a], "--")) break; /* what follows is not an option (diff: NEW runs) */
            if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
                print_verb_help(verbs[i], stdout);
                return LT_OK;
            }
            if (!strcmp(argv[a], "--version")) {
                print_version();
                return LT_OK;
            }
        }
        return verbs[i]->run(argc - 1, argv + 1);
    }
    char shown[256];
    fprintf(stderr, "ludus-trace: unknown verb '%s'; the verbs are:", ludus_text_show(shown, sizeof shown, argv[1], 0));
    for (int i = 0; i < nverbs; i++) fprintf(stderr, " %s", verbs[i]->name); /* constant text */
    fprintf(stderr, " (ludus-trace --help)\n");
    return LT_USAGE;
}

void lt_error(const char *verb, const char *what, int rc) {
    char shown[1024]; /* the detail may quote a file's bytes: shown, not sent */
    const char *kind = ludus_error_string(rc),
               *detail = ludus_text_show(shown, sizeof shown, ludus_last_error_detail(), 0);
    if (!strncmp(detail, kind, strlen(kind))) /* the detail says it already ("malformed input, offset N: ...") */
        fprintf(stderr, "ludus-trace %s: %s: %s\n", verb, what, detail);
    else
        fprintf(stderr, "ludus-trace %s: %s: %s: %s\n", verb, what, kind, detail);
}
