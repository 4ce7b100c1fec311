/* The start-up object of the MSVC-ABI build under Wine (check_msvc.sh):
 * what MSVC's static runtime (vcruntime, libcmt) brings to a program and
 * Wine's import libraries do not.
 *   - mainCRTStartup: the C runtime's arguments and environment, the C
 *     initializers (.CRT$XI*) and constructors (.CRT$XC*), then
 *     exit(main(argc, argv));
 *   - the TLS directory (_tls_used, _tls_index, the .tls section's bounds
 *     and the callback list), without which __declspec(thread) does not
 *     link;
 *   - atexit, which MSVC's runtime implements in its static part over
 *     ucrtbase's _crt_atexit, and _fltused, its mark of floating point;
 *   - __udivti3, the 128-bit division of clang's builtins library
 *     (clang_rt.builtins-x86_64.lib: LLVM's Windows installer ships it,
 *     Debian does not), which the library's tick conversion needs when
 *     clang compiles it (MSVC has no 128-bit integers: a library built by
 *     MSVC itself is not done yet).
 * Built by clang in MSVC mode; never part of the library. */
#include <corecrt_startup.h>
#include <stdlib.h>
#include <windows.h>

int main(int argc, char **argv);
typedef _PVFV ludus_crt_fn;
typedef _PIFV ludus_crt_init_fn;
void __cdecl _initterm(_PVFV *first, _PVFV *last);  /* ucrtbase's; */
int __cdecl _initterm_e(_PIFV *first, _PIFV *last); /* Wine's headers lack them */

/* The TLS directory. The linker orders .tls$ sections by their suffix:
 * _tls_start opens the template, _tls_end closes it. */
#pragma section(".tls", long, read, write)
#pragma section(".tls$ZZZ", long, read, write)
#pragma section(".CRT$XLA", long, read)
#pragma section(".CRT$XLZ", long, read)
#pragma section(".rdata$T", long, read)
ULONG _tls_index = 0;
__declspec(allocate(".tls")) char _tls_start = 0;
__declspec(allocate(".tls$ZZZ")) char _tls_end = 0;
__declspec(allocate(".CRT$XLA")) PIMAGE_TLS_CALLBACK __xl_a = 0;
__declspec(allocate(".CRT$XLZ")) PIMAGE_TLS_CALLBACK __xl_z = 0;
__declspec(allocate(".rdata$T")) const IMAGE_TLS_DIRECTORY64 _tls_used = {
    (ULONGLONG)&_tls_start, (ULONGLONG)&_tls_end, (ULONGLONG)&_tls_index, (ULONGLONG)(&__xl_a + 1), 0, 0};

/* The bounds of the C initializers and constructors (the compiler puts
 * each in .CRT$XIU / .CRT$XCU, between these). */
#pragma section(".CRT$XIA", long, read)
#pragma section(".CRT$XIZ", long, read)
#pragma section(".CRT$XCA", long, read)
#pragma section(".CRT$XCZ", long, read)
__declspec(allocate(".CRT$XIA")) ludus_crt_init_fn __xi_a = 0;
__declspec(allocate(".CRT$XIZ")) ludus_crt_init_fn __xi_z = 0;
__declspec(allocate(".CRT$XCA")) ludus_crt_fn __xc_a = 0;
__declspec(allocate(".CRT$XCZ")) ludus_crt_fn __xc_z = 0;

/* Wine's stdlib.h declares it imported (check_msvc.sh compiles this file
 * with -Wno-inconsistent-dllimport). */
int __cdecl atexit(void(__cdecl *fn)(void)) {
    return _crt_atexit(fn);
}

int _fltused = 0x9875;

/* n / d, bit by bit (export-time conversions only, never the hot path). */
unsigned __int128 __udivti3(unsigned __int128 n, unsigned __int128 d);
unsigned __int128 __udivti3(unsigned __int128 n, unsigned __int128 d) {
    unsigned __int128 q = 0, r = 0;
    if (d == 0) __fastfail(7); /* FAST_FAIL_FATAL_APP_EXIT, as a division by zero traps */
    for (int i = 127; i >= 0; i--) {
        r = r << 1 | (n >> i & 1);
        if (r >= d) {
            r -= d;
            q |= (unsigned __int128)1 << i;
        }
    }
    return q;
}

void mainCRTStartup(void) {
    _configure_narrow_argv(_crt_argv_unexpanded_arguments);
    _initialize_narrow_environment();
    if (_initterm_e(&__xi_a + 1, &__xi_z) != 0) exit(255);
    _initterm(&__xc_a + 1, &__xc_z);
    exit(main(*__p___argc(), *__p___argv()));
}
