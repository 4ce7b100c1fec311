/* What the live view needs from the OS (linux_live_map.c, win32_live_map.c;
 * docs/live.md): a block of memory a process shares with the watchers its
 * owner runs, found from the process id alone, that neither side can shrink
 * under the other; a way for a watcher to wake the process's idle thread
 * (or a poll where there is none); whether that process still runs; and a
 * capture file created where a watcher asked without following a link
 * planted there. */
#ifndef LUDUS_LIVE_MAP_H
#define LUDUS_LIVE_MAP_H

#include <stddef.h>
#include <stdint.h>

#include "background.h"
#include "platform.h"

typedef struct ludus__live_map {
    void *p;
    size_t bytes;
    int fd;        /* Linux: the block's descriptor (-1: none) */
    int proc_fd;   /* Linux, watcher side: the process's /proc directory (-1: none) */
    int remote_fd; /* Linux, watcher side: the block's descriptor number in the process (-1: unknown) */
    void *section; /* Windows: the named file mapping (NULL: none) */
    void *ring;    /* Windows: the named event a watcher sets (NULL: none) */
    void *process; /* Windows, watcher side: the process, held open (NULL: none) */
} ludus__live_map;

/* Process side: a new block of `bytes` zeros, mapped read-write, that only
 * this user (and root) can open, and that can never shrink (a watcher that
 * truncated it would make the process fault). Gone when the process is.
 * 0 or a negative errno. */
LUDUS_HIDDEN int ludus__live_map_create(size_t bytes, ludus__live_map *m);
/* Both sides; NULL and an empty map are no-ops. */
LUDUS_HIDDEN void ludus__live_map_close(ludus__live_map *m);
/* Process side: returns after a post of quit or timeout_ns, whichever is
 * first. A negative timeout_ns is the idle wait (nobody watches): it ends
 * when a watcher rings (ludus__live_map_ring; Windows: the block's named
 * event) or quit is posted; where a watcher cannot ring (Linux) it ends
 * after a poll interval (250 ms) instead. */
LUDUS_HIDDEN void ludus__live_map_wait(const ludus__live_map *m, ludus__wakeup *quit, int64_t timeout_ns);
/* Watcher side: ends the process's idle wait (a no-op where it polls). */
LUDUS_HIDDEN void ludus__live_map_ring(const ludus__live_map *m);

/* Watcher side: the block of process pid, at least min_bytes, mapped
 * read-write. Errors, with *uid_out the process's owner where known:
 *   -ESRCH   no such process (or it exited);
 *   -EACCES  another user's process (this user is neither it nor root);
 *   -ENOENT  the process publishes no block (not started with LUDUS_LIVE=1);
 *   -EINVAL  a block that is too small or can shrink: not one of ours. */
LUDUS_HIDDEN int ludus__live_map_open(uint64_t pid, size_t min_bytes, ludus__live_map *m, uint32_t *uid_out);
/* 1 while the process that m was opened from runs (not a zombie, and on
 * Linux has not exec()ed); 0 once it exited (its pid reused by another is
 * still 0). */
LUDUS_HIDDEN int ludus__live_map_alive(const ludus__live_map *m);

/* Watcher side: path made absolute against the current directory (not
 * resolved: links stay as named; Windows: GetFullPathName, which also
 * folds "." and ".."). 0 or a negative errno. */
LUDUS_HIDDEN int ludus__live_absolute(const char *path, char *out, size_t cap);
/* 1 when path is absolute ("/..."; Windows: "X:\..." or "\\server\...",
 * either slash). */
LUDUS_HIDDEN int ludus__live_path_absolute(const char *path);
/* 1 while a process of that id exists. */
LUDUS_HIDDEN int ludus__live_pid_running(uint32_t pid);

/* A capture file at an absolute path: a new temporary in its directory,
 * created exclusively and never through a link, 0600; commit renames it
 * over path (a link at path is replaced, not followed). 0 or a negative
 * errno. */
typedef struct ludus__live_out {
    int fd;
    char tmp[4200];
    char path[4100];
} ludus__live_out;
LUDUS_HIDDEN int ludus__live_out_create(const char *path, ludus__live_out *o);
LUDUS_HIDDEN int ludus__live_out_write(void *o, const void *data, size_t n); /* a ludus_write_fn */
LUDUS_HIDDEN int ludus__live_out_commit(ludus__live_out *o);
LUDUS_HIDDEN void ludus__live_out_abort(ludus__live_out *o);
/* Watcher side, once process pid is gone: removes the temporary it was
 * writing for path (a regular file, never through a link; on POSIX one of
 * this user only). 1 when one was removed. */
LUDUS_HIDDEN int ludus__live_out_remove_stale(const char *path, uint64_t pid);

#endif
