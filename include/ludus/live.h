/* Ludus Profiling: live from outside. A process started with LUDUS_LIVE=1
 * (or that calls ludus_live_start) publishes its recent frame times,
 * counters, gauges, memory domains and, while someone watches, its top
 * scopes, in a block of memory only its user (and, on Linux, root) can
 * open; another process (`ludus-trace top PID`, `ludus-trace capture PID`)
 * reads it and can ask for a capture of the next N seconds. Linux and
 * Windows; elsewhere the calls return LUDUS_EUNSUPPORTED. docs/live.md has the design, the costs and the
 * security model. */
#ifndef LUDUS_LIVE_H
#define LUDUS_LIVE_H

#include <stddef.h>
#include <stdint.h>

#include <ludus/capture.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the watched process ----
 * Makes this process watchable: creates the block and a library thread that
 * wakes every 250 ms (100 ms while watched) and does nothing else until a
 * watcher's heartbeat appears. While watched, it copies the frame ring
 * (<ludus/overlay.h>) into the block; while a watcher wants top scopes, it
 * runs a rolling window of its own (2 s; a program that runs its own
 * rolling window is read instead) and computes them twice a second with
 * ludus_overlay_top_scopes; a capture command ends that window, records
 * the asked seconds with ludus_capture_begin, saves the capture and
 * resumes. The frame thread pays nothing for the watcher beyond the
 * recording a capture costs. LUDUS_LIVE=1 at load calls it; with
 * LUDUS_TRACE set the program's capture is the one that records (top
 * scopes then show as busy, a capture command fails with LUDUS_EBUSY).
 * The program comes first: its own ludus_capture_begin or
 * ludus_rolling_begin ends the live view's recording and returns what it
 * would unwatched (docs/live.md, "One owner of the recorder").
 * Idempotent; 0, LUDUS_EUNSUPPORTED or LUDUS_EIO (the detail says why). */
LUDUS_API int ludus_live_start(void);
/* Stops publishing (the block goes, watchers see the process leave); also
 * done at exit. */
LUDUS_API void ludus_live_stop(void);
LUDUS_API int ludus_live_publishing(void);

/* ---- the watcher ---- */
typedef struct ludus_watch ludus_watch;

/* Opens process pid's block. LUDUS_ENODATA: no such process, or it
 * publishes nothing (the detail says which, and how to start it);
 * LUDUS_EINVAL: another user's process (only its owner or root may watch
 * it); LUDUS_EFORMAT: a block of another version, or damaged. Every count
 * read from the block later is bounds-checked: a hostile process can show
 * wrong figures, never make the watcher fail. */
LUDUS_API int ludus_watch_open(uint64_t pid, ludus_watch **out);
/* NULL is a no-op. */
LUDUS_API void ludus_watch_close(ludus_watch *w);

#define LUDUS_WATCH_FRAMES 4096u
#define LUDUS_WATCH_SCOPES 32u
#define LUDUS_WATCH_LOCKS 16u
#define LUDUS_WATCH_VALUES 48u

typedef struct ludus_watch_frame {
    uint64_t number;  /* frame n lies between the process's marks n and n + 1 */
    int64_t begin_ns; /* CLOCK_MONOTONIC of the machine */
    int64_t duration_ns;
} ludus_watch_frame;

typedef struct ludus_watch_scope {
    char name[96], file[96];
    uint32_t line;
    int lock;             /* a lock wait (category "lock") */
    int64_t exclusive_ns; /* over the top window */
    uint64_t calls;
    int64_t last_exclusive_ns; /* in the window's last frame */
    uint64_t last_calls;
} ludus_watch_scope;

enum { LUDUS_WATCH_COUNTER = 1, LUDUS_WATCH_GAUGE = 2, LUDUS_WATCH_MEMORY = 3 };
typedef struct ludus_watch_value {
    char name[96];   /* a counter's or gauge's name, or "Memory/<domain>" */
    int kind;        /* LUDUS_WATCH_* */
    uint32_t frames; /* of the values window that hold it */
    /* counter: last frame's sum, min, max and sum over the frames;
     * gauge: last value, min, max, sum of the frames' last values;
     * memory: live bytes, peak live bytes over the frames, bytes and
     * allocations over them (sum, min = allocations) */
    int64_t last, min, max, sum;
    int unknown; /* memory: live figures unknown (frees of untracked memory) */
} ludus_watch_value;

