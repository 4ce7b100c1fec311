/* The frame thread's CPU time at each frame mark (the FRAME_CPU extension,
 * docs/format.md): recorded with the mark, read back per frame by the
 * analysis from the capture and from its .ludus file alike, left out of the
 * JSON and Perfetto exports (which still parse), and counted as part of the
 * mark, not as an event. Frames that spin until the thread's own clock has
 * advanced 10 ms and frames that sleep 20 ms: what each frame reads does not
 * depend on how busy the machine is. */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/profiling.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

static int64_t thread_cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Frames 1..4 spin (10 ms of this thread's CPU each), 5..8 sleep 20 ms. */
static void record(void) {
    ludus_capture_desc d = lt_small_desc(64);
    lt_begin(&d);
    LUDUS_PROFILE_FRAME();
    for (int f = 1; f <= 8; f++) {
        if (f <= 4) {
            LUDUS_PROFILE_SCOPE(Spin);
            int64_t until = thread_cpu_ns() + 10000000;
            while (thread_cpu_ns() < until) {
            }
        } else {
            LUDUS_PROFILE_SCOPE(Sleep);
            struct timespec ts = {0, 20000000};
            while (nanosleep(&ts, &ts) != 0) {
            }
        }
        LUDUS_PROFILE_FRAME();
    }
    lt_end();
}

static void check_frames(ludus_analysis *a, int64_t cpu_out[9]) {
    lt_check_u64("frames (the lead-in, 8 frames, the tail)", 10, ludus_analysis_frame_count(a));
    for (uint64_t f = 1; f <= 8; f++) {
        ludus_frame_info fi;
        lt_check_i64(lt_what("ludus_analysis_frame of frame %llu", (unsigned long long)f), 0,
                     ludus_analysis_frame(a, f, &fi));
        int64_t wall = fi.end_ns - fi.begin_ns;
        cpu_out[f] = fi.cpu_ns;
        if (f <= 4) {
            /* the spin's own clock: at least 10 ms */
            lt_check(lt_what("frame %llu (a spin): CPU %lld ns, at least 10 ms", (unsigned long long)f,
                             (long long)fi.cpu_ns),
                     fi.cpu_ns >= 10000000);
            /* qemu-user's thread clock counts its translation too, against a
             * counter it emulates: no bound against the wall there */
            const char *emu = getenv("LUDUS_TEST_EMULATOR");
            if (!emu || !*emu)
                lt_check(lt_what("frame %llu (a spin): CPU %lld ns within its wall %lld ns + 1 ms",
                                 (unsigned long long)f, (long long)fi.cpu_ns, (long long)wall),
                         fi.cpu_ns <= wall + 1000000);
        } else {
            lt_check(
                lt_what("frame %llu (a sleep): wall %lld ns, at least 20 ms", (unsigned long long)f, (long long)wall),
                wall >= 20000000);
            /* asleep: little CPU */
            lt_check(lt_what("frame %llu (a sleep): CPU %lld ns, under half its wall %lld ns", (unsigned long long)f,
                             (long long)fi.cpu_ns, (long long)wall),
                     fi.cpu_ns >= 0 && fi.cpu_ns < wall / 2);
        }
    }
    ludus_frame_info fi;
    lt_check_i64("ludus_analysis_frame of the lead-in", 0, ludus_analysis_frame(a, 0, &fi));
    lt_check_i64("the lead-in's CPU time (none of its own)", -1, fi.cpu_ns);
    ludus_analysis_summary s;
    ludus_analysis_get_summary(a, &s);
    lt_check_u64("frames with a CPU time in the summary", 8, s.frame_cpu.count);
}

static void test_frame_cpu_recorded(void **state) {
    (void)state;
    record();
    ludus_capture_summary cs = lt_summary();
    lt_check_u64("unknown events", 0, cs.unknown_events);
    ludus_analysis *a = NULL;
    assert_int_equal(lt_analyze_last(NULL, &a), 0);
    int64_t live[9], file[9];
    check_frames(a, live);
    ludus_analysis_destroy(a);
    /* a mark and its CPU time count as one event: 9 marks, 8 scopes (16 events) */
    ludus_thread_summary ts;
    assert_int_equal(lt_last_thread(0, &ts), 0);
    lt_check_u64("events (9 marks, 8 scopes)", 9 + 16, cs.events);
    /* the .ludus file holds the same */
    char dir[256], path[512];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "ludus-frame-cpu"), 0);
    snprintf(path, sizeof path, "%s/cpu.ludus", dir);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_LUDUS, 0, path), 0);
    ludus_capture *c = NULL;
    assert_int_equal(ludus_capture_open(path, &c), 0);
    assert_int_equal(ludus_analysis_create(c, NULL, &a), 0);
    check_frames(a, file);
    for (int f = 1; f <= 8; f++) lt_check_i64(lt_what("frame %d's CPU time read from the file", f), live[f], file[f]);
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    /* the exports leave it out and still parse */
    lt_trace t;
    lt_trace_load(&t);
    lt_check_u64("Spin slices in the JSON export", 4, lt_count(&t, 'B', "Spin"));
    lt_trace_free(&t);
    snprintf(path, sizeof path, "%s/cpu.pftrace", dir);
    assert_int_equal(lt_save_last(LUDUS_FORMAT_PFTRACE, 0, path), 0);
    lt_remove_dir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_frame_cpu_recorded, lt_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
