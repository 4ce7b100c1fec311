/* Export throughput on a capture recorded by the library (10 million events
 * by default): native save (compact and raw, to a file), open (every
 * record's checksum verified), the normalised stream of a file (what every
 * reader pays), Chrome JSON and Perfetto protobuf export into a discarding
 * writer (labelled so) and to a file. Prints events/s and bytes/event,
 * medians of 3 runs.
 *   bench_export [EVENTS_MILLIONS] [DIR] [json|pftrace|stream|all] [mixed|scopes]
 * Instruction counts of the exporters per event come from
 * bench/callgrind.sh (bench_export 1 DIR json|pftrace WORKLOAD: that export
 * only, once; stream: the normalised stream alone, function stream). */
#include "bench_common.h"

#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <string.h>

#include "capture/capture_build.h"
#include "capture/nev.h"
#include "format/file_format.h"

static int discard(void *ud, const void *p, size_t n) {
    (void)p;
    *(uint64_t *)ud += n;
    return 0;
}

/* The recorded workload: "mixed" (the default) is a frame-like loop of 3
 * nested scopes and a sibling, a span and a mark (11 events an iteration);
 * "scopes" is the nested scopes and the sibling only (8 events). */
static int scopes_only;

static void record(uint64_t events) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = 65536;
    d.chunk_count = (uint32_t)(events * 16 / 65536 * 110 / 100 + 64);
    if (ludus_capture_begin(&d)) {
        fprintf(stderr, "begin: %s\n", ludus_last_error_detail());
        exit(1);
    }
    ludus_thread_register("bench");
    uint32_t job = ludus_site_register(&(ludus_site_desc){"Job", "bench", __FILE__, __LINE__});
    for (uint64_t i = 0; i < events / (scopes_only ? 8 : 11); i++) {
        LUDUS_PROFILE_SCOPE(Outer, bench);
        {
            LUDUS_PROFILE_SCOPE(Middle, bench);
            LUDUS_PROFILE_SCOPE(Inner);
        }
        LUDUS_PROFILE_SCOPE(Sibling);
        if (scopes_only) continue;
        ludus_span_begin(job);
        ludus_span_end();
        LUDUS_PROFILE_MARK(Tick);
    }
    ludus_capture_end(NULL);
}

#define RUNS 3

