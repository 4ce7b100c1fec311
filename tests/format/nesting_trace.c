/* Traces for the JSON nesting check (trace_json.py) and the viewers:
 *   nesting_trace --ties OUT.json     a synthetic capture whose every time this program
 *                                     gives (tests/analysis/synth.h): the ties a clock makes
 *                                     by chance, made on purpose and the same in every run:
 *                                     touching siblings (of one name too), children ending
 *                                     with their parents, zero-length slices at a parent's
 *                                     begin, between siblings and at a parent's end, a
 *                                     200-deep nest whose ends all fall in one ns, at times
 *                                     from minutes to ten days into the capture
 *   nesting_trace --million OUT.json  a million events recorded by the recorder on four
 *                                     threads as fast as it goes (scopes three deep: the
 *                                     clock gives neighbours a few ns apart, and ties)
 * Both are exported as Chrome JSON by the library's exporter. */
#include <ludus/capture.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "synth.h"

SITE(s_frame, "Frame");
SITE(s_update, "Update");
SITE(s_render, "Render");
SITE(s_draw, "Draw");
SITE(s_zero_first, "ZeroFirst");
SITE(s_zero_between, "ZeroBetween");
SITE(s_zero_last, "ZeroLast");
SITE(s_deep, "Deep");
SITE(s_tick, "Tick");
SITE(s_zero_in_zero, "ZeroInZero");

#define MIN_NS (60ll * 1000000000ll)
#define DAY_NS (86400ll * 1000000000ll)

static int ties(const char *out) {
    syn *s = syn_new(2, 10 * DAY_NS + 10000000);
    s->c.pid = 4242;
    snprintf(s->c.process_name, sizeof s->c.process_name, "nesting_trace");
    snprintf(s->th[0].name, sizeof s->th[0].name, "Ties");
    snprintf(s->th[1].name, sizeof s->th[1].name, "Deep");
    /* 300 touching frames from 83 minutes on: Update, then Render ending
     * with the frame, four touching Draws in it, the last ending with it;
     * zero-length slices at the frame's begin, between Update and Render,
     * and at the frame's end (where the next frame begins) */
    int64_t t = 83 * MIN_NS + 7;
    for (int f = 0; f < 300; f++, t += 10000) {
        syn_b(s, 0, (uint64_t)t, &s_frame);
        syn_scope(s, 0, (uint64_t)t, (uint64_t)t, &s_zero_first);
        syn_scope(s, 0, (uint64_t)t, (uint64_t)t + 4000, &s_update);
        syn_scope(s, 0, (uint64_t)t + 4000, (uint64_t)t + 4000, &s_zero_between);
        syn_b(s, 0, (uint64_t)t + 4000, &s_render);
        for (int k = 0; k < 4; k++)
            syn_scope(s, 0, (uint64_t)(t + 4000 + k * 1500), (uint64_t)(t + 5500 + k * 1500), &s_draw);
        syn_b(s, 0, (uint64_t)t + 10000, &s_zero_last); /* zero-length, then a zero-length child */
        syn_scope(s, 0, (uint64_t)t + 10000, (uint64_t)t + 10000, &s_zero_in_zero);
        syn_e(s, 0, (uint64_t)t + 10000);
        syn_e(s, 0, (uint64_t)t + 10000); /* Render */
        syn_e(s, 0, (uint64_t)t + 10000); /* Frame */
        syn_frame(s, 0, (uint64_t)t + 10000);
    }
    /* 2000 touching Ticks (one name, no args: speedscope's merge case) at
     * ten days, each 1 ns to 4 ns long */
    t = 10 * DAY_NS - 100000;
    for (int k = 0; k < 2000; k++) {
        int64_t d = 1 + k % 4;
        syn_scope(s, 0, (uint64_t)t, (uint64_t)(t + d), &s_tick);
        t += d;
    }
    /* 200 levels begun a ns apart, every one ending in the same ns */
    t = 5 * DAY_NS + 3;
    for (int k = 0; k < 200; k++) syn_b(s, 1, (uint64_t)(t + k), &s_deep);
    for (int k = 0; k < 200; k++) syn_e(s, 1, (uint64_t)(t + 1000));
    int rc = ludus_capture_save(&s->c, LUDUS_FORMAT_JSON, 0, out);
    if (rc) fprintf(stderr, "nesting_trace: %s: %s\n", out, ludus_last_error_detail());
    syn_free(s);
    return rc ? 1 : 0;
}

static void *million_worker(void *arg) {
    int n = *(const int *)arg;
    char name[32];
    snprintf(name, sizeof name, "Worker %d", n);
    ludus_thread_register(name);
    for (int i = 0; i < 125000 / 3; i++) {
        LUDUS_PROFILE_SCOPE(Outer);
        {
            LUDUS_PROFILE_SCOPE(Middle);
            { LUDUS_PROFILE_SCOPE(Inner); }
        }
    }
    ludus_thread_unregister();
    return NULL;
}

static int million(const char *out) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_count = 1024; /* 64 MiB: nothing dropped */
    if (ludus_capture_begin(&d) != 0) return 1;
    pthread_t th[4];
    int ids[4] = {1, 2, 3, 4};
    for (int i = 0; i < 4; i++) pthread_create(&th[i], NULL, million_worker, &ids[i]);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    ludus_capture_summary s;
    ludus_capture *c = NULL;
    if (ludus_capture_end(&c) != 0 || ludus_capture_get_summary(c, &s) != 0) return 1;
    if (s.dropped || s.events < 990000) {
        fprintf(stderr, "nesting_trace: %llu events, %llu dropped\n", (unsigned long long)s.events,
                (unsigned long long)s.dropped);
        ludus_capture_release(c);
        return 1;
    }
    int rc = ludus_capture_save(c, LUDUS_FORMAT_JSON, 0, out);
    ludus_capture_release(c);
    if (rc != 0) {
        fprintf(stderr, "nesting_trace: %s: %s\n", out, ludus_last_error_detail());
        return 1;
    }
    printf("nesting_trace: %llu events recorded and written to %s\n", (unsigned long long)s.events, out);
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "--ties")) return ties(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "--million")) return million(argv[2]);
    fprintf(stderr, "usage: nesting_trace --ties|--million OUT.json\n");
    return 2;
}
