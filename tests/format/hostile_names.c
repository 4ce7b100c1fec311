/* The hostile-name corpus pushed through every API that takes a name:
 * literal scope names, run-time (dyn) names, registered sites (name,
 * category, file), counters, gauges, plots, memory domains and notes, lock
 * names, async tracks and zones, fibers, scope annotations (keys and texts),
 * log messages (a NUL inside where the
 * API takes a length), GPU context and pass names, thread names and the
 * process name; names of 1 MB too. It writes the capture as .ludus, Chrome
 * JSON and .pftrace from the live capture; check_hostile.py runs every
 * output kind of ludus-trace over it and checks each is safe.
 *   hostile_names OUT_PREFIX [new]   ("new": a second run that differs, for the diff) */
#define _GNU_SOURCE
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/locks.h>
#include <ludus/profiling.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

/* Markup that would run if written raw into HTML (each sets window.__pwned,
 * which the Chromium check traps), terminal escape sequences, control
 * characters, invalid UTF-8, JavaScript line separators, bidirectional
 * overrides, spreadsheet formulas and printf conversions. */
static const char *const corpus[] = {
    "quote\" back\\slash 'single' amp&amp; &lt;",
    "</script><script>window.__pwned=1</script>",
    "<img src=x onerror=\"window.__pwned=2\">",
    "\"><svg onload=window.__pwned=3>",
    "<!--<script>window.__pwned=4//",
    "<script>window.__pwned=5</script>",
    "]]></title></style></textarea><iframe srcdoc=\"<script>parent.__pwned=6</script>\">",
    "javascript:window.__pwned=7",
    "${window.__pwned=8}`;window.__pwned=9;`",
    "esc \x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b"
    "2J 8-bit csi",
    "c1 \xc2\x9b"
    "2J \xc2\x85nel",
    "ctl \x01\x02\x08\x0b\x0c\x0e\x1f\x7f tab\tnl\ncr\r",
    "bad utf8 \xff\xfe \xc3 \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf",
    "sep \xe2\x80\xa8window.__pwned=10//\xe2\x80\xa9para",
    "bidi \xe2\x80\xae"
    "evil\xe2\x80\xac \xe2\x81\xa6x\xe2\x81\xa9",
    "=cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "+1+2",
    "-3-4",
    "%s%n%x%p%%",
};
#define NCORPUS (sizeof corpus / sizeof corpus[0])

static char *big;          /* a 1 MB name: markup and escapes all along */
static char big_text[200]; /* its first bytes: what outputs that cut it keep */

static void make_big(void) {
    static const char unit[] = "<b>big</b></script>\x1b[2J&\xff\xe2\x80\xa8";
    size_t n = 1 << 20, u = sizeof unit - 1;
    big = malloc(n + 1);
    for (size_t i = 0; i < n; i++) big[i] = unit[i % u];
    big[n] = 0;
    memcpy(big_text, big, sizeof big_text - 1);
}

/* A pass name that changes per run: the diff lists it as new or gone. */
static const char *side_name(int newer) {
    return newer ? "only new </script><script>window.__pwned=20</script>\x1b[5m"
                 : "only base <img src=x onerror=window.__pwned=21>\x1b[5m";
}

