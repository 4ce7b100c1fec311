#!/bin/sh
# The MSVC-ABI build under Wine (make test-msvc): the library, ludus-trace,
# the demo, windows_smoke and the Windows subset of the unit suite compiled
# by clang in MSVC mode (--target=x86_64-pc-windows-msvc: _MSC_VER, MSVC's
# ABI, __declspec(thread), the headers' MSVC branches) against Wine's
# MSVC-style C runtime and Windows headers, linked by lld-link against
# Wine's import libraries (ucrtbase, kernel32, advapi32: the live view's
# security descriptors) with msvc/crt0.c (the entry point and the TLS
# directory MSVC's static runtime would bring), then run under Wine:
#   1. windows_smoke.exe: clock, threads, thread exit, export files
#   2. the demo writes a trace (JSON and .ludus) that python3 and
#      ludus-trace.exe read back; LUDUS_TRACE; the rolling window
#   3. the live view between two processes (check_live_windows.sh)
#   4. the unit suite (the list of tests/ports/CMakeLists.txt, against the
#      cmocka and json-c shims; msvc/pthread.h and msvc/msvc_posix.h give the
#      tests, the demo and the tool the POSIX they use)
# The library itself needs no shim: src/platform/sync.h and win32.c use
# Windows' own threads, locks and FLS callbacks under _MSC_VER.
# usage: check_msvc.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
JOBS=${JOBS:-2}
clang=$(command -v clang-14 || command -v clang) || fail "clang is missing"
llvm_bin=$(dirname "$(readlink -f "$clang")")
lld_link=$(command -v lld-link || echo "$llvm_bin/lld-link")
llvm_lib=$(command -v llvm-lib || echo "$llvm_bin/llvm-lib")
[ -x "$lld_link" ] || fail "lld-link is missing (apt-get install lld)"
[ -x "$llvm_lib" ] || fail "llvm-lib is missing (apt-get install llvm)"
dpkg -L libwine-dev >/dev/null 2>&1 || fail "libwine-dev is missing (scripts/ensure-port-deps.sh msvc)"
msvcrt=$(dirname "$(dpkg -L libwine-dev | grep '/msvcrt/stdio.h$')")
winh=$(dirname "$(dpkg -L libwine-dev | grep '/windows/windows.h$')")
wlib=$(dirname "$(dpkg -L libwine-dev | grep '/x86_64-windows/libucrtbase.a$')")
. "$src/tests/ports/wine_session.sh"
mkdir -p "$build/obj" "$build/bin"
msvc=$src/tests/ports/msvc
# MSVC 19.20 (clang 14's default, _MSC_VER 1920): from 19.25 on, clang 14
# puts MSVC's on-demand TLS initialization check (__tls_guard, a call to
# __dyn_tls_on_demand_init) before every access to an extern thread-local,
# C's too, which has no dynamic initialization (MSVC's C compiler checks
# nothing), and has no switch to leave it out: every event of the hot path
# would test a guard.
cf="--target=x86_64-pc-windows-msvc -fms-compatibility-version=19.20 -nostdinc
    -isystem $("$clang" -print-resource-dir)/include -isystem $msvcrt -isystem $winh
    -std=c11 -O2 -g -gcodeview -D_CRT_SECURE_NO_WARNINGS -Wall -Wextra -Werror -I$src/include
    -include $src/tests/ports/msvc/wine_crt_gaps.h"
# Programs (not the library) see the shims: pthread.h, clock_gettime, ...
prog="-I$msvc -include $msvc/msvc_posix.h"
log=$build/build.log
: >"$log"

# compile OUT_PREFIX EXTRA_FLAGS FILE...: one object per file, $JOBS at a time
compile() {
    prefix=$1 extra=$2
    shift 2
    for f in "$@"; do
        echo "$f"
    done | CLANG="$clang" CF="$cf $extra" OBJ="$build/obj/$prefix" xargs -P "$JOBS" -n 1 sh -c '
        o="$OBJ$(echo "$1" | sed "s|.*/src/||; s|.*/tests/||; s|.*/tools/||; s|.*/examples/||; s|/|_|g; s|\.c$|.obj|")"
        # shellcheck disable=SC2086
        "$CLANG" $CF -c "$1" -o "$o" >>"$o.log" 2>&1 || { cat "$o.log"; exit 255; }' _ ||
        fail "compiling $prefix (see above)"
}

