/* Writes the seed corpora of the fuzz targets (run_fuzz.sh):
 *   ludus/    small captures with every event kind (frame statistics of a
 *             counter, a gauge and a memory domain, log messages, async
 *             zones and a fiber included), raw, compact and zstd, one and two
 *             threads, GPU samples, scope annotations, the memory coverage manifest: the
 *             capture-file, report and export targets
 *   diff/     pairs of them (a 4-byte length of the first, then both)
 *   gpu/      GPU record payloads
 *   recover/  pool files left by a process that died with its capture running
 *   make_corpus CORPUS_DIR   (build it and run it to renew the seeds) */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "format/file_format.h"

static void *worker(void *arg) {
    (void)arg;
    ludus_thread_register("W");
    LUDUS_PROFILE_SCOPE(Job);
    LUDUS_PROFILE_MARK(M);
    return NULL;
}

static unsigned char *slurp(const char *path, size_t *n) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    unsigned char *b = malloc(len > 0 ? (size_t)len : 1);
    *n = b ? fread(b, 1, (size_t)len, fp) : 0;
    fclose(fp);
    return b;
}

static int spill(const char *path, const void *a, size_t na, const void *b, size_t nb) {
    FILE *fp = fopen(path, "wb");
    if (!fp) return 1;
    int bad = fwrite(a, 1, na, fp) != na || (nb && fwrite(b, 1, nb, fp) != nb);
    return fclose(fp) != 0 || bad;
}

static void gpu_samples(int variant) {
    ludus_gpu_context_desc gd = {variant ? "GPU copy" : "GPU", "dev", variant ? LUDUS_GPU_QUEUE_COPY : 0, 1.0,
                                 variant ? 32u : 64u};
    ludus_gpu_context *g;
    if (ludus_gpu_context_create(&gd, &g) != 0) return;
    int64_t t0 = ludus_gpu_cpu_now_ns();
    ludus_gpu_calibrate(g, 100, t0, 0);
    for (uint64_t f = 0; f < 3; f++) {
        ludus_gpu_sample s[3] = {{NULL, f, 1000 + f * 500, 1400 + f * 500, 0, t0 + 1, 0},
                                 {"Pass", f, 1010 + f * 500, 1200 + f * 500, 0, t0 + 1, 0},
                                 {"Blit", f, 1200 + f * 500, 1300 + f * 500, 0.5, t0 + 2, 0}};
        ludus_gpu_submit(g, s, variant ? 3 : 2);
    }
    if (variant) ludus_gpu_note_coverage(g, LUDUS_GPU_NOT_READY, 2);
    ludus_gpu_calibrate(g, 100 + 10000, t0 + 10000, 0);
    ludus_gpu_context_destroy(g);
}

/* The payload of a .ludus file's GPU record. */
static int gpu_payload(const char *ludus, const char *out) {
    size_t n;
    unsigned char *b = slurp(ludus, &n);
    if (!b) return 1;
    for (size_t at = ludus__nf_header_BYTES; at + ludus__nf_record_BYTES <= n;) {
        ludus__nf_record h;
        ludus__nf_record_get(&h, b + at);
        if (h.tag == LUDUS__NF_GPU) {
            int rc = spill(out, b + at + ludus__nf_record_BYTES, (size_t)h.length, NULL, 0);
            free(b);
            return rc;
        }
        at += ludus__nf_record_BYTES + (size_t)h.length;
    }
    free(b);
    return 1;
}

/* A pool file as the recover target takes it: its runs of non-zero 64-byte
 * lines as segments {u32 offset, u16 length, bytes}, and an empty segment
 * at the file's end. */
static int sparse(const char *pool, const char *out) {
    size_t n;
    unsigned char *b = slurp(pool, &n);
    FILE *fp = b ? fopen(out, "wb") : NULL;
    if (!fp) return 1;
    for (size_t i = 0; i <= n;) {
        size_t j = i;
        while (j < n) { /* a run: lines that hold a byte other than 0 */
            size_t e = j + 64 < n ? j + 64 : n, k = j;
            while (k < e && !b[k]) k++;
            if (k == e) break;
            j = e;
        }
        if (j > i || i == n) {
            for (size_t at = i; at < j || (i == n && at == n);) {
                size_t len = j - at > 65535 ? 65535 : j - at;
                unsigned char h[6] = {(unsigned char)at,         (unsigned char)(at >> 8), (unsigned char)(at >> 16),
                                      (unsigned char)(at >> 24), (unsigned char)len,       (unsigned char)(len >> 8)};
                fwrite(h, 1, 6, fp);
                fwrite(b + at, 1, len, fp);
                at += len;
                if (i == n) break;
            }
            if (i == n) break;
            i = j;
        } else {
            i += 64;
            if (i > n) i = n;
        }
    }
    free(b);
    return fclose(fp) != 0;
}

