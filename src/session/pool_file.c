/* The pool backed by a file (pool_file.h): the file, and the journal thread
 * that writes down what the pool's words mean while the capture runs.
 *
 * The journal thread reads the pool while the producers write it, without
 * any protocol with them (the hot path stays as it is): it walks the pieces
 * by their headers, the events of each up to the first slot not yet written
 * (the file starts as zeros; a kind is never 0), and journals every site
 * address it has not met. Whatever it reads that way is only ever used as
 * an address to read through ludus__memory_read_checked, which cannot
 * fault: a word read half-way through an event's writing, at worst, names
 * a site that is not one and is not journaled, or journals a site no event
 * names. Those reads race with the producers' stores by design, so the
 * functions doing them are not instrumented by ThreadSanitizer. */
#define _GNU_SOURCE /* strdup, strnlen: before any system header */
#include "pool_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/background.h"
#include "../platform/file_map.h"
#include "../platform/sync.h"
#include "session_private.h"
#include "../capture/nev.h"

#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RACY_READS __attribute__((no_sanitize("thread")))
#endif
#endif
#if !defined(RACY_READS) && defined(__SANITIZE_THREAD__)
#define RACY_READS __attribute__((no_sanitize_thread))
#endif
#ifndef RACY_READS
#define RACY_READS
#endif

struct ludus__pool_file {
    char *path;
    char *map;
    size_t map_bytes;
    ludus__pf_header *h;
    char *pool;
    const uint64_t *pool_next; /* the session's bump pointer (atomic) */
    ludus__thread thread;
    int started;
    int stop; /* atomic */
    ludus__wakeup wake;
    ludus__mutex jlock; /* appends to the journal: its thread's, and a registration's (on_named) */
    /* the journal thread's own */
    uintptr_t *seen; /* open addressing: keys journaled or found unreadable */
    uint32_t seen_cap, nseen;
    struct pf_thread *thr; /* open addressing by serial: threads journaled */
    uint32_t thr_cap, nthr;
    uint32_t retired_done;       /* entries of the session's retired list journaled */
    uint64_t done_off;           /* pieces before it are complete and scanned */
    int pid;                     /* the process that created the file (a child after fork never removes it) */
    ludus__file_id id;           /* the file created (another put at its path since is not removed) */
    ludus__pool_file *next_open; /* the files open, removed at exit (pool_file_state.open_lock) */
};

#ifdef EDQUOT
#define NO_QUOTA EDQUOT
#else
#define NO_QUOTA ENOSPC
#endif

/* ---- the files open: removed at exit ---- */

/* A capture that is not released when the process exits (it still runs, or
 * the library or the program holds it) has nothing left to recover once
 * the process is gone normally: its file is removed then, as a released
 * capture's is. A process that dies (a signal, kill -9, _exit) keeps it. */
static struct {
    ludus__mutex open_lock;
    ludus__pool_file *open_files;
    ludus__once exit_once;
    ludus__pool_file *journaling; /* the file whose journal takes names at registration (registry lock) */
    char journal_text[4][4097];   /* the journal thread's only (one pool file at a time) */
} pool_file_state = {.open_lock = LUDUS__MUTEX_INIT, .exit_once = LUDUS__ONCE_INIT};

static void remove_at_exit(void) {
    ludus__mutex_lock(&pool_file_state.open_lock);
    for (ludus__pool_file *f = pool_file_state.open_files; f; f = f->next_open)
        if (f->pid == ludus__os_pid()) ludus__file_remove_created(f->path, &f->id);
    ludus__mutex_unlock(&pool_file_state.open_lock);
}

static void install_exit(void) {
    atexit(remove_at_exit);
}

static void open_list_add(ludus__pool_file *f) {
    ludus__once_run(&pool_file_state.exit_once, install_exit);
    ludus__mutex_lock(&pool_file_state.open_lock);
    f->next_open = pool_file_state.open_files;
    pool_file_state.open_files = f;
    ludus__mutex_unlock(&pool_file_state.open_lock);
}

static void open_list_remove(ludus__pool_file *f) {
    ludus__mutex_lock(&pool_file_state.open_lock);
    for (ludus__pool_file **p = &pool_file_state.open_files; *p; p = &(*p)->next_open)
        if (*p == f) {
            *p = f->next_open;
            break;
        }
    ludus__mutex_unlock(&pool_file_state.open_lock);
}

