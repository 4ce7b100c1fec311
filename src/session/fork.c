/* fork and the running capture: in the child it restarts as the child's
 * own (its pid, its tids, none of the parent's events: those stay in the
 * parent's capture). The registry's own fork handling (threads.c) runs
 * first: only the forking thread remains registered. */
#include "../platform/process.h"
#include "../platform/sync.h"
#include "../capture/capture_internal.h"

static ludus__once once = LUDUS__ONCE_INIT;

/* The running capture's name table is consistent in the child. */
static void prepare(void) {
    ludus__names_fork_lock(ludus__sess.names);
}

static void parent(void) {
    ludus__names_fork_unlock(ludus__sess.names);
}

static void child(void) {
    ludus__names_fork_reset(ludus__sess.names);
    ludus__session_after_fork();
}

static void install(void) {
    ludus__on_fork(prepare, parent, child);
}

void ludus__fork_session_install(void) {
    ludus__once_run(&once, install);
}