/* A pool file of a child that records and dies with its capture running. */
static int pool_seed(const char *out, int variant) {
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.chunk_count = 4;
        d.chunk_bytes = 4096;
        d.pool_file = out;
        if (ludus_capture_begin(&d) != 0) _exit(1);
        ludus_thread_register("Pool");
        for (int i = 0; i < 3 + variant * 5; i++) {
            LUDUS_PROFILE_SCOPE(Outer);
            LUDUS_PROFILE_SCOPE_DYN(variant ? "dyn b" : "dyn a");
            LUDUS_PROFILE_FRAME();
        }
        if (variant) usleep(60000); /* journal passes: the sites named */
        LUDUS_PROFILE_BEGIN(Open);
        _exit(0);
    }
    int st;
    return waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) return 1;
    char p[512];
    static const char *const dirs[] = {"ludus", "diff", "gpu", "recover"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", argv[1], dirs[i]);
        mkdir(p, 0777);
    }
    for (int variant = 0; variant < 3; variant++) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.chunk_count = 16;
        d.chunk_bytes = 4096;
        if (ludus_capture_begin(&d)) return 1;
        ludus_thread_register("Main");
        uint32_t ctr = ludus_site_intern("ctr");
        ludus_memory_domain mem = ludus_memory_domain_register("Mem");
        for (int i = 0; i < 2 + variant * 3; i++) {
            LUDUS_PROFILE_COUNT(Draws, i * 3 - 2); /* frame statistics (FRAME_STAT) at each frame */
            LUDUS_PROFILE_GAUGE(Level, -i);
            ludus_memory_alloc(mem, 100);
            LUDUS_PROFILE_PLOT(Plot, i * 0.25);
            LUDUS_PROFILE_SCOPE(Outer, cat);
            LUDUS_PROFILE_SCOPE(Inner);
            LUDUS_PROFILE_ANNOTATE(Id, i); /* scope annotations: a number, a text */
            LUDUS_PROFILE_ANNOTATE_TEXT(Asset, i % 2 ? "rock" : "tree");
            ludus_counter_sample(ctr, i);
            ludus_counter_sample_f64(ctr, i * 0.5);
            uint64_t id = LUDUS_PROFILE_FLOW_OUT(F);
            LUDUS_PROFILE_FLOW_IN(id);
            ludus_log(i % 4, "message %d%s", i, i == 1 ? " long enough to take a second text slot" : ""); /* MESSAGE */
            LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "a literal");
            LUDUS_PROFILE_LOG(LUDUS_LOG_ERROR, "deferred %d %.1f %s %*x", i, i * 0.5, "str", 4, (unsigned)i);
            LUDUS_PROFILE_ASYNC_BEGIN(Track, i, Zone); /* ASYNC */
            if (i > 0) LUDUS_PROFILE_ASYNC_END(Track, i - 1);
            ludus_fiber_enter("Fiber"); /* FIBER */
            { LUDUS_PROFILE_SCOPE(OnFiber); }
            ludus_fiber_leave();
            LUDUS_PROFILE_FRAME();
        }
        if (variant == 2) {
            pthread_t t;
            pthread_create(&t, NULL, worker, NULL);
            pthread_join(t, NULL);
        }
        if (variant == 1) { /* spans that cannot nest, and an unwound scope */
            uint32_t a = ludus_site_intern("span a"), b = ludus_site_intern("span b");
            ludus_span_begin(a);
            ludus_span_begin(b);
            ludus_span_end_site(a);
            ludus_span_end_site(b);
            ludus_unwind_point up = ludus_unwind_here();
            {
                LUDUS_PROFILE_SCOPE(Skipped);
                ludus_unwound_to(up);
            }
        }
        if (variant > 0) gpu_samples(variant - 1);
        LUDUS_PROFILE_BEGIN(Open);
        ludus_capture *c = NULL;
        if (ludus_capture_end(&c)) return 1;
        snprintf(p, sizeof p, "%s/ludus/seed%d-raw.ludus", argv[1], variant);
        if (ludus_capture_save(c, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_RAW, p)) return 1;
        snprintf(p, sizeof p, "%s/ludus/seed%d-zstd.ludus", argv[1], variant); /* compressed blocks (LUDUS_ZSTD) */
        if (ludus_capture_save(c, LUDUS_FORMAT_LUDUS, 0, p)) return 1;
        snprintf(p, sizeof p, "%s/ludus/seed%d-compact.ludus", argv[1], variant);
        if (ludus_capture_save(c, LUDUS_FORMAT_LUDUS, LUDUS_SAVE_UNCOMPRESSED, p)) return 1;
        ludus_capture_release(c);
        if (variant > 0) {
            char g[512];
            snprintf(g, sizeof g, "%s/gpu/seed%d.gpu", argv[1], variant);
            if (gpu_payload(p, g)) return 1;
        }
    }
    for (int a = 0; a < 3; a++) { /* diff pairs: each seed against the next */
        char pa[512], pb[512];
        snprintf(pa, sizeof pa, "%s/ludus/seed%d-compact.ludus", argv[1], a);
        snprintf(pb, sizeof pb, "%s/ludus/seed%d-%s.ludus", argv[1], (a + 1) % 3, a ? "compact" : "raw");
        size_t na, nb;
        unsigned char *ba = slurp(pa, &na), *bb = slurp(pb, &nb);
        if (!ba || !bb) return 1;
        unsigned char *pair = malloc(4 + na);
        pair[0] = (unsigned char)na, pair[1] = (unsigned char)(na >> 8), pair[2] = (unsigned char)(na >> 16),
        pair[3] = (unsigned char)(na >> 24);
        memcpy(pair + 4, ba, na);
        snprintf(p, sizeof p, "%s/diff/pair%d.bin", argv[1], a);
        if (spill(p, pair, 4 + na, bb, nb)) return 1;
        free(pair);
        free(ba);
        free(bb);
    }
    for (int v = 0; v < 2; v++) {
        char pool[512];
        snprintf(pool, sizeof pool, "%s/recover/pool%d.tmp", argv[1], v);
        snprintf(p, sizeof p, "%s/recover/pool%d.sparse", argv[1], v);
        unlink(pool);
        if (pool_seed(pool, v) || sparse(pool, p)) return 1;
        unlink(pool);
    }
    return 0;
}
