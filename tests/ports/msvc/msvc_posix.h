/* What the demo, ludus-trace and the unit tests take from POSIX (besides
 * threads: pthread.h beside this file) that MSVC's C runtime lacks.
 * Force-included by check_msvc.sh; never part of the library. */
#ifndef LUDUS_MSVC_POSIX_H
#define LUDUS_MSVC_POSIX_H
/* <windows.h> without rpcndr.h's "small" and the min/max macros, as the
 * tests' other headers expect (this file comes first: force-included). */
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <errno.h>
#include <string.h>
#include <time.h>
#include <windows.h>

#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#define CLOCK_REALTIME 0
typedef int clockid_t;
struct timespec {
    time_t tv_sec;
    long tv_nsec;
};
static inline int clock_gettime(clockid_t id, struct timespec *ts) {
    LARGE_INTEGER f, c;
    if (id == CLOCK_REALTIME) {
        FILETIME ft;
        ULONGLONG t;
        GetSystemTimeAsFileTime(&ft);
        t = ((ULONGLONG)ft.dwHighDateTime << 32 | ft.dwLowDateTime) - 116444736000000000ULL;
        ts->tv_sec = (time_t)(t / 10000000);
        ts->tv_nsec = (long)(t % 10000000 * 100);
        return 0;
    }
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    ts->tv_sec = (time_t)(c.QuadPart / f.QuadPart);
    ts->tv_nsec = (long)(c.QuadPart % f.QuadPart * 1000000000 / f.QuadPart);
    return 0;
}
static inline int nanosleep(const struct timespec *req, struct timespec *rem) {
    Sleep((DWORD)(req->tv_sec * 1000 + req->tv_nsec / 1000000));
    if (rem) rem->tv_sec = 0, rem->tv_nsec = 0;
    return 0;
}
#endif

#define strtok_r strtok_s /* the same contract */
static inline int ludus_msvc_usleep(unsigned us) {
    Sleep((us + 999) / 1000);
    return 0;
}
#define usleep ludus_msvc_usleep /* Wine's unistd.h declares one no DLL exports */

#include <fcntl.h>
#include <io.h> /* access, close */
#include <sys/stat.h>
#ifndef F_OK
#define F_OK 0
#define W_OK 2
#define R_OK 4
#endif
static inline int mkstemp(char *pattern) {
    if (_mktemp_s(pattern, strlen(pattern) + 1) != 0) return -1;
    return _open(pattern, _O_CREAT | _O_EXCL | _O_RDWR | _O_BINARY, _S_IREAD | _S_IWRITE);
}

static inline void *memmem(const void *hay, size_t n, const void *needle, size_t m) {
    const char *h = (const char *)hay;
    if (m == 0) return (void *)h;
    for (size_t i = 0; i + m <= n; i++)
        if (h[i] == *(const char *)needle && memcmp(h + i, needle, m) == 0) return (void *)(h + i);
    return NULL;
}
#endif
