/* Error strings (one X-macro table, capture.h) and the per-thread detail of
 * the last failure, owned by the library (SQLite's errmsg, not a global). */
#include <stdarg.h>
#include <stdio.h>

#include "record.h"

const char *ludus_error_string(int code) {
    switch (code) {
#define LUDUS__ERROR_CASE(name, value, message) \
    case value:                                 \
        return message;
        LUDUS_ERRORS(LUDUS__ERROR_CASE)
#undef LUDUS__ERROR_CASE
    }
    return "unknown error";
}

static __thread char error_detail[512];

const char *ludus_last_error_detail(void) {
    return error_detail;
}

int ludus__fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(error_detail, sizeof error_detail, fmt, ap);
    va_end(ap);
    return code;
}
