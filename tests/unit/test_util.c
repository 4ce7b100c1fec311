/* Shared test helpers (test_util.h): memory sink, json-c parse-back and the
 * structural check of an exported trace. */
#define _GNU_SOURCE
#include "test_util.h"

#include <ludus/analysis.h>

#include <json.h>
#include <math.h>
#include <stdarg.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#else
#include <sys/syscall.h>
#endif
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>

#include <cmocka.h>

int lt_buf_write(void *user_data, const void *data, size_t n) {
    lt_buf *b = user_data;
    b->writes++;
    if (b->fail_at > 0 && b->writes == b->fail_at) return -1;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (b->len + n + 1 > cap) cap *= 2;
        char *p = realloc(b->data, cap);
        if (!p) return -1;
        b->data = p;
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
    b->data[b->len] = 0;
    return 0;
}

void lt_buf_free(lt_buf *b) {
    free(b->data);
    memset(b, 0, sizeof *b);
}

char *lt_export_json(size_t *len_out) {
    lt_buf b = {0};
    int rc = lt_write_last(LUDUS_FORMAT_JSON, lt_buf_write, &b);
    if (rc != 0) fprintf(stderr, "export: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
    assert_int_equal(rc, 0);
    assert_non_null(b.data);
    if (len_out) *len_out = b.len;
    return b.data;
}

char *lt_capture_json(ludus_capture *c) {
    lt_buf b = {0};
    int rc = ludus_capture_write(c, LUDUS_FORMAT_JSON, 0, lt_buf_write, &b);
    if (rc != 0) fprintf(stderr, "export: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
    assert_int_equal(rc, 0);
    assert_non_null(b.data);
    return b.data;
}

void lt_begin(const ludus_capture_desc *desc) {
    int rc = ludus_capture_begin(desc);
    if (rc != 0) fprintf(stderr, "begin: %s (%s)\n", ludus_error_string(rc), ludus_last_error_detail());
    assert_int_equal(rc, 0);
}

void lt_end(void) {
    assert_int_equal(ludus_capture_end(NULL), 0);
}

int lt_teardown(void **state) {
    (void)state;
    if (ludus_capture_active()) ludus_capture_end(NULL);
    return 0;
}

int64_t lt_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void lt_spin_ns(int64_t ns) {
    int64_t until = lt_now_ns() + ns;
    while (lt_now_ns() < until) {
    }
}

uint64_t lt_gettid(void) {
#ifdef _WIN32
    return (uint64_t)GetCurrentThreadId();
#else
    return (uint64_t)syscall(SYS_gettid);
#endif
}

ludus_capture_desc lt_small_desc(uint32_t chunk_count) {
    ludus_capture_desc d;
    memset(&d, 0, sizeof d);
    d.chunk_bytes = 4096;
    d.chunk_count = chunk_count;
    return d;
}

static const char *get_str(json_object *o, const char *key) {
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v)) return "";
    const char *s = json_object_get_string(v);
    return s ? s : "";
}

static int64_t get_i64(json_object *o, const char *key, int *found) {
    json_object *v;
    if (!json_object_object_get_ex(o, key, &v)) {
        if (found) *found = 0;
        return 0;
    }
    if (found) *found = 1;
    return json_object_get_int64(v);
}

/* Slices come as complete X events written when they end (children before
 * their parents). Each becomes a B and an E here, and every track's events
 * are put in time order with ties broken so slices nest: at one ts ends come
 * before begins, later-begun slices end first, longer slices begin first. */
typedef struct ord {
    int64_t ts;
    int rank;    /* 0 E, 1 other (and a zero-length B and E), 2 B */
    int64_t tie; /* E: -begin; B: -end */
    long file;   /* E: file order (children first); B: -file order (parents first) */
    size_t i;
} ord;

