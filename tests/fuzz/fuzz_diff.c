/* libFuzzer target of the diff: the input is two .ludus files (a 4-byte
 * little-endian length of the first, then both), diffed one run a side and
 * as runs (BASE twice against NEW), every report of the diff (text, JSON,
 * CSV), its gates, and the HTML report with the diff. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 4) return 0;
    size_t na = (size_t)data[0] | (size_t)data[1] << 8 | (size_t)data[2] << 16 | (size_t)data[3] << 24;
    if (na > size - 4) return 0;
    ludus_capture *ca = NULL, *cb = NULL;
    ludus_analysis *a = NULL, *b = NULL;
    ludus_diff *d = NULL, *d2 = NULL;
    size_t bytes = 0;
    if (ludus_capture_open_memory(data + 4, na, &ca) != 0) goto done;
    if (ludus_capture_open_memory(data + 4 + na, size - 4 - na, &cb) != 0) goto done;
    if (ludus_analyze(ca, NULL, &a) != 0 || ludus_analyze(cb, NULL, &b) != 0) goto done;
    if (ludus_diff_create(a, b, NULL, &d) == 0) {
        ludus_diff_report(d, LUDUS_REPORT_TEXT, fuzz_discard, &bytes);
        ludus_diff_report(d, LUDUS_REPORT_JSON, fuzz_discard, &bytes);
        ludus_diff_report(d, LUDUS_REPORT_CSV, fuzz_discard, &bytes);
        ludus_analysis_report(b, d, LUDUS_REPORT_HTML, NULL, fuzz_discard, &bytes);
        ludus_gate gates[4];
        const char *text[4] = {"p90 > +5%", "calls < -10%", "counter Draws > +1%", "errors > +0%"};
        uint32_t ng = 0;
        for (int i = 0; i < 4; i++)
            if (ludus_gate_parse(text[i], &gates[ng]) == 0) ng++;
        ludus_diff_check_gates(d, gates, ng, fuzz_discard, &bytes);
    }
    const ludus_analysis *base[2] = {a, a}, *newer[1] = {b};
    ludus_diff_desc desc = {0};
    if (ludus_diff_create_runs(base, 2, newer, 1, &desc, &d2) == 0)
        ludus_diff_report(d2, LUDUS_REPORT_TEXT, fuzz_discard, &bytes);
done:
    ludus_diff_destroy(d2);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(b);
    ludus_analysis_destroy(a);
    ludus_capture_release(cb);
    ludus_capture_release(ca);
    return 0;
}
