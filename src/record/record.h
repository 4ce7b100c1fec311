/* Recording internals shared by src/record and src/capture: the pool and its
 * pieces, thread records, the per-thread cold state and the session (the
 * capture being recorded). The hot fields live in ludus__hot (profiling.h);
 * everything here is touched off the hot path. */
#ifndef LUDUS_RECORD_H
#define LUDUS_RECORD_H

#include <ludus/capture.h>

#include "../platform/alloc.h"
#include "../platform/platform.h"
#include "../platform/sync.h"

/* The generation in a value of armed (0: none). */
static inline uint32_t ludus__armed_gen(uint32_t armed) {
    return armed & ~LUDUS__ARMED_SLOW;
}

/* Called at each frame mark while a capture runs, when set (the rolling
 * window's hitch detector sets it: a pointer, so a program that only
 * records does not link the rolling window and its exporters). */
LUDUS_HIDDEN extern void (*ludus__frame_hook)(void);

/* Threads registered at the same time (records of exited threads are freed
 * at once: their data moves to the session's retired list). */
#define LUDUS__MAX_THREADS 4096

/* Pieces: a thread's first piece of a capture is small, each next one twice
 * as large up to chunk_bytes, so 10,000 threads that record a few events
 * each fit the default pool. */
#define LUDUS__PIECE_MIN 1024u
#define LUDUS__PIECE_TAIL_MIN 256u /* smallest piece cut from the pool's last bytes */

/* Piece header: the first 64 bytes of every piece. A piece belongs to one
 * thread for one capture; `used` is written when the thread leaves the piece
 * or by the controller when it publishes the thread. */
typedef struct ludus__chunk {
    uint32_t thread; /* registration serial of the owner */
    uint32_t seq;    /* order of the piece within its thread */
    uint32_t gen;    /* capture generation */
    uint32_t bytes;  /* size of the piece, header included */
    uint64_t used;   /* event slots written */
    struct ludus__chunk *next;
    /* The owner's losses so far and the clock at its first (0: none),
     * stored by the owner at each loss while this is its piece: a pool
     * file then holds them (recover), whenever the process dies. */
    uint64_t dropped;
    uint64_t first_drop_ticks;
    uint64_t dropped_before; /* the owner's losses when it took the piece (a flight recorder's window counts from it) */
    uint64_t unused;
} ludus__chunk;

#define LUDUS__CHUNK_EVENTS(c) ((ludus__event *)((ludus__chunk *)(c) + 1))
#define LUDUS__CHUNK_END(c) ((ludus__event *)((char *)(c) + ((ludus__chunk *)(c))->bytes))

/* The pool of the session: one reservation, cut into pieces by a bump
 * pointer. Begins may take pieces up to begin_limit; the rest (the end
 * reserve) is for ends, so a scope whose begin was recorded almost never
 * loses its end when the pool runs out. */
typedef struct ludus__pool {
    char *base;
    uint64_t bytes;       /* total */
    uint64_t begin_limit; /* pieces for begins end here */
    uint64_t next;        /* atomic: bytes handed out */
    uint32_t chunk_bytes; /* largest piece */
    /* atomic: the thread faulting the pool in ahead of the producers, told
       when the cursor passes the mark it asked for (NULL: none) */
    struct ludus__prefault *faulter;
    /* A flight recorder's pieces of exited threads given back (pool.c):
     * a stack, (tag << 41) | (offset / 64 + 1), 0 when empty. */
    uint64_t free_head;
    uint32_t wanted; /* atomic: a thread found no piece but its own (the next reclaim frees more) */
} ludus__pool;

/* A span on the recorder's per-thread stack: whether its begin was recorded,
 * so the end of a dropped begin is dropped too (the reader pairs spans by
 * identity and must never see an end whose begin is missing). */
typedef struct ludus__span_ent {
    const ludus_site *site;
    uint32_t gen;      /* capture the begin belongs to */
    uint32_t recorded; /* 1: the begin is in that capture */
} ludus__span_ent;

