#!/bin/sh
# Another project consumes the library three ways, C only, and its program
# runs (a scope, a counter, frames, a capture written as JSON):
#   1. the installed package: cmake --install, then find_package(ludus CONFIG)
#   2. pkg-config and a plain Makefile, against the same installed tree
#   3. add_subdirectory of the source tree: only the library is added
# The installed ludus-trace runs from its own directory (its RPATH).
# usage: check_consume.sh SOURCE_DIR BUILD_DIR WORK_DIR
set -eu
src=$1 build=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
fail() { echo "FAIL: $*"; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$work/install.log" || fail "cmake --install"
for f in include/ludus/profiling.h lib/libludus.a lib/libludus.so.0 lib/pkgconfig/ludus.pc \
         lib/cmake/ludus/ludusConfig.cmake bin/ludus-trace; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
"$prefix/bin/ludus-trace" --help >/dev/null 2>&1 || fail "the installed ludus-trace does not run"

# 1. find_package
cmake -S "$src/tests/package/consumer" -B "$work/pkg" -DCMAKE_PREFIX_PATH="$prefix" >"$work/pkg.log" 2>&1 ||
    { cat "$work/pkg.log"; fail "find_package(ludus CONFIG) consumer: configure"; }
cmake --build "$work/pkg" >>"$work/pkg.log" 2>&1 || { cat "$work/pkg.log"; fail "find_package consumer: build"; }
"$work/pkg/consumer" "$work/pkg.json" || fail "find_package consumer: run"

# 2. pkg-config + make (the shared library, found at run time through LD_LIBRARY_PATH)
mkdir -p "$work/mk"
cp "$src/tests/package/consumer/main.c" "$src/tests/package/consumer/Makefile" "$work/mk/"
PKG_CONFIG_PATH="$prefix/lib/pkgconfig" make -C "$work/mk" >"$work/mk.log" 2>&1 ||
    { cat "$work/mk.log"; fail "pkg-config consumer: build"; }
LD_LIBRARY_PATH="$prefix/lib" "$work/mk/consumer" "$work/mk.json" || fail "pkg-config consumer: run"

# 3. add_subdirectory (the consumer's CMakeLists fails when more than the library is added)
cmake -S "$src/tests/package/consumer" -B "$work/sub" -DLUDUS_SUBPROJECT="$src" >"$work/sub.log" 2>&1 ||
    { cat "$work/sub.log"; fail "subproject consumer: configure"; }
cmake --build "$work/sub" -j 2 >>"$work/sub.log" 2>&1 || { cat "$work/sub.log"; fail "subproject consumer: build"; }
"$work/sub/consumer" "$work/sub.json" || fail "subproject consumer: run"
echo "ok: installed package, pkg-config and subproject consumers built and ran"
