/* ludus-trace sql: the tables SQL sees over captures, defined once (the
 * column lists below make CREATE TABLE, the INSERT statements, --schema,
 * the export's schema files and the bind positions of the loader), the
 * loader of one capture into a SQLite database (sql_load.c) and the result
 * writers (sql_out.c). Built only with SQLite (LUDUS_TRACE_SQLITE). */
#ifndef LUDUS_TRACE_SQL_H
#define LUDUS_TRACE_SQL_H

#include <ludus/analysis.h>
#include <sqlite3.h>

#include "verbs.h"

/* Columns: C(table, name, type, doc); type INTEGER, REAL or TEXT. Times
 * (ts, dur and every *_ts) are ns; a ts counts from its capture's start
 * (capture.start_ts is that start on CLOCK_MONOTONIC). Names follow
 * Perfetto's trace processor where the meaning is the same. */
#define LT_SQL_COLS_capture(C, t)                                                              \
    C(t, id, INTEGER, "the capture: 1, 2, ... in the order the files were given (capture_id)") \
    C(t, path, TEXT, "the file as given")                                                      \
    C(t, file_bytes, INTEGER, "its size")                                                      \
    C(t, format_version, INTEGER, ".ludus format version")                                     \
    C(t, process_name, TEXT, "the process that recorded it")                                   \
    C(t, pid, INTEGER, "its process id")                                                       \
    C(t, clock, TEXT, "tsc or monotonic")                                                      \
    C(t, start_ts, INTEGER, "capture start, CLOCK_MONOTONIC ns: the zero of its rows' ts")     \
    C(t, dur, INTEGER, "capture length")                                                       \
    C(t, threads, INTEGER, "threads with a table entry")                                       \
    C(t, events, INTEGER, "events recorded")                                                   \
    C(t, dropped, INTEGER, "events lost (every loss: the drops table)")                        \
    C(t, frames, INTEGER, "complete frames, as ludus-trace report counts them")                \
    C(t, frame_thread, TEXT, "the thread whose marks make the frames (NULL: no frames)")       \
    C(t, crash_signal, TEXT, "SIGSEGV and the like when a crash ended the capture, else NULL") \
    C(t, recovered, INTEGER, "1: read back from a pool file its process left behind")          \
    C(t, trigger_reason, TEXT, "a rolling window's file: what triggered it (NULL: none)")      \
    C(t, trigger_ts, INTEGER, "when it fired")
#define LT_SQL_COLS_thread(C, t)                                                          \
    C(t, capture_id, INTEGER, "its capture (capture.id)")                                 \
    C(t, utid, INTEGER, "the thread in its capture: 0, 1, ... (slice.utid and the like)") \
    C(t, tid, INTEGER, "the OS thread id")                                                \
    C(t, name, TEXT, "its registered name")                                               \
    C(t, is_frame_thread, INTEGER, "1: its frame marks make the frames")                  \
    C(t, exited, INTEGER, "1: it exited (or unregistered) during the capture")            \
    C(t, events, INTEGER, "events it recorded")                                           \
    C(t, dropped, INTEGER, "events it lost")                                              \
    C(t, first_drop_ts, INTEGER, "its first loss (NULL: none)")
#define LT_SQL_COLS_slice(C, t)                                                              \
    C(t, capture_id, INTEGER, "its capture")                                                 \
    C(t, id, INTEGER, "unique in its capture")                                               \
    C(t, ts, INTEGER, "begin")                                                               \
    C(t, dur, INTEGER, "inclusive elapsed time (wall clock)")                                \
    C(t, name, TEXT, "the scope's name")                                                     \
    C(t, category, TEXT, "its category (\"lock\": a lock wait; \"\": none)")                 \
    C(t, depth, INTEGER, "slices open around it on its track (0: top level)")                \
    C(t, parent_id, INTEGER, "the slice around it (NULL at the top)")                        \
    C(t, utid, INTEGER, "its thread (thread.utid)")                                          \
    C(t, lane, INTEGER, "0: the thread's own track; k: its k-th span lane")                  \
    C(t, frame, INTEGER, "the frame its begin lies in (frame.id; 0: before the first mark)") \
    C(t, path_id, INTEGER, "its caller path (path.id; NULL: a fiber run)")                   \
    C(t, site_id, INTEGER, "its site (site.id)")                                             \
    C(t, arg_set_id, INTEGER, "its annotations (args.arg_set_id; NULL: none)")               \
    C(t, incomplete, INTEGER, "1: still open at capture end (dur runs to the end)")          \
    C(t, unwound, INTEGER, "1: cut short by a non-local exit")                               \
    C(t, is_span, INTEGER, "1: a span (ludus_span_begin), not a lexical scope")
