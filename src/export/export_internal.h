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
/* The errno (negative) that made an output's writes fail, or 0 (output.c). */
LUDUS_HIDDEN int ludus__output_error(const ludus_output *o);

/* memory_json.c: the memory coverage manifest as a JSON member (",\"memory_coverage\":{...}"). */
LUDUS_HIDDEN void ludus__mem_cov_json(ludus__writer *w, const ludus_capture *c);

#endif
