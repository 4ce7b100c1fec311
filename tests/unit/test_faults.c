/* Fault sweeps (SQLite's test_malloc): each operation runs with its n-th
 * allocation made to fail, for n = 1, 2, ... until a run finishes without
 * reaching n; then the same with its n-th file write, and with the n-th call
 * of the caller's writer failing. Every failure must come back as an error
 * (or be absorbed without changing the result), leak nothing (the ASan tree
 * runs LeakSanitizer at exit), never crash; and the operation must succeed
 * again at once, with the same result, without the fault. Operations:
 * capture (begin, record every kind of event, end), export (open a .ludus
 * from memory, JSON, pftrace and .ludus out), report (analysis, text, JSON,
 * CSV, HTML, the diff, the GPU statistics), recover (a pool file its
 * process left behind), save (to a file: whole or not at all). */
#define _GNU_SOURCE
#include <ludus/analysis.h>
#include <ludus/capture.h>
#include <ludus/capture_file.h>
#include <ludus/gpu.h>
#include <ludus/profiling.h>
#if defined(__has_include)
#if __has_include(<execinfo.h>) /* glibc's; musl has none */
#include <execinfo.h>
#define HAVE_BACKTRACE 1
#endif
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "platform/fault.h"
#include "test_util.h"

/* ---- outputs in memory ---- */

typedef struct out {
    char *p;
    size_t n, cap;
    uint64_t calls, fail_at; /* the caller's writer: the fail_at-th call fails (0: none) */
} out;

static int out_write(void *ud, const void *data, size_t n) {
    out *o = ud;
    if (o->fail_at && ++o->calls == o->fail_at) return -1;
    if (o->n + n > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 4096;
        while (cap < o->n + n) cap *= 2;
        char *p = realloc(o->p, cap);
        if (!p) return -1;
        o->p = p;
        o->cap = cap;
    }
    memcpy(o->p + o->n, data, n);
    o->n += n;
    return 0;
}

static void out_free(out *o) {
    free(o->p);
    memset(o, 0, sizeof *o);
}

