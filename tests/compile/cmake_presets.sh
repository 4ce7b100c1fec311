#!/bin/sh
# CMakePresets.json cannot rot: cmake reads the whole file (every preset,
# the Windows ones too) and lists the ones for this host; the Windows
# presets are there by name; the Wine cross preset (clang-cl on Wine's
# MSVC-style headers, cmake/toolchains/x86_64-pc-windows-msvc-wine.cmake)
# configures with MSVC-style flags only and builds the static library.
# Skipped (77) without clang-cl, llvm-lib, lld-link, llvm-rc, ninja or libwine-dev.
# usage: cmake_presets.sh CMAKE SOURCE_DIR WORK_DIR
set -eu
cmake=$1 src=$2 work=$3
fail() { echo "FAIL: $*"; exit 1; }
cd "$src"
list=$("$cmake" --list-presets) || fail "cmake --list-presets: CMakePresets.json does not read"
echo "$list"
for p in default release asan wine-clang-cl; do
    echo "$list" | grep -q "\"$p\"" || fail "configure preset $p is not listed"
done
# The Windows presets show only on Windows (their condition): by name here.
python3 - "$src/CMakePresets.json" <<'PY' || fail "the Windows presets"
import json, sys
p = json.load(open(sys.argv[1]))
conf = {c["name"]: c for c in p["configurePresets"]}
build = {b["name"] for b in p["buildPresets"]}
assert conf["msvc-x64"]["generator"].startswith("Visual Studio"), "msvc-x64: the Visual Studio generator"
assert conf["clang-cl-x64"]["cacheVariables"]["CMAKE_C_COMPILER"] == "clang-cl", "clang-cl-x64: clang-cl"
for name in ("msvc-x64", "clang-cl-x64", "wine-clang-cl", "default", "release", "asan"):
    assert name in build, "no build preset " + name
PY
missing=""
for tool in clang-cl llvm-lib lld-link llvm-rc; do # what the toolchain file finds
    command -v $tool >/dev/null 2>&1 || command -v $tool-14 >/dev/null 2>&1 || missing="$missing $tool"
done
command -v ninja >/dev/null 2>&1 || missing="$missing ninja"
dpkg -L libwine-dev >/dev/null 2>&1 || missing="$missing libwine-dev"
if [ -n "$missing" ]; then
    echo "SKIP: the wine-clang-cl preset needs$missing (scripts/ensure-port-deps.sh msvc)"
    exit 77
fi
rm -rf "$work"
"$cmake" --preset wine-clang-cl -B "$work" >"$work.log" 2>&1 || { cat "$work.log"; fail "configuring wine-clang-cl"; }
grep -q '^CMAKE_C_COMPILER_FRONTEND_VARIANT:.*=MSVC' "$work/CMakeCache.txt" 2>/dev/null ||
    grep -q 'MSVC-like command-line' "$work.log" || fail "wine-clang-cl: the compiler is not MSVC-style"
cmds=$work/compile_commands.json
[ -f "$cmds" ] || fail "wine-clang-cl wrote no compile_commands.json"
line=$(grep -m1 '"command".*/src/base/' "$cmds") || fail "no library file in compile_commands.json"
for want in /W4 /WX; do
    echo "$line" | grep -q -- " $want " || { echo "$line"; fail "the library is compiled without $want"; }
done
for gnu in -Wall -Wextra -Werror -fvisibility -pthread; do
    ! grep -q -- " $gnu" "$cmds" || fail "a GNU-style flag in the MSVC-style build: $gnu"
done
"$cmake" --build "$work" --target ludus >>"$work.log" 2>&1 || { tail -40 "$work.log"; fail "building ludus.lib"; }
[ -f "$work/ludus.lib" ] || fail "no ludus.lib"
echo "ok: presets listed; wine-clang-cl configures MSVC-style (/W4 /WX, no GNU flag) and builds ludus.lib"
