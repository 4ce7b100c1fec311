/* ludus-trace: off-line tool over capture files. Dispatches to the verbs
 * that registered themselves (verb_*.c), prints help, and draws progress. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ludus/capture_file.h>

#include "verbs.h"

#define MAX_VERBS 16
static const lt_verb *verbs[MAX_VERBS];
static int nverbs;

void lt_register_verb(const lt_verb *v) {
    if (nverbs < MAX_VERBS) verbs[nverbs++] = v;
}

int lt_usage(const lt_verb *v, const char *problem) {
    if (problem) fprintf(stderr, "ludus-trace %s: %s\n", v->name, problem); /* constant text */
    fprintf(stderr, "%s", v->usage);
    return LT_USAGE;
}

static int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lt_progress_begin(lt_progress *p, const char *label, uint64_t total) {
    p->label = label;
    p->total = total ? total : 1;
    p->start_ns = p->last_ns = mono_ns();
    p->enabled = isatty(2);
    p->shown = 0;
}

void lt_progress_update(lt_progress *p, uint64_t done) {
    if (!p->enabled) return;
    int64_t now = mono_ns();
    /* Only for work that lasts over a second, redrawn 10 times a second. */
    if (now - p->start_ns < 1000000000 || now - p->last_ns < 100000000) return;
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
    if (p->shown) fprintf(stderr, "\r%*s\r", 60, "");
}

static void print_help(FILE *f) {
    fprintf(f, "usage: ludus-trace VERB [ARGS]   (ludus-trace VERB --help for a verb's usage)\n\n");
    for (int i = 0; i < nverbs; i++) fprintf(f, "  %-10s %s\n", verbs[i]->name, verbs[i]->summary); /* constant text */
    fprintf(f, "\nexit codes: 0 ok, 1 usage, 2 bad input, 3 I/O error, 4 a --fail-if gate tripped\n");
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
    for (int i = 0; i < nverbs; i++) {
        if (strcmp(argv[1], verbs[i]->name) != 0) continue;
        for (int a = 2; a < argc; a++)
            if (!strcmp(argv[a], "--help") || !strcmp(argv[a], "-h")) {
                fputs(verbs[i]->usage, stdout);
                return LT_OK;
            }
        return verbs[i]->run(argc - 1, argv + 1);
    }
    fprintf(stderr, "ludus-trace: unknown verb '%s'\n\n", argv[1]);
    print_help(stderr);
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
