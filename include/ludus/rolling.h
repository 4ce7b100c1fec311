/* Ludus Profiling: the rolling window (the flight recorder). Always-on
 * recording of the last few seconds, snapshots of it at any moment, and
 * triggers (a hitch, a call, a signal, a counter) that write the window
 * around the moment they fired to a file from a background thread.
 *
 * How it records: it is one capture that forgets. Each thread writes over
 * its own oldest piece of the pool once that piece lies wholly before the
 * window, or when the pool has no other room (that thread's window is then
 * shorter: counted in evicted_in_window). Producers never pause and no
 * library thread reads what they write; an event is lost only when its
 * thread cannot get a piece at all (counted per thread, as in a capture).
 * A snapshot copies what every thread holds while they go on (its cost:
 * about a memcpy of the window); a scope whose begin was written over is
 * shown begun at its thread's first event, named "(begun before the
 * window)" (a span keeps its name). Files written by triggers and crashes
 * hold the last window_ms (ending at the newest event when every thread has
 * been idle for longer than that), slices open across its start clipped
 * there and flagged. The pool (chunk_bytes x chunk_count) is the memory of the whole
 * window: size it for window_ms of the busiest thread's events.
 *
 * One rolling capture at a time, instead of a capture window: while it
 * runs, ludus_capture_begin and ludus_capture_end return LUDUS_EBUSY. */
#ifndef LUDUS_ROLLING_H
#define LUDUS_ROLLING_H

#include <ludus/capture.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero fields take the default in brackets. One way to say "none":
 * LUDUS_ROLLING_NONE in hitch_factor (no hitch trigger), post_ms (nothing
 * kept after a trigger), cooldown_ms (no cooldown) or signal (no trigger
 * signal); counter is a pointer, NULL: none. */
#define LUDUS_ROLLING_NONE (-1)
typedef struct ludus_rolling_desc {
    uint32_t window_ms;     /* the last N ms are kept [4000] */
    uint32_t segments;      /* unused (the window had segments before issue 25); kept for source compatibility */
    double hitch_factor;    /* a frame longer than this times the running median is a hitch [2.5] */
    uint32_t median_frames; /* frames of the running median (and frames seen before the first hitch) [120] */
    uint32_t post_ms;       /* kept after a trigger before the window is taken [window_ms / 4] */
    uint32_t cooldown_ms;   /* triggers within this time of the last one taken are counted, not taken (a
                               worse hitch is taken: see ludus_rolling_trigger) [5000] */
    uint32_t max_files;     /* files written at most; later triggers are counted [16] */
    int signal;             /* triggers on this signal [SIGUSR2; none on Windows] */
    int format;             /* LUDUS_FORMAT_* of the files [LUDUS_FORMAT_LUDUS] */
    const char *directory;  /* where files go [the current directory] */
    const char *prefix;     /* file names: PREFIX-YYYYMMDD-HHMMSS-mmm-REASON.ext ["ludus"] */
    /* A counter, gauge or memory domain crossing a threshold: the first frame
     * whose value (ludus_frame_ring_value(frame, counter, counter_stat)) is above
     * counter_above after one that was not triggers "counter". It is seen
     * at the next frame mark. NULL: none. */
    const char *counter;
    const char *counter_stat; /* ["per frame"] */
    int64_t counter_above;
    /* The frame budget in ms (16.7 for 60 Hz): a frame within it is never a
     * hitch, so a hitch is a frame longer than max(hitch_factor x the
     * running median, budget_ms); with hitch_factor LUDUS_ROLLING_NONE, a
     * frame over the budget. 0: none [0]. */
    double budget_ms;
} ludus_rolling_desc;

/* Starts the rolling window. capture: the pool (chunk_bytes x chunk_count
 * is the memory of the whole window), clock, join
 * and categories, as for ludus_capture_begin; NULL for the defaults. */
LUDUS_API int ludus_rolling_begin(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling);
/* Stops it: the background threads finish the file they write, pending
 * triggers are dropped (counted), and the window is released.
 * LUDUS_ENOCAPTURE when none runs. */
LUDUS_API int ludus_rolling_end(void);
LUDUS_API int ludus_rolling_active(void);

/* What every thread holds now, as a capture of its own (release it when
 * done), without stopping or slowing the recording: at least the window for
 * every thread the pool had room for. From any thread: the caller pays the
 * copy (bench/RESULTS.md gives its cost). */
LUDUS_API int ludus_rolling_snapshot(ludus_capture **out);

/* Asks for the window around now to be written: post_ms later, on the
 * background thread. reason: a short word for the file name (letters,
 * digits, '-' and '_' are kept). Async-signal-safe; never blocks. One
 * trigger is handled at a time: one that fires while another waits is
 * counted as coalesced.
 *
 * Hitches are ranked by their frame's length, so the worst hitch of any
 * period has a file: a hitch worse than the one waiting for its post_ms
 * takes its place (the file's trigger; the file says whether its window
 * still holds the one it replaced), and within a cooldown a hitch worse
 * than every hitch written in it gets a file of its own (and the cooldown
 * starts again from it). Files come at most one per post_ms (one trigger
 * at a time) and max_files in all. Each file says, in its trigger's detail,
 * what was not written since the file before it and why; the statistics
 * count it. */
LUDUS_API void ludus_rolling_trigger(const char *reason);

typedef struct ludus_rolling_stats {
    uint64_t events_evicted;    /* events written over (each thread's oldest pieces) */
    uint64_t evicted_in_window; /* of which still inside the window: the pool had no other room */
    int64_t snapshot_max_ns;    /* the longest copy of the window (its caller's cost) */
    int64_t snapshot_last_ns;   /* the last one's */
    uint64_t triggers;          /* ludus_rolling_trigger calls, hitches and signals */
    uint64_t hitches;           /* of which frame hitches */
    uint64_t counter_crossings; /* of which counter thresholds crossed */
    uint64_t taken;             /* triggers whose window was taken */
    uint64_t coalesced;         /* fired while another was waiting */
    uint64_t cooled;            /* within the cooldown */
    uint64_t over_max;          /* after max_files */
    uint64_t writer_busy;       /* the writer was still writing the previous file */
    uint64_t files_written;
    uint64_t write_errors;
    int64_t frame_median_ns;    /* the running median frame time (0 before median_frames frames) */
    char last_file[512];        /* the last file written ("" before any) */
    uint64_t replaced;          /* hitches replaced by a worse one while they waited (of the coalesced) */
    uint64_t worse_in_cooldown; /* hitches within a cooldown worse than every hitch written in it: written */
    /* Hitches that got no file of their own (cooled, coalesced, replaced,
     * over max_files, the writer busy), and the longest of their frames. */
    uint64_t hitches_unwritten;
    int64_t worst_unwritten_ns;
} ludus_rolling_stats;
/* The window's counts since ludus_rolling_begin: 0 and *out, LUDUS_EINVAL
 * for NULL. */
LUDUS_API int ludus_rolling_get_stats(ludus_rolling_stats *out);

/* Waits until no trigger is pending and the writer is idle, or timeout_ms
 * passed: 0 when idle, LUDUS_EBUSY on timeout (tests, and programs that
 * want the last file before they exit). */
LUDUS_API int ludus_rolling_flush(uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
