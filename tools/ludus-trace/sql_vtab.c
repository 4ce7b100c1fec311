/* ludus-trace sql's event tables (slice, args, instant, counter, log,
 * flow_event, async_slice: sql.h's tables with events 1) as SQLite virtual
 * tables over the capture files. A query that scans one reads the file again
 * through ludus_analysis_rows, on a thread of its own that keeps a batch of
 * rows ahead of SQLite: the query starts without loading the events, and
 * memory is two batches whatever the capture's length (the analysis the
 * loader made for the other tables is kept for the last capture, so one
 * capture is not analysed twice).
 *
 * What a scan cannot do is find a row by its value. A join that looks rows
 * up by a column (s.parent_id = p.id), or that scans the table again for
 * every row of another, is served from a copy: on the first such use the
 * table is loaded into the temporary database (as the loader did before)
 * and indexed on that column, once for the session. A constant (name =
 * 'Draw', frame IN (...)) is no lookup: the scan reads past what SQLite
 * filters out. capture_id = value reads that capture's file only. */
#ifdef LUDUS_TRACE_SQLITE
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sql.h"

/* Rows a batch holds: two batches are in memory per scan. */
#define BATCH_ROWS 2048

typedef struct source {
    char *path;
    int has_cut;
    ludus_cut_desc cut;
    uint32_t *threads; /* the cut's thread list, owned */
    int64_t id;
} source;

struct lt_sql_vtabs {
    source *src;
    size_t n, cap;
    uint64_t events; /* of every capture */
    pthread_mutex_t mu;
    /* The capture the loader analysed last, for one scan at a time. */
    size_t kept_i;
    ludus_capture *kept_file, *kept_c;
    ludus_analysis *kept_a;
    int kept_busy;
    /* The copies in the temporary database: a bit per table, and per
     * table a bit per column it is indexed on. */
    uint32_t copied;
    uint32_t indexed[LT_SQL_TABLE_COUNT];
};

const char *lt_sql_vtabs_error_text(int rc) {
    const char *d = ludus_last_error_detail();
    return d && *d ? d : ludus_error_string(rc);
}

/* ---- the captures ---- */

static void kept_free(lt_sql_vtabs *v) {
    ludus_analysis_destroy(v->kept_a);
    ludus_capture_release(v->kept_c);
    lt_capture_release(v->kept_file);
    v->kept_a = NULL;
    v->kept_c = v->kept_file = NULL;
}

int lt_sql_vtabs_add(lt_sql_db *d, const char *path, const ludus_cut_desc *cut, int64_t id, uint64_t events,
                     ludus_capture *file, ludus_capture *c, ludus_analysis *a) {
    lt_sql_vtabs *v = d->events;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        source *s = realloc(v->src, cap * sizeof *s);
        if (!s) return SQLITE_NOMEM;
        v->src = s;
        v->cap = cap;
    }
    source *s = &v->src[v->n];
    memset(s, 0, sizeof *s);
    if (!(s->path = strdup(path))) return SQLITE_NOMEM;
    if (cut) {
        s->has_cut = 1;
        s->cut = *cut;
        if (cut->threads) {
            if (!(s->threads = malloc((cut->nthreads ? cut->nthreads : 1) * sizeof *s->threads))) {
                free(s->path);
                return SQLITE_NOMEM;
            }
            memcpy(s->threads, cut->threads, cut->nthreads * sizeof *s->threads);
            s->cut.threads = s->threads;
        }
    }
    s->id = id;
    v->events += events;
    kept_free(v);
    v->kept_i = v->n++;
    v->kept_file = file;
    v->kept_c = c;
    v->kept_a = a;
    return SQLITE_OK;
}

int lt_sql_vtabs_capture(lt_sql_db *d, size_t i, int64_t *id, ludus_capture **c, ludus_analysis **a, char **err) {
    lt_sql_vtabs *v = d->events;
    if (i >= v->n) return 0;
    const source *s = &v->src[i];
    *id = s->id;
    pthread_mutex_lock(&v->mu);
    int kept = v->kept_a && v->kept_i == i && !v->kept_busy;
    if (kept) v->kept_busy = 1;
    pthread_mutex_unlock(&v->mu);
    if (kept) {
        *c = v->kept_c;
        *a = v->kept_a;
        return 1;
    }
    ludus_capture *file = NULL, *cut = NULL;
    ludus_analysis_desc desc; /* the loader's: the rows' frames and paths are the other tables' */
    lt_sql_analysis_desc(&desc);
    int rc = ludus_capture_open(s->path, &file);
    if (!rc && s->has_cut) {
        rc = ludus_capture_cut(file, &s->cut, &cut); /* it holds its source */
        ludus_capture_release(file);
        file = cut;
    }
    if (!rc) rc = ludus_analysis_create(file, &desc, a);
    if (rc) {
        char shown[512];
        *err = sqlite3_mprintf("%s: %s", ludus_text_show(shown, sizeof shown, s->path, 0), lt_sql_vtabs_error_text(rc));
        ludus_capture_release(file);
        return -1;
    }
    *c = file;
    return 1;
}

