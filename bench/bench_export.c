/* Export throughput on a 10-million-event capture: native save (raw and
 * compact, to a file), native load (open + stream every block, and open +
 * the full normalised iteration), Chrome JSON and Perfetto protobuf export
 * into a discarding writer. Prints events/s and bytes/event, median of runs.
 *   bench_export [EVENTS_MILLIONS] [DIR] */
#include "bench_common.h"

#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <string.h>

#include "capture/native_format.h"
#include "export/export_formats.h"
#include "export/export_internal.h"

static int discard(void *ud, const void *p, size_t n) {
    (void)p;
    *(uint64_t *)ud += n;
    return 0;
}

static ludus__writer wr;

static void record(uint64_t events) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = 65536;
    d.chunk_count = (uint32_t)(events / 4092 + 64);
    if (ludus_begin_capture(&d)) {
        fprintf(stderr, "begin: %s\n", ludus_last_error_detail());
        exit(1);
    }
    ludus_register_thread_for_trace("bench");
    /* Out-of-line spans (the integration API): 3 nested spans and a
     * sibling, 8 events an iteration. */
    uint32_t outer = ludus_register_site(&(ludus_site_desc){"Outer", "bench", __FILE__, __LINE__});
    uint32_t middle = ludus_register_site(&(ludus_site_desc){"Middle", "bench", __FILE__, __LINE__});
    uint32_t inner = ludus_intern_name("Inner");
    uint32_t sib = ludus_intern_name("Sibling");
    for (uint64_t i = 0; i < events / 8; i++) {
        ludus_begin_site(outer);
        ludus_begin_site(middle);
        ludus_begin_site(inner);
        ludus_end_site();
        ludus_end_site();
        ludus_begin_site(sib);
        ludus_end_site();
        ludus_end_site();
    }
    ludus_end_capture();
}

/* The same pattern written straight into ludus__last, for a tree whose
 * recorder cannot record the full count (the exporters are what is
 * measured here). Monotonic clock: ticks are ns, 40 ns apart. */
static const ludus_site syn_sites[4] = {
    {"Outer", "record", __FILE__, "bench", 1, 0},
    {"Middle", "record", __FILE__, "bench", 2, 0},
    {"Inner", "record", __FILE__, NULL, 3, 0},
    {"Sibling", "record", __FILE__, NULL, 4, 0},
};

static void synthesize(uint64_t events) {
    ludus__captured *c = &ludus__last;
    const size_t per_run = 4092;
    size_t nruns = (size_t)((events + per_run - 1) / per_run);
    ludus__event *ev = malloc((size_t)events * sizeof *ev);
    ludus__cap_thread *th = calloc(1, sizeof *th);
    th->runs = calloc(nruns, sizeof *th->runs);
    if (!ev || !th || !th->runs) exit(1);
    enum { B = LUDUS__K_BEGIN, E = LUDUS__K_END };
    static const int pat[8][2] = {{0, B}, {1, B}, {2, B}, {-1, E}, {-1, E}, {3, B}, {-1, E}, {-1, E}};
    int64_t start = 1000000000;
    for (uint64_t i = 0; i < events; i++) {
        const int *p = pat[i % 8];
        ev[i].ticks = (uint64_t)start + 40 * (i + 1);
        ev[i].word = p[0] >= 0 ? (uintptr_t)&syn_sites[p[0]] | (uintptr_t)p[1] : (uintptr_t)p[1];
    }
    for (size_t r = 0; r < nruns; r++) {
        th->runs[r].ev = ev + r * per_run;
        th->runs[r].n = r + 1 < nruns ? per_run : (size_t)(events - r * per_run);
    }
    th->nruns = (uint32_t)nruns;
    strcpy(th->name, "bench");
    th->tid = 1;
    memset(c, 0, sizeof *c);
    c->valid = 1;
    c->start_ns = start;
    c->end_ns = start + 40 * (int64_t)events + 40;
    c->c0 = (ludus__calib_point){(uint64_t)c->start_ns, c->start_ns, 0};
    c->c1 = (ludus__calib_point){(uint64_t)c->end_ns, c->end_ns, 0};
    c->threads = th;
    c->nthreads = 1;
    c->chunks_used = (uint32_t)nruns;
    c->pid = 1;
    strcpy(c->process_name, "bench_export");
}

