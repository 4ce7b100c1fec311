/* Loads captures into a SQLite database, one at a time: each is opened,
 * analysed (the analysis gives frames, paths and per-frame values), its
 * events streamed through ludus_analysis_rows into the tables of sql.h in
 * one transaction (unless the event tables are virtual, sql_vtab.c: then
 * the capture and its analysis go to them), and released before the next
 * is opened. The database is a file (or a temporary on disk), so memory
 * stays what SQLite's page cache and one capture's analysis take, whatever
 * the number of captures. */
#ifdef LUDUS_TRACE_SQLITE
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "an_opts.h"
#include "sql.h"

/* SQLite's page cache: what the database may keep in memory (KiB). */
#define LT_SQL_CACHE_KIB 32768

static int db_error(const char *verb, sqlite3 *db, const char *what) {
    char shown[512];
    fprintf(stderr, "ludus-trace %s: %s: %s\n", verb, what,
            ludus_text_show(shown, sizeof shown, sqlite3_errmsg(db), 0));
    return LT_IO;
}

int lt_sql_db_open(const char *verb, const char *path, int events_virtual, lt_sql_db *d) {
    memset(d, 0, sizeof *d);
    /* NOMUTEX: one thread calls SQLite (the scans' threads only read files),
     * so no mutex around every call: they were an eighth of an export */
    d->next_capture = 1;
    if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK) {
        int rc = db_error(verb, d->db, *path ? path : "the temporary database");
        sqlite3_close(d->db);
        d->db = NULL;
        return rc;
    }
    char pragmas[256];
    snprintf(pragmas, sizeof pragmas,
             "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA temp_store = FILE; "
             "PRAGMA cache_size = -%d;",
             LT_SQL_CACHE_KIB);
    char *create = lt_sql_create_statements("sqlite", events_virtual);
    if (!create) {
        fprintf(stderr, "ludus-trace %s: out of memory\n", verb);
        lt_sql_db_close(d);
        return LT_IO;
    }
    int bad = (events_virtual && lt_sql_vtabs_init(d) != SQLITE_OK) ||
              sqlite3_exec(d->db, pragmas, NULL, NULL, NULL) != SQLITE_OK ||
              sqlite3_exec(d->db, create, NULL, NULL, NULL) != SQLITE_OK || lt_sql_functions(d->db) != SQLITE_OK;
    free(create);
    for (int i = 0; i < LT_SQL_TABLE_COUNT && !bad; i++) {
        const lt_sql_table *t = &lt_sql_tables[i];
        if (t->select || (t->events && d->events)) continue;
        char sql[1024];
        int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES (", t->name);
        for (int c = 0; c < t->ncols; c++) n += snprintf(sql + n, sizeof sql - (size_t)n, c ? ",?" : "?");
        snprintf(sql + n, sizeof sql - (size_t)n, ")");
        bad = sqlite3_prepare_v2(d->db, sql, -1, &d->insert[i], NULL) != SQLITE_OK;
    }
    if (bad) {
        int rc = db_error(verb, d->db, "making the tables");
        lt_sql_db_close(d);
        return rc;
    }
    return LT_OK;
}

void lt_sql_db_close(lt_sql_db *d) {
    for (int i = 0; i < LT_SQL_TABLE_COUNT; i++) sqlite3_finalize(d->insert[i]);
    sqlite3_close(d->db);
    lt_sql_vtabs_free(d);
    memset(d, 0, sizeof *d);
}

/* Pragmas that only read the schema or the build (the rest set things, and
 * some write files). */
static int read_pragma(const char *name) {
    static const char *const ok[] = {"table_info",      "table_xinfo",    "table_list",      "index_list",
                                     "index_info",      "index_xinfo",    "function_list",   "pragma_list",
                                     "compile_options", "collation_list", "foreign_key_list"};
    for (size_t i = 0; name && i < sizeof ok / sizeof ok[0]; i++)
        if (!sqlite3_stricmp(name, ok[i])) return 1;
    return 0;
}