static int cmp_ord(const void *x, const void *y) {
    const ord *a = x, *b = y;
    if (a->ts != b->ts) return a->ts < b->ts ? -1 : 1;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->tie != b->tie) return a->tie < b->tie ? -1 : 1;
    if (a->file != b->file) return a->file < b->file ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* The nesting every viewer computes, in double arithmetic (ts and ts + dur
 * read as doubles, microseconds; once more with each track's first ts taken
 * off, as speedscope does): no slice may begin inside another and end after
 * it. Times written with three decimals broke it (an end that falls on the
 * ns of the next begin lands just after it); on the grid the exporter
 * writes (src/base/writer.h) these doubles are the file's exact values
 * (tests/format/trace_json.py checks the other tests' files the same way). */
typedef struct dslice {
    int64_t pid, tid;
    double bd, ed; /* ts, ts + dur as a viewer adds them */
    const char *name;
} dslice;

static int cmp_dslice(const void *x, const void *y) {
    const dslice *a = x, *b = y;
    if (a->pid != b->pid) return a->pid < b->pid ? -1 : 1;
    if (a->tid != b->tid) return a->tid < b->tid ? -1 : 1;
    if (a->bd != b->bd) return a->bd < b->bd ? -1 : 1;
    if (a->ed != b->ed) return a->ed > b->ed ? -1 : 1;
    return 0;
}

/* Partial overlaps of slices [from, to) of one track, times less t0. */
static size_t overlaps(const dslice *s, size_t from, size_t to, double t0, size_t *stack) {
    size_t depth = 0, bad = 0;
    for (size_t i = from; i < to; i++) {
        double b = s[i].bd - t0, e = (s[i].bd - t0) + (s[i].ed - s[i].bd);
        while (depth && (s[stack[depth - 1]].ed - t0) <= b) depth--;
        if (depth && e > s[stack[depth - 1]].ed - t0 && bad++ < 3)
            fprintf(stderr, "tid %lld: \"%s\" (%.17g .. %.17g) begins inside \"%s\" and ends after it (%.17g)%s\n",
                    (long long)s[i].tid, s[i].name, b, e, s[stack[depth - 1]].name, s[stack[depth - 1]].ed - t0,
                    t0 != 0 ? ", rebased as speedscope does" : "");
        stack[depth++] = i;
    }
    return bad;
}

static void check_double_nesting(json_object *arr) {
    size_t n = json_object_array_length(arr), k = 0;
    dslice *s = calloc(n ? n : 1, sizeof *s);
    size_t *stack = calloc(n ? n : 1, sizeof *stack);
    assert_non_null(s);
    assert_non_null(stack);
    for (size_t i = 0; i < n; i++) {
        json_object *jo = json_object_array_get_idx(arr, i), *ts, *dur;
        if (strcmp(get_str(jo, "ph"), "X") != 0) continue;
        if (!json_object_object_get_ex(jo, "ts", &ts) || !json_object_object_get_ex(jo, "dur", &dur)) continue;
        double t = json_object_get_double(ts), d = json_object_get_double(dur);
        s[k++] = (dslice){get_i64(jo, "pid", NULL), get_i64(jo, "tid", NULL), t, t + d, get_str(jo, "name")};
    }
    qsort(s, k, sizeof *s, cmp_dslice);
    size_t bad = 0;
    for (size_t from = 0, to; from < k; from = to) {
        for (to = from + 1; to < k && s[to].pid == s[from].pid && s[to].tid == s[from].tid;) to++;
        bad += overlaps(s, from, to, 0, stack) + overlaps(s, from, to, s[from].bd, stack);
    }
    free(stack);
    free(s);
    assert_int_equal(bad, 0);
}

void lt_trace_parse(lt_trace *t, const char *json) {
    memset(t, 0, sizeof *t);
    enum json_tokener_error jerr = json_tokener_success;
    t->root = json_tokener_parse_verbose(json, &jerr);
    if (!t->root) fprintf(stderr, "json-c: %s\n", json_tokener_error_desc(jerr));
    assert_non_null(t->root);
    json_object *arr;
    assert_true(json_object_object_get_ex(t->root, "traceEvents", &arr));
    assert_true(json_object_is_type(arr, json_type_array));
    check_double_nesting(arr);
    assert_true(json_object_object_get_ex(t->root, "metadata", &t->metadata));
    assert_true(json_object_is_type(t->metadata, json_type_object));
    size_t n = json_object_array_length(arr);
    lt_ev *ev = calloc(n ? 2 * n : 1, sizeof *ev); /* an X becomes two */
    ord *o = calloc(n ? 2 * n : 1, sizeof *o);
    assert_non_null(ev);
    assert_non_null(o);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *jo = json_object_array_get_idx(arr, i);
        assert_true(json_object_is_type(jo, json_type_object));
        lt_ev *e = &ev[k];
        const char *ph = get_str(jo, "ph");
        assert_int_equal(strlen(ph), 1);
        e->ph = ph[0];
        e->tid = (uint64_t)get_i64(jo, "tid", NULL);
        json_object *ts;
        if (json_object_object_get_ex(jo, "ts", &ts)) e->ts_ns = (int64_t)llround(json_object_get_double(ts) * 1000.0);
        e->name = get_str(jo, "name");
        e->cat = get_str(jo, "cat");
        e->id = get_str(jo, "id");
        e->frame = -1;
        json_object *args = NULL;
        json_object_object_get_ex(jo, "args", &args);
        o[k] = (ord){e->ts_ns, 1, 0, 0, k};
        switch (e->ph) {
        case 'M':
            if (strcmp(e->name, "process_name") == 0) t->n_process_names++;
            if (strcmp(e->name, "thread_name") == 0) t->n_thread_names++;
            o[k].ts = INT64_MIN; /* names first */
            break;
        case 'I': {
            if (strcmp(e->cat, "ludus") == 0) {
                if (strcmp(e->name, "<span end without begin>") != 0 && args &&
                    json_object_object_get_ex(args, "lost", NULL)) {
                    t->n_loss++;
                    break;
                }
                if (args && json_object_object_get_ex(args, "crash", NULL)) { /* where a crash hit: a marker */
                    t->n_crash++;
                    break;
                }
                t->n_mismatch++;
                break;
            }
            t->n_i++;
            int found = 0;
            if (args) e->frame = get_i64(args, "frame", &found);
            if (found && strcmp(e->cat, "frame") == 0)
                t->n_frame++;
            else
                e->frame = -1;
            break;
        }
        case 'C': {
            t->n_C++;
            /* one argument: "value" for a sample, the series of a frame statistic ("per frame", "last", ...) */
            assert_non_null(args);
            assert_int_equal(json_object_object_length(args), 1);
            json_object_object_foreach(args, key, v) {
                e->series = key;
                e->value_is_int = json_object_is_type(v, json_type_int);
                e->ivalue = json_object_get_int64(v);
                e->dvalue = json_object_get_double(v);
            }
            break;
        }
        case 'b': /* async zones are timelines of their own: counted, not in ev */
            t->n_b++;
            continue;
        case 'e':
            t->n_e++;
            if (args && json_object_object_get_ex(args, "ludus", NULL)) t->n_e_incomplete++;
            continue;
        case 's':
            t->n_s++;
            break;
        case 'f':
            t->n_f++;
            break;
        case 'X': {
            json_object *dur;
            assert_true(json_object_object_get_ex(jo, "dur", &dur));
            if (strcmp(e->cat, "flow") == 0) { /* the slice of one flow end */
                t->n_X++;
                break;
            }
            int64_t d = (int64_t)llround(json_object_get_double(dur) * 1000.0);
            assert_true(d >= 0);
            json_object *lf;
            const char *flags = args && json_object_object_get_ex(args, "ludus", &lf) ? json_object_get_string(lf) : "";
            if (args && strcmp(e->cat, "async") != 0 &&
                strcmp(e->cat, "gpu") != 0) { /* a scope's annotations: every key but ours */
                json_object_object_foreach(args, key, val) {
                    (void)val;
                    if (strcmp(key, "ludus") != 0) t->n_args++;
                }
            }
            e->ph = 'B';
            t->n_B++;
            /* A zero-length scope (a coarse clock: AArch64's counter ticks at
             * tens of MHz) keeps its place in the file among the instants of
             * its time: its begin, then its end. */
            o[k] = d == 0 ? (ord){e->ts_ns, 1, 0, 0, k} : (ord){e->ts_ns, 2, -(e->ts_ns + d), -(long)i, k};
            lt_ev *end = &ev[++k];
            *end = *e;
            end->ph = 'E';
            end->ts_ns = e->ts_ns + d;
            end->incomplete = strstr(flags, "incomplete") != NULL;
            end->unwound = strstr(flags, "unwound") != NULL;
            end->clipped = strstr(flags, "clipped") != NULL;
            t->n_E++;
            if (end->incomplete) t->n_E_incomplete++;
            if (end->unwound) t->n_E_unwound++;
            o[k] = d == 0 ? (ord){end->ts_ns, 1, 0, 0, k} : (ord){end->ts_ns, 0, -e->ts_ns, (long)i, k};
            break;
        }
        default:
            fail_msg("unexpected phase '%c'", e->ph);
        }
        k++;
    }
    /* Time order (per track: the tracks interleave, each in its own order). */
    qsort(o, k, sizeof *o, cmp_ord);
    t->ev = calloc(k ? k : 1, sizeof *t->ev);
    assert_non_null(t->ev);
    for (size_t i = 0; i < k; i++) t->ev[i] = ev[o[i].i];
    t->n = k;
    free(ev);
    free(o);
}

