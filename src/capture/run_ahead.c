/* A thread's runs loaded ahead (run_ahead.h). Reading a capture file
 * is two jobs in a row: load a run (read the block, check its checksum and
 * events, decompress and decode it: a fifth of `report`'s instructions) and
 * normalise and analyse it. Here a library thread does the first for run
 * k + 1 .. k + 7 while the caller does the second for run k, each run in
 * one of eight buffers: the loader fills a buffer only once the reader has
 * taken the run after the one in it. The loader calls the source's load_run, which reads
 * the file with pread and the capture's tables without writing them, as it
 * does on the caller's thread; a failure's code and detail travel with its
 * run and are raised again on the reader's thread when it takes it, so a
 * damaged file gives the same error at the same run either way. */
#include <stdio.h>
#include <string.h>

#include <ludus/capture.h>

#include "run_ahead.h"
#include "../platform/platform.h"
#include "../platform/sync.h"
#include "../record/record.h"

/* Runs loaded ahead at most. Waking a sleeping thread costs far more than
 * a handoff (an idle core woken; in a virtual machine, an exit): the loader
 * is woken when half the buffers are free, not for each one, and the
 * reader only when it waits. */
#define AHEAD_BUFS 8u

typedef struct loaded {
    ludus__run_buf buf;
    ludus__run run;
    uint64_t next_cursor;
    int rc;
    char detail[LUDUS__ERROR_DETAIL_BYTES];
} loaded;

struct ludus__run_ahead {
    const ludus_capture *c;
    uint64_t cursor, n; /* the loader's: where the next run is, runs to load */
    ludus__mutex mu;
    ludus__cond loader_cv, reader_cv;
    /* under mu: runs loaded (the loader's), runs the reader is done with,
     * who sleeps */
    uint64_t filled, released;
    int stop, loader_asleep, reader_asleep;
    /* the reader's: runs taken, and the failure the last one brought */
    uint64_t taken;
    int failed;
    ludus__thread thread;
    loaded bufs[AHEAD_BUFS];
};

static void *loader_main(void *arg) {
    ludus__run_ahead *a = arg;
    for (uint64_t i = 0; i < a->n; i++) {
        ludus__mutex_lock(&a->mu);
        while (!a->stop && i >= a->released + AHEAD_BUFS) {
            a->loader_asleep = 1;
            ludus__cond_wait(&a->loader_cv, &a->mu);
            a->loader_asleep = 0;
        }
        int stop = a->stop;
        ludus__mutex_unlock(&a->mu);
        if (stop) break;
        loaded *l = &a->bufs[i % AHEAD_BUFS]; /* the reader is done with the run that was in it */
        l->rc = a->c->src->load_run(a->c, &a->cursor, &l->run, &l->buf);
        l->next_cursor = a->cursor;
        if (l->rc) snprintf(l->detail, sizeof l->detail, "%s", ludus_last_error_detail());
        ludus__mutex_lock(&a->mu);
        a->filled = i + 1;
        if (a->reader_asleep) ludus__cond_broadcast(&a->reader_cv);
        ludus__mutex_unlock(&a->mu);
        if (l->rc) break; /* as a reader on its own stops at the failed run */
    }
    return NULL;
}

ludus__run_ahead *ludus__run_ahead_start(const ludus_capture *c, uint64_t cursor, uint64_t n) {
    /* LUDUS_READ_AHEAD=0: every run loaded on the reader's thread (to
     * measure what the loader saves, or where a program wants no thread of
     * ours); read at each start, as the library keeps no state for it */
    const char *env = ludus__getenv("LUDUS_READ_AHEAD");
    if ((env && strcmp(env, "0") == 0) || n < 2 || !c->src->load_run) return NULL;
    ludus__run_ahead *a = ludus__calloc(1, sizeof *a);
    if (!a) return NULL;
    a->c = c;
    a->cursor = cursor;
    a->n = n;
    ludus__mutex_init(&a->mu);
    ludus__cond_init(&a->loader_cv);
    ludus__cond_init(&a->reader_cv);
    if (ludus__thread_start(&a->thread, loader_main, a) != 0) {
        ludus__cond_destroy(&a->loader_cv);
        ludus__cond_destroy(&a->reader_cv);
        ludus__mutex_destroy(&a->mu);
        ludus__free(a);
        return NULL;
    }
    return a;
}

int ludus__run_ahead_take(ludus__run_ahead *a, ludus__run *out, uint64_t *cursor) {
    uint64_t k = a->taken;
    if (a->failed) return ludus__fail(a->failed, "%s", a->bufs[(k - 1) % AHEAD_BUFS].detail); /* the loader stopped */
    if (k >= a->n) return ludus__fail(LUDUS_EFORMAT, "no more runs of this thread");
    ludus__mutex_lock(&a->mu);
    a->released = k; /* done with run k - 1: its buffer may take run k + AHEAD_BUFS - 1 */
    if (a->loader_asleep && k + AHEAD_BUFS - a->filled >= AHEAD_BUFS / 2) ludus__cond_broadcast(&a->loader_cv);
    while (a->filled <= k) {
        if (a->loader_asleep) ludus__cond_broadcast(&a->loader_cv); /* the reader waits for it: wake it now */
        a->reader_asleep = 1;
        ludus__cond_wait(&a->reader_cv, &a->mu);
        a->reader_asleep = 0;
    }
    ludus__mutex_unlock(&a->mu);
    const loaded *l = &a->bufs[k % AHEAD_BUFS];
    a->taken = k + 1;
    if (l->rc) {
        a->failed = l->rc;
        return ludus__fail(l->rc, "%s", l->detail);
    }
    *out = l->run;
    *cursor = l->next_cursor;
    return 0;
}

void ludus__run_ahead_stop(ludus__run_ahead *a) {
    if (!a) return;
    ludus__mutex_lock(&a->mu);
    a->stop = 1;
    ludus__cond_broadcast(&a->loader_cv);
    ludus__mutex_unlock(&a->mu);
    ludus__thread_join(a->thread);
    for (unsigned i = 0; i < AHEAD_BUFS; i++) {
        ludus__free(a->bufs[i].buf.ev);
        ludus__free(a->bufs[i].buf.bytes);
    }
    ludus__cond_destroy(&a->loader_cv);
    ludus__cond_destroy(&a->reader_cv);
    ludus__mutex_destroy(&a->mu);
    ludus__free(a);
}
