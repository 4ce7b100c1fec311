# The MSVC-ABI build of tests/ports/check_msvc.sh (make test-msvc) through
# CMake, on Linux: clang-cl (clang's MSVC driver: _MSC_VER, MSVC's ABI and
# command line) against the MSVC-style C runtime and Windows headers of
# Debian's libwine-dev, archived by llvm-lib. The static libraries only
# (ludus, ludus_analysis): a program needs the start-up object
# check_msvc.sh builds (tests/ports/msvc/crt0.c), which this build does not.
#   cmake --preset wine-clang-cl   (CMakePresets.json), or
#   cmake -S . -B build-msvc-cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/x86_64-pc-windows-msvc-wine.cmake
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR AMD64)

find_program(LUDUS_CLANG_CL NAMES clang-cl clang-cl-14 REQUIRED)
find_program(LUDUS_LLVM_LIB NAMES llvm-lib llvm-lib-14 REQUIRED)
find_program(LUDUS_LLD_LINK NAMES lld-link lld-link-14 REQUIRED)
find_program(LUDUS_LLVM_RC NAMES llvm-rc llvm-rc-14 REQUIRED)
find_program(LUDUS_LLVM_MT NAMES llvm-mt llvm-mt-14)
set(CMAKE_C_COMPILER ${LUDUS_CLANG_CL})
set(CMAKE_CXX_COMPILER ${LUDUS_CLANG_CL})
set(CMAKE_AR ${LUDUS_LLVM_LIB})
set(CMAKE_LINKER ${LUDUS_LLD_LINK})
set(CMAKE_RC_COMPILER ${LUDUS_LLVM_RC})
if(LUDUS_LLVM_MT)
  set(CMAKE_MT ${LUDUS_LLVM_MT})
endif()

# Wine's headers, found as check_msvc.sh finds them (dpkg -L libwine-dev).
if(NOT LUDUS_WINE_MSVCRT_INCLUDE OR NOT LUDUS_WINE_WINDOWS_INCLUDE)
  execute_process(COMMAND dpkg -L libwine-dev OUTPUT_VARIABLE ludus_wine_files RESULT_VARIABLE ludus_dpkg_rc
                  ERROR_QUIET)
  if(NOT ludus_dpkg_rc EQUAL 0)
    message(FATAL_ERROR "x86_64-pc-windows-msvc-wine: libwine-dev is missing (scripts/ensure-port-deps.sh msvc)")
  endif()
  string(REGEX MATCH "[^\n]*/msvcrt/stdio\\.h" ludus_stdio "${ludus_wine_files}")
  string(REGEX MATCH "[^\n]*/windows/windows\\.h" ludus_windows "${ludus_wine_files}")
  get_filename_component(ludus_msvcrt "${ludus_stdio}" DIRECTORY)
  get_filename_component(ludus_winh "${ludus_windows}" DIRECTORY)
  set(LUDUS_WINE_MSVCRT_INCLUDE ${ludus_msvcrt} CACHE PATH "Wine's MSVC-style C runtime headers")
  set(LUDUS_WINE_WINDOWS_INCLUDE ${ludus_winh} CACHE PATH "Wine's Windows headers")
endif()

# As check_msvc.sh: _MSC_VER 1920 (from 19.25 on, clang 14 puts a TLS
# initialization guard before every access to an extern thread-local, C's
# too: see check_msvc.sh), no INCLUDE from the environment (/X), Wine's
# folders as system headers (/imsvc), and wine_crt_gaps.h for what Wine's
# runtime headers leave out of MSVC's (a real MSVC build needs none of it).
get_filename_component(ludus_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)
set(ludus_flags
    "-fms-compatibility-version=19.20 /X /imsvc ${LUDUS_WINE_MSVCRT_INCLUDE} /imsvc ${LUDUS_WINE_WINDOWS_INCLUDE} /FI ${ludus_root}/tests/ports/msvc/wine_crt_gaps.h"
)
set(CMAKE_C_FLAGS_INIT "${ludus_flags}")
set(CMAKE_CXX_FLAGS_INIT "${ludus_flags}")
# CMake's compiler checks link no program (there is no start-up object).
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
# The static libraries only (see above); a cache value set here is the
# default the project's option() keeps.
set(LUDUS_BUILD_TOOLS OFF CACHE BOOL "Build ludus-trace and the demo")
set(LUDUS_BUILD_SHARED OFF CACHE BOOL "Build libludus.so too (ludus-trace uses it)")
# With no link, FindThreads' checks would "find" a pthreads library: the
# library uses Windows' own threads under _MSC_VER (src/platform/sync.h).
foreach(ludus_check CMAKE_HAVE_LIBC_PTHREAD CMAKE_HAVE_PTHREADS_CREATE CMAKE_HAVE_PTHREAD_CREATE THREADS_HAVE_PTHREAD_ARG)
  set(${ludus_check} 0 CACHE INTERNAL "x86_64-pc-windows-msvc-wine: no pthreads")
endforeach()
