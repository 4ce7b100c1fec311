/* ludus__parallel_for (parallel.h): the items are handed out one at a time
 * by an atomic counter, so a slow item does not hold back the others. */
#include "parallel.h"
#include "../platform/sync.h"

#define MAX_HELPERS 15u

typedef struct parallel_job {
    void (*fn)(void *arg, uint32_t i);
    void *arg;
    uint32_t n, next; /* next: atomic */
} parallel_job;

static void *work(void *p) {
    parallel_job *j = p;
    for (uint32_t i; (i = __atomic_fetch_add(&j->next, 1u, __ATOMIC_RELAXED)) < j->n;) j->fn(j->arg, i);
    return NULL;
}

void ludus__parallel_for(uint32_t n, unsigned threads, void (*fn)(void *arg, uint32_t i), void *arg) {
    parallel_job j = {fn, arg, n, 0};
    unsigned cpus = ludus__cpu_count();
    if (threads > cpus) threads = cpus;
    ludus__thread helper[MAX_HELPERS];
    unsigned started = 0;
    while (started + 1 < threads && started + 1 < n && started < MAX_HELPERS &&
           ludus__thread_start(&helper[started], work, &j) == 0)
        started++;
    work(&j);
    for (unsigned k = 0; k < started; k++) ludus__thread_join(helper[k]);
}
