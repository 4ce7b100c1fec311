/* Windows implementation of pages.h and process.h. The pool is committed
 * with VirtualAlloc (zero pages, faulted in on first touch); there is no
 * prefault thread yet (the producers fault the pages in), and no fork. */
#include "pages.h"
#include "process.h"

#include <windows.h>

void *ludus__pages_map(size_t bytes) {
    return VirtualAlloc(NULL, bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}
void ludus__pages_unmap(void *p, size_t bytes) {
    (void)bytes;
    if (p) VirtualFree(p, 0, MEM_RELEASE);
}

void ludus__pages_touch(void *p, size_t bytes) {
    for (size_t k = 0; k < bytes; k += 4096) __atomic_fetch_add((char *)p + k, (char)0, __ATOMIC_RELAXED);
}

ludus__prefault *ludus__prefault_start(void *p, size_t bytes, size_t from, const uint64_t *cursor) {
    (void)p, (void)bytes, (void)from, (void)cursor;
    return NULL;
}
void ludus__prefault_nudge(ludus__prefault *pf, uint64_t cursor) {
    (void)pf, (void)cursor;
}
void ludus__prefault_request_stop(ludus__prefault *pf) {
    (void)pf;
}
void ludus__prefault_stop(ludus__prefault *pf) {
    (void)pf;
}
void ludus__prefault_after_fork(ludus__prefault *pf) {
    (void)pf;
}
size_t ludus__prefault_done(const ludus__prefault *pf) {
    (void)pf;
    return 0;
}

int ludus__on_fork(void (*prepare)(void), void (*parent)(void), void (*child)(void)) {
    (void)prepare, (void)parent, (void)child;
    return 0; /* Windows has no fork */
}
