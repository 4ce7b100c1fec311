#!/bin/sh
# Does writing a hitch's window cause a second hitch? The demo's frame time
# p99 with the rolling window writing a file per injected hitch, against the
# same demo recording an ordinary capture, alternated N times (medians of the
# runs' p99 and p50, and their ratio).
#   bench/rolling_demo.sh [BUILD_DIR] [RUNS] [FRAMES]
set -eu
build=${1:-build}
runs=${2:-5}
frames=${3:-1200}
demo="$build/examples/ludus-demo"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
pick() { sed -n 's/.*p50 \([0-9.]*\) ms .*p90 \([0-9.]*\) ms .*p99 \([0-9.]*\) ms.*/\1 \3 \2/p'; }
: >"$dir/plain" && : >"$dir/rolling"
files=0
for i in $(seq "$runs"); do
  "$demo" --frames "$frames" --trace "$dir/t.json" | grep '^Frame time' | pick >>"$dir/plain"
  rm -rf "$dir/r" && mkdir "$dir/r"
  "$demo" --frames "$frames" --rolling "$dir/r" | grep '^Frame time' | pick >>"$dir/rolling"
  files=$((files + $(ls "$dir/r" | wc -l)))
done
median() { sort -n | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
p50p=$(cut -d' ' -f1 "$dir/plain" | median); p99p=$(cut -d' ' -f2 "$dir/plain" | median)
p50r=$(cut -d' ' -f1 "$dir/rolling" | median); p99r=$(cut -d' ' -f2 "$dir/rolling" | median)
p90p=$(cut -d' ' -f3 "$dir/plain" | median); p90r=$(cut -d' ' -f3 "$dir/rolling" | median)
echo "runs $runs x $frames frames; hitch files written by the rolling runs: $files"
echo "capture window: p50 $p50p ms, p90 $p90p ms, p99 $p99p ms (medians of the runs; all p99: $(cut -d' ' -f2 "$dir/plain" | tr '\n' ' '))"
echo "rolling window: p50 $p50r ms, p90 $p90r ms, p99 $p99r ms (all p99: $(cut -d' ' -f2 "$dir/rolling" | tr '\n' ' '))"
awk -v a="$p99r" -v b="$p99p" -v c="$p50r" -v d="$p50p" -v e="$p90r" -v f="$p90p" \
  'BEGIN {printf "rolling / capture: p99 %.3f x, p90 %.3f x, p50 %.3f x\n", a / b, e / f, c / d}'
