# Cross build for AArch64 Linux with Debian's gcc-aarch64-linux-gnu; the
# foreign test libraries come from Debian's arm64 architecture
# (libcmocka-dev:arm64, libjson-c-dev:arm64), and ctest runs each test under
# qemu-user (make test-ports; scripts/ensure-port-deps.sh installs them).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# -L /: the arm64 libc of Debian's multiarch (libc6:arm64, which libcmocka-dev:arm64
# brings); threads hang at creation under qemu 7.2 with the older one of
# libc6-arm64-cross in /usr/aarch64-linux-gnu.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /)
