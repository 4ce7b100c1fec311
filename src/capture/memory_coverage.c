/* The memory coverage manifest every export carries: which domains exist,
 * since when each is tracked (and from what baseline), what they held at
 * capture end, and what is known to lie outside them (the profiler's own
 * memory, notes from ludus_memory_note_outside). Taken once when a capture
 * ends (memory_coverage_take.c: the recorder's domains); stored in the .ludus metadata as lines of tab-separated fields
 * (docs/format.md), the one text form the reader parses back. */
#define _GNU_SOURCE /* Linux and GNU interfaces: before any system header */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_build.h"
#include "nev.h"
#include "../base/text.h"

static const char *const kind_names[] = {"domain", "outside"};

char *ludus__mem_cov_text(const ludus_capture *c) {
    size_t cap = (size_t)c->nmem_cov * (sizeof c->mem_cov->name + 8 * 24 + 24) + 1, n = 0;
    char *t = ludus__malloc(cap);
    if (!t) return NULL;
    t[0] = 0;
    for (uint32_t i = 0; i < c->nmem_cov; i++) {
        const ludus__mem_cov *m = &c->mem_cov[i];
        n += (size_t)snprintf(t + n, cap - n, "%s", kind_names[m->kind]);
#define PUT(f) n += (size_t)snprintf(t + n, cap - n, "\t%" PRId64, m->f);
        LUDUS__MEM_COV_FIELDS(PUT)
#undef PUT
        n += (size_t)snprintf(t + n, cap - n, "\t%u\t", m->flags);
        for (const char *s = m->name; *s && n + 2 < cap; s++) t[n++] = (*s == '\t' || *s == '\n') ? ' ' : *s;
        t[n++] = '\n';
        t[n] = 0;
    }
    return t;
}

/* The next tab-separated field of *s (strsep(s, "\t"), which not every libc has). */
static char *next_field(char **s) {
    char *f = *s;
    if (!f) return NULL;
    char *tab = strchr(f, '\t');
    if (tab) *tab = 0;
    *s = tab ? tab + 1 : NULL;
    return f;
}

/* Parses the metadata value back; the first bad line is named. */
int ludus__mem_cov_parse(ludus_capture *c, const char *v, size_t n, char *why, size_t why_cap) {
    uint32_t lines = 0;
    for (size_t i = 0; i < n; i++) lines += v[i] == '\n';
    if (lines > 1024) {
        snprintf(why, why_cap, "%u memory coverage lines (at most 1024)", lines);
        return -1;
    }
    ludus__free(c->mem_cov);
    c->nmem_cov = 0;
    c->mem_cov = ludus__calloc(lines ? lines : 1, sizeof *c->mem_cov);
    if (!c->mem_cov) return -2;
    const char *p = v, *end = v + n;
    for (uint32_t l = 0; l < lines; l++) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        char line[512];
        size_t len = (size_t)(eol - p);
        if (len >= sizeof line) {
            snprintf(why, why_cap, "memory coverage line %u is too long", l + 1);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = 0;
        p = eol + 1;
        ludus__mem_cov *m = &c->mem_cov[c->nmem_cov];
        char *s = line, *f;
        f = next_field(&s);
        m->kind = !strcmp(f, "domain") ? LUDUS__MEM_COV_DOMAIN : !strcmp(f, "outside") ? LUDUS__MEM_COV_OUTSIDE : -1;
        int ok = m->kind >= 0;
#define GET(fl)                             \
    if (ok) {                               \
        f = next_field(&s);                 \
        char *e;                            \
        m->fl = f ? strtoll(f, &e, 10) : 0; \
        ok = f && *f && *e == 0;            \
    }
        LUDUS__MEM_COV_FIELDS(GET)
#undef GET
        if (ok) {
            f = next_field(&s);
            char *e;
            unsigned long fl = f ? strtoul(f, &e, 10) : 0;
            ok = f && *f && *e == 0 && fl <= (LUDUS__MEM_COV_BASELINE | LUDUS__MEM_COV_UNKNOWN) && s;
            m->flags = (uint32_t)fl;
        }
        if (!ok) {
            snprintf(why, why_cap, "memory coverage line %u is malformed", l + 1);
            return -1;
        }
        m->name[ludus__utf8_clean(s, strlen(s), m->name, sizeof m->name - 1)] = 0;
        c->nmem_cov++;
    }
    return 0;
}

uint32_t ludus_capture_memory_coverage_count(const ludus_capture *c) {
    return c ? c->nmem_cov : 0;
}

int ludus_capture_memory_coverage(const ludus_capture *c, uint32_t i, ludus_memory_coverage *out) {
    if (!c || !out || i >= c->nmem_cov) return ludus__fail(LUDUS_EINVAL, "no memory coverage entry %u", i);
    const ludus__mem_cov *m = &c->mem_cov[i];
    memset(out, 0, sizeof *out);
    out->name = m->name;
    out->outside = m->kind == LUDUS__MEM_COV_OUTSIDE;
    out->has_baseline = (m->flags & LUDUS__MEM_COV_BASELINE) != 0;
    out->unknown = (m->flags & LUDUS__MEM_COV_UNKNOWN) != 0;
#define COPY(f) out->f = m->f;
    LUDUS__MEM_COV_FIELDS(COPY)
#undef COPY
    return 0;
}
