/* Writes the seed corpus of the capture-file fuzzer: small captures with
 * every event kind (frame statistics of a counter, a gauge and a memory
 * domain, log messages, async zones and a fiber included), raw and compact, one and two threads, and the memory
 * coverage manifest.
 *   make_corpus OUT_DIR   (a ctest target: build it and run it to renew the seeds) */
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *worker(void *arg) {
    (void)arg;
    ludus_register_thread_for_trace("W");
    LUDUS_PROFILE_SCOPE(Job);
    LUDUS_PROFILE_MARK(M);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 2) return 1;
    char p[512];
    for (int variant = 0; variant < 3; variant++) {
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.chunk_count = 16;
        d.chunk_bytes = 4096;
        if (ludus_begin_capture(&d)) return 1;
        ludus_register_thread_for_trace("Main");
        uint32_t ctr = ludus_intern_name("ctr");
        ludus_memory_domain mem = ludus_memory_domain_register("Mem");
        for (int i = 0; i < 2 + variant * 3; i++) {
            LUDUS_PROFILE_COUNT(Draws, i * 3 - 2); /* frame statistics (FRAME_STAT) at each frame */
            LUDUS_PROFILE_GAUGE(Level, -i);
            ludus_memory_alloc(mem, 100);
            LUDUS_PROFILE_PLOT(Plot, i * 0.25);
            LUDUS_PROFILE_SCOPE(Outer, cat);
            LUDUS_PROFILE_SCOPE(Inner);
            ludus_sample_counter(ctr, i);
            ludus_sample_counter_f64(ctr, i * 0.5);
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
            uint32_t a = ludus_intern_name("span a"), b = ludus_intern_name("span b");
            ludus_begin_site(a);
            ludus_begin_site(b);
            ludus_end_site_id(a);
            ludus_end_site_id(b);
            ludus_unwind_point up = ludus_unwind_here();
            {
                LUDUS_PROFILE_SCOPE(Skipped);
                ludus_unwound_to(up);
            }
        }
        LUDUS_PROFILE_BEGIN(Open);
        if (ludus_end_capture()) return 1;
        snprintf(p, sizeof p, "%s/seed%d-raw.ludus", argv[1], variant);
        if (ludus_save_capture_ex(p, LUDUS_SAVE_RAW)) return 1;
        snprintf(p, sizeof p, "%s/seed%d-compact.ludus", argv[1], variant);
        if (ludus_save_capture(p)) return 1;
    }
    return 0;
}
