/* ludus-trace verbs: each verb_*.c file defines one verb and registers it
 * with LUDUS_TRACE_VERB; main.c dispatches on argv[1]; io.c opens inputs
 * and outputs ("-": standard input or output). */
#ifndef LUDUS_TRACE_VERBS_H
#define LUDUS_TRACE_VERBS_H

#include <ludus/capture_file.h>
#include <stdint.h>
#include <stdio.h>

/* Exit codes of every verb, X(NAME, code, meaning): --help lists them. */
#define LT_EXIT_CODES(X)                                                               \
    X(LT_OK, 0, "ok")                                                                  \
    X(LT_USAGE, 1, "usage: a bad option or argument (it is named)")                    \
    X(LT_BAD_INPUT, 2, "bad input: a malformed or damaged file (the offset is named)") \
    X(LT_IO, 3, "I/O error: a file that cannot be read or written")                    \
    X(LT_FAILED_GATE, 4, "a diff --fail-if gate tripped")
enum {
#define LT__EXIT_ENUM(name, code, meaning) name = code,
    LT_EXIT_CODES(LT__EXIT_ENUM)
#undef LT__EXIT_ENUM
};

typedef struct lt_verb {
    const char *name;                  /* "info" */
    const char *summary;               /* one line for the verb list */
    const char *usage;                 /* full usage text, printed by --help and on a usage error */
    const char *options;               /* the options it takes, for an error that names a bad one */
    int (*run)(int argc, char **argv); /* argv[0] is the verb */
} lt_verb;

void lt_register_verb(const lt_verb *v);

#define LUDUS_TRACE_VERB(var)                                       \
    __attribute__((constructor)) static void var##_register(void) { \
        lt_register_verb(&var);                                     \
    }

/* "ludus-trace VERB: WHAT: the error (the library's detail)" on stderr. */
void lt_error(const char *verb, const char *what, int rc);

/* Prints the problem and the verb's usage to stderr and returns LT_USAGE. */
int lt_usage(const lt_verb *v, const char *problem);
/* An option the verb does not take: names it and the ones it takes, on
 * stderr; returns LT_USAGE. */
int lt_unknown_option(const lt_verb *v, const char *arg);
/* An option without its value: names it; returns LT_USAGE. */
int lt_missing_value(const lt_verb *v, const char *option);

/* Progress on stderr for work over a second (LUDUS_TRACE_PROGRESS_MS, in
 * ms, changes the second: 0 shows it at once), only when stderr is a
 * terminal; the line is cleared when the work is done. With a total, a bar
 * (lt_progress_update); without one, the phase and the time it has taken,
 * redrawn by a thread of its own (lt_busy_begin .. lt_busy_end). */
typedef struct lt_progress {
    const char *label;
    uint64_t total;
    int64_t start_ns, last_ns, after_ns;
    int enabled, shown;
} lt_progress;
void lt_progress_begin(lt_progress *p, const char *label, uint64_t total);
void lt_progress_update(lt_progress *p, uint64_t done);
void lt_progress_end(lt_progress *p);
void lt_busy_begin(const char *verb, const char *what, const char *path);
void lt_busy_end(void);
/* One line for work that runs on several threads (lt_parallel): the
 * lt_busy_begin and lt_busy_end calls between these two do nothing. */
void lt_busy_hold(const char *verb, const char *what, const char *path);
void lt_busy_release(void);
/* fn(arg, i) for i in 0 .. n-1, on up to `threads` threads at once (the
 * calling thread one of them); in order on the calling thread where a
 * thread cannot start. */
void lt_parallel(unsigned n, unsigned threads, void (*fn)(void *arg, unsigned i), void *arg);

/* ---- io.c: inputs and outputs ----
 * A capture file or "-" (standard input, read whole: one per command).
 * Progress shows while it is read and checked. An exit code; the error is
 * said. Release with lt_capture_release. */
int lt_capture_open(const char *verb, const char *path, ludus_capture **out);
/* The same through the file's index (ludus_capture_open_index: tables and
 * summary only) where PATH is a regular file with one; read whole else. */
int lt_capture_open_index(const char *verb, const char *path, ludus_capture **out);
void lt_capture_release(ludus_capture *c);
/* The format to write path in: --format's word when given (json, pftrace,
 * ludus), else path's extension; "-" and a path without one (/dev/stdout)
 * take JSON. 0 and the problem said (LT_USAGE) when neither fits or a binary
 * format would go to a terminal. */
int lt_output_format(const lt_verb *v, const char *path, const char *format_word, int *format);
/* An output: a file written whole or not at all (ludus_output), or
 * standard output for "-". */
typedef struct lt_out {
    ludus_output *file; /* NULL: standard output */
    const char *path;
} lt_out;
int lt_out_open(const char *verb, const char *path, lt_out *o);
int lt_out_write(void *o, const void *data, size_t n); /* a ludus_write_fn */
/* Commits (the file appears) or, with failed, aborts; an exit code. */
int lt_out_close(const char *verb, lt_out *o, int failed);
/* Picks "-o FILE" (or "-oFILE") at argv[*i]: 1 when it was one (*rc set on a
 * usage error: a second -o, no FILE). */
int lt_output_option(const lt_verb *v, int argc, char **argv, int *i, const char **out, int *rc);

/* ---- sql_export.c: the tables of ludus-trace sql written for other engines ----
 * The kind OUT and --format ask for: 1 a SQLite database (.sqlite, .sqlite3,
 * .db or --format sqlite), 2 CSV files (--format csv), 3 JSON Lines files
 * (--format jsonl) in the directory OUT; 0 none of these. */
int lt_sql_export_kind(const char *out, const char *format_word);
/* Writes capture file in as that kind; an exit code (a build without
 * SQLite says so). */
int lt_sql_export(const char *verb, const char *in, const char *out, int kind, const ludus_cut_desc *cut);

#endif
