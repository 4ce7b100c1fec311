/* Ludus Profiling: the rolling window. Always-on recording of the last few
 * seconds, snapshots of it at any moment, and triggers (a hitch, a call, a
 * signal) that write the window around the moment they fired to a file from
 * a background thread.
 *
 * How it records: the window is a ring of segments, each an ordinary
 * capture of window_ms / segments. A background thread switches segments
 * (the next segment's pool is reserved while the current one still records;
 * producers never wait: events of the switch itself, a few microseconds,
 * are dropped and counted) and drops the oldest segment once the window is
 * covered. A snapshot joins the segments into one capture: slices begun
 * before the window are shown begun at its start, clipped and flagged, with
 * their names; every loss stays counted. The window is also bounded by
 * memory: each segment's pool is chunk_count / (segments + 2) chunks, the
 * segments held keep at most segments + 1 pools' worth of events, and a
 * segment 3/4 full is switched before its time; the window is then
 * shorter. Its actual span is the snapshot's start and end. A snapshot ends
 * the recording segment early: with frequent snapshots up to
 * 2 x segments + 2 short segments are held (each pool's untouched pages
 * cost address space, not memory).
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
    uint32_t segments;      /* segments the window is cut into [4] */
    double hitch_factor;    /* a frame longer than this times the running median is a hitch [2.5] */
    uint32_t median_frames; /* frames of the running median (and frames seen before the first hitch) [120] */
    uint32_t post_ms;       /* kept after a trigger before the window is taken [window_ms / 4] */
    uint32_t cooldown_ms;   /* triggers within this time of the last one taken are counted, not taken [5000] */
    uint32_t max_files;     /* files written at most; later triggers are counted [16] */
    int signal;             /* triggers on this signal [SIGUSR2; none on Windows] */
    int format;             /* LUDUS_FORMAT_* of the files [LUDUS_FORMAT_LUDUS] */
    const char *directory;  /* where files go [the current directory] */
    const char *prefix;     /* file names: PREFIX-YYYYMMDD-HHMMSS-mmm-REASON.ext ["ludus"] */
    /* A counter, gauge or memory domain crossing a threshold: the first frame
     * whose value (ludus_live_value(frame, counter, counter_stat)) is above
     * counter_above after one that was not triggers "counter". It is seen
     * at the next frame mark. NULL: none. */
    const char *counter;
    const char *counter_stat; /* ["per frame"] */
    int64_t counter_above;
} ludus_rolling_desc;

/* Starts the rolling window. capture: the pool (chunk_bytes x chunk_count
 * is the memory of the whole window, shared by its segments), clock, join
 * and categories, as for ludus_capture_begin; NULL for the defaults. */
LUDUS_API int ludus_rolling_begin(const ludus_capture_desc *capture, const ludus_rolling_desc *rolling);
/* Stops it: the background threads finish the file they write, pending
 * triggers are dropped (counted), and the window is released.
 * LUDUS_ENOCAPTURE when none runs. */
LUDUS_API int ludus_rolling_end(void);
LUDUS_API int ludus_rolling_active(void);

/* The window as a capture of its own, now, without stopping the recording
 * (release it when done). From any thread: the caller pays one segment
 * switch (bench/RESULTS.md gives its cost). */
LUDUS_API int ludus_rolling_snapshot(ludus_capture **out);

/* Asks for the window around now to be written: post_ms later, on the
 * background thread. reason: a short word for the file name (letters,
 * digits, '-' and '_' are kept). Async-signal-safe; never blocks. One
 * trigger is handled at a time: one that fires while another waits is
 * counted as coalesced. */
LUDUS_API void ludus_rolling_trigger(const char *reason);

typedef struct ludus_rolling_stats {
    uint64_t segments_switched;
    uint64_t early_switches;    /* of which before their time: the segment's memory was 3/4 used */
    int64_t switch_max_ns;      /* the longest pause of a segment switch (producers drop events meanwhile) */
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
    int64_t frame_median_ns; /* the running median frame time (0 before median_frames frames) */
    char last_file[512];     /* the last file written ("" before any) */
} ludus_rolling_stats;
LUDUS_API int ludus_rolling_get_stats(ludus_rolling_stats *out);

/* Waits until no trigger is pending and the writer is idle, or timeout_ms
 * passed: 0 when idle, LUDUS_EBUSY on timeout (tests, and programs that
 * want the last file before they exit). */
LUDUS_API int ludus_rolling_flush(uint32_t timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