void lt_trace_load(lt_trace *t) {
    char *json = lt_export_json(NULL);
    lt_trace_parse(t, json);
    free(json);
}

void lt_trace_free(lt_trace *t) {
    if (t->root) json_object_put(t->root);
    free(t->ev);
    memset(t, 0, sizeof *t);
}

int lt_save_last(int format, unsigned flags, const char *path) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_save(c, format, flags, path);
    ludus_capture_release(c);
    return rc;
}

int lt_write_last(int format, ludus_write_fn write, void *user_data) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_write(c, format, 0, write, user_data);
    ludus_capture_release(c);
    return rc;
}

int lt_last_summary(ludus_capture_summary *out) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_get_summary(c, out);
    ludus_capture_release(c);
    return rc;
}

int lt_last_thread(uint32_t index, ludus_thread_summary *out) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_capture_thread(c, index, out);
    ludus_capture_release(c);
    return rc;
}

int lt_analyze_last(const struct ludus_analysis_desc *desc, struct ludus_analysis **out) {
    ludus_capture *c;
    int rc = ludus_capture_last(&c);
    if (rc) return rc;
    rc = ludus_analysis_create(c, desc, out);
    ludus_capture_release(c);
    return rc;
}

ludus_capture_summary lt_summary(void) {
    ludus_capture_summary s;
    int rc = lt_last_summary(&s);
    assert_int_equal(rc, 0);
    return s;
}