#define LT_SQL_COLS_args(C, t)                                                           \
    C(t, capture_id, INTEGER, "its capture")                                             \
    C(t, arg_set_id, INTEGER, "the slice annotated (slice.arg_set_id, which is its id)") \
    C(t, key, TEXT, "the annotation's name")                                             \
    C(t, value_type, TEXT, "int, real or string")                                        \
    C(t, int_value, INTEGER, "an integer's value")                                       \
    C(t, real_value, REAL, "a real's value")                                             \
    C(t, string_value, TEXT, "a text's value")
#define LT_SQL_COLS_site(C, t)                                                           \
    C(t, capture_id, INTEGER, "its capture")                                             \
    C(t, id, INTEGER, "the site in its capture (slice.site_id)")                         \
    C(t, stable_id, INTEGER, "FNV-1a of name, file and line: the same in every capture") \
    C(t, name, TEXT, "the site's name")                                                  \
    C(t, category, TEXT, "its category (\"\": none)")                                    \
    C(t, file, TEXT, "source file")                                                      \
    C(t, line, INTEGER, "source line")
#define LT_SQL_COLS_path(C, t)                                                                   \
    C(t, capture_id, INTEGER, "its capture")                                                     \
    C(t, id, INTEGER, "the caller path in its capture (slice.path_id)")                          \
    C(t, parent_id, INTEGER, "the path it extends (NULL at a root)")                             \
    C(t, depth, INTEGER, "0 at a root")                                                          \
    C(t, name, TEXT, "its last site's name")                                                     \
    C(t, path, TEXT, "the sites from the root, joined by / (/.../ where deep recursion folded)") \
    C(t, calls, INTEGER, "complete activations")                                                 \
    C(t, dur_total, INTEGER, "inclusive time of its outermost activations")                      \
    C(t, self_total, INTEGER, "exclusive time (of the calls whose children are all known)")
#define LT_SQL_COLS_frame(C, t)                                                                     \
    C(t, capture_id, INTEGER, "its capture")                                                        \
    C(t, id, INTEGER, "frame k lies between marks k and k + 1; 0: the lead-in, the last: the tail") \
    C(t, ts, INTEGER, "its begin")                                                                  \
    C(t, dur, INTEGER, "its length")                                                                \
    C(t, complete, INTEGER, "1: a frame (between two marks); 0: the lead-in or the tail")           \
    C(t, hitch, INTEGER, "1: longer than 2 x the median frame (docs/analysis.md)")                  \
    C(t, unlogged, INTEGER, "frame-thread time outside its top-level scopes")
#define LT_SQL_COLS_counter_track(C, t)                                                \
    C(t, capture_id, INTEGER, "its capture")                                           \
    C(t, id, INTEGER, "the track in its capture (counter.track_id)")                   \
    C(t, name, TEXT, "the counter's name: DrawCalls, Memory/Render")                   \
    C(t, series, TEXT, "per frame, last, min, max, live bytes, ...; samples (a plot)") \
    C(t, unit, TEXT, "\"\" or bytes")                                                  \
    C(t, kind, TEXT, "count, gauge, memory or plot")                                   \
    C(t, per_frame, INTEGER, "1: an amount of each frame; 0: a level")                 \
    C(t, saturated, INTEGER, "1: its window sum passes the int64 range (report: saturated)")
