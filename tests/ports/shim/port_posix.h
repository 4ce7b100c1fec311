/* What the unit tests take from POSIX that mingw-w64 lacks, for the
 * Windows port (force-included by tests/ports/CMakeLists.txt). */
#ifndef LUDUS_PORT_POSIX_H
#define LUDUS_PORT_POSIX_H
#ifdef _WIN32
#include <string.h>

static __attribute__((unused)) void *memmem(const void *hay, size_t n, const void *needle, size_t m) {
    const char *h = hay;
    if (m == 0) return (void *)h;
    for (size_t i = 0; i + m <= n; i++)
        if (h[i] == *(const char *)needle && memcmp(h + i, needle, m) == 0) return (void *)(h + i);
    return NULL;
}
#endif
#endif
