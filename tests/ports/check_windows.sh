#!/bin/sh
# Windows under Wine (make test-windows): the library, ludus-trace and the
# demo cross-built with mingw-w64, then
#   1. windows_smoke.exe: clock, threads, thread exit, export files (its checks)
#   2. the demo writes a trace (JSON and .ludus) that python3 and
#      ludus-trace.exe read back
#   3. LUDUS_TRACE: the demo without its own capture, traced from launch to exit
#   4. the demo built from the single file alone (scripts/amalgamate.py makes it), with mingw-w64
#   5. a crash (the demo's access violation): the capture written by the
#      unhandled-exception filter, read by ludus-trace.exe; two threads
#      crashing together: one whole capture (windows_crash_race.exe)
#   6. kill -9: the demo under LUDUS_TRACE_POOL killed, its pool file read
#      back by ludus-trace.exe recover
#   7. the live view between two processes (check_live_windows.sh:
#      windows_live.exe watched with LUDUS_LIVE=1, its own watcher and
#      ludus-trace.exe top and capture)
#   8. the unit suite (tests/ports/CMakeLists.txt: the tests Windows can run,
#      against the cmocka and json-c shims in tests/ports/shim)
# usage: check_windows.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1 build=$2
fail() { echo "FAIL: $*"; exit 1; }
. "$src/tests/ports/wine_session.sh"
mkdir -p "$build"
log=$build/build.log
cmake -S "$src" -B "$build" -DCMAKE_TOOLCHAIN_FILE="$src/cmake/toolchains/x86_64-w64-mingw32.cmake" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUDUS_WERROR=ON -DLUDUS_BUILD_TESTS=OFF -DLUDUS_BUILD_BENCH=OFF -DLUDUS_INSTALL=OFF \
    -DLUDUS_BUILD_PORT_TESTS=ON >"$log" 2>&1 || { cat "$log"; fail "configure"; }
cmake --build "$build" -j "${JOBS:-2}" >>"$log" 2>&1 || { tail -30 "$log"; fail "build"; }
out=$build/out
rm -rf "$out"
mkdir -p "$out"
# ludus-trace.exe finds libludus.dll and libludus_analysis.dll beside it
cp "$build/libludus.dll" "$build/libludus_analysis.dll" "$build/tools/ludus-trace/"

check_json() { python3 "$src/tests/ports/check_trace_json.py" "$@" || fail "trace $1"; }

"$wine" "$build/tests/ports/windows_smoke.exe" "$out" || fail "windows_smoke.exe"
check_json "$out/smoke.json" WorkerScope MainScope
ls -a "$out" | grep -q ludus-tmp && fail "a temporary was left behind"

"$wine" "$build/examples/ludus-demo.exe" --frames 40 --trace "$out/demo.json" >"$out/demo.txt" || fail "the demo"
check_json "$out/demo.json" Frame "Job: Animate"
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" info "$out/demo.ludus" >"$out/info.txt" || fail "ludus-trace info"
grep -q "Worker" "$out/info.txt" || { cat "$out/info.txt"; fail "ludus-trace info names no worker"; }

LUDUS_TRACE="$out/launch.json" "$wine" "$build/examples/ludus-demo.exe" --frames 10 --no-capture >"$out/launch.txt" 2>&1 ||
    fail "the demo with LUDUS_TRACE"
check_json "$out/launch.json" Frame
# the rolling window: a file per hitch (the demo injects one every 37 frames, 300 ms: a frame
# 2.5 x the median is a hitch, and a 6 ms one hid among a loaded machine's slow frames), read by ludus-trace.exe
rm -rf "$out/rolling" && mkdir -p "$out/rolling"
"$wine" "$build/examples/ludus-demo.exe" --frames 200 --hitch-ms 300 --rolling "$out/rolling" >"$out/rolling.txt" ||
    fail "the demo with the rolling window"
last=$(ls "$out/rolling" | grep -- '-hitch\.ludus$' | tail -1)
[ -n "$last" ] || { cat "$out/rolling.txt"; fail "the rolling window wrote no hitch file"; }
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" info "$out/rolling/$last" >"$out/rolling-info.txt" ||
    fail "ludus-trace info of a hitch file"
grep -q "Worker" "$out/rolling-info.txt" || { cat "$out/rolling-info.txt"; fail "the hitch file names no worker"; }
mkdir -p "$out/single"
python3 "$src/scripts/amalgamate.py" -o "$out/single/ludus_profiling.h" >/dev/null || fail "scripts/amalgamate.py"
sed -e '0,/^#include <ludus\/.*$/s//#define LUDUS_IMPLEMENTATION\n#include "ludus_profiling.h"/' \
    -e '/^#include <ludus\//d' "$src/examples/demo.c" >"$out/single/demo.c"
x86_64-w64-mingw32-gcc-posix -std=c11 -O2 -Wall -Wextra -Werror -Wno-format -D__USE_MINGW_ANSI_STDIO=1 \
    "$out/single/demo.c" -o "$out/single/demo.exe" -static -pthread || fail "the demo from the single file (mingw-w64)"
