/* A capture read back from a pool file its process left behind
 * (ludus_capture_recover, <ludus/capture_file.h>; the file: pool_file.h).
 * The pool is read where the file maps it: every piece of the capture's
 * generation, ordered per thread, as runs whose base is the piece's address
 * in the process that wrote it (ends name their begins by that address).
 * A piece its thread had not left yet is read up to the first slot not
 * written (the file began as zeros; no kind is 0). Sites come from the
 * journal; a site first met after the last journal pass is named by its
 * address. The capture is then what a capture file is: prepared, exported
 * and analysed as any other, its open slices closed as incomplete. */
#define _GNU_SOURCE /* strnlen: before any system header */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../platform/background.h"
#include "../platform/file_map.h"
#include "../capture/capture_build.h"
#include "../capture/nev.h"
#include "postmortem.h"
#include "../session/pool_file.h"
#include "../base/text.h"
#include "../base/grow.h"

/* A malformed file: the offset and the problem. */
__attribute__((format(printf, 2, 3))) static int fail_at(uint64_t off, const char *fmt, ...) {
    char why[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    return ludus__fail(LUDUS_EFORMAT, "pool file at offset %llu: %s", (unsigned long long)off, why);
}
#define FAIL(off, ...) fail_at((uint64_t)(off), __VA_ARGS__)

typedef struct mapping {
    const void *p;
    size_t bytes;
} mapping;

typedef struct piece {
    uint32_t serial, seq;
    ludus__run run;
    uint64_t dropped, first_drop_ticks; /* the owner's losses so far, stored in the piece's header */
} piece;

/* A thread as the journal knows it (the last record of each kind counts). */
typedef struct thread_name {
    uint32_t serial;
    int named, exited;
    uint64_t tid;
    char name[64];
    uint64_t dropped, first_drop_ticks;
} thread_name;

/* The thread of this serial in the journal's list, added when new. */
static thread_name *journal_thread(thread_name **names, uint32_t *nnames, uint32_t *cap, uint32_t serial) {
    for (uint32_t i = *nnames; i-- > 0;)
        if ((*names)[i].serial == serial) return &(*names)[i];
    if (LUDUS__GROW(*names, *nnames, *cap, 16) != 0) return NULL;
    thread_name *t = &(*names)[(*nnames)++];
    memset(t, 0, sizeof *t);
    t->serial = serial;
    return t;
}

static void unmap(ludus_capture *c) {
    mapping *m = c->src_data;
    if (!m) return;
    ludus__file_unmap(m->p, m->bytes);
    ludus__free(m);
    c->src_data = NULL;
}

/* A recovered capture: its runs point into the pool file, mapped for its
 * life; its sites come from the journal. */
static const ludus__source_ops recovered_source = {"recovered", NULL, NULL, NULL, unmap, 0};

/* Slots written in [e, e + n): whole events up to the first slot not
 * written. */
static size_t written(const ludus__event *e, size_t n) {
    size_t i = 0;
    while (i < n) {
        if (!ludus__kinds[e[i].word & LUDUS__K_MASK].valid) break;
        size_t k = ludus__event_slots(&e[i], n - i);
        if (k == 0 || k > n - i) break;
        i += k;
    }
    return i;
}

static int cmp_piece(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->serial != y->serial) return x->serial < y->serial ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int read_journal(ludus_capture *c, const char *j, uint64_t len, uint64_t base, thread_name **names,
                        uint32_t *nnames) {
    uint32_t cap = 0;
    for (uint64_t pos = 0; pos + 8 <= len;) {
        uint32_t head[2];
        memcpy(head, j + pos, 8);
        if (head[1] > len - pos - 8 || (head[1] & 7)) return FAIL(base + pos, "journal record runs past the journal");
        const char *p = j + pos + 8;
        if (head[0] == LUDUS__PF_SITE) {
            struct {
                uint64_t key;
                uint32_t line, flags, len[4];
            } a;
            if (head[1] < sizeof a) return FAIL(base + pos, "site record too short");
            memcpy(&a, p, sizeof a);
            uint64_t total = sizeof a;
            for (int i = 0; i < 4; i++) total += a.len[i];
            if (total > head[1] || a.len[0] > 4096 || a.len[1] > 4096 || a.len[2] > 4096 || a.len[3] > 4096)
                return FAIL(base + pos, "site record strings exceed the record");
            char text[4][4097];
            const char *s = p + sizeof a;
            for (int i = 0; i < 4; i++) {
                memcpy(text[i], s, a.len[i]);
                text[i][a.len[i]] = 0;
                s += a.len[i];
            }
            int rc =
                ludus__site_add_described(c, (uintptr_t)a.key, text[0], text[1], text[2],
                                          (a.flags & LUDUS__PF_SITE_HAS_CATEGORY) ? text[3] : NULL, a.line,
                                          (a.flags & LUDUS__PF_SITE_TEXT) != 0, (a.flags & LUDUS__PF_SITE_FLOW) != 0);
            if (rc) return ludus__fail(LUDUS_ENOMEM, "out of memory");
        } else if (head[0] == LUDUS__PF_THREAD) {
            struct {
                uint32_t serial, name_len;
                uint64_t tid;
            } a;
            if (head[1] < sizeof a) return FAIL(base + pos, "thread record too short");
            memcpy(&a, p, sizeof a);
            if (a.name_len > head[1] - sizeof a) return FAIL(base + pos, "thread name exceeds the record");
            thread_name *t = journal_thread(names, nnames, &cap, a.serial);
            if (!t) return ludus__fail(LUDUS_ENOMEM, "out of memory");
            t->named = 1;
            t->tid = a.tid;
            size_t n = a.name_len < sizeof t->name - 1 ? a.name_len : sizeof t->name - 1;
            t->name[ludus__utf8_clean(p + sizeof a, n, t->name, sizeof t->name - 1)] = 0;
        } else if (head[0] == LUDUS__PF_STATE) {
            struct {
                uint32_t serial, flags;
                uint64_t dropped, first_drop_ticks;
            } a;
            if (head[1] < sizeof a) return FAIL(base + pos, "thread state record too short");
            memcpy(&a, p, sizeof a);
            thread_name *t = journal_thread(names, nnames, &cap, a.serial);
            if (!t) return ludus__fail(LUDUS_ENOMEM, "out of memory");
            t->exited |= (a.flags & LUDUS__PF_EXITED) != 0;
            if (a.dropped > t->dropped) t->dropped = a.dropped;
            if (a.first_drop_ticks && (!t->first_drop_ticks || a.first_drop_ticks < t->first_drop_ticks))
                t->first_drop_ticks = a.first_drop_ticks;
        } /* other types: a later version's, skipped */
        pos += 8 + (uint64_t)head[1];
    }
    return 0;
}

/* A site the events name that the journal had not written yet: named by
 * its address, so the events stay (and the gap shows). */
static int name_unjournaled(ludus_capture *c, uintptr_t key) {
    if (ludus__site_index(c, key) != UINT32_MAX) return 0;
    char name[64];
    snprintf(name, sizeof name, "<site 0x%llx: not journaled>", (unsigned long long)key);
    if (ludus__site_add_described(c, key, name, "", "", NULL, 0, 1, 0) != 0)
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    return 0;
}

static int cmp_serial(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static int build(ludus_capture *c, const char *map, size_t size, const ludus__pf_header *h) {
    /* calibration: the journal thread's last point (a torn one: the first) */
    if (h->clock_tsc > 1)
        return FAIL(offsetof(ludus__pf_header, clock_tsc), "clock_tsc: unknown clock %u", h->clock_tsc);
    c->clock_tsc = (int)h->clock_tsc;
    c->c0 = (ludus__calib_point){h->c0_ticks, h->c0_ns, h->c0_window};
    c->c1 = (h->seq & 1) ? c->c0 : (ludus__calib_point){h->c1_ticks, h->c1_ns, h->c1_window};
    if (!c->clock_tsc) c->c0.ticks = (uint64_t)c->c0.ns, c->c1.ticks = (uint64_t)c->c1.ns;
    /* what the reader would refuse in the file written from it, refused
     * here, the field named */
    const char *field, *why = ludus__calib_check(c->clock_tsc, &c->c0, &c->c1, &field);
    if (why) {
        uint64_t at = !strcmp(field, "c0_ns")       ? offsetof(ludus__pf_header, c0_ns)
                      : !strcmp(field, "c0_window") ? offsetof(ludus__pf_header, c0_window)
                      : !strcmp(field, "c1_ns")     ? offsetof(ludus__pf_header, c1_ns)
                      : !strcmp(field, "c1_window") ? offsetof(ludus__pf_header, c1_window)
                                                    : offsetof(ludus__pf_header, c1_ticks);
        return FAIL(at, "%s: %s (c0 %llu ticks at %lld ns, c1 %llu ticks at %lld ns)", field, why,
                    (unsigned long long)c->c0.ticks, (long long)c->c0.ns, (unsigned long long)c->c1.ticks,
                    (long long)c->c1.ns);
    }
    if (c->clock_tsc && c->c1.ns - c->c0.ns < 1000000) {
        /* no journal pass calibrated it (killed at once, or the thread never
         * ran): the TSC of this machine is the one it counted (invariant),
         * so its rate is measured here, over 10 ms */
        ludus__calib_point a = ludus__calibrate_point();
        ludus__sleep_ns(10000000);
        ludus__calib_point b = ludus__calibrate_point();
        if (b.ns <= a.ns || b.ticks <= a.ticks)
            return ludus__fail(LUDUS_ENODATA, "the capture's clock cannot be calibrated");
        double per_ns = (double)(b.ticks - a.ticks) / (double)(b.ns - a.ns);
        c->c1 = c->c0;
        c->c1.ns = c->c0.ns + 1000000000;
        c->c1.ticks = c->c0.ticks + (uint64_t)(per_ns * 1e9);
    }
    if (!c->clock_tsc) c->c1.ticks = (uint64_t)c->c1.ns;
    c->start_ns = c->c0.ns;
    c->end_ns = c->c1.ns;
    c->pid = h->pid;
    size_t pn = strnlen(h->process_name, sizeof h->process_name);
    c->process_name[ludus__utf8_clean(h->process_name, pn, c->process_name, sizeof c->process_name - 1)] = 0;
    c->gen = h->gen;
    c->pool.recovered = 1;

    thread_name *names = NULL;
    uint32_t nnames = 0;
    uint64_t jlen = h->journal_bytes < h->journal_cap ? h->journal_bytes : h->journal_cap;
    int rc = read_journal(c, map + h->journal_off, jlen, h->journal_off, &names, &nnames);

    /* the pieces of this capture */
    piece *pieces = NULL;
    size_t npieces = 0, cap = 0;
    const char *pool = map + h->pool_off;
    for (uint64_t off = 0; rc == 0 && off + sizeof(ludus__chunk) <= h->pool_bytes;) {
        const ludus__chunk *ch = (const ludus__chunk *)(pool + off);
        if (ch->bytes == 0) break; /* not handed out */
        if (ch->bytes < sizeof(ludus__chunk) || (ch->bytes & 63) || ch->bytes > h->pool_bytes - off) {
            rc = FAIL(h->pool_off + off, "piece of %u bytes", ch->bytes);
            break;
        }
        if (ch->gen == h->gen) { /* else taken, its header not written yet */
            size_t slots = (ch->bytes - sizeof(ludus__chunk)) / sizeof(ludus__event);
            size_t n = written(LUDUS__CHUNK_EVENTS(ch), ch->used && ch->used <= slots ? (size_t)ch->used : slots);
            if (npieces == cap) {
                cap = cap ? cap * 2 : 256;
                piece *np = ludus__realloc(pieces, cap * sizeof *np);
                if (!np) {
                    rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
                    break;
                }
                pieces = np;
            }
            pieces[npieces++] =
                (piece){ch->thread,
                        ch->seq,
                        {LUDUS__CHUNK_EVENTS(ch), n, (uintptr_t)(h->pool_base + off + sizeof(ludus__chunk))},
                        ch->dropped,
                        ch->first_drop_ticks};
        }
        off += ch->bytes;
    }
    if (rc == 0) ludus__qsort(pieces, npieces, sizeof *pieces, cmp_piece);

    /* a thread per serial: of the pieces, and of the journal (a thread that
     * recorded nothing, or lost everything, keeps its track and its losses) */
    uint32_t *serials = rc == 0 ? ludus__malloc((npieces + nnames + 1) * sizeof *serials) : NULL;
    if (rc == 0 && !serials) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
    uint32_t nserials = 0;
    for (size_t i = 0; rc == 0 && i < npieces; i++)
        if (i == 0 || pieces[i].serial != pieces[i - 1].serial) serials[nserials++] = pieces[i].serial;
    for (uint32_t k = 0; rc == 0 && k < nnames; k++) serials[nserials++] = names[k].serial;
    if (rc == 0) ludus__qsort(serials, nserials, sizeof *serials, cmp_serial);
    uint32_t nthreads = 0;
    for (uint32_t i = 0; rc == 0 && i < nserials; i++)
        if (i == 0 || serials[i] != serials[i - 1]) serials[nthreads++] = serials[i];
    if (rc == 0) {
        c->threads = ludus__calloc(nthreads ? nthreads : 1, sizeof *c->threads);
        if (!c->threads) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    uint64_t last_ticks = 0;
    size_t pi = 0; /* pieces are sorted by serial, as the threads */
    for (uint32_t t = 0; rc == 0 && t < nthreads; t++) {
        ludus__cap_thread *th = &c->threads[c->nthreads++];
        th->serial = serials[t];
        th->first_drop_ns = LUDUS__NO_DROP;
        snprintf(th->name, sizeof th->name, "thread %u", th->serial);
        uint64_t dropped = 0, first_drop = 0;
        for (uint32_t k = 0; k < nnames; k++)
            if (names[k].serial == th->serial) {
                if (names[k].named) {
                    memcpy(th->name, names[k].name, sizeof th->name);
                    th->tid = names[k].tid;
                }
                th->exited = names[k].exited;
                dropped = names[k].dropped;
                first_drop = names[k].first_drop_ticks;
            }
        size_t j = pi;
        while (j < npieces && pieces[j].serial == th->serial) j++;
        th->runs = ludus__calloc(j > pi ? j - pi : 1, sizeof *th->runs);
        if (!th->runs) {
            rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
            break;
        }
        for (size_t k = pi; k < j; k++) {
            /* the losses stored in its pieces, at each loss: later than the journal's, when there were */
            if (pieces[k].dropped > dropped) dropped = pieces[k].dropped;
            if (pieces[k].first_drop_ticks && (!first_drop || pieces[k].first_drop_ticks < first_drop))
                first_drop = pieces[k].first_drop_ticks;
            if (pieces[k].run.n == 0) continue;
            th->runs[th->nruns++] = pieces[k].run;
            const ludus__event *last = pieces[k].run.ev;
            for (size_t s = 0; s < pieces[k].run.n;) { /* the last event's time */
                size_t n = ludus__event_slots(&last[s], pieces[k].run.n - s);
                if (last[s].ticks > last_ticks) last_ticks = last[s].ticks;
                s += n ? n : 1;
            }
            if (rc == 0) rc = ludus__run_keys(c, pieces[k].run.ev, pieces[k].run.n, name_unjournaled);
        }
        pi = j;
        th->dropped = dropped;
        if (first_drop) th->first_drop_ns = ludus__ticks_to_ns(c, first_drop);
        if (dropped && !first_drop) th->first_drop_ns = 0; /* when is not known: from the start */
    }
    ludus__free(serials);
    c->unregistered_drops = h->unregistered_drops;
    c->interner_drops = (uint32_t)(h->interner_drops > UINT32_MAX ? UINT32_MAX : h->interner_drops);
    if (rc == 0 && last_ticks) { /* the end: the last event or the last calibration, whichever is later */
        int64_t at = c->start_ns + ludus__ticks_to_ns(c, last_ticks) + 1;
        if (at > c->end_ns) c->end_ns = at;
        if (last_ticks > c->c1.ticks) { /* events after the last pass (a journal starved for seconds): the
                                           calibration's line carried to the last of them, so the file
                                           written from it holds every event inside its range */
            c->c1.ns = c->start_ns + ludus__ticks_to_ns(c, last_ticks);
            c->c1.ticks = c->clock_tsc ? last_ticks : (uint64_t)c->c1.ns;
        }
    }
    /* the calibration as it is written now (measured here, or carried to the
     * last event): still one the reader takes */
    if (rc == 0) {
        const char *field2, *why2 = ludus__calib_check(c->clock_tsc, &c->c0, &c->c1, &field2);
        if (why2)
            rc = FAIL(offsetof(ludus__pf_header, c1_ticks),
                      "%s: %s once the capture's clock is carried to its events (c0 %llu ticks, last event %llu)",
                      field2, why2, (unsigned long long)c->c0.ticks, (unsigned long long)last_ticks);
    }
    /* when each thread's losses began, inside the capture as it now ends
     * (a damaged header's clock is no reason to lose the capture) */
    for (uint32_t t = 0; rc == 0 && t < c->nthreads; t++) {
        ludus__cap_thread *th = &c->threads[t];
        if (th->first_drop_ns == LUDUS__NO_DROP) continue;
        if (th->first_drop_ns < 0) th->first_drop_ns = 0;
        if (th->first_drop_ns > c->end_ns - c->start_ns) th->first_drop_ns = c->end_ns - c->start_ns;
    }
    /* an event before the capture began (beyond the margin the reader
     * allows): not something this process wrote */
    uint64_t margin = ludus__calib_margin(c->clock_tsc, &c->c0, &c->c1);
    uint64_t lo = c->c0.ticks > margin ? c->c0.ticks - margin : 0;
    for (uint32_t t = 0; rc == 0 && t < c->nthreads; t++)
        for (uint32_t r = 0; rc == 0 && r < c->threads[t].nruns; r++) {
            const ludus__run *run = &c->threads[t].runs[r];
            for (size_t i = 0; i < run->n;) { /* events, not their payload slots */
                const ludus__event *e = &run->ev[i];
                const ludus__kind_info *ki = &ludus__kinds[e->word & LUDUS__K_MASK];
                size_t k = ludus__event_slots(e, run->n - i);
                /* what the recorder never writes, and the .ludus reader refuses */
                const char *why = e->ticks < lo ? "tick before the capture began"
                                  : ki->word == LUDUS__W_SITE && !(e->word & ~(uintptr_t)LUDUS__K_MASK) ? "no site"
                                  : k > 1 && ki->word_field == LUDUS__F_STAT && e[1].word >= LUDUS__STAT_COUNT
                                      ? "an unknown frame statistic"
                                  : k > 1 && ki->word_field == LUDUS__F_EXT && LUDUS__EXT_CODE(e[1].word) == 0
                                      ? "an extension of sub-kind 0"
                                      : NULL;
                if (why) {
                    rc = FAIL((const char *)e - map, "event of kind %u: %s", (unsigned)(e->word & LUDUS__K_MASK), why);
                    break;
                }
                i += k ? k : 1;
            }
        }
    ludus__free(pieces);
    ludus__free(names);
    (void)size;
    return rc;
}

int ludus_capture_recover(const char *path, ludus_capture **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    size_t size = 0;
    int err = 0;
    const char *map = ludus__file_map_existing(path, &size, &err);
    if (!map) {
        char why[128];
        ludus__os_strerror(err, why, sizeof why);
        return ludus__fail(err == 38 /* ENOSYS */ ? LUDUS_EUNSUPPORTED : LUDUS_EIO, "cannot read %s: %s", path, why);
    }
    ludus__pf_header h;
    int rc = 0;
    if (size < sizeof h) {
        rc = FAIL(0, "%zu bytes: shorter than its header", size);
    } else {
        memcpy(&h, map, sizeof h);
        if (h.magic == 0)
            rc = ludus__fail(LUDUS_ENODATA, "%s: its capture never started (the header is empty)", path);
        else if (h.magic != LUDUS__PF_MAGIC)
            rc = FAIL(0, "not a Ludus pool file (magic 0x%llx)", (unsigned long long)h.magic);
        else if (h.version != LUDUS__PF_VERSION)
            rc = FAIL(8, "version %u (this reader knows %u)", h.version, LUDUS__PF_VERSION);
        else if (h.byte_order != LUDUS__PF_BYTE_ORDER || h.pointer_bytes != sizeof(void *))
            rc = FAIL(16, "written by a machine of another byte order or pointer size");
        else if (h.journal_off < sizeof h || h.journal_off > h.pool_off || h.journal_cap > h.pool_off - h.journal_off ||
                 h.pool_off > size || h.pool_bytes > size - h.pool_off) /* no sum that can wrap */
            rc = FAIL(24, "journal and pool (%llu + %llu bytes at %llu) do not fit the file's %zu bytes",
                      (unsigned long long)h.journal_cap, (unsigned long long)h.pool_bytes,
                      (unsigned long long)h.pool_off, size);
        else if ((h.pool_base & 63) || (h.pool_off & 63)) /* the pool is page-aligned, every piece 64 bytes */
            rc = FAIL((h.pool_base & 63) ? offsetof(ludus__pf_header, pool_base) : offsetof(ludus__pf_header, pool_off),
                      "the pool (0x%llx, at offset %llu) is not 64-aligned", (unsigned long long)h.pool_base,
                      (unsigned long long)h.pool_off);
    }
    ludus_capture *c = rc == 0 ? ludus__capture_new(&recovered_source) : NULL;
    mapping *m = c ? ludus__malloc(sizeof *m) : NULL;
    if (rc == 0 && (!c || !m)) rc = ludus__fail(LUDUS_ENOMEM, "out of memory");
    if (rc) {
        ludus__free(m);
        ludus__free(c);
        ludus__file_unmap(map, size);
        return rc;
    }
    *m = (mapping){map, size};
    c->src_data = m;
    c->file.bytes = size;
    rc = build(c, map, size, &h);
    if (rc) {
        ludus_capture_release(c);
        return rc;
    }
    *out = c;
    return 0;
}
