/* Fibers as tracks of their own. A thread announces when it starts and
 * stops running a fiber (FIBER events, ludus_fiber_enter / _leave); what it
 * recorded in between belongs to the fiber. When an in-memory capture is
 * prepared, each thread's runs are cut at its switches: the pieces between
 * an enter and its leave go to a track per fiber (a thread entry of its own,
 * its pieces in time order, whichever thread ran them), the rest stays. The
 * switches themselves stay on the thread, where the reader shows them as a
 * span named after the fiber. Pieces keep their recorded addresses, so ends
 * still name their begins across threads and unwind points still resolve.
 * A file holds the tracks as they were written: nothing to do there. */
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../base/text.h"

/* Synthetic thread ids of fiber tracks: above any Linux tid (pid_max is at
 * most 2^22) and within a JSON viewer's int32. */
#define FIBER_TID_BASE 0x7fff0000u

typedef struct piece {
    uint32_t fiber; /* index in the fiber list */
    uint32_t seg;   /* segment number, in recording order per thread */
    uint32_t order; /* of the pieces: a segment's pieces follow each other */
    uint64_t tick0; /* the segment's enter */
    ludus__run run;
} piece;

typedef struct split {
    uintptr_t *fibers; /* site keys */
    uint32_t nfibers, fcap;
    piece *pieces;
    size_t npieces, pcap;
    ludus__run *keep; /* the thread's own pieces */
    size_t nkeep, kcap;
} split;

static int fibers_grow(void **p, size_t *cap, size_t n, size_t size) {
    if (n < *cap) return 0;
    size_t c = *cap ? *cap * 2 : 16;
    void *q = ludus__realloc(*p, c * size);
    if (!q) return -1;
    *p = q;
    *cap = c;
    return 0;
}

static int fiber_index(split *s, uintptr_t key, uint32_t *out) {
    for (uint32_t i = 0; i < s->nfibers; i++)
        if (s->fibers[i] == key) {
            *out = i;
            return 0;
        }
    size_t cap = s->fcap;
    if (fibers_grow((void **)&s->fibers, &cap, s->nfibers, sizeof *s->fibers)) return -1;
    s->fcap = (uint32_t)cap;
    s->fibers[s->nfibers] = key;
    *out = s->nfibers++;
    return 0;
}

/* Slots [from, to) of run r go to the thread (fiber UINT32_MAX) or a fiber. */
static int emit_piece(split *s, const ludus__run *r, size_t from, size_t to, uint32_t fiber, uint32_t seg,
                      uint64_t tick0) {
    if (to <= from) return 0;
    ludus__run p = {r->ev + from, to - from, r->base + from * sizeof(ludus__event)};
    if (fiber == UINT32_MAX) {
        if (fibers_grow((void **)&s->keep, &s->kcap, s->nkeep, sizeof *s->keep)) return -1;
        s->keep[s->nkeep++] = p;
        return 0;
    }
    if (fibers_grow((void **)&s->pieces, &s->pcap, s->npieces, sizeof *s->pieces)) return -1;
    s->pieces[s->npieces] = (piece){fiber, seg, (uint32_t)s->npieces, tick0, p};
    s->npieces++;
    return 0;
}

/* Span begins of a thread's runs (fiber enters included), exactly: the
 * reader places spans on lanes by this count, and a file's reader bounds it
 * by the thread's slots. */
static uint64_t count_spans(const ludus__cap_thread *th) {
    uint64_t n = 0;
    for (uint32_t r = 0; r < th->nruns; r++)
        for (size_t i = 0; i < th->runs[r].n;) {
            const ludus__event *e = &th->runs[r].ev[i];
            const ludus__kind_info *ki = &ludus__kinds[e->word & LUDUS__K_MASK];
            size_t k = ludus__event_slots(e, th->runs[r].n - i);
            if (k == 0 || k > th->runs[r].n - i) break;
            n += ki->role == LUDUS__R_SPAN_OPEN || (ki->role == LUDUS__R_FIBER && e[1].ticks);
            i += k;
        }
    return n;
}

