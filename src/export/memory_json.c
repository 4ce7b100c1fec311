/* The memory coverage manifest as a JSON metadata member (Chrome JSON;
 * the analysis report reuses it). */
#include <string.h>

#include "export_internal.h"
#include "../base/writer.h"

void ludus__mem_cov_json(ludus__writer *w, const ludus_capture *c) {
    ludus__w_str(w, ",\"memory_coverage\":{\"domains\":[");
    int first = 1;
    for (uint32_t i = 0; i < c->nmem_cov; i++) {
        const ludus__mem_cov *m = &c->mem_cov[i];
        if (m->kind != LUDUS__MEM_COV_DOMAIN) continue;
        ludus__w_str(w, first ? "{\"name\":" : ",{\"name\":");
        first = 0;
        ludus__w_json_str(w, m->name, strlen(m->name));
        ludus__w_str(w, ",\"tracked_since\":");
        ludus__w_str(w, m->flags & LUDUS__MEM_COV_BASELINE ? "\"registration, with a declared baseline\""
                                                           : "\"registration; memory held before is not counted\"");
        ludus__w_str(w, ",\"live\":");
        ludus__w_str(w, m->flags & LUDUS__MEM_COV_UNKNOWN ? "\"unknown: frees of memory allocated before tracking\""
                                                          : "\"exact\"");
#define KV(f)                        \
    ludus__w_str(w, ",\"" #f "\":"); \
    ludus__w_i64(w, m->f);
        LUDUS__MEM_COV_FIELDS(KV)
#undef KV
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "],\"outside\":[");
    first = 1;
    for (uint32_t i = 0; i < c->nmem_cov; i++) {
        const ludus__mem_cov *m = &c->mem_cov[i];
        if (m->kind != LUDUS__MEM_COV_OUTSIDE) continue;
        ludus__w_str(w, first ? "{\"what\":" : ",{\"what\":");
        first = 0;
        ludus__w_json_str(w, m->name, strlen(m->name));
        ludus__w_str(w, ",\"bytes\":");
        ludus__w_i64(w, m->live_bytes);
        ludus__w_ch(w, '}');
    }
    ludus__w_str(w, "],\"not_covered\":\"memory not allocated through ludus_memory_alloc (libc internals, thread "
                    "stacks, mapped files) unless noted above\"}");
}
