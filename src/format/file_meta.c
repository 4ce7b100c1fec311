/* The META record's pairs (file_meta.h): one list of what a .ludus file
 * says of its capture, for the save and the stream alike. Keys a reader
 * does not know are skipped, so a key is added here without a version. */
#include <stdio.h>
#include <string.h>

#include "file_meta.h"
#include "file_format.h"
#include "../platform/alloc.h"

static void meta_add(ludus__nf_meta *m, const char *key, const char *val) {
    if (!val || m->n >= LUDUS__NF_META_MAX) return;
    m->key[m->n] = key;
    m->val[m->n] = val;
    m->n++;
}

int ludus__nf_meta_make(ludus__nf_meta *m, const ludus_capture *c, int cut_on, int64_t from, int64_t to,
                        const char *stream) {
    memset(m, 0, sizeof *m);
    int rc = 0;
    if (c->nmem_cov && !cut_on) {
        m->coverage = ludus__mem_cov_text(c);
        if (!m->coverage) rc = LUDUS_ENOMEM;
    }
    int64_t lo = c->start_ns + from, hi = c->start_ns + to;
    int crash = c->crash.signal && (!cut_on || (c->crash.ns >= lo && c->crash.ns <= hi));
    int trig = c->trigger.reason[0] && (!cut_on || (c->trigger.ns >= lo && c->trigger.ns <= hi));
    /* "from_ns to_ns duration_ns": the range of the source it holds (a cut of a cut: of the first source) */
    int64_t cf = from, ct = to, cd = c->end_ns - c->start_ns;
    if (c->file.cut && cut_on) cf += c->file.cut_from_ns, ct += c->file.cut_from_ns, cd = c->file.cut_of_ns;
    if (c->file.cut && !cut_on) cf = c->file.cut_from_ns, ct = c->file.cut_to_ns, cd = c->file.cut_of_ns;
    snprintf(m->cut, sizeof m->cut, "%lld %lld %lld", (long long)cf, (long long)ct, (long long)cd);
    /* "SIGNAME signo tid at_ns" */
    snprintf(m->crash, sizeof m->crash, "%s %d %llu %lld", c->crash.signal_name, c->crash.signal,
             (unsigned long long)c->crash.tid, (long long)c->crash.ns);
    snprintf(m->refused, sizeof m->refused, "%u", c->counters_refused);
    snprintf(m->lost, sizeof m->lost, "%llu", (unsigned long long)c->counter_adds_lost);
    /* "reason at_ns detail": under the 400 bytes a reader takes */
    snprintf(m->trigger, sizeof m->trigger, "%s %lld %s", c->trigger.reason, (long long)c->trigger.ns,
             c->trigger.detail);
    meta_add(m, "ludus_version", LUDUS_VERSION_STRING);
    meta_add(m, "process_name", c->process_name);
    meta_add(m, "categories", c->categories);
    meta_add(m, "memory_coverage", m->coverage);
    meta_add(m, "crash", crash ? m->crash : NULL);
    meta_add(m, "recovered", c->pool.recovered ? "pool file" : NULL);
    meta_add(m, "counters_refused", c->counters_refused ? m->refused : NULL);
    meta_add(m, "counter_adds_lost", c->counter_adds_lost ? m->lost : NULL);
    meta_add(m, "trigger", trig ? m->trigger : NULL);
    meta_add(m, "cut", cut_on || c->file.cut ? m->cut : NULL);
    meta_add(m, "stream", stream);
    return rc;
}

size_t ludus__nf_meta_bytes(const ludus__nf_meta *m) {
    size_t n = 0;
    for (uint32_t i = 0; i < m->n; i++) n += 8 + strlen(m->key[i]) + ludus__nf_clamp(strlen(m->val[i]));
    return n;
}

uint8_t *ludus__nf_meta_put(uint8_t *p, const ludus__nf_meta *m) {
    for (uint32_t i = 0; i < m->n; i++) {
        size_t kn = strlen(m->key[i]), vn = ludus__nf_clamp(strlen(m->val[i]));
        p = ludus__nf_put_U32(ludus__nf_put_U32(p, (uint32_t)kn), (uint32_t)vn);
        memcpy(p, m->key[i], kn), p += kn;
        memcpy(p, m->val[i], vn), p += vn;
    }
    return p;
}

void ludus__nf_meta_free(ludus__nf_meta *m) {
    ludus__free(m->coverage);
    m->coverage = NULL;
}