/* The authorizer of a sealed database: reading only. */
static int authorize(void *ud, int action, const char *a, const char *b, const char *db, const char *trigger) {
    if (((const lt_sql_db *)ud)->internal) return SQLITE_OK; /* the virtual tables' copy (sql_vtab.c) */
    (void)ud;
    (void)b;
    (void)db;
    (void)trigger;
    switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_FUNCTION:
    case SQLITE_RECURSIVE:
        return SQLITE_OK;
    case SQLITE_PRAGMA:
        return read_pragma(a) ? SQLITE_OK : SQLITE_DENY;
    default: /* ATTACH, DETACH, INSERT, CREATE, ... */
        return SQLITE_DENY;
    }
}

int lt_sql_db_seal(const char *verb, lt_sql_db *d) {
    if (sqlite3_set_authorizer(d->db, authorize, d) != SQLITE_OK)
        return db_error(verb, d->db, "making the database read-only");
    sqlite3_limit(d->db, SQLITE_LIMIT_ATTACHED, 0); /* VACUUM INTO attaches its file */
    return LT_OK;
}

int lt_sql_db_index(const char *verb, lt_sql_db *d) {
    static const char *const events = "CREATE INDEX slice_by_name ON slice(name);"
                                      "CREATE INDEX slice_by_frame ON slice(capture_id, frame);"
                                      "CREATE INDEX args_by_set ON args(capture_id, arg_set_id);";
    /* ANALYZE reads a sample of each index (analysis_limit): the planner's
     * statistics without a pass over every row of a long capture's frames */
    static const char *const rest = "CREATE INDEX frame_counter_by_frame ON frame_counter(capture_id, frame);"
                                    "PRAGMA analysis_limit = 1000; ANALYZE;";
    if ((!d->events && sqlite3_exec(d->db, events, NULL, NULL, NULL) != SQLITE_OK) ||
        sqlite3_exec(d->db, rest, NULL, NULL, NULL) != SQLITE_OK)
        return db_error(verb, d->db, "indexing");
    return LT_OK;
}

/* ---- one capture ---- */

typedef struct loader {
    lt_sql_db *d;
    int64_t cap;
    const ludus_analysis *a;
    int failed;       /* an SQLite error: said once */
    uint64_t args_of; /* the slice the last ARG rows annotated (they come just before it) */
    int only;         /* >= 0: the rows of this table only, through only_insert (a copy) */
    sqlite3_stmt *only_insert;
} loader;

static sqlite3_stmt *st(loader *l, int table) {
    return l->d->insert[table];
}
static void b_int(sqlite3_stmt *s, int col, int64_t v) {
    sqlite3_bind_int64(s, col + 1, v);
}
static void b_opt(sqlite3_stmt *s, int col, int has, int64_t v) {
    if (has)
        sqlite3_bind_int64(s, col + 1, v);
    else
        sqlite3_bind_null(s, col + 1);
}
static void b_real(sqlite3_stmt *s, int col, double v) {
    sqlite3_bind_double(s, col + 1, v);
}
static void b_text(sqlite3_stmt *s, int col, const char *v) {
    if (v)
        sqlite3_bind_text(s, col + 1, v, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null(s, col + 1);
}
/* Steps the row bound; 0, or -1 with the error noted. */
static int row_done(loader *l, int table) {
    sqlite3_stmt *s = st(l, table);
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) return 0;
    l->failed = 1;
    return -1;
}

/* Binds a row's cells to its table's INSERT and steps it. */
static int insert_cells(loader *l, sqlite3_stmt *s, int table, const lt_sql_cell *cells) {
    for (int i = 0; i < lt_sql_tables[table].ncols; i++) {
        const lt_sql_cell *c = &cells[i];
        if (c->type == LT_CELL_INT)
            sqlite3_bind_int64(s, i + 1, c->i);
        else if (c->type == LT_CELL_REAL)
            sqlite3_bind_double(s, i + 1, c->d);
        else if (c->type == LT_CELL_TEXT)
            sqlite3_bind_text64(s, i + 1, c->s, c->n, SQLITE_STATIC, SQLITE_UTF8);
        else
            sqlite3_bind_null(s, i + 1);
    }
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) return 0;
    l->failed = 1;
    return -1;
}

