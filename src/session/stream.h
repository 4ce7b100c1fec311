/* A streamed capture (ludus_capture_desc.stream_path): pieces the threads
 * filled go to a library thread that appends them to the file as event
 * blocks and gives them back to the pool, so a capture of any length runs
 * in a bounded pool. The file is the streamed .ludus variant (format 6,
 * src/format/file_format.h, docs/format.md "Streamed files"). */
#ifndef LUDUS_STREAM_H
#define LUDUS_STREAM_H

#include "../record/record.h"

typedef struct ludus__stream ludus__stream;

/* Creates the file at path (in place: what was written stays when the
 * process dies); 0, or a negative LUDUS_E* code with the detail set.
 * Before the capture is armed. */
LUDUS_HIDDEN int ludus__stream_open(const char *path, ludus__stream **out);
/* Once the session s is armed: writes the provisional header and starts
 * the writer thread, which sleeps until a piece is handed to it (pieces
 * handed before wait for it). */
LUDUS_HIDDEN void ludus__stream_start(ludus__stream *st, const ludus__session *s);
/* From a producer's out-of-line path (new_piece): the thread left this
 * piece full; the writer writes it and gives it back to the pool. One
 * compare-and-swap and a semaphore post; async-signal-safe. */
LUDUS_HIDDEN void ludus__stream_hand(ludus__stream *st, ludus__chunk *piece);
/* 1 when every piece handed so far is written (tests: a barrier, not a wait on time). */
LUDUS_HIDDEN int ludus__stream_caught_up(ludus__stream *st);
/* The running capture's stream caught up (1 when there is none). */
LUDUS_HIDDEN int ludus__stream_idle(void);
/* From the end of the capture, before the session's pool state is
 * cleared: written pieces are no longer given back. */
LUDUS_HIDDEN void ludus__stream_stop_giving(ludus__stream *st);
/* After the capture ended and its late threads are published (c is the
 * capture ludus_capture_end made: each thread's last piece): writes what
 * is still handed, c's pieces, the tables, the summary and the end record,
 * rewrites the header, closes the file, stops the thread and frees st.
 * out: what was written. 0 or LUDUS_EIO (the file holds what was written
 * before the error). */
LUDUS_HIDDEN int ludus__stream_finish(ludus__stream *st, ludus_capture *c, ludus_stream_result *out);
/* Stops and frees a stream whose capture could not be described at its end
 * (the file keeps the blocks written, as after kill -9). */
LUDUS_HIDDEN void ludus__stream_abort(ludus__stream *st);
/* In a child after fork: the writer is the parent's; frees what this
 * process holds of st and closes its descriptor (the file is untouched). */
LUDUS_HIDDEN void ludus__stream_forget(ludus__stream *st);

#endif