static void *worker(void *arg) {
    (void)arg;
    ludus_register_thread_for_trace("thread </script><script>window.__pwned=30</script>\x1b[41m\xff");
    for (int i = 0; i < 20; i++) {
        LUDUS_PROFILE_SCOPE("worker <script>window.__pwned=31</script>");
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: hostile_names OUT_PREFIX [new]\n");
        return 1;
    }
    const char *prefix = argv[1];
    int newer = argc > 2 && !strcmp(argv[2], "new");
    make_big();
#if defined(__linux__)
    prctl(PR_SET_NAME, "\x1b[7m<b>&'\"\xff", 0, 0, 0); /* the process name: 15 bytes at most */
#endif
    ludus_register_thread_for_trace("main \x1b[31m</script><!--\xff\xe2\x80\xae");

    uint32_t sites[NCORPUS + 2];
    for (size_t i = 0; i < NCORPUS; i++) {
        ludus_site_desc d = {corpus[i], corpus[(i + 1) % NCORPUS], corpus[(i + 2) % NCORPUS], (uint32_t)i + 1};
        sites[i] = ludus_register_site(&d);
    }
    ludus_site_desc db = {big, big, big, 7};
    sites[NCORPUS] = ludus_register_site(&db);
    sites[NCORPUS + 1] = ludus_intern_name(side_name(newer));
    for (size_t i = 0; i < NCORPUS + 2; i++)
        if (!sites[i]) {
            fprintf(stderr, "hostile_names: site %zu refused\n", i);
            return 1;
        }
    ludus_memory_domain doms[4];
    for (int i = 0; i < 3; i++) doms[i] = ludus_memory_domain_register(corpus[1 + i * 4]);
    doms[3] = ludus_memory_domain_register(big);
    ludus_memory_note_outside("outside </script><script>window.__pwned=40</script>\x1b[1m", 4096);
    pthread_mutex_t locks[NCORPUS];
    for (size_t i = 0; i < NCORPUS; i++) {
        pthread_mutex_init(&locks[i], NULL);
        ludus_lock_name(&locks[i], corpus[i]);
    }
    pthread_mutex_t big_lock = PTHREAD_MUTEX_INITIALIZER;
    ludus_lock_name(&big_lock, big);

    ludus_capture_desc desc = {0};
    desc.chunk_count = 1024; /* 64 MiB: nothing is dropped */
    if (ludus_begin_capture(&desc) != 0) {
        fprintf(stderr, "hostile_names: begin: %s\n", ludus_last_error_detail());
        return 1;
    }
    ludus_gpu_context_desc gd = {"gpu </script><script>window.__pwned=50</script>\x1b[3m\xff",
                                 "dev <img src=x onerror=window.__pwned=51>", LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 64};
    ludus_gpu_context *gpu = NULL;
    if (ludus_gpu_context_create(&gd, &gpu) != 0) {
        fprintf(stderr, "hostile_names: GPU context: %s\n", ludus_last_error_detail());
        return 1;
    }
    int64_t t0 = ludus_gpu_cpu_now_ns();
    ludus_gpu_calibrate(gpu, 1000, t0, 0);
    uint32_t tracks[NCORPUS];
    for (size_t i = 0; i < NCORPUS; i++) tracks[i] = ludus_async_track(corpus[i]);
    uint32_t big_track = ludus_async_track(big);

    pthread_t th;
    pthread_create(&th, NULL, worker, NULL);
    int frames = 40;
    for (int f = 0; f < frames; f++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE("frame </script><script>window.__pwned=60</script>");
        {
            LUDUS_PROFILE_SCOPE("<!--<script>window.__pwned=61//");
            LUDUS_PROFILE_SCOPE("esc \x1b[31m lit \xff\xfe \xe2\x80\xa8 \" \\ \t");
        }
        for (size_t i = 0; i < NCORPUS; i++) {
            LUDUS_PROFILE_SCOPE_DYN(corpus[i]);
            LUDUS_PROFILE_ANNOTATE_TEXT("key </script><script>window.__pwned=67</script>\x1b[2m", corpus[i]);
            LUDUS_PROFILE_ANNOTATE("num <img src=x onerror=window.__pwned=68>", (int)i);
        }
        LUDUS_PROFILE_ANNOTATE_TEXT("lone <!--<script>window.__pwned=69//", big); /* no scope open: an instant */
        { LUDUS_PROFILE_SCOPE_DYN(big); }
        for (size_t i = 0; i < NCORPUS + 2; i++) {
            int reps = i == NCORPUS + 1 ? 3 : 1;
            for (int r = 0; r < reps; r++) {
                ludus_begin_site(sites[i]);
                ludus_end_site();
            }
        }
        LUDUS_PROFILE_MARK("mark </script><script>window.__pwned=62</script>\x1b[4m");
        LUDUS_PROFILE_BEGIN("span <img src=x onerror=window.__pwned=63>\x1b[4m");
        LUDUS_PROFILE_END();
        LUDUS_PROFILE_MESSAGE(LUDUS_LOG_WARNING, "message </script><script>window.__pwned=64</script>\x1b[6m");
        LUDUS_PROFILE_ASYNC_BEGIN("track <!--<script>window.__pwned=65//", f, "zone \x1b[7m<b>");
        LUDUS_PROFILE_ASYNC_END("track <!--<script>window.__pwned=65//", f);
        LUDUS_PROFILE_FLOW_IN(LUDUS_PROFILE_FLOW_OUT("flow </script><script>window.__pwned=66</script>"));
        LUDUS_PROFILE_COUNT("count </script><script>window.__pwned=70</script>\x1b[1m", 3);
        LUDUS_PROFILE_GAUGE("gauge <img src=x onerror=window.__pwned=71>\x9b", f);
        LUDUS_PROFILE_PLOT("plot \"><svg onload=window.__pwned=72>\x1b]0;t\x07", (double)f);
        for (int i = 0; i < 4; i++) {
            ludus_memory_alloc(doms[i], 64);
            ludus_memory_free(doms[i], 32);
        }
        ludus_record_memory_gauges();
        for (size_t i = 0; i < NCORPUS; i++) ludus_lock_wait_end(ludus_lock_wait_begin(&locks[i], NULL));
        ludus_lock_wait_end(ludus_lock_wait_begin(&big_lock, NULL));
        for (size_t i = 0; i < NCORPUS; i++) {
            ludus_async_begin(tracks[i], (uint64_t)f, sites[i]);
            ludus_async_end(tracks[i], (uint64_t)f);
        }
        ludus_async_begin(big_track, 1, sites[NCORPUS]);
        ludus_async_end(big_track, 1);
        ludus_fiber_enter(corpus[f % NCORPUS]);
        { LUDUS_PROFILE_SCOPE("on fiber <script>window.__pwned=80</script>"); }
        ludus_fiber_leave();
        ludus_fiber_enter(big);
        ludus_fiber_leave();
        for (size_t i = 0; i < NCORPUS; i++) ludus_log(LUDUS_LOG_WARNING, "%s", corpus[i]);
        static const char nul_text[] = "nul\0inside </script><script>window.__pwned=90</script>\x1b[31m";
        ludus_log_text(LUDUS_LOG_ERROR, nul_text, sizeof nul_text - 1);
        ludus_log_text(LUDUS_LOG_ERROR, big, strlen(big));
        LUDUS_PROFILE_LOG(LUDUS_LOG_WARNING, "deferred %s %d", corpus[f % NCORPUS], f);
        /* GPU: the frame's own sample and one pass per name */
        ludus_gpu_sample smp[NCORPUS + 3];
        uint32_t n = 0;
        uint64_t base = 2000 + (uint64_t)f * 100000;
        smp[n++] = (ludus_gpu_sample){NULL, (uint64_t)f, base, base + 90000, 0, t0 + 1, 0};
        for (size_t i = 0; i < NCORPUS; i++)
            smp[n++] = (ludus_gpu_sample){corpus[i], (uint64_t)f, base + i * 10, base + i * 10 + 5, 0, t0 + 1, 0};
        smp[n++] = (ludus_gpu_sample){big, (uint64_t)f, base + 500, base + 900, 0, t0 + 1, 0};
        smp[n++] = (ludus_gpu_sample){side_name(newer), (uint64_t)f, base + 1000, base + 1100, 0, t0 + 1, 0};
        ludus_gpu_submit(gpu, smp, n);
    }
    LUDUS_PROFILE_FRAME();
    pthread_join(th, NULL);
    ludus_gpu_calibrate(gpu, 1000 + 4000000, t0 + 4000000, 0);
    ludus_gpu_context_destroy(gpu);
    if (ludus_end_capture() != 0) {
        fprintf(stderr, "hostile_names: end: %s\n", ludus_last_error_detail());
        return 1;
    }
    ludus_capture *c;
    if (ludus_capture_get_last(&c) != 0) return 1;
    static const struct {
        const char *ext;
        int format;
    } outs[] = {{".ludus", LUDUS_FORMAT_LUDUS}, {".json", LUDUS_FORMAT_JSON}, {".pftrace", LUDUS_FORMAT_PFTRACE}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s%s", prefix, outs[i].ext);
        if (ludus_capture_save(c, outs[i].format, 0, path) != 0) {
            fprintf(stderr, "hostile_names: %s: %s\n", path, ludus_last_error_detail());
            return 1;
        }
    }
    ludus_capture_release(c);
    /* what outputs that cut the big name keep of it, for the checker */
    char path[4096];
    snprintf(path, sizeof path, "%s.big", prefix);
    FILE *fp = fopen(path, "wb");
    if (!fp) return 1;
    fwrite(big_text, 1, strlen(big_text), fp);
    fclose(fp);
    free(big);
    return 0;
}
