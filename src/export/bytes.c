/* A growable byte buffer (export_internal.h): a record built whole before
 * it is written (native_writer.c), an export kept in memory to be rewritten
 * (merge.c). */
#include <string.h>

#include "export_internal.h"

uint8_t *ludus__bytes_room(ludus__bytes *r, size_t n) {
    if (r->n + n > r->cap) {
        size_t cap = r->cap ? r->cap : 4096;
        while (cap < r->n + n) cap *= 2;
        uint8_t *b = ludus__realloc(r->b, cap);
        if (!b) {
            r->oom = 1;
            return NULL;
        }
        r->b = b;
        r->cap = cap;
    }
    return r->b + r->n;
}

void ludus__bytes_put(ludus__bytes *r, const void *p, size_t n) {
    uint8_t *d = ludus__bytes_room(r, n);
    if (!d) return;
    memcpy(d, p, n);
    r->n += n;
}

int ludus__bytes_write(void *ud, const void *data, size_t n) {
    ludus__bytes *r = ud;
    ludus__bytes_put(r, data, n);
    return r->oom ? -1 : 0;
}