static int on_row(void *ud, const ludus_row *r) {
    loader *l = ud;
    lt_sql_cell cells[LT_SQL_MAX_COLS];
    int table = lt_sql_row_cells(r, l->cap, &l->args_of, cells);
    if (table < 0 || (l->only >= 0 && table != l->only)) return 0;
    return insert_cells(l, l->only >= 0 ? l->only_insert : st(l, table), table, cells);
}

static int load_capture_row(loader *l, const char *path, ludus_capture *c, const ludus_capture_info *info,
                            const ludus_analysis_summary *as) {
    sqlite3_stmt *s = st(l, LT_T_capture);
    b_int(s, LT_capture__id, l->cap);
    b_text(s, LT_capture__path, path);
    b_int(s, LT_capture__file_bytes, (int64_t)info->file_bytes);
    b_int(s, LT_capture__format_version, info->version);
    b_text(s, LT_capture__process_name, info->process_name);
    b_int(s, LT_capture__pid, info->pid);
    b_text(s, LT_capture__clock, info->clock_name);
    b_int(s, LT_capture__start_ts, info->start_ns);
    b_int(s, LT_capture__dur, info->end_ns - info->start_ns);
    b_int(s, LT_capture__threads, info->threads);
    b_int(s, LT_capture__events, (int64_t)info->summary.events);
    b_int(s, LT_capture__dropped, (int64_t)info->summary.dropped);
    b_int(s, LT_capture__frames, (int64_t)as->frames_complete);
    b_text(s, LT_capture__frame_thread, as->frame_thread && as->frame_thread[0] ? as->frame_thread : NULL);
    b_text(s, LT_capture__crash_signal, info->crash_signal ? info->crash_signal_name : NULL);
    b_int(s, LT_capture__recovered, info->recovered);
    b_text(s, LT_capture__trigger_reason, info->trigger_reason);
    b_opt(s, LT_capture__trigger_ts, info->trigger_reason != NULL, info->trigger_ns - info->start_ns);
    (void)c;
    return row_done(l, LT_T_capture);
}

static int drop_row(loader *l, int has_thread, uint32_t utid, const char *what, uint64_t count, int has_first,
                    int64_t first) {
    sqlite3_stmt *s = st(l, LT_T_drops);
    b_int(s, LT_drops__capture_id, l->cap);
    b_opt(s, LT_drops__utid, has_thread, utid);
    b_text(s, LT_drops__what, what);
    b_int(s, LT_drops__count, (int64_t)count);
    b_opt(s, LT_drops__first_ts, has_first, first);
    return row_done(l, LT_T_drops);
}

/* Every loss and refusal a capture counts, X(what, value): one row each. */
#define LT_SQL_DROPS(X)                                                               \
    X("events of threads the thread table refused", cs->unregistered_thread_drops)    \
    X("run-time names and sites refused", cs->interner_drops)                         \
    X("counters, gauges and memory domains refused", cs->counters_refused)            \
    X("counter adds lost", cs->counter_adds_lost)                                     \
    X("span ends that matched no open span", cs->mismatched)                          \
    X("ends whose begin is not in the capture", cs->orphan_ends)                      \
    X("events of a kind this version does not know", cs->unknown_events)              \
    X("non-finite counter samples (left out)", cs->nonfinite_counter_samples)         \
    X("annotation texts cut at 1024 bytes", cs->annotation_texts_cut)                 \
    X("annotations past a scope's 16th key (dropped)", cs->annotation_keys_dropped)   \
    X("frame snapshots off the frame thread (ignored)", as->counter_values_elsewhere) \
    X("frame marks off the frame thread (ignored)", as->frame_marks_elsewhere)        \
    X("ends before their begin (clamped to 0)", as->clock_anomalies)                  \
    X("events of disabled categories (filtered, not a loss)", cs->filtered)

