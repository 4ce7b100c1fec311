/* libFuzzer target of the exporters over a fuzzed capture: a .ludus file
 * from memory written as JSON, pftrace and .ludus (which must open again),
 * cut by time and by thread, and merged with itself (JSON, pftrace). */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ludus_capture *c;
    if (ludus_capture_open_memory(data, size, &c) != 0) return 0;
    fuzz_exports(c);
    ludus_capture_info info;
    ludus_capture_get_info(c, &info);
    for (uint32_t t = 0; t < info.threads && t < 8; t++) {
        ludus_thread_summary ts;
        ludus_capture_thread(c, t, &ts);
    }
    uint32_t keep[1] = {info.threads ? info.threads - 1 : 0};
    ludus_cut_desc cuts[2] = {{1, 0, 500000, NULL, 0}, {0, 0, 0, info.threads ? keep : NULL, info.threads ? 1u : 0u}};
    for (int i = 0; i < 2; i++) {
        ludus_capture *v;
        if (ludus_capture_cut(c, &cuts[i], &v) != 0) continue;
        fuzz_exports(v);
        ludus_capture_release(v);
    }
    size_t bytes = 0;
    ludus_capture *two[2] = {c, c};
    ludus_captures_write_merged(two, 2, LUDUS_FORMAT_JSON, fuzz_discard, &bytes);
    ludus_captures_write_merged(two, 2, LUDUS_FORMAT_PFTRACE, fuzz_discard, &bytes);
    ludus_capture_release(c);
    return 0;
}
