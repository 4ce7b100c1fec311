/* A query's results, written as an aligned table (a terminal: every control
 * character made visible, ludus_text_show), CSV (RFC 4180: a field with a
 * comma, quote, CR or LF quoted, quotes doubled; NULL empty, an empty text
 * ""; a text a spreadsheet would run as a formula defused; on a terminal
 * control characters shown as the table shows them: ludus_text_csv, the
 * library's one CSV writer), a JSON array of objects per statement or JSON Lines
 * (strict JSON: control characters escaped, a byte that starts no valid UTF-8 character written as U+FFFD). Names from
 * a capture round-trip through CSV and JSON. */
#ifdef LUDUS_TRACE_SQLITE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql.h"

typedef struct wbuf {
    ludus_write_fn write;
    void *ud;
    char b[1 << 16];
    size_t n;
    int failed;
} wbuf;

static void wflush(wbuf *w) {
    if (w->n && !w->failed && w->write(w->ud, w->b, w->n) != 0) w->failed = 1;
    w->n = 0;
}
static void wput_slow(wbuf *w, const char *s, size_t n) {
    while (n) {
        if (w->n == sizeof w->b) wflush(w);
        size_t k = sizeof w->b - w->n < n ? sizeof w->b - w->n : n;
        memcpy(w->b + w->n, s, k);
        w->n += k;
        s += k;
        n -= k;
    }
}
/* Every byte of the results goes through these: the buffer's room is
 * looked at once (a tenth of a JSON Lines export was the loop above). */
static inline void wput(wbuf *w, const char *s, size_t n) {
    if (n <= sizeof w->b - w->n) {
        memcpy(w->b + w->n, s, n);
        w->n += n;
    } else {
        wput_slow(w, s, n);
    }
}
static void wstr(wbuf *w, const char *s) {
    wput(w, s, strlen(s));
}
static inline void wch(wbuf *w, char c) {
    if (w->n == sizeof w->b) wflush(w);
    w->b[w->n++] = c;
}

/* The length of the valid UTF-8 character at s (n bytes left), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t k = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (!k || k > n) return 0;
    for (size_t i = 1; i < k; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    uint32_t cp = k == 1 ? c : k == 2 ? c & 0x1F : k == 3 ? c & 0x0F : c & 0x07;
    for (size_t i = 1; i < k; i++) cp = cp << 6 | (s[i] & 0x3Fu);
    if ((k == 2 && cp < 0x80) || (k == 3 && cp < 0x800) || (k == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return k;
}

static void json_text(wbuf *w, const unsigned char *s, size_t n) {
    wch(w, '"');
    for (size_t i = 0; i < n;) {
        size_t plain = i; /* printable ASCII other than '"' and '\\': as it is, in one piece */
        while (plain < n && s[plain] >= 0x20 && s[plain] < 0x7F && s[plain] != '"' && s[plain] != '\\') plain++;
        if (plain > i) {
            wput(w, (const char *)s + i, plain - i);
            i = plain;
            continue;
        }
        unsigned c = s[i];
        if (c == '"' || c == '\\') {
            wch(w, '\\');
            wch(w, (char)c);
            i++;
        } else if (c < 0x20 || c == 0x7F) {
            char e[8];
            snprintf(e, sizeof e, "\\u%04x", c);
            wstr(w, e);
            i++;
        } else {
            size_t k = utf8_len(s + i, n - i);
            if (k) {
                wput(w, (const char *)s + i, k);
                i += k;
            } else {
                wstr(w, "\\ufffd");
                i++;
            }
        }
    }
    wch(w, '"');
}

/* A CSV text: the library's one CSV writer (ludus_text_csv: RFC 4180
 * quoting, formulas defused); shown: the output is a terminal, and control
 * characters are shown as the table shows them, never sent raw; otherwise
 * the text is written as it is (names round-trip). An empty text is "",
 * apart from NULL (nothing). */
static int wbuf_write(void *ud, const void *p, size_t n) {
    wput(ud, p, n);
    return 0;
}
static void csv_text(wbuf *w, const char *s, size_t n, int shown) {
    ludus_text_csv(s, n, LUDUS_CSV_QUOTE_EMPTY | (shown ? LUDUS_CSV_SHOW : 0u), wbuf_write, w);
}

static void hex(wbuf *w, const unsigned char *p, int n) {
    static const char d[] = "0123456789abcdef";
    for (int i = 0; i < n; i++) {
        wch(w, d[p[i] >> 4]);
        wch(w, d[p[i] & 15]);
    }
}

