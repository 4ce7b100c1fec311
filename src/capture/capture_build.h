/* Building a capture object (capture_model.h): its sources, the steps that
 * turn what was recorded or read into what readers need (runs, fibers,
 * sites, async zones, the memory manifest), and the marks a crash or a
 * trigger leaves on it. What src/capture, the file reader (src/format),
 * the session and the post-mortem paths share; exporters and the analysis
 * never include it. */
#ifndef LUDUS_CAPTURE_BUILD_H
#define LUDUS_CAPTURE_BUILD_H

#include "capture_model.h"

/* Adds slot to a thread's lost begins (the oldest goes when full). */
static inline void ludus__lost_begin_add(uintptr_t *slots, uint32_t *n, uintptr_t slot) {
    if (*n == LUDUS__LOST_BEGINS) {
        for (uint32_t i = 1; i < LUDUS__LOST_BEGINS; i++) slots[i - 1] = slots[i];
        --*n;
    }
    slots[(*n)++] = slot;
}

/* A thread that was inside an out-of-line event when the capture ended: it
 * is published when that event is over (ludus__capture_resolve_late). */
typedef struct ludus__late {
    uint32_t record, serial; /* registry slot and its owner then */
    uint32_t thread;         /* index in c->threads */
    int resolved;
} ludus__late;

typedef struct ludus__straggler {
    uint32_t record, serial;
    uintptr_t cur; /* the busy cursor seen at capture end */
    int in_piece;  /* its slot lies in the thread's piece (else the event goes out of line: no slot of its own) */
} ludus__straggler;

/* A capture's source: where its runs come from and what it owns. Each
 * variant is one of these (the session's in-memory capture, a file, a
 * recovered pool file, a rolling window's snapshot, a cut); nothing else
 * in the library asks which variant a capture is.
 *   settle    before the capture is first read (NULL: nothing to do): the
 *             session publishes the threads still inside an event at its end
 *   build     turns what was recorded into what reading needs (runs, fibers,
 *             sites); NULL: the source gave them (a file's tables)
 *   load_run  loads the run at *cursor into buf (files); NULL: the runs are
 *             in memory (threads[t].runs)
 *   free      frees what the source owns (its pool, its file, its parent, its
 *             segments); the capture frees its view and attachments itself
 *   borrows   1: the sites, their text, the categories, the memory manifest,
 *             the GPU data and the runs are the parent's (a cut) */
typedef struct ludus__source_ops {
    const char *kind;
    void (*settle)(struct ludus_capture *c);
    int (*build)(struct ludus_capture *c);
    ludus__run_loader load_run;
    void (*free)(struct ludus_capture *c);
    int borrows;
} ludus__source_ops;

struct ludus__nev;
/* async.c: prepare collects each ASYNC event of the streams, then builds
 * the zones (a view clips its parent's); free releases them. */
LUDUS_HIDDEN int ludus__async_note(ludus_capture *c, uint32_t thread, const struct ludus__nev *ev);
LUDUS_HIDDEN int ludus__async_build(ludus_capture *c);
LUDUS_HIDDEN void ludus__async_free(ludus_capture *c);

/* memory_coverage.c. take: at capture end, from the live domains;
 * parse: back from the .ludus metadata value (-1 with why, -2 out of
 * memory); the text is capture_model.h's. */
LUDUS_HIDDEN int ludus__mem_cov_take(ludus_capture *c, int64_t pool_bytes);
LUDUS__SIBLING int ludus__mem_cov_parse(ludus_capture *c, const char *v, size_t n, char *why, size_t why_cap);

/* Frees a capture whose last reference went (capture.c). */
LUDUS_HIDDEN void ludus__capture_free(ludus_capture *c);
LUDUS__SIBLING ludus_capture *ludus__capture_new(const ludus__source_ops *src);
/* What an in-memory capture's source builds (prepare.c): runs from its
 * threads' pieces, fibers split off, the sites its events name. */
