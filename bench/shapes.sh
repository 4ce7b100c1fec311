#!/bin/sh
# The pathological shapes of issue 22, timed end to end with ludus-trace:
# deep nesting (report, report --html), many caller paths (report, diff) and
# many async zones (report, convert to JSON). Each line: wall seconds, peak
# RSS and output size, for this build's ludus-trace and, when given, another
# one (an older build) on the same files, in one run.
#   bench/shapes.sh BUILD [OTHER_LUDUS_TRACE]    (make bench-shapes)
set -eu
build=$(cd "$1" && pwd) other=${2:-}
work=$build/shapes
mkdir -p "$work"
mk=$build/bench/make_shapes
tool=$build/tools/ludus-trace/ludus-trace
[ -x /usr/bin/time ] || { echo "shapes.sh: /usr/bin/time is missing (Debian package time)"; exit 1; }
"$mk" deep "$work/deep.ludus" 1000000 >/dev/null
"$mk" paths "$work/paths.ludus" 262144 >/dev/null
"$mk" paths "$work/paths2.ludus" 262144 >/dev/null
"$mk" paths "$work/paths-half.ludus" 131072 >/dev/null
"$mk" paths "$work/paths-half2.ludus" 131072 >/dev/null
"$mk" async "$work/async.ludus" 100000 >/dev/null
"$mk" async "$work/async-10x.ludus" 1000000 >/dev/null
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(nproc) CPUs"
for f in deep paths paths2 paths-half async async-10x; do
  echo "input $f.ludus: $(wc -c < "$work/$f.ludus") bytes"
done
printf '%-8s %-44s %9s %12s %14s\n' tool command seconds "peak RSS KB" "output bytes"
run() { # label tool args...
  label=$1 t=$2
  shift 2
  out=$work/out
  rm -f "$out" "$work/out.html" "$work/out.json"
  /usr/bin/time -f '%e %M' -o "$work/time" timeout 900 "$t" "$@" >"$out" 2>/dev/null || echo "(exit $?)" >>"$work/time"
  bytes=$(cat "$out" "$work/out.html" "$work/out.json" 2>/dev/null | wc -c)
  printf '%-8s %-44s %9s %12s %14s\n' "$label" "$cmd" "$(cut -d' ' -f1 "$work/time" | head -n 1)" \
    "$(cut -d' ' -f2 "$work/time" | head -n 1)" "$bytes"
}
for which in this other; do
  t=$tool
  if [ "$which" = other ]; then
    [ -n "$other" ] || break
    t=$other
  fi
  cd "$work"
  cmd="report deep.ludus" run "$which" "$t" report deep.ludus
  cmd="report deep.ludus --html" run "$which" "$t" report deep.ludus --html out.html
  cmd="report paths.ludus" run "$which" "$t" report paths.ludus
  cmd="diff paths-half.ludus paths-half2.ludus" run "$which" "$t" diff paths-half.ludus paths-half2.ludus
  cmd="diff paths.ludus paths2.ludus" run "$which" "$t" diff paths.ludus paths2.ludus
  cmd="report async.ludus" run "$which" "$t" report async.ludus
  cmd="convert async.ludus out.json" run "$which" "$t" convert async.ludus out.json
  cmd="convert async-10x.ludus out.json" run "$which" "$t" convert async-10x.ludus out.json
  cd - >/dev/null
done
