# test_crash_inside_malloc, test_crash_with_libc_locks_held (test_crash.c):
# malloc and friends, the time zone's calls (glibc's tzset lock) and
# stdio's (a stream's lock) wrapped by the linker (GNU ld's --wrap, any C
# library), to block them as a lock held by another thread of the crashed
# process would. The __*_chk names are glibc's _FORTIFY_SOURCE forms: with
# another C library nothing calls them and their wraps are left unused.
# Included by tests/unit (unit_crash) and tests/ports (port_unit_crash).
set(LUDUS_CRASH_TEST_WRAP
    -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free
    -Wl,--wrap=localtime_r,--wrap=localtime,--wrap=gmtime_r,--wrap=gmtime,--wrap=mktime,--wrap=tzset,--wrap=strftime
    -Wl,--wrap=fprintf,--wrap=vfprintf,--wrap=fputs,--wrap=fwrite,--wrap=fflush,--wrap=printf,--wrap=puts,--wrap=fputc
    -Wl,--wrap=__fprintf_chk,--wrap=__vfprintf_chk,--wrap=__printf_chk)
