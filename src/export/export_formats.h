/* Writers of the binary formats (native .ludus and Perfetto .pftrace) over a
 * prepared capture view, in memory or loaded from a file. */
#ifndef LUDUS_EXPORT_FORMATS_H
#define LUDUS_EXPORT_FORMATS_H

#include "../capture/capture_internal.h"
#include "writer.h"

/* Native capture file; flags: LUDUS_SAVE_*. 0, LUDUS_EIO (writer failed),
 * LUDUS_ENOMEM, or the loader's code for a damaged source file. */
LUDUS_HIDDEN int ludus__save_native(ludus__captured *c, ludus__writer *w, unsigned flags);
/* Perfetto protobuf trace. Same codes. */
LUDUS_HIDDEN int ludus__export_pftrace(ludus__captured *c, ludus__writer *w);

#endif
