#!/usr/bin/env bash
# The overlay's top scopes under callgrind: instructions of one
# ludus_overlay_top_scopes call on a fresh rolling snapshot (it prepares
# the capture) and of a second call on the same snapshot, per event and per
# frame of the window, for windows of 240 frames (4 s at 60 fps) and 1,500
# (4 s at the demo's ~380 fps).
# usage: bench/top_scopes.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
bin=$build/bench/bench_top_scopes
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for frames in 240 1500; do
  for fn in first_call again_call; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="$fn" "$bin" --frames "$frames" --runs 1 >"$tmp/log" 2>/dev/null
    ir=$(callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}')
    ev=$(awk '/^window:/ {print $4}' "$tmp/log")
    awk -v i="$ir" -v e="$ev" -v f="$frames" -v fn="$fn" \
      'BEGIN { printf "callgrind top scopes %-10s %5d frames, %7d events: %10.0f instructions (%.0f per event, %.0f per frame)\n", fn, f, e, i, i / e, i / f }'
  done
done
