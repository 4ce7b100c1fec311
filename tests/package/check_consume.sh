#!/bin/sh
# Another project consumes the library, C only, and its program runs (a
# scope, a counter, frames, a capture written as JSON), and each way of
# linking it also traces launch to exit (LUDUS_TRACE, no capture of the
# program's own: consumer --launch):
#   1. the installed package: cmake --install, then find_package(ludus CONFIG)
#      and ludus::ludus (static)
#   2. pkg-config and a plain Makefile, against the same installed tree:
#      ludus.pc (static: runs with nothing on LD_LIBRARY_PATH) and
#      ludus-shared.pc (libludus.so, found through the rpath it gives)
#   3. a bare libludus.a named in the Makefile, no pkg-config
#   4. add_subdirectory of the source tree: only the library is added
# A static link whose files all say LUDUS_NO_LAUNCH has no launch code: under
# LUDUS_TRACE it says so on stderr. The installed ludus-trace runs from its
# own directory (its RPATH). Every JSON trace passes trace_json.py's check.
# usage: check_consume.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -eu
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
# the soname's version: major.minor before 1.0, the major after (CMakeLists.txt)
ver=$(sed -n 's/^#define LUDUS_VERSION_STRING "\([0-9.]*\)"$/\1/p' "$src/include/ludus/capture.h")
sover=$(echo "$ver" | awk -F. '{print ($1 == 0) ? $1 "." $2 : $1}')
fail() { echo "FAIL: $*"; exit 1; }
check_json() { python3 "$src/tests/format/trace_json.py" "$@" >/dev/null || { python3 "$src/tests/format/trace_json.py" "$@"; fail "trace $*"; }; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install"
for f in include/ludus/profiling.h lib/libludus.a lib/libludus.so.$sover lib/pkgconfig/ludus.pc \
         lib/pkgconfig/ludus-shared.pc lib/cmake/ludus/ludusConfig.cmake bin/ludus-trace \
         lib/libludus_analysis.a lib/libludus_analysis.so.$sover lib/pkgconfig/ludus-analysis.pc \
         lib/pkgconfig/ludus-analysis-shared.pc; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
"$prefix/bin/ludus-trace" --help >/dev/null 2>&1 || fail "the installed ludus-trace does not run"

# PROGRAM NAME: runs it under LUDUS_TRACE (nothing on LD_LIBRARY_PATH) and
# checks the trace it leaves.
launch() {
    trace=$work/$2-launch.json
    rm -f "$trace"
    env -u LD_LIBRARY_PATH LUDUS_TRACE="$trace" "$1" --launch >"$work/$2-launch.out" 2>"$work/$2-launch.err" ||
        { cat "$work/$2-launch.err"; fail "$2: the program does not run under LUDUS_TRACE"; }
    [ -s "$trace" ] || { cat "$work/$2-launch.err"; fail "$2: LUDUS_TRACE wrote nothing"; }
    grep -q "ludus: wrote $trace" "$work/$2-launch.err" || fail "$2: no exit line: $(cat "$work/$2-launch.err")"
    check_json "$trace"
    python3 - "$trace" "$2" <<'EOF' || fail "$2: the LUDUS_TRACE trace"
import json, sys
d = json.load(open(sys.argv[1]))
names = [e.get("name") for e in d["traceEvents"]]
assert names.count("work") == 5 and names.count("Fine") == 5, (sys.argv[2], names.count("work"))
EOF
}

# 1. find_package
cmake -S "$src/tests/package/consumer" -B "$work/pkg" -DCMAKE_PREFIX_PATH="$prefix" >"$work/pkg.log" 2>&1 ||
    { cat "$work/pkg.log"; fail "find_package(ludus CONFIG) consumer: configure"; }
cmake --build "$work/pkg" >>"$work/pkg.log" 2>&1 || { cat "$work/pkg.log"; fail "find_package consumer: build"; }
"$work/pkg/consumer" "$work/pkg.json" || fail "find_package consumer: run"
check_json "$work/pkg.json"
launch "$work/pkg/consumer" cmake-static
"$work/pkg/analysis" "$work/pkg-analysis.ludus" >/dev/null || fail "find_package consumer of ludus::analysis: run"

# 2. pkg-config + make: static by default, the shared library through its rpath
mkdir -p "$work/mk" "$work/mk-shared"
cp "$src/tests/package/consumer/main.c" "$src/tests/package/consumer/Makefile" "$work/mk/"
cp "$src/tests/package/consumer/main.c" "$src/tests/package/consumer/Makefile" "$work/mk-shared/"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C "$work/mk" >"$work/mk.log" 2>&1 ||
    { cat "$work/mk.log"; fail "pkg-config consumer: build"; }
! ldd "$work/mk/consumer" | grep -q libludus || fail "pkg-config's ludus linked the shared library: $(ldd "$work/mk/consumer")"
env -u LD_LIBRARY_PATH "$work/mk/consumer" "$work/mk.json" || fail "pkg-config consumer: run"
check_json "$work/mk.json"
launch "$work/mk/consumer" pkgconfig-static
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C "$work/mk-shared" PKG=ludus-shared >"$work/mk-shared.log" 2>&1 ||
    { cat "$work/mk-shared.log"; fail "pkg-config ludus-shared consumer: build"; }
ldd "$work/mk-shared/consumer" | grep -q "libludus.so.$sover => $prefix/lib/" ||
    fail "ludus-shared.pc: libludus.so.$sover not found through the rpath: $(ldd "$work/mk-shared/consumer")"
env -u LD_LIBRARY_PATH "$work/mk-shared/consumer" "$work/mk-shared.json" || fail "pkg-config ludus-shared consumer: run"
launch "$work/mk-shared/consumer" pkgconfig-shared
for an in ludus-analysis ludus-analysis-shared; do
    cp "$src/tests/package/consumer/analysis.c" "$work/mk/"
    rm -f "$work/mk/analysis"
    PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C "$work/mk" analysis AN=$an >"$work/mk-$an.log" 2>&1 ||
        { cat "$work/mk-$an.log"; fail "pkg-config $an consumer: build"; }
    case $an in
    *-shared) ldd "$work/mk/analysis" | grep -q "libludus_analysis.so.$sover => $prefix/lib/" ||
        fail "$an.pc: libludus_analysis.so.$sover not found through the rpath: $(ldd "$work/mk/analysis")" ;;
    *) ! ldd "$work/mk/analysis" | grep -q libludus || fail "$an.pc linked a shared library: $(ldd "$work/mk/analysis")" ;;
    esac
    env -u LD_LIBRARY_PATH "$work/mk/analysis" "$work/mk-$an.ludus" >/dev/null || fail "pkg-config $an consumer: run"
