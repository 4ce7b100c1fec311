/* Thread registry: a fixed table of thread records (no allocation), claimed
 * at registration and released at exit. A thread that exits during a capture
 * leaves its final cursor in its record so ludus_end_capture can publish its
 * partial chunk; the record is freed once that capture has ended. */
#include <stdio.h>
#include <string.h>

#include "record.h"

ludus__registry ludus__reg = {.lock = PTHREAD_MUTEX_INITIALIZER, .next_serial = 1};
__thread ludus__thread_hot ludus__hot __attribute__((tls_model("initial-exec")));
__thread ludus__thread_cold ludus__cold __attribute__((tls_model("initial-exec"))) = {.record = -1};

static void set_name(ludus__thread_record *r, const char *name, uint64_t tid) {
    if (name && name[0]) {
        size_t n = strlen(name);
        if (n > sizeof r->name - 1) n = sizeof r->name - 1;
        memcpy(r->name, name, n);
        r->name[n] = 0;
    } else if (!r->name[0]) {
        snprintf(r->name, sizeof r->name, "thread %llu", (unsigned long long)tid);
    }
}

static void thread_exit_hook(void *arg);

int ludus__register_self(const char *name) {
    ludus__thread_cold *c = &ludus__cold;
    if (c->dead) return LUDUS_EINVAL;
    pthread_mutex_lock(&ludus__reg.lock);
    if (c->record >= 0) { /* already registered: rename */
        set_name(&ludus__reg.rec[c->record], name, ludus__reg.rec[c->record].tid);
        pthread_mutex_unlock(&ludus__reg.lock);
        return 0;
    }
    uint32_t i = 0;
    while (i < LUDUS__MAX_THREADS && ludus__reg.rec[i].state != LUDUS__REC_FREE) i++;
    if (i == LUDUS__MAX_THREADS) {
        pthread_mutex_unlock(&ludus__reg.lock);
        return ludus__fail(LUDUS_ETHREADS, "the thread table (%d entries) is full", LUDUS__MAX_THREADS);
    }
    ludus__thread_record *r = &ludus__reg.rec[i];
    memset(r, 0, sizeof *r);
    r->tid = ludus__os_tid();
    set_name(r, name, r->tid);
    r->hot = &ludus__hot;
    r->cold = c;
    c->record = (int32_t)i;
    c->serial = ludus__reg.next_serial++;
    c->flow_seq = 0;
    if (i >= ludus__reg.high) ludus__reg.high = i + 1;
    /* Published last: the controller only looks at LIVE records. */
    __atomic_store_n(&r->state, LUDUS__REC_LIVE, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&ludus__reg.lock);
    ludus__on_thread_exit(thread_exit_hook, r);
    return 0;
}

int ludus_register_thread_for_trace(const char *name) {
    return ludus__register_self(name);
}

/* Leaves the registry: if the thread holds data of the active capture, its
 * final cursor is kept for ludus_end_capture. Called with no event in flight. */
static void release_self(int dying) {
    ludus__thread_cold *c = &ludus__cold;
    ludus__thread_hot *t = &ludus__hot;
    if (c->record < 0) {
        if (dying) c->dead = 1;
        return;
    }
    pthread_mutex_lock(&ludus__reg.lock);
    ludus__thread_record *r = &ludus__reg.rec[c->record];
    uint32_t armed = __atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE) & ~LUDUS__ARMED_SLOW;
    int in_capture = armed != 0 && t->gen == armed;
    if (in_capture) {
        r->exit_gen = t->gen;
        r->exit_cur = t->cur;
        r->exit_chunk = c->chunk;
        r->exit_first = c->first_chunk;
        r->exit_dropped = c->dropped;
        r->exit_orphans = c->orphan_ends;
        r->hot = NULL;
        r->cold = NULL;
        __atomic_store_n(&r->state, LUDUS__REC_EXITED, __ATOMIC_RELEASE);
    } else {
        r->hot = NULL;
        r->cold = NULL;
        __atomic_store_n(&r->state, LUDUS__REC_FREE, __ATOMIC_RELEASE);
    }
    /* Events this thread records from now on start over (or, when dying, are
     * ignored): gen 0 and a full chunk force begins onto the slow path. Ends of
     * scopes still open land in the old chunk's reserved slots, past the
     * published cursor, and on a re-attach in the same capture the new chunk
     * reserves as many (see attach in emit.c). */
    /* Only a thread of the armed capture has open scopes worth carrying (and
     * only then is the pool's geometry stable to read). */
    c->carry_gen = in_capture ? t->gen : 0;
    c->carry_depth =
        in_capture && c->chunk
            ? (uint32_t)((size_t)(ludus__chunk_end(c->chunk) - t->cur) - (size_t)(c->slow ? c->slow_room : t->room))
            : 0;
    t->gen = 0;
    t->room = 0;
    c->slow_room = 0;
    c->chunk = NULL;
    c->record = -1;
    c->span_depth = c->span_overflow = 0;
    if (dying) c->dead = 1;
    pthread_mutex_unlock(&ludus__reg.lock);
}

int ludus_unregister_thread_for_trace(void) {
    if (ludus__cold.record < 0) return LUDUS_EINVAL;
    release_self(0);
    return 0;
}

static void thread_exit_hook(void *arg) {
    (void)arg;
    release_self(1);
}
