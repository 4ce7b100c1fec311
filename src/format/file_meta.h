/* The .ludus META record (file_format.h: LUDUS__NF_META): what a capture
 * says of itself in key/value texts, made in one place for every writer
 * (the save, src/export/native_writer.c; the stream, src/session/stream.c)
 * and read by src/format/file_reader.c's parse_meta. */
#ifndef LUDUS_FORMAT_FILE_META_H
#define LUDUS_FORMAT_FILE_META_H

#include <stddef.h>
#include <stdint.h>

#include "../capture/capture_model.h"

#define LUDUS__NF_META_MAX 11

typedef struct ludus__nf_meta {
    uint32_t n; /* the pairs below, in writing order */
    const char *key[LUDUS__NF_META_MAX];
    const char *val[LUDUS__NF_META_MAX];
    char *coverage; /* the memory manifest's text (owned) */
    char cut[80], crash[128], refused[24], lost[24], trigger[400];
} ludus__nf_meta;

/* The pairs of capture c, written whole (cut_on 0) or as the range
 * [from, to] ns since its start (a cut: what holds at the source's end,
 * the memory manifest, is left out, and a crash or trigger outside the
 * range). stream: the streamed file's "events dropped needed_bytes_per_s"
 * or NULL. 0, or LUDUS_ENOMEM when the memory manifest's text could not be
 * made (the file would lack it: an error, not a quieter file). Free with
 * ludus__nf_meta_free in both cases. */
LUDUS_HIDDEN int ludus__nf_meta_make(ludus__nf_meta *m, const ludus_capture *c, int cut_on, int64_t from, int64_t to,
                                     const char *stream);
/* The record's payload: its size, and its bytes into p (returns the end). */
LUDUS_HIDDEN size_t ludus__nf_meta_bytes(const ludus__nf_meta *m);
LUDUS_HIDDEN uint8_t *ludus__nf_meta_put(uint8_t *p, const ludus__nf_meta *m);
LUDUS_HIDDEN void ludus__nf_meta_free(ludus__nf_meta *m);

#endif
