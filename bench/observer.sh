#!/usr/bin/env bash
# Observer effect on the demo (seed gate G10): p99 frame time while recording
# divided by p99 while instrumented but idle, median over several alternating runs.
# usage: bench/observer.sh BUILD_DIR [RUNS]
set -euo pipefail
build=${1:-build}
runs=${2:-5}
demo=$build/examples/ludus-demo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
p99() { sed -n 's/.*p99 \([0-9.]*\) ms.*/\1/p' | head -1; }
p50() { sed -n 's/.*p50 \([0-9.]*\) ms.*/\1/p' | head -1; }
ratios99=() ratios50=()
for i in $(seq 1 "$runs"); do
  idle=$("$demo" --frames 300 --no-capture)
  rec=$("$demo" --frames 300 --trace "$tmp/t.json")
  ratios99+=("$(echo "$rec" | p99) $(echo "$idle" | p99)")
  ratios50+=("$(echo "$rec" | p50) $(echo "$idle" | p50)")
done
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
r99=$(printf '%s\n' "${ratios99[@]}" | awk '{ printf "%.4f\n", $1 / $2 }' | median)
r50=$(printf '%s\n' "${ratios50[@]}" | awk '{ printf "%.4f\n", $1 / $2 }' | median)
echo "observer: demo, 300 frames, median of $runs alternating runs"
echo "  p99 frame time recording / idle = $r99 (target <= 1.02)"
echo "  p50 frame time recording / idle = $r50"