static int load_threads_and_drops(loader *l, ludus_capture *c, const ludus_capture_info *info,
                                  const ludus_analysis_summary *as) {
    const ludus_capture_summary *cs = &info->summary;
    int64_t first = INT64_MAX;
    int frame_thread_seen = 0;
    for (uint32_t t = 0; t < info->threads; t++) {
        ludus_thread_summary th;
        if (ludus_capture_thread(c, t, &th) != 0) continue;
        int is_ft = !frame_thread_seen && as->frame_thread && as->frame_thread[0] && !strcmp(th.name, as->frame_thread);
        frame_thread_seen |= is_ft;
        sqlite3_stmt *s = st(l, LT_T_thread);
        b_int(s, LT_thread__capture_id, l->cap);
        b_int(s, LT_thread__utid, t);
        b_int(s, LT_thread__tid, (int64_t)th.tid);
        b_text(s, LT_thread__name, th.name);
        b_int(s, LT_thread__is_frame_thread, is_ft);
        b_int(s, LT_thread__exited, th.exited);
        b_int(s, LT_thread__events, (int64_t)th.events);
        b_int(s, LT_thread__dropped, (int64_t)th.dropped);
        b_opt(s, LT_thread__first_drop_ts, th.first_drop_ns >= 0, th.first_drop_ns);
        if (row_done(l, LT_T_thread)) return -1;
        if (th.dropped && drop_row(l, 1, t, "events dropped", th.dropped, th.first_drop_ns >= 0, th.first_drop_ns))
            return -1;
        if (th.first_drop_ns >= 0 && th.first_drop_ns < first) first = th.first_drop_ns;
    }
    if (drop_row(l, 0, 0, "events dropped", cs->dropped, first != INT64_MAX, first)) return -1;
#define LT__DROP_ROW(what, value) \
    if (drop_row(l, 0, 0, what, (uint64_t)(value), 0, 0)) return -1;
    LT_SQL_DROPS(LT__DROP_ROW)
#undef LT__DROP_ROW
    return 0;
}

static int load_sites_and_paths(loader *l, const ludus_analysis *a) {
    uint32_t ns = ludus_analysis_site_count(a), np = ludus_analysis_path_count(a);
    for (uint32_t i = 0; i < ns; i++) {
        const ludus_site_stats *si = ludus_analysis_site(a, i);
        sqlite3_stmt *s = st(l, LT_T_site);
        b_int(s, LT_site__capture_id, l->cap);
        b_int(s, LT_site__id, i);
        b_int(s, LT_site__stable_id, si->id);
        b_text(s, LT_site__name, si->name);
        b_text(s, LT_site__category, si->category);
        b_text(s, LT_site__file, si->file);
        b_int(s, LT_site__line, si->line);
        if (row_done(l, LT_T_site)) return -1;
    }
    /* A path's parent is made before it (tree.c), so its text is ready. */
    char **text = calloc(np ? np : 1, sizeof *text);
    if (!text) return -1;
    int rc = 0;
    for (uint32_t i = 0; i < np && rc == 0; i++) {
        const ludus_path_stats *p = ludus_analysis_path(a, i);
        const char *name = ludus_analysis_site(a, p->site)->name;
        const char *up = p->parent < i && text[p->parent] ? text[p->parent] : NULL;
        const char *sep = !up ? "" : (p->flags & LUDUS_STAT_FOLDED) ? "/.../" : "/";
        size_t n = (up ? strlen(up) : 0) + strlen(sep) + strlen(name) + 1;
        if (!(text[i] = malloc(n))) {
            rc = -1;
            break;
        }
        snprintf(text[i], n, "%s%s%s", up ? up : "", sep, name);
        sqlite3_stmt *s = st(l, LT_T_path);
        b_int(s, LT_path__capture_id, l->cap);
        b_int(s, LT_path__id, i);
        b_opt(s, LT_path__parent_id, p->parent != UINT32_MAX, p->parent);
        b_int(s, LT_path__depth, p->depth);
        b_text(s, LT_path__name, name);
        b_text(s, LT_path__path, text[i]);
        b_int(s, LT_path__calls, (int64_t)p->calls);
        b_int(s, LT_path__dur_total, p->inclusive.total_ns);
        b_int(s, LT_path__self_total, p->exclusive.total_ns);
        rc = row_done(l, LT_T_path);
    }
    for (uint32_t i = 0; i < np; i++) free(text[i]);
    free(text);
    return rc;
}