static int same(const out *a, const out *b) {
    return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

/* An error the library defines: negative, with its own text. */
static int is_error(int rc) {
    return rc < 0 && strcmp(ludus_error_string(rc), ludus_error_string(-9999)) != 0;
}

/* ---- the sweep ---- */

/* Where a failure that changed a result was injected (resolve the
 * addresses with addr2line). Without <execinfo.h> (musl) the failure names
 * the operation and n only: rerun it under a debugger. */
static void print_backtrace(int kind) {
    (void)kind;
#ifdef HAVE_BACKTRACE
    void *f[32];
    int n = backtrace(f, 32);
    backtrace_symbols_fd(f, n, 2);
#else
    fputs("(no backtrace: this C library has no <execinfo.h>)\n", stderr);
#endif
}

/* op fills `got` (freed by the sweep) and returns 0 or an error; ref is
 * what op gives without any fault. Returns the number of faults tried. */
typedef int (*op_fn)(void *ud, out *got);

/* A capture's recording may absorb a failure as a loss it counts (a name
 * refused, events dropped): then its result may differ from the reference
 * only by counted losses. NULL: the result must be the same. */
static int (*counted_loss)(const out *got, const out *ref);

static uint64_t sweep(const char *what, int kind, op_fn op, void *ud, const out *ref) {
    uint64_t n = 1, errors = 0, absorbed = 0;
    for (;; n++) {
        out got = {0};
        ludus__fault_set(kind, n);
        int rc = op(ud, &got);
        int fired = ludus__fault_fired(kind);
        ludus__fault_set(kind, 0);
        if (!fired) { /* the operation ran to its end before the n-th call: done */
            assert_int_equal(rc, 0);
            assert_true(same(&got, ref));
            out_free(&got);
            break;
        }
        if (rc != 0) {
            if (!is_error(rc)) fail_msg("%s: fault %llu: %d is no error code", what, (unsigned long long)n, rc);
            errors++;
        } else {
            if (!same(&got, ref) && getenv("LUDUS_FAULTS_DUMP")) { /* the two results, to compare */
                FILE *fa = fopen("fault_got", "wb"), *fb = fopen("fault_ref", "wb");
                if (fa) fwrite(got.p, 1, got.n, fa);
                if (fb) fwrite(ref->p, 1, ref->n, fb);
                if (fa) fclose(fa);
                if (fb) fclose(fb);
            }
            if (!same(&got, ref) && !(counted_loss && counted_loss(&got, ref))) {
                out again = {0}; /* where the fault was: the same run once more, its backtrace printed */
                ludus__fault_set(kind, n);
                ludus__fault_hook = print_backtrace;
                op(ud, &again);
                ludus__fault_hook = NULL;
                ludus__fault_set(kind, 0);
                out_free(&again);
                fail_msg("%s: fault %llu returned 0 with a different result (%zu bytes, not %zu)%s%.*s%s%.*s", what,
                         (unsigned long long)n, got.n, ref->n, got.n < 200 ? ":\n" : "", got.n < 200 ? (int)got.n : 0,
                         got.p ? got.p : "", got.n < 200 ? "instead of\n" : "", got.n < 200 ? (int)ref->n : 0,
                         ref->p ? ref->p : "");
            }
            absorbed++;
        }
        out_free(&got);
        /* a retry without the fault succeeds, with the same result */
        out again = {0};
        rc = op(ud, &again);
        if (rc != 0)
            fail_msg("%s: after fault %llu, the retry failed: %s", what, (unsigned long long)n,
                     ludus_last_error_detail());
        if (!same(&again, ref))
            fail_msg("%s: after fault %llu, the retry gave another result", what, (unsigned long long)n);
        out_free(&again);
    }
    printf("%-28s %s: %llu faults: %llu errors, %llu absorbed\n", what, kind == LUDUS__FAULT_ALLOC ? "alloc" : "write",
           (unsigned long long)(n - 1), (unsigned long long)errors, (unsigned long long)absorbed);
    return n - 1;
}

/* The caller's writer failing at its n-th call: always an I/O error. */
static void sweep_writer(const char *what, int (*op)(void *ud, out *o), void *ud, const out *ref) {
    uint64_t n = 1;
    for (;; n++) {
        out got = {0};
        got.fail_at = n;
        int rc = op(ud, &got);
        int reached = got.calls >= n;
        out_free(&got);
        if (!reached) {
            assert_int_equal(rc, 0);
            break;
        }
        if (rc != LUDUS_EIO)
            fail_msg("%s: writer failing at call %llu: %d, not LUDUS_EIO", what, (unsigned long long)n, rc);
        out again = {0};
        assert_int_equal(op(ud, &again), 0);
        assert_true(same(&again, ref));
        out_free(&again);
    }
    printf("%-28s writer: %llu failing calls, each an I/O error\n", what, (unsigned long long)(n - 1));
}

/* ---- a capture with every kind of event ---- */

static void record_all(int bulk) {
    static const char *const dyn[] = {"Dyn A", "Dyn B", "Dyn C"};
    ludus_site_desc sd = {"Registered", "cat", "faults.c", 7};
    uint32_t site = ludus_site_register(&sd);
    uint32_t track = ludus_async_track("Loads");
    ludus_memory_domain dom = ludus_memory_domain_register("Fault heap");
    ludus_gpu_context_desc gd = {"GPU faults", NULL, LUDUS_GPU_QUEUE_GRAPHICS, 1.0, 64};
    ludus_gpu_context *gpu = NULL;
    int64_t t0 = ludus_gpu_cpu_now_ns();
    if (ludus_gpu_context_create(&gd, &gpu) == 0) ludus_gpu_calibrate(gpu, 1000, t0, 0);
    for (int f = 0; f < 6; f++) {
        LUDUS_PROFILE_FRAME();
        LUDUS_PROFILE_SCOPE(Frame);
        {
            LUDUS_PROFILE_SCOPE(Update);
            LUDUS_PROFILE_SCOPE_DYN(dyn[f % 3]);
        }
        ludus_span_begin(site);
        ludus_span_end();
        LUDUS_PROFILE_COUNT(Draws, 2);
        LUDUS_PROFILE_GAUGE(Entities, f);
        LUDUS_PROFILE_PLOT(Load, (double)f);
        ludus_memory_alloc(dom, 100);
        ludus_memory_free(dom, 40);
        ludus_async_begin(track, (uint64_t)f, site);
        ludus_async_end(track, (uint64_t)f);
        ludus_fiber_enter("Fiber");
        ludus_fiber_leave();
        ludus_log(LUDUS_LOG_WARNING, "warning %d", f);
        LUDUS_PROFILE_LOG(LUDUS_LOG_ERROR, "error %d", f);
        if (gpu) {
            uint64_t b = 2000 + (uint64_t)f * 1000;
            ludus_gpu_sample s[2] = {{NULL, (uint64_t)f, b, b + 900, 0, t0 + 1, 0},
                                     {"Pass", (uint64_t)f, b + 10, b + 100, 0, t0 + 1, 0}};
            ludus_gpu_submit(gpu, s, 2);
        }
    }
    for (int i = 0; i < bulk; i++) { /* files of several writer buffers: writes to fail */
        LUDUS_PROFILE_SCOPE(Bulk);
    }
    LUDUS_PROFILE_FRAME();
    if (gpu) ludus_gpu_calibrate(gpu, 1000 + 100000, t0 + 100000, 0);
    ludus_gpu_context_destroy(gpu);
}

/* What a capture is, for comparison: its summary's counts. */
static int describe(ludus_capture *c, out *o) {
    ludus_capture_summary s;
    int rc = ludus_capture_get_summary(c, &s);
    if (rc) return rc;
    char line[256];
    int n = snprintf(line, sizeof line, "events %llu dropped %llu frames %llu interner_drops %u\n",
                     (unsigned long long)s.events, (unsigned long long)s.dropped, (unsigned long long)s.frames,
                     s.interner_drops);
    return out_write(o, line, (size_t)n) ? LUDUS_ENOMEM : 0;
}

static int capture_counted_loss(const out *got, const out *ref) {
    unsigned long long e[2], d[2], f[2];
    unsigned in[2];
    const out *o[2] = {got, ref};
    for (int k = 0; k < 2; k++)
        if (sscanf(o[k]->p, "events %llu dropped %llu frames %llu interner_drops %u", &e[k], &d[k], &f[k], &in[k]) != 4)
            return 0;
    /* every event there or counted as dropped; a refused name counted */
    return e[0] + d[0] >= e[1] && f[0] == f[1] && (d[0] > d[1] || in[0] > in[1]);
}

static int op_capture(void *ud, out *o) {
    (void)ud;
    int rc = ludus_capture_begin(NULL);
    if (rc) return rc;
    record_all(0);
    rc = ludus_capture_end(NULL);
    if (rc) return rc;
    ludus_capture *c;
    if ((rc = ludus_capture_last(&c)) != 0) return rc;
    rc = describe(c, o);
    ludus_capture_release(c);
    return rc;
}

/* ---- export and report over a file in memory ---- */

typedef struct file_in {
    out bytes, bytes2; /* .ludus files: the capture, and another for the diff */
} file_in;

static int op_export(void *ud, out *o) {
    file_in *in = ud;
    ludus_capture *c;
    int rc = ludus_capture_open_memory(in->bytes.p, in->bytes.n, &c);
    if (rc) return rc;
    static const int formats[] = {LUDUS_FORMAT_JSON, LUDUS_FORMAT_PFTRACE, LUDUS_FORMAT_LUDUS};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && rc == 0; i++)
        rc = ludus_capture_write(c, formats[i], 0, out_write, o);
    ludus_capture_release(c);
    return rc;
}

