#!/usr/bin/env bash
# Observer effect on the demo (seed gate G10), median over several alternating
# runs of 300 frames:
#   recording / idle          p99 and p50 frame time, capture on vs off (counters on in both)
#   counters+overlay / none   p99 and p50, no capture: counters, gauges, memory hooks and the
#                             overlay formatted every frame, against the demo without them
# usage: bench/observer.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
demo=$build/examples/ludus-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p99() { sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' | head -1; }
p50() { sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p' | tail -1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ratio() { printf '%s\n' "$@" | awk '{ printf "%.4f\n", $1 / $2 }' | median; }
rec99=() rec50=() ctr99=() ctr50=()
for i in $(seq 1 "$runs"); do
  idle=$("$demo" --frames 300 --no-capture | grep 'Frame time')
  rec=$("$demo" --frames 300 --trace "$tmp/t.json" | grep 'Frame time')
  bare=$("$demo" --frames 300 --no-capture --no-counters | grep 'Frame time')
  over=$("$demo" --frames 300 --no-capture --overlay | grep 'Frame time')
  rec99+=("$(echo "$rec" | p99) $(echo "$idle" | p99)")
  rec50+=("$(echo "$rec" | p50) $(echo "$idle" | p50)")
  ctr99+=("$(echo "$over" | p99) $(echo "$bare" | p99)")
  ctr50+=("$(echo "$over" | p50) $(echo "$bare" | p50)")
done
echo "observer: demo, 300 frames, median of $runs alternating runs"
echo "  p99 frame time recording / idle = $(ratio "${rec99[@]}") (target <= 1.02)"
echo "  p50 frame time recording / idle = $(ratio "${rec50[@]}")"
echo "  p99 frame time counters+overlay / without = $(ratio "${ctr99[@]}") (no capture)"
echo "  p50 frame time counters+overlay / without = $(ratio "${ctr50[@]}")"
