/* Where a flight recorder's threads begin. Each thread of a flight
 * recorder writes over its own oldest pieces (src/record/emit.c), so what
 * is left of it starts in the middle of its stream: ends whose begins were
 * written over. Nothing is lost the reader could know: a scope's end names
 * only its begin's address, so its name went with the begin; a span's end
 * names its site. Each such end gets a begin at the thread's first event
 * (a run of one event at the begin's own address, so the end pairs with it
 * by the reader's usual rules): a scope named "(begun before the window)",
 * a span by its site (that name too when its end named none). Innermost ends come first in the stream, so the
 * begins are laid out in the reverse order: the outermost first.
 *
 * The cost is one pass of the normalised stream per thread, paid when the
 * capture is first used (its writer), never by the snapshot's caller. */
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../record/event_kinds.h"

static const ludus_site before_window_site = {"(begun before the window)", "", "", NULL, 0, LUDUS_SITE_TEXT};

/* The thread's orphan ends (stream order) into *out, *n of them. */
static int find_orphans(ludus_capture *c, uint32_t t, ludus__orphan_end **out, uint32_t *n) {
    ludus__nev_iter it;
    ludus__nev ev;
    *out = NULL;
    *n = 0;
    int rc = ludus__nev_init(&it, c, t);
    it.collect_orphans = 1;
    while (rc == 0 && ludus__nev_next(&it, &ev)) {
    }
    if (rc == 0) rc = ludus__nev_error(&it);
    if (rc == 0) {
        *out = it.orphans;
        *n = it.norphans;
        it.orphans = NULL;
    }
    ludus__nev_free(&it);
    return rc;
}

int ludus__ring_start(ludus_capture *c) {
    ludus__orphan_end **found = ludus__calloc(c->nthreads ? c->nthreads : 1, sizeof *found);
    uint32_t *nfound = ludus__calloc(c->nthreads ? c->nthreads : 1, sizeof *nfound);
    size_t total = 0;
    int rc = found && nfound ? 0 : LUDUS_ENOMEM;
    for (uint32_t t = 0; t < c->nthreads && rc == 0; t++) {
        if (c->threads[t].nruns) rc = find_orphans(c, t, &found[t], &nfound[t]);
        total += nfound[t];
    }
    ludus__event *synth = rc == 0 && total ? ludus__calloc(total, sizeof *synth) : NULL;
    if (rc == 0 && total && !synth) rc = LUDUS_ENOMEM;
    size_t at = 0;
    for (uint32_t t = 0; t < c->nthreads && rc == 0; t++) {
        ludus__cap_thread *th = &c->threads[t];
        uint32_t k = nfound[t];
        if (!k) continue;
        ludus__run *runs = ludus__malloc((th->nruns + k) * sizeof *runs);
        if (!runs) {
            rc = LUDUS_ENOMEM;
            break;
        }
        uint64_t first = th->runs[0].ev[0].ticks;
        uint32_t spans = 0;
        for (uint32_t i = 0; i < k; i++) {
            const ludus__orphan_end *o = &found[t][k - 1 - i]; /* the outermost first */
            ludus__event *e = &synth[at++];
            e->ticks = first;
            if (o->ref) {
                e->word = (uintptr_t)&before_window_site | LUDUS__KIND_BEGIN;
                runs[i] = (ludus__run){e, 1, o->ref};
            } else {
                uintptr_t site = o->span_key == 1 ? (uintptr_t)&before_window_site : o->span_key;
                e->word = site | LUDUS__KIND_SPAN_BEGIN;
                runs[i] = (ludus__run){e, 1, (uintptr_t)e};
                spans++;
            }
        }
        memcpy(runs + k, th->runs, th->nruns * sizeof *runs);
        ludus__free(th->runs);
        th->runs = runs;
        th->nruns += k;
        th->slots += k;
        th->spans += spans;
        if (th->lanes_owned) ludus__free(th->span_lane); /* decided without the begins: decided again */
        th->span_lane = NULL;
        th->span_lane_n = 0;
        th->lanes_decided = th->lanes_owned = 0;
    }
    if (rc == 0 && at) rc = ludus__sites_collect_run(c, synth, at);
    for (uint32_t t = 0; found && t < c->nthreads; t++) ludus__free(found[t]);
    ludus__free(found);
    ludus__free(nfound);
    if (rc) {
        ludus__free(synth);
        return rc;
    }
    ludus__free(c->ring_synth);
    c->ring_synth = synth;
    return 0;
}