lib_sources=$(ls "$src"/src/*/*.c | grep -v -e '/src/platform/linux' -e '/src/platform/posix' -e '/src/vulkan/' \
    -e '/src/backend/tracy\.c$')
# LUDUS_MSVC_KEEP_LIB=1 keeps the library of the last run (iterating on the programs)
if [ "${LUDUS_MSVC_KEEP_LIB:-0}" != 1 ] || [ ! -f "$build/ludus.lib" ]; then
    rm -f "$build"/obj/*.obj "$build"/obj/*.log
    compile lib_ "-DLUDUS__LIBRARY=1 -I$src/src" $lib_sources
    "$llvm_lib" /out:"$build/ludus.lib" "$build"/obj/lib_*.obj >>"$log" 2>&1 || fail "llvm-lib"
fi
rm -f "$build"/obj/[!l]*.obj "$build"/obj/[!l]*.log
"$clang" $cf -Wno-inconsistent-dllimport -c "$msvc/crt0.c" -o "$build/obj/crt0.obj" || fail "crt0.c"

# link OUT OBJ...: an .exe on the library, crt0 and Wine's import libraries
link() {
    out=$1
    shift
    "$lld_link" /nologo /out:"$out" /subsystem:console /entry:mainCRTStartup /debug "$@" "$build/ludus.lib" \
        "$build/obj/crt0.obj" "$wlib/libucrtbase.a" "$wlib/libkernel32.a" "$wlib/libadvapi32.a" /nodefaultlib >>"$log" 2>&1 ||
        { tail -20 "$log"; fail "linking $out"; }
}

compile trace_ "$prog -I$src/tools/ludus-trace" "$src"/tools/ludus-trace/*.c
link "$build/bin/ludus-trace.exe" "$build"/obj/trace_*.obj
compile demo_ "$prog" "$src/examples/demo.c"
link "$build/bin/ludus-demo.exe" "$build/obj/demo_demo.obj"
compile smoke_ "$prog -I$src/src" "$src/tests/ports/windows_smoke.c"
link "$build/bin/windows_smoke.exe" "$build/obj/smoke_ports_windows_smoke.obj"
compile live_ "$prog" "$src/tests/ports/windows_live.c"
link "$build/bin/windows_live.exe" "$build/obj/live_ports_windows_live.obj"
# the unit suite: tests/ports/CMakeLists.txt's list (one description)
units=$(sed -n '/^set(ludus_port_units/,/)/p' "$src/tests/ports/CMakeLists.txt" | tr -d '()' |
    sed 's/^set//; s/ludus_port_units//' | tr -s ' \n' ' ')
# (warnings not errors, as in the mingw-w64 port: cases Windows skips leave helpers unused)
ushim="$prog -I$src/tests/ports/shim -I$src/tests/unit -I$src/src -Wno-error"
compile util_ "$ushim" "$src/tests/unit/test_util.c"
for t in $units; do
    level=""
    [ "$t" = api ] && level="-DLUDUS_PROFILE_LEVEL=2"
    compile "unit_${t}_" "$ushim $level" "$src/tests/unit/test_$t.c"
    link "$build/bin/unit_$t.exe" "$build/obj/unit_${t}_unit_test_$t.obj" "$build/obj/util_unit_test_util.obj"
done
echo "built in MSVC mode: ludus.lib, ludus-trace.exe, ludus-demo.exe, windows_smoke.exe, windows_live.exe, $(echo $units | wc -w) unit programs"

out=$build/out
rm -rf "$out"
mkdir -p "$out"
check_json() { python3 "$src/tests/ports/check_trace_json.py" "$@" || fail "trace $1"; }
"$wine" "$build/bin/windows_smoke.exe" "$out" >"$out/smoke.txt" 2>&1 || { cat "$out/smoke.txt"; fail "windows_smoke.exe"; }
check_json "$out/smoke.json" WorkerScope MainScope
"$wine" "$build/bin/ludus-demo.exe" --frames 40 --trace "$out/demo.json" >"$out/demo.txt" 2>&1 ||
    { cat "$out/demo.txt"; fail "the demo"; }
check_json "$out/demo.json" Frame "Job: Animate"
"$wine" "$build/bin/ludus-trace.exe" info "$out/demo.ludus" >"$out/info.txt" || fail "ludus-trace info"
grep -q "Worker" "$out/info.txt" || { cat "$out/info.txt"; fail "ludus-trace info names no worker"; }
"$wine" "$build/bin/ludus-trace.exe" report "$out/demo.ludus" --top 5 >"$out/report.txt" || fail "ludus-trace report"
grep -q "Job: Animate" "$out/report.txt" || { cat "$out/report.txt"; fail "the report names no job"; }
LUDUS_TRACE="$out/launch.json" "$wine" "$build/bin/ludus-demo.exe" --frames 10 --no-capture >"$out/launch.txt" 2>&1 ||
    fail "the demo with LUDUS_TRACE"
check_json "$out/launch.json" Frame
mkdir -p "$out/rolling"
"$wine" "$build/bin/ludus-demo.exe" --frames 200 --hitch-ms 300 --rolling "$out/rolling" >"$out/rolling.txt" 2>&1 ||
    fail "the demo with the rolling window"
last=$(ls "$out/rolling" | grep -- '-hitch\.ludus$' | tail -1)
[ -n "$last" ] || { cat "$out/rolling.txt"; fail "the rolling window wrote no hitch file"; }
"$wine" "$build/bin/ludus-trace.exe" info "$out/rolling/$last" >"$out/rolling-info.txt" ||
    fail "ludus-trace info of a hitch file"
. "$src/tests/ports/check_live_windows.sh"
check_live_windows "$build/bin/windows_live.exe" "$build/bin/ludus-trace.exe" "$out/live"
n=0
for t in $units; do
    "$wine" "$build/bin/unit_$t.exe" >"$out/unit_$t.txt" 2>&1 || { cat "$out/unit_$t.txt"; fail "unit_$t under Wine"; }
    n=$((n + 1))
done
tests=$(cat "$out"/unit_*.txt | grep -c '^\[       OK \]')
echo "unit suite in MSVC mode under Wine: $n programs, $tests tests passed"
echo "ok: MSVC-ABI build under Wine: windows_smoke, the demo's trace read back by python3 and ludus-trace.exe, LUDUS_TRACE, the rolling window, the live view, the unit suite"
