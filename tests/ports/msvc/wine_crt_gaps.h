/* What Wine's MSVC-style C runtime headers leave out of the real ones
 * (the library uses erfc and localtime_s, the tests sig_atomic_t; ucrtbase
 * exports erfc, and MSVC's localtime_s is an inline over _localtime64_s). Force-included into everything
 * check_msvc.sh compiles; a real MSVC build needs none of it. */
#ifndef LUDUS_WINE_CRT_GAPS_H
#define LUDUS_WINE_CRT_GAPS_H
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <time.h>

double __cdecl erfc(double x);
typedef int sig_atomic_t; /* MSVC's <signal.h> */
static inline errno_t localtime_s(struct tm *tm, const time_t *t) {
    return _localtime64_s(tm, t);
}
#endif
