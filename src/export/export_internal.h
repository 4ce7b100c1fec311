/* Exporters over the prepared capture view. */
#ifndef LUDUS_EXPORT_INTERNAL_H
#define LUDUS_EXPORT_INTERNAL_H

#include "../capture/capture_internal.h"
#include "writer.h"

LUDUS_HIDDEN int ludus__export_chrome_json(ludus__captured *c, ludus__writer *w);

/* An exporter as the file helper calls it: 0 or a LUDUS_E* code. */
typedef int (*ludus__exporter)(ludus__captured *c, ludus__writer *w, unsigned flags);
/* Writes the last ended capture to PATH through exporter (file_export.c). */
LUDUS_HIDDEN int ludus__export_last_to_file(const char *path, ludus__exporter exporter, unsigned flags);

#endif
