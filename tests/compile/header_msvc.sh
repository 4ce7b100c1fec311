#!/bin/sh
# The public headers as MSVC compiles them: clang in MSVC mode
# (--target=x86_64-pc-windows-msvc: _MSC_VER defined, __GNUC__ not) with
# __clang__ undefined (MSVC does not define it), against Wine's MSVC-style C
# runtime headers, and every GNU extension poisoned (#pragma GCC poison in a
# prelude, after the C library's headers): __attribute__, __thread, typeof,
# __asm__, __extension__ and every __builtin_*/__atomic_*/__sync_* name the
# headers spell; statement expressions and the other GNU syntax by
# -Werror=gnu. header_msvc.c as C17 and C++17/20 at levels 0, 1 and 2, the
# Tracy seam in C++; then a lexical scope in C must fail with the message
# that names LUDUS_ZONE_BEGIN. Exit 77 (ctest: skipped) with a message when
# clang has no MSVC target or Wine's headers are missing (libwine-dev; make
# deps installs it); in CI (LUDUS_CI=1) that fails.
# usage: header_msvc.sh CLANG INCLUDE_DIR SOURCE_DIR WORK_DIR
set -eu
clang=$1 inc=$2 src=$3 work=$4
mkdir -p "$work"
skip() {
    echo "SKIP: $*"
    [ "${LUDUS_CI:-0}" = 1 ] && exit 1
    exit 77
}
msvcrt=/usr/include/wine/wine/msvcrt winh=/usr/include/wine/wine/windows
if command -v dpkg >/dev/null 2>&1 && dpkg -L libwine-dev >/dev/null 2>&1; then
    msvcrt=$(dirname "$(dpkg -L libwine-dev | grep '/msvcrt/stdio.h$')")
    winh=$(dirname "$(dpkg -L libwine-dev | grep '/windows/windows.h$')")
fi
if [ ! -f "$msvcrt/stdio.h" ] || [ ! -f "$winh/windows.h" ]; then
    skip "Wine's MSVC-style headers are missing (apt-get install libwine-dev)"
fi
flags="--target=x86_64-pc-windows-msvc -fms-compatibility-version=19.30 -U__clang__ -nostdinc
       -isystem $("$clang" -print-resource-dir)/include -isystem $msvcrt -isystem $winh"
if ! echo 'int main(void) { return _MSC_VER > 0 ? 0 : 1; }' |
    "$clang" $flags -x c -fsyntax-only - 2>"$work/probe.txt"; then
    cat "$work/probe.txt"
    skip "$clang has no MSVC target (x86_64-pc-windows-msvc)"
fi
# The prelude: the C library first (its headers may use what we poison),
# then the poison, then header_msvc.c.
builtins=$(grep -ho '__\(builtin\|atomic\|sync\)_[A-Za-z0-9_]*' "$inc"/ludus/*.h | sort -u | tr '\n' ' ')
cat >"$work/prelude.h" <<PRELUDE
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#pragma GCC poison __attribute__ __attribute __thread typeof __typeof__ __typeof __asm__ __asm __extension__
#pragma GCC poison __label__ __inline__ __volatile__ __alignof__ __restrict__ __int128 $builtins
PRELUDE
strict="-Wall -Wextra -Werror -Werror=gnu -Wno-unused-function -Wno-unused-local-typedef"
n=0
for level in 0 1 2; do
    for std in "-x c -std=c17" "-x c++ -std=c++17" "-x c++ -std=c++20"; do
        # shellcheck disable=SC2086
        "$clang" $flags $std $strict -DLUDUS_PROFILE_LEVEL=$level -I"$inc" -include "$work/prelude.h" \
            -c "$src/header_msvc.c" -o "$work/header_msvc.obj" ||
            { echo "FAIL: $std at level $level"; exit 1; }
        n=$((n + 1))
    done
done
# shellcheck disable=SC2086
"$clang" $flags -x c++ -std=c++17 $strict -DLUDUS_BACKEND_TRACY=1 -I"$inc" -include "$work/prelude.h" \
    -c "$src/header_msvc.c" -o "$work/header_msvc.obj" || { echo "FAIL: the Tracy seam, C++17"; exit 1; }
# A lexical scope in MSVC's C: an error that says what to use.
printf '#include <ludus/profiling.h>\nint f(void);\nint f(void) {\n    LUDUS_PROFILE_SCOPE(S);\n    return 0;\n}\n' \
    >"$work/c_scope.c"
# shellcheck disable=SC2086
if "$clang" $flags -x c -std=c17 -I"$inc" -include "$work/prelude.h" -fsyntax-only "$work/c_scope.c" \
    >"$work/c_scope.txt" 2>&1; then
    echo "FAIL: LUDUS_PROFILE_SCOPE compiled in MSVC's C"
    exit 1
fi
grep -q 'LUDUS_ZONE_BEGIN' "$work/c_scope.txt" || { cat "$work/c_scope.txt"; echo "FAIL: no LUDUS_ZONE_BEGIN hint"; exit 1; }
echo "ok: $n compiles in MSVC mode (C17, C++17, C++20; levels 0-2) and the Tracy seam with GNU extensions poisoned; a C scope names LUDUS_ZONE_BEGIN"
