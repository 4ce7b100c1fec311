/* Scope annotations in the analysis: per site, the slowest annotated calls
 * of the window with their annotations (`ludus-trace report`), and per
 * (frame, path) cell the annotations of its slowest annotated call (the
 * HTML report's flame graph). The pass hands each ended slice's
 * annotations here (taken from src/capture/slice_args.c's per-lane store);
 * text is formatted only for a call that is kept. Memory: per annotated
 * site LUDUS_SLOWEST_CALLS calls, per cell with annotations one text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_internal.h"

/* "Key=value, Key="text"" into out (cap > 0), cut with "..." when long. */
size_t ludus__args_text(const ludus_capture *c, const ludus__nev_iter *it, const ludus__nev *args, uint32_t n,
                        char *out, size_t cap) {
    size_t o = 0;
    out[0] = 0;
    for (uint32_t i = 0; i < n && o + 1 < cap; i++) {
        const ludus__site_info *s = &c->sites[args[i].site];
        char val[96];
        const char *v = val;
        size_t vn;
        double d;
        switch (ludus__nevs[args[i].kind].value) {
        case LUDUS__V_I64:
            vn = (size_t)snprintf(val, sizeof val, "%lld", (long long)(int64_t)args[i].value);
            break;
        case LUDUS__V_U64:
            vn = (size_t)snprintf(val, sizeof val, "%llu", (unsigned long long)args[i].value);
            break;
        case LUDUS__V_F64:
            memcpy(&d, &args[i].value, sizeof d);
            vn = (size_t)snprintf(val, sizeof val, "%.17g", d);
            break;
        default:
            v = ludus__arg_text(it, &args[i], &vn);
            break;
        }
        int text = ludus__nevs[args[i].kind].value == LUDUS__V_TEXT;
        int k = snprintf(out + o, cap - o, "%s%.*s=%s%.*s%s", i ? ", " : "", (int)s->name_len, s->name,
                         text ? "\"" : "", (int)(vn > 4096 ? 4096 : vn), v, text ? "\"" : "");
        if (k < 0) break;
        o += (size_t)k;
    }
    if (o >= cap) { /* cut: end on "..." (the bytes before it stay valid UTF-8 or are cut at a byte) */
        o = cap - 1;
        if (cap > 4) memcpy(out + cap - 4, "...", 4);
    }
    return o;
}

int ludus__an_slowest_add(ludus_analysis *a, uint32_t site, const ludus_annotated_call *call) {
    ludus__an_site *s = &a->sites[site];
    if (!s->slow) {
        s->slow = ludus__calloc(1, sizeof *s->slow);
        if (!s->slow) return -1;
    }
    ludus__an_slowest *w = s->slow;
    if (w->n == LUDUS_SLOWEST_CALLS && w->call[LUDUS_SLOWEST_CALLS - 1].duration_ns >= call->duration_ns) return 0;
    uint32_t k = w->n < LUDUS_SLOWEST_CALLS ? w->n++ : LUDUS_SLOWEST_CALLS - 1;
    for (; k > 0 && w->call[k - 1].duration_ns < call->duration_ns; k--) { /* slowest first */
        w->call[k] = w->call[k - 1];
        memcpy(w->text[k], w->text[k - 1], sizeof w->text[k]);
        memcpy(w->thread[k], w->thread[k - 1], sizeof w->thread[k]);
    }
    w->call[k] = *call;
    snprintf(w->text[k], sizeof w->text[k], "%s", call->annotations);
    snprintf(w->thread[k], sizeof w->thread[k], "%s", call->thread);
    return 0;
}

/* 1 when a call of duration dur would be kept among the site's slowest. */
int ludus__an_slowest_wants(const ludus_analysis *a, uint32_t site, int64_t dur) {
    const ludus__an_slowest *w = a->sites[site].slow;
    return !w || w->n < LUDUS_SLOWEST_CALLS || w->call[LUDUS_SLOWEST_CALLS - 1].duration_ns < dur;
}

uint32_t ludus_analysis_site_slowest(const ludus_analysis *a, uint32_t site, ludus_annotated_call *out, uint32_t cap) {
    if (!a || site >= a->nsites || !a->sites[site].slow) return 0;
    const ludus__an_slowest *w = a->sites[site].slow;
    uint32_t n = w->n < cap ? w->n : cap;
    for (uint32_t i = 0; out && i < n; i++) {
        out[i] = w->call[i];
        out[i].annotations = w->text[i];
        out[i].thread = w->thread[i];
    }
    return w->n;
}

/* ---- cells: the slowest annotated call of each (frame, path) ---- */

int ludus__cell_text_add(ludus_analysis *a, const char *text, size_t n, uint32_t *ref) {
    if (a->cell_text_n + n + 1 > a->cell_text_cap) {
        size_t cap = a->cell_text_cap ? a->cell_text_cap * 2 : 4096;
        while (cap < a->cell_text_n + n + 1) cap *= 2;
        if (cap > UINT32_MAX) return -1;
        char *t = ludus__realloc(a->cell_text, cap);
        if (!t) return -1;
        a->cell_text = t;
        a->cell_text_cap = cap;
    }
    memcpy(a->cell_text + a->cell_text_n, text, n);
    a->cell_text[a->cell_text_n + n] = 0;
    *ref = (uint32_t)a->cell_text_n + 1;
    a->cell_text_n += n + 1;
    return 0;
}

const char *ludus__cell_text(const ludus_analysis *a, uint32_t ref) {
    return ref ? a->cell_text + ref - 1 : NULL;
}

void ludus__annotations_free(ludus_analysis *a) {
    for (uint32_t i = 0; i < a->nsites; i++) ludus__free(a->sites[i].slow);
    ludus__free(a->cell_text);
}
