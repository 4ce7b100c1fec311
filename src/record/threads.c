/* Thread registry: a fixed table of the threads registered now (no
 * allocation on the recording path). A thread that exits or unregisters
 * while a capture runs hands its data to the session's retired list and
 * frees its record at once, so thread churn never fills the table; a thread
 * registered while a capture runs appears in it even if it records nothing.
 * After fork, the child keeps only the thread that forked (fork.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/process.h"
#include "record.h"
#include "../base/grow.h"

/* The registry's state; apart: the thread's own records, read by the inline
 * code of profiling.h (ludus__hot) and by emit.c (ludus__cold). */
ludus__registry ludus__reg = {.lock = LUDUS__MUTEX_INIT, .next_serial = 1, .fork_once = LUDUS__ONCE_INIT};
LUDUS__TLS ludus__thread_hot ludus__hot LUDUS__TLS_MODEL;
LUDUS__TLS ludus__thread_cold ludus__cold LUDUS__TLS_MODEL = {.record = -1};

/* LUDUS_TRACE without the launch code (src/launch/launch.c): a static link
 * where no file named ludus__launch_link (every file at
 * LUDUS_PROFILE_LEVEL 0, or LUDUS_NO_LAUNCH) and nothing passed -u for it.
 * The recorder never references the launch code; the launch code's
 * constructor runs first (its priority) and says it is there, so this one
 * knows, and the program says so rather than run untraced without a word
 * (ludus__reg.launch_ran). */
#if !defined(LUDUS_IMPLEMENTATION) /* the single file always holds the launch code */
__attribute__((constructor)) static void launch_probe(void) {
    const char *path = ludus__getenv("LUDUS_TRACE");
    if (!path || !*path || ludus__reg.launch_ran) return;
    fprintf(stderr,
            "ludus: LUDUS_TRACE=%s is set, but this program was linked without the library's launch-to-exit code "
            "(every file compiled at LUDUS_PROFILE_LEVEL 0 or with LUDUS_NO_LAUNCH, and no -u ludus__launch_link): "
            "not tracing. Link with -Wl,-u,ludus__launch_link (ludus::ludus and pkg-config's ludus do)\n",
            path);
}
#endif

#define SPAN_STACK_START 64

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

/* ---- fork: the child must never wait on threads it does not have ---- */

static void fork_prepare(void) {
    ludus__lib_enter(); /* a signal handler's event in the window is dropped */
    ludus__sites_fork_lock();
    ludus__mutex_lock(&ludus__reg.lock);
}

static void fork_parent(void) {
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__sites_fork_unlock();
    ludus__lib_leave();
}

static void threads_fork_child(void) {
    ludus__registry_after_fork(); /* re-initialises the registry lock */
    ludus__sites_fork_reset();
    ludus__lib_leave();
}

static void threads_fork_install(void) {
    ludus__on_fork(fork_prepare, fork_parent, threads_fork_child);
}

void ludus__registry_fork_install(void) {
    ludus__once_run(&ludus__reg.fork_once, threads_fork_install);
}

