/* The block a watchable process shares with its watchers (live.c writes
 * it, watch.c reads it): fixed size, versioned, one machine (native byte
 * order, the process's and the watcher's CLOCK_MONOTONIC are one clock).
 * The process writes the published part under a seqlock and never reads it
 * back; a watcher writes only the watcher part, which the process reads as
 * bounded integers and one bounded path. Every count a reader takes from
 * it is checked against the arrays' sizes here (docs/live.md). */
#ifndef LUDUS_LIVE_BLOCK_H
#define LUDUS_LIVE_BLOCK_H

#include <stdint.h>

#define LUDUS__LIVE_MAGIC "LUDLIVE"
#define LUDUS__LIVE_VERSION 2u
#define LUDUS__LIVE_FRAMES 4096u /* frame times kept (a power of two) */
#define LUDUS__LIVE_SCOPES 32u
#define LUDUS__LIVE_LOCKS 16u
#define LUDUS__LIVE_VALUES 48u
#define LUDUS__LIVE_NAME 96u
#define LUDUS__LIVE_PATH 4096u
#define LUDUS__LIVE_MESSAGE 256u
/* A watcher is there while its heartbeat is younger than this. */
#define LUDUS__LIVE_STALE_NS 3000000000ll

/* state bits */
#define LUDUS__LIVE_ST_WATCHED 1u   /* a watcher's heartbeat is fresh: frames are published */
#define LUDUS__LIVE_ST_SCOPES 2u    /* top scopes are recorded (a rolling window of the library's) */
#define LUDUS__LIVE_ST_CAPTURING 4u /* a capture on demand records */
#define LUDUS__LIVE_ST_BUSY 8u      /* the program's own capture runs: no top scopes of ours */
#define LUDUS__LIVE_ST_FOREIGN 16u  /* top scopes come from the program's own rolling window */
#define LUDUS__LIVE_ST_EXITED 32u   /* the process is exiting: nothing more comes */

/* value kinds */
enum { LUDUS__LIVE_COUNTER = 1, LUDUS__LIVE_GAUGE = 2, LUDUS__LIVE_MEMORY = 3 };
/* command kinds and states */
enum { LUDUS__LIVE_CMD_CAPTURE = 1 };
enum { LUDUS__LIVE_CAP_NONE = 0, LUDUS__LIVE_CAP_RUNNING = 1, LUDUS__LIVE_CAP_DONE = 2, LUDUS__LIVE_CAP_FAILED = 3 };

typedef struct ludus__live_frame {
    uint64_t number; /* frame n lies between marks n and n + 1 */
    int64_t begin_ns, duration_ns;
} ludus__live_frame;

typedef struct ludus__live_scope {
    char name[LUDUS__LIVE_NAME]; /* NUL-terminated (cut on a character boundary) */
    char file[LUDUS__LIVE_NAME];
    uint32_t line, lock; /* lock: a lock-wait scope (category "lock") */
    int64_t exclusive_ns;
    uint64_t calls;
    int64_t last_exclusive_ns;
    uint64_t last_calls;
} ludus__live_scope;

typedef struct ludus__live_value {
    char name[LUDUS__LIVE_NAME];
    uint32_t kind, frames; /* frames of the window that hold it */
    /* counter: last frame's sum, min, max, sum over the frames;
     * gauge: last value, min, max, sum of the frames' last values;
     * memory: live bytes, peak live bytes (window), bytes allocated
     * (window), allocations (window) */
    int64_t last, min, max, sum;
    uint32_t unknown, pad; /* memory: live figures unknown (frees of untracked memory) */
} ludus__live_value;

typedef struct ludus__live_published {
    int64_t published_ns; /* the library thread's last write */
    uint64_t publishes;
    uint32_t state, window_frames; /* window_frames: the window the values and scopes were asked over */
    /* frames: entry k of the ring is frame number k's slot (k % FRAMES);
     * frames_total counts every frame written */
    uint64_t frames_total, frames_missed; /* missed: closed between two ticks beyond the in-process ring */
    /* the top scopes' window (from ludus_overlay_top_scopes) */
    int32_t top_rc; /* 0 or a LUDUS_E* code */
    uint32_t top_frames;
    uint32_t top_window_frames, pad2; /* the window the top scopes were asked over (window_frames when computed) */
    uint64_t top_first_frame, top_last_frame;
    int64_t top_begin_ns, top_end_ns; /* CLOCK_MONOTONIC */
    int64_t top_computed_ns;
    uint64_t top_calls, top_incomplete, top_dropped;
    uint32_t top_scopes_total, nscopes, nlocks, nvalues;
    ludus__live_scope scopes[LUDUS__LIVE_SCOPES];
    ludus__live_scope locks[LUDUS__LIVE_LOCKS];
    ludus__live_value values[LUDUS__LIVE_VALUES];
    uint64_t lost_adds;     /* counts lost (a thread without its shard) */
    uint32_t refused, pad0; /* counters, gauges and domains refused (tables full) */
    char frame_thread[64];
    /* the last capture command */
    uint64_t cap_seq; /* the command's sequence number */
    uint32_t cap_state, cap_ms;
    int32_t cap_rc, pad1;
    uint64_t cap_events, cap_dropped, cap_frames;
    int64_t cap_begin_ns, cap_end_ns;
    char cap_message[LUDUS__LIVE_MESSAGE];
    char cap_path[LUDUS__LIVE_PATH];
    ludus__live_frame frames[LUDUS__LIVE_FRAMES];
} ludus__live_published;

typedef struct ludus__live_watcher_area {
    int64_t heartbeat_ns;        /* any watcher's CLOCK_MONOTONIC at its last refresh */
    int64_t scopes_heartbeat_ns; /* ... of a watcher that wants top scopes */
    uint32_t window_frames;      /* frames the values and top scopes cover (clamped 1 .. 100000) */
    uint32_t claim;              /* pid of the watcher writing a command (CAS from 0), 0 free */
    uint64_t cmd_seq;            /* bumped after the command's fields are written */
    uint32_t cmd_kind, cmd_ms;
    char cmd_path[LUDUS__LIVE_PATH]; /* absolute, NUL-terminated */
} ludus__live_watcher_area;

typedef struct ludus__live_block {
    /* written once before magic */
    char magic[8];
    uint32_t version, block_bytes;
    uint64_t pid;
    int64_t start_ns;
    char process[64];
    uint64_t seq; /* odd while the process writes `pub` */
    char pad[64 - 8];
    ludus__live_published pub;
    ludus__live_watcher_area w;
} ludus__live_block;

#endif