/* v in decimal at out (21 bytes at most with the NUL): the CSV and JSON of
 * a long capture are mostly integers, and snprintf was half their cost. */
static void int_text(char *out, int64_t v) {
    char tmp[24], *p = tmp + sizeof tmp;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    *--p = 0;
    do *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0) *--p = '-';
    memcpy(out, p, (size_t)(tmp + sizeof tmp - p));
}

/* A number as every output writes it (a real: one that reads back the same). */
static void num_text(sqlite3_stmt *st, int col, char *out, size_t cap) {
    if (sqlite3_column_type(st, col) == SQLITE_INTEGER)
        int_text(out, sqlite3_column_int64(st, col)); /* cap >= 24 at every call */
    else {
        double d = sqlite3_column_double(st, col); /* the shortest of 15 to 17 digits that reads back as d */
        for (int p = 15; p <= 17; p++) {
            snprintf(out, cap, "%.*g", p, d);
            if (strtod(out, NULL) == d) break;
        }
    }
}

/* ---- table: widths from the first rows ---- */

#define TABLE_SAMPLE 500

typedef struct cell {
    char *text; /* shown (control characters visible); NULL: NULL */
    int right;  /* a number: right-aligned */
} cell;

static size_t width_of(const char *s) {
    size_t n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

static int cell_take(sqlite3_stmt *st, int col, cell *out) {
    int type = sqlite3_column_type(st, col);
    out->right = type == SQLITE_INTEGER || type == SQLITE_FLOAT;
    out->text = NULL;
    if (type == SQLITE_NULL) return 0;
    char num[64];
    const char *src = num;
    size_t cap;
    if (out->right) {
        num_text(st, col, num, sizeof num);
        cap = sizeof num;
    } else if (type == SQLITE_BLOB) {
        int n = sqlite3_column_bytes(st, col);
        out->text = malloc((size_t)n * 2 + 4);
        if (!out->text) return -1;
        const unsigned char *p = sqlite3_column_blob(st, col);
        static const char d[] = "0123456789abcdef";
        char *o = out->text;
        *o++ = 'x';
        *o++ = '\'';
        for (int i = 0; i < n; i++) *o++ = d[p[i] >> 4], *o++ = d[p[i] & 15];
        *o++ = '\'';
        *o = 0;
        return 0;
    } else {
        src = (const char *)sqlite3_column_text(st, col);
        if (!src) src = "";
        cap = (size_t)sqlite3_column_bytes(st, col) * 6 + 4; /* \xHH or \uHHHH per byte at most */
    }
    out->text = malloc(cap);
    if (!out->text) return -1;
    /* A text may hold a NUL: what follows it is not shown on a terminal. */
    ludus_text_show(out->text, cap, src, 0);
    return 0;
}

static void table_row(wbuf *w, const cell *c, const size_t *width, int n) {
    for (int i = 0; i < n; i++) {
        const char *t = c[i].text ? c[i].text : "NULL";
        size_t tw = width_of(t), pad = tw < width[i] ? width[i] - tw : 0;
        if (i) wstr(w, "  ");
        if (c[i].right)
            for (size_t k = 0; k < pad; k++) wch(w, ' ');
        wstr(w, t);
        if (!c[i].right && i + 1 < n)
            for (size_t k = 0; k < pad; k++) wch(w, ' ');
    }
    wch(w, '\n');
}

static int table_out(wbuf *w, sqlite3_stmt *st, int *step_rc) {
    int n = sqlite3_column_count(st);
    size_t *width = calloc((size_t)n, sizeof *width);
    cell *rows = calloc((size_t)n * TABLE_SAMPLE, sizeof *rows), *head = calloc((size_t)n, sizeof *head);
    int held = 0, rc = 0, oom = !width || !rows || !head;
    for (int i = 0; i < n && !oom; i++) {
        const char *name = sqlite3_column_name(st, i);
        size_t cap = strlen(name ? name : "") * 6 + 4;
        if (!(head[i].text = malloc(cap))) oom = 1;
        if (!oom) ludus_text_show(head[i].text, cap, name ? name : "", 0);
        if (!oom) width[i] = width_of(head[i].text);
    }
    while (!oom && held < TABLE_SAMPLE && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n && !oom; i++) {
            cell *c = &rows[(size_t)held * (size_t)n + (size_t)i];
            if (cell_take(st, i, c) != 0) oom = 1;
            size_t cw = width_of(c->text ? c->text : "NULL");
            if (!oom && cw > width[i]) width[i] = cw;
        }
        held++;
    }
    if (!oom) {
        table_row(w, head, width, n);
        for (int i = 0; i < n; i++) {
            if (i) wstr(w, "  ");
            for (size_t k = 0; k < width[i]; k++) wch(w, '-');
        }
        wch(w, '\n');
        for (int r = 0; r < held; r++) table_row(w, rows + (size_t)r * (size_t)n, width, n);
    }
    /* Past the sample, the same widths (a wider cell pushes its line). */
    cell *one = rows;
    while (!oom && rc == SQLITE_ROW && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        for (int i = 0; i < n; i++) {
            free(one[i].text);
            one[i].text = NULL;
        }
        for (int i = 0; i < n && !oom; i++)
            if (cell_take(st, i, &one[i]) != 0) oom = 1;
        if (!oom) table_row(w, one, width, n);
    }
    if (rows)
        for (size_t i = 0; i < (size_t)n * TABLE_SAMPLE; i++) free(rows[i].text);
    if (head)
        for (int i = 0; i < n; i++) free(head[i].text);
    free(rows);
    free(head);
    free(width);
    *step_rc = oom ? SQLITE_NOMEM : rc;
    return oom ? -1 : 0;
}

