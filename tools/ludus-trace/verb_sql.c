/* ludus-trace sql CAPTURE|DIR... ['QUERY']: SQL over captures. The captures
 * are opened and analysed one at a time, what the analysis knows loaded into
 * a temporary on-disk SQLite database (the tables of sql.h), while the event
 * tables read the files at each query (sql_vtab.c); then the query runs;
 * without one, a prompt reads statements from standard input. Results: an aligned table on a terminal,
 * CSV otherwise (--csv, --json, --jsonl, --table choose). Without SQLite at
 * build time the verb says so. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "verbs.h"
#ifdef LUDUS_TRACE_SQLITE
#include "sql.h"
#endif

static const lt_verb sql_verb;

#ifdef LUDUS_TRACE_SQLITE

typedef struct paths {
    char **v;
    size_t n, cap;
} paths;

static int paths_add(paths *p, const char *s) {
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        char **v = realloc(p->v, cap * sizeof *v);
        if (!v) return -1;
        p->v = v;
        p->cap = cap;
    }
    if (!(p->v[p->n] = strdup(s))) return -1;
    p->n++;
    return 0;
}

static void paths_free(paths *p) {
    for (size_t i = 0; i < p->n; i++) free(p->v[i]);
    free(p->v);
}

static int by_name(const void *x, const void *y) {
    return strcmp(*(char *const *)x, *(char *const *)y);
}

int lt_regular_file(const char *path) {
    struct stat s;
    return strcmp(path, "-") != 0 && stat(path, &s) == 0 && S_ISREG(s.st_mode);
}

static int is_dir(const char *path) {
    struct stat s;
    return strcmp(path, "-") != 0 && stat(path, &s) == 0 && S_ISDIR(s.st_mode);
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), k = strlen(tail);
    return n >= k && !strcmp(s + n - k, tail);
}

/* The .ludus files of a directory, sorted by name; an exit code. */
static int add_dir(paths *p, const char *dir) {
    DIR *d = opendir(dir);
    char shown[512];
    if (!d) {
        fprintf(stderr, "ludus-trace sql: %s: cannot read the directory\n",
                ludus_text_show(shown, sizeof shown, dir, 0));
        return LT_IO;
    }
    size_t first = p->n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!ends_with(e->d_name, ".ludus")) continue;
        size_t n = strlen(dir) + strlen(e->d_name) + 2;
        char *full = malloc(n);
        if (!full) break;
        snprintf(full, n, "%s%s%s", dir, ends_with(dir, "/") ? "" : "/", e->d_name);
        struct stat st;
        if (stat(full, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO would wait for a writer: skipped, said */
            fprintf(stderr, "ludus-trace sql: %s: not a regular file, skipped\n",
                    ludus_text_show(shown, sizeof shown, full, 0));
            free(full);
            continue;
        }
        int bad = paths_add(p, full);
        free(full);
        if (bad) break;
    }
    closedir(d);
    if (p->n == first) {
        fprintf(stderr, "ludus-trace sql: %s: no .ludus file in the directory\n",
                ludus_text_show(shown, sizeof shown, dir, 0));
        return LT_USAGE;
    }
    qsort(p->v + first, p->n - first, sizeof *p->v, by_name);
    return LT_OK;
}

static int write_stdout(void *ud, const void *data, size_t n) {
    (void)ud;
    return fwrite(data, 1, n, stdout) == n ? 0 : -1;
}

/* Loads every capture; an exit code (the first failure stops). */
static int load_all(const char *verb, lt_sql_db *d, char *const *files, size_t n) {
    lt_progress bar;
    lt_progress_begin(&bar, "ludus-trace sql: loading", n);
    int rc = LT_OK;
    for (size_t i = 0; i < n && rc == LT_OK; i++) {
        rc = lt_sql_db_load(verb, d, files[i], NULL);
        lt_progress_update(&bar, i + 1);
    }
    lt_progress_end(&bar);
    if (rc == LT_OK) rc = lt_sql_db_index(verb, d);
    return rc == LT_OK ? lt_sql_db_seal(verb, d) : rc;
}

static const char *const mode_names[] = {"table", "csv", "json", "jsonl"};

/* The prompt: statements from standard input, each run when complete;
 * .schema, .tables, .mode M and .quit. */
