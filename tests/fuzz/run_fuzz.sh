#!/bin/sh
# Builds the fuzz targets with clang (libFuzzer + ASan + UBSan) from the
# library sources and runs each over a copy of its seed corpus:
#   runs N     N inputs each, from seed 1 (make test: the same inputs every
#              time, never a time limit)
#   seconds S  S seconds each (make fuzz)
# Targets (tests/fuzz/fuzz_*.c) and their seeds (tests/fuzz/corpus/DIR):
# capture_file, report and export read .ludus files (ludus/), diff a pair of
# them (diff/), gpu a GPU record (gpu/), recover a pool file (recover/).
# A crash leaves its input in WORK/artifacts/TARGET: copy it into
# tests/fuzz/regressions/TARGET/ so test_fuzz_replay_TARGET keeps checking it.
#   run_fuzz.sh SOURCE_DIR WORK_DIR runs|seconds AMOUNT [TARGET...]
set -eu
src=$1 work=$2 mode=$3 amount=$4
shift 4
targets=${*:-capture_file report export diff gpu recover}
cc=${CLANG:-clang}
mkdir -p "$work/obj"
flags="-std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -I$src/include -I$src/src"
# compressed blocks (LUDUS_ZSTD) where libzstd-dev is there: the reader's zstd path is fuzzed too
zstd_lib=
if [ -f /usr/include/zstd.h ]; then flags="$flags -DLUDUS_HAVE_ZSTD=1"; zstd_lib=-lzstd; fi
# The library as an archive (its sources built as the library is:
# LUDUS__LIBRARY), so only what a target uses is linked. An
# object is rebuilt when its source or any header is newer.
newest_h=$(ls -t "$src"/include/ludus/*.h "$src"/src/*/*.h | head -n 1)
# the platform layer's files for Linux: linux*.c and those of no OS (alloc.c, fault.c)
objs=""
for f in $(ls "$src"/src/platform/*.c | grep -v '/win32') "$src"/src/base/*.c "$src"/src/record/*.c "$src"/src/backend/builtin.c "$src"/src/capture/*.c "$src"/src/gpu/*.c "$src"/src/session/*.c "$src"/src/format/*.c "$src"/src/export/*.c "$src"/src/postmortem/*.c "$src"/src/flight/*.c "$src"/src/analysis/*.c; do
  o="$work/obj/$(echo "$f" | sed 's|.*/src/||; s|/|_|g').o"
  if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then echo "$cc -c $f"; $cc $flags -DLUDUS__LIBRARY=1 -c "$f" -o "$o"; fi
  objs="$objs $o"
done
rm -f "$work/libludus_fuzz.a"
ar rcs "$work/libludus_fuzz.a" $objs # only the sources there are now: an object of a removed file stays out
case $mode in
  runs) limit="-runs=$amount -seed=1" ;;
  seconds) limit="-max_total_time=$amount" ;;
  *) echo "run_fuzz.sh: mode is runs or seconds, not '$mode'" >&2; exit 2 ;;
esac
status=0
for t in $targets; do
  case $t in
    capture_file | report | export) seeds=ludus max_len=65536 ;;
    diff) seeds=diff max_len=131072 ;;
    gpu) seeds=gpu max_len=16384 ;;
    recover) seeds=recover max_len=262144 ;;
    *) echo "run_fuzz.sh: unknown target $t" >&2; exit 2 ;;
  esac
  $cc $flags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_$t.c" "$work/libludus_fuzz.a" -lpthread -lm $zstd_lib -o "$work/fuzz_$t"
  rm -rf "$work/corpus-$t"
  mkdir -p "$work/corpus-$t" "$work/artifacts/$t"
  cp "$src/tests/fuzz/corpus/$seeds"/* "$work/corpus-$t/"
  cp "$src/tests/fuzz/regressions/$t"/* "$work/corpus-$t/" 2>/dev/null || true
  echo "fuzz_$t: $mode $amount over $(ls "$work/corpus-$t" | wc -l) seeds"
  # shellcheck disable=SC2086
  (cd "$work" && "./fuzz_$t" $limit -max_len=$max_len -rss_limit_mb=2048 -timeout=30 \
    -artifact_prefix="artifacts/$t/" -print_final_stats=1 "corpus-$t" 2>"fuzz_$t.log") || {
    status=1
    echo "fuzz_$t FAILED: its input is in $work/artifacts/$t (log: $work/fuzz_$t.log)"
    tail -n 40 "$work/fuzz_$t.log"
  }
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "$work/fuzz_$t.log" | tr '\n' ' '
  echo
done
exit $status
