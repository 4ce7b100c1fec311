/* ludus__parallel_for (parallel.h): the items are handed out one at a time
 * by an atomic counter, so a slow item does not hold back the others. */
#include "parallel.h"
#include "../platform/sync.h"

typedef struct parallel_job {
    void (*fn)(void *arg, unsigned worker, uint32_t i);
    void *arg;
    uint32_t n, next; /* next: atomic */
} parallel_job;

typedef struct worker {
    parallel_job *j;
    unsigned index;
} worker;

static void *work(void *p) {
    const worker *w = p;
    parallel_job *j = w->j;
    for (uint32_t i; (i = __atomic_fetch_add(&j->next, 1u, __ATOMIC_RELAXED)) < j->n;) j->fn(j->arg, w->index, i);
    return NULL;
}

unsigned ludus__parallel_workers(uint32_t n, unsigned threads) {
    unsigned cpus = ludus__cpu_count();
    if (threads > cpus) threads = cpus;
    if (threads > LUDUS__PARALLEL_MAX) threads = LUDUS__PARALLEL_MAX;
    if (threads > n) threads = n;
    return threads ? threads : 1u;
}

void ludus__parallel_for(uint32_t n, unsigned threads, void (*fn)(void *arg, unsigned worker, uint32_t i), void *arg) {
    parallel_job j = {fn, arg, n, 0};
    threads = ludus__parallel_workers(n, threads);
    ludus__thread helper[LUDUS__PARALLEL_MAX - 1];
    worker w[LUDUS__PARALLEL_MAX];
    for (unsigned k = 0; k < threads; k++) w[k] = (worker){&j, k};
    unsigned started = 0;
    while (started + 1 < threads && ludus__thread_start(&helper[started], work, &w[started + 1]) == 0) started++;
    work(&w[0]);
    for (unsigned k = 0; k < started; k++) ludus__thread_join(helper[k]);
}
