#!/usr/bin/env bash
# Installs the Debian packages the build and tests need, when one is missing.
#   ensure-deps.sh         everything the tests need (with scripts/ensure-sql-deps.sh: node
#                          and the DuckDB package the sql test reads its export back with)
#   ensure-deps.sh build   only what a build needs (cmake, a C compiler, make)
set -euo pipefail
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v cc >/dev/null || need+=(gcc)
command -v make >/dev/null || need+=(make)
if [ "${1:-}" != build ]; then
  command -v c++ >/dev/null || need+=(g++)
  # The host's libraries, not only the headers: make test-aarch64 installs
  # the arm64 packages, whose headers are the same files.
  ma=$(cc -print-multiarch 2>/dev/null || true)
  [ -f /usr/include/cmocka.h ] && [ -e "/usr/lib/$ma/libcmocka.so" ] || need+=(libcmocka-dev)
  [ -f /usr/include/json-c/json.h ] && [ -e "/usr/lib/$ma/libjson-c.so" ] || need+=(libjson-c-dev)
  command -v protoc >/dev/null || need+=(protobuf-compiler)
  command -v clang >/dev/null || need+=(clang)
  ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need+=(libclang-rt-14-dev)
  command -v python3 >/dev/null || need+=(python3)
  command -v clang-format >/dev/null || need+=(clang-format)
  # the headers compiled as MSVC would (tests/compile/header_msvc.sh): Wine's MSVC-style C runtime headers
  [ -f /usr/include/wine/wine/msvcrt/stdio.h ] || need+=(libwine-dev)
  command -v valgrind >/dev/null || need+=(valgrind)
  command -v tmux >/dev/null || need+=(tmux) # the live screen's test (tests/live/check_live_tmux.py)
  command -v objdump >/dev/null || need+=(binutils)
  command -v pkg-config >/dev/null || need+=(pkg-config)
  # compressed .ludus blocks (LUDUS_ZSTD: optional, on where found; the tests check both paths)
  [ -f /usr/include/zstd.h ] && [ -e "/usr/lib/$ma/libzstd.so" ] || need+=(libzstd-dev)
  # ludus-trace sql (the tool only: the library never needs it)
  [ -f /usr/include/sqlite3.h ] && [ -e "/usr/lib/$ma/libsqlite3.so" ] || need+=(libsqlite3-dev)
fi
if [ ${#need[@]} -gt 0 ]; then
  echo "ludus: installing missing Debian packages: ${need[*]}"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq || echo "ludus: apt-get update failed; trying the package lists there are"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ "${1:-}" != build ]; then
  "$(dirname "${BASH_SOURCE[0]}")/ensure-sql-deps.sh"
fi
