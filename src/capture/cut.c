/* Views of an opened capture file restricted to some threads and to a time
 * range, and the cut stream: the normalised events of [from, to], with
 * scopes open across a bound clipped to it and flagged (ludus-trace convert
 * --from/--to/--threads). */
#include <stdlib.h>
#include <string.h>

#include "native_format.h"

int ludus__capture_file_subview(ludus_capture_file *f, const unsigned char *keep, int cut, int64_t from_ns,
                                int64_t to_ns, ludus__captured **out) {
    const ludus__captured *c = ludus__capture_file_view(f);
    ludus__captured *v = malloc(sizeof *v);
    if (!v) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    *v = *c;
    v->threads = calloc(c->nthreads ? c->nthreads : 1, sizeof *v->threads);
    if (!v->threads) {
        free(v);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    v->nthreads = 0;
    v->events = v->dropped = v->incomplete = v->orphan_ends = v->filtered = v->frames = 0;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        if (keep && !keep[t]) continue;
        const ludus__cap_thread *th = &c->threads[t];
        v->threads[v->nthreads++] = *th;
        v->events += th->events;
        v->dropped += th->dropped;
        v->incomplete += th->incomplete;
        v->orphan_ends += th->orphan_ends;
        v->filtered += th->filtered;
        v->frames += th->frames;
    }
    if (!keep) v->dropped += c->unregistered_drops;
    v->cut = cut;
    v->cut_from_ns = from_ns;
    v->cut_to_ns = to_ns;
    *out = v;
    return 0;
}

void ludus__capture_view_free(ludus__captured *v) {
    if (!v) return;
    free(v->threads);
    free(v);
}

/* The stream cut to [from, to]: scopes open at `from` start there (BEGIN
 * flagged CLIPPED), scopes open past `to` end there (END flagged
 * INCOMPLETE|CLIPPED), everything outside is left out. States: 0 before the
 * range, 1 emitting clipped begins then the held event, 2 inside, 3 emitting
 * clipped ends, 4 done. The raw iterator's stack still holds every scope
 * open before the event it returned (a pop only lowers depth). */
int ludus__nev_next_cut(ludus__nev_iter *it, ludus__nev *out) {
    const ludus__captured *c = it->c;
    const int64_t from = c->cut_from_ns, to = c->cut_to_ns;
    for (;;) {
        switch (it->cut_state) {
        case 1:
            while (it->cut_i < it->cut_n) {
                uint32_t i = it->cut_i++;
                if (it->stack[i].site == UINT32_MAX) continue;
                out->kind = LUDUS_NEV_BEGIN;
                out->flags = LUDUS_NEV_CLIPPED;
                out->site = it->stack[i].site;
                out->depth = i;
                out->ts_ns = from;
                out->value = 0;
                return 1;
            }
            if (it->held.ts_ns > to) {
                it->cut_state = 3;
                it->cut_i = it->cut_n;
                continue;
            }
            it->cut_state = 2;
            *out = it->held;
            return 1;
        case 3:
            while (it->cut_i > 0) {
                uint32_t i = --it->cut_i;
                if (it->stack[i].site == UINT32_MAX) continue;
                out->kind = LUDUS_NEV_END;
                out->flags = LUDUS_NEV_INCOMPLETE | LUDUS_NEV_CLIPPED;
                out->site = it->stack[i].site;
                out->depth = i;
                out->ts_ns = to;
                out->value = 0;
                return 1;
            }
            it->cut_state = 4;
            return 0;
        case 4:
            return 0;
        default:
            break;
        }
        ludus__nev ev;
        if (!ludus__nev_next_raw(it, &ev)) {
            it->cut_state = 4;
            return 0;
        }
        uint32_t before = ev.kind == LUDUS_NEV_BEGIN ? it->depth - 1
                          : ev.kind == LUDUS_NEV_END ? it->depth + 1
                                                     : it->depth;
        if (it->cut_state == 0) {
            if (ev.ts_ns < from) continue;
            it->held = ev;
            it->cut_i = 0;
            it->cut_n = before;
            it->cut_state = 1;
            continue;
        }
        if (ev.ts_ns > to) {
            it->cut_i = before;
            it->cut_state = 3;
            continue;
        }
        *out = ev;
        return 1;
    }
}
