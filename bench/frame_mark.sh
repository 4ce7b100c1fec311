#!/usr/bin/env bash
# What a frame mark (LUDUS_PROFILE_FRAME, no counters) costs: instructions
# per mark from callgrind, idle and recording, and ns per mark timed.
# usage: bench/frame_mark.sh BUILD_DIR [MARKS]
set -euo pipefail
build=${1:-build}
marks=${2:-100000}
bin=$build/bench/bench_frame
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # mode function -> Ir inside function
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="$2" "$bin" --callgrind "$marks" "$1" >/dev/null 2>&1
  callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in idle recording; do
  f=$(count "$mode" run_frames)
  e=$(count "$mode" run_empty)
  awk -v f="$f" -v e="$e" -v n="$marks" -v m="$mode" \
    'BEGIN { printf "callgrind %-9s %.1f instructions per frame mark (%d marks)\n", m, (f - e) / n, n }'
done
"$bin" --time "$marks"
