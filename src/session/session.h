/* The session's side for the rooms above it (docs/design.md): the flight
 * recorder, the live view and the post-mortem paths begin, end and snapshot
 * the one running capture through these, under the recorder's one owner.
 * What only the session's own files share is session_private.h. */
#ifndef LUDUS_SESSION_H
#define LUDUS_SESSION_H

#include "../capture/capture_model.h"

/* The running flight recorder's events as a capture, copied while the
 * producers go on (src/session/ring_snapshot.c); the copy is a capture
 * with c->ring set. */
LUDUS_HIDDEN int ludus__session_ring_snapshot(ludus_capture **out);
/* A test hook (NULL otherwise): a snapshot calls it in mid-copy, after
 * its first thread's copy, without the registry lock (a thread that
 * registers, records and exits then is not held up). */
LUDUS_HIDDEN extern void (*ludus__snapshot_copying)(void);
/* Frees the copy memory kept for the next snapshot (the recorder ended). */
LUDUS_HIDDEN void ludus__session_ring_forget(void);
/* Makes the running capture a flight recorder (window: ticks, UINT64_MAX
 * until the tick rate is known; 0 to stop). */
LUDUS_HIDDEN void ludus__session_set_ring(uint64_t window_ticks);
/* ---- the recorder's one owner (session.c; docs/live.md, "One owner of the
 * recorder") ----
 * Every begin, end and snapshot of every kind (the program's captures and
 * rolling windows, the live view's, the flight recorder's) runs under one
 * control lock, so a check and an arm are one step. The recorder is held by
 * the program or by a guest (the live view, src/live): a guest only takes
 * it when nobody holds it, and yields it whenever the program begins
 * anything, so a watcher never changes what the program's calls return.
 * Lock order: the control lock, then the window's (rolling.c), then the
 * registry's. */
enum { LUDUS__OWNER_NONE = 0, LUDUS__OWNER_PROGRAM = 1, LUDUS__OWNER_GUEST = 2 };
LUDUS_HIDDEN void ludus__control_lock(void);
LUDUS_HIDDEN void ludus__control_unlock(void);
/* Who holds the recorder now (LUDUS__OWNER_*). */
LUDUS_HIDDEN int ludus__owner(void);
/* Begins a capture for owner (the control lock held, nobody holding the
 * recorder). */
LUDUS_HIDDEN int ludus__capture_begin_locked(const ludus_capture_desc *desc, int owner);
/* The control lock held: ends what a guest records (its capture is kept for
 * it, ludus__guest_capture_end; its rolling window ends through
 * ludus__rolling_yield, which rolling.c sets). */
LUDUS_HIDDEN void ludus__guest_yield(void);
LUDUS_HIDDEN extern void (*ludus__rolling_yield)(void);
/* The guest's captures: begin refuses (LUDUS_EBUSY) while anyone holds the
 * recorder; end returns the guest's capture, quiesced (*yielded: 1 when the
 * program took the recorder first and the capture was ended then). */
LUDUS_HIDDEN int ludus__guest_capture_begin(const ludus_capture_desc *desc);
LUDUS_HIDDEN int ludus__guest_capture_end(ludus_capture **out, int *yielded);
/* 1 when the guest's capture was ended for the program (lock-free). */
LUDUS_HIDDEN int ludus__guest_capture_yielded(void);
/* Ends the running capture whatever owns it (rolling.c; the control lock
 * held). A guest's ended capture is released. */
LUDUS_HIDDEN int ludus__session_end(void);
/* 1 while a rolling capture runs (ludus_capture_begin and ludus_capture_end
 * refuse then); rolling.c sets it. */
LUDUS_HIDDEN void ludus__session_rolling(int on);
/* In the child that writes a crash (crash.c): no other thread runs and
 * none comes back; the locks are made anew, ending never waits, and what
 * a thread had in flight is lost and counted. */
LUDUS_HIDDEN void ludus__session_crashed(void);
/* In the copy writing a crash: the capture the crash ends, as a
 * reference (0), or LUDUS_ENOCAPTURE when none was running. A thread of
 * the crashed process may have been in the middle of ending one (it is
 * not in the copy): the end is finished from where it stopped, or its
 * capture object taken as it stands once it holds everything. */
LUDUS_HIDDEN int ludus__session_crash_end(ludus_capture **out);
/* The steps of begin and end that a test may stop a thread at (through
 * ludus__session_step, NULL otherwise), to crash another thread there. */
enum {
    LUDUS__STEP_ARMING = 1, /* begin: the session being filled, not armed */
    LUDUS__STEP_ARMED,      /* begin: armed, the registry still locked */
    LUDUS__STEP_ENDING,     /* end: disarmed, no thread published yet */
    LUDUS__STEP_PUBLISHED,  /* end: every thread published, no capture object yet */
    LUDUS__STEP_ENDED,      /* end: the capture object holds it all, the session not yet cleared */
    LUDUS__STEP_INACTIVE    /* end: no capture active, the ended one not yet the last */
};
LUDUS_HIDDEN extern void (*ludus__session_step)(int step);

#endif
