/* Two threads that crash together (tests/ports/check_windows.sh, under
 * Wine): "Crasher 1" and "Crasher 2" each record 1000 scopes, meet at a
 * barrier and write to address 0. Whichever claims the crash write first is
 * held, through the crash path's seam (src/platform/crash.h), until the
 * other has crashed too and found the write claimed, and then a further
 * 2.5 s, past the 2 s timeout a second thread once slept before letting its
 * exception end the process (the old filter lost the capture so: nothing
 * written). Now the second waits for the write to be over, however long it
 * takes: check_windows.sh reads back one whole capture, "ended by a crash"
 * in one of the two, with both threads' 2000 events, and one line on stderr
 * saying where it is.
 *   windows_crash_race CAPTURE.ludus */
#include <ludus/capture.h>
#include <ludus/profiling.h>
#include <stdio.h>
#include <windows.h>

#include "platform/crash.h"

#define TIMEOUT_MS 2000

static HANDLE go, second_crashed;
static volatile LONG arrived;

static void hook(int step) {
    if (step == LUDUS__CRASH_HOOK_SECOND) SetEvent(second_crashed);
    if (step == LUDUS__CRASH_HOOK_CLAIMED) { /* the first to crash: both are in the crash path now */
        WaitForSingleObject(second_crashed, INFINITE);
        Sleep(TIMEOUT_MS + 500); /* the outcome does not hang on it: the second must wait however long */
    }
}

static DWORD WINAPI crasher(LPVOID arg) {
    ludus_thread_register((const char *)arg);
    for (int i = 0; i < 1000; i++) {
        LUDUS_PROFILE_SCOPE(BeforeTheCrash);
    }
    if (InterlockedIncrement(&arrived) == 2) SetEvent(go); /* the barrier */
    WaitForSingleObject(go, INFINITE);
    *(volatile int *)0 = 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: windows_crash_race CAPTURE.ludus\n");
        return 2;
    }
    go = CreateEventW(NULL, TRUE, FALSE, NULL);
    second_crashed = CreateEventW(NULL, TRUE, FALSE, NULL);
    ludus_crash_desc cd = {argv[1], 0, TIMEOUT_MS};
    if (!go || !second_crashed || ludus_capture_begin(NULL) != 0 || ludus_crash_capture_begin(&cd) != 0) {
        fprintf(stderr, "windows_crash_race: no capture\n");
        return 1;
    }
    ludus__crash_hook = hook;
    HANDLE t[2] = {CreateThread(NULL, 0, crasher, (LPVOID) "Crasher 1", 0, NULL),
                   CreateThread(NULL, 0, crasher, (LPVOID) "Crasher 2", 0, NULL)};
    if (!t[0] || !t[1]) return 1;
    WaitForMultipleObjects(2, t, TRUE, INFINITE); /* never over: the process dies of the crash */
    fprintf(stderr, "windows_crash_race: the threads did not crash\n");
    return 1;
}
