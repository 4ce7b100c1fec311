/* Every desc of the manual (docs/capture.md, docs/instrument.md), as it
 * writes it: in C with designated initialisers, in C++ value-initialised
 * ({}) and then set; the README's own program is examples/minimal.c, built
 * by itself. Compiled as C11 and as C++11 and C++20 with -Wall -Wextra
 * -Wpedantic -Werror (the README once wrote "= {0}", which warns under
 * -Wextra in C++). Compile-only. */
#include <ludus/capture.h>
#include <ludus/gpu.h>
#include <ludus/rolling.h>

void desc_examples(double period_ns, uint64_t frame, uint64_t begin_ticks, uint64_t end_ticks, int64_t submit_ns,
                   uint64_t flow_id);
void desc_examples(double period_ns, uint64_t frame, uint64_t begin_ticks, uint64_t end_ticks, int64_t submit_ns,
                   uint64_t flow_id) {
#ifndef __cplusplus
    ludus_gpu_context_desc d = {.name = "Graphics",
                                .device = "My GPU",
                                .queue = LUDUS_GPU_QUEUE_GRAPHICS,
                                .tick_period_ns = period_ns,
                                .valid_bits = 64};
    ludus_gpu_sample s = {.pass = "Shadows",
                          .frame = frame,
                          .begin_ticks = begin_ticks,
                          .end_ticks = end_ticks,
                          .submit_ns = submit_ns,
                          .flow_id = flow_id};
    ludus_capture_desc desc = {.chunk_count = 1024};
    ludus_rolling_desc rd = {
        .window_ms = 4000,
        .hitch_factor = 2.5,
        .post_ms = 1000,
        .directory = "captures",
    };
    ludus_crash_desc cd = {.path = "crash-%p.ludus"};
    ludus_capture_desc pd = {.pool_file = "/var/tmp/app.pool"};
#else
    ludus_gpu_context_desc d{};
    d.name = "Graphics";
    d.device = "My GPU";
    d.queue = LUDUS_GPU_QUEUE_GRAPHICS;
    d.tick_period_ns = period_ns;
    d.valid_bits = 64;
    ludus_gpu_sample s{};
    s.pass = "Shadows";
    s.frame = frame;
    s.begin_ticks = begin_ticks;
    s.end_ticks = end_ticks;
    s.submit_ns = submit_ns;
    s.flow_id = flow_id;
    ludus_capture_desc desc{};
    desc.chunk_count = 1024;
    ludus_rolling_desc rd{};
    rd.window_ms = 4000;
    rd.hitch_factor = 2.5;
    rd.post_ms = 1000;
    rd.directory = "captures";
    ludus_crash_desc cd{};
    cd.path = "crash-%p.ludus";
    ludus_capture_desc pd{};
    pd.pool_file = "/var/tmp/app.pool";
#endif
    ludus_gpu_context *gfx = NULL;
    if (ludus_gpu_context_create(&d, &gfx) == 0) ludus_gpu_submit(gfx, &s, 1);
    if (ludus_capture_begin(&desc) == 0) ludus_capture_end(NULL);
    if (ludus_rolling_begin(NULL, &rd) == 0) ludus_rolling_end();
    ludus_crash_capture_begin(&cd);
    if (ludus_capture_begin(&pd) == 0) ludus_capture_end(NULL);
}