static int load_frames_and_counters(loader *l, const ludus_analysis *a) {
    uint64_t nf = ludus_analysis_frame_count(a);
    for (uint64_t f = 0; f < nf; f++) {
        ludus_frame_info fi;
        if (ludus_analysis_frame(a, f, &fi) != 0) continue;
        sqlite3_stmt *s = st(l, LT_T_frame);
        b_int(s, LT_frame__capture_id, l->cap);
        b_int(s, LT_frame__id, (int64_t)f);
        b_int(s, LT_frame__ts, fi.begin_ns);
        b_int(s, LT_frame__dur, fi.end_ns - fi.begin_ns);
        b_int(s, LT_frame__complete, fi.complete);
        b_int(s, LT_frame__hitch, fi.hitch);
        b_int(s, LT_frame__unlogged, fi.unlogged_ns);
        if (row_done(l, LT_T_frame)) return -1;
    }
    uint32_t nc = ludus_analysis_counter_count(a);
    for (uint32_t i = 0; i < nc; i++) {
        const ludus_counter_stats *k = ludus_analysis_counter(a, i);
        sqlite3_stmt *s = st(l, LT_T_counter_track);
        b_int(s, LT_counter_track__capture_id, l->cap);
        b_int(s, LT_counter_track__id, i);
        b_text(s, LT_counter_track__name, k->name);
        b_text(s, LT_counter_track__series, k->series);
        b_text(s, LT_counter_track__unit, k->unit);
        b_text(s, LT_counter_track__kind, k->kind);
        b_int(s, LT_counter_track__per_frame, k->per_frame);
        b_int(s, LT_counter_track__saturated, k->saturated);
        if (row_done(l, LT_T_counter_track)) return -1;
        for (uint64_t f = 0; f < nf; f++) {
            double v;
            if (ludus_analysis_counter_in_frame(a, i, f, &v) != 0) continue; /* a plot, or no value */
            s = st(l, LT_T_frame_counter);
            b_int(s, LT_frame_counter__capture_id, l->cap);
            b_int(s, LT_frame_counter__frame, (int64_t)f);
            b_int(s, LT_frame_counter__track_id, i);
            b_real(s, LT_frame_counter__value, v);
            if (row_done(l, LT_T_frame_counter)) return -1;
        }
    }
    return 0;
}

static int load_memory_and_gpu(loader *l, ludus_capture *c) {
    uint32_t nm = ludus_capture_memory_coverage_count(c);
    for (uint32_t i = 0; i < nm; i++) {
        ludus_memory_coverage m;
        if (ludus_capture_memory_coverage(c, i, &m) != 0) continue;
        sqlite3_stmt *s = st(l, LT_T_memory_domain);
        b_int(s, LT_memory_domain__capture_id, l->cap);
        b_text(s, LT_memory_domain__name, m.name);
        b_int(s, LT_memory_domain__outside, m.outside);
        b_opt(s, LT_memory_domain__since_ts, !m.outside, m.since_ns);
        b_opt(s, LT_memory_domain__baseline_bytes, m.has_baseline, m.baseline_bytes);
        b_int(s, LT_memory_domain__live_bytes, m.live_bytes);
        b_opt(s, LT_memory_domain__peak_bytes, !m.outside, m.peak_bytes);
        b_opt(s, LT_memory_domain__allocs, !m.outside, m.allocs);
        b_opt(s, LT_memory_domain__frees, !m.outside, m.frees);
        b_int(s, LT_memory_domain__unknown, m.unknown);
        if (row_done(l, LT_T_memory_domain)) return -1;
    }
    uint32_t ntracks = ludus_capture_gpu_track_count(c);
    uint64_t nspans = ludus_capture_gpu_span_count(c);
    for (uint64_t i = 0; i < nspans; i++) {
        ludus_gpu_span g;
        ludus_gpu_track_info tr;
        if (ludus_capture_gpu_span(c, i, &g) != 0) continue;
        int has_track = g.track < ntracks && ludus_capture_gpu_track(c, g.track, &tr) == 0;
        sqlite3_stmt *s = st(l, LT_T_gpu_slice);
        b_int(s, LT_gpu_slice__capture_id, l->cap);
        b_int(s, LT_gpu_slice__ts, g.begin_ns);
        b_int(s, LT_gpu_slice__dur, g.end_ns - g.begin_ns);
        b_int(s, LT_gpu_slice__device_dur, g.device_ns);
        b_text(s, LT_gpu_slice__name, g.pass);
        b_text(s, LT_gpu_slice__track, has_track ? tr.name : NULL);
        b_int(s, LT_gpu_slice__gpu_frame, (int64_t)g.frame);
        b_int(s, LT_gpu_slice__placement_error, g.error_ns);
        b_int(s, LT_gpu_slice__submit_ts, g.submit_ns);
        b_int(s, LT_gpu_slice__uncalibrated, (g.flags & LUDUS_GPU_SPAN_UNCALIBRATED) != 0);
        if (row_done(l, LT_T_gpu_slice)) return -1;
    }
    return 0;
}