"$wine" "$out/single/demo.exe" --frames 20 --trace "$out/single.json" >"$out/single.txt" || fail "the single-file demo"
check_json "$out/single.json" Frame
# a crash: the demo writes to an unmapped address in frame 20, and the
# capture its filter wrote says so (Wine then hands the exception to its
# debugger, which ends the process with status 0: the status is not checked)
"$wine" "$build/examples/ludus-demo.exe" --frames 100 --crash-at-frame 20 --trace "$out/crash.ludus" \
    >"$out/crash.txt" 2>&1 || true
grep -q "Unhandled page fault" "$out/crash.txt" || { cat "$out/crash.txt"; fail "the demo did not crash on to the system"; }
[ -s "$out/crash.ludus" ] || { cat "$out/crash.txt"; fail "the crash wrote no capture"; }
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" info "$out/crash.ludus" >"$out/crash-info.txt" ||
    fail "ludus-trace info of the crash capture"
grep -q "ended by:    a crash, SIGSEGV" "$out/crash-info.txt" || { cat "$out/crash-info.txt"; fail "no crash in the capture"; }
grep -q "frames:      19 complete (a frame lies between two marks: 20 marks" "$out/crash-info.txt" || { cat "$out/crash-info.txt"; fail "not every frame before the crash"; }
# two threads crash together (after a barrier; the first to claim the
# write held by the crash path's seam until the second has crashed too, and
# past the timeout): one whole capture, in one of them, with both threads'
# events; one line saying where (windows_crash_race.c)
rm -f "$out/race.ludus"
"$wine" "$build/tests/ports/windows_crash_race.exe" "$out/race.ludus" >"$out/race.txt" 2>&1 || true
grep -q "Unhandled page fault" "$out/race.txt" || { cat "$out/race.txt"; fail "the two threads did not crash on to the system"; }
[ "$(grep -c 'the capture is in' "$out/race.txt")" = 1 ] || { cat "$out/race.txt"; fail "not one capture written for two crashes"; }
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" info "$out/race.ludus" >"$out/race-info.txt" ||
    { cat "$out/race.txt"; fail "ludus-trace info of the capture of two crashes"; }
crashed=$(sed -n 's/^ended by:    a crash, SIGSEGV (signal [0-9]*) in thread \([0-9]*\),.*/\1/p' "$out/race-info.txt")
[ -n "$crashed" ] || { cat "$out/race-info.txt"; fail "no crash in the capture of two crashes"; }
for who in 1 2; do
    grep -Eq "^  [0-9]+ +Crasher $who +2000 +0 +0 " "$out/race-info.txt" ||
        { cat "$out/race-info.txt"; fail "Crasher $who's 2000 events are not all in the capture"; }
done
grep -Eq "^  $crashed +Crasher [12] " "$out/race-info.txt" ||
    { cat "$out/race-info.txt"; fail "the crash is not in one of the crashing threads"; }
# kill -9: the pool is a file (a view of it is the file's pages), and what
# the demo recorded until the kill is read back
rm -f "$out/demo.pool" "$out/recovered.ludus"
LUDUS_TRACE="$out/never.ludus" LUDUS_TRACE_POOL="$out/demo.pool" "$wine" "$build/examples/ludus-demo.exe" \
    --frames 100000 --no-capture >"$out/pool.txt" 2>&1 &
demo_pid=$!
for _ in $(seq 100); do [ -s "$out/demo.pool" ] && break; sleep 0.1; done
sleep 1
kill -9 "$demo_pid"
wait "$demo_pid" 2>/dev/null || true
[ ! -e "$out/never.ludus" ] || fail "the killed demo wrote its capture"
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" recover "$out/demo.pool" "$out/recovered.ludus" >"$out/recover.txt" ||
    { cat "$out/recover.txt" "$out/pool.txt"; fail "ludus-trace.exe recover"; }
"$wine" "$build/tools/ludus-trace/ludus-trace.exe" info "$out/recovered.ludus" >"$out/recovered-info.txt" ||
    fail "ludus-trace info of the recovered capture"
grep -q "recovered from a pool file" "$out/recovered-info.txt" || { cat "$out/recovered-info.txt"; fail "not recovered"; }
grep -q "Worker" "$out/recovered-info.txt" || { cat "$out/recovered-info.txt"; fail "the recovered capture names no worker"; }
# the live view: two processes
. "$src/tests/ports/check_live_windows.sh"
check_live_windows "$build/tests/ports/windows_live.exe" "$build/tools/ludus-trace/ludus-trace.exe" "$out/live"
# the unit suite
units=0
for exe in "$build"/tests/ports/port_unit_*.exe; do
    name=$(basename "$exe" .exe)
    "$wine" "$exe" >"$out/$name.txt" 2>&1 || { cat "$out/$name.txt"; fail "$name under Wine"; }
    units=$((units + 1))
done
[ "$units" -ge 18 ] || fail "only $units unit test programs were built"
tests=$(cat "$out"/port_unit_*.txt | grep -c '^\[       OK \]')
echo "unit suite under Wine: $units programs, $tests tests passed"
echo "ok: under Wine, windows_smoke, the demo's trace read back by python3 and ludus-trace.exe, LUDUS_TRACE, the rolling window, the single-file demo, a crash, two threads crashing together, kill -9 with a pool file, the live view, the unit suite"