/* Cuts one thread's runs at its fiber switches. */
static int split_thread(split *s, ludus__cap_thread *th, uint32_t *seg) {
    uint32_t fiber = UINT32_MAX; /* where the slots go now */
    uint64_t tick0 = 0;
    s->nkeep = 0;
    for (uint32_t r = 0; r < th->nruns; r++) {
        const ludus__run *run = &th->runs[r];
        size_t from = 0;
        for (size_t i = 0; i < run->n;) {
            const ludus__event *e = &run->ev[i];
            size_t k = ludus__event_slots(e, run->n - i);
            if (k == 0 || k > run->n - i) break; /* cannot happen in memory */
            if ((e->word & LUDUS__K_MASK) == LUDUS__KIND_FIBER && k == 2) {
                int enter = e[1].ticks != 0;
                if (enter) { /* the switch stays on the thread; the fiber's slots follow it */
                    if (emit_piece(s, run, from, i + k, fiber, *seg, tick0)) return -1;
                    if (fiber_index(s, e->word & ~(uintptr_t)LUDUS__K_MASK, &fiber)) return -1;
                    ++*seg;
                    tick0 = e->ticks;
                } else {
                    if (emit_piece(s, run, from, i, fiber, *seg, tick0)) return -1;
                    fiber = UINT32_MAX;
                    from = i;
                    i += k;
                    continue;
                }
                from = i + k;
            }
            i += k;
        }
        if (emit_piece(s, run, from, run->n, fiber, *seg, tick0)) return -1;
    }
    if (s->nkeep > th->nruns) {
        ludus__run *n = ludus__realloc(th->runs, s->nkeep * sizeof *n);
        if (!n) return -1;
        th->runs = n;
    }
    memcpy(th->runs, s->keep, s->nkeep * sizeof *s->keep);
    th->nruns = (uint32_t)s->nkeep;
    th->slots = 0;
    for (uint32_t r = 0; r < th->nruns; r++) th->slots += th->runs[r].n;
    th->spans = count_spans(th);
    return 0;
}

static int cmp_piece(const void *a, const void *b) {
    const piece *x = a, *y = b;
    if (x->fiber != y->fiber) return x->fiber < y->fiber ? -1 : 1;
    if (x->tick0 != y->tick0) return x->tick0 < y->tick0 ? -1 : 1;
    if (x->seg != y->seg) return x->seg < y->seg ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int has_switch(const ludus__cap_thread *th) {
    if (th->spans == 0) return 0; /* every enter counts as a span */
    for (uint32_t r = 0; r < th->nruns; r++)
        for (size_t i = 0; i < th->runs[r].n;) {
            const ludus__event *e = &th->runs[r].ev[i];
            if ((e->word & LUDUS__K_MASK) == LUDUS__KIND_FIBER) return 1;
            size_t k = ludus__event_slots(e, th->runs[r].n - i);
            i += k ? k : 1;
        }
    return 0;
}

int ludus__fibers_split(ludus_capture *c) {
    split s;
    memset(&s, 0, sizeof s);
    uint32_t seg = 0, nthreads = c->nthreads;
    int rc = 0;
    for (uint32_t t = 0; t < nthreads && rc == 0; t++)
        if (has_switch(&c->threads[t])) rc = split_thread(&s, &c->threads[t], &seg);
    if (rc == 0 && s.nfibers) {
        /* Segments in time order per fiber (by their enters: a fiber runs on
         * one thread at a time), a segment's pieces in recorded order. */
        ludus__qsort(s.pieces, s.npieces, sizeof *s.pieces, cmp_piece);
        ludus__cap_thread *nt = ludus__realloc(c->threads, (size_t)(nthreads + s.nfibers) * sizeof *nt);
        if (!nt) rc = -1;
        if (nt) c->threads = nt;
        for (uint32_t f = 0; f < s.nfibers && rc == 0; f++) {
            ludus__cap_thread *th = &c->threads[nthreads + f];
            memset(th, 0, sizeof *th);
            const ludus_site *site = (const ludus_site *)s.fibers[f];
            const char *name = site->name ? site->name : "fiber";
            th->name[ludus__utf8_clean(name, strlen(name), th->name, sizeof th->name - 1)] = 0;
            th->tid = FIBER_TID_BASE + f;
            th->first_drop_ns = LUDUS__NO_DROP;
            size_t n = 0;
            for (size_t i = 0; i < s.npieces; i++) n += s.pieces[i].fiber == f;
            th->runs = ludus__malloc((n ? n : 1) * sizeof *th->runs);
            if (!th->runs) {
                rc = -1;
                break;
            }
            for (size_t i = 0; i < s.npieces; i++)
                if (s.pieces[i].fiber == f) {
                    th->runs[th->nruns++] = s.pieces[i].run;
                    th->slots += s.pieces[i].run.n;
                }
            th->spans = count_spans(th);
            c->nthreads++;
        }
    }
    ludus__free(s.fibers);
    ludus__free(s.pieces);
    ludus__free(s.keep);
    return rc ? LUDUS_ENOMEM : 0;
}