LUDUS_HIDDEN int ludus__build_recorded(ludus_capture *c);
/* A flight recorder's capture (c->ring): gives each end whose begin is not
 * in its thread's events a begin at the thread's first event, named for
 * what it is when the begin is gone (a scope) or by its site (a span).
 * Part of building the capture (prepare.c), after its sites are known. */
LUDUS_HIDDEN int ludus__ring_start(ludus_capture *c);
/* Marks c as ended by signo in thread tid at at_ns (CLOCK_MONOTONIC). */
LUDUS_HIDDEN void ludus__capture_mark_crash(ludus_capture *c, int signo, uint64_t tid, int64_t at_ns);
/* What triggered the window c was taken for (rolling.c): written into its file. */
LUDUS_HIDDEN void ludus__capture_mark_trigger(ludus_capture *c, const char *reason, int64_t at_ns, const char *detail);

/* In-memory captures: turns each thread's pieces into runs (once). */
LUDUS_HIDDEN int ludus__build_runs(ludus_capture *c);
LUDUS_HIDDEN void ludus__thread_summary_fill(const ludus__cap_thread *th, ludus_thread_summary *out);
/* NULL when c0 and c1 can calibrate a capture; else the problem, with the
 * field it lies in (c0_ns, c1_ticks, ...: the names of both file headers)
 * in *field (calibration.c). */
LUDUS__SIBLING const char *ludus__calib_check(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1,
                                              const char **field);
/* Ticks on either side of [c0, c1] an event of the capture may lie (one
 * second's worth; no bound when too short to calibrate). */
LUDUS__SIBLING uint64_t ludus__calib_margin(int clock_tsc, const ludus__calib_point *c0, const ludus__calib_point *c1);
/* Calls fn for every site key the n slots at e name (site_table.c: the
 * kind table's word and payload columns); stops at fn's first non-zero. */
LUDUS__SIBLING int ludus__run_keys(ludus_capture *c, const ludus__event *e, size_t n,
                                   int (*fn)(ludus_capture *c, uintptr_t key));
/* Adds a site by its text (site_table.c): name, function, file and
 * category as the descriptor holds them (plain: no C literal to resolve;
 * flow: a flow's name, category "flow"); nothing when key is known. */
LUDUS__SIBLING int ludus__site_add_described(ludus_capture *c, uintptr_t key, const char *name, const char *function,
                                             const char *file, const char *category, uint32_t line, int plain,
                                             int flow);
/* Adds a fully described site whose strings the caller owns for the
 * capture's life. 0, LUDUS_ENOMEM, or LUDUS_EFORMAT when the key is present. */
LUDUS__SIBLING int ludus__site_insert(ludus_capture *c, const ludus__site_info *si);
/* In-memory captures: the sites their events name (site_table.c). */
LUDUS_HIDDEN int ludus__sites_collect(ludus_capture *c);
/* The same for one run of events (sites already known are skipped). */
LUDUS_HIDDEN int ludus__sites_collect_run(ludus_capture *c, const ludus__event *e, size_t n);
/* Counts the pairs of different sites with one id. */
LUDUS__SIBLING int ludus__sites_check_ids(ludus_capture *c);
/* The stable id of a site: FNV-1a of name, file and line. */
LUDUS_HIDDEN uint32_t ludus__site_id(const char *name, size_t name_len, const char *file, uint32_t line);

/* LUDUS_PROFILE_LOG's text: fmt formatted with the packed arguments
 * (log_format.c), at most cap - 1 bytes and a NUL; returns the length. */
LUDUS_HIDDEN size_t ludus__log_format(const char *fmt, const unsigned char *args, size_t nargs, char *out, size_t cap);
/* Moves what threads recorded while running fibers to a track per fiber
 * (fibers.c); in-memory captures, after their runs are built. */
LUDUS_HIDDEN int ludus__fibers_split(ludus_capture *c);

#endif
