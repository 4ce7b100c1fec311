/* The exporters: each writes a capture through the bounded writer. */
#ifndef LUDUS_EXPORT_INTERNAL_H
#define LUDUS_EXPORT_INTERNAL_H

#include "../capture/capture_internal.h"
#include "writer.h"

/* An exporter: 0 or a LUDUS_E* code (with the detail set for format and
 * memory errors; LUDUS_EIO when the writer failed). The capture is prepared. */
typedef int (*ludus__exporter)(ludus_capture *c, ludus__writer *w, unsigned flags);

LUDUS_HIDDEN int ludus__export_json(ludus_capture *c, ludus__writer *w, unsigned flags);
LUDUS_HIDDEN int ludus__export_pftrace(ludus_capture *c, ludus__writer *w, unsigned flags);
LUDUS_HIDDEN int ludus__save_native(ludus_capture *c, ludus__writer *w, unsigned flags);
/* A merge keeps the flow ids the caller gave (LUDUS_CALLER_FLOW_ID_BIT: a
 * flow across processes) and moves the library's own, per process, to a
 * space of their own (capture i: xor i << 48; they are addresses, < 2^48). */
static inline uint64_t ludus__merge_flow_space(uint32_t capture) {
    return (uint64_t)capture << 48;
}
static inline uint64_t ludus__merged_flow_id(uint64_t id, uint64_t space) {
    return id & LUDUS_CALLER_FLOW_ID_BIT ? id : id ^ space;
}
/* Several captures as one JSON trace, ts 0 at origin_ns (merge.c). */
LUDUS_HIDDEN int ludus__export_json_merged(ludus_capture *const *cs, uint32_t n, int64_t origin_ns, ludus__writer *w);
/* The errno (negative) that made an output's writes fail, or 0 (output.c). */
LUDUS_HIDDEN int ludus__output_error(const ludus_output *o);

/* memory_json.c: the memory coverage manifest as a JSON member (",\"memory_coverage\":{...}"). */
LUDUS_HIDDEN void ludus__mem_cov_json(ludus__writer *w, const ludus_capture *c);

#endif
