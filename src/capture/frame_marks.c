/* A thread's frame marks, as the analysis takes them: where each frame
 * begins and the frame thread's CPU time there. Noted while a capture is
 * prepared (prepare.c reads every thread's stream once), read from a saved
 * file's MARKS record or a streamed file's MARK_RUN records (file_reader.c;
 * native_writer.c and stream.c write them), or found by a pass over the
 * thread's stream when none has them (a file written before the records, a
 * streamed file cut short). All give the marks ludus__marks_note takes from
 * the normalised stream. */
#include <string.h>

#include "nev.h"

void ludus__marks_push(ludus__marks *m, int64_t ns) {
    if (m->n == m->cap) {
        uint64_t cap = m->cap ? m->cap * 2 : 256;
        int64_t *x = ludus__realloc(m->ns, cap * sizeof *x);
        if (x) m->ns = x;
        int64_t *y = x ? ludus__realloc(m->cpu, cap * sizeof *y) : NULL;
        if (y) m->cpu = y;
        if (!x || !y) {
            m->oom = 1;
            return;
        }
        m->cap = cap;
    }
    m->cpu[m->n] = -1;
    m->ns[m->n++] = ns;
}

void ludus__marks_fit(ludus__marks *m) {
    if (m->n == 0 || m->n == m->cap) return;
    int64_t *x = ludus__realloc(m->ns, m->n * sizeof *x), *y = ludus__realloc(m->cpu, m->n * sizeof *y);
    if (x) m->ns = x;
    if (y) m->cpu = y;
    if (x && y) m->cap = m->n;
}

void ludus__marks_free(ludus__marks *m) {
    ludus__free(m->ns);
    ludus__free(m->cpu);
    memset(m, 0, sizeof *m);
}

uint32_t ludus__frame_thread_of(const ludus_capture *c) {
    uint32_t ft = UINT32_MAX;
    for (uint32_t t = 0; t < c->nthreads; t++)
        if (c->threads[t].frames > (ft == UINT32_MAX ? 0 : c->threads[ft].frames)) ft = t;
    return ft;
}

ludus__mark_set *ludus__mark_set_of(ludus__marks *m) {
    ludus__marks_fit(m);
    ludus__mark_set *s = ludus__malloc(sizeof *s);
    if (!s) {
        ludus__marks_free(m);
        return NULL;
    }
    *s = (ludus__mark_set){1, m->n, m->ns, m->cpu};
    memset(m, 0, sizeof *m);
    return s;
}

ludus__mark_set *ludus__mark_set_retain(ludus__mark_set *s) {
    if (s) __atomic_add_fetch(&s->refs, 1, __ATOMIC_RELAXED);
    return s;
}

void ludus__mark_set_release(ludus__mark_set *s) {
    if (!s || __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) != 0) return;
    ludus__free(s->ns);
    ludus__free(s->cpu);
    ludus__free(s);
}

int ludus__frame_marks(const ludus_capture *c, uint32_t t, ludus__mark_set **out) {
    *out = NULL;
    if (c->threads[t].marks) { /* noted or read: shared (an analysis may outlive the capture) */
        *out = ludus__mark_set_retain(c->threads[t].marks);
        return 0;
    }
    ludus__marks m;
    memset(&m, 0, sizeof m);
    ludus__nev_iter it;
    ludus__nev ev;
    int rc = ludus__nev_init(&it, c, t);
    while (rc == 0 && !m.oom && ludus__nev_next(&it, &ev)) ludus__marks_note(&m, &ev);
    if (rc == 0) rc = ludus__nev_error(&it);
    ludus__nev_free(&it);
    if (rc == 0 && m.oom) rc = ludus__fail(LUDUS_ENOMEM, "out of memory for the frame marks");
    if (rc) {
        ludus__marks_free(&m);
        return rc;
    }
    *out = ludus__mark_set_of(&m);
    return *out ? 0 : ludus__fail(LUDUS_ENOMEM, "out of memory for the frame marks");
}