/* After fork: the lock may have been held by another thread of the
 * parent. The list stays (its files are the parent's: pid tells). */
void ludus__pool_files_after_fork(void) {
    ludus__mutex_init(&pool_file_state.open_lock);
}

int ludus__pool_file_create(const char *path, uint64_t pool_bytes, ludus__pool_file **out, void **pool) {
    ludus__pool_file *f = ludus__calloc(1, sizeof *f);
    if (f) f->path = ludus__strdup(path);
    if (!f || !f->path) {
        ludus__free(f);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    f->pid = ludus__os_pid();
    uint64_t pool_off = LUDUS__PF_HEADER_BYTES + LUDUS__PF_JOURNAL_BYTES;
    f->map_bytes = (size_t)(pool_off + pool_bytes);
    uint64_t f_bytes = pool_off + pool_bytes;
    int err = 0;
    f->map = ludus__file_map_new(path, f->map_bytes, &f->id, &err);
    if (!f->map) {
        char why[128];
        ludus__os_strerror(err, why, sizeof why);
        ludus__free(f->path);
        ludus__free(f);
        if (err == EEXIST)
            return ludus__fail(LUDUS_EIO,
                               "pool file %s: something is there already (a file, or a link: never followed, "
                               "truncated or replaced). A pool file a process left behind: `ludus-trace recover` "
                               "it, then remove it; %%p in the path makes one per process",
                               path);
        if (err == ENOSPC || err == EFBIG || err == NO_QUOTA)
            return ludus__fail(LUDUS_EIO, "pool file %s: no room for its %llu bytes (%s); nothing was recorded", path,
                               (unsigned long long)f_bytes, why);
        return ludus__fail(err == ENOSYS ? LUDUS_EUNSUPPORTED : LUDUS_EIO, "pool file %s: %s", path, why);
    }
    open_list_add(f);
    ludus__mutex_init(&f->jlock);
    f->h = (ludus__pf_header *)f->map;
    f->pool = f->map + pool_off;
    ludus__pf_header *h = f->h;
    h->version = LUDUS__PF_VERSION;
    h->header_bytes = LUDUS__PF_HEADER_BYTES;
    h->byte_order = LUDUS__PF_BYTE_ORDER;
    h->pointer_bytes = (uint32_t)sizeof(void *);
    h->journal_off = LUDUS__PF_HEADER_BYTES;
    h->journal_cap = LUDUS__PF_JOURNAL_BYTES;
    h->pool_off = pool_off;
    h->pool_bytes = pool_bytes;
    h->pool_base = (uint64_t)(uintptr_t)f->pool;
    *pool = f->pool;
    *out = f;
    return 0;
}

/* ---- the journal ---- */

/* What the journal has written of a thread. */
typedef struct pf_thread {
    uint32_t serial; /* 0: an empty slot (serials start at 1) */
    uint32_t named;
    uint64_t dropped; /* as last journaled */
} pf_thread;

/* The thread's entry, added when new; NULL out of memory. */
static pf_thread *thread_entry(ludus__pool_file *f, uint32_t serial) {
    if ((f->nthr + 1) * 2 > f->thr_cap) {
        uint32_t cap = f->thr_cap ? f->thr_cap * 2 : 256;
        pf_thread *n = ludus__calloc(cap, sizeof *n);
        if (!n) return NULL;
        for (uint32_t i = 0; i < f->thr_cap; i++) {
            if (!f->thr[i].serial) continue;
            uint32_t j = (f->thr[i].serial * 2654435761u) & (cap - 1);
            while (n[j].serial) j = (j + 1) & (cap - 1);
            n[j] = f->thr[i];
        }
        ludus__free(f->thr);
        f->thr = n;
        f->thr_cap = cap;
    }
    uint32_t mask = f->thr_cap - 1;
    for (uint32_t j = (serial * 2654435761u) & mask;; j = (j + 1) & mask) {
        if (f->thr[j].serial == serial) return &f->thr[j];
        if (!f->thr[j].serial) {
            f->thr[j].serial = serial;
            f->nthr++;
            return &f->thr[j];
        }
    }
}

static int seen_add(ludus__pool_file *f, uintptr_t key) {
    if ((f->nseen + 1) * 2 > f->seen_cap) {
        uint32_t cap = f->seen_cap ? f->seen_cap * 2 : 1024;
        uintptr_t *n = ludus__calloc(cap, sizeof *n);
        if (!n) return -1;
        for (uint32_t i = 0; i < f->seen_cap; i++) {
            if (!f->seen[i]) continue;
            uint32_t j = (uint32_t)((f->seen[i] * 0x9E3779B97F4A7C15ull) >> 40) & (cap - 1);
            while (n[j]) j = (j + 1) & (cap - 1);
            n[j] = f->seen[i];
        }
        ludus__free(f->seen);
        f->seen = n;
        f->seen_cap = cap;
    }
    uint32_t mask = f->seen_cap - 1;
    for (uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;; j = (j + 1) & mask) {
        if (f->seen[j] == key) return 0;
        if (!f->seen[j]) {
            f->seen[j] = key;
            f->nseen++;
            return 1;
        }
    }
}

/* Appends a record; 0, or -1 when the journal is full. */
static int journal(ludus__pool_file *f, uint32_t type, const void *a, size_t an, const char *const *s,
                   const uint32_t *sn, int ns) {
    ludus__pf_header *h = f->h;
    size_t payload = an;
    for (int i = 0; i < ns; i++) payload += sn[i];
    payload = (payload + 7) & ~(size_t)7;
    ludus__mutex_lock(&f->jlock);
    uint64_t at = h->journal_bytes;
    if (at + 8 + payload > h->journal_cap) {
        ludus__mutex_unlock(&f->jlock);
        return -1;
    }
    char *p = f->map + h->journal_off + at;
    uint32_t head[2] = {type, (uint32_t)payload};
    memcpy(p, head, 8);
    memcpy(p + 8, a, an);
    size_t o = 8 + an;
    for (int i = 0; i < ns; i++) {
        memcpy(p + o, s[i], sn[i]);
        o += sn[i];
    }
    /* the record before its length is counted: a kill between the two
     * leaves a journal that ends before it */
    __atomic_store_n(&h->journal_bytes, at + 8 + payload, __ATOMIC_RELEASE);
    ludus__mutex_unlock(&f->jlock);
    return 0;
}

/* A NUL-terminated string at p read without faulting, at most cap - 1
 * bytes; its length, or -1 when unreadable. */
static long read_string(const char *p, char *out, size_t cap) {
    size_t n = 0;
    while (n + 1 < cap) {
        size_t page_left = 4096 - ((uintptr_t)(p + n) & 4095);
        size_t want = page_left < cap - 1 - n ? page_left : cap - 1 - n;
        if (ludus__memory_read_checked(p + n, out + n, want) != 0) return -1;
        char *z = memchr(out + n, 0, want);
        if (z) return (long)(z - out);
        n += want;
    }
    out[n] = 0;
    return (long)n;
}

static void journal_site(ludus__pool_file *f, uintptr_t key) {
    uint32_t len[4] = {0, 0, 0, 0};
    const char *s[4] = {pool_file_state.journal_text[0], pool_file_state.journal_text[1],
                        pool_file_state.journal_text[2], pool_file_state.journal_text[3]};
    struct {
        uint64_t key;
        uint32_t line, flags, len[4];
    } a;
    memset(&a, 0, sizeof a);
    a.key = key;
    if (key & 1) { /* a flow's name */
        long n = read_string(LUDUS__FLOW_NAME_PTR(key), pool_file_state.journal_text[0],
                             sizeof pool_file_state.journal_text[0]);
        if (n < 0) return;
        len[0] = (uint32_t)n;
        a.flags = LUDUS__PF_SITE_FLOW;
    } else {
        ludus_site site;
        if (ludus__memory_read_checked((const void *)key, &site, sizeof site) != 0) return;
        const char *from[4] = {site.name, site.function, site.file, site.category};
        for (int i = 0; i < 4; i++) {
            long n = from[i]
                         ? read_string(from[i], pool_file_state.journal_text[i], sizeof pool_file_state.journal_text[i])
                         : 0;
            if (n < 0) return; /* not a site after all */
            len[i] = (uint32_t)n;
        }
        a.line = site.line;
        a.flags = (site.category ? LUDUS__PF_SITE_HAS_CATEGORY : 0u) |
                  ((site.flags & LUDUS_SITE_TEXT) || !site.name ? LUDUS__PF_SITE_TEXT : 0u);
        if (!site.name) { /* LUDUS_PROFILE_FUNCTION: the function's name, as written */
            memcpy(pool_file_state.journal_text[0], pool_file_state.journal_text[1], len[1]);
            len[0] = len[1];
        }
    }
    memcpy(a.len, len, sizeof len);
    journal(f, LUDUS__PF_SITE, &a, sizeof a, s, len, 4);
}

/* The keys of the events in [e, e + n): the kind table's columns through
 * ludus__event_keys, which reads no memory (this walk loads every word
 * itself, through relaxed atomic loads, because it reads words being
 * written); it stops at the first slot not written. */
RACY_READS static size_t scan_events(ludus__pool_file *f, const ludus__event *e, size_t n) {
    size_t i = 0;
    while (i < n) {
        uintptr_t w = __atomic_load_n(&e[i].word, __ATOMIC_RELAXED);
        const ludus__kind_info *ki = &ludus__kinds[w & LUDUS__K_MASK];
        if (!ki->valid) break; /* kind 0: not written yet */
        size_t k = ki->slots;
        uint64_t pv = 0;
        uintptr_t pw = 0;
        if (k > 1 && n - i >= 2) {
            pv = __atomic_load_n(&e[i + 1].ticks, __ATOMIC_RELAXED);
            pw = __atomic_load_n(&e[i + 1].word, __ATOMIC_RELAXED);
            size_t len = ludus__field_data_len(ki->word_field, pw);
            if (ludus__field_has_data(ki->word_field))
                k = len > LUDUS__EXT_DATA_MAX ? n + 1 : 2 + LUDUS__TEXT_SLOTS(len);
        }
        if (k == 0 || k > n - i) break; /* its slots are not all there yet */
        uintptr_t keys[3];
        unsigned nk = ludus__event_keys(ki, w, pv, pw, keys);
        for (unsigned j = 0; j < nk; j++)
            if (seen_add(f, keys[j]) == 1) journal_site(f, keys[j]);
        i += k;
    }
    return i;
}

/* Walks the pieces handed out so far: a piece is complete once its owner
 * has left it (used is set); the walk starts after the complete ones. */
RACY_READS static void scan_pool(ludus__pool_file *f) {
    uint64_t next = __atomic_load_n(f->pool_next, __ATOMIC_ACQUIRE);
    if (next > f->h->pool_bytes) next = f->h->pool_bytes;
    int all_done = 1;
    for (uint64_t off = f->done_off; off + sizeof(ludus__chunk) <= next;) {
        const ludus__chunk *ch = (const ludus__chunk *)(f->pool + off);
        uint32_t bytes = __atomic_load_n(&ch->bytes, __ATOMIC_RELAXED);
        if (bytes < sizeof(ludus__chunk) || (bytes & 63) || bytes > next - off) break; /* being taken */
        uint64_t used = __atomic_load_n(&ch->used, __ATOMIC_RELAXED);
        size_t slots = (bytes - sizeof(ludus__chunk)) / sizeof(ludus__event);
        int done = 0;
        if (__atomic_load_n(&ch->gen, __ATOMIC_RELAXED) == f->h->gen) {
            size_t n = used && used <= slots ? (size_t)used : slots;
            scan_events(f, LUDUS__CHUNK_EVENTS(ch), n);
            done = used != 0;
        }
        if (all_done && done)
            f->done_off = off + bytes;
        else
            all_done = 0;
        off += bytes;
    }
}

/* A thread's loss count, written by that thread with plain stores (the hot
 * path's): read as it is now, a pass late at worst. */
RACY_READS static uint64_t racy_u64(const uint64_t *p) {
    return *(const volatile uint64_t *)p;
}

static int journal_name(ludus__pool_file *f, pf_thread *t, uint32_t serial, const char *name, uint64_t tid) {
    if (t->named) return 0;
    struct {
        uint32_t serial, name_len;
        uint64_t tid;
    } a = {serial, (uint32_t)strnlen(name, 64), tid};
    const char *s[1] = {name};
    if (journal(f, LUDUS__PF_THREAD, &a, sizeof a, s, &a.name_len, 1) != 0) return -1;
    t->named = 1;
    return 0;
}

static int journal_state(ludus__pool_file *f, pf_thread *t, uint32_t serial, uint32_t flags, uint64_t dropped,
                         uint64_t first_drop_ticks) {
    if (dropped == t->dropped && !flags) return 0;
    struct {
        uint32_t serial, flags;
        uint64_t dropped, first_drop_ticks;
    } a = {serial, flags, dropped, first_drop_ticks};
    if (journal(f, LUDUS__PF_STATE, &a, sizeof a, NULL, NULL, 0) != 0) return -1;
    t->dropped = dropped;
    return 0;
}

/* The threads: their names once, their losses when they changed, and the
 * threads that exited since the last pass (the session's retired list), so
 * a thread that lived less than a pass keeps its name, tid and losses. */
static void journal_threads(ludus__pool_file *f) {
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    for (uint32_t i = 0; i < ludus__reg.high; i++) {
        const ludus__thread_record *r = &ludus__reg.rec[i];
        if (r->state != LUDUS__REC_LIVE) continue;
        pf_thread *t = thread_entry(f, r->serial);
        if (!t || journal_name(f, t, r->serial, r->name, r->tid) != 0) break;
        const ludus__thread_cold *c = r->cold;
        if (!c || __atomic_load_n(&c->gen, __ATOMIC_RELAXED) != f->h->gen) continue; /* no loss of this capture */
        uint64_t lost = racy_u64(&c->dropped) + __atomic_load_n(&c->signal_drops, __ATOMIC_RELAXED);
        if (journal_state(f, t, r->serial, 0, lost, __atomic_load_n(&c->first_drop_ticks, __ATOMIC_RELAXED)) != 0)
            break;
    }
    const ludus__session *s = &ludus__sess;
    for (; f->retired_done < s->nretired; f->retired_done++) {
        const ludus__thread_final *x = &s->retired[f->retired_done];
        pf_thread *t = thread_entry(f, x->serial);
        if (!t || journal_name(f, t, x->serial, x->name, x->tid) != 0 ||
            journal_state(f, t, x->serial, x->exited ? LUDUS__PF_EXITED : 0u, x->dropped, x->first_drop_ticks) != 0)
            break;
    }
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
}

static void calibrate(ludus__pool_file *f) {
    ludus__pf_header *h = f->h;
    ludus__calib_point p = ludus__calibrate_point();
    if (!h->clock_tsc) p.ticks = (uint64_t)p.ns;
    __atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE); /* odd: being written */
    h->c1_ticks = p.ticks;
    h->c1_ns = p.ns;
    h->c1_window = p.window_ns;
    __atomic_store_n(&h->pool_next, __atomic_load_n(f->pool_next, __ATOMIC_RELAXED), __ATOMIC_RELAXED);
    __atomic_store_n(&h->seq, h->seq + 1, __ATOMIC_RELEASE);
    h->unregistered_drops = __atomic_load_n(&ludus__reg.unregistered_drops, __ATOMIC_RELAXED);
    h->interner_drops = __atomic_load_n(&ludus__sess.interner_drops, __ATOMIC_RELAXED);
}

