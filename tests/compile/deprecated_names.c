/* Code written against the names 0.3 changed (docs/design.md, "The public
 * API's words"): it compiles, warns naming the new call, and links against
 * the libraries that export only the new names (deprecated_names.sh). */
#include <ludus/analysis.h>
#include <ludus/overlay.h>

int old_names(ludus_capture *c, ludus_analysis *a, ludus_diff *d, ludus_gpu_context *g);
int old_names(ludus_capture *c, ludus_analysis *a, ludus_diff *d, ludus_gpu_context *g) {
    ludus_thread_summary t;
    ludus_stream_result r;
    ludus_message_stats m;
    uint64_t first, last;
    int64_t b, e, v;
    int n = 0;
    n += (int)ludus_diff_count(d);
    n += ludus_diff_entry_at(d, 0) != NULL;
    n += ludus_diff_find(d, "Update", 0) != NULL;
    n += ludus_diff_counter_at(d, 0) != NULL;
    n += ludus_diff_lock_at(d, 0) != NULL;
    ludus_analysis_messages(a, &m);
    n += ludus_capture_get_thread(c, 0, &t);
    n += ludus_capture_stream_result(&r);
    ludus_gpu_count(g, LUDUS_GPU_LOST, 1);
    n += ludus_live_frames(&first, &last);
    n += ludus_live_frame_ns(first, &b, &e);
    n += ludus_live_value(last, "Draws", "per frame", &v);
    return n;
}

int main(void) {
    return 0;
}
