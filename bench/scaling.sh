#!/bin/sh
# Producers against the floor and spall: bench/bench_scaling.c.
#   bench/scaling.sh BUILD [SPALL_H] [ROUNDS] [N]
# SPALL_H: spall.h (github.com/colrdavidson/spall-web), fetched by you; it is
# compiled into the benchmark only, never kept in this tree.
set -e
build=${1:-build}
spall=${2:-}
if [ -n "$spall" ]; then
  cmake -S . -B "$build" -DLUDUS_BENCH_SPALL_H="$(realpath "$spall")" >/dev/null
else
  cmake -S . -B "$build" -ULUDUS_BENCH_SPALL_H >/dev/null
fi
cmake --build "$build" --target bench_scaling -j 2 >/dev/null
grep -m1 "model name" /proc/cpuinfo
"$build/bench/bench_scaling" "${3:-15}" "${4:-1000000}"
