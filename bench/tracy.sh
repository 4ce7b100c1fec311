#!/usr/bin/env bash
# The Tracy backend's cost per scope (make bench-tracy): LUDUS_PROFILE_SCOPE
# built with -DLUDUS_BACKEND=tracy against Tracy's own TracyCZoneN and
# ZoneScopedN in the same process (bench/bench_tracy.c), in two Tracy builds:
#   attached   Tracy's default: every zone is queued and sent; timed while
#              tracy-capture is connected (it receives every zone)
#   on-demand  TRACY_ON_DEMAND, no viewer: a zone checks the connection and
#              sends nothing
#   noverify   attached, Tracy's client compiled with TRACY_NO_VERIFY (no check
#              item per C zone begin and end; LUDUS_TRACY_NO_VERIFY=ON)
# ns per scope (median of 7 runs of 100,000 scopes, each variant in turn,
# RUNS times) and instructions per scope (callgrind; the instructions on the
# instrumented thread do not depend on whether a viewer reads the queue, so
# "attached" is counted in the default build without one).
#
#   bench/tracy.sh SOURCE_DIR OUT_DIR   (OUT_DIR: make test-tracy's, with tools/)
set -euo pipefail
SRC=$(cd "$1" && pwd)
OUT=$(cd "$2" && pwd)
RUNS=${RUNS:-3}
TRACY=${LUDUS_TRACY_SRC:-$(cd "$SRC/.." && pwd)/shared/third_party/tracy}
[ -x "$OUT/tools/tracy-capture" ] || { echo "bench-tracy: no $OUT/tools/tracy-capture (make test-tracy builds it)" >&2; exit 1; }
export TRACY_NO_SYS_TRACE=1 TRACY_NO_INVARIANT_CHECK=1

for mode in attached ondemand noverify; do
  od=OFF nv=OFF
  [ $mode = ondemand ] && od=ON
  [ $mode = noverify ] && nv=ON
  cmake -S "$SRC" -B "$OUT/bench-$mode" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLUDUS_BACKEND=tracy \
    -DLUDUS_TRACY_DIR="$TRACY/public" -DLUDUS_TRACY_ON_DEMAND=$od -DLUDUS_TRACY_NO_VERIFY=$nv \
    -DLUDUS_BUILD_TOOLS=OFF -DLUDUS_BUILD_SHARED=OFF \
    -DLUDUS_INSTALL=OFF -DLUDUS_BUILD_BENCH=ON >/dev/null
  cmake --build "$OUT/bench-$mode" -j "${JOBS:-2}" --target bench_tracy >/dev/null
done

grep -m1 "model name" /proc/cpuinfo | sed 's/^.*: /cpu: /'
for run in $(seq "$RUNS"); do
  PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  timeout 120 "$OUT/tools/tracy-capture" -a 127.0.0.1 -p "$PORT" -o "$OUT/bench.tracy" -f >"$OUT/bench-capture.log" 2>&1 &
  cap=$!
  echo "run $run, attached (tracy-capture connected):"
  TRACY_PORT=$PORT TRACY_NO_EXIT=1 timeout 120 "$OUT/bench-attached/bench/bench_tracy" --wait-viewer
  wait $cap || { cat "$OUT/bench-capture.log" >&2; exit 1; }
  timeout 120 "$OUT/tools/tracy-capture" -a 127.0.0.1 -p "$PORT" -o "$OUT/bench.tracy" -f >"$OUT/bench-capture.log" 2>&1 &
  cap=$!
  echo "run $run, attached, Tracy's client with TRACY_NO_VERIFY (LUDUS_TRACY_NO_VERIFY=ON):"
  TRACY_PORT=$PORT TRACY_NO_EXIT=1 timeout 120 "$OUT/bench-noverify/bench/bench_tracy" --wait-viewer
  wait $cap || { cat "$OUT/bench-capture.log" >&2; exit 1; }
  echo "run $run, on-demand (TRACY_ON_DEMAND, no viewer):"
  timeout 120 "$OUT/bench-ondemand/bench/bench_tracy"
done

pairs=100000
count() { # build variant -> Ir inside run_<variant>
  valgrind --tool=callgrind --callgrind-out-file="$OUT/callgrind.out" --toggle-collect="run_$2" \
    "$OUT/bench-$1/bench/bench_tracy" --callgrind "$pairs" "$2" >/dev/null 2>&1
  callgrind_annotate "$OUT/callgrind.out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in attached noverify ondemand; do
  empty=$(count $mode empty)
  for v in ludus tracy_c tracy_cpp; do
    n=$(count $mode $v)
    awk -v s="$n" -v e="$empty" -v p="$pairs" -v m="$mode" -v v="$v" \
      'BEGIN { printf "callgrind %-8s %-9s %.1f instructions/scope\n", m, v, (s - e) / p }'
  done
done
