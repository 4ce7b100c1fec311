/* Windows implementation of platform.h (mingw-w64; files: win32_file.c,
 * pages and fork hooks: win32_pages.c; the CPU's counter: cpu_*.c). The
 * monotonic clock is QueryPerformanceCounter in ns; the asymmetric
 * barrier is FlushProcessWriteBuffers (an IPI to every processor running a
 * thread of the process, as membarrier's); thread exit runs through
 * winpthreads key destructors (below). */
#include "platform.h"

#include <windows.h>

#ifndef _MSC_VER
#include <pthread.h>
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t ludus__mono_ns(void) {
    static LARGE_INTEGER freq; /* fixed at boot; a racy first read stores the same value */
    LARGE_INTEGER now;
    if (freq.QuadPart == 0) QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    int64_t f = freq.QuadPart, t = now.QuadPart;
    return t / f * 1000000000 + t % f * 1000000000 / f; /* no overflow for t % f < 2^33 */
}

int64_t ludus__thread_cpu_ns(void) {
    FILETIME created, exited, kernel, user;
    if (!GetThreadTimes(GetCurrentThread(), &created, &exited, &kernel, &user)) return -1;
    uint64_t k = (uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime;
    uint64_t u = (uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime;
    return (int64_t)((k + u) * 100); /* 100 ns units */
}

int ludus__membarrier_register(void) {
    return 1; /* FlushProcessWriteBuffers: Vista and later */
}
void ludus__membarrier(void) {
    FlushProcessWriteBuffers();
}

uint64_t ludus__os_tid(void) {
    return (uint64_t)GetCurrentThreadId();
}
const char *ludus__getenv(const char *name) {
    return getenv(name); /* no set-user-ID programs on Windows */
}

uint64_t ludus__phys_bytes(void) {
    MEMORYSTATUSEX m;
    m.dwLength = sizeof m;
    return GlobalMemoryStatusEx(&m) ? (uint64_t)m.ullTotalPhys : 0;
}

unsigned ludus__cpu_count(void) {
    SYSTEM_INFO si;
    GetSystemInfo(&si);
    return si.dwNumberOfProcessors ? (unsigned)si.dwNumberOfProcessors : 1u;
}

int ludus__os_pid(void) {
    return (int)GetCurrentProcessId();
}
void ludus__yield(void) {
    SwitchToThread();
}

void *ludus__aligned_alloc(size_t size, size_t alignment) {
    return _aligned_malloc(size, alignment);
}
void ludus__aligned_free(void *p) {
    _aligned_free(p);
}

void ludus__os_strerror(int err, char *buf, size_t cap) {
    if (!buf || cap == 0) return;
    if (err < 0) err = -err;
    if (strerror_s(buf, cap, err) != 0 || !buf[0]) snprintf(buf, cap, "Unknown error %d", err);
    buf[cap - 1] = 0;
}

#ifdef _MSC_VER
/* Thread exit with MSVC's runtime (no winpthreads): FLS callbacks, which
 * Windows runs as the thread exits, while its __declspec(thread) storage
 * (the image's TLS block, no emulation) is still there. */
static DWORD exit_fls[LUDUS__EXIT_HOOKS];
static void (*exit_fn[LUDUS__EXIT_HOOKS])(void *);
static void WINAPI win32_exit_trampoline0(void *arg) {
    __atomic_load_n(&exit_fn[0], __ATOMIC_ACQUIRE)(arg);
}
static void WINAPI win32_exit_trampoline1(void *arg) {
    __atomic_load_n(&exit_fn[1], __ATOMIC_ACQUIRE)(arg);
}
static void WINAPI win32_exit_trampoline2(void *arg) {
    __atomic_load_n(&exit_fn[2], __ATOMIC_ACQUIRE)(arg);
}
static INIT_ONCE exit_once = INIT_ONCE_STATIC_INIT;
static BOOL CALLBACK exit_fls_create(PINIT_ONCE o, PVOID param, PVOID *ctx) {
    (void)o;
    (void)param;
    (void)ctx;
    exit_fls[0] = FlsAlloc(win32_exit_trampoline0);
    exit_fls[1] = FlsAlloc(win32_exit_trampoline1);
    exit_fls[2] = FlsAlloc(win32_exit_trampoline2);
    return TRUE;
}

int ludus__on_thread_exit(int which, void (*fn)(void *), void *arg) {
    InitOnceExecuteOnce(&exit_once, exit_fls_create, NULL, NULL);
    __atomic_store_n(&exit_fn[which], fn, __ATOMIC_RELEASE); /* one hook per user */
    if (exit_fls[which] == FLS_OUT_OF_INDEXES) return -1;
    return FlsSetValue(exit_fls[which], arg) ? 0 : -1;
}
#else
/* Thread exit: winpthreads key destructors, the keys made before anything
 * else of the process runs. The recorder's thread state is thread-local,
 * which mingw-w64's GCC emulates (emutls) with a key of its own whose
 * destructor frees that storage; destructors run in the order the keys were
 * made, so ours must be made first (FLS callbacks, which Windows runs later,
 * would find the storage gone). */
static pthread_key_t exit_key[LUDUS__EXIT_HOOKS];
static void (*exit_fn[LUDUS__EXIT_HOOKS])(void *);
static void win32_exit_trampoline0(void *arg) {
    __atomic_load_n(&exit_fn[0], __ATOMIC_ACQUIRE)(arg);
}
static void win32_exit_trampoline1(void *arg) {
    __atomic_load_n(&exit_fn[1], __ATOMIC_ACQUIRE)(arg);
}
static void win32_exit_trampoline2(void *arg) {
    __atomic_load_n(&exit_fn[2], __ATOMIC_ACQUIRE)(arg);
}
__attribute__((constructor(101))) static void win32_exit_key_create(void) {
    pthread_key_create(&exit_key[0], win32_exit_trampoline0);
    pthread_key_create(&exit_key[1], win32_exit_trampoline1);
    pthread_key_create(&exit_key[2], win32_exit_trampoline2);
}

int ludus__on_thread_exit(int which, void (*fn)(void *), void *arg) {
    __atomic_store_n(&exit_fn[which], fn, __ATOMIC_RELEASE); /* one hook per user */
    return pthread_setspecific(exit_key[which], arg) == 0 ? 0 : -1;
}
#endif

void ludus__process_name(char *out, size_t cap) {
    char path[MAX_PATH];
    DWORD n = GetModuleFileNameA(NULL, path, sizeof path);
    out[0] = 0;
    if (n > 0 && n < sizeof path) {
        const char *base = path;
        for (const char *p = path; *p; p++)
            if (*p == '\\' || *p == '/') base = p + 1;
        snprintf(out, cap, "%s", base);
        size_t len = strlen(out);
        if (len > 4 && _stricmp(out + len - 4, ".exe") == 0) out[len - 4] = 0;
    }
    if (!out[0]) snprintf(out, cap, "process %d", ludus__os_pid());
}
