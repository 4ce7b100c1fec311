/* The analysis's memory per frame (issue 38: tools whose memory does not
 * grow with the frames). A synthetic engine built event by event (a frame
 * thread with 8 scopes a frame nested 3 deep, one site on two paths, a job
 * site on two workers, a hitch every 250 frames) is analysed at N and 4N
 * frames; the heap's peak during ludus_analysis (the process's malloc
 * replaced by a counting one over glibc's) grows by at most
 * MAX_BYTES_PER_FRAME a frame. Instructions and time play no part.
 * Other C libraries and the sanitizers' trees (their own malloc) skip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cmocka.h>

#include "../unit/test_check.h" /* assert_int_equal says what it compared */

#define SYN_EVENTS (1u << 19) /* 24,000 frames */
#include "synth.h"

#define SYN_STR_(x) #x
#define SYN_STR(x) SYN_STR_(x)

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define LUDUS_TEST_OWN_MALLOC 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define LUDUS_TEST_OWN_MALLOC 1
#endif

/* The bound: the cells of the frame's 10 paths, of 1 site on two paths and
 * of 2 (thread, site) runs of a site on two threads (packed runs, a few
 * bytes each; the pass's own per-path cells until the runs are made), the
 * frame's marks and per-frame figures, each thread's busy time (packed).
 * Measured: 249 bytes a frame; 315 with busy time at 16 bytes a frame and
 * carried time at 24; 860 with 32-byte cells and the pass's 40-byte cells
 * in one array; 1,637 before the cells were stored once (40-byte cells in
 * three arrays, four arrays of 8 bytes a cell at the end, the pass's cells
 * grown by doubling). */
#define MAX_BYTES_PER_FRAME 350
/* With a window of the last WINDOW_FRAMES frames, a frame outside it costs
 * its two marks (the begin and the frame thread's CPU time, 16 bytes; the
 * arrays grow by doubling, so up to twice that while they grow): nothing of
 * its per-frame figures is kept. Measured: 16 bytes a frame; 167 before
 * (the unlogged and carried time, each thread's busy time and the counter
 * snapshots of every frame). */
#define MAX_BYTES_PER_FRAME_OUTSIDE_WINDOW 48
#define WINDOW_FRAMES 100

static int64_t live, peak; /* the heap's bytes (counted where COUNTING) */

#if defined(__GLIBC__) && !defined(LUDUS_TEST_OWN_MALLOC)
#include <malloc.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static void *counted(void *p) {
    if (p) {
        live += (int64_t)malloc_usable_size(p);
        if (live > peak) peak = live;
    }
    return p;
}
void *malloc(size_t n) {
    return counted(__libc_malloc(n));
}
void *calloc(size_t n, size_t size) {
    return counted(__libc_calloc(n, size));
}
void *realloc(void *p, size_t n) {
    int64_t old = p ? (int64_t)malloc_usable_size(p) : 0;
    void *q = __libc_realloc(p, n);
    if (q || n == 0) live -= old;
    return counted(q);
}
void free(void *p) {
    if (p) live -= (int64_t)malloc_usable_size(p);
    __libc_free(p);
}
void *memalign(size_t align, size_t n) {
    return counted(__libc_memalign(align, n));
}
void *aligned_alloc(size_t align, size_t n) {
    return counted(__libc_memalign(align, n));
}
int posix_memalign(void **out, size_t align, size_t n) {
    void *p = counted(__libc_memalign(align, n));
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}
#define COUNTING 1
#else
#define COUNTING 0
#endif

SITE(S_FRAME, "Frame");
SITE(S_UPDATE, "Update");
SITE(S_PHYSICS, "Physics");
SITE(S_SOLVE, "Solve");
SITE(S_CULL, "Cull");
SITE(S_RENDER, "Render");
SITE(S_DRAW, "Draw");
SITE(S_UI, "Ui");
SITE(S_JOB, "Job");

#define FRAME_NS 1000u
static uint32_t hitch_every = 250; /* frame f is a hitch when f % hitch_every == hitch_every - 1 */

/* frames frames of the synthetic engine. */
static syn *engine(uint32_t frames) {
    syn *s = syn_new(3, (int64_t)(frames + 2) * FRAME_NS * 2);
    uint64_t t = 0;
    syn_frame(s, 0, t);
    for (uint32_t f = 0; f < frames; f++) {
        uint64_t len = f % hitch_every == hitch_every - 1 ? 3 * FRAME_NS : FRAME_NS, u = len / 20;
        syn_b(s, 0, t + u, &S_FRAME);
        syn_b(s, 0, t + 2 * u, &S_UPDATE);
        syn_b(s, 0, t + 3 * u, &S_PHYSICS);
        syn_scope(s, 0, t + 4 * u, t + 6 * u, &S_SOLVE);
        syn_e(s, 0, t + 7 * u);
        syn_scope(s, 0, t + 8 * u, t + 9 * u, &S_CULL); /* Cull under Update and under Render */
        syn_e(s, 0, t + 10 * u);
        syn_b(s, 0, t + 11 * u, &S_RENDER);
        syn_scope(s, 0, t + 12 * u, t + 13 * u, &S_CULL);
        syn_scope(s, 0, t + 14 * u, t + 15 * u, &S_DRAW);
        syn_scope(s, 0, t + 16 * u, t + 17 * u, &S_UI);
        syn_e(s, 0, t + 18 * u);
        syn_e(s, 0, t + 19 * u);
        syn_scope(s, 1, t + 3 * u, t + 9 * u, &S_JOB); /* one job site on two workers */
        syn_scope(s, 2, t + 4 * u, t + 8 * u, &S_JOB);
        t += len;
        syn_frame(s, 0, t);
    }
    return s;
}