void lt_sql_vtabs_capture_done(lt_sql_db *d, ludus_capture *c, ludus_analysis *a) {
    lt_sql_vtabs *v = d->events;
    if (a == v->kept_a) {
        pthread_mutex_lock(&v->mu);
        v->kept_busy = 0;
        pthread_mutex_unlock(&v->mu);
        return;
    }
    ludus_analysis_destroy(a);
    ludus_capture_release(c);
}

/* ---- the copy: the table loaded, for lookups and second scans ---- */

static int ensure_copy(lt_sql_db *d, int table, int col, char **err) {
    lt_sql_vtabs *v = d->events;
    const lt_sql_table *t = &lt_sql_tables[table];
    char sql[2048];
    int rc = SQLITE_OK;
    d->internal = 1;
    if (!(v->copied >> table & 1)) {
        lt_busy_begin("sql", "loading the table", t->name);
        int n = snprintf(sql, sizeof sql, "CREATE TABLE temp.lt_copy_%s (", t->name);
        for (int c = 0; c < t->ncols; c++)
            n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%s %s", c ? ", " : "", t->cols[c].name, t->cols[c].type);
        snprintf(sql + n, sizeof sql - (size_t)n, ")");
        rc = sqlite3_exec(d->db, sql, NULL, NULL, err);
        if (rc == SQLITE_OK) rc = sqlite3_exec(d->db, "SAVEPOINT lt_copy", NULL, NULL, err);
        if (rc == SQLITE_OK) {
            snprintf(sql, sizeof sql, "lt_copy_%s", t->name);
            rc = lt_sql_db_copy_events(d, table, sql, err);
            if (rc != SQLITE_OK) sqlite3_exec(d->db, "ROLLBACK TO lt_copy", NULL, NULL, NULL);
            sqlite3_exec(d->db, "RELEASE lt_copy", NULL, NULL, NULL);
        }
        lt_busy_end();
        if (rc == SQLITE_OK) v->copied |= 1u << table;
    }
    if (rc == SQLITE_OK && col >= 0 && !(v->indexed[table] >> col & 1)) {
        snprintf(sql, sizeof sql, "CREATE INDEX temp.lt_copy_%s_by_%s ON lt_copy_%s (%s)", t->name, t->cols[col].name,
                 t->name, t->cols[col].name);
        rc = sqlite3_exec(d->db, sql, NULL, NULL, err);
        if (rc == SQLITE_OK) v->indexed[table] |= 1u << col;
    }
    d->internal = 0;
    return rc;
}

/* ---- the virtual tables ---- */

typedef struct vtab {
    sqlite3_vtab base;
    lt_sql_db *d;
    int table;
} vtab;

typedef struct batch {
    lt_sql_cell *cells; /* BATCH_ROWS x ncols; a text's bytes at text + i */
    size_t rows;
    char *text;
    size_t text_n, text_cap;
} batch;

typedef struct cursor {
    sqlite3_vtab_cursor base;
    lt_sql_db *d;
    int table, ncols;
    sqlite3_int64 rowid;
    int eof;
    /* A scan of the files: the thread fills b[prod] while SQLite reads b[cons]. */
    pthread_t thread;
    int started, holding;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    batch b[2];
    int full[2], prod, cons, stop, done;
    size_t at;
    char *err;            /* the scan's failure, sqlite3_malloc'd */
    int64_t only_capture; /* < 0: every capture */
    int64_t cap_id;       /* the scan thread's capture */
    uint64_t args_of;
    int has_match; /* a lookup read from the files: the rows whose column match_col is match */
    int match_col;
    int64_t match;
    /* A lookup in the copy, or a scan read from it; copy_shape: what copy
     * was prepared for (reset and bound again for the next lookup). */
    sqlite3_stmt *copy;
    int copy_shape;
    unsigned filters; /* of this cursor: past COPY_AFTER, the copy serves it */
} cursor;

