/* background.h on Windows: a Win32 semaphore, no trigger signal (Windows has
 * no SIGUSR2; ludus_rolling_trigger and hitches remain), no fork. */
#include "background.h"

#include <windows.h>

#include <string.h>

int ludus__wakeup_init(ludus__wakeup *w) {
    w->u.handle = CreateSemaphoreA(NULL, 0, 0x7fffffff, NULL);
    return w->u.handle ? 0 : -1;
}
void ludus__wakeup_destroy(ludus__wakeup *w) {
    if (w->u.handle) CloseHandle(w->u.handle);
    w->u.handle = NULL;
}
void ludus__wakeup_post(ludus__wakeup *w) {
    ReleaseSemaphore(w->u.handle, 1, NULL);
}
void ludus__wakeup_wait(ludus__wakeup *w, int64_t timeout_ns) {
    WaitForSingleObject(w->u.handle, timeout_ns < 0 ? INFINITE : (DWORD)((timeout_ns + 999999) / 1000000));
}

int ludus__trigger_signal_default(void) {
    return 0;
}
int ludus__trigger_signal_valid(int signo) {
    (void)signo;
    return 0;
}
int ludus__trigger_signal_install(int signo, void (*fn)(void)) {
    (void)signo, (void)fn;
    return -1;
}
void ludus__trigger_signal_restore(void) {}

void ludus__at_fork_child(void (*fn)(void)) {
    (void)fn;
}

void ludus__thread_background(void) {
    SetThreadPriority(GetCurrentThread(), THREAD_PRIORITY_IDLE);
}

int64_t ludus__wall_ns(void) {
    FILETIME ft;
    GetSystemTimeAsFileTime(&ft);
    uint64_t t = ((uint64_t)ft.dwHighDateTime << 32) | ft.dwLowDateTime; /* 100 ns since 1601 */
    return (int64_t)(t - UINT64_C(116444736000000000)) * 100;
}

void ludus__local_time(int64_t wall_ns, struct tm *out) {
    time_t secs = (time_t)(wall_ns / 1000000000);
    localtime_s(out, &secs);
}

void ludus__sleep_ns(int64_t ns) {
    Sleep((DWORD)((ns + 999999) / 1000000));
}