/* The heap's peak during the analysis of frames frames, above what the
 * capture holds. */
static int64_t analysis_peak(uint32_t frames, const ludus_analysis_desc *d) {
    syn *s = engine(frames);
    assert_true(s->run[0].n < SYN_EVENTS);
    peak = live;
    int64_t before = live;
    ludus_analysis *a = syn_analyze(s, d);
    assert_non_null(a);
    int64_t p = peak - before;
    ludus_analysis_summary sum;
    ludus_analysis_get_summary(a, &sum);
    assert_int_equal(sum.frames_complete, frames);
    uint64_t in_window = d ? d->last_frames : frames;
    assert_int_equal(sum.frames_in_window, in_window);
    uint64_t hitches = 0;
    for (uint64_t f = frames - in_window; f < frames; f++) hitches += f % hitch_every == hitch_every - 1;
    assert_int_equal(sum.hitches, hitches);
    ludus_analysis_destroy(a);
    syn_free(s);
    return p;
}

static void test_memory_per_frame(void **state) {
    (void)state;
    if (!COUNTING) skip();
    const uint32_t n = 1500;
    int64_t p1 = analysis_peak(n, NULL), p4 = analysis_peak(4 * n, NULL);
    double per_frame = (double)(p4 - p1) / (3.0 * n);
    printf("analysis peak heap: %lld bytes at %u frames, %lld at %u: %.0f bytes a frame (bound %d)\n", (long long)p1, n,
           (long long)p4, 4 * n, per_frame, MAX_BYTES_PER_FRAME);
    assert_true(per_frame > 0);
    assert_true(per_frame <= MAX_BYTES_PER_FRAME);
}

/* A hitch every 4th frame: thousands of hitches, each explained from the
 * cells of its frame. Those cells are gathered for a chunk of hitches at a
 * time, so they do not grow with the hitches: what a hitch frame costs is its
 * ludus_hitch and what any frame costs. Measured: 177 bytes a frame; 368
 * when every hitch frame's cells were gathered at once (with a sorted copy
 * of them). */
#define MAX_BYTES_PER_FRAME_DENSE_HITCHES 260
static void test_memory_dense_hitches(void **state) {
    (void)state;
    if (!COUNTING) skip();
    hitch_every = 4;
    const uint32_t n = 6000; /* 1,500 hitches, then 6,000: more than a chunk of them */
    int64_t p1 = analysis_peak(n, NULL), p4 = analysis_peak(4 * n, NULL);
    hitch_every = 250;
    double per_frame = (double)(p4 - p1) / (3.0 * n);
    printf("a hitch every 4 frames: analysis peak heap %lld bytes at %u frames, %lld at %u: %.0f bytes a frame "
           "(bound %d)\n",
           (long long)p1, n, (long long)p4, 4 * n, per_frame, MAX_BYTES_PER_FRAME_DENSE_HITCHES);
    assert_true(per_frame > 0);
    assert_true(per_frame <= MAX_BYTES_PER_FRAME_DENSE_HITCHES);
}

/* report --window last:N: memory that follows the window, not the capture. */
static void test_window_memory_per_frame(void **state) {
    (void)state;
    if (!COUNTING) skip();
    ludus_analysis_desc d = {0};
    assert_int_equal(ludus_window_parse("last:" SYN_STR(WINDOW_FRAMES), &d), 0);
    const uint32_t n = 1500;
    int64_t p1 = analysis_peak(n, &d), p4 = analysis_peak(4 * n, &d);
    double per_frame = (double)(p4 - p1) / (3.0 * n);
    printf("window last:%d: analysis peak heap %lld bytes at %u frames, %lld at %u: %.0f bytes a frame of the capture "
           "(bound %d)\n",
           WINDOW_FRAMES, (long long)p1, n, (long long)p4, 4 * n, per_frame, MAX_BYTES_PER_FRAME_OUTSIDE_WINDOW);
    assert_true(per_frame > 0);
    assert_true(per_frame <= MAX_BYTES_PER_FRAME_OUTSIDE_WINDOW);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_per_frame),
        cmocka_unit_test(test_window_memory_per_frame),
        cmocka_unit_test(test_memory_dense_hitches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