int lt_thread_index(uint64_t tid, ludus_thread_summary *out) {
    ludus_capture_summary s = lt_summary();
    for (uint32_t i = 0; i < s.threads; i++) {
        ludus_thread_summary th;
        assert_int_equal(lt_last_thread(i, &th), 0);
        if (th.tid == tid) {
            if (out) *out = th;
            return (int)i;
        }
    }
    return -1;
}

size_t lt_count(const lt_trace *t, char ph, const char *name) {
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (t->ev[i].ph == ph && (!name || strcmp(t->ev[i].name, name) == 0)) k++;
    return k;
}

long lt_find(const lt_trace *t, size_t from, char ph, const char *name) {
    for (size_t i = from; i < t->n; i++)
        if (t->ev[i].ph == ph && (!name || strcmp(t->ev[i].name, name) == 0)) return (long)i;
    return -1;
}

long lt_match_end(const lt_trace *t, size_t b) {
    uint64_t tid = t->ev[b].tid;
    long depth = 0;
    for (size_t i = b; i < t->n; i++) {
        if (t->ev[i].tid != tid) continue;
        if (t->ev[i].ph == 'B') depth++;
        if (t->ev[i].ph == 'E' && --depth == 0) return (long)i;
    }
    return -1;
}

/* ---- the structural check ---- */

