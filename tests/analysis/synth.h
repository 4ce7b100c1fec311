/* Synthetic captures for the analysis tests: a capture of given runs
 * (ludus__capture_given_init: ticks are ns since capture start) from static
 * site descriptors, so ludus__prepare works unchanged. */
#ifndef LUDUS_TEST_SYNTH_H
#define LUDUS_TEST_SYNTH_H

#include <stdlib.h>
#include <string.h>

#include "analysis/analysis_internal.h"
#include "capture/capture_build.h" /* ludus__capture_given_init */

#define SYN_THREADS 4
#ifndef SYN_EVENTS
#define SYN_EVENTS (1u << 17) /* slots per thread (a test may ask for more) */
#endif

typedef struct syn {
    ludus__captured c;
    ludus__cap_thread th[SYN_THREADS];
    ludus__run run[SYN_THREADS];
    ludus__event *ev[SYN_THREADS];
    uintptr_t open[SYN_THREADS][256]; /* begins not yet ended: an end names its begin */
    uint32_t depth[SYN_THREADS];
} syn;

#define SITE(var, nm) static const ludus_site var = {nm, "fn", "synth.c", NULL, __LINE__, 0}
SITE(syn_frame_site, "frame");

/* A synthetic capture: its runs given (ludus__capture_given_init), its
 * sites collected from its events as an in-memory capture's are. */
static inline syn *syn_new(uint32_t threads, int64_t end_ns) {
    syn *s = calloc(1, sizeof *s);
    ludus__capture_given_init(&s->c, s->th, threads, end_ns);
    for (uint32_t t = 0; t < threads; t++) {
        s->ev[t] = calloc(SYN_EVENTS, sizeof(ludus__event));
        s->run[t].ev = s->ev[t];
        s->run[t].base = (uintptr_t)s->ev[t];
        s->th[t].runs = &s->run[t];
        s->th[t].nruns = 1;
        s->th[t].tid = 100 + t;
        snprintf(s->th[t].name, sizeof s->th[t].name, t ? "worker %u" : "main", t);
    }
    return s;
}

static inline ludus__event *syn_ev(syn *s, uint32_t t, uint64_t ts, const ludus_site *site, unsigned kind) {
    ludus__event *e = &s->ev[t][s->run[t].n++];
    e->ticks = ts;
    e->word = (uintptr_t)site | kind;
    return e;
}
static inline void syn_b(syn *s, uint32_t t, uint64_t ts, const ludus_site *site) {
    s->open[t][s->depth[t]++] = (uintptr_t)syn_ev(s, t, ts, site, LUDUS__K_BEGIN);
}
/* Ends the innermost open scope (its END names it). */
static inline void syn_e(syn *s, uint32_t t, uint64_t ts) {
    syn_ev(s, t, ts, NULL, LUDUS__K_END)->word = s->open[t][--s->depth[t]] | LUDUS__K_END;
}
static inline void syn_frame(syn *s, uint32_t t, uint64_t ts) {
    syn_ev(s, t, ts, &syn_frame_site, LUDUS__KIND_FRAME);
}
/* A scope annotation (an extension event of sub-kind code: the value, or
 * the text in the slots after it) of the scope open on thread t. */
static inline void syn_arg(syn *s, uint32_t t, uint64_t ts, const ludus_site *key, unsigned code, uint64_t value,
                           const char *text) {
    size_t len = text ? strlen(text) : 0;
    syn_ev(s, t, ts, key, LUDUS__KIND_EXT);
    ludus__event *p = &s->ev[t][s->run[t].n++];
    p->ticks = value;
    p->word = LUDUS__EXT_WORD(code, len);
    memset(&s->ev[t][s->run[t].n], 0, LUDUS__TEXT_SLOTS(len) * sizeof(ludus__event));
    memcpy(&s->ev[t][s->run[t].n], text ? text : "", len);
    s->run[t].n += LUDUS__TEXT_SLOTS(len);
}
/* A frame mark with the thread's CPU time at it (the FRAME_CPU extension
 * the recorder writes right after the mark). */
static inline void syn_frame_cpu(syn *s, uint32_t t, uint64_t ts, int64_t cpu_ns) {
    syn_frame(s, t, ts);
    syn_arg(s, t, ts, &syn_frame_site, LUDUS__EXT_FRAME_CPU, (uint64_t)cpu_ns, NULL);
}
/* A flow's two ends (the id as the recorder makes them: any non-zero). */
static inline void syn_flow(syn *s, uint32_t t, uint64_t ts, int in, uint64_t id) {
    syn_ev(s, t, ts, NULL, in ? LUDUS__KIND_FLOW_IN : LUDUS__KIND_FLOW_OUT);
    ludus__event *p = &s->ev[t][s->run[t].n++];
    p->ticks = id;
    p->word = 0;
}
/* A closed scope with no children. */
static inline void syn_scope(syn *s, uint32_t t, uint64_t b, uint64_t e, const ludus_site *site) {
    syn_b(s, t, b, site);
    syn_e(s, t, e);
}

static inline ludus_analysis *syn_analyze(syn *s, const ludus_analysis_desc *d) {
    ludus_analysis *a = NULL;
    int rc = ludus__analyze(&s->c, d, &a);
    return rc == 0 ? a : NULL;
}

/* A report written into memory (a ludus_write_fn), NUL-terminated. */
typedef struct mem {
    char *p;
    size_t n;
} mem;
static inline int mem_write(void *ud, const void *d, size_t n) {
    mem *m = ud;
    char *p = realloc(m->p, m->n + n + 1);
    if (!p) return -1;
    memcpy(p + m->n, d, n);
    m->p = p;
    m->n += n;
    p[m->n] = 0;
    return 0;
}

static inline void syn_free(syn *s) {
    ludus__capture_given_free(&s->c);
    for (uint32_t t = 0; t < SYN_THREADS; t++) free(s->ev[t]);
    free(s);
}

/* Two synthetic captures, their analyses and the diff of BASE sa against
 * NEW sb: made together (0, or -1 when an analysis or the diff failed),
 * freed together. */
typedef struct syn_pair {
    syn *sa, *sb;
    ludus_analysis *a, *b;
    ludus_diff *d;
} syn_pair;
static inline int syn_pair_make(syn_pair *p, syn *sa, syn *sb) {
    p->sa = sa;
    p->sb = sb;
    p->a = syn_analyze(sa, NULL);
    p->b = syn_analyze(sb, NULL);
    p->d = NULL;
    return p->a && p->b && ludus_diff_create(p->a, p->b, NULL, &p->d) == 0 ? 0 : -1;
}
static inline void syn_pair_free(syn_pair *p) {
    ludus_diff_destroy(p->d);
    ludus_analysis_destroy(p->a);
    ludus_analysis_destroy(p->b);
    syn_free(p->sa);
    syn_free(p->sb);
}

/* The diff's entry of a site (is_path 0) or path (1) by name, or NULL:
 * ludus_diff_find_entry's index read through ludus_diff_entry. */
static inline const ludus_site_diff *syn_diff_find(const ludus_diff *d, const char *name, int is_path) {
    int64_t i = ludus_diff_find_entry(d, name, is_path);
    return i < 0 ? NULL : ludus_diff_entry(d, (uint32_t)i);
}

#endif
