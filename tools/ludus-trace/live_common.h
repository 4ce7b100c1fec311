/* What the live verbs share (verb_top.c, verb_capture.c): a process id
 * from the command line, a watch opened with a clear error, a short sleep,
 * the wait for a capture on demand (live_common.c). */
#ifndef LUDUS_TRACE_LIVE_COMMON_H
#define LUDUS_TRACE_LIVE_COMMON_H

#include <ludus/live.h>
#include <stdint.h>

/* 0, or -1 when s is not a process id (digits, 1 .. 2^31-1). */
int lt_live_parse_pid(const char *s, uint64_t *pid);
/* Opens pid's block; on failure says why ("no process", "another user's",
 * "not started with LUDUS_LIVE=1") and returns the exit code. */
int lt_live_open(const char *verb, uint64_t pid, ludus_watch **out);
void lt_live_sleep_ms(unsigned ms);
/* Reads w until the capture command id is done or failed (its result in
 * *v): LT_OK, or LT_IO when the process exited or took too long. */
int lt_live_wait_capture(const char *verb, ludus_watch *w, uint64_t id, uint32_t ms, ludus_watch_view *v);

#endif
