#!/bin/sh
# ludus-trace sql's peak memory (bench/RESULTS.md, "SQL over captures"):
# 10, 100, 1,000 and 3,000 demo captures (ludus-demo --frames 20; 3,000 is
# the 1,000 directory given three times), and one capture of N events
# (make_shapes frames: 22 events a frame). Peak RSS from /usr/bin/time -v;
# no wall time (the machine is shared).
#   bench/sql.sh BUILD_DIR WORK_DIR [EVENTS]   (default 10000000)
set -eu
B=$1 W=$2 EVENTS=${3:-10000000}
T=$B/tools/ludus-trace/ludus-trace
mkdir -p "$W/c1000" "$W/c100" "$W/c10"
i=1
while [ $i -le 1000 ]; do
  f=$(printf 'c%04d' $i)
  [ -f "$W/c1000/$f.ludus" ] || { "$B/examples/ludus-demo" --trace "$W/c1000/$f.json" --frames 20 >/dev/null; rm -f "$W/c1000/$f.json"; }
  [ $i -le 100 ] && cp "$W/c1000/$f.ludus" "$W/c100/"
  [ $i -le 10 ] && cp "$W/c1000/$f.ludus" "$W/c10/"
  i=$((i + 1))
done
rss() { /usr/bin/time -v "$@" 2>&1 >/dev/null | awk '/Maximum resident/ {print $NF " KiB"}'; }
Q="SELECT count(*) FROM capture; SELECT count(*) FROM slice"
echo "10 captures:    $(rss "$T" sql "$W/c10" "$Q" --csv)"
echo "100 captures:   $(rss "$T" sql "$W/c100" "$Q" --csv)"
echo "1000 captures:  $(rss "$T" sql "$W/c1000" "$Q" --csv)"
echo "3000 captures:  $(rss "$T" sql "$W/c1000" "$W/c1000" "$W/c1000" "$Q" --csv)"
frames=$((EVENTS / 22))
"$B/bench/make_shapes" frames "$W/big.ludus" $frames
echo "one capture of $EVENTS events: $(rss "$T" sql "$W/big.ludus" "SELECT count(*), percentile(dur, 99) FROM slice WHERE name = 'Draw'" --csv)"
echo "  (report, the analysis alone: $(rss "$T" report "$W/big.ludus" --json))"