/* A thread registered or renamed (registry lock held, ludus__reg.named_hook):
 * its name goes to the journal now, not at the next pass, so a kill -9
 * right after keeps it (a rename is written again: the last counts). The
 * registration is the slow path; the events' path is untouched. */
static void on_named(const ludus__thread_record *r) {
    ludus__pool_file *f = pool_file_state.journaling;
    pf_thread *t = f ? thread_entry(f, r->serial) : NULL;
    if (!t) return; /* out of memory: the next pass names it */
    t->named = 0;
    journal_name(f, t, r->serial, r->name, r->tid);
}

/* A test hook (tests/unit/test_recover.c): runs before each journal pass. */
void (*ludus__pool_file_pass)(void);

/* At normal priority (not idle, as the rolling window's writer): a journal
 * that never runs under load would leave a file without names or clock.
 * The first pass comes early, so even a short capture has a calibration. */
static void *journal_main(void *arg) {
    ludus__pool_file *f = arg;
    int64_t wait_ns = LUDUS__PF_PERIOD_NS / 10;
    while (!__atomic_load_n(&f->stop, __ATOMIC_ACQUIRE)) {
        ludus__wakeup_wait(&f->wake, wait_ns);
        wait_ns = LUDUS__PF_PERIOD_NS;
        void (*hook)(void) = __atomic_load_n(&ludus__pool_file_pass, __ATOMIC_ACQUIRE);
        if (hook) hook();
        journal_threads(f);
        scan_pool(f);
        calibrate(f);
    }
    return NULL;
}