/* ---- CSV and JSON: streamed ---- */

static void csv_value(wbuf *w, sqlite3_stmt *st, int col, int shown) {
    char num[64];
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        break;
    case SQLITE_INTEGER:
    case SQLITE_FLOAT:
        num_text(st, col, num, sizeof num);
        wstr(w, num);
        break;
    case SQLITE_BLOB:
        wstr(w, "x'");
        hex(w, sqlite3_column_blob(st, col), sqlite3_column_bytes(st, col));
        wch(w, '\'');
        break;
    default:
        csv_text(w, (const char *)sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col), shown);
    }
}

static void json_value(wbuf *w, sqlite3_stmt *st, int col) {
    char num[64];
    double d;
    switch (sqlite3_column_type(st, col)) {
    case SQLITE_NULL:
        wstr(w, "null");
        break;
    case SQLITE_INTEGER:
        num_text(st, col, num, sizeof num);
        wstr(w, num);
        break;
    case SQLITE_FLOAT:
        d = sqlite3_column_double(st, col);
        if (!isfinite(d)) {
            wstr(w, "null");
        } else {
            num_text(st, col, num, sizeof num);
            wstr(w, num);
        }
        break;
    case SQLITE_BLOB:
        wch(w, '"');
        hex(w, sqlite3_column_blob(st, col), sqlite3_column_bytes(st, col));
        wch(w, '"');
        break;
    default:
        json_text(w, sqlite3_column_text(st, col), (size_t)sqlite3_column_bytes(st, col));
    }
}

typedef struct keys_text {
    char *p;
    size_t n, cap;
} keys_text;

static int keys_append(void *ud, const void *data, size_t n) {
    keys_text *k = ud;
    if (k->n + n > k->cap) {
        size_t cap = k->cap ? k->cap * 2 : 1024;
        while (cap < k->n + n) cap *= 2;
        char *p = realloc(k->p, cap);
        if (!p) return -1;
        k->p = p;
        k->cap = cap;
    }
    memcpy(k->p + k->n, data, n);
    k->n += n;
    return 0;
}

/* Each column's JSON key ("name":) escaped once per statement, not once a
 * row: at[i] .. at[i + 1] in the text returned (malloc'd; NULL: out of memory). */
static char *json_keys(sqlite3_stmt *st, int n, size_t *at) {
    keys_text k = {0};
    wbuf *b = malloc(sizeof *b);
    if (!b) return NULL;
    b->write = keys_append;
    b->ud = &k;
    b->n = 0;
    b->failed = 0;
    for (int i = 0; i < n; i++) {
        const char *name = sqlite3_column_name(st, i);
        at[i] = k.n + b->n;
        json_text(b, (const unsigned char *)(name ? name : ""), strlen(name ? name : ""));
        wch(b, ':');
    }
    at[n] = k.n + b->n;
    wflush(b);
    int failed = b->failed;
    free(b);
    if (failed) {
        free(k.p);
        return NULL;
    }
    return k.p ? k.p : calloc(1, 1);
}

