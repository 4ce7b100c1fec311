/* Report throughput on a synthetic capture of 10 M and 100 M events: the
 * analysis pass (what `ludus-trace report` runs) over a capture whose blocks
 * are generated on demand, one block per thread in memory at a time (the
 * way the capture-file reader streams), so the capture itself costs no
 * memory and peak RSS shows what the analysis keeps. Prints events/s and
 * peak RSS after each size; generation alone is timed and reported too.
 *   bench_report [EVENTS...]   (default: 10000000 100000000) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "capture/capture_build.h" /* captures built by hand: their sources */
#include "bench_common.h"

#define THREADS 4
#define BLOCK 65536 /* slots */

#define S(var, nm) static const ludus_site var = {nm, "bench", "bench_report.c", NULL, __LINE__, 0}
S(s_frame, "Frame");
S(s_update, "Update");
S(s_physics, "Physics");
S(s_solve, "Solve");
S(s_ai, "AI");
S(s_render, "Render");
S(s_pass, "Pass");
S(s_job, "Job");
S(s_exec, "Execute");
S(s_leaf, "Leaf");
S(s_mark, "frame");

typedef struct tmpl {
    const ludus_site *site;
    unsigned kind;
} tmpl;
static tmpl unit[2][4096];
static uint32_t unit_len[2], units_per_block[2];

static void add(int u, const ludus_site *s, unsigned k) {
    unit[u][unit_len[u]++] = (tmpl){s, k};
}

static void build_units(void) {
    /* frame thread: Frame{Update{Physics{Solve x400} AI x100} Render{Pass x500}} mark:
     * about 2,000 events a frame, a busy game frame */
    add(0, &s_frame, LUDUS__K_BEGIN);
    add(0, &s_update, LUDUS__K_BEGIN);
    add(0, &s_physics, LUDUS__K_BEGIN);
    for (int i = 0; i < 400; i++) add(0, &s_solve, LUDUS__K_BEGIN), add(0, NULL, LUDUS__K_END);
    add(0, NULL, LUDUS__K_END);
    for (int i = 0; i < 100; i++) add(0, &s_ai, LUDUS__K_BEGIN), add(0, NULL, LUDUS__K_END);
    add(0, NULL, LUDUS__K_END);
    add(0, &s_render, LUDUS__K_BEGIN);
    for (int i = 0; i < 500; i++) add(0, &s_pass, LUDUS__K_BEGIN), add(0, NULL, LUDUS__K_END);
    add(0, NULL, LUDUS__K_END);
    add(0, NULL, LUDUS__K_END);
    add(0, &s_mark, LUDUS__KIND_FRAME);
    /* workers: Job{Execute{Leaf x2}} */
    add(1, &s_job, LUDUS__K_BEGIN);
    add(1, &s_exec, LUDUS__K_BEGIN);
    for (int i = 0; i < 2; i++) add(1, &s_leaf, LUDUS__K_BEGIN), add(1, NULL, LUDUS__K_END);
    add(1, NULL, LUDUS__K_END);
    add(1, NULL, LUDUS__K_END);
    for (int u = 0; u < 2; u++) units_per_block[u] = BLOCK / unit_len[u];
}

/* The address block b of thread t had when "recorded": ends name their
 * begins by address. */
static uintptr_t base_of(uint32_t t, uint64_t b) {
    return ((uintptr_t)(t + 1) << 40) + (uintptr_t)(b * BLOCK * sizeof(ludus__event));
}

/* Block b of thread t: ticks 10 ns apart plus 0..7 ns of jitter (monotonic). */
static void fill(uint32_t t, uint64_t b, ludus__event *ev, size_t *n) {
    int u = t ? 1 : 0;
    uint32_t len = unit_len[u];
    size_t k = 0;
    uint64_t idx = b * (uint64_t)units_per_block[u] * len;
    uint64_t h = (t + 1) * 0x9E3779B97F4A7C15ull ^ b;
    uintptr_t base = base_of(t, b), open[16];
    int depth = 0;
    for (uint32_t r = 0; r < units_per_block[u]; r++)
        for (uint32_t i = 0; i < len; i++, k++, idx++) {
            h ^= h << 13, h ^= h >> 7, h ^= h << 17;
            ev[k].ticks = 1000 + idx * 10 + (h & 7);
            ev[k].word = (uintptr_t)unit[u][i].site | unit[u][i].kind;
            if (unit[u][i].kind == LUDUS__K_BEGIN) open[depth++] = base + k * sizeof(ludus__event);
            if (unit[u][i].kind == LUDUS__K_END) ev[k].word = open[--depth] | LUDUS__K_END;
        }
    *n = k;
}

/* cursor: thread << 40 | block */
static int loader(const ludus__captured *c, uint64_t *cursor, ludus__run *out, ludus__run_buf *buf) {
    (void)c;
    if (buf->cap < BLOCK) {
        free(buf->ev);
        buf->ev = malloc(BLOCK * sizeof *buf->ev);
        if (!buf->ev) return LUDUS_ENOMEM;
        buf->cap = BLOCK;
    }
    size_t n;
    uint32_t t = (uint32_t)(*cursor >> 40);
    uint64_t b = *cursor & ((1ull << 40) - 1);
    fill(t, b, buf->ev, &n);
    out->ev = buf->ev;
    out->n = n;
    out->base = base_of(t, b);
    (*cursor)++;
    return 0;
}