/* Thread-local state that is not on the hot path. */
typedef struct ludus__thread_cold {
    int32_t record;      /* index in the registry, -1 when unregistered */
    uint32_t dead;       /* set after the thread's exit hook ran */
    uint32_t gen;        /* capture generation the thread is attached to, 0 = none */
    uint32_t in_slow;    /* atomic: inside an out-of-line event (the controller waits for those) */
    uint32_t late;       /* registry lock: the ended capture still has to publish this thread */
    uint32_t in_library; /* > 0 inside registration and control calls: events are dropped */
    uint32_t slow;       /* the attached capture records every event out of line */
    uint32_t reserve;    /* writing in the end reserve: begins are dropped */
    uint32_t exhausted;  /* the pool refused this thread: drop without asking again */
    uintptr_t own_limit; /* the limit in slow and reserve mode (ludus__hot.limit stays 0) */
    ludus__chunk *chunk; /* current piece (NULL before the first event) */
    ludus__chunk *first_chunk;
    uint32_t chunk_seq;
    uint32_t piece_bytes; /* size of the next piece to ask for */
    /* The flight recorder (ludus__session.ring_ticks): events of the
     * thread's own oldest pieces written over, all of them and those still
     * inside the window when the pool had no other room (atomic: read by
     * ludus_rolling_get_stats). */
    uint64_t evicted, evicted_in_window;
    uint32_t serial;           /* unique per registration; flow ids derive from it */
    uint64_t dropped;          /* events lost in this capture (this thread only writes it) */
    uint64_t signal_drops;     /* atomic: events lost from a signal handler */
    uint64_t early_drops;      /* atomic: capture generation << 32 | events a signal handler lost before the
                                  thread joined that capture (its interrupted first event joins it) */
    uint64_t first_drop_ticks; /* clock at the first loss, 0 before */
    uint64_t spans;            /* span begins recorded in this capture */
    uint64_t orphan_ends;      /* span ends of spans begun before this capture */
    uint64_t flow_seq;
    ludus__span_ent *span; /* the span stack (allocated at registration) */
    uint32_t span_depth, span_cap;
} ludus__thread_cold;

enum { LUDUS__REC_FREE = 0, LUDUS__REC_LIVE = 1 };

typedef struct ludus__thread_record {
    int state;
    ludus__thread_hot *hot; /* the live thread's TLS */
    ludus__thread_cold *cold;
    char name[64];
    uint64_t tid;
    uint32_t serial;
    uint32_t pins; /* snapshots copying the thread's pieces now (registry lock): ring_snapshot.c */
} ludus__thread_record;

/* What a capture keeps of one thread: published at capture end for live
 * threads, at exit for threads that exit while a capture runs. */
typedef struct ludus__thread_final {
    char name[64];
    uint64_t tid;
    uint32_t serial;
    int exited;
    ludus__chunk *first;
    uint64_t dropped;
    uint64_t first_drop_ticks;
    uint64_t spans;
    uint64_t orphan_ends;
    uintptr_t lost_begin; /* the slot of the inline event in flight at the end, left out (0: none) */
    uint64_t left_ticks;  /* a flight recorder's exited thread: the clock when it left (after its last event) */
    uint32_t pins;        /* snapshots copying its pieces now: none goes back to the pool (registry lock) */
} ludus__thread_final;

typedef struct ludus__registry {
    ludus__mutex lock; /* registration, exit, capture begin and end */
    ludus__thread_record rec[LUDUS__MAX_THREADS];
    uint32_t high; /* records in use are below this index */
    uint32_t next_serial;
    uint64_t unregistered_drops; /* atomic: events of threads the table had no room for */
    ludus__once fork_once;       /* the fork handlers, installed at the first registration */
    /* Runs in each thread that registers (threads.c), when set (atomic):
     * crash capture (src/postmortem/crash.c) gives the thread an alternate
     * signal stack. */
    void (*setup_hook)(void);
    /* Runs when a thread registers or is renamed (the lock held), when set
     * (under the lock): a capture backed by a file journals the name at
     * once (src/session/pool_file.c), so a kill -9 right after keeps it. */
    void (*named_hook)(const ludus__thread_record *r);
    /* Runs when a thread the last capture has still to publish (cold->late:
     * it was inside an out-of-line event at the end) leaves the registry
     * (the lock held): the session publishes it now, before its state goes.
     * Set by the session's end (src/session/session.c) under the lock. */
    void (*leaving_hook)(const ludus__thread_record *r);
    /* Set by the launch code's constructor (src/launch/launch.c), which runs
     * before the registry's: 1 when the program holds it (threads.c says so
     * when LUDUS_TRACE is set and it does not). */
    int launch_ran;
} ludus__registry;

/* Run-time names of one capture (LUDUS_PROFILE_SCOPE_DYN): interned per
 * capture so every capture can intern up to its bound, owned by the capture
 * once it ends (its events point at these descriptors). */
typedef struct ludus__name_table ludus__name_table;

