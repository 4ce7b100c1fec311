#!/usr/bin/env bash
# make bench: every benchmark, each printing ratios measured in its own run.
# usage: bench/run.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
echo "== $(date -u +%Y-%m-%dT%H:%MZ) $(git -C "$here/.." rev-parse --short HEAD 2>/dev/null) $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
"$build/bench/bench_scope" --runs 5
echo "-- the same, linked against the shared library (libludus.so):"
"$build/bench/bench_scope_shared" --runs 5
echo "-- monotonic clock instead of the TSC:"
"$build/bench/bench_scope" --runs 3 --monotonic --pairs 200000
"$build/bench/bench_end" --runs 20
"$build/bench/bench_end" --runs 20 --flooding
"$build/bench/bench_counter" --runs 5
"$build/bench/bench_lock" --runs 11 --ops 10000000
"$build/bench/bench_start"
"$here/launch.sh" "$build"
"$here/text_size.sh"
"$here/observer.sh" "$build" 5
for b in bench_export bench_report; do
  [ -x "$build/bench/$b" ] && "$build/bench/$b"
done
"$here/callgrind.sh" "$build"
