#!/bin/sh
# Every ludus-trace verb over a long session (issue 38; bench/RESULTS.md,
# "Long sessions: the tools"): the synthetic engine (bench/long_session.c:
# a frame thread with 16 scopes a frame nested 4 deep, a gauge, 2 workers
# with short jobs; about 66 events a frame) recorded at each EVENTS count
# with a pool that keeps every event, twice (the second run for `diff`),
# then each tool on the file: wall seconds, events per second of wall time,
# peak RSS (/usr/bin/time -f %M), and the size of what it wrote. The
# machine's load is printed first and last: wall times are only comparable
# within one run.
#   bench/long_session.sh BUILD_DIR EVENTS...   (default 10000000)
#   LONG_SESSION_DIR=DIR keeps the files there (default: a temporary, removed)
#   LONG_SESSION_STREAM=1 records them streamed (bench/long_session.c)
set -eu
B=$1
shift
[ $# -gt 0 ] || set -- 10000000
T=$B/tools/ludus-trace/ludus-trace
E=$B/bench/long_session
for x in "$T" "$E" /usr/bin/time; do
  [ -x "$x" ] || { echo "long_session.sh: $x is missing (build with TESTS=ON; /usr/bin/time)" >&2; exit 1; }
done
if [ -n "${LONG_SESSION_DIR:-}" ]; then
  W=$LONG_SESSION_DIR
  mkdir -p "$W"
else
  W=$(mktemp -d)
  trap 'rm -rf "$W"' EXIT
fi
echo "machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo); load $(cut -d' ' -f1-3 /proc/loadavg)"

# run NAME EVENTS OUTPUT CMD...: one line of the table (OUTPUT: what the
# tool writes, measured then removed; - for none)
run() {
  name=$1 n_events=$2 out=$3 # not ev: sh has no locals, and ev is the file's count below
  shift 3
  if /usr/bin/time -f '%e %M' -o "$W/time" "$@" >"$W/stdout" 2>"$W/stderr"; then status=ok; else status="FAILED rc=$?"; fi
  read -r wall rss <"$W/time" || { wall=0 rss=0; status="FAILED ($(tail -1 "$W/time"))"; }
  size=-
  if [ "$out" != - ] && [ -e "$out" ]; then size=$(du -sk "$out" | cut -f1)KiB; fi
  awk -v n="$name" -v w="$wall" -v r="$rss" -v e="$n_events" -v s="$size" -v st="$status" 'BEGIN {
    printf "  %-28s %8.2f s %9.1f M events/s %9.1f MiB peak RSS  out %-12s %s\n", n, w, (w > 0 ? e / w / 1e6 : 0), r / 1024, s, st }'
  [ "$status" = ok ] || sed -n 1,3p "$W/stderr" | sed 's/^/    /'
  [ "$out" = - ] || rm -rf "$out"
}

for N in "$@"; do
  echo "== $N events"
  "$E" "$W/a.ludus" "$N" 1
  "$E" "$W/b.ludus" "$N" 2 >/dev/null
  ev=$("$T" info "$W/a.ludus" | awk '/^events:/ {print $2; exit}')
  echo "  file: $(du -k "$W/a.ludus" | cut -f1) KiB, $ev events"
  run "info" "$ev" - "$T" info "$W/a.ludus"
  run "report" "$ev" - "$T" report "$W/a.ludus" -o "$W/r.txt"
  run "report --window last:1000" "$ev" - "$T" report "$W/a.ludus" --window last:1000 -o "$W/r.txt"
  run "report --html" "$ev" "$W/r.html" "$T" report "$W/a.ludus" --html "$W/r.html"
  run "diff (two files)" "$((ev * 2))" - "$T" diff "$W/a.ludus" "$W/b.ludus" -o "$W/d.txt"
  run "sql per-frame group-by" "$ev" - "$T" sql "$W/a.ludus" \
    "SELECT frame, count(*) AS n, sum(dur) AS ns FROM slice GROUP BY frame ORDER BY ns DESC LIMIT 5" --csv
  run "convert .csv" "$ev" "$W/csv" "$T" convert "$W/a.ludus" "$W/csv" --format csv
  run "convert .jsonl" "$ev" "$W/jsonl" "$T" convert "$W/a.ludus" "$W/jsonl" --format jsonl
  run "convert .sqlite" "$ev" "$W/a.sqlite" "$T" convert "$W/a.ludus" "$W/a.sqlite"
  run "convert .pftrace" "$ev" "$W/a.pftrace" "$T" convert "$W/a.ludus" "$W/a.pftrace"
  # cuts (issue 38): the middle tenth of the capture
  dur=$("$T" info "$W/a.ludus" | awk '/^capture:/ {print $8; exit}')
  t0=$(awk -v d="$dur" 'BEGIN {printf "%.3fms", d * 0.45}')
  t1=$(awk -v d="$dur" 'BEGIN {printf "%.3fms", d * 0.55}')
  run "convert --from/--to .ludus" "$ev" "$W/cut.ludus" "$T" convert "$W/a.ludus" "$W/cut.ludus" --from "$t0" --to "$t1"
  run "convert --from/--to .csv" "$ev" "$W/cutcsv" "$T" convert "$W/a.ludus" "$W/cutcsv" --format csv --from "$t0" --to "$t1"
  rm -f "$W/a.ludus" "$W/b.ludus" "$W/r.txt" "$W/d.txt"
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