int ludus__register_self(const char *name) {
    ludus__thread_cold *c = &ludus__cold;
    if (c->dead) return ludus__fail(LUDUS_EINVAL, "the thread is exiting");
    ludus__once_run(&ludus__reg.fork_once, threads_fork_install);
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    if (c->record >= 0) { /* already registered: rename */
        set_name(&ludus__reg.rec[c->record], name, ludus__reg.rec[c->record].tid);
        if (ludus__reg.named_hook) ludus__reg.named_hook(&ludus__reg.rec[c->record]);
        ludus__mutex_unlock(&ludus__reg.lock);
        ludus__lib_leave();
        return 0;
    }
    uint32_t i = 0;
    while (i < ludus__reg.high && ludus__reg.rec[i].state != LUDUS__REC_FREE) i++;
    if (i == LUDUS__MAX_THREADS) {
        ludus__mutex_unlock(&ludus__reg.lock);
        ludus__lib_leave();
        return ludus__fail(LUDUS_ETHREADS, "the thread table (%d threads at once) is full", LUDUS__MAX_THREADS);
    }
    if (!c->span) {
        c->span = ludus__malloc(SPAN_STACK_START * sizeof *c->span);
        c->span_cap = c->span ? SPAN_STACK_START : 0;
    }
    ludus__thread_record *r = &ludus__reg.rec[i];
    memset(r, 0, sizeof *r);
    r->tid = ludus__os_tid();
    set_name(r, name, r->tid);
    r->hot = &ludus__hot;
    r->cold = c;
    r->serial = ludus__reg.next_serial++;
    c->record = (int32_t)i;
    c->serial = r->serial;
    c->flow_seq = 0;
    if (i >= ludus__reg.high) ludus__reg.high = i + 1;
    /* Published last: the controller only looks at LIVE records. */
    __atomic_store_n(&r->state, LUDUS__REC_LIVE, __ATOMIC_RELEASE);
    if (ludus__reg.named_hook) ludus__reg.named_hook(r);
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__on_thread_exit(LUDUS__EXIT_RECORDER, thread_exit_hook, r);
    ludus__lib_leave();
    void (*setup)(void) = __atomic_load_n(&ludus__reg.setup_hook, __ATOMIC_ACQUIRE);
    if (setup) setup();
    return 0;
}

int ludus__rec_register_thread(const char *name) {
    return ludus__register_self(name);
}

void ludus__thread_publish(const ludus__thread_record *r, uint32_t gen, ludus__thread_final *out) {
    const ludus__thread_cold *c = r->cold;
    memset(out, 0, sizeof *out);
    memcpy(out->name, r->name, sizeof out->name);
    out->tid = r->tid;
    out->serial = r->serial;
    if (!c || gen == 0 || c->gen != gen) return; /* registered, recorded nothing in this capture */
    /* A thread stopped anywhere in the slow path (the copy of a crashed
     * process: crash.c) may hold pieces of the capture before (attach not
     * done) or a cursor still in its previous piece (new_piece not done):
     * only the running pool's pieces are followed, and a cursor outside the
     * current piece leaves it empty. */
    const char *base = ludus__sess.pool.base, *top = base + ludus__sess.pool.bytes;
    if (c->chunk && (char *)c->chunk >= base && (char *)c->chunk < top && (char *)c->first_chunk >= base &&
        (char *)c->first_chunk < top && c->first_chunk->gen == gen) {
        uintptr_t cur = __atomic_load_n(&r->hot->cur, __ATOMIC_ACQUIRE) & ~(uintptr_t)LUDUS__K_MASK;
        uintptr_t lo = (uintptr_t)LUDUS__CHUNK_EVENTS(c->chunk), hi = (uintptr_t)LUDUS__CHUNK_END(c->chunk);
        c->chunk->used = cur >= lo && cur <= hi ? (uint64_t)((ludus__event *)cur - (ludus__event *)lo) : 0;
        out->first = c->first_chunk;
    }
    out->dropped = c->dropped + __atomic_load_n(&c->signal_drops, __ATOMIC_RELAXED);
    out->first_drop_ticks = __atomic_load_n(&c->first_drop_ticks, __ATOMIC_RELAXED);
    out->spans = c->spans;
    out->orphan_ends = c->orphan_ends;
}

/* Appends a thread's final state to the running capture (lock held). */
static void retire(const ludus__thread_record *r, uint32_t gen, int exited) {
    ludus__session *s = &ludus__sess;
    if (s->nretired == s->retired_cap && s->retired_head) { /* the part a flight recorder dropped goes first */
        memmove(s->retired, &s->retired[s->retired_head], (size_t)(s->nretired - s->retired_head) * sizeof *s->retired);
        s->nretired -= s->retired_head;
        s->retired_head = 0;
    }
    if (LUDUS__GROW(s->retired, s->nretired, s->retired_cap, 64) != 0) {
        /* Its events cannot be kept: they are counted as lost. */
        ludus__thread_final f;
        ludus__thread_publish(r, gen, &f);
        s->retired_oom++;
        s->retired_oom_events += f.dropped;
        for (ludus__chunk *ch = f.first; ch; ch = ch->next) s->retired_oom_events += ch->used;
        return;
    }
    ludus__thread_final *f = &s->retired[s->nretired++];
    ludus__thread_publish(r, gen, f);
    f->exited = exited;
    f->pins = r->pins; /* a snapshot copying its pieces: they stay its until it is done */
    if (__atomic_load_n(&s->ring_ticks, __ATOMIC_RELAXED)) { /* a flight recorder: its pieces go back in time */
        f->left_ticks = ludus__clock_is_tsc ? ludus__read_tsc_ordered() : (uint64_t)ludus__mono_ns();
        ludus__ring_reclaim();
    }
}

