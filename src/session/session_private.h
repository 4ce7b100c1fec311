/* What only the session's files (src/session) share: the in-memory
 * capture's source, the pool's release, the child's side of fork. No file
 * outside src/session includes this (tests/compile/includes.sh). */
#ifndef LUDUS_SESSION_PRIVATE_H
#define LUDUS_SESSION_PRIVATE_H

#include "../capture/capture_build.h"
#include "../gpu/gpu_store.h"
#include "session.h"

/* The last ended in-memory capture (session.c), or NULL. */
LUDUS_HIDDEN ludus_capture *ludus__last_capture(void);
/* The session's captures (session.c): their pool is theirs until released. */
LUDUS_HIDDEN extern const ludus__source_ops ludus__memory_source;
/* Waits until no producer can still write into c's pool (session.c). */
LUDUS_HIDDEN void ludus__capture_quiesce(ludus_capture *c);
/* 1 while a rolling capture runs (ludus__session_rolling). */
LUDUS_HIDDEN int ludus__rolling_owns_session(void);
/* Stops c's prefault thread and frees its pool (session.c). */
LUDUS_HIDDEN void ludus__capture_release_pool(ludus_capture *c);
/* The child's side of fork: the running capture restarts as the child's
 * (session.c); fork.c installs it when the first capture begins. */
LUDUS_HIDDEN void ludus__session_after_fork(void);
/* Installs the fork handlers (fork.c) when the first capture begins. */
LUDUS_HIDDEN void ludus__fork_session_install(void);

#endif
