/* The memory coverage manifest (memory_coverage.c) taken when a capture
 * ends: the recorder's memory domains and what lies outside them, under
 * their lock. A file of its own: the manifest's text, parsing and
 * accessors read no recorder state, and the analysis library, which takes a
 * private copy of them, takes none of the recorder with them. */
#include <stdio.h>
#include <string.h>

#include "../record/counters.h"
#include "capture_build.h"
#include "nev.h"

int ludus__mem_cov_take(ludus_capture *c, int64_t pool_bytes) {
    ludus__domain_info d[LUDUS__MAX_DOMAINS];
    ludus__outside_note o[LUDUS__MAX_OUTSIDE];
    ludus__live_lock();
    uint32_t nd = ludus__live_domains(d, LUDUS__MAX_DOMAINS);
    uint32_t no = ludus__live_outside(o, LUDUS__MAX_OUTSIDE);
    uint64_t shards = ludus__live_shard_bytes();
    ludus__live_unlock();
    c->mem_cov = ludus__calloc(nd + no + 2, sizeof *c->mem_cov);
    if (!c->mem_cov) return -1;
    for (uint32_t i = 0; i < nd; i++) {
        ludus__mem_cov *m = &c->mem_cov[c->nmem_cov++];
        m->kind = LUDUS__MEM_COV_DOMAIN;
        memcpy(m->name, d[i].name, sizeof m->name);
        m->since_ns = d[i].since_ns - c->start_ns;
        m->baseline_bytes = d[i].baseline_bytes;
        m->live_bytes = d[i].live_bytes;
        m->peak_bytes = d[i].peak_bytes;
        m->allocs = d[i].allocs;
        m->frees = d[i].frees;
        m->alloc_bytes = d[i].alloc_bytes;
        m->free_bytes = d[i].free_bytes;
        m->flags = (d[i].has_baseline ? LUDUS__MEM_COV_BASELINE : 0) | (d[i].underflow ? LUDUS__MEM_COV_UNKNOWN : 0);
    }
    ludus__mem_cov *m = &c->mem_cov[c->nmem_cov++];
    m->kind = LUDUS__MEM_COV_OUTSIDE;
    snprintf(m->name, sizeof m->name, "ludus capture pool");
    m->live_bytes = pool_bytes;
    m = &c->mem_cov[c->nmem_cov++];
    m->kind = LUDUS__MEM_COV_OUTSIDE;
    snprintf(m->name, sizeof m->name, "ludus counter shards");
    m->live_bytes = (int64_t)shards;
    for (uint32_t i = 0; i < no; i++) {
        m = &c->mem_cov[c->nmem_cov++];
        m->kind = LUDUS__MEM_COV_OUTSIDE;
        memcpy(m->name, o[i].what, sizeof m->name);
        m->live_bytes = (int64_t)o[i].bytes;
    }
    return 0;
}
