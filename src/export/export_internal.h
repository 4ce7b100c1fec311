/* The exporters: each writes a capture through the bounded writer. */
#ifndef LUDUS_EXPORT_INTERNAL_H
#define LUDUS_EXPORT_INTERNAL_H

#include "../capture/nev.h"
#include "../gpu/gpu_data.h"
#include "../base/writer.h"

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

/* Runs body with a writer on write/user_data, or, when path is given, on
 * the file path (written whole or not at all: ludus_output; an I/O error
 * names the OS's reason). what: the output's name for messages (export.c). */
LUDUS_HIDDEN int ludus__export_to(const char *path, ludus_write_fn write, void *user_data,
                                  int (*body)(ludus__writer *w, const char *what, void *arg), void *arg);

/* A growable byte buffer (bytes.c): oom is set when it could not grow
 * (room is then NULL and put writes nothing); write is a ludus_write_fn. */
typedef struct ludus__bytes {
    uint8_t *b;
    size_t n, cap;
    int oom;
} ludus__bytes;
LUDUS_HIDDEN uint8_t *ludus__bytes_room(ludus__bytes *r, size_t n);
LUDUS_HIDDEN void ludus__bytes_put(ludus__bytes *r, const void *p, size_t n);
LUDUS_HIDDEN int ludus__bytes_write(void *ud, const void *data, size_t n);

/* memory_json.c: the memory coverage manifest as a JSON member (",\"memory_coverage\":{...}"). */
LUDUS_HIDDEN void ludus__mem_cov_json(ludus__writer *w, const ludus_capture *c);

#endif