static int op_report(void *ud, out *o) {
    file_in *in = ud;
    ludus_capture *c = NULL, *c2 = NULL;
    ludus_analysis *a = NULL, *b = NULL;
    ludus_diff *d = NULL;
    ludus_gpu_stats *g = NULL;
    int rc = ludus_capture_open_memory(in->bytes.p, in->bytes.n, &c);
    if (!rc) rc = ludus_capture_open_memory(in->bytes2.p, in->bytes2.n, &c2);
    if (!rc) rc = ludus_analysis_create(c, NULL, &a);
    if (!rc) rc = ludus_analysis_create(c2, NULL, &b);
    static const int formats[] = {LUDUS_REPORT_TEXT, LUDUS_REPORT_JSON, LUDUS_REPORT_CSV, LUDUS_REPORT_HTML};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && rc == 0; i++)
        rc = ludus_analysis_report(a, NULL, formats[i], NULL, out_write, o);
    if (!rc) rc = ludus_diff_create(a, b, NULL, &d);
    for (int f = 0; f < 3 && rc == 0; f++)
        rc = ludus_diff_report(d,
                               f == 0   ? LUDUS_REPORT_TEXT
                               : f == 1 ? LUDUS_REPORT_JSON
                                        : LUDUS_REPORT_CSV,
                               out_write, o);
    if (!rc) rc = ludus_analysis_report(b, d, LUDUS_REPORT_HTML, NULL, out_write, o);
    if (!rc) rc = ludus_gpu_stats_create(c, &g);
    if (!rc) rc = ludus_gpu_report(g, NULL, LUDUS_REPORT_TEXT, out_write, o);
    if (!rc) rc = ludus_gpu_report(g, NULL, LUDUS_REPORT_JSON, out_write, o);
    ludus_gpu_stats_destroy(g);
    ludus_diff_destroy(d);
    ludus_analysis_destroy(b);
    ludus_analysis_destroy(a);
    ludus_capture_release(c2);
    ludus_capture_release(c);
    return rc;
}

