/* Shared helpers for the unit and stress tests: an in-memory JSON writer
 * (with a fault-injection point), a parse-back of the Chrome JSON export with
 * json-c (an independent parser), and a well-formedness check of the parsed
 * trace against the capture summaries.
 *
 * Assertions inside these helpers use cmocka, so call them from the test
 * (main) thread only. */
#ifndef LUDUS_TEST_UTIL_H
#define LUDUS_TEST_UTIL_H

#include <ludus/capture.h>
#include <stddef.h>
#include <stdint.h>

#include "test_check.h" /* lt_check_u64 and friends: assertions that say what they compared */

struct json_object;

/* Growable memory sink for lt_write_last. fail_at > 0 makes the
 * fail_at-th write (1-based) fail; writes counts the calls. */
typedef struct lt_buf {
    char *data;
    size_t len, cap;
    int fail_at;
    int writes;
} lt_buf;

int lt_buf_write(void *user_data, const void *data, size_t n);
void lt_buf_free(lt_buf *b);

/* Exports the last ended capture into memory (asserts success); the result
 * is NUL-terminated and owned by the caller (free). */
char *lt_export_json(size_t *len_out);
/* Capture c as JSON (NUL-terminated; free it). */
char *lt_capture_json(ludus_capture *c);

/* One parsed trace event (the fields the tests look at). */
typedef struct lt_ev {
    char ph; /* B E i C s f X M */
    uint64_t tid;
    int64_t ts_ns;    /* "ts" (microseconds, 3 decimals) as ns */
    const char *name; /* borrowed from the json tree; "" when absent */
    const char *cat;
    const char *id; /* flows */
    int incomplete; /* E of a slice closed at capture end ({"ludus": "incomplete"}) */
    int unwound;    /* E of a slice closed where a non-local exit was found */
    int clipped;
    int64_t frame;  /* i of cat frame: args.frame; else -1 */
    int64_t ivalue; /* C: args.value as int64 */
    double dvalue;  /* C: args.value as double */
    int value_is_int;
    const char *series; /* C: the argument's name: "value", or a frame statistic's series */
} lt_ev;

typedef struct lt_trace {
    struct json_object *root;
    lt_ev *ev;
    size_t n;
    struct json_object *metadata;
    /* counts */
    size_t n_B, n_E, n_E_incomplete, n_E_unwound, n_i, n_frame, n_C, n_s, n_f, n_X;
    size_t n_loss, n_mismatch, n_crash; /* instants of category "ludus" */
    size_t n_b, n_e, n_e_incomplete;    /* async zones: begins, ends, ends synthesised at capture end */
    size_t n_thread_names, n_process_names;
    size_t flows_unmatched; /* f without s, s without f, or duplicate ids */
    size_t n_args;          /* scope annotations: the args of complete slices, but "ludus" */
} lt_trace;

/* Parses JSON text (asserts it parses and has the expected shape). Complete
 * slices (X) become a B and an E, and the events are put in time order, as
 * a viewer reads them. */
void lt_trace_parse(lt_trace *t, const char *json);
/* Exports the last capture and parses it. */
void lt_trace_load(lt_trace *t);
void lt_trace_free(lt_trace *t);

/* Asserts the structural invariants of every export:
 * - a process_name and a thread_name per thread;
 * - per tid, events in stream order have non-decreasing ts;
 * - per tid, every E closes the innermost open B (a stack), none is left
 *   open, and every slice has E.ts >= B.ts (non-negative duration);
 * - metadata counts equal ludus_capture_get_summary / _get_thread;
 * - summary.events == B + E (not synthesised) + i + C + s + f + mismatched
 *   span ends + NaN/inf counter samples (counted, not written) + scope
 *   annotations (written, or counted as superseded or dropped).
 * When require_flows_paired, each s id has exactly one f with that id and
 * each f exactly one s. */
void lt_trace_check(const lt_trace *t, int require_flows_paired);

