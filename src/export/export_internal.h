/* Exporters over the prepared capture view. */
#ifndef LUDUS_EXPORT_INTERNAL_H
#define LUDUS_EXPORT_INTERNAL_H

#include "../capture/capture_internal.h"
#include "writer.h"

LUDUS_HIDDEN int ludus__export_chrome_json(ludus__captured *c, ludus__writer *w);

#endif