#define LT_SQL_COLS_counter(C, t)                                                               \
    C(t, capture_id, INTEGER, "its capture")                                                    \
    C(t, ts, INTEGER, "when it was taken")                                                      \
    C(t, track_id, INTEGER, "its track (NULL: a frame snapshot off the frame thread, ignored)") \
    C(t, value, REAL, "the value")                                                              \
    C(t, utid, INTEGER, "the thread that took it")                                              \
    C(t, frame, INTEGER, "the frame it lies in; a frame snapshot: the frame it closes")
#define LT_SQL_COLS_frame_counter(C, t)                             \
    C(t, capture_id, INTEGER, "its capture")                        \
    C(t, frame, INTEGER, "the frame (frame.id)")                    \
    C(t, track_id, INTEGER, "a per-frame track (counter_track.id)") \
    C(t, value, REAL, "the frame's value, as ludus-trace report uses it")
#define LT_SQL_COLS_log(C, t)                          \
    C(t, capture_id, INTEGER, "its capture")           \
    C(t, ts, INTEGER, "when it was logged")            \
    C(t, utid, INTEGER, "its thread")                  \
    C(t, level, TEXT, "debug, info, warning or error") \
    C(t, msg, TEXT, "the text")                        \
    C(t, frame, INTEGER, "the frame it fell in")       \
    C(t, slice_id, INTEGER, "the innermost slice open on its thread (NULL: none)")
#define LT_SQL_COLS_instant(C, t)                                                     \
    C(t, capture_id, INTEGER, "its capture")                                          \
    C(t, ts, INTEGER, "when")                                                         \
    C(t, utid, INTEGER, "its thread")                                                 \
    C(t, name, TEXT, "a marker's name, or what the library marked (losses, a crash)") \
    C(t, category, TEXT, "its category (ludus: the library's own)")                   \
    C(t, frame, INTEGER, "the frame it fell in")                                      \
    C(t, slice_id, INTEGER, "the innermost slice open on its thread (NULL: none)")    \
    C(t, value, INTEGER, "events lost, for a loss marker")
#define LT_SQL_COLS_flow_event(C, t)                                                    \
    C(t, capture_id, INTEGER, "its capture")                                            \
    C(t, flow_id, INTEGER, "the flow (both ends share it)")                             \
    C(t, direction, TEXT, "out (where it starts) or in (where it finishes)")            \
    C(t, ts, INTEGER, "when")                                                           \
    C(t, utid, INTEGER, "its thread")                                                   \
    C(t, slice_id, INTEGER, "the innermost slice open on its thread then (NULL: none)") \
    C(t, name, TEXT, "the flow's name, if it has one")
#define LT_SQL_COLS_flow(C, t)                          \
    C(t, capture_id, INTEGER, "its capture")            \
    C(t, flow_id, INTEGER, "the flow")                  \
    C(t, slice_out, INTEGER, "the slice it starts in")  \
    C(t, slice_in, INTEGER, "the slice it finishes in") \
    C(t, ts_out, INTEGER, "when it started")            \
    C(t, ts_in, INTEGER, "when it finished")
#define LT_SQL_COLS_lock_wait(C, t)                                                  \
    C(t, capture_id, INTEGER, "its capture")                                         \
    C(t, slice_id, INTEGER, "the wait's slice")                                      \
    C(t, ts, INTEGER, "the wait's begin")                                            \
    C(t, dur, INTEGER, "how long it waited")                                         \
    C(t, lock, TEXT, "the lock's name, or the call site's text for an unnamed lock") \
    C(t, utid, INTEGER, "the thread that waited")                                    \
    C(t, frame, INTEGER, "the frame it began in")
#define LT_SQL_COLS_async_slice(C, t)                                    \
    C(t, capture_id, INTEGER, "its capture")                             \
    C(t, id, INTEGER, "the zone's id (zones of one id nest)")            \
    C(t, ts, INTEGER, "begin")                                           \
    C(t, dur, INTEGER, "begin to end")                                   \
    C(t, name, TEXT, "the zone's name")                                  \
    C(t, track, TEXT, "its async track")                                 \
    C(t, depth, INTEGER, "zones of its id open around it")               \
    C(t, utid, INTEGER, "the thread that began it (NULL: not seen)")     \
    C(t, end_utid, INTEGER, "the thread that ended it (NULL: not seen)") \
    C(t, incomplete, INTEGER, "1: still open at capture end")            \
    C(t, frame, INTEGER, "the frame it began in")