/* Leaves the registry: while a capture runs, the thread's data goes to the
 * capture's retired list. Called with no event in flight on this thread. */
static void release_self(int dying) {
    ludus__thread_cold *c = &ludus__cold;
    ludus__thread_hot *t = &ludus__hot;
    if (c->record < 0) {
        if (dying) {
            c->dead = 1;
            ludus__free(c->span);
            c->span = NULL;
            c->span_cap = c->span_depth = 0;
        }
        return;
    }
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    ludus__thread_record *r = &ludus__reg.rec[c->record];
    if (c->late && ludus__reg.leaving_hook) ludus__reg.leaving_hook(r);
    uint32_t armed = ludus__armed_gen(__atomic_load_n(&ludus__armed, __ATOMIC_ACQUIRE));
    if (armed != 0 && armed == ludus__sess.gen) retire(r, armed, dying);
    /* Events this thread records from now on start over (or, when dying,
     * are ignored): no capture attached, no piece, limit 0. */
    c->gen = 0;
    c->chunk = c->first_chunk = NULL;
    c->own_limit = 0;
    __atomic_store_n(&t->limit, 0u, __ATOMIC_RELAXED);
    __atomic_store_n(&t->cur, 0u, __ATOMIC_RELEASE);
    r->hot = NULL;
    r->cold = NULL;
    __atomic_store_n(&r->state, LUDUS__REC_FREE, __ATOMIC_RELEASE);
    while (ludus__reg.high > 0 && ludus__reg.rec[ludus__reg.high - 1].state == LUDUS__REC_FREE) ludus__reg.high--;
    c->record = -1;
    c->span_depth = 0;
    if (dying) {
        c->dead = 1;
        ludus__free(c->span);
        c->span = NULL;
        c->span_cap = 0;
    }
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

int ludus_thread_unregister(void) {
    if (ludus__cold.record < 0) return ludus__fail(LUDUS_EINVAL, "the thread is not registered");
    release_self(0);
    return 0;
}

static void thread_exit_hook(void *arg) {
    (void)arg;
    release_self(1);
}

void ludus__registry_after_fork(void) {
    /* Only the forking thread exists in the child: every other record
     * describes a thread that is not there (and may look busy forever). */
    ludus__mutex_init(&ludus__reg.lock);
    int32_t mine = ludus__cold.record;
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        if ((int32_t)i == mine) continue;
        ludus__reg.rec[i].state = LUDUS__REC_FREE;
        ludus__reg.rec[i].hot = NULL;
        ludus__reg.rec[i].cold = NULL;
    }
    ludus__reg.high = mine >= 0 ? (uint32_t)mine + 1 : 0;
    if (mine >= 0) {
        ludus__thread_record *r = &ludus__reg.rec[mine];
        r->pins = 0; /* a snapshot copying in the parent is not in the child */
        uint64_t old = r->tid;
        r->tid = ludus__os_tid();
        char expected[64];
        snprintf(expected, sizeof expected, "thread %llu", (unsigned long long)old);
        if (strcmp(r->name, expected) == 0)
            snprintf(r->name, sizeof r->name, "thread %llu", (unsigned long long)r->tid);
    }
    __atomic_store_n(&ludus__reg.unregistered_drops, 0u, __ATOMIC_RELAXED);
}
