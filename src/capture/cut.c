/* The time cut of a thread's normalised stream: the events of [from, to],
 * with slices open across a bound clipped to it (BEGIN at `from` and END at
 * `to`, flagged CLIPPED; an END at `to` is INCOMPLETE too). It follows the
 * normalised output itself (per lane, BEGIN/END nest), so it needs nothing
 * of the pairing behind it. States: 0 before the range, 1 emitting the
 * clipped begins then the held event, 2 inside, 3 emitting clipped ends,
 * 4 done. */
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../base/grow.h"

static int track(ludus__nev_iter *it, const ludus__nev *ev, int64_t shown_ts) {
    if (ev->kind == LUDUS_NEV_BEGIN) {
        if (LUDUS__GROW(it->cut_open, it->cut_n, it->cut_open_cap, 32) != 0) {
            it->oom = 1;
            return -1;
        }
        ludus__cut_open *o = &it->cut_open[it->cut_n++];
        o->site = ev->site;
        o->lane = ev->lane;
        o->span = (uint8_t)(ev->flags & (LUDUS_NEV_SPAN | LUDUS_NEV_FIBER)); /* kept on what the cut synthesises */
        o->ts_ns = shown_ts;
        o->clipped = shown_ts != ev->ts_ns;
    } else if (ev->kind == LUDUS_NEV_END) {
        for (uint32_t i = it->cut_n; i > 0; i--)
            if (it->cut_open[i - 1].lane == ev->lane) {
                memmove(&it->cut_open[i - 1], &it->cut_open[i], (it->cut_n - i) * sizeof *it->cut_open);
                it->cut_n--;
                break;
            }
    }
    return 0;
}

/* The END of a slice inside the cut: its begin may have been clipped. */
static void fix_end(ludus__nev_iter *it, ludus__nev *ev) {
    if (ev->kind != LUDUS_NEV_END) return;
    for (uint32_t i = it->cut_n; i > 0; i--)
        if (it->cut_open[i - 1].lane == ev->lane) {
            if (it->cut_open[i - 1].clipped) {
                ev->begin_ns = it->cut_open[i - 1].ts_ns;
                ev->flags |= LUDUS_NEV_CLIPPED;
            }
            return;
        }
}

int ludus__nev_next_cut(ludus__nev_iter *it, ludus__nev *out) {
    const ludus_capture *c = it->c;
    const int64_t from = c->cut_from_ns, to = c->cut_to_ns;
    for (;;) {
        switch (it->cut_state) {
        case 1:
            while (it->cut_i < it->cut_n) {
                ludus__cut_open *o = &it->cut_open[it->cut_i++];
                memset(out, 0, sizeof *out);
                out->kind = LUDUS_NEV_BEGIN;
                out->lane = o->lane;
                out->flags = (uint16_t)(LUDUS_NEV_CLIPPED | o->span);
                out->site = o->site;
                out->ts_ns = from;
                o->ts_ns = from;
                o->clipped = 1;
                uint32_t d = 0;
                for (uint32_t j = 0; j + 1 < it->cut_i; j++) d += it->cut_open[j].lane == o->lane;
                out->depth = d;
                return 1;
            }
            if (it->held.ts_ns > to) {
                it->cut_state = 3;
                continue;
            }
            it->cut_state = 2;
            *out = it->held;
            fix_end(it, out);
            if (track(it, out, out->ts_ns) != 0) return 0;
            return 1;
        case 3:
            while (it->cut_n > 0) {
                ludus__cut_open *o = &it->cut_open[--it->cut_n];
                memset(out, 0, sizeof *out);
                out->kind = LUDUS_NEV_END;
                out->lane = o->lane;
                out->flags = (uint16_t)(LUDUS_NEV_INCOMPLETE | LUDUS_NEV_CLIPPED | o->span);
                out->site = o->site;
                out->ts_ns = to;
                out->begin_ns = o->ts_ns < from ? from : o->ts_ns;
                uint32_t d = 0;
                for (uint32_t j = 0; j < it->cut_n; j++) d += it->cut_open[j].lane == o->lane;
                out->depth = d;
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
            /* The stream ended inside (or before) the range: what it left
             * open it closed itself. */
            it->cut_state = 4;
            return 0;
        }
        if (it->cut_state == 0) {
            if (ev.ts_ns < from) {
                if (track(it, &ev, ev.ts_ns) != 0) return 0;
                continue;
            }
            it->held = ev;
            it->cut_i = 0;
            it->cut_state = 1;
            continue;
        }
        if (ev.ts_ns > to) {
            it->cut_state = 3;
            continue;
        }
        *out = ev;
        fix_end(it, out);
        if (track(it, out, out->ts_ns) != 0) return 0;
        return 1;
    }
}