/* A cursor's scans and lookups read the files this many times; then the
 * copy is made (it costs some ten scans): a join with a few rows outside
 * reads the files, one with many the copy. */
#define COPY_AFTER 3

static int vt_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **out, char **err) {
    int table = -1;
    for (int i = 0; argc > 2 && i < LT_SQL_TABLE_COUNT; i++)
        if (lt_sql_tables[i].events && !strcmp(argv[2], lt_sql_tables[i].name)) table = i;
    if (table < 0) {
        *err = sqlite3_mprintf("%s: not an event table", argc > 2 ? argv[2] : "?");
        return SQLITE_ERROR;
    }
    const lt_sql_table *t = &lt_sql_tables[table];
    char sql[2048];
    int n = snprintf(sql, sizeof sql, "CREATE TABLE x (");
    for (int c = 0; c < t->ncols; c++)
        n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%s %s", c ? ", " : "", t->cols[c].name, t->cols[c].type);
    snprintf(sql + n, sizeof sql - (size_t)n, ")");
    int rc = sqlite3_declare_vtab(db, sql);
    if (rc != SQLITE_OK) return rc;
    vtab *v = sqlite3_malloc(sizeof *v);
    if (!v) return SQLITE_NOMEM;
    memset(v, 0, sizeof *v);
    v->d = aux;
    v->table = table;
    *out = &v->base;
    return SQLITE_OK;
}

static int vt_disconnect(sqlite3_vtab *tab) {
    sqlite3_free(tab);
    return SQLITE_OK;
}

/* Plans: a scan of every file (cost: the events), of one capture's file
 * (capture_id = value), or a lookup in the copy by one column (a join's
 * value, not a constant): cheap once the copy is indexed on it, half a scan
 * before (the first use loads it), so SQLite prefers to scan this table
 * outermost and look the small tables up. idxNum: bit 0 capture_id given,
 * the bits above it the lookup's column + 1. */
static int vt_best_index(sqlite3_vtab *tab, sqlite3_index_info *info) {
    vtab *vt = (vtab *)tab;
    lt_sql_vtabs *v = vt->d->events;
    double rows = v->events > 1 ? (double)v->events : 1;
    int cap_i = -1, look_i = -1;
    uint32_t indexed = v->indexed[vt->table];
    for (int i = 0; i < info->nConstraint; i++) {
        const struct sqlite3_index_constraint *c = &info->aConstraint[i];
        if (!c->usable || c->op != SQLITE_INDEX_CONSTRAINT_EQ || c->iColumn < 0) continue;
        if (c->iColumn == 0) { /* capture_id: every event table's first column */
            if (cap_i < 0) cap_i = i;
            continue;
        }
        int is_indexed = (indexed >> c->iColumn) & 1;
        if (!is_indexed) {
#if SQLITE_VERSION_NUMBER >= 3038000
            sqlite3_value *rhs = NULL;
            if (sqlite3_vtab_rhs_value(info, i, &rhs) == SQLITE_OK || sqlite3_vtab_in(info, i, -1)) continue;
#else
            continue; /* no way to tell a constant from a join's value: scan */
#endif
        }
        if (look_i < 0 || (is_indexed && !((indexed >> info->aConstraint[look_i].iColumn) & 1))) look_i = i;
    }
    int arg = 0, idx = 0;
    if (cap_i >= 0) {
        info->aConstraintUsage[cap_i].argvIndex = ++arg;
        rows /= (double)(v->n ? v->n : 1);
        idx |= 1;
    }
    double cost = rows;
    if (look_i >= 0) {
        int col = info->aConstraint[look_i].iColumn;
        info->aConstraintUsage[look_i].argvIndex = ++arg;
        cost = (indexed >> col) & 1 ? 20 : rows / 2;
        rows = 10;
        idx |= (col + 1) << 1;
    }
    info->idxNum = idx;
    info->estimatedCost = cost;
    info->estimatedRows = (sqlite3_int64)rows;
    return SQLITE_OK;
}