#define LT_SQL_COLS_gpu_slice(C, t)                                                        \
    C(t, capture_id, INTEGER, "its capture")                                               \
    C(t, ts, INTEGER, "begin on the CPU timeline")                                         \
    C(t, dur, INTEGER, "length on the CPU timeline")                                       \
    C(t, device_dur, INTEGER, "the measured duration (device ticks x period)")             \
    C(t, name, TEXT, "the pass (NULL: the frame's own sample)")                            \
    C(t, track, TEXT, "its GPU queue")                                                     \
    C(t, gpu_frame, INTEGER, "the frame number given with it")                             \
    C(t, placement_error, INTEGER, "bound of the placement's error (0 when uncalibrated)") \
    C(t, submit_ts, INTEGER, "its CPU submission")                                         \
    C(t, uncalibrated, INTEGER, "1: placed at its frame's begin, not through a calibration")
#define LT_SQL_COLS_memory_domain(C, t)                                            \
    C(t, capture_id, INTEGER, "its capture")                                       \
    C(t, name, TEXT, "the domain, or what lies outside every domain")              \
    C(t, outside, INTEGER, "1: memory outside every domain (only live_bytes)")     \
    C(t, since_ts, INTEGER, "tracked since (negative: before the capture)")        \
    C(t, baseline_bytes, INTEGER, "what it declared it held before its hooks ran") \
    C(t, live_bytes, INTEGER, "at capture end")                                    \
    C(t, peak_bytes, INTEGER, "the most it held")                                  \
    C(t, allocs, INTEGER, "allocations since registration")                        \
    C(t, frees, INTEGER, "frees since registration")                               \
    C(t, unknown, INTEGER, "1: a free of older memory: live figures unknown")
#define LT_SQL_COLS_drops(C, t)                                           \
    C(t, capture_id, INTEGER, "its capture")                              \
    C(t, utid, INTEGER, "the thread (NULL: the whole capture)")           \
    C(t, what, TEXT, "what was lost or refused (docs/sql.md lists them)") \
    C(t, count, INTEGER, "how many")                                      \
    C(t, first_ts, INTEGER, "the first (NULL: not known)")

/* Tables and views: T(name, doc, perfetto, events, select). perfetto: the
 * trace processor table it follows ("" none); events: 1 when its rows are
 * the capture's events (ludus_analysis_rows: sql reads them from the file,
 * sql_vtab.c), 0 when they are what the analysis or the file's tables hold
 * (loaded); select: a view's query over the tables (NULL: a table). */
#define LT_SQL_TABLES(T)                                                                              \
    T(capture, "one row per capture file, with its metadata", "metadata", 0, NULL)                    \
    T(thread, "the threads of each capture", "thread", 0, NULL)                                       \
    T(slice, "every scope and span (lock waits too)", "slice", 1, NULL)                               \
    T(args, "scope annotations (LUDUS_PROFILE_ANNOTATE)", "args", 1, NULL)                            \
    T(site, "the instrumented sites", "", 0, NULL)                                                    \
    T(path, "caller-context paths: the sites enclosing a slice, merged across threads", "", 0, NULL)  \
    T(frame, "frames, as ludus-trace report counts them", "", 0, NULL)                                \
    T(counter_track, "counter, gauge, memory and plot tracks", "counter_track", 0, NULL)              \
    T(counter, "every counter sample and frame snapshot", "counter", 1, NULL)                         \
    T(frame_counter, "each per-frame statistic's value in each frame", "", 0, NULL)                   \
    T(log, "log messages", "android_logs", 1, NULL)                                                   \
    T(instant, "markers, and where the library marked losses or a crash", "instant", 1, NULL)         \
    T(flow_event, "each end of a flow", "", 1, NULL)                                                  \
    T(flow, "flows: the slice each starts in and the slice it finishes in", "flow", 0,                \
      "SELECT o.capture_id, o.flow_id, o.slice_id, i.slice_id, o.ts, i.ts FROM flow_event o JOIN "    \
      "flow_event i ON i.capture_id = o.capture_id AND i.flow_id = o.flow_id AND i.direction = 'in' " \
      "WHERE o.direction = 'out'")                                                                    \
    T(lock_wait, "lock waits: the slices of category lock", "", 0,                                    \
      "SELECT capture_id, id, ts, dur, name, utid, frame FROM slice WHERE category = 'lock'")         \
    T(async_slice, "async zones, on their own tracks", "", 1, NULL)                                   \
    T(gpu_slice, "GPU passes and frame samples", "gpu_slice", 0, NULL)                                \
    T(memory_domain, "memory domains at capture end, and what lies outside them", "", 0, NULL)        \
    T(drops, "every loss and refusal the capture counted, per thread and in all", "", 0, NULL)