static int file_write(void *ud, const void *d, size_t n) {
    return fwrite(d, 1, n, ud) == n ? 0 : -1;
}

/* First a synthetic in-memory capture (its sites collected from its
 * events), then its blocks generated on demand as a file's are loaded. */
static const ludus__source_ops prime_source = {"synthetic", NULL, ludus__build_recorded, NULL, NULL, 0};
static ludus__source_ops generated_source = {"generated", NULL, NULL, NULL, NULL, 0};

static void run(uint64_t target) {
    static ludus__captured c;
    static ludus__cap_thread th[THREADS];
    static ludus__run prime_run[THREADS];
    static ludus__event prime[THREADS][BLOCK];
    memset(&c, 0, sizeof c);
    memset(th, 0, sizeof th);
    c.src = &prime_source;
    c.refs = 1;
    c.threads = th;
    c.nthreads = THREADS;
    /* prime: one block per thread in memory, so ludus__prepare builds the site table */
    for (uint32_t t = 0; t < THREADS; t++) {
        size_t n;
        fill(t, 0, prime[t], &n);
        prime_run[t] = (ludus__run){prime[t], n, base_of(t, 0)};
        th[t].runs = &prime_run[t];
        th[t].nruns = 1;
        th[t].first_drop_ns = LUDUS__NO_DROP;
        snprintf(th[t].name, sizeof th[t].name, t ? "worker %u" : "main", t);
    }
    if (ludus__prepare(&c) != 0) exit(1);
    /* then stream generated blocks */
    uint64_t events = 0, per_thread = target / THREADS;
    for (uint32_t t = 0; t < THREADS; t++) {
        int u = t ? 1 : 0;
        uint64_t per_block = (uint64_t)units_per_block[u] * unit_len[u];
        uint64_t blocks = (per_thread + per_block - 1) / per_block;
        th[t].runs = NULL;
        th[t].nruns = (uint32_t)blocks;
        th[t].load_first = (uint64_t)t << 40;
        th[t].frames = u ? 0 : blocks * units_per_block[0];
        events += blocks * per_block;
        if (!u) c.end_ns = (int64_t)(1000 + blocks * per_block * 10 + 100);
    }
    c.events = events;
    generated_source.load_run = loader;
    c.src = &generated_source;

    /* generation alone */
    int64_t t0 = bench_now_ns();
    ludus__run_buf rb = {0};
    ludus__run out;
    uint64_t sink = 0;
    for (uint32_t t = 0; t < THREADS; t++) {
        uint64_t cur = th[t].load_first;
        for (uint32_t b = 0; b < th[t].nruns; b++) {
            loader(&c, &cur, &out, &rb);
            sink += out.ev[out.n - 1].ticks;
        }
    }
    free(rb.ev);
    int64_t gen_ns = bench_now_ns() - t0;

    ludus_analysis *a = NULL;
    t0 = bench_now_ns();
    int rc = ludus__analyze(&c, NULL, &a);
    int64_t an_ns = bench_now_ns() - t0;
    if (rc) {
        fprintf(stderr, "analysis failed: %d\n", rc);
        exit(1);
    }
    ludus_analysis_summary s;
    ludus_analysis_get_summary(a, &s);
    /* the text report too (to /dev/null): its cost does not grow with events */
    FILE *null = fopen("/dev/null", "w");
    t0 = bench_now_ns();
    if (null) ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, file_write, null);
    int64_t rep_ns = bench_now_ns() - t0;
    if (null) fclose(null);
    printf(
        "events %11llu  frames %8llu  sites %u paths %u  analysis %7.3f s  %6.1f M events/s  "
        "(generation alone %.3f s; analysis minus generation %6.1f M events/s)  report %.1f ms  peak RSS %ld KiB%s\n",
        (unsigned long long)events, (unsigned long long)s.frames_complete, s.sites, s.paths, an_ns / 1e9,
        events / (an_ns / 1e3), gen_ns / 1e9, an_ns > gen_ns ? events / ((an_ns - gen_ns) / 1e3) : 0.0, rep_ns / 1e6,
        bench_peak_rss_kib(), sink ? "" : " ");
    ludus_analysis_destroy(a);
    free(c.sites);
    free(c.site_hash);
    ludus__arena_free(&c.site_text);
}

int main(int argc, char **argv) {
    build_units();
    printf("bench_report: analysis pass (ludus-trace report) over generated blocks, %d threads, "
           "frames of %u events, clock ticks = ns\n",
           THREADS, unit_len[0]);
    if (argc < 2) {
        run(10000000);
        run(100000000);
    } else {
        for (int i = 1; i < argc; i++) run(strtoull(argv[i], NULL, 10));
    }
    return 0;
}
