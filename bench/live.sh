#!/usr/bin/env bash
# The live view's cost to the frame thread (docs/live.md), from callgrind:
# instructions per scope, per frame mark and per frame (16 scopes, a count,
# a mark) with no live view, with LUDUS_LIVE and nobody watching, and
# watched (a watcher asking for top scopes: the library records a rolling
# window). The main thread's count only (--separate-threads): the library's
# own thread is reported apart.
# usage: bench/live.sh BUILD_DIR [N]
set -euo pipefail
build=${1:-build}
n=${2:-200000}
bin=$build/bench/bench_live
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # mode function -> Ir of the main thread inside function
  rm -f "$tmp"/out*
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$tmp/out" --toggle-collect="$2" \
    "$bin" "$n" "$1" >/dev/null 2>&1
  callgrind_annotate "$tmp/out-01" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in idle live watched; do
  s=$(count "$mode" run_scopes)
  m=$(count "$mode" run_marks)
  f=$(count "$mode" run_frames)
  z=$(count "$mode" run_naps)
  awk -v s="$s" -v m="$m" -v f="$f" -v z="$z" -v n="$n" -v mode="$mode" 'BEGIN {
    printf "callgrind %-8s %6.2f instructions/scope  %7.1f /frame mark  %8.1f /frame (16 scopes, a count, a mark)\n",
      mode, s / (2 * n), m / n, (f - z) / (n / 100) }'
done