#define LT__SQL_COL_ENUM(t, name, type, doc) LT_##t##__##name,
#define LT__SQL_TABLE_ENUM(name, doc, perfetto, events, select) \
    enum { LT_SQL_COLS_##name(LT__SQL_COL_ENUM, name) LT_##name##__COLS };
LT_SQL_TABLES(LT__SQL_TABLE_ENUM)
#undef LT__SQL_TABLE_ENUM
#undef LT__SQL_COL_ENUM
#define LT__SQL_TABLE_ID(name, doc, perfetto, events, select) LT_T_##name,
enum { LT_SQL_TABLES(LT__SQL_TABLE_ID) LT_SQL_TABLE_COUNT };
#undef LT__SQL_TABLE_ID

typedef struct lt_sql_column {
    const char *name, *type, *doc;
} lt_sql_column;
typedef struct lt_sql_table {
    const char *name, *doc, *perfetto, *select;
    const lt_sql_column *cols;
    int ncols;
    int events; /* its rows are the capture's events (sql_cells.c) */
} lt_sql_table;
extern const lt_sql_table lt_sql_tables[LT_SQL_TABLE_COUNT];

/* sql_schema.c: the CREATE statements of every table and view (dialect
 * "sqlite", or "duckdb": BIGINT, DOUBLE, VARCHAR, which Spark reads too),
 * into a malloc'd string; with events_virtual, the event tables are made
 * virtual tables of the module LT_SQL_MODULE (sql_vtab.c); --schema's text;
 * the schema as JSON. */
char *lt_sql_create_statements(const char *dialect, int events_virtual);
void lt_sql_schema_text(FILE *f);
void lt_sql_schema_json(FILE *f);

/* sql_cells.c: an event row as the cells of its table's columns, the one
 * description the loader and the virtual tables share. */
enum { LT_CELL_NULL = 0, LT_CELL_INT, LT_CELL_REAL, LT_CELL_TEXT };
typedef struct lt_sql_cell {
    int type;
    int64_t i; /* an integer */
    double d;  /* a real */
    const char *s;
    size_t n; /* a text: n bytes at s */
} lt_sql_cell;
#define LT_SQL_MAX_COLS 24
/* The table (LT_T_*) a row of ludus_analysis_rows goes to, its cells
 * filled; -1: none. *args_of carries what the ARG rows before a slice said
 * (start it at LUDUS_ROW_NONE); cells: LT_SQL_MAX_COLS of them. Texts point
 * into the row or the analysis. */
int lt_sql_row_cells(const ludus_row *r, int64_t capture_id, uint64_t *args_of, lt_sql_cell *cells);

/* sql_load.c: a database the captures load into, one at a time. */
typedef struct lt_sql_vtabs lt_sql_vtabs;
typedef struct lt_sql_db {
    sqlite3 *db;
    sqlite3_stmt *insert[LT_SQL_TABLE_COUNT]; /* NULL for views */
    int64_t next_capture;
    lt_sql_vtabs *events; /* non-NULL: the event tables read the files (sql_vtab.c) */
    int internal;         /* the tables' own statements run: the authorizer lets them write */
} lt_sql_db;
/* Opens path ("": a temporary on disk, removed at close) with the tables
 * made; an exit code, the problem said. events_virtual: the event tables are
 * read from the capture files by each query (sql_vtab.c), not loaded. */
int lt_sql_db_open(const char *verb, const char *path, int events_virtual, lt_sql_db *d);
/* The analysis every capture is made with, by the loader and by the
 * virtual tables' scans alike (their rows' frames and paths must be the
 * loaded tables'). */
void lt_sql_analysis_desc(ludus_analysis_desc *desc);
/* Loads one capture file (or "-") as capture next_capture; an exit code
 * (a damaged file names its offset, as report does). */
int lt_sql_db_load(const char *verb, lt_sql_db *d, const char *path, const ludus_cut_desc *cut);
/* Indexes for the usual joins (after loading). */
int lt_sql_db_index(const char *verb, lt_sql_db *d);
void lt_sql_db_close(lt_sql_db *d);
/* After loading: the queries that follow only read (an authorizer refuses
 * ATTACH, DETACH, every statement that writes and the pragmas that set
 * things; no database may be attached, so VACUUM INTO cannot write a file).
 * lt_sql_exec then refuses a statement that would write, saying so. */
int lt_sql_db_seal(const char *verb, lt_sql_db *d);
/* Registers percentile(x, p) and median(x) on db. */
int lt_sql_functions(sqlite3 *db);
/* Loads table's rows of every capture d was given into temp.name (the
 * virtual tables' copy, sql_vtab.c); an SQLite code, *err an sqlite3
 * malloc'd message. */
int lt_sql_db_copy_events(lt_sql_db *d, int table, const char *name, char **err);

/* sql_vtab.c: the event tables as virtual tables over the capture files. */
#define LT_SQL_MODULE "ludus_events"
/* Registers the module on d->db and makes d->events; an SQLite code. */
int lt_sql_vtabs_init(lt_sql_db *d);
/* Adds a capture the event tables read: path (not "-": it is read once), cut
 * (NULL: whole), its id; a and c, the capture and its analysis the loader made,
 * are kept for the scans (the last one given; the earlier ones are
 * released, and opened again by a scan). An SQLite code. */
int lt_sql_vtabs_add(lt_sql_db *d, const char *path, const ludus_cut_desc *cut, int64_t id, uint64_t events,
                     ludus_capture *file, ludus_capture *c, ludus_analysis *a);
void lt_sql_vtabs_free(lt_sql_db *d);
/* The i-th capture (0, 1, ...) and its analysis, for one user at a time:
 * 1, with *id, *c, *a set (give them back with lt_sql_vtabs_capture_done);
 * 0 past the last; -1 when it cannot be opened again (*err says why). */
int lt_sql_vtabs_capture(lt_sql_db *d, size_t i, int64_t *id, ludus_capture **c, ludus_analysis **a, char **err);
void lt_sql_vtabs_capture_done(lt_sql_db *d, ludus_capture *c, ludus_analysis *a);
/* A failed read's text: this thread's detail (which file, which offset). */
const char *lt_sql_vtabs_error_text(int rc);

/* verb_sql.c: 1 when path is a regular file (it can be read again). */
int lt_regular_file(const char *path);

/* sql_out.c: a query's results. */
enum lt_sql_mode { LT_SQL_TABLE = 0, LT_SQL_CSV, LT_SQL_JSON, LT_SQL_JSONL };
/* Or'ed into a mode: the output is a terminal (CSV shows control
 * characters as the table does; JSON escapes them anyway). */
#define LT_SQL_SHOWN 0x100
/* Runs every statement of sql, printing each result to write (table,
 * CSV, a JSON array per statement, or JSON Lines); an exit code, an SQL
 * error said with what it is about. A statement that would write (VACUUM,
 * INSERT, ...) is refused before it runs, as one the authorizer of a sealed
 * database refused (lt_sql_db_seal): queries only read. */
int lt_sql_exec(const char *verb, sqlite3 *db, const char *sql, int mode, ludus_write_fn write, void *ud);

#endif
