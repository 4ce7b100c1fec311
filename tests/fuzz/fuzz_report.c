/* libFuzzer target of the report paths: a .ludus file from memory through
 * the analysis under three windows (all; the last 3 frames with every
 * duration kept; a time range) and every report format (text, JSON, CSV,
 * HTML with the GPU chart), the GPU statistics and their report. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ludus_capture *c;
    if (ludus_capture_open_memory(data, size, &c) != 0) return 0;
    ludus_analysis_desc all = {0};
    fuzz_reports(c, &all);
    ludus_analysis_desc last = {0};
    last.window = LUDUS_WINDOW_LAST_FRAMES;
    last.last_frames = 3;
    last.exact = 1;
    fuzz_reports(c, &last);
    ludus_analysis_desc range = {0};
    range.window = LUDUS_WINDOW_RANGE;
    range.range_begin_ns = 1000;
    range.range_end_ns = 2000000;
    range.hitch_k = 1.5;
    fuzz_reports(c, &range);
    ludus_capture_release(c);
    return 0;
}
