/* ludus__fail: a failure's detail into the calling thread's buffer, which
 * errors.c owns. Reached through the public ludus_last_error_detail, so
 * that the analysis library's private copy of this file (CMake's
 * ludus_analysis_shared) fills the one buffer libludus.so's
 * ludus_last_error_detail shows. A file of its own: a copy of errors.c would
 * bring a second buffer. */
#include <ludus/capture.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "record.h"

int ludus__fail(int code, const char *fmt, ...) {
    /* the buffer is ours and writable; the accessor returns it const for callers */
    char *detail = (char *)(uintptr_t)ludus_last_error_detail();
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, LUDUS__ERROR_DETAIL_BYTES, fmt, ap);
    va_end(ap);
    return code;
}