/* ---- recover and save ---- */

typedef struct pool_in {
    char path[128];
} pool_in;

static int op_recover(void *ud, out *o) {
    pool_in *in = ud;
    ludus_capture *c;
    int rc = ludus_capture_recover(in->path, &c);
    if (rc) return rc;
    rc = ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, out_write, o);
    if (!rc) rc = ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, out_write, o);
    ludus_capture_release(c);
    return rc;
}

typedef struct save_in {
    out bytes;
    char dir[256], path[300];
} save_in;

static void count_entry(const char *name, void *ud) {
    (void)name;
    (*(int *)ud)++;
}

/* Saves to a file, then reads it back: after a failure no file (nor a
 * temporary one) is left. */
static int op_save(void *ud, out *o) {
    save_in *in = ud;
    ludus_capture *c;
    int rc = ludus_capture_open_memory(in->bytes.p, in->bytes.n, &c);
    if (rc) return rc;
    static const int formats[] = {LUDUS_FORMAT_JSON, LUDUS_FORMAT_PFTRACE, LUDUS_FORMAT_LUDUS};
    for (size_t i = 0; i < sizeof formats / sizeof formats[0] && rc == 0; i++) {
        rc = ludus_capture_save(c, formats[i], 0, in->path);
        int entries = 0;
        lt_list_dir(in->dir, count_entry, &entries);
        if (rc) {
            if (entries != 0) fail_msg("save failed (%d) but left %d file(s) behind", rc, entries);
            break;
        }
        if (entries != 1) fail_msg("save left %d files, not 1", entries);
        FILE *fp = fopen(in->path, "rb");
        assert_non_null(fp);
        char buf[65536];
        size_t k;
        while ((k = fread(buf, 1, sizeof buf, fp)) > 0) out_write(o, buf, k);
        fclose(fp);
        unlink(in->path);
    }
    ludus_capture_release(c);
    return rc;
}

