#!/usr/bin/env bash
# Instructions per scope (idle, recording, refused by a full pool) and per
# exported event, from callgrind (repeatable, unlike time on a shared VM).
# usage: bench/callgrind.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
bin=$build/bench/bench_callgrind
pairs=100000
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
count() { # mode function -> Ir inside function
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="$2" "$bin" "$pairs" "$1" >/dev/null 2>&1
  callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in idle recording dropping flight; do
  scopes=$(count "$mode" run_scopes)
  empty=$(count "$mode" run_empty)
  awk -v s="$scopes" -v e="$empty" -v p="$pairs" -v m="$mode" \
    'BEGIN { printf "callgrind %-9s %.2f instructions/scope (loop overhead %.2f/pair subtracted; %d scopes)\n", m, (s - e) / (2 * p), e / p, 2 * p }'
done
# Zones with a context (LUDUS_ZONE_BEGIN/END), spans (LUDUS_PROFILE_BEGIN/END)
# and Tracy's TracyCZoneN / TracyCZoneEnd through include/tracy-compat, the
# same two levels as run_scopes; an inactive Tracy zone (active 0);
# TracyCAlloc + TracyCFree by pointer.
for mode in idle recording; do
  empty=$(count "$mode" run_empty)
  scope=$(count "$mode" run_scopes)
  for fn in run_zones run_spans run_tracy_zones run_tracy_inactive; do
    n=$(count "$mode" "$fn")
    awk -v s="$scope" -v z="$n" -v e="$empty" -v p="$pairs" -v m="$mode" -v f="$fn" \
      'BEGIN { printf "callgrind %-9s %-18s %.2f instructions/zone (scope %.2f, %+.1f %%)\n", m, f, (z - e) / (2 * p), (s - e) / (2 * p), (s > e ? 100 * (z - s) / (s - e) : 0) }'
  done
  n=$(count "$mode" run_tracy_memory)
  awk -v s="$n" -v e="$empty" -v p="$pairs" -v m="$mode" \
    'BEGIN { printf "callgrind %-9s %.2f instructions per TracyCAlloc+TracyCFree pair\n", m, (s - e) / p }'
done
# Counters are always on: the same with or without a capture.
for fn in run_counts run_gauges run_memory; do
  for mode in idle recording; do
    n=$(count "$mode" "$fn")
    empty=$(count "$mode" run_empty)
    awk -v s="$n" -v e="$empty" -v p="$pairs" -v m="$mode" -v f="$fn" \
      'BEGIN { what = f == "run_counts" ? "COUNT" : f == "run_gauges" ? "GAUGE (in range)" : "memory alloc+free pair"; printf "callgrind %-9s %.2f instructions per %s\n", m, (s - e) / p, what }'
  done
done
# Export: instructions per event of the JSON and Perfetto exporters (the
# normalised stream included), on a 1 M-event capture of each workload.
for fmt in json pftrace; do
  for wl in mixed scopes; do
    valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="ludus__export_$fmt" \
      "$build/bench/bench_export" 1 "$tmp" "$fmt" "$wl" >"$tmp/log" 2>/dev/null
    ir=$(callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}')
    ev=$(awk '{print $2}' "$tmp/log")
    awk -v i="$ir" -v e="$ev" -v f="$fmt" -v w="$wl" \
      'BEGIN { printf "callgrind export %-7s %-6s %.0f instructions/event (%d events)\n", f, w, i / e, e }'
  done
done
# Lock waits: instructions per uncontended lock + unlock pair, pthread alone
# and through LUDUS_PROFILE_MUTEX_LOCK (inline try-lock first), without and
# with a capture (the wrapper's uncontended path never reads its state).
lockcount() { # mode fn -> Ir inside run_<fn>
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="run_$2*" \
    "$build/bench/bench_lock" --callgrind "$pairs" "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in idle recording; do
  plain=$(lockcount "$mode" plain)
  wrapped=$(lockcount "$mode" wrapped)
  empty=$(lockcount "$mode" empty)
  awk -v p="$plain" -v w="$wrapped" -v e="$empty" -v n="$pairs" -v m="$mode" \
    'BEGIN { printf "callgrind %-9s uncontended lock+unlock: pthread %.2f, LUDUS_PROFILE_MUTEX_LOCK %.2f instructions per pair (%+.2f)\n", m, (p - e) / n, (w - e) / n, (w - p) / n }'
done
# The rest of the timeline: instructions per operation (a message, an async
# zone's begin + end, a fiber's enter + leave), idle and recording.
tlcount() { # mode fn -> Ir inside run_<fn>
  valgrind --tool=callgrind --callgrind-out-file="$tmp/out" --toggle-collect="run_$2" \
    "$build/bench/bench_timeline" --callgrind "$pairs" "$1" "$2" >/dev/null 2>&1
  callgrind_annotate "$tmp/out" 2>/dev/null | awk '/PROGRAM TOTALS/ && !n++ {gsub(",","",$1); print $1}'
}
for mode in idle recording; do
  empty=$(tlcount "$mode" empty)
  for fn in scope message log_text log log_deferred async fiber; do
    n=$(tlcount "$mode" "$fn")
    awk -v s="$n" -v e="$empty" -v p="$pairs" -v m="$mode" -v f="$fn" \
      'BEGIN { printf "callgrind %-9s %-9s %.1f instructions per operation\n", m, f, (s - e) / p }'
  done
done
