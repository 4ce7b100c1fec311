#!/usr/bin/env bash
# What launch-to-exit tracing (LUDUS_TRACE) costs a short run: the demo with
# one frame and no capture of its own, 21 times each way (untraced, traced
# to .ludus, traced to .json), medians of the wall time.
# usage: bench/launch.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
demo=$build/examples/ludus-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median_ms() { # command... -> median wall ms of 21 runs
  for i in $(seq 21); do
    t0=$(date +%s%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s%N)
    echo $(((t1 - t0) / 1000))
  done | sort -n | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] / 1000 }'
}
plain=$(median_ms "$demo" --frames 1 --no-capture)
ludus=$(median_ms env LUDUS_TRACE="$tmp/run.ludus" "$demo" --frames 1 --no-capture)
json=$(median_ms env LUDUS_TRACE="$tmp/run.json" "$demo" --frames 1 --no-capture)
envonly=$(median_ms env "$demo" --frames 1 --no-capture)
echo "launch-to-exit, a 1-frame demo run (median of 21): untraced ${envonly} ms, LUDUS_TRACE=.ludus ${ludus} ms, .json ${json} ms (the demo alone: ${plain} ms)"