/* ludus_watch_view.state */
#define LUDUS_WATCH_SCOPES_LIVE 2u /* top scopes are recorded */
#define LUDUS_WATCH_CAPTURING 4u   /* a capture on demand records (top scopes wait) */
#define LUDUS_WATCH_BUSY 8u        /* the program's own capture runs: no top scopes */
#define LUDUS_WATCH_FOREIGN 16u    /* top scopes come from the program's own rolling window */
#define LUDUS_WATCH_EXITED 32u     /* the process is exiting */

/* One read of the block (about 120 KiB: allocate it). */
typedef struct ludus_watch_view {
    uint64_t pid;
    char process[64];
    int64_t start_ns, published_ns, now_ns; /* now: the watcher's clock when read */
    uint64_t publishes;
    uint32_t state;
    uint32_t window_frames; /* the window the values were computed over (the last watcher's to ask) */
    /* the newest frames, oldest first */
    uint32_t nframes;
    uint64_t frames_total, frames_missed;
    ludus_watch_frame frames[LUDUS_WATCH_FRAMES];
    /* top scopes by exclusive time over the top window (ludus_overlay_top_scopes) */
    int top_rc; /* 0, or why there are none (LUDUS_ENODATA: no complete frame yet) */
    uint32_t top_frames;
    uint32_t top_window_frames; /* the window the top scopes were asked over (the last watcher's to ask then) */
    uint64_t top_first_frame, top_last_frame;
    int64_t top_begin_ns, top_end_ns, top_computed_ns; /* CLOCK_MONOTONIC */
    uint64_t top_calls, top_incomplete, top_dropped;
    uint32_t top_scopes_total;
    char frame_thread[64];
    uint32_t nscopes, nlocks, nvalues;
    ludus_watch_scope scopes[LUDUS_WATCH_SCOPES]; /* most exclusive time first */
    ludus_watch_scope locks[LUDUS_WATCH_LOCKS];   /* lock waits, most first */
    ludus_watch_value values[LUDUS_WATCH_VALUES];
    uint64_t lost_adds;
    uint32_t refused;
    /* the last capture on demand */
    uint64_t capture_id;
    int capture_state; /* LUDUS_WATCH_CAPTURE_* */
    int capture_rc;
    uint32_t capture_ms;
    uint64_t capture_events, capture_dropped, capture_frames;
    int64_t capture_begin_ns, capture_end_ns;
    char capture_message[256];
    char capture_path[4096];
} ludus_watch_view;
enum {
    LUDUS_WATCH_CAPTURE_NONE = 0,
    LUDUS_WATCH_CAPTURE_RUNNING = 1,
    LUDUS_WATCH_CAPTURE_DONE = 2,
    LUDUS_WATCH_CAPTURE_FAILED = 3
};

/* Reads the block into *out and says this watcher is there (a heartbeat:
 * the process publishes while one is younger than 3 s). want_scopes: ask for
 * top scopes too (the process then records: call it at least every second
 * to keep them coming); window_frames: the frames values and top scopes
 * cover (at most 100000, and at most what the process holds; 0: as another
 * watcher set it, 120 when none did). One window is computed at a time,
 * the last watcher's to ask: window_frames and top_window_frames in the
 * view say which the figures are over.
 * LUDUS_ENODATA when the process has exited or exec()ed (its block went
 * with the program that made it; the view is the last one read; a
 * temporary of this watcher's capture command is removed then);
 * LUDUS_EBUSY when the block was half-written on every try, about 13 ms
 * (the process stopped while publishing: SIGSTOP, a debugger): read again,
 * or give up after a while. */
LUDUS_API int ludus_watch_read(ludus_watch *w, int want_scopes, uint32_t window_frames, ludus_watch_view *out);
/* 1 while the process runs the program that made the block. */
LUDUS_API int ludus_watch_alive(const ludus_watch *w);

/* Asks the process to record ms milliseconds (1 .. 3,600,000) and write
 * them to path (absolute, made so here from a relative one; the format by
 * its extension). The process creates a temporary beside it (never through
 * a link) and renames it into place. *id: the command's number, for
 * ludus_watch_view.capture_id. LUDUS_EBUSY when another watcher's command
 * is being written, LUDUS_EINVAL for a bad ms or path. Progress and the
 * result come in the views read after (capture_state). */
LUDUS_API int ludus_watch_capture(ludus_watch *w, uint32_t ms, const char *path, uint64_t *id);

#ifdef __cplusplus
}
#endif

#endif /* LUDUS_LIVE_H */