/* Number of events with phase ph and name (NULL: any name). */
size_t lt_count(const lt_trace *t, char ph, const char *name);
/* Index of the first event (from index `from`) with phase ph and name, or -1. */
long lt_find(const lt_trace *t, size_t from, char ph, const char *name);
/* Index of the E closing the B at index b (same tid, stack matched), or -1. */
long lt_match_end(const lt_trace *t, size_t b);

/* Begin/end that assert success; lt_teardown ends a capture left active
 * by a failed test (cmocka teardown). */
void lt_begin(const ludus_capture_desc *desc);
void lt_end(void);
int lt_teardown(void **state);

/* The last ended capture, through the one way to write a capture
 * (ludus_capture_last, ludus_capture_save / _write): each returns the
 * library's code, as the calls it stands for do. */
int lt_save_last(int format, unsigned flags, const char *path);
int lt_write_last(int format, ludus_write_fn write, void *user_data);
int lt_last_summary(ludus_capture_summary *out);
int lt_last_thread(uint32_t index, ludus_thread_summary *out);
struct ludus_analysis_desc;
struct ludus_analysis;
int lt_analyze_last(const struct ludus_analysis_desc *desc, struct ludus_analysis **out);

/* Summary helpers that assert success. */
ludus_capture_summary lt_summary(void);
/* Index of the thread with this OS tid in the last capture, or -1. */
int lt_thread_index(uint64_t tid, ludus_thread_summary *out);

/* CLOCK_MONOTONIC ns, and a busy wait of at least ns. */
int64_t lt_now_ns(void);
void lt_spin_ns(int64_t ns);

/* The calling thread's OS tid (gettid). */
uint64_t lt_gettid(void);

/* 1 (and says so on stdout) under qemu-user: qemu 7.2 (make test-ports:
 * AArch64) aborts in a child forked while another thread runs ("cpu ==
 * current_cpu" in cpu-exec.c, or the plugin vcpu hook). The fork tests skip
 * there; LUDUS_TEST_EMULATOR is set by tests/unit/CMakeLists.txt. */
int lt_multithreaded_fork_unsupported(void);
/* fork() for a test whose process should have no other thread by now.
 * GCC 12's AddressSanitizer allocator is not fork-safe: a child forked while
 * another thread is inside it (the library's prefault thread, which ends on
 * its own a step after a capture ends, freeing its thread state) inherits the
 * allocator's lock held and hangs in the leak check at exit. Under ASan this
 * first waits (up to 5 s, then forks anyway) until the process has one
 * thread; elsewhere it is fork(). */
#ifndef _WIN32
#include <sys/types.h>
pid_t lt_fork_alone(void);
#endif

/* Files for the tests, the same on Linux and Windows (the port's unit
 * suite): a new empty directory in the system's temporary directory (its
 * name starts with prefix; 0 or -1), its removal with the files in it, and
 * its file names (fn for each; the count). */
int lt_make_tmpdir(char *out, size_t cap, const char *prefix);
void lt_remove_dir(const char *dir);
int lt_list_dir(const char *dir, void (*fn)(const char *name, void *ud), void *ud);
/* Aligned memory for allocator tests (posix_memalign / _aligned_malloc). */
void *lt_aligned_alloc(size_t size, size_t alignment);
void lt_aligned_free(void *p);

/* A capture desc with a small pool. */
ludus_capture_desc lt_small_desc(uint32_t chunk_count);

/* 1 under ThreadSanitizer, whose threads and signals are far slower: the
 * stress tests scale their counts down there (not their checks). */
#if defined(__SANITIZE_THREAD__)
#define LT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define LT_TSAN 1
#endif
#endif
#ifndef LT_TSAN
#define LT_TSAN 0
#endif
/* 1 under AddressSanitizer. */
#if defined(__SANITIZE_ADDRESS__)
#define LT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LT_ASAN 1
#endif
#endif
#ifndef LT_ASAN
#define LT_ASAN 0
#endif

#endif
