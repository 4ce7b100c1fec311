/* No library thread wakes on a timer during a plain capture: a thread that
 * polls keeps a CPU out of idle and changes the program's own timing (a
 * real engine ran 30-60 % faster under capture when the prefault thread
 * woke every millisecond). The capture faults its pool in ahead of the
 * producers (LUDUS_PREFAULT_AHEAD, a library thread); while the program
 * records a little and sleeps, that thread must sleep too. Counted from
 * /proc: the context switches of every thread the capture started, over a
 * second and a half. A poll of even 100 ms would make
 * 15; the bound allows the thread's start and the one sleep it takes. */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <dirent.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_util.h"

#define MAX_TIDS 64

/* The thread ids of this process (at most MAX_TIDS); returns how many. */
static int list_threads(long *tids) {
    DIR *d = opendir("/proc/self/task");
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < MAX_TIDS) {
        long tid = strtol(e->d_name, NULL, 10);
        if (tid > 0) tids[n++] = tid;
    }
    closedir(d);
    return n;
}

static int listed(const long *tids, int n, long tid) {
    for (int i = 0; i < n; i++)
        if (tids[i] == tid) return 1;
    return 0;
}

/* The sum of voluntary and involuntary context switches of the threads of
 * this process that are not in `old` (a sanitizer's own threads, started
 * before the capture, are not the library's); *threads counts them. */
static long switches_of_new_threads(const long *old, int nold, int *threads) {
    long now[MAX_TIDS];
    int n = list_threads(now);
    long total = 0;
    *threads = 0;
    for (int i = 0; i < n; i++) {
        if (listed(old, nold, now[i])) continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%ld/status", now[i]);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* gone meanwhile */
        char line[256];
        while (fgets(line, sizeof line, f)) {
            long v;
            if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
                sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
                total += v;
        }
        fclose(f);
        ++*threads;
    }
    return total;
}

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static void test_prefault_thread_sleeps(void **state) {
    (void)state;
    const char *emu = getenv("LUDUS_TEST_EMULATOR");
    if (emu && *emu) { /* qemu-user's own threads would be counted */
        print_message("skipped under %s\n", emu);
        return;
    }
    long old[MAX_TIDS];
    int nold = list_threads(old);
    ludus_capture_desc d = {.chunk_count = 512,
                            .prefault = LUDUS_PREFAULT_AHEAD}; /* 32 MiB: more than it faults ahead */
    lt_begin(&d);
    for (int i = 0; i < 1000; i++) {
        LUDUS_PROFILE_SCOPE(Startup);
    }
    sleep_ms(100); /* the thread faults its first stretch in, then waits */
    int threads = 0;
    long before = switches_of_new_threads(old, nold, &threads);
    assert_true(threads >= 1);                 /* the prefault thread is there to be counted */
    for (int frame = 0; frame < 15; frame++) { /* a slow program: little to record */
        LUDUS_PROFILE_FRAME();
        { LUDUS_PROFILE_SCOPE(Frame); }
        sleep_ms(100);
    }
    long after = switches_of_new_threads(old, nold, &threads);
    lt_end();
    print_message("library threads: %d, context switches in 1.5 s: %ld\n", threads, after - before);
    assert_true(after - before <= 2);
}

/* 1 when thread tid blocks signal sig (its SigBlk line in /proc). */
static int blocks(long tid, int sig) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%ld/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return -1; /* gone meanwhile */
    unsigned long long mask = 0;
    int found = 0;
    while (!found && fgets(line, sizeof line, f)) found = sscanf(line, "SigBlk: %llx", &mask) == 1;
    fclose(f);
    return found && (mask >> (sig - 1)) & 1;
}

/* The library's threads take none of the program's signals
 * (docs/capture.md): the threads a streamed capture starts (its writer,
 * ludus__thread_start's, and the prefault thread while it runs) block
 * SIGINT, SIGTERM, SIGUSR1 and SIGPROF; the program's own thread blocks none
 * of them. */
static void test_library_threads_block_signals(void **state) {
    (void)state;
    const char *emu = getenv("LUDUS_TEST_EMULATOR");
    if (emu && *emu) { /* qemu-user's own threads would be listed */
        print_message("skipped under %s\n", emu);
        return;
    }
    char dir[512], path[600];
    assert_int_equal(lt_make_tmpdir(dir, sizeof dir, "quiet_threads"), 0);
    snprintf(path, sizeof path, "%s/s.ludus", dir);
    long old[MAX_TIDS];
    int nold = list_threads(old);
    ludus_capture_desc d = {.chunk_count = 64, .stream_path = path, .prefault = LUDUS_PREFAULT_AHEAD};
    lt_begin(&d);
    for (int i = 0; i < 200000; i++) {
        LUDUS_PROFILE_SCOPE(Work);
    }
    static const int sigs[] = {SIGINT, SIGTERM, SIGUSR1, SIGPROF};
    long now[MAX_TIDS];
    int n = list_threads(now), checked = 0;
    for (int i = 0; i < n; i++) {
        if (listed(old, nold, now[i])) continue;
        for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
            int b = blocks(now[i], sigs[k]);
            if (b < 0) break;
            lt_check(lt_what("library thread %ld blocks signal %d", now[i], sigs[k]), b == 1);
        }
        checked++;
    }
    lt_check(lt_what("the program's thread blocks SIGINT"), blocks((long)getpid(), SIGINT) == 0);
    lt_end();
    print_message("library threads checked: %d\n", checked);
    assert_true(checked >= 1); /* the stream writer at least */
    lt_remove_dir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prefault_thread_sleeps),
        cmocka_unit_test(test_library_threads_block_signals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
