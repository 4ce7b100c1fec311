#!/usr/bin/env bash
# Installs the Debian packages the ports' tests need (make test-ports), when
# one is missing:
#   ensure-port-deps.sh aarch64   the cross compiler, qemu-user, and cmocka and
#                                 json-c of Debian's arm64 architecture (added
#                                 with dpkg --add-architecture arm64)
#   ensure-port-deps.sh windows   mingw-w64 (POSIX threads) and Wine
#   ensure-port-deps.sh msvc      clang in MSVC mode, lld-link and llvm-lib,
#                                 Wine and its MSVC-style headers and import
#                                 libraries (libwine-dev)
#   ensure-port-deps.sh musl      musl-gcc (musl-tools)
#   ensure-port-deps.sh tracy     g++, capstone and zstd: what Tracy's
#                                 tracy-capture and tracy-csvexport need
#                                 (make test-tracy builds them)
set -euo pipefail
need=()
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
case "${1:-}" in
aarch64)
  command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
  # The C library's start files and headers are only a Recommends of the
  # cross compiler: --no-install-recommends leaves them out.
  [ -e /usr/aarch64-linux-gnu/lib/crt1.o ] || need+=(libc6-dev-arm64-cross)
  command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "ludus: adding Debian's arm64 architecture (dpkg --add-architecture arm64)"
    $SUDO dpkg --add-architecture arm64
  fi
  [ -e /usr/lib/aarch64-linux-gnu/libcmocka.so ] || need+=(libcmocka-dev:arm64)
  [ -e /usr/lib/aarch64-linux-gnu/libjson-c.so ] || need+=(libjson-c-dev:arm64)
  ;;
windows)
  command -v x86_64-w64-mingw32-gcc-posix >/dev/null || need+=(gcc-mingw-w64-x86-64-posix)
  [ -x /usr/lib/wine/wine64 ] || need+=(wine64)
  ;;
msvc)
  command -v clang >/dev/null || need+=(clang)
  command -v lld-link >/dev/null || need+=(lld)
  ls /usr/lib/llvm-*/bin/llvm-lib >/dev/null 2>&1 || command -v llvm-lib >/dev/null || need+=(llvm)
  [ -x /usr/lib/wine/wine64 ] || need+=(wine64)
  [ -f /usr/include/wine/wine/msvcrt/stdio.h ] || need+=(libwine-dev)
  ;;
musl)
  command -v musl-gcc >/dev/null || need+=(musl-tools)
  ;;
tracy)
  command -v g++ >/dev/null || need+=(g++)
  [ -e /usr/include/capstone/capstone.h ] || need+=(libcapstone-dev)
  [ -e /usr/include/zstd.h ] || need+=(libzstd-dev)
  ;;
*)
  echo "usage: ensure-port-deps.sh aarch64|windows|msvc|musl|tracy" >&2
  exit 2
  ;;
esac
if [ ${#need[@]} -gt 0 ]; then
  echo "ludus: installing missing Debian packages: ${need[*]}"
  $SUDO apt-get update -qq || echo "ludus: apt-get update failed; trying the package lists there are"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
