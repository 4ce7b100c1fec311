/* Output files for callers (capture.h: ludus_output): the platform's safe
 * file (temporary of its own, renamed into place; devices and FIFOs in
 * place; symlinks followed) with errors that say what failed. */
#include <stdlib.h>
#include <string.h>

#include "../platform/file_read.h"
#include "export_internal.h"

struct ludus_output {
    ludus__file f;
    char *path;
    int err; /* first write errno */
};

static int io_fail(const char *what, const char *path, int e) {
    char buf[128];
    ludus__os_strerror(e, buf, sizeof buf);
    return ludus__fail(LUDUS_EIO, "%s %s: %s", what, path, buf);
}

int ludus_output_open(const char *path, ludus_output **out) {
    if (!out) return ludus__fail(LUDUS_EINVAL, "out is NULL");
    *out = NULL;
    if (!path || !*path) return ludus__fail(LUDUS_EINVAL, "path is NULL or empty");
    ludus_output *o = ludus__calloc(1, sizeof *o);
    char *p = o ? ludus__malloc(strlen(path) + 1) : NULL;
    if (!p) {
        ludus__free(o);
        return ludus__fail(LUDUS_ENOMEM, "out of memory");
    }
    strcpy(p, path);
    o->path = p;
    int e = ludus__file_create(&o->f, path);
    if (e != 0) {
        ludus__free(o->path);
        ludus__free(o);
        return io_fail("cannot create", path, e);
    }
    *out = o;
    return 0;
}

int ludus_output_write(void *output, const void *data, size_t n) {
    ludus_output *o = output;
    if (o->err) return -1;
    int e = ludus__file_write(&o->f, data, n);
    if (e != 0) o->err = e;
    return e ? -1 : 0;
}

int ludus_output_commit(ludus_output *o) {
    if (!o) return ludus__fail(LUDUS_EINVAL, "output is NULL");
    int rc = 0;
    if (o->err) {
        ludus__file_abort(&o->f);
        rc = io_fail("cannot write", o->path, o->err);
    } else {
        int e = ludus__file_commit(&o->f);
        if (e != 0) rc = io_fail("cannot finish", o->path, e);
    }
    ludus__free(o->path);
    ludus__free(o);
    return rc;
}

void ludus_output_abort(ludus_output *o) {
    if (!o) return;
    ludus__file_abort(&o->f);
    ludus__free(o->path);
    ludus__free(o);
}

/* The write error of an output, for a caller that saw its writer fail. */
int ludus__output_error(const ludus_output *o) {
    return o->err;
}