void ludus__pool_file_start(ludus__pool_file *f, uint32_t gen, int clock_tsc, ludus__calib_point c0, int pid,
                            const char *process_name, const uint64_t *pool_next) {
    ludus__pf_header *h = f->h;
    h->gen = gen;
    h->clock_tsc = (uint32_t)clock_tsc;
    h->pid = pid;
    strncpy(h->process_name, process_name, sizeof h->process_name - 1);
    h->c0_ticks = c0.ticks;
    h->c0_ns = c0.ns;
    h->c0_window = c0.window_ns;
    h->c1_ticks = c0.ticks;
    h->c1_ns = c0.ns;
    f->pool_next = pool_next;
    __atomic_store_n(&h->magic, LUDUS__PF_MAGIC, __ATOMIC_RELEASE); /* the header is whole */
    /* names from now on at registration; the threads registered before, now */
    ludus__lib_enter();
    ludus__mutex_lock(&ludus__reg.lock);
    __atomic_store_n(&pool_file_state.journaling, f, __ATOMIC_RELAXED);
    ludus__reg.named_hook = on_named;
    ludus__mutex_unlock(&ludus__reg.lock);
    ludus__lib_leave();
    journal_threads(f);
    if (ludus__wakeup_init(&f->wake) == 0) {
        f->started = ludus__thread_start(&f->thread, journal_main, f) == 0;
        if (!f->started) ludus__wakeup_destroy(&f->wake);
    }
}

