/* Recording internals shared by src/record and src/capture: the chunk pool,
 * thread records and the per-thread cold state. The hot fields live in
 * ludus__hot (profiling.h); everything here is touched off the hot path. */
#ifndef LUDUS_RECORD_H
#define LUDUS_RECORD_H

#include <ludus/capture.h>
#include <pthread.h>

#include "../platform/platform.h"

#define LUDUS__MAX_THREADS 1024
#define LUDUS__SPAN_DEPTH 64

/* Chunk header: the first 64 bytes of every chunk. A chunk belongs to one
 * thread for one capture; `used` is written when the thread leaves the chunk
 * (handoff) or by the controller when it publishes the partial chunk. */
typedef struct ludus__chunk {
    uint32_t thread; /* record index */
    uint32_t seq;    /* order of the chunk within its thread */
    uint32_t gen;    /* capture generation */
    uint32_t unused0;
    uint64_t used;             /* event slots written */
    struct ludus__chunk *next; /* the thread's next chunk in this capture */
    uint64_t unused1[4];
} ludus__chunk;

#define LUDUS__CHUNK_EVENTS(c) ((ludus__event *)((ludus__chunk *)(c) + 1))

typedef struct ludus__pool {
    char *base;
    size_t chunk_bytes;
    uint32_t count;
    uint32_t next; /* atomic: next chunk to hand out */
    ludus_allocator allocator;
} ludus__pool;

/* Thread-local state that is not on the hot path. */
typedef struct ludus__thread_cold {
    int32_t record;            /* index in the registry, -1 when unregistered */
    uint32_t dead;             /* set after the thread's exit hook ran */
    ludus__chunk *chunk;       /* current chunk (NULL before the first event) */
    ludus__chunk *first_chunk; /* first chunk of this capture */
    uint32_t chunk_seq;
    uint32_t serial;      /* unique per registration; flow ids derive from it */
    uint64_t dropped;     /* events lost to a full pool in this capture */
    uint64_t orphan_ends; /* ends in this capture of scopes begun in an earlier one */
    uint64_t flow_seq;
    uint32_t slow;        /* the attached capture records every event out of line */
    intptr_t slow_room;   /* the room, in that mode: ludus__hot.room stays 0 so
                             the inline path always hands off (see emit.c) */
    uint32_t carry_gen;   /* capture the thread was released from (unregister) */
    uint32_t carry_depth; /* scopes it still had open then: their end slots */
    uint32_t span_depth;
    uint32_t span_overflow;
    uint32_t span_tok[LUDUS__SPAN_DEPTH];
} ludus__thread_cold;

enum { LUDUS__REC_FREE = 0, LUDUS__REC_LIVE = 1, LUDUS__REC_EXITED = 2 };

typedef struct ludus__thread_record {
    int state;
    ludus__thread_hot *hot; /* the live thread's TLS, NULL once it exited */
    ludus__thread_cold *cold;
    char name[64];
    uint64_t tid;
    /* Final state saved when the thread exits during a capture. */
    uint32_t exit_gen;
    ludus__event *exit_cur;
    ludus__chunk *exit_chunk;
    ludus__chunk *exit_first;
    uint64_t exit_dropped;
    uint64_t exit_orphans;
} ludus__thread_record;

typedef struct ludus__registry {
    pthread_mutex_t lock; /* registration, exit and capture end */
    ludus__thread_record rec[LUDUS__MAX_THREADS];
    uint32_t high; /* records in use are below this index */
    uint32_t next_serial;
    uint64_t unregistered_drops; /* events of threads the table had no room for */
} ludus__registry;

LUDUS_HIDDEN extern ludus__registry ludus__reg;
LUDUS_HIDDEN extern ludus__pool ludus__the_pool;
LUDUS_HIDDEN extern __thread ludus__thread_cold ludus__cold __attribute__((tls_model("initial-exec")));

/* Registers the calling thread (lock held inside). name NULL keeps or sets
 * the default name. */
LUDUS_HIDDEN int ludus__register_self(const char *name);
/* Takes one chunk from the pool of the active capture, NULL when exhausted. */
LUDUS_HIDDEN ludus__chunk *ludus__pool_take(void);
LUDUS_HIDDEN ludus__event *ludus__chunk_end(const ludus__chunk *c);

/* Per-thread error detail (errors.c). */
LUDUS_HIDDEN int ludus__fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run-time sites (sites.c). */
LUDUS_HIDDEN const ludus_site *ludus__site_by_id(uint32_t id);
LUDUS_HIDDEN uint32_t ludus__interner_drops(void);
LUDUS_HIDDEN extern const ludus_site ludus__frame_site;

#endif
