/* Compiled out: work_fn with every macro, and every call of the
 * instrumentation API that does work at run time (sites, spans, flows,
 * samples, unwind points, log messages, async zones, fibers, memory domains,
 * GPU samples), at LUDUS_PROFILE_LEVEL 0 must compile to exactly the code of
 * work_fn without them (compiled_out.sh builds this file with -DWITH_MACROS=1
 * and =0 and compares). */
#include <ludus/gpu.h>
#include <ludus/profiling.h>

#if WITH_MACROS
#define M(...) __VA_ARGS__
#else
#define M(...)
#endif

struct job {
    int cost;
    uint64_t flow;
    ludus_zone zone;
};

static const char *const names[2] = {"even", "odd"};

int work_fn(const int *data, int n, struct job *j);
int work_fn(const int *data, int n, struct job *j) {
    M(LUDUS_PROFILE_FUNCTION();)
    int sum = 0;
    M(LUDUS_PROFILE_BEGIN(Span);)
    M(LUDUS_ZONE_BEGIN(zone, Zone);)
    M(LUDUS_ZONE_BEGIN_INTO(j->zone, JobZone, jobs);)
    for (int i = 0; i < n; i++) {
        M(LUDUS_ZONE_BEGIN(inner, "Inner zone", category);)
        M(LUDUS_ZONE_END(inner);)
        M(LUDUS_PROFILE_SCOPE(Loop, category);)
        M(LUDUS_PROFILE_SCOPE("Literal name");)
        M(LUDUS_PROFILE_SCOPE_DYN(names[i & 1]);)
        M(LUDUS_PROFILE_SCOPE_FINE(Fine);)
        M(LUDUS_PROFILE_SCOPE(A); LUDUS_PROFILE_SCOPE(B); LUDUS_PROFILE_SCOPE_DYN(names[i & 1]);) /* one line */
        sum += data[i];
        M(LUDUS_PROFILE_MARK(Mark);)
        M(LUDUS_PROFILE_COUNT(Draws, j->cost++);) /* not evaluated */
        M(LUDUS_PROFILE_GAUGE(Level, data[i] * 2);)
        M(LUDUS_PROFILE_PLOT(Plot, sum * 0.5);)
        M(LUDUS_PROFILE_MESSAGE(j->cost++, "message");)         /* not evaluated */
        M(LUDUS_PROFILE_LOG(j->cost++, "log %d", j->cost++);)   /* not evaluated */
        M(LUDUS_PROFILE_ASYNC_BEGIN(Loading, j->cost++, Zone);) /* not evaluated */
        M(LUDUS_PROFILE_ASYNC_END(Loading, j->cost++);)
        M(LUDUS_PROFILE_ANNOTATE(Cost, j->cost++);) /* not evaluated */
        M(LUDUS_PROFILE_ANNOTATE_TEXT(Name, names[j->cost++ & 1]);)
    }
    M(LUDUS_PROFILE_END();)
    M(LUDUS_ZONE_END(j->zone);)
    M(LUDUS_ZONE_END(zone);)
    M((void)LUDUS_PROFILE_FLOW_OUT(Dispatch);)
    M(LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT(Chained));)
    M(LUDUS_PROFILE_FLOW_IN(j->flow);) /* not even read */
    M(LUDUS_PROFILE_FRAME();)
    M({
        ludus_site_desc d = {"Job", "jobs", "file.c", 1};
        uint32_t site = ludus_site_register(&d) + ludus_site_intern("name") + ludus_async_track("Track");
        ludus_span_begin(site);
        ludus_span_end_site(site);
        ludus_span_end();
        ludus_flow_begin(site, j->flow | LUDUS_CALLER_FLOW_ID_BIT);
        ludus_flow_end(j->flow);
        ludus_counter_sample(site, sum);
        ludus_counter_sample_f64(site, sum * 0.5);
        ludus_unwind_point up = ludus_unwind_here();
        ludus_unwound_to(up);
        ludus_log(LUDUS_LOG_WARNING, "log %d", j->cost++); /* not evaluated */
        ludus_log_text(LUDUS_LOG_INFO, "text", 4);
        ludus_async_begin(site, 7u, site);
        ludus_async_end(site, 7u);
        ludus_fiber_enter("fiber");
        ludus_fiber_leave();
        ludus_memory_domain dom = ludus_memory_domain_register("Render");
        ludus_memory_alloc(dom, 4096u);
        ludus_memory_free(dom, 4096u);
        ludus_memory_baseline(dom, 1u, 1u);
        (void)ludus_memory_note_outside("stacks", 8u);
        (void)ludus_memory_sample();
        ludus_gpu_context *gpu = NULL;
        ludus_gpu_context_desc gd = {"Graphics", "GPU", LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 64};
        ludus_gpu_sample gs = {"Pass", 1u, 2u, 3u, 0.0, ludus_gpu_cpu_now_ns(), 0u};
        if (ludus_gpu_context_create(&gd, &gpu) == 0) {
            (void)ludus_gpu_calibrate(gpu, 1u, 2, 3);
            (void)ludus_gpu_submit(gpu, &gs, 1u);
            ludus_gpu_note_coverage(gpu, LUDUS_GPU_FRAMES, 1u);
            ludus_gpu_context_destroy(gpu);
        }
    })
    j->cost = sum;
    return sum;
}