static int vt_open(sqlite3_vtab *tab, sqlite3_vtab_cursor **out) {
    vtab *vt = (vtab *)tab;
    cursor *k = sqlite3_malloc(sizeof *k);
    if (!k) return SQLITE_NOMEM;
    memset(k, 0, sizeof *k);
    k->d = vt->d;
    k->table = vt->table;
    k->ncols = lt_sql_tables[vt->table].ncols;
    for (int i = 0; i < 2; i++)
        if (!(k->b[i].cells = malloc(BATCH_ROWS * (size_t)k->ncols * sizeof *k->b[i].cells))) {
            free(k->b[0].cells);
            sqlite3_free(k);
            return SQLITE_NOMEM;
        }
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cv, NULL);
    *out = &k->base;
    return SQLITE_OK;
}

/* The scan thread hands b[prod] over and waits for the other to be free;
 * non-zero: the scan is to stop. */
static int hand_over(cursor *k) {
    pthread_mutex_lock(&k->mu);
    k->full[k->prod] = 1;
    pthread_cond_broadcast(&k->cv);
    k->prod ^= 1;
    while (k->full[k->prod] && !k->stop) pthread_cond_wait(&k->cv, &k->mu);
    int stop = k->stop;
    pthread_mutex_unlock(&k->mu);
    k->b[k->prod].rows = 0;
    k->b[k->prod].text_n = 0;
    return stop;
}

enum { SCAN_STOPPED = 1, SCAN_NO_MEMORY = 2 };

static int scan_row(void *ud, const ludus_row *r) {
    cursor *k = ud;
    lt_sql_cell cells[LT_SQL_MAX_COLS];
    if (lt_sql_row_cells(r, k->cap_id, &k->args_of, cells) != k->table) return 0;
    if (k->has_match && (cells[k->match_col].type != LT_CELL_INT || cells[k->match_col].i != k->match)) return 0;
    batch *b = &k->b[k->prod];
    lt_sql_cell *to = &b->cells[b->rows * (size_t)k->ncols];
    for (int i = 0; i < k->ncols; i++) {
        to[i] = cells[i];
        if (cells[i].type != LT_CELL_TEXT) continue;
        if (b->text_n + cells[i].n > b->text_cap) {
            size_t cap = b->text_cap ? b->text_cap * 2 : 65536;
            while (cap < b->text_n + cells[i].n) cap *= 2;
            char *t = realloc(b->text, cap);
            if (!t) return SCAN_NO_MEMORY;
            b->text = t;
            b->text_cap = cap;
        }
        memcpy(b->text + b->text_n, cells[i].s, cells[i].n);
        to[i].s = NULL;
        to[i].i = (int64_t)b->text_n;
        b->text_n += cells[i].n;
    }
    if (++b->rows == BATCH_ROWS) return hand_over(k) ? SCAN_STOPPED : 0;
    return 0;
}