static int interactive(lt_sql_db *d, int mode) {
    int tty = isatty(0), status = LT_OK, shown = isatty(1) ? LT_SQL_SHOWN : 0;
    char *line = NULL, *buf = NULL;
    size_t line_cap = 0, n = 0, cap = 0;
    if (tty)
        fprintf(stderr,
                "ludus-trace sql: %lld capture(s) loaded; end each statement with ';' (.schema, .tables, "
                ".mode table|csv|json|jsonl, .quit)\n",
                (long long)(d->next_capture - 1));
    for (;;) {
        if (tty) fputs(n ? "...> " : "sql> ", stderr);
        ssize_t k = getline(&line, &line_cap, stdin);
        if (k < 0) break;
        if (n == 0 && line[0] == '.') {
            char *cmd = line + 1;
            cmd[strcspn(cmd, "\r\n")] = 0;
            if (!strcmp(cmd, "quit") || !strcmp(cmd, "exit")) break;
            if (!strcmp(cmd, "schema")) {
                lt_sql_schema_text(stdout);
            } else if (!strcmp(cmd, "tables")) {
                for (int i = 0; i < LT_SQL_TABLE_COUNT; i++) printf("%s\n", lt_sql_tables[i].name); /* constant text */
            } else if (!strncmp(cmd, "mode ", 5)) {
                int m = -1;
                for (int i = 0; i < 4; i++)
                    if (!strcmp(cmd + 5, mode_names[i])) m = i;
                if (m < 0)
                    fprintf(stderr, "ludus-trace sql: the modes are table, csv, json and jsonl\n");
                else
                    mode = m;
            } else {
                fprintf(stderr, "ludus-trace sql: the commands are .schema, .tables, .mode M and .quit\n");
            }
            fflush(stdout);
            continue;
        }
        if (n + (size_t)k + 1 > cap) {
            size_t c2 = cap ? cap * 2 : 4096;
            while (c2 < n + (size_t)k + 1) c2 *= 2;
            char *b = realloc(buf, c2);
            if (!b) {
                status = LT_IO;
                break;
            }
            buf = b;
            cap = c2;
        }
        memcpy(buf + n, line, (size_t)k + 1);
        n += (size_t)k;
        if (!sqlite3_complete(buf)) continue;
        int rc = lt_sql_exec("sql", d->db, buf, mode | shown, write_stdout, NULL);
        fflush(stdout);
        if (rc != LT_OK) status = rc; /* said; the prompt goes on */
        if (rc == LT_IO) break;
        n = 0;
    }
    if (n && status == LT_OK) status = lt_sql_exec("sql", d->db, buf, mode | shown, write_stdout, NULL);
    if (tty) fputc('\n', stderr);
    free(line);
    free(buf);
    return tty && status == LT_USAGE ? LT_OK : status;
}