#define RUNS 3

static void report(const char *what, double *s, uint64_t events, uint64_t bytes) {
    double med = bench_median(s, RUNS);
    printf("%-28s %8.1f M events/s  %7.2f bytes/event  (%.3f s, %.1f MB/s)\n", what, events / med / 1e6,
           (double)bytes / (double)events, med, bytes / med / 1e6);
}

static uint64_t file_size(const char *p) {
    FILE *f = fopen(p, "rb");
    if (!f) return 0;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return (uint64_t)n;
}

int main(int argc, char **argv) {
    uint64_t millions = argc > 1 ? strtoull(argv[1], NULL, 10) : 10;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    record(millions * 1000000);
    ludus_capture_summary s;
    ludus_capture_get_summary(&s);
    if (s.events + s.dropped < millions * 1000000 * 99 / 100) {
        printf("the recorder kept %llu of %llu events: synthesising the capture instead\n",
               (unsigned long long)s.events, (unsigned long long)(millions * 1000000));
        synthesize(millions * 1000000);
        ludus_capture_get_summary(&s);
    }
    uint64_t ev = s.events;
    printf("capture: %llu events, %llu dropped, %u chunks\n", (unsigned long long)ev, (unsigned long long)s.dropped,
           s.chunks_used);
    char raw[512], compact[512];
    snprintf(raw, sizeof raw, "%s/bench_export_raw.ludus", dir);
    snprintf(compact, sizeof compact, "%s/bench_export_compact.ludus", dir);
    double t[RUNS];
    uint64_t bytes = 0;

    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        if (ludus_save_capture(raw)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("native save (raw, file)", t, ev, file_size(raw));
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        if (ludus_save_capture_ex(compact, LUDUS_SAVE_COMPACT)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("native save (compact, file)", t, ev, file_size(compact));

    const char *paths[2] = {raw, compact};
    const char *names[2][2] = {{"native load raw (blocks)", "native load raw (events)"},
                               {"native load compact (blocks)", "native load compact (events)"}};
    for (int k = 0; k < 2; k++) {
        for (int mode = 0; mode < 2; mode++) {
            for (int r = 0; r < RUNS; r++) {
                int64_t t0 = bench_now_ns();
                ludus_capture_file *f;
                if (ludus_capture_open(paths[k], &f)) return 1;
                ludus__captured *c = ludus__capture_file_view(f);
                uint64_t n = 0;
                for (uint32_t th = 0; th < c->nthreads; th++) {
                    if (mode == 0) {
                        ludus__run_buf rb = {0};
                        uint64_t cur = c->threads[th].load_first;
                        for (uint32_t b = 0; b < c->threads[th].nruns; b++) {
                            ludus__run run;
                            if (c->load_run(c, &cur, &run, &rb)) return 1;
                            n += run.n;
                        }
                        free(rb.ev);
                        free(rb.bytes);
                    } else {
                        ludus__nev_iter it;
                        ludus__nev e;
                        ludus__nev_init(&it, c, th);
                        while (ludus__nev_next(&it, &e)) n++;
                        ludus__nev_free(&it);
                    }
                }
                ludus_capture_close(f);
                t[r] = (bench_now_ns() - t0) / 1e9;
                if (n == 0) return 1;
            }
            report(names[k][mode], t, ev, file_size(paths[k]));
        }
    }

    for (int r = 0; r < RUNS; r++) {
        bytes = 0;
        ludus__w_init(&wr, discard, &bytes);
        int64_t t0 = bench_now_ns();
        if (ludus__export_chrome_json(&ludus__last, &wr)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    uint64_t json_bytes = bytes;
    report("JSON export (discard)", t, ev, bytes);
    for (int r = 0; r < RUNS; r++) {
        bytes = 0;
        ludus__w_init(&wr, discard, &bytes);
        int64_t t0 = bench_now_ns();
        if (ludus__export_pftrace(&ludus__last, &wr)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("protobuf export (discard)", t, ev, bytes);
    printf("protobuf / JSON size: 1/%.2f\n", (double)json_bytes / (double)bytes);
    remove(raw);
    remove(compact);
    return 0;
}
