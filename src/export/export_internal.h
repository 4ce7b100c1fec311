/* The exporters: each writes a capture through the bounded writer. */
#ifndef LUDUS_EXPORT_INTERNAL_H
#define LUDUS_EXPORT_INTERNAL_H

#include "../capture/capture_internal.h"
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

/* Scope annotations kept until their slice ends (slice_args.c). */
#define LUDUS__SLICE_ARGS_MAX 16 /* keys per slice */
typedef struct ludus__slice_args_lane {
    ludus__nev *e;
    uint32_t n, cap;
} ludus__slice_args_lane;
typedef struct ludus__slice_args {
    ludus__slice_args_lane lane[LUDUS__MAX_LANES];
    uint64_t dropped;    /* past LUDUS__SLICE_ARGS_MAX keys, or no memory */
    uint64_t superseded; /* a value replaced by a later one of its key in its slice */
} ludus__slice_args;
/* ev: an attaching event (ludus__nevs[kind].attach) with its slice's lane
 * and depth. */
LUDUS__SIBLING void ludus__slice_args_add(ludus__slice_args *a, const ludus_capture *c, const ludus__nev *ev);
/* The annotations of the slice ending at (lane, depth), removed: *first
 * points at them until the next add. Inline for the common case: a lane
 * with none (every slice end of a capture without annotations). */
LUDUS__SIBLING uint32_t ludus__slice_args_take_some(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                                    const ludus__nev **first);
static inline uint32_t ludus__slice_args_take(ludus__slice_args *a, uint8_t lane, uint32_t depth,
                                              const ludus__nev **first) {
    if (__builtin_expect(a->lane[lane].n == 0, 1)) {
        *first = NULL;
        return 0;
    }
    return ludus__slice_args_take_some(a, lane, depth, first);
}
LUDUS__SIBLING void ludus__slice_args_reset(ludus__slice_args *a);
LUDUS__SIBLING void ludus__slice_args_free(ludus__slice_args *a);
/* An annotation's text (value kind TEXT): "" when empty. */
LUDUS__SIBLING const char *ludus__arg_text(const ludus__nev_iter *it, const ludus__nev *ev, size_t *len);

/* memory_json.c: the memory coverage manifest as a JSON member (",\"memory_coverage\":{...}"). */
LUDUS_HIDDEN void ludus__mem_cov_json(ludus__writer *w, const ludus_capture *c);

#endif