void lt_sql_analysis_desc(ludus_analysis_desc *desc) {
    memset(desc, 0, sizeof *desc); /* the whole capture, the defaults */
}

int lt_sql_db_load(const char *verb, lt_sql_db *d, const char *path, const ludus_cut_desc *cut) {
    ludus_capture *file = NULL, *c = NULL;
    ludus_analysis *a = NULL;
    int rc = lt_capture_open(verb, path, &file);
    if (rc) return rc;
    if (!cut) {
        ludus_capture_retain(file);
        c = file;
    } else if ((rc = ludus_capture_cut(file, cut, &c)) != 0) { /* the tables of the cut: its events only */
        lt_error(verb, path, rc);
        lt_capture_release(file);
        return rc == LUDUS_EINVAL ? LT_USAGE : lt_an_exit_code(rc);
    }
    ludus_analysis_desc desc;
    lt_sql_analysis_desc(&desc);
    lt_busy_begin(verb, "loading", path);
    if ((rc = ludus_analysis_create(c, &desc, &a)) != 0) {
        lt_busy_end();
        lt_error(verb, path, rc);
        ludus_capture_release(c);
        lt_capture_release(file);
        return lt_an_exit_code(rc);
    }
    loader l = {d, d->next_capture, a, 0, LUDUS_ROW_NONE, -1, NULL};
    ludus_capture_info info;
    ludus_analysis_summary as;
    ludus_capture_get_info(c, &info);
    ludus_analysis_get_summary(a, &as);
    int status = LT_OK;
    if (sqlite3_exec(d->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
        status = db_error(verb, d->db, "loading");
        goto done;
    }
    if (load_capture_row(&l, path, c, &info, &as) || load_threads_and_drops(&l, c, &info, &as) ||
        load_sites_and_paths(&l, a) || load_frames_and_counters(&l, a) || load_memory_and_gpu(&l, c)) {
        rc = l.failed ? 0 : 1; /* not SQLite's: out of memory */
    } else if (d->events) {    /* the event tables read the file when a query asks */
        rc = lt_sql_vtabs_add(d, path, cut, l.cap, info.summary.events, file, c, a) == SQLITE_OK ? 0 : 1;
        if (rc == 0) file = c = NULL, a = NULL; /* kept */
    } else {
        rc = ludus_analysis_rows(a, c, on_row, &l);
    }
    if (l.failed) {
        status = db_error(verb, d->db, path);
    } else if (rc < 0) {
        lt_error(verb, path, rc); /* a damaged block: its offset and the problem */
        status = lt_an_exit_code(rc);
    } else if (rc > 0) {
        fprintf(stderr, "ludus-trace %s: %s: out of memory\n", verb, path);
        status = LT_IO;
    }
    if (sqlite3_exec(d->db, status == LT_OK ? "COMMIT" : "ROLLBACK", NULL, NULL, NULL) != SQLITE_OK && status == LT_OK)
        status = db_error(verb, d->db, "loading");
    if (status == LT_OK) d->next_capture++;
done:
    lt_busy_end();
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
    lt_capture_release(file);
    return status;
}

int lt_sql_db_copy_events(lt_sql_db *d, int table, const char *name, char **err) {
    const lt_sql_table *t = &lt_sql_tables[table];
    char sql[1024];
    int n = snprintf(sql, sizeof sql, "INSERT INTO temp.%s VALUES (", name);
    for (int c = 0; c < t->ncols; c++) n += snprintf(sql + n, sizeof sql - (size_t)n, c ? ",?" : "?");
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    loader l = {d, 0, NULL, 0, LUDUS_ROW_NONE, table, NULL};
    int rc = sqlite3_prepare_v2(d->db, sql, -1, &l.only_insert, NULL);
    for (size_t i = 0; rc == SQLITE_OK; i++) {
        ludus_capture *c;
        ludus_analysis *a;
        int got = lt_sql_vtabs_capture(d, i, &l.cap, &c, &a, err);
        if (got <= 0) {
            if (got < 0) rc = SQLITE_ERROR;
            break;
        }
        l.a = a;
        l.args_of = LUDUS_ROW_NONE;
        int r = ludus_analysis_rows(a, c, on_row, &l);
        lt_sql_vtabs_capture_done(d, c, a);
        if (l.failed) {
            rc = SQLITE_ERROR;
            *err = sqlite3_mprintf("%s", sqlite3_errmsg(d->db));
        } else if (r) {
            rc = SQLITE_ERROR;
            *err = sqlite3_mprintf("capture %lld: %s", (long long)l.cap, lt_sql_vtabs_error_text(r));
        }
    }
    sqlite3_finalize(l.only_insert);
    return rc;
}

/* ---- functions: percentile(x, p) and median(x), nearest rank ---- */

typedef struct pct_acc {
    double *v;
    size_t n, cap;
    double p;
    int bad;
} pct_acc;

static void pct_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
    pct_acc *acc = sqlite3_aggregate_context(ctx, sizeof *acc);
    if (!acc) {
        sqlite3_result_error_nomem(ctx);
        return;
    }
    if (sqlite3_value_type(argv[0]) == SQLITE_NULL) return;
    if (argc > 1) {
        double p = sqlite3_value_double(argv[1]);
        if (!(p >= 0 && p <= 100)) acc->bad = 1;
        acc->p = p;
    } else {
        acc->p = 50;
    }
    if (acc->n == acc->cap) {
        size_t cap = acc->cap ? acc->cap * 2 : 64;
        double *v = sqlite3_realloc64(acc->v, cap * sizeof *v);
        if (!v) {
            acc->bad = 2;
            return;
        }
        acc->v = v;
        acc->cap = cap;
    }
    acc->v[acc->n++] = sqlite3_value_double(argv[0]);
}