static void *scan_main(void *p) {
    cursor *k = p;
    lt_sql_vtabs *v = k->d->events;
    char *err = NULL;
    int rc = 0;
    for (size_t i = 0; i < v->n && !rc; i++) {
        if (k->only_capture >= 0 && v->src[i].id != k->only_capture) continue;
        ludus_capture *c;
        ludus_analysis *a;
        if (lt_sql_vtabs_capture(k->d, i, &k->cap_id, &c, &a, &err) < 0) {
            rc = -1;
            break;
        }
        k->args_of = LUDUS_ROW_NONE;
        rc = ludus_analysis_rows(a, c, scan_row, k);
        if (rc < 0) { /* the detail is this thread's */
            char shown[512];
            err = sqlite3_mprintf("%s: %s", ludus_text_show(shown, sizeof shown, v->src[i].path, 0),
                                  lt_sql_vtabs_error_text(rc));
        } else if (rc == SCAN_NO_MEMORY) {
            err = sqlite3_mprintf("out of memory");
        }
        lt_sql_vtabs_capture_done(k->d, c, a);
    }
    pthread_mutex_lock(&k->mu);
    if (k->b[k->prod].rows) k->full[k->prod] = 1;
    k->done = 1;
    if (rc == SCAN_STOPPED) {
        sqlite3_free(err);
        err = NULL;
    }
    k->err = err;
    pthread_cond_broadcast(&k->cv);
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

static void scan_stop(cursor *k) {
    if (k->started) {
        pthread_mutex_lock(&k->mu);
        k->stop = 1;
        pthread_cond_broadcast(&k->cv);
        pthread_mutex_unlock(&k->mu);
        pthread_join(k->thread, NULL);
        k->started = 0;
    }
    sqlite3_free(k->err);
    k->err = NULL;
    k->full[0] = k->full[1] = 0;
    k->prod = k->cons = k->stop = k->done = k->holding = 0;
    k->b[0].rows = k->b[1].rows = k->b[0].text_n = k->b[1].text_n = 0;
    k->at = 0;
}

/* The next batch of the scan (giving the one read back); SQLITE_OK, eof
 * set at the end; an error with the scan's message. */
static int scan_next_batch(cursor *k) {
    pthread_mutex_lock(&k->mu);
    if (k->holding) {
        k->full[k->cons] = 0;
        k->cons ^= 1;
        pthread_cond_broadcast(&k->cv);
    }
    while (!k->full[k->cons] && !k->done) pthread_cond_wait(&k->cv, &k->mu);
    k->holding = k->full[k->cons];
    char *err = k->holding ? NULL : k->err;
    pthread_mutex_unlock(&k->mu);
    k->at = 0;
    if (k->holding) return SQLITE_OK;
    k->eof = 1;
    if (!err) return SQLITE_OK;
    sqlite3_free(k->base.pVtab->zErrMsg);
    k->base.pVtab->zErrMsg = sqlite3_mprintf("%s", err);
    return SQLITE_ERROR;
}

static int vt_close(sqlite3_vtab_cursor *cur) {
    cursor *k = (cursor *)cur;
    scan_stop(k);
    sqlite3_finalize(k->copy);
    for (int i = 0; i < 2; i++) {
        free(k->b[i].cells);
        free(k->b[i].text);
    }
    pthread_mutex_destroy(&k->mu);
    pthread_cond_destroy(&k->cv);
    sqlite3_free(k);
    return SQLITE_OK;
}

static int copy_step(cursor *k) {
    int rc = sqlite3_step(k->copy);
    if (rc == SQLITE_ROW) return SQLITE_OK;
    k->eof = 1;
    if (rc == SQLITE_DONE) return SQLITE_OK;
    sqlite3_free(k->base.pVtab->zErrMsg);
    k->base.pVtab->zErrMsg = sqlite3_mprintf("%s", sqlite3_errmsg(k->d->db));
    return rc;
}

static int vt_error(sqlite3_vtab_cursor *cur, int rc, char *msg) {
    sqlite3_free(cur->pVtab->zErrMsg);
    cur->pVtab->zErrMsg = msg;
    return rc;
}

/* Serves a filter from the copy: look (a column, or -1) = value, and
 * capture_id = only_capture when >= 0. */
static int copy_filter(cursor *k, int look, sqlite3_value *value) {
    char *err = NULL;
    int rc = ensure_copy(k->d, k->table, look, &err);
    if (rc != SQLITE_OK) return vt_error(&k->base, rc, err);
    int shape = (look + 1) * 2 + (k->only_capture >= 0);
    if (k->copy && k->copy_shape != shape) {
        sqlite3_finalize(k->copy);
        k->copy = NULL;
    }
    if (!k->copy) {
        const lt_sql_table *t = &lt_sql_tables[k->table];
        char sql[512];
        int n = snprintf(sql, sizeof sql, "SELECT * FROM temp.lt_copy_%s WHERE 1", t->name);
        if (look >= 0) n += snprintf(sql + n, sizeof sql - (size_t)n, " AND %s = ?1", t->cols[look].name);
        if (k->only_capture >= 0) snprintf(sql + n, sizeof sql - (size_t)n, " AND capture_id = ?2");
        if ((rc = sqlite3_prepare_v2(k->d->db, sql, -1, &k->copy, NULL)) != SQLITE_OK)
            return vt_error(&k->base, rc, sqlite3_mprintf("%s", sqlite3_errmsg(k->d->db)));
        k->copy_shape = shape;
    } else {
        sqlite3_reset(k->copy);
    }
    if (look >= 0) sqlite3_bind_value(k->copy, 1, value);
    if (k->only_capture >= 0) sqlite3_bind_int64(k->copy, 2, k->only_capture);
    return copy_step(k);
}

static int vt_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc, sqlite3_value **argv) {
    cursor *k = (cursor *)cur;
    (void)idx_str;
    (void)argc;
    scan_stop(k);
    if (k->copy) sqlite3_reset(k->copy);
    k->eof = 0;
    k->rowid = 0;
    k->has_match = 0;
    int look = (idx >> 1) - 1, arg = 0;
    sqlite3_value *cap = idx & 1 ? argv[arg++] : NULL, *value = look >= 0 ? argv[arg] : NULL;
    k->only_capture = -1;
    if (cap && sqlite3_value_type(cap) == SQLITE_INTEGER)
        k->only_capture = sqlite3_value_int64(cap); /* else SQLite compares each row */
    else if (cap && sqlite3_value_type(cap) == SQLITE_NULL)
        return k->eof = 1, SQLITE_OK; /* = NULL holds for no row */
    if (value && sqlite3_value_type(value) == SQLITE_NULL) return k->eof = 1, SQLITE_OK;
    /* Reading one capture's file is what a scan of it costs: no copy. */
    int many = k->only_capture < 0 || look >= 0;
    if (many && (++k->filters > COPY_AFTER || (k->d->events->copied >> k->table & 1)))
        return copy_filter(k, look, value);
    if (look >= 0 && sqlite3_value_type(value) == SQLITE_INTEGER) { /* else SQLite compares each row */
        k->has_match = 1;
        k->match_col = look;
        k->match = sqlite3_value_int64(value);
    }
    if (k->copy) {
        sqlite3_finalize(k->copy);
        k->copy = NULL;
    }
    if (pthread_create(&k->thread, NULL, scan_main, k) != 0)
        return vt_error(cur, SQLITE_ERROR, sqlite3_mprintf("cannot start a thread to read the captures"));
    k->started = 1;
    return scan_next_batch(k);
}

