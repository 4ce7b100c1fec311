/* ludus-trace convert CAPTURE OUT.sqlite | DIR --format csv|jsonl: the
 * tables of ludus-trace sql for other engines. A SQLite database file (built
 * in a temporary, then written to OUT by the rule of every output), or a directory with one
 * file per table (CSV with a header line, or JSON Lines), schema.sql (the
 * CREATE statements in types DuckDB and Spark read: BIGINT, DOUBLE,
 * VARCHAR), load-duckdb.sql (COPY of each file) and schema.json. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs.h"

int lt_sql_export_kind(const char *out, const char *format_word) {
    if (format_word) {
        if (!strcmp(format_word, "sqlite")) return 1;
        if (!strcmp(format_word, "csv")) return 2;
        if (!strcmp(format_word, "jsonl")) return 3;
        return 0;
    }
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && slash > dot)) return 0;
    return !strcmp(dot, ".sqlite") || !strcmp(dot, ".sqlite3") || !strcmp(dot, ".db") ? 1 : 0;
}

#ifdef LUDUS_TRACE_SQLITE
#include "sql.h"

/* The database is built in a private temporary ($TMPDIR, else /tmp: SQLite
 * writes a file by path, with journals beside it), then copied to OUT
 * through lt_out, the rule every output follows (ludus_output: a regular
 * file replaced atomically, a FIFO or a device written in place, a link's
 * target written). OUT is never renamed over, whatever it is. */
static int export_sqlite(const char *verb, const char *in, const char *out, const ludus_cut_desc *cut) {
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    size_t n = strlen(dir) + 48;
    char *tmp = malloc(n);
    if (!tmp) return LT_IO;
    snprintf(tmp, n, "%s/ludus-trace-sqlite-XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        char shown[512];
        fprintf(stderr, "ludus-trace %s: a temporary database in %s: %s\n", verb,
                ludus_text_show(shown, sizeof shown, dir, 0), strerror(errno));
        free(tmp);
        return LT_IO;
    }
    close(fd); /* SQLite opens it by name: an empty file is an empty database */
    lt_sql_db d;
    int rc = lt_sql_db_open(verb, tmp, 0, &d);
    if (rc == LT_OK) {
        rc = lt_sql_db_load(verb, &d, in, cut);
        if (rc == LT_OK) rc = lt_sql_db_index(verb, &d);
        lt_sql_db_close(&d);
    }
    FILE *f = rc == LT_OK ? fopen(tmp, "rb") : NULL;
    if (rc == LT_OK && !f) rc = LT_IO;
    lt_out o;
    if (rc == LT_OK && (rc = lt_out_open(verb, out, &o)) == LT_OK) {
        char buf[1 << 16];
        size_t k;
        int failed = 0;
        while (!failed && (k = fread(buf, 1, sizeof buf, f)) > 0) failed = lt_out_write(&o, buf, k) != 0;
        if (!failed && ferror(f)) {
            fprintf(stderr, "ludus-trace %s: reading the temporary database failed\n", verb);
            rc = lt_out_close(verb, &o, 1);
        } else {
            rc = lt_out_close(verb, &o, 0); /* a failed write: the commit says what failed, and aborts */
        }
    }
    if (f) fclose(f);
    unlink(tmp);
    free(tmp);
    return rc;
}

/* dir/name written whole or not at all; text given, or a table's rows. */
static int write_file(const char *verb, sqlite3 *db, const char *dir, const char *name, const char *text,
                      const char *table, int mode) {
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    if (!path) return LT_IO;
    snprintf(path, n, "%s/%s", dir, name);
    lt_out o;
    int rc = lt_out_open(verb, path, &o);
    if (rc == LT_OK) {
        int failed = 0;
        if (text) {
            failed = lt_out_write(&o, text, strlen(text)) != 0;
        } else {
            char sql[256];
            snprintf(sql, sizeof sql, "SELECT * FROM %s", table);
            failed = lt_sql_exec(verb, db, sql, mode, lt_out_write, &o) != LT_OK;
        }
        rc = lt_out_close(verb, &o, failed);
    }
    free(path);
    return rc;
}

static int export_dir(const char *verb, const char *in, const char *dir, int mode, const ludus_cut_desc *cut) {
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        char shown[512];
        fprintf(stderr, "ludus-trace %s: %s: %s\n", verb, ludus_text_show(shown, sizeof shown, dir, 0),
                strerror(errno));
        return LT_IO;
    }
    lt_sql_db d;
    int rc = lt_sql_db_open(verb, "", lt_regular_file(in), &d); /* the event tables read from the file */
    if (rc != LT_OK) return rc;
    rc = lt_sql_db_load(verb, &d, in, cut);
    const char *ext = mode == LT_SQL_CSV ? "csv" : "jsonl";
    char *schema = rc == LT_OK ? lt_sql_create_statements("duckdb", 0) : NULL;
    if (rc == LT_OK && !schema) rc = LT_IO;
    size_t cap = 4096, len = 0;
    char *load = rc == LT_OK ? malloc(cap) : NULL;
    if (rc == LT_OK && !load) rc = LT_IO;
    if (load) len = (size_t)snprintf(load, cap, "-- DuckDB: run in this directory after schema.sql\n");
    for (int i = 0; i < LT_SQL_TABLE_COUNT && rc == LT_OK; i++) {
        const lt_sql_table *t = &lt_sql_tables[i];
        if (t->select) continue; /* a view: schema.sql makes it */
        char name[96];
        snprintf(name, sizeof name, "%s.%s", t->name, ext);
        rc = write_file(verb, d.db, dir, name, NULL, t->name, mode);
        if (len + 256 > cap) {
            char *b = realloc(load, cap *= 2);
            if (!b) {
                rc = LT_IO;
                break;
            }
            load = b;
        }
        len += (size_t)snprintf(load + len, cap - len, "COPY %s FROM '%s' (%s);\n", t->name, name,
                                mode == LT_SQL_CSV ? "FORMAT csv, HEADER" : "FORMAT json");
    }
    if (rc == LT_OK) rc = write_file(verb, d.db, dir, "schema.sql", schema, NULL, 0);
    if (rc == LT_OK) rc = write_file(verb, d.db, dir, "load-duckdb.sql", load, NULL, 0);
    if (rc == LT_OK) {
        size_t n = strlen(dir) + 16;
        char *path = malloc(n);
        FILE *f = NULL;
        if (path) snprintf(path, n, "%s/schema.json", dir);
        if (path && (f = fopen(path, "w")) != NULL) {
            lt_sql_schema_json(f);
            if (fclose(f) != 0) rc = LT_IO;
        } else {
            rc = LT_IO;
        }
        free(path);
    }
    free(schema);
    free(load);
    lt_sql_db_close(&d);
    return rc;
}

int lt_sql_export(const char *verb, const char *in, const char *out, int kind, const ludus_cut_desc *cut) {
    if (kind == 1) return export_sqlite(verb, in, out, cut);
    return export_dir(verb, in, out, kind == 2 ? LT_SQL_CSV : LT_SQL_JSONL, cut);
}
#else
int lt_sql_export(const char *verb, const char *in, const char *out, int kind, const ludus_cut_desc *cut) {
    (void)cut;
    (void)in;
    (void)out;
    (void)kind;
    fprintf(stderr,
            "ludus-trace %s: this ludus-trace was built without SQLite: no tables to export (install "
            "libsqlite3-dev and build again)\n",
            verb);
    return LT_USAGE;
}
#endif