done

# 3. a bare libludus.a, named by hand
mkdir -p "$work/bare"
cp "$src/tests/package/consumer/main.c" "$src/tests/package/consumer/Makefile" "$work/bare/"
# a LUDUS_ZSTD build's archive needs libzstd too: what its ludus.pc says
extra=$(grep -o ' -lzstd' "$prefix/lib/pkgconfig/ludus.pc" || true)
make -C "$work/bare" LUDUS="$prefix" LUDUS_EXTRA_LIBS="$extra" >"$work/bare.log" 2>&1 || { cat "$work/bare.log"; fail "bare libludus.a: build"; }
launch "$work/bare/consumer" bare-archive
# ... and one that asked for no launch code: it says so
cc -std=c11 -O2 -DLUDUS_PROFILE_LEVEL=2 -DLUDUS_NO_LAUNCH -I"$prefix/include" "$src/tests/package/consumer/main.c" \
    "$prefix/lib/libludus.a" -lpthread -lm $extra -o "$work/bare/no-launch" || fail "LUDUS_NO_LAUNCH: build"
LUDUS_TRACE="$work/no-launch.json" "$work/bare/no-launch" --launch >/dev/null 2>"$work/no-launch.err" ||
    fail "LUDUS_NO_LAUNCH: run"
[ ! -e "$work/no-launch.json" ] || fail "LUDUS_NO_LAUNCH: a trace was written"
grep -q "ludus: LUDUS_TRACE=$work/no-launch.json is set, but this program was linked without the library's launch-to-exit code" \
    "$work/no-launch.err" || fail "LUDUS_NO_LAUNCH: not said on stderr: $(cat "$work/no-launch.err")"

# 4. add_subdirectory (the consumer's CMakeLists fails when more than the library is added)
cmake -S "$src/tests/package/consumer" -B "$work/sub" -DLUDUS_SUBPROJECT="$src" >"$work/sub.log" 2>&1 ||
    { cat "$work/sub.log"; fail "subproject consumer: configure"; }
cmake --build "$work/sub" -j 2 >>"$work/sub.log" 2>&1 || { cat "$work/sub.log"; fail "subproject consumer: build"; }
"$work/sub/consumer" "$work/sub.json" || fail "subproject consumer: run"
launch "$work/sub/consumer" subproject
echo "ok: installed package (ludus::ludus), pkg-config (ludus static, ludus-shared with its rpath), a bare" \
    "libludus.a and a subproject consumer built and ran, each traced under LUDUS_TRACE; LUDUS_NO_LAUNCH said so"
