/* Crash capture (ludus_crash_capture_begin, <ludus/capture.h>). The
 * platform layer (src/platform/crash.h) catches the signal and runs
 * write_crash in a child that is a copy of the crashed process: there the
 * session is told no other thread runs (ludus__session_crashed), the
 * capture or the rolling window is ended as usual and marked with the
 * signal and the thread, and saved with the ordinary writer. */
#include <stdio.h>
#include <string.h>

#include "../platform/crash.h"
#include "../capture/capture_build.h"
#include "../session/session.h"
#include "postmortem.h"

/* Apart: the rolling window (src/flight/rolling.c) sets it (postmortem.h). */
int (*ludus__crash_rolling)(int signo, uint64_t tid, int64_t at_ns, int in_copy, char *path, size_t cap);

/* What ludus_crash_capture_begin asked for, read by the crash's copy. */
static struct {
    char path_pattern[4096];
    int format;
} crash_state;

void ludus__capture_mark_crash(ludus_capture *c, int signo, uint64_t tid, int64_t at_ns) {
    c->crash.signal = signo;
    c->crash.ns = at_ns < c->start_ns ? c->start_ns : at_ns > c->end_ns ? c->end_ns : at_ns;
    snprintf(c->crash.signal_name, sizeof c->crash.signal_name, "%s", ludus__crash_signal_name(signo));
    c->crash.tid = tid;
}

void ludus__expand_pid(const char *pattern, int pid, char *out, size_t cap) {
    size_t o = 0;
    for (const char *p = pattern; *p && o + 1 < cap; p++) {
        if (p[0] == '%' && p[1] == 'p') {
            int k = snprintf(out + o, cap - o, "%d", pid);
            o = k > 0 && (size_t)k < cap - o ? o + (size_t)k : cap - 1;
            p++;
        } else {
            out[o++] = *p;
        }
    }
    out[o < cap ? o : cap - 1] = 0;
}

/* The running capture, ended and marked (no rolling window runs). */
static int write_capture(int signo, uint64_t tid, int64_t at_ns, char *path, size_t cap) {
    snprintf(path, cap, "%s", "(none)");
    ludus_capture *c = NULL;
    int rc = ludus__session_crash_end(&c); /* another thread may have been ending it */
    if (rc) return rc;
    ludus__expand_pid(crash_state.path_pattern, c->pid, path, cap); /* the crashed process's, not this copy's */
    ludus__capture_mark_crash(c, signo, tid, at_ns);
    rc = ludus_capture_save(c, crash_state.format, 0, path);
    ludus_capture_release(c);
    return rc;
}

/* In the child: nothing here returns to the crashed program. */
static int write_crash(int signo, uint64_t tid, int64_t at_ns, int in_copy) {
    if (in_copy) {
        /* a region of its own, not malloc's heap: the crash may have
         * happened inside malloc, with one of its locks held */
        ludus__alloc_private();
        ludus__session_crashed();
    }
    char path[4200], line[4600];
    int (*rolling)(int, uint64_t, int64_t, int, char *, size_t) = ludus__crash_rolling;
    int rc = rolling ? rolling(signo, tid, at_ns, in_copy, path, sizeof path)
                     : write_capture(signo, tid, at_ns, path, sizeof path);
    if (rc == 0)
        snprintf(line, sizeof line, "ludus: %s in thread %llu: the capture is in %s (written in %.1f ms)\n",
                 ludus__crash_signal_name(signo), (unsigned long long)tid, path,
                 (double)(ludus__mono_ns() - at_ns) / 1e6);
    else
        snprintf(line, sizeof line, "ludus: %s in thread %llu: no capture written (%s: %s)\n",
                 ludus__crash_signal_name(signo), (unsigned long long)tid, ludus_error_string(rc),
                 ludus_last_error_detail());
    ludus__crash_say(line, strlen(line));
    return rc;
}

int ludus_crash_capture_begin(const ludus_crash_desc *desc) {
    ludus_crash_desc d;
    if (desc)
        d = *desc;
    else
        memset(&d, 0, sizeof d);
    const char *path = d.path ? d.path : "ludus-crash-%p.ludus";
    if (strlen(path) >= sizeof crash_state.path_pattern) return ludus__fail(LUDUS_EINVAL, "the path is too long");
    int format = d.format ? d.format : ludus_format_from_path(path);
    if (format < LUDUS_FORMAT_JSON || format > LUDUS_FORMAT_LUDUS)
        return ludus__fail(LUDUS_EINVAL, "no format given and none named by the path's extension");
    strcpy(crash_state.path_pattern, path);
    crash_state.format = format;
    int rc = ludus__crash_install(write_crash, d.timeout_ms ? d.timeout_ms : 10000);
    if (rc == 0) /* threads that register from now on get an alternate signal stack */
        __atomic_store_n(&ludus__reg.setup_hook, ludus__crash_thread_setup, __ATOMIC_RELEASE);
    if (rc == -2) return ludus__fail(LUDUS_EUNSUPPORTED, "crash capture is not built for this OS");
    if (rc) return ludus__fail(LUDUS_EIO, "the signal handlers could not be installed");
    return 0;
}

void ludus_crash_capture_end(void) {
    __atomic_store_n(&ludus__reg.setup_hook, NULL, __ATOMIC_RELEASE);
    ludus__crash_uninstall();
}
