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

static __thread char error_detail[LUDUS__ERROR_DETAIL_BYTES];

const char *ludus_last_error_detail(void) {
    return error_detail;
}