static int stream_out(wbuf *w, sqlite3_stmt *st, int mode, int shown) {
    int n = sqlite3_column_count(st), rc, rows = 0;
    size_t *key_at = NULL;
    char *keys = NULL;
    if (mode != LT_SQL_CSV) {
        key_at = malloc(((size_t)n + 1) * sizeof *key_at);
        keys = key_at ? json_keys(st, n, key_at) : NULL;
        if (!keys) {
            free(key_at);
            return SQLITE_NOMEM;
        }
    }
    if (mode == LT_SQL_CSV) {
        for (int i = 0; i < n; i++) {
            if (i) wch(w, ',');
            const char *name = sqlite3_column_name(st, i);
            csv_text(w, name ? name : "", strlen(name ? name : ""), shown);
        }
        wstr(w, "\r\n");
    } else if (mode == LT_SQL_JSON) {
        wch(w, '[');
    }
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (mode == LT_SQL_CSV) {
            for (int i = 0; i < n; i++) {
                if (i) wch(w, ',');
                csv_value(w, st, i, shown);
            }
            wstr(w, "\r\n");
        } else {
            if (mode == LT_SQL_JSON) wstr(w, rows ? ",\n" : "\n");
            wch(w, '{');
            for (int i = 0; i < n; i++) {
                if (i) wch(w, ',');
                wput(w, keys + key_at[i], key_at[i + 1] - key_at[i]);
                json_value(w, st, i);
            }
            wch(w, '}');
            if (mode == LT_SQL_JSONL) wch(w, '\n');
        }
        rows++;
        if (w->failed) break;
    }
    if (mode == LT_SQL_JSON) wstr(w, rows ? "\n]\n" : "]\n");
    free(keys);
    free(key_at);
    return rc;
}

int lt_sql_exec(const char *verb, sqlite3 *db, const char *sql, int mode, ludus_write_fn write, void *ud) {
    int shown = (mode & LT_SQL_SHOWN) != 0;
    mode &= ~LT_SQL_SHOWN;
    wbuf *w = malloc(sizeof *w);
    if (!w) {
        fprintf(stderr, "ludus-trace %s: out of memory\n", verb);
        return LT_IO;
    }
    w->write = write;
    w->ud = ud;
    w->n = 0;
    w->failed = 0;
    int status = LT_OK, results = 0;
    const char *rest = sql;
    while (rest && *rest && status == LT_OK) {
        sqlite3_stmt *st = NULL;
        const char *tail = NULL;
        int prep = sqlite3_prepare_v2(db, rest, -1, &st, &tail);
        if (prep == SQLITE_OK && st && !sqlite3_stmt_readonly(st)) {
            sqlite3_finalize(st);
            st = NULL;
            prep = SQLITE_AUTH;
        }
        if (prep != SQLITE_OK) {
            char shown[1024];
            if (prep == SQLITE_AUTH || sqlite3_errcode(db) == SQLITE_AUTH)
                fprintf(stderr,
                        "ludus-trace %s: SQL: refused: queries only read the captures (no ATTACH or DETACH, no "
                        "statement that writes, no VACUUM, no pragma that sets something)\n",
                        verb);
            else
                fprintf(stderr, "ludus-trace %s: SQL: %s\n", verb,
                        ludus_text_show(shown, sizeof shown, sqlite3_errmsg(db), 0));
            status = LT_USAGE;
            break;
        }
        rest = tail;
        if (!st) continue; /* white space or a comment */
        int rc;
        if (sqlite3_column_count(st) == 0) {
            while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
            }
        } else {
            if (results++ && mode == LT_SQL_TABLE) wch(w, '\n');
            if (mode == LT_SQL_TABLE)
                table_out(w, st, &rc);
            else
                rc = stream_out(w, st, mode, shown);
        }
        if (rc != SQLITE_DONE && !w->failed) {
            char shown[1024];
            fprintf(stderr, "ludus-trace %s: SQL: %s\n", verb,
                    ludus_text_show(shown, sizeof shown, sqlite3_errmsg(db), 0));
            status = LT_USAGE;
        }
        sqlite3_finalize(st);
    }
    wflush(w);
    if (w->failed) {
        fprintf(stderr, "ludus-trace %s: writing the results failed\n", verb);
        status = LT_IO;
    }
    free(w);
    return status;
}
#else
typedef int lt_sql_out_unused; /* built without SQLite */
#endif
