#!/bin/sh
# Builds the project the ways packagers and users do, each from a clean tree:
#   1. every build type (Debug, Release, RelWithDebInfo, MinSizeRel) with gcc
#      and with clang, warnings as errors (LUDUS_WERROR=ON), tests and
#      benchmarks included; any warning in a build log fails (also one that
#      -Werror does not cover);
#   2. a configure that asks for nothing: the library, ludus-trace and the
#      demo are built, no test and no benchmark, and warnings are not errors;
#   3. the Tracy backend in Release (LUDUS_BACKEND=tracy), warnings as errors,
#      when Tracy's sources are there (LUDUS_TRACY_SRC, default
#      ../shared/third_party/tracy; CI must have them: LUDUS_CI=1).
# usage: check_build_types.sh SOURCE_DIR WORK_DIR
# LUDUS_BUILD_TYPES / LUDUS_BUILD_COMPILERS narrow the matrix ("Release",
# "clang"); JOBS sets the parallel jobs (default 2).
set -eu
src=$(cd "$1" && pwd)
work=$2
jobs=${JOBS:-2}
types=${LUDUS_BUILD_TYPES:-Debug Release RelWithDebInfo MinSizeRel}
compilers=${LUDUS_BUILD_COMPILERS:-gcc clang}
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*"; exit 1; }

# A clean build of one configuration; fails on an error or any warning.
build() { # NAME CMAKE_ARGS...
    name=$1
    shift
    dir=$work/$name
    rm -rf "$dir"
    start=$(date +%s)
    cmake -S "$src" -B "$dir" "$@" >"$dir.log" 2>&1 || { tail -30 "$dir.log"; fail "$name: configure"; }
    cmake --build "$dir" -j "$jobs" >>"$dir.log" 2>&1 || { grep -E "error|warning" "$dir.log" | head -30; fail "$name: build"; }
    if grep -E "warning:|Warning:" "$dir.log" | grep -v "^CMake Warning" >"$dir.warnings"; then
        head -20 "$dir.warnings"
        fail "$name: $(wc -l <"$dir.warnings") warning lines (see $dir.log)"
    fi
    echo "ok: $name ($(($(date +%s) - start)) s)"
}

for cc in $compilers; do
    case $cc in
    gcc) cxx=g++ ;;
    clang) cxx=clang++ ;;
    *) cxx=c++ ;;
    esac
    command -v "$cc" >/dev/null || fail "$cc is missing (make deps installs it)"
    for type in $types; do
        build "$cc-$type" -DCMAKE_BUILD_TYPE="$type" -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
            -DLUDUS_WERROR=ON -DLUDUS_BUILD_TESTS=ON -DLUDUS_BUILD_BENCH=ON
        rm -rf "$work/$cc-$type" # 2 x 4 trees of tests and benchmarks: keep the disk small
    done
done

# 2. What a packager's configure builds: no option given.
dir=$work/plain
build plain -DCMAKE_BUILD_TYPE=Release
[ -f "$dir/libludus.a" ] || fail "plain: no libludus.a"
[ -x "$dir/tools/ludus-trace/ludus-trace" ] || fail "plain: no ludus-trace"
[ -x "$dir/examples/ludus-demo" ] || fail "plain: no ludus-demo"
targets=$(cmake --build "$dir" --target help | awk '{print $2}')
for t in unit_scopes stress_pool bench_scope bench_export fuzz_capture_file; do
    ! echo "$targets" | grep -qx "$t" || fail "plain: a configure that asked for no tests or benchmarks has the target $t"
done
! grep -rq -- "-Werror" "$dir/CMakeFiles/ludus.dir/flags.make" || fail "plain: warnings are errors without LUDUS_WERROR"
steps=$(grep -c "Building C" "$dir.log" || true)
echo "ok: plain configure: the library, ludus-trace and the demo ($steps compile steps), no tests or benchmarks"
rm -rf "$dir"

# 3. The Tracy backend in Release.
tracy=${LUDUS_TRACY_SRC:-$(cd "$src/.." && pwd)/shared/third_party/tracy}
if [ -f "$tracy/public/TracyClient.cpp" ]; then
    build tracy-Release -DCMAKE_BUILD_TYPE=Release -DLUDUS_BACKEND=tracy -DLUDUS_TRACY_DIR="$tracy/public" \
        -DLUDUS_WERROR=ON -DLUDUS_BUILD_BENCH=ON
    rm -rf "$work/tracy-Release"
elif [ "${LUDUS_CI:-0}" = 1 ]; then
    fail "no Tracy sources at $tracy (set LUDUS_TRACY_SRC; CI must have them)"
else
    echo "SKIPPED: the Tracy backend (no Tracy sources at $tracy; set LUDUS_TRACY_SRC)"
fi
echo "ok: every build type with $compilers, the plain configure and the Tracy backend build warning-clean"