/* No name goes to f's journal from now on (in a child after fork or a
 * crash copy: no other thread runs, the lock may be the dead ones'). */
static void stop_naming(ludus__pool_file *f, int locked) {
    if (__atomic_load_n(&pool_file_state.journaling, __ATOMIC_RELAXED) != f) return;
    if (locked) {
        ludus__lib_enter();
        ludus__mutex_lock(&ludus__reg.lock);
    }
    ludus__reg.named_hook = NULL;
    __atomic_store_n(&pool_file_state.journaling, NULL, __ATOMIC_RELAXED);
    if (locked) {
        ludus__mutex_unlock(&ludus__reg.lock);
        ludus__lib_leave();
    }
}

void ludus__pool_file_stop(ludus__pool_file *f, int ended) {
    if (!f) return;
    stop_naming(f, 1);
    if (f->started) {
        __atomic_store_n(&f->stop, 1, __ATOMIC_RELEASE);
        ludus__wakeup_post(&f->wake);
        ludus__thread_join(f->thread);
        ludus__wakeup_destroy(&f->wake);
        f->started = 0;
    }
    if (ended) f->h->ended = 1;
}

static void pool_release(ludus__pool_file *f) {
    ludus__mutex_destroy(&f->jlock);
    ludus__free(f->seen);
    ludus__free(f->thr);
    ludus__free(f->path);
    ludus__free(f);
}

void ludus__pool_file_close(ludus__pool_file *f) {
    if (!f) return;
    ludus__pool_file_stop(f, 1);
    ludus__file_unmap(f->map, f->map_bytes);
    /* its capture was released: nothing to recover */
    if (f->pid == ludus__os_pid()) ludus__file_remove_created(f->path, &f->id);
    open_list_remove(f);
    pool_release(f);
}

const char *ludus__pool_file_path(const ludus__pool_file *f) {
    return f ? f->path : NULL;
}

void ludus__pool_file_crashed(ludus__pool_file *f) {
    if (!f) return;
    f->started = 0;
    stop_naming(f, 0);
}

void ludus__pool_file_forget(ludus__pool_file *f) {
    if (!f) return;
    stop_naming(f, 0);
    ludus__file_unmap(f->map, f->map_bytes);
    open_list_remove(f);
    pool_release(f);
}
