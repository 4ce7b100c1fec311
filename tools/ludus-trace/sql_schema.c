/* The tables of ludus-trace sql as data (sql.h's lists, expanded once), and
 * everything made from them: the CREATE statements for SQLite and for the
 * engines the export is for, --schema's text and the export's schema.json.
 * docs/sql.md's schema is --schema's text (a test compares them). */
#ifdef LUDUS_TRACE_SQLITE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql.h"

#define LT__SQL_COL(t, name, type, doc) {#name, #type, doc},
#define LT__SQL_COLS(name, doc, perfetto, events, select) \
    static const lt_sql_column cols_##name[] = {LT_SQL_COLS_##name(LT__SQL_COL, name)};
LT_SQL_TABLES(LT__SQL_COLS)
#undef LT__SQL_COLS
#undef LT__SQL_COL

const lt_sql_table lt_sql_tables[LT_SQL_TABLE_COUNT] = {
#define LT__SQL_TABLE(name, doc, perfetto, events, select) \
    {#name, doc, perfetto, select, cols_##name, LT_##name##__COLS, events},
    LT_SQL_TABLES(LT__SQL_TABLE)
#undef LT__SQL_TABLE
};

typedef struct sbuf {
    char *p;
    size_t n, cap;
    int oom;
} sbuf;

static void put(sbuf *b, const char *s) {
    size_t k = strlen(s);
    if (b->oom) return;
    if (b->n + k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->n + k + 1) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, s, k + 1);
    b->n += k;
}

static const char *type_in(const char *dialect, const char *type) {
    if (strcmp(dialect, "duckdb") != 0) return type;
    return !strcmp(type, "INTEGER") ? "BIGINT" : !strcmp(type, "REAL") ? "DOUBLE" : "VARCHAR";
}

char *lt_sql_create_statements(const char *dialect, int events_virtual) {
    sbuf b = {0};
    for (int i = 0; i < LT_SQL_TABLE_COUNT; i++) {
        const lt_sql_table *t = &lt_sql_tables[i];
        if (t->events && events_virtual) {
            put(&b, "CREATE VIRTUAL TABLE ");
            put(&b, t->name); /* constant text */
            put(&b, " USING " LT_SQL_MODULE ";\n");
            continue;
        }
        put(&b, t->select ? "CREATE VIEW " : "CREATE TABLE ");
        put(&b, t->name); /* constant text */
        put(&b, t->select ? " (" : " (\n");
        for (int c = 0; c < t->ncols; c++) {
            if (!t->select) put(&b, "  ");
            put(&b, t->cols[c].name); /* constant text */
            if (!t->select) {
                put(&b, " ");
                put(&b, type_in(dialect, t->cols[c].type));
            }
            put(&b, c + 1 < t->ncols ? (t->select ? ", " : ",\n") : (t->select ? ") AS " : "\n);\n"));
        }
        if (t->select) {
            put(&b, t->select);
            put(&b, ";\n");
        }
    }
    if (b.oom) {
        free(b.p);
        return NULL;
    }
    return b.p;
}

void lt_sql_schema_text(FILE *f) {
    for (int i = 0; i < LT_SQL_TABLE_COUNT; i++) {
        const lt_sql_table *t = &lt_sql_tables[i];
        fprintf(f, "%s%s: %s", i ? "\n" : "", t->name, t->doc); /* constant text */
        if (t->select) fprintf(f, " (a view)");
        if (t->perfetto[0]) fprintf(f, " [Perfetto: %s]", t->perfetto);
        fprintf(f, "\n");
        for (int c = 0; c < t->ncols; c++)
            fprintf(f, "  %-16s %-8s %s\n", t->cols[c].name, t->cols[c].type, t->cols[c].doc); /* constant text */
    }
}

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

void lt_sql_schema_json(FILE *f) {
    fprintf(f, "{\"tables\":[");
    for (int i = 0; i < LT_SQL_TABLE_COUNT; i++) {
        const lt_sql_table *t = &lt_sql_tables[i];
        fprintf(f, "%s\n{\"name\":", i ? "," : "");
        json_str(f, t->name);
        fprintf(f, ",\"view\":%s,\"doc\":", t->select ? "true" : "false");
        json_str(f, t->doc);
        fprintf(f, ",\"columns\":[");
        for (int c = 0; c < t->ncols; c++) {
            fprintf(f, "%s{\"name\":", c ? "," : "");
            json_str(f, t->cols[c].name);
            fprintf(f, ",\"type\":");
            json_str(f, t->cols[c].type);
            fprintf(f, ",\"duckdb\":");
            json_str(f, type_in("duckdb", t->cols[c].type));
            fprintf(f, "}");
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n]}\n");
}
#else
typedef int lt_sql_schema_unused; /* built without SQLite */
#endif