static void report(const char *what, double *s, uint64_t events, uint64_t bytes) {
    double med = bench_median(s, RUNS);
    printf("%-36s %8.1f M events/s  %7.2f bytes/event  (%.3f s, %.1f MB/s)\n", what, events / med / 1e6,
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

/* The normalised stream of every thread (the readers' common cost). */
__attribute__((noinline)) static uint64_t stream(ludus_capture *c) {
    uint64_t n = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        ludus__nev_iter it;
        ludus__nev e;
        if (ludus__nev_init(&it, c, t) != 0) exit(1);
        while (ludus__nev_next(&it, &e)) n++;
        ludus__nev_free(&it);
    }
    return n;
}

int main(int argc, char **argv) {
    uint64_t millions = argc > 1 ? strtoull(argv[1], NULL, 10) : 10;
    const char *dir = argc > 2 ? argv[2] : "/tmp";
    const char *only = argc > 3 ? argv[3] : NULL; /* json | pftrace | stream: that alone, once (callgrind) */
    scopes_only = argc > 4 && !strcmp(argv[4], "scopes");
    record(millions * 1000000);
    ludus_capture *live;
    if (ludus_capture_last(&live)) return 1;
    ludus_capture_summary s;
    ludus_capture_get_summary(live, &s);
    uint64_t ev = s.events;
    if (only && !strcmp(only, "stream")) {
        printf("stream: %llu events, %llu normalised\n", (unsigned long long)ev, (unsigned long long)stream(live));
        ludus_capture_release(live);
        return 0;
    }
    if (only && strcmp(only, "all") != 0) {
        uint64_t bytes = 0;
        int fmt = !strcmp(only, "json") ? LUDUS_FORMAT_JSON : LUDUS_FORMAT_PFTRACE;
        if (ludus_capture_write(live, fmt, 0, discard, &bytes)) return 1;
        printf("%s: %llu events, %llu bytes\n", only, (unsigned long long)ev, (unsigned long long)bytes);
        ludus_capture_release(live);
        return 0;
    }
    printf("capture: %llu events, %llu dropped, %.1f MB of pool\n", (unsigned long long)ev,
           (unsigned long long)s.dropped, s.bytes_used / 1e6);
    char raw[512], compact[512], out[512];
    snprintf(raw, sizeof raw, "%s/bench_export_raw.ludus", dir);
    snprintf(compact, sizeof compact, "%s/bench_export_compact.ludus", dir);
    snprintf(out, sizeof out, "%s/bench_export_out", dir);
    double t[RUNS];
    uint64_t bytes = 0;

    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        if (ludus_capture_save(live, LUDUS_FORMAT_LUDUS, 0, compact)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("native save (compact, file)", t, ev, file_size(compact));
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        if (ludus_capture_save(live, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_RAW, raw)) return 1;
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("native save (raw, file)", t, ev, file_size(raw));

    const char *paths[2] = {compact, raw};
    const char *names[2][2] = {{"open compact (checksums)", "open compact + normalised stream"},
                               {"open raw (checksums)", "open raw + normalised stream"}};
    for (int k = 0; k < 2; k++)
        for (int mode = 0; mode < 2; mode++) {
            for (int r = 0; r < RUNS; r++) {
                int64_t t0 = bench_now_ns();
                ludus_capture *c;
                if (ludus_capture_open(paths[k], &c)) return 1;
                if (mode && stream(c) == 0) return 1;
                ludus_capture_release(c);
                t[r] = (bench_now_ns() - t0) / 1e9;
            }
            report(names[k][mode], t, ev, file_size(paths[k]));
        }
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        stream(live);
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    report("normalised stream (in memory)", t, ev, 0);

    static const struct {
        int fmt;
        const char *name, *file_name;
    } ex[2] = {{LUDUS_FORMAT_JSON, "JSON export (discarding writer)", "JSON export (file)"},
               {LUDUS_FORMAT_PFTRACE, "protobuf export (discarding writer)", "protobuf export (file)"}};
    uint64_t size[2];
    for (int k = 0; k < 2; k++) {
        for (int r = 0; r < RUNS; r++) {
            bytes = 0;
            int64_t t0 = bench_now_ns();
            if (ludus_capture_write(live, ex[k].fmt, 0, discard, &bytes)) return 1;
            t[r] = (bench_now_ns() - t0) / 1e9;
        }
        size[k] = bytes;
        report(ex[k].name, t, ev, bytes);
        for (int r = 0; r < RUNS; r++) {
            int64_t t0 = bench_now_ns();
            if (ludus_capture_save(live, ex[k].fmt, 0, out)) return 1;
            t[r] = (bench_now_ns() - t0) / 1e9;
        }
        report(ex[k].file_name, t, ev, file_size(out));
    }
    printf("protobuf / JSON size: 1/%.2f\n", (double)size[0] / (double)size[1]);

    /* The checksum every block and record of a .ludus file carries. */
    size_t cb = (size_t)64 << 20;
    unsigned char *buf = malloc(cb);
    if (!buf) return 1;
    for (size_t i = 0; i < cb; i++) buf[i] = (unsigned char)(i * 131u);
    uint32_t crc = 0;
    for (int r = 0; r < RUNS; r++) {
        int64_t t0 = bench_now_ns();
        crc = ludus__crc32c(crc, buf, cb);
        t[r] = (bench_now_ns() - t0) / 1e9;
    }
    printf("CRC-32C: %.2f GB/s (%.3f ns per 16-byte event; checksum %08x)\n", cb / bench_median(t, RUNS) / 1e9,
           bench_median(t, RUNS) * 1e9 / (double)(cb / 16), crc);
    free(buf);
    ludus_capture_release(live);
    remove(raw);
    remove(compact);
    remove(out);
    return 0;
}