typedef struct tid_state {
    uint64_t tid;
    int64_t last_ts;
    size_t *stack;
    size_t depth, cap;
    int named;
} tid_state;

static tid_state *tid_get(tid_state **v, size_t *n, uint64_t tid) {
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].tid == tid) return &(*v)[i];
    tid_state *p = realloc(*v, (*n + 1) * sizeof *p);
    assert_non_null(p);
    *v = p;
    memset(&p[*n], 0, sizeof p[*n]);
    p[*n].tid = tid;
    p[*n].last_ts = INT64_MIN;
    return &p[(*n)++];
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static uint64_t meta_u64(json_object *o, const char *key) {
    int found = 0;
    int64_t v = get_i64(o, key, &found);
    if (!found) fail_msg("metadata has no \"%s\"", key);
    return (uint64_t)v;
}

/* A count written only when it is not 0. */
static uint64_t meta_u64_or0(json_object *o, const char *key) {
    int found = 0;
    int64_t v = get_i64(o, key, &found);
    return found ? (uint64_t)v : 0;
}

void lt_trace_check(const lt_trace *t, int require_flows_paired) {
    assert_int_equal(t->n_process_names, 1);
    tid_state *ts = NULL;
    size_t nts = 0;
    for (size_t i = 0; i < t->n; i++) {
        const lt_ev *e = &t->ev[i];
        tid_state *s = tid_get(&ts, &nts, e->tid);
        if (e->ph == 'M') {
            if (strcmp(e->name, "thread_name") == 0) s->named = 1;
            continue;
        }
        if (e->ts_ns < s->last_ts)
            fail_msg("tid %llu: event %zu (%c %s) at %lld ns before the previous one at %lld ns",
                     (unsigned long long)e->tid, i, e->ph, e->name, (long long)e->ts_ns, (long long)s->last_ts);
        s->last_ts = e->ts_ns;
        if (e->ph == 'B') {
            if (s->depth == s->cap) {
                s->cap = s->cap ? s->cap * 2 : 16;
                s->stack = realloc(s->stack, s->cap * sizeof *s->stack);
                assert_non_null(s->stack);
            }
            s->stack[s->depth++] = i;
        } else if (e->ph == 'E') {
            if (s->depth == 0) fail_msg("tid %llu: E at %zu closes nothing", (unsigned long long)e->tid, i);
            size_t b = s->stack[--s->depth];
            assert_true(t->ev[i].ts_ns >= t->ev[b].ts_ns); /* duration >= 0 */
        }
    }
    for (size_t i = 0; i < nts; i++) {
        if (ts[i].depth != 0) fail_msg("tid %llu: %zu B left open", (unsigned long long)ts[i].tid, ts[i].depth);
        /* the process-level M has a tid too (none): only thread tracks need names */
        free(ts[i].stack);
    }

    /* Flows: ids of s and f, each unique, the two sets equal. */
    const char **s_ids = calloc(t->n_s + 1, sizeof *s_ids);
    const char **f_ids = calloc(t->n_f + 1, sizeof *f_ids);
    size_t ns = 0, nf = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->ev[i].ph == 's') s_ids[ns++] = t->ev[i].id;
        if (t->ev[i].ph == 'f') f_ids[nf++] = t->ev[i].id;
    }
    qsort(s_ids, ns, sizeof *s_ids, cmp_str);
    qsort(f_ids, nf, sizeof *f_ids, cmp_str);
    size_t unmatched = 0;
    for (size_t i = 1; i < ns; i++) unmatched += strcmp(s_ids[i - 1], s_ids[i]) == 0;
    for (size_t i = 1; i < nf; i++) unmatched += strcmp(f_ids[i - 1], f_ids[i]) == 0;
    for (size_t i = 0, j = 0; i < ns || j < nf;) {
        int c = i == ns ? 1 : j == nf ? -1 : strcmp(s_ids[i], f_ids[j]);
        if (c == 0)
            i++, j++;
        else if (c < 0)
            i++, unmatched++;
        else
            j++, unmatched++;
    }
    free(s_ids);
    free(f_ids);
    if (require_flows_paired) assert_int_equal(unmatched, 0);
    ((lt_trace *)t)->flows_unmatched = unmatched;

    /* Metadata against the summaries. */
    ludus_capture_summary sum = lt_summary();
    assert_int_equal(meta_u64(t->metadata, "events"), sum.events);
    assert_int_equal(meta_u64(t->metadata, "dropped"), sum.dropped);
    assert_int_equal(meta_u64(t->metadata, "incomplete"), sum.incomplete);
    assert_int_equal(meta_u64(t->metadata, "orphan_ends"), sum.orphan_ends);
    assert_int_equal(meta_u64(t->metadata, "filtered"), sum.filtered);
    assert_int_equal(meta_u64(t->metadata, "frames"), sum.frames);
    assert_int_equal(meta_u64(t->metadata, "pool_bytes_used"), sum.bytes_used);
    assert_int_equal(meta_u64(t->metadata, "interner_drops"), sum.interner_drops);
    assert_int_equal(meta_u64(t->metadata, "unwound"), sum.unwound);
    assert_int_equal(meta_u64(t->metadata, "mismatched_span_ends"), sum.mismatched);
    /* Events: a complete slice is two (its begin and end), a synthesised end
     * none; NaN/inf counter samples are counted, not written. */
    /* Async zones: a begin and an end each (the end of a zone open at
     * capture end is synthesised; an end of no open zone is counted as
     * unmatched, not written). */
    assert_int_equal(sum.events, t->n_B + (t->n_E - t->n_E_incomplete - t->n_E_unwound) + t->n_i + t->n_C + t->n_s +
                                     t->n_f + t->n_mismatch + meta_u64(t->metadata, "nonfinite_counter_samples") +
                                     t->n_b + t->n_e - t->n_e_incomplete +
                                     meta_u64(t->metadata, "async_unmatched_ends") + t->n_args +
                                     meta_u64_or0(t->metadata, "annotations_superseded") +
                                     meta_u64_or0(t->metadata, "annotations_dropped"));
    assert_int_equal(t->n_b, t->n_e);
    assert_int_equal(sum.incomplete, t->n_E_incomplete);
    assert_int_equal(sum.unwound, t->n_E_unwound);
    assert_int_equal(sum.frames, t->n_frame);
    assert_int_equal(t->n_X, t->n_s + t->n_f); /* one 1 ns slice per flow end */
    json_object *threads;
    assert_true(json_object_object_get_ex(t->metadata, "threads", &threads));
    assert_int_equal(json_object_array_length(threads), sum.threads);
    uint64_t lanes = 0;
    for (uint32_t i = 0; i < sum.threads; i++) lanes += meta_u64(json_object_array_get_idx(threads, i), "span_lanes");
    /* a track per thread, per span lane and per async lane */
    assert_int_equal(t->n_thread_names, sum.threads + lanes + meta_u64(t->metadata, "async_lanes"));
    uint64_t dropped_sum = 0;
    for (uint32_t i = 0; i < sum.threads; i++) {
        ludus_thread_summary th;
        assert_int_equal(lt_last_thread(i, &th), 0);
        json_object *o = json_object_array_get_idx(threads, i);
        assert_int_equal(meta_u64(o, "tid"), th.tid);
        assert_string_equal(get_str(o, "name"), th.name);
        assert_int_equal(meta_u64(o, "events"), th.events);
        assert_int_equal(meta_u64(o, "dropped"), th.dropped);
        assert_int_equal(meta_u64(o, "incomplete"), th.incomplete);
        assert_int_equal(meta_u64(o, "orphan_ends"), th.orphan_ends);
        assert_int_equal(meta_u64(o, "unwound"), th.unwound);
        json_object *ex;
        assert_true(json_object_object_get_ex(o, "exited", &ex));
        assert_int_equal(json_object_get_boolean(ex) ? 1 : 0, th.exited ? 1 : 0);
        dropped_sum += th.dropped;
        /* losses are visible in the trace: one marker where they began */
        if (th.dropped) assert_true(th.first_drop_ns >= 0);
        /* every thread with a table entry has a named track */
        tid_state *s = NULL;
        for (size_t k = 0; k < nts; k++)
            if (ts[k].tid == th.tid) s = &ts[k];
        assert_non_null(s);
        assert_true(s->named);
    }
    assert_int_equal(dropped_sum + meta_u64(t->metadata, "unregistered_thread_drops"), sum.dropped);
    free(ts);
}

