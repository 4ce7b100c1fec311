/* lt_parallel (verbs.h): work items handed out one at a time by an atomic
 * counter to the calling thread and up to threads - 1 others. The tool's
 * own, as it uses the libraries' public API only (the libraries have theirs,
 * src/base/parallel.c, for the diff's entries). */
#ifdef _WIN32
#include <windows.h>
#else
#include <pthread.h>
#endif

#include "verbs.h"

typedef struct parallel_job {
    void (*fn)(void *arg, unsigned i);
    void *arg;
    unsigned n, next; /* next: atomic */
} parallel_job;

static void parallel_work(parallel_job *j) {
    for (unsigned i; (i = __atomic_fetch_add(&j->next, 1u, __ATOMIC_RELAXED)) < j->n;) j->fn(j->arg, i);
}
#ifdef _WIN32
static DWORD WINAPI parallel_main(LPVOID p) {
    parallel_work(p);
    return 0;
}
#else
static void *parallel_main(void *p) {
    parallel_work(p);
    return NULL;
}
#endif

void lt_parallel(unsigned n, unsigned threads, void (*fn)(void *arg, unsigned i), void *arg) {
    parallel_job j = {fn, arg, n, 0};
    enum { MAX_HELPERS = 15 };
#ifdef _WIN32
    HANDLE helper[MAX_HELPERS];
#else
    pthread_t helper[MAX_HELPERS];
#endif
    unsigned started = 0;
    while (started + 1 < threads && started + 1 < n && started < MAX_HELPERS) {
#ifdef _WIN32
        helper[started] = CreateThread(NULL, 0, parallel_main, &j, 0, NULL);
        if (helper[started] == NULL) break;
#else
        if (pthread_create(&helper[started], NULL, parallel_main, &j) != 0) break;
#endif
        started++;
    }
    parallel_work(&j);
    for (unsigned k = 0; k < started; k++) {
#ifdef _WIN32
        WaitForSingleObject(helper[k], INFINITE);
        CloseHandle(helper[k]);
#else
        pthread_join(helper[k], NULL);
#endif
    }
}