static int vt_next(sqlite3_vtab_cursor *cur) {
    cursor *k = (cursor *)cur;
    k->rowid++;
    if (k->copy) return copy_step(k);
    if (++k->at < k->b[k->cons].rows) return SQLITE_OK;
    return scan_next_batch(k);
}

static int vt_eof(sqlite3_vtab_cursor *cur) {
    return ((cursor *)cur)->eof;
}

static int vt_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col) {
    cursor *k = (cursor *)cur;
    if (k->copy) {
        sqlite3_result_value(ctx, sqlite3_column_value(k->copy, col));
        return SQLITE_OK;
    }
    const batch *b = &k->b[k->cons];
    const lt_sql_cell *c = &b->cells[k->at * (size_t)k->ncols + (size_t)col];
    switch (c->type) {
    case LT_CELL_INT:
        sqlite3_result_int64(ctx, c->i);
        break;
    case LT_CELL_REAL:
        sqlite3_result_double(ctx, c->d);
        break;
    case LT_CELL_TEXT:
        sqlite3_result_text64(ctx, b->text + c->i, c->n, SQLITE_TRANSIENT, SQLITE_UTF8);
        break;
    default:
        sqlite3_result_null(ctx);
    }
    return SQLITE_OK;
}

static int vt_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid) {
    *rowid = ((cursor *)cur)->rowid;
    return SQLITE_OK;
}

/* Never runs: a statement that writes is refused before it runs
 * (lt_sql_exec), as for the other tables, and says so; without it SQLite
 * would refuse it in words of its own. */
static int vt_update(sqlite3_vtab *tab, int argc, sqlite3_value **argv, sqlite3_int64 *rowid) {
    (void)argc;
    (void)argv;
    (void)rowid;
    sqlite3_free(tab->zErrMsg);
    tab->zErrMsg = sqlite3_mprintf("queries only read the captures");
    return SQLITE_READONLY;
}

static const sqlite3_module module = {
    .iVersion = 0,
    .xCreate = vt_connect,
    .xConnect = vt_connect,
    .xBestIndex = vt_best_index,
    .xDisconnect = vt_disconnect,
    .xDestroy = vt_disconnect,
    .xOpen = vt_open,
    .xClose = vt_close,
    .xFilter = vt_filter,
    .xNext = vt_next,
    .xEof = vt_eof,
    .xColumn = vt_column,
    .xRowid = vt_rowid,
    .xUpdate = vt_update,
};

int lt_sql_vtabs_init(lt_sql_db *d) {
    lt_sql_vtabs *v = calloc(1, sizeof *v);
    if (!v) return SQLITE_NOMEM;
    pthread_mutex_init(&v->mu, NULL);
    d->events = v;
    return sqlite3_create_module(d->db, LT_SQL_MODULE, &module, d);
}

void lt_sql_vtabs_free(lt_sql_db *d) {
    lt_sql_vtabs *v = d->events;
    if (!v) return;
    kept_free(v);
    for (size_t i = 0; i < v->n; i++) {
        free(v->src[i].path);
        free(v->src[i].threads);
    }
    free(v->src);
    pthread_mutex_destroy(&v->mu);
    free(v);
    d->events = NULL;
}
#else
typedef int lt_sql_vtab_unused; /* built without SQLite */
#endif
