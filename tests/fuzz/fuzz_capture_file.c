/* libFuzzer target for the capture file reader, through the public API:
 * open the input from memory as a .ludus file, then stream every thread
 * through the JSON and protobuf exporters (into a discarding writer), a
 * re-save, the analysis, and a cut. Any input must end in success or a clean
 * error: no crash, no hang, no unbounded allocation. Built with
 * FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION the reader skips its checksums,
 * so mutations reach the parsers behind them. Also built without libFuzzer
 * by replay_main.c. */
#include <ludus/analysis.h>
#include <ludus/capture_file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int discard(void *ud, const void *p, size_t n) {
    (void)p;
    *(size_t *)ud += n;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ludus_capture *c;
    if (ludus_capture_open_memory(data, size, &c) != 0) return 0;
    ludus_capture_info info;
    ludus_capture_get_info(c, &info);
    size_t bytes = 0;
    ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, discard, &bytes);
    ludus_capture_write(c, LUDUS_FORMAT_PFTRACE, 0, discard, &bytes);
    ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, discard, &bytes);
    ludus_analysis *a = NULL;
    if (ludus_analysis_create(c, NULL, &a) == 0) {
        ludus_analysis_report(a, NULL, LUDUS_REPORT_TEXT, NULL, discard, &bytes);
        ludus_analysis_destroy(a);
    }
    uint32_t keep[2] = {0, 2};
    ludus_cut_desc cut = {1, 1000, 1000000, info.threads > 2 ? keep : NULL, info.threads > 2 ? 2u : 0u};
    ludus_capture *v;
    if (ludus_capture_cut(c, &cut, &v) == 0) {
        ludus_capture_write(v, LUDUS_FORMAT_JSON, 0, discard, &bytes);
        ludus_capture_release(v);
    }
    ludus_capture_release(c);
    return 0;
}