/* The capture being recorded (session.c); NULL fields while none is. */
typedef struct ludus__session {
    uint32_t gen;
    int slow;
    int join_membarrier;
    int clock_tsc;
    ludus_capture_desc desc; /* desc.categories unused: see categories */
    char *categories;        /* the enabled list, owned */
    void *pool_mem;
    ludus__calib_point begin_point;
    int pid;
    char process_name[64];
    ludus__thread_final *retired;
    uint32_t nretired, retired_cap;
    /* A flight recorder drops the exited threads whose pieces all went
     * back to the pool (pool.c, ludus__ring_reclaim): the entries before
     * retired_head are gone. */
    uint32_t retired_head;
    uint64_t retired_evicted, retired_evicted_in_window; /* atomic: their events given back */
    uint32_t retired_oom;                                /* exits whose data could not be kept (counted as dropped) */
    uint64_t retired_oom_events;
    /* What producers read out of line: kept after the capture ends while a
     * thread that was inside an out-of-line event then may still run. */
    ludus__pool pool;
    /* The flight recorder (src/flight/rolling.c): each thread writes over its
     * own oldest piece once that piece lies wholly before the window (this
     * many ticks back), or when the pool has no other room; 0 for a plain
     * capture. Atomic: the window's thread sets it once the tick rate is
     * known (UINT64_MAX until then: pieces are reused only for room). */
    uint64_t ring_ticks;
    ludus__name_table *names; /* the running (or late) capture's */
    uint32_t interner_drops;  /* atomic: names refused while this capture ran */
    /* A streamed capture (src/session/stream.c): a thread hands each piece
     * it leaves to the writer and takes written ones back from the pool's
     * stack of given-back pieces first; NULL for any other capture. */
    struct ludus__stream *stream;
    /* The writer's intake for a full piece, set with stream by the session
     * (a hook: the recorder sits below src/session/ and never names it). */
    void (*stream_hand)(struct ludus__stream *st, ludus__chunk *piece);
} ludus__session;

/* Where the producers' part of the session starts. */
#define LUDUS__SESSION_PRODUCERS offsetof(ludus__session, pool)

LUDUS_HIDDEN extern ludus__registry ludus__reg;
LUDUS_HIDDEN extern ludus__session ludus__sess; /* pool.c; the session fills it */
LUDUS_HIDDEN extern int ludus__clock_is_tsc;
LUDUS_HIDDEN extern LUDUS__TLS ludus__thread_cold ludus__cold LUDUS__TLS_MODEL;

/* Registers the calling thread (lock held inside). name NULL keeps or sets
 * the default name. */
LUDUS_HIDDEN int ludus__register_self(const char *name);
/* Takes a piece of `want` bytes (or what is left, at least PIECE_TAIL_MIN)
 * from the session's pool; NULL when exhausted. for_end: may use the end
 * reserve. */
LUDUS_HIDDEN ludus__chunk *ludus__pool_take(uint32_t want, int for_end);
/* A flight recorder's piece given back by an exited thread, or a streamed
 * capture's written piece, or NULL (lock-free: any producer, per piece). */
LUDUS_HIDDEN ludus__chunk *ludus__pool_take_free(void);
/* A streamed capture's writer: the piece is written, any thread may take it. */
LUDUS_HIDDEN void ludus__pool_give_back(ludus__chunk *ch);
/* A flight recorder (registry lock held): the pieces of exited threads
 * that lie wholly before the window go back to the pool,
 * and, while the pool is short (a thread found no piece but its own, or
 * the pool's fresh part is nearly gone and nothing is given back), the
 * oldest pieces of exited threads inside the window too (counted as
 * evicted). An exited thread left with no piece leaves the retired list. */
LUDUS_HIDDEN void ludus__ring_reclaim(void);
/* The thread's published state (registry lock held). */
LUDUS_HIDDEN void ludus__thread_publish(const ludus__thread_record *r, uint32_t gen, ludus__thread_final *out);
/* Resets the registry in a child process after fork (threads.c). */
LUDUS_HIDDEN void ludus__registry_after_fork(void);
/* Installs the registry's fork handlers (once; registering a thread does
 * too): the session's, installed after it, then run first before a fork. */
LUDUS_HIDDEN void ludus__registry_fork_install(void);

/* Library calls that take locks mark the thread, so an event recorded by a
 * signal handler that interrupts them is dropped, never deadlocks. */
static inline void ludus__lib_enter(void) {
    __atomic_add_fetch(&ludus__cold.in_library, 1u, __ATOMIC_RELAXED);
}
static inline void ludus__lib_leave(void) {
    __atomic_sub_fetch(&ludus__cold.in_library, 1u, __ATOMIC_RELAXED);
}

/* Per-thread error detail: the buffer is errors.c's (ludus_last_error_detail
 * returns it); ludus__fail (fail.c) fills it. */
#define LUDUS__ERROR_DETAIL_BYTES 512
LUDUS_HIDDEN int ludus__fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sites (sites.c): registered sites live for the process; run-time names
 * live in the capture's name table. */
