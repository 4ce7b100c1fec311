/* libFuzzer target of the GPU records: the input is the payload of a .ludus
 * GPU record (contexts, pass names, samples, calibration points: gpu.c),
 * put in place of the one of a capture recorded at start-up, so the reader
 * gets past the header and tables and every input reaches the GPU decoder;
 * what opens is placed, exported (the .ludus opens again), reported with its
 * GPU statistics and their report, and its GPU tracks and spans listed. */
#include "fuzz_common.h"

#include "format/file_format.h"

static fuzz_buf base;          /* a .ludus with a GPU record */
static size_t gpu_at, gpu_len; /* that record's head, its payload's length */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    ludus_capture_desc d = {0};
    d.chunk_count = 16;
    d.chunk_bytes = 4096;
    if (ludus_begin_capture(&d) != 0) abort();
    ludus_gpu_context_desc gd = {"GPU", "dev", LUDUS_GPU_QUEUE_COMPUTE, 1.0, 48};
    ludus_gpu_context *g;
    if (ludus_gpu_context_create(&gd, &g) != 0) abort();
    int64_t t0 = ludus_gpu_cpu_now_ns();
    ludus_gpu_calibrate(g, 100, t0, 0);
    for (uint64_t f = 0; f < 3; f++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Cpu);
        ludus_gpu_sample s[2] = {{NULL, f, 1000 + f * 500, 1400 + f * 500, 0, t0 + 1, 0},
                                 {"Pass", f, 1010 + f * 500, 1200 + f * 500, 0, t0 + 1, 0}};
        ludus_gpu_submit(g, s, 2);
    }
    ludus_gpu_calibrate(g, 100 + 10000, t0 + 10000, 0);
    ludus_gpu_context_destroy(g);
    if (ludus_end_capture() != 0) abort();
    ludus_capture *c;
    if (ludus_capture_get_last(&c) != 0 || ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, fuzz_keep, &base) != 0)
        abort();
    ludus_capture_release(c);
    for (size_t at = ludus__nf_header_BYTES; at + ludus__nf_record_BYTES <= base.n;) {
        ludus__nf_record h;
        ludus__nf_record_get(&h, base.p + at);
        if (h.tag == LUDUS__NF_GPU) {
            gpu_at = at;
            gpu_len = (size_t)h.length;
            return 0;
        }
        at += ludus__nf_record_BYTES + (size_t)h.length;
    }
    abort(); /* no GPU record */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!base.n) LLVMFuzzerInitialize(NULL, NULL);
    size_t tail = gpu_at + ludus__nf_record_BYTES + gpu_len;
    size_t n = gpu_at + ludus__nf_record_BYTES + size + (base.n - tail);
    unsigned char *f = malloc(n ? n : 1);
    if (!f) return 0;
    memcpy(f, base.p, gpu_at);
    ludus__nf_record h;
    ludus__nf_record_get(&h, base.p + gpu_at);
    h.length = size; /* the checksums are not checked in a fuzzing build */
    ludus__nf_record_put(f + gpu_at, &h);
    memcpy(f + gpu_at + ludus__nf_record_BYTES, data, size);
    memcpy(f + gpu_at + ludus__nf_record_BYTES + size, base.p + tail, base.n - tail);
    ludus_capture *c;
    if (ludus_capture_open_memory(f, n, &c) == 0) {
        fuzz_exports(c);
        fuzz_reports(c, NULL);
        uint32_t nt = ludus_capture_gpu_track_count(c);
        for (uint32_t i = 0; i < nt && i < 64; i++) {
            ludus_gpu_track_info ti;
            ludus_capture_gpu_track(c, i, &ti);
        }
        uint64_t ns = ludus_capture_gpu_span_count(c);
        for (uint64_t i = 0; i < ns && i < 256; i++) {
            ludus_gpu_span sp;
            ludus_capture_gpu_span(c, i, &sp);
        }
        ludus_capture_release(c);
    }
    free(f);
    return 0;
}
