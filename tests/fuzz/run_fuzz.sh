#!/bin/sh
# Builds the capture-file fuzzer with clang (libFuzzer + ASan + UBSan) from
# the library sources and runs it for a bounded time over a copy of the seed
# corpus. A crash leaves its input in WORK/artifacts: copy it into
# tests/fuzz/regressions/ so test_fuzz_replay keeps checking it.
#   run_fuzz.sh SOURCE_DIR WORK_DIR SECONDS
set -eu
src=$1 work=$2 secs=$3
cc=${CLANG:-clang}
mkdir -p "$work/obj" "$work/corpus" "$work/artifacts"
flags="-std=c11 -D_GNU_SOURCE -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -I$src/include -I$src/src"
# The library as an archive, so only what the target uses is linked. An
# object is rebuilt when its source or any header is newer.
newest_h=$(ls -t "$src"/include/ludus/*.h "$src"/src/*/*.h | head -n 1)
# the platform layer's files for Linux: linux*.c and those of no OS (alloc.c)
objs=""
for f in $(ls "$src"/src/platform/*.c | grep -v '/win32') "$src"/src/base/*.c "$src"/src/record/*.c "$src"/src/backend/builtin.c "$src"/src/capture/*.c "$src"/src/gpu/*.c "$src"/src/session/*.c "$src"/src/format/*.c "$src"/src/export/*.c "$src"/src/postmortem/*.c "$src"/src/flight/*.c "$src"/src/analysis/*.c; do
  o="$work/obj/$(echo "$f" | sed 's|.*/src/||; s|/|_|g').o"
  if [ ! -f "$o" ] || [ "$f" -nt "$o" ] || [ "$newest_h" -nt "$o" ]; then echo "$cc -c $f"; $cc $flags -c "$f" -o "$o"; fi
  objs="$objs $o"
done
rm -f "$work/libludus_fuzz.a"
ar rcs "$work/libludus_fuzz.a" $objs # only the sources there are now: an object of a removed file stays out
$cc $flags -fsanitize=fuzzer "$src/tests/fuzz/fuzz_capture_file.c" "$work/libludus_fuzz.a" -lpthread -lm \
  -o "$work/fuzz_capture_file"
cp "$src"/tests/fuzz/corpus/* "$work/corpus/" 2>/dev/null || true
cp "$src"/tests/fuzz/regressions/* "$work/corpus/" 2>/dev/null || true
cd "$work"
./fuzz_capture_file -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix=artifacts/ -print_final_stats=1 corpus
