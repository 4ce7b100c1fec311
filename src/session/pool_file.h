/* A pool backed by a file (ludus_capture_desc.pool_file): the layout of the
 * file, the only description of it, and the calls session.c and recover.c
 * make. The file is a header, a journal and the pool itself:
 *
 *   [0, 4096)                 ludus__pf_header (native byte order: read back
 *                             on the machine that wrote it)
 *   [journal_off, +cap)       journal records, appended by a background
 *                             thread: what the events' words mean (sites by
 *                             address, threads by registration serial)
 *   [pool_off, +pool_bytes)   the pool, exactly as the producers write it
 *
 * The producers write the pool as they always do; the mapping is shared, so
 * after kill -9 the file holds every event stored up to that moment. The
 * journal lags by up to a period (20 ms): a site first met after the last
 * journal pass is recovered without its name, said as such. A thread's name
 * is journaled when it registers (or is renamed), not at the next pass. */
#ifndef LUDUS_POOL_FILE_H
#define LUDUS_POOL_FILE_H

#include <stdint.h>

#include "../platform/platform.h"

#define LUDUS__PF_MAGIC UINT64_C(0x4c4f4f5053554455) /* "UDUSPOOL" */
#define LUDUS__PF_VERSION 2u                         /* 2: events of the format 5 kinds (the extension kind) */
#define LUDUS__PF_BYTE_ORDER 0x01020304u
#define LUDUS__PF_HEADER_BYTES 4096u
#define LUDUS__PF_JOURNAL_BYTES ((uint64_t)4 << 20)
#define LUDUS__PF_PERIOD_NS 20000000 /* a journal pass */

typedef struct ludus__pf_header {
    uint64_t magic;
    uint32_t version, header_bytes;
    uint32_t byte_order, pointer_bytes;
    uint64_t journal_off, journal_cap, pool_off, pool_bytes;
    uint64_t pool_base; /* the pool's address in the process: event words point into it */
    uint32_t gen, clock_tsc;
    int32_t pid, ended; /* ended: 1 once the capture ended normally */
    char process_name[64];
    uint64_t c0_ticks;
    int64_t c0_ns, c0_window;
    /* written by the journal thread: seq is odd while c1 is written */
    uint32_t seq, reserved;
    uint64_t c1_ticks;
    int64_t c1_ns, c1_window;
    uint64_t journal_bytes; /* committed (stored after the records) */
    uint64_t pool_next;     /* bytes of the pool handed out at the last pass */
    /* written by the journal thread at each pass (0 in files of before) */
    uint64_t unregistered_drops; /* events of threads the thread table refused */
    uint64_t interner_drops;     /* run-time names refused */
} ludus__pf_header;

/* Journal records: {u32 type, u32 payload bytes (a multiple of 8)} then the
 * payload.
 *   SITE    u64 key, u32 line, u32 flags, u32 name, function, file and
 *           category lengths, then those strings (no NUL), zero padding
 *   THREAD  u32 serial, u32 name length, u64 tid, the name, zero padding:
 *           written when the thread registers or is renamed while the
 *           capture runs (the last one of a serial counts), and for the
 *           threads registered before, when the capture begins
 *   STATE   u32 serial, u32 flags (LUDUS__PF_EXITED), u64 events lost so far,
 *           u64 clock at the first loss (0: none): written when it changed,
 *           the last one counts. The thread's pieces hold its losses too
 *           (ludus__chunk.dropped, stored at each loss): recover takes the
 *           larger, so losses after the last pass are kept where a piece
 *           was there to hold them. */
enum { LUDUS__PF_SITE = 1, LUDUS__PF_THREAD = 2, LUDUS__PF_STATE = 3 };
enum { LUDUS__PF_EXITED = 1u };
enum {
    LUDUS__PF_SITE_HAS_CATEGORY = 1u,
    LUDUS__PF_SITE_TEXT = 2u, /* plain text (LUDUS_SITE_TEXT): no C literal to resolve */
    LUDUS__PF_SITE_FLOW = 4u  /* a flow's name (key: LUDUS__FLOW_NAME_KEY) */
};

typedef struct ludus__pool_file ludus__pool_file;

/* Creates path for a pool of pool_bytes; *pool is where the producers
 * write. 0, or a LUDUS_E* code (the detail is set). */
LUDUS_HIDDEN int ludus__pool_file_create(const char *path, uint64_t pool_bytes, ludus__pool_file **out, void **pool);
/* Fills the header and starts the journal thread (the capture is armed). */
LUDUS_HIDDEN void ludus__pool_file_start(ludus__pool_file *f, uint32_t gen, int clock_tsc, ludus__calib_point c0,
                                         int pid, const char *process_name, const uint64_t *pool_next);
/* Stops the journal thread (the capture has ended: nothing is written
 * after this) and marks the file as ended. */
LUDUS_HIDDEN void ludus__pool_file_stop(ludus__pool_file *f, int ended);
/* Stops, unmaps and removes the file (its capture is released). A file
 * still open when the process exits is removed then (atexit). */
LUDUS_HIDDEN void ludus__pool_file_close(ludus__pool_file *f);
/* The path it was created at. */
LUDUS_HIDDEN const char *ludus__pool_file_path(const ludus__pool_file *f);
/* In a child after fork: the list of open files is the parent's. */
LUDUS_HIDDEN void ludus__pool_files_after_fork(void);
/* In a child after fork: the thread is the parent's and the file too; the
 * child lets go of the mapping without touching the file. */
LUDUS_HIDDEN void ludus__pool_file_forget(ludus__pool_file *f);
/* A test hook (NULL otherwise): the journal thread calls it before each
 * pass (a test stops the journal there, to kill the process between two
 * passes at a moment it chooses). */
LUDUS_HIDDEN extern void (*ludus__pool_file_pass)(void);
/* In the child writing a crash: the journal thread is not there (stop
 * does not wait for it); the file is the crashed process's. */
LUDUS_HIDDEN void ludus__pool_file_crashed(ludus__pool_file *f);

#endif