static int cmp_double(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static void pct_final(sqlite3_context *ctx) {
    pct_acc *acc = sqlite3_aggregate_context(ctx, 0);
    if (!acc || acc->n == 0) {
        if (acc) sqlite3_free(acc->v);
        sqlite3_result_null(ctx);
        return;
    }
    if (acc->bad == 1) {
        sqlite3_result_error(ctx, "percentile(x, p): p is between 0 and 100", -1);
    } else if (acc->bad) {
        sqlite3_result_error_nomem(ctx);
    } else {
        qsort(acc->v, acc->n, sizeof *acc->v, cmp_double);
        double rank = acc->p / 100.0 * (double)acc->n; /* nearest rank: the ceil(p n)-th smallest */
        size_t k = (size_t)rank;
        if ((double)k < rank) k++;
        sqlite3_result_double(ctx, acc->v[k ? k - 1 : 0]);
    }
    sqlite3_free(acc->v);
}

int lt_sql_functions(sqlite3 *db) {
    int rc = sqlite3_create_function(db, "percentile", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, pct_step,
                                     pct_final);
    if (rc == SQLITE_OK)
        rc = sqlite3_create_function(db, "median", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, NULL, pct_step,
                                     pct_final);
    return rc;
}
#else
typedef int lt_sql_load_unused; /* built without SQLite */
#endif