int lt_multithreaded_fork_unsupported(void) {
    const char *emu = getenv("LUDUS_TEST_EMULATOR");
    if (!emu || !strstr(emu, "qemu")) return 0;
    printf("skipped under %s: a child forked while other threads run\n", emu);
    return 1;
}

#ifndef _WIN32
static int process_threads(void) {
    DIR *d = opendir("/proc/self/task");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

pid_t lt_fork_alone(void) {
    for (int i = 0; LT_ASAN && i < 5000 && process_threads() > 1; i++) usleep(1000);
    return fork();
}
#endif

int lt_make_tmpdir(char *out, size_t cap, const char *prefix) {
#ifdef _WIN32
    char base[MAX_PATH];
    DWORD n = GetTempPathA(sizeof base, base);
    if (n == 0 || n >= sizeof base) return -1;
    static unsigned counter;
    for (int tries = 0; tries < 100; tries++) {
        snprintf(out, cap, "%s%s-%lu-%u", base, prefix, (unsigned long)GetCurrentProcessId(), counter++);
        if (mkdir(out) == 0) return 0;
    }
    return -1;
#else
    snprintf(out, cap, "/tmp/%s-XXXXXX", prefix);
    return mkdtemp(out) ? 0 : -1;
#endif
}

static void remove_entry(const char *name, void *ud) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", (const char *)ud, name);
    unlink(path);
}

void lt_remove_dir(const char *dir) {
    lt_list_dir(dir, remove_entry, (void *)dir);
    rmdir(dir);
}

int lt_list_dir(const char *dir, void (*fn)(const char *name, void *ud), void *ud) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        n++;
        if (fn) fn(e->d_name, ud);
    }
    closedir(d);
    return n;
}

void *lt_aligned_alloc(size_t size, size_t alignment) {
    if (alignment < sizeof(void *)) alignment = sizeof(void *);
#ifdef _WIN32
    return _aligned_malloc(size ? size : 1, alignment);
#else
    void *p = NULL;
    return posix_memalign(&p, alignment, size) == 0 ? p : NULL;
#endif
}

void lt_aligned_free(void *p) {
#ifdef _WIN32
    _aligned_free(p);
#else
    free(p);
#endif
}

#ifdef LT_CMOCKA_SHIM /* the Windows port's cmocka (tests/ports/shim/cmocka.h) */
jmp_buf lt_cm_jump;
#endif
