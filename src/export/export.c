/* Every format, to a write callback or to a path: the checks (no events:
 * nothing written), the file opened before the capture is prepared (a bad
 * path is found at once, and writing starts without a pass over the events
 * first when it can), and the capture kept on any failure so the call can
 * be retried. No state outlives a call: two threads export two captures at
 * once. */
#include <stdlib.h>
#include <string.h>

#include "../platform/file_read.h"
#include "export_internal.h"

static const struct {
    int format;
    const char *ext;
    ludus__exporter fn;
} formats[] = {
    {LUDUS_FORMAT_JSON, ".json", ludus__export_json},
    {LUDUS_FORMAT_PFTRACE, ".pftrace", ludus__export_pftrace},
    {LUDUS_FORMAT_PFTRACE, ".perfetto-trace", ludus__export_pftrace},
    {LUDUS_FORMAT_LUDUS, ".ludus", ludus__save_native},
};

static ludus__exporter exporter_of(int format) {
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (formats[i].format == format) return formats[i].fn;
    return NULL;
}

int ludus_format_from_path(const char *path) {
    if (!path) return 0;
    size_t n = strlen(path);
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        size_t k = strlen(formats[i].ext);
        if (n > k && strcmp(path + n - k, formats[i].ext) == 0) return formats[i].format;
    }
    return 0;
}

static uint64_t gpu_samples(const ludus_capture *c) {
    const ludus__gpu_data *g = ludus__gpu_of(c);
    return g ? g->ns : 0;
}

static int check(ludus_capture *c, int format, unsigned flags, ludus__exporter *fn) {
    if (!c) return ludus__fail(LUDUS_EINVAL, "capture is NULL");
    *fn = exporter_of(format);
    if (!*fn) return ludus__fail(LUDUS_EINVAL, "unknown format %d", format);
    if (flags & ~(LUDUS_SAVE_RAW | LUDUS_SAVE_UNCOMPRESSED))
        return ludus__fail(LUDUS_EINVAL, "unknown flags 0x%x", flags);
    return 0;
}

static int run(ludus_capture *c, ludus__exporter fn, unsigned flags, ludus__writer *w, const char *what) {
    int rc = ludus__prepare(c);
    if (rc) return rc;
    if (c->events == 0 && c->dropped == 0 && !gpu_samples(c)) /* a GPU-only capture has GPU samples only */
        return ludus__fail(LUDUS_ENODATA, "the capture holds no event; %s untouched", what);
    rc = fn(c, w, flags);
    if (rc == 0 && ludus__w_flush(w) != 0) rc = LUDUS_EIO;
    if (rc == LUDUS_EIO)
        return ludus__fail(rc, "writing %s failed after %llu bytes; the capture is kept", what,
                           (unsigned long long)w->bytes);
    return rc; /* LUDUS_ENOMEM and LUDUS_EFORMAT come with their detail */
}

int ludus__export_to(const char *path, ludus_write_fn write, void *user_data,
                     int (*body)(ludus__writer *w, const char *what, void *arg), void *arg) {
    ludus__writer *w = ludus__malloc(sizeof *w);
    if (!w) return ludus__fail(LUDUS_ENOMEM, "out of memory");
    ludus_output *o = NULL;
    int rc = path ? ludus_output_open(path, &o) : 0;
    if (rc == 0) {
        ludus__w_init(w, o ? ludus_output_write : write, o ? (void *)o : user_data);
        rc = body(w, path ? path : "the output", arg);
    }
    if (o) {
        if (rc == LUDUS_EIO && ludus__output_error(o)) {
            char buf[128];
            ludus__os_strerror(ludus__output_error(o), buf, sizeof buf);
            rc = ludus__fail(LUDUS_EIO, "cannot write %s after %llu bytes: %s; the capture is kept", path,
                             (unsigned long long)w->bytes, buf);
        }
        if (rc != 0)
            ludus_output_abort(o);
        else
            rc = ludus_output_commit(o);
    }
    ludus__free(w);
    return rc;
}

typedef struct export_job {
    ludus_capture *c;
    ludus__exporter fn;
    unsigned flags;
} export_job;

static int export_body(ludus__writer *w, const char *what, void *arg) {
    const export_job *j = arg;
    return run(j->c, j->fn, j->flags, w, what);
}

int ludus_capture_write(ludus_capture *c, int format, unsigned flags, ludus_write_fn write, void *user_data) {
    export_job j = {c, NULL, flags};
    int rc = check(c, format, flags, &j.fn);
    if (rc) return rc;
    if (!write) return ludus__fail(LUDUS_EINVAL, "write is NULL");
    return ludus__export_to(NULL, write, user_data, export_body, &j);
}

int ludus_capture_save(ludus_capture *c, int format, unsigned flags, const char *path) {
    ludus__exporter fn = NULL;
    if (format == 0 && path && !(format = ludus_format_from_path(path)))
        return ludus__fail(LUDUS_EINVAL,
                           "%s: the format is not given and the name ends in none of .json, .pftrace, "
                           ".perfetto-trace, .ludus",
                           path);
    int rc = check(c, format, flags, &fn);
    if (rc) return rc;
    if (!path) return ludus__fail(LUDUS_EINVAL, "path is NULL");
    rc = ludus__prepare(c);
    if (rc) return rc;
    if (c->events == 0 && c->dropped == 0 && !gpu_samples(c)) /* a GPU-only capture has GPU samples only */
        return ludus__fail(LUDUS_ENODATA, "the capture holds no event; %s untouched", path);
    export_job j = {c, fn, flags};
    return ludus__export_to(path, NULL, NULL, export_body, &j);
}
