/* Writing the last ended capture to a file, for every exporter: the checks
 * (no capture, empty capture: file untouched), the write to PATH.tmp renamed
 * into place, and the capture kept on any failure so the call can be retried. */
#include "export_internal.h"

static ludus__writer file_writer; /* 64 KiB: control calls come from one thread */

int ludus__export_last_to_file(const char *path, ludus__exporter exporter, unsigned flags) {
    ludus__captured *c = &ludus__last;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    if (!c->valid) return ludus__fail(LUDUS_ENODATA, "no capture has ended");
    int rc = ludus__prepare(c);
    if (rc) return ludus__fail(rc, "out of memory while preparing the capture");
    if (c->events == 0) return ludus__fail(LUDUS_ENODATA, "the capture holds no event; %s untouched", path);
    ludus__file f;
    if (ludus__file_create(&f, path) != 0) return ludus__fail(LUDUS_EIO, "cannot create %s.tmp", path);
    ludus__w_init(&file_writer, ludus__w_file_cb, &f);
    rc = exporter(c, &file_writer, flags);
    if (rc != 0) {
        ludus__file_abort(&f);
        return ludus__fail(rc, "writing %s failed after %llu bytes; the capture is kept", path,
                           (unsigned long long)file_writer.bytes);
    }
    if (ludus__file_commit(&f) != 0)
        return ludus__fail(LUDUS_EIO, "cannot close or rename %s; the capture is kept", path);
    return 0;
}