/* ---- the tests ---- */

static void capture_bytes(out *o, int bulk) {
    ludus_capture *c;
    assert_int_equal(ludus_capture_begin(NULL), 0);
    record_all(bulk);
    assert_int_equal(ludus_capture_end(NULL), 0);
    assert_int_equal(ludus_capture_last(&c), 0);
    assert_int_equal(ludus_capture_write(c, LUDUS_FORMAT_LUDUS, 0, out_write, o), 0);
    ludus_capture_release(c);
}

static void test_capture(void **state) {
    (void)state;
    ludus_thread_register("Faults main");
    out ref = {0};
    assert_int_equal(op_capture(NULL, &ref), 0); /* names, sites, the thread: registered once, for good */
    out_free(&ref);
    assert_int_equal(op_capture(NULL, &ref), 0);
    counted_loss = capture_counted_loss;
    assert_true(sweep("capture", LUDUS__FAULT_ALLOC, op_capture, NULL, &ref) > 0);
    counted_loss = NULL;
    out_free(&ref);
}

static void test_export_and_report(void **state) {
    (void)state;
    file_in in = {0};
    capture_bytes(&in.bytes, 0);
    capture_bytes(&in.bytes2, 0);
    out ref = {0};
    assert_int_equal(op_export(&in, &ref), 0);
    assert_true(sweep("open + export", LUDUS__FAULT_ALLOC, op_export, &in, &ref) > 0);
    sweep_writer("open + export", op_export, &in, &ref);
    out_free(&ref);
    assert_int_equal(op_report(&in, &ref), 0);
    assert_true(sweep("report, diff, GPU", LUDUS__FAULT_ALLOC, op_report, &in, &ref) > 0);
    sweep_writer("report, diff, GPU", op_report, &in, &ref);
    out_free(&ref);
    out_free(&in.bytes);
    out_free(&in.bytes2);
}

static void test_save(void **state) {
    (void)state;
    save_in in;
    memset(&in, 0, sizeof in);
    capture_bytes(&in.bytes, 20000);
    assert_int_equal(lt_make_tmpdir(in.dir, sizeof in.dir, "ludus-faults"), 0);
    snprintf(in.path, sizeof in.path, "%s/out", in.dir);
    out ref = {0};
    assert_int_equal(op_save(&in, &ref), 0);
    assert_true(sweep("save", LUDUS__FAULT_WRITE, op_save, &in, &ref) > 0);
    assert_true(sweep("save", LUDUS__FAULT_ALLOC, op_save, &in, &ref) > 0);
    out_free(&ref);
    out_free(&in.bytes);
    lt_remove_dir(in.dir);
}

static void test_recover(void **state) {
    (void)state;
    pool_in in;
    snprintf(in.path, sizeof in.path, "/tmp/ludus-faults-pool-%d", (int)getpid());
    pid_t pid = lt_fork_alone();
    assert_true(pid >= 0);
    if (pid == 0) { /* records into a pool file and dies with the capture running */
        ludus_capture_desc d;
        memset(&d, 0, sizeof d);
        d.pool_file = in.path;
        if (ludus_capture_begin(&d) != 0) _exit(90);
        ludus_thread_register("Pool main");
        record_all(0);
        usleep(100000); /* a few journal passes: the sites named */
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    out ref = {0};
    assert_int_equal(op_recover(&in, &ref), 0);
    assert_true(sweep("recover", LUDUS__FAULT_ALLOC, op_recover, &in, &ref) > 0);
    out_free(&ref);
    unlink(in.path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_capture),
        cmocka_unit_test(test_export_and_report),
        cmocka_unit_test(test_save),
        cmocka_unit_test(test_recover),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
