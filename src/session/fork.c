/* fork and the running capture: in the child it restarts as the child's
 * own (its pid, its tids, none of the parent's events: those stay in the
 * parent's capture). The registry's own fork handling (threads.c) runs
 * first: only the forking thread remains registered. */
#include "../platform/process.h"
#include "../platform/sync.h"
#include "session_private.h"
#include "../capture/nev.h"
#include "../record/counters.h"

static ludus__once once = LUDUS__ONCE_INIT;

/* No begin or end is halfway at the fork (the control lock, held across
 * it: a begin that set a new name table between prepare and parent made
 * parent unlock another table than prepare locked), and the running
 * capture's name table is consistent in the child. The control lock is
 * taken before every other lock of the library (session.h), so
 * these handlers run first: they are installed after the registry's and
 * the counters' (pthread_atfork runs prepare handlers last installed
 * first). The crash copy is made without atfork handlers (linux_crash.c). */
static void prepare(void) {
    ludus__control_lock();
    ludus__names_fork_lock(ludus__sess.names);
}

static void parent(void) {
    ludus__names_fork_unlock(ludus__sess.names);
    ludus__control_unlock();
}

static void child(void) {
    ludus__names_fork_reset(ludus__sess.names);
    ludus__session_after_fork(); /* makes the control lock anew */
}

static void install(void) {
    ludus__registry_fork_install();
    ludus__counters_fork_install();
    ludus__on_fork(prepare, parent, child);
}

void ludus__fork_session_install(void) {
    ludus__once_run(&once, install);
}