LUDUS_HIDDEN const ludus_site *ludus__site_by_id(uint32_t id);
LUDUS_HIDDEN ludus__name_table *ludus__names_create(void);
/* Tables are counted references: a flight recorder's snapshot holds its
 * recording's table (its events point into it); destroy drops one. */
LUDUS_HIDDEN void ludus__names_retain(ludus__name_table *t);
LUDUS_HIDDEN void ludus__names_destroy(ludus__name_table *t);
/* The descriptor of a run-time name in t; NULL when t is full. */
LUDUS_HIDDEN const ludus_site *ludus__names_intern(ludus__name_table *t, const char *name);
/* The same with a category (a static string, compared by address: named
 * locks' "lock"); NULL is none. */
LUDUS_HIDDEN const ludus_site *ludus__names_intern_in(ludus__name_table *t, const char *name, const char *category);
/* A scope of a run-time name of that category, interned in the running
 * capture's table (emit.c): a named lock's wait; when the table is full
 * (the refusal counted), a scope of if_full. */
LUDUS_HIDDEN uintptr_t ludus__dyn_begin_in(const char *name, const char *category, const ludus_site *if_full);
/* 1 when p is one of t's descriptors (it lives as long as t). */
LUDUS_HIDDEN int ludus__names_contains(const ludus__name_table *t, const void *p);
/* fork (threads.c's fork handlers): the registered-site table locked across fork and
 * made usable again in the child. */
LUDUS_HIDDEN void ludus__sites_fork_lock(void);
LUDUS_HIDDEN void ludus__sites_fork_unlock(void);
LUDUS_HIDDEN void ludus__sites_fork_reset(void);
/* The same for a name table (NULL: nothing to do). */
LUDUS_HIDDEN void ludus__names_fork_lock(ludus__name_table *t);
LUDUS_HIDDEN void ludus__names_fork_unlock(ludus__name_table *t);
LUDUS_HIDDEN void ludus__names_fork_reset(ludus__name_table *t);
LUDUS_HIDDEN extern const ludus_site ludus__frame_site;
LUDUS_HIDDEN extern const ludus_site ludus__invalid_site;
LUDUS_HIDDEN extern const ludus_site ludus__empty_name_site;

/* The built-in recorder's side of the integration API: what src/backend/
 * builtin.c's public entry points do (a Tracy build's src/backend/tracy.c
 * defines those entry points instead and never calls these). */
LUDUS_HIDDEN void ludus__rec_begin_site(uint32_t site_id);
LUDUS_HIDDEN void ludus__rec_end_site(void);
LUDUS_HIDDEN void ludus__rec_end_site_id(uint32_t site_id);
LUDUS_HIDDEN void ludus__rec_sample_counter(uint32_t site_id, int64_t value);
LUDUS_HIDDEN void ludus__rec_sample_counter_f64(uint32_t site_id, double value);
LUDUS_HIDDEN ludus_unwind_point ludus__rec_unwind_here(void);
LUDUS_HIDDEN void ludus__rec_unwound_to(ludus_unwind_point point);
LUDUS_HIDDEN void ludus__rec_log_text(int level, const char *text, size_t len);
LUDUS_HIDDEN void ludus__rec_vlog(int level, const char *fmt, va_list args);
LUDUS_HIDDEN void ludus__rec_async_begin(uint32_t track, uint64_t id, uint32_t site_id);
LUDUS_HIDDEN void ludus__rec_async_end(uint32_t track, uint64_t id);
LUDUS_HIDDEN void ludus__rec_fiber_enter(const char *name);
LUDUS_HIDDEN void ludus__rec_fiber_leave(void);
LUDUS_HIDDEN int ludus__rec_register_thread(const char *name);

/* Out-of-line events of two slots or more (emit.c); 1 when recorded, 0
 * when dropped (counted) or no capture runs. */
LUDUS_HIDDEN int ludus__emit_value(uintptr_t word, uint64_t p0, uintptr_t p1);
/* A frame mark with the frame thread's CPU time at it (ns, the thread clock). */
LUDUS_HIDDEN void ludus__frame_with_cpu(int64_t cpu_ns);
/* An extension event of sub-kind code (event_kinds.h): value, and len bytes
 * of data (cut at LUDUS__EXT_DATA_MAX). */
LUDUS_HIDDEN int ludus__emit_ext(const ludus_site *site, unsigned code, uint64_t value, const void *data, size_t len);
LUDUS_HIDDEN const ludus_site *ludus__emit_fiber_enter(const char *name);
LUDUS_HIDDEN void ludus__emit_fiber_leave(const ludus_site *fiber);

#endif