static int run_sql(int argc, char **argv) {
    const char *query = NULL, *o_out = NULL;
    int mode = isatty(1) ? LT_SQL_TABLE : LT_SQL_CSV, schema = 0, rc;
    paths inputs = {0}, files = {0};
    rc = LT_OK;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (lt_output_option(&sql_verb, argc, argv, &i, &o_out, &rc)) {
            if (rc) goto out;
        } else if (!strcmp(a, "--csv")) {
            mode = LT_SQL_CSV;
        } else if (!strcmp(a, "--json")) {
            mode = LT_SQL_JSON;
        } else if (!strcmp(a, "--jsonl")) {
            mode = LT_SQL_JSONL;
        } else if (!strcmp(a, "--table")) {
            mode = LT_SQL_TABLE;
        } else if (!strcmp(a, "--schema")) {
            schema = 1;
        } else if (!strcmp(a, "-c") || !strcmp(a, "--query")) {
            if (i + 1 >= argc) {
                rc = lt_missing_value(&sql_verb, a);
                goto out;
            }
            if (query) {
                rc = lt_usage(&sql_verb, "one query only (several statements may go in it)");
                goto out;
            }
            query = argv[++i];
        } else if (a[0] == '-' && a[1] && !strpbrk(a, " \t\r\n")) { /* "-- a comment\nSELECT ...": a query */
            rc = lt_unknown_option(&sql_verb, a);
            goto out;
        } else if (paths_add(&inputs, a) != 0) {
            rc = LT_IO;
            goto out;
        }
    }
    if (schema) {
        if (mode == LT_SQL_JSON)
            lt_sql_schema_json(stdout);
        else
            lt_sql_schema_text(stdout);
        rc = fflush(stdout) == 0 ? LT_OK : LT_IO;
        goto out;
    }
    /* The last argument is the query when it names no capture or directory. */
    size_t nin = inputs.n;
    if (!query && nin >= 2) {
        const char *last = inputs.v[nin - 1];
        struct stat s;
        if (!ends_with(last, ".ludus") && strcmp(last, "-") != 0 && stat(last, &s) != 0) {
            query = last;
            nin--;
        }
    }
    if (nin == 0) {
        rc = lt_usage(&sql_verb, "no capture file or directory given");
        goto out;
    }
    for (size_t i = 0; i < nin; i++) {
        rc = is_dir(inputs.v[i]) ? add_dir(&files, inputs.v[i]) : paths_add(&files, inputs.v[i]) ? LT_IO : LT_OK;
        if (rc) goto out;
    }
    if (!query && o_out) {
        rc = lt_usage(&sql_verb, "-o OUT takes a query's results (the prompt writes to standard output)");
        goto out;
    }
    /* The event tables read the files at each query (sql_vtab.c); a capture
     * from standard input or a FIFO can be read once only: loaded. */
    int events_virtual = 1;
    for (size_t i = 0; i < files.n; i++) events_virtual &= lt_regular_file(files.v[i]);
    lt_sql_db d;
    if ((rc = lt_sql_db_open("sql", "", events_virtual, &d)) != LT_OK) goto out;
    rc = load_all("sql", &d, files.v, files.n);
    if (rc == LT_OK && query) {
        lt_out o;
        if ((rc = lt_out_open("sql", o_out ? o_out : "-", &o)) == LT_OK) {
            int shown = (!o_out || !strcmp(o_out, "-")) && isatty(1) ? LT_SQL_SHOWN : 0; /* a terminal: nothing raw */
            int q = lt_sql_exec("sql", d.db, query, mode | shown, lt_out_write, &o);
            rc = lt_out_close("sql", &o, q != LT_OK);
            if (q != LT_OK) rc = q;
        }
    } else if (rc == LT_OK) {
        rc = interactive(&d, mode);
        if (fflush(stdout) != 0 && rc == LT_OK) rc = LT_IO;
    }
    lt_sql_db_close(&d);
out:
    paths_free(&files);
    paths_free(&inputs);
    return rc;
}

#else /* built without SQLite */

static int run_sql(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "ludus-trace sql: this ludus-trace was built without SQLite (install libsqlite3-dev and "
                    "build again: scripts/ensure-deps.sh installs it)\n");
    return LT_USAGE;
}

#endif

static const lt_verb sql_verb = {
    "sql",
    "SQL over one capture or many (SQLite): slices, frames, counters, locks, logs ... as tables",
    "usage: ludus-trace sql CAPTURE|DIR... 'QUERY' [--csv | --json | --jsonl | --table] [-o OUT]\n"
    "       ludus-trace sql CAPTURE|DIR...            (a prompt: statements from standard input)\n"
    "       ludus-trace sql --schema [--json]\n"
    "  CAPTURE: a .ludus file, or - for standard input; DIR: every .ludus file in it. The\n"
    "  captures are queried as one set: every row has its capture_id (the capture table\n"
    "  holds each file's path and metadata). The last argument is the query unless it\n"
    "  names a file or a directory; -c QUERY gives it explicitly. Several statements run\n"
    "  in turn. Tables and columns: --schema, docs/sql.md (named as Perfetto's trace\n"
    "  processor names them: slice, thread, counter, ts, dur). Times are ns, ts since\n"
    "  the capture's start. percentile(x, p) (nearest rank, p in 0..100) and median(x)\n"
    "  are aggregates of their own.\n"
    "  Output: an aligned table on a terminal (control characters shown as \\xHH), CSV\n"
    "  otherwise; --json an array of objects, --jsonl one object a line.\n",
    "--csv, --json, --jsonl, --table, --schema, -c QUERY, -o OUT, --help, --version",
    run_sql,
};
LUDUS_TRACE_VERB(sql_verb)
