/* What Tracy needs nested and the macros do not promise nested (make
 * test-tracy runs it under tracy-capture; edge_expect.txt lists what Tracy
 * must receive): a span closed out of order, an end with nothing open, a
 * span left open when its enclosing scope ends, scopes skipped by longjmp,
 * run-time names, a fiber, messages, log text, scope annotations (a zone's
 * text), a sampled counter and GPU samples (a calibrated context: its ticks are CPU nanoseconds). Tracy
 * stops a capture at the first zone that ends out of order; the backend's
 * stack must keep every one of these nested, and lose no zone. */
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#include <setjmp.h>

static jmp_buf env;

static void deep(void) {
    LUDUS_PROFILE_SCOPE(Skipped); /* never ends: longjmp leaves it */
    longjmp(env, 1);
}

/* setjmp in a function without scopes (docs/instrument.md, "Non-local exits"). */
static void protected_call(void) {
    ludus_unwind_point up = ludus_unwind_here();
    if (setjmp(env) == 0)
        deep();
    else
        ludus_unwound_to(up);
}

int main(void) {
    ludus_thread_register("Edge");
    uint32_t a = ludus_site_intern("SpanA"), b = ludus_site_intern("SpanB");
    ludus_site_desc cd = {"Edge counter", NULL, NULL, 0};
    uint32_t counter = ludus_site_register(&cd);
    ludus_gpu_context_desc gd = {"Edge GPU", NULL, LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 0};
    ludus_gpu_context *gpu = NULL;
    if (ludus_gpu_context_create(&gd, &gpu)) return 1;
    int64_t t0 = ludus_gpu_cpu_now_ns();
    if (ludus_gpu_calibrate(gpu, (uint64_t)t0, t0, 0)) return 1;
    for (int i = 0; i < 10; i++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Outer);
        ludus_span_begin(a);
        ludus_span_begin(b);
        ludus_span_end_site(a);                          /* out of order: SpanB's zone ends first */
        ludus_span_end();                                /* SpanB: already ended in Tracy, sends nothing */
        ludus_span_end();                                /* nothing open: sends nothing */
        LUDUS_PROFILE_ANNOTATE_TEXT(Asset, "edge.mesh"); /* Outer's text */
        {
            LUDUS_PROFILE_SCOPE(Inner);
            LUDUS_PROFILE_ANNOTATE(Batch, i % 2); /* Inner's text */
            LUDUS_PROFILE_BEGIN(LeftOpen);        /* ended with Inner */
        }
        LUDUS_PROFILE_END(); /* LeftOpen: already ended */
        protected_call();
        { LUDUS_PROFILE_SCOPE_DYN(i % 2 ? "DynOdd" : "DynEven"); }
        ludus_fiber_enter("Fiber 1");
        { LUDUS_PROFILE_SCOPE(OnFiber); }
        ludus_fiber_leave();
        LUDUS_PROFILE_MARK(EdgeMark);
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_ERROR, "edge error");
        LUDUS_PROFILE_LOG(LUDUS_LOG_INFO, "edge value %d", i % 2);
        ludus_counter_sample_f64(counter, i * 0.5);
        int64_t t = ludus_gpu_cpu_now_ns();
        ludus_gpu_sample smp = {
            i % 2 ? "Edge pass" : NULL, (uint64_t)i, (uint64_t)(t - 50000), (uint64_t)(t - 10000), 0.0, t - 60000, 0};
        if (ludus_gpu_submit(gpu, &smp, 1)) return 1;
    }
    ludus_gpu_context_destroy(gpu);
    return 0;
}
