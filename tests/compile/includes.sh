#!/bin/sh
# The rooms of src/ point one way, checked on the sources' includes: each
# room lists the rooms it may include (itself always). An include of
# another room, or of a header the room may not see, fails with the file,
# the line and the rule. The room graph, bottom up (docs/design.md, "Layers"):
#   platform          the OS and the CPU: clocks, threads, files, pages, crash signals
#   base              text, the bounded writer, varints, arenas, hashes
#   record            the hot path, threads, the pool, sites, counters
#   backend           the integration API's entry points (builtin.c or tracy.c)
#   capture           capture objects, the normalised stream, cuts, the site table
#   format            the .ludus layout, codec (the GPU record's too) and reader
#   gpu               GPU timing's store (gpu.c) and a capture's GPU data (gpu_data.c)
#   session           begin/end, the producer join, fork, the pool file, the stream writer
#   export            JSON, Perfetto, .ludus writers, outputs, merge
#   postmortem        crash capture, recover
#   flight            the rolling window
#   analysis          the off-line analysis (its own library)
#   overlay           in the process: the recorder's frame ring read by name, the
#                     overlay text, the top scopes from a capture
#   live              across processes: the publisher (live.c, in the watched process)
#                     and the watcher's reading of its block (watch.c)
#   launch            LUDUS_TRACE: above everything it starts
# usage: includes.sh SRC_DIR
set -eu
SRC=$(cd "$1" && pwd)
allowed() {
  case $1 in
  platform) echo "" ;;
  base) echo "platform" ;;
  record) echo "platform base" ;;
  backend) echo "platform base record" ;;
  capture) echo "platform base record" ;;
  gpu) echo "platform base record backend capture" ;;
  session) echo "platform base record backend capture gpu format" ;;
  format) echo "platform base record capture gpu" ;;
  export) echo "platform base record capture gpu format" ;;
  postmortem) echo "platform base record capture gpu session format export" ;;
  flight) echo "platform base record backend capture gpu session format export postmortem overlay" ;;
  analysis) echo "platform base record capture gpu format export" ;;
  overlay) echo "platform base record capture" ;;
  live) echo "platform base record capture session export flight overlay" ;;
  launch) echo "platform base record capture session export postmortem flight live" ;;
  vulkan) echo "" ;;
  *) echo "UNKNOWN" ;;
  esac
}
fail=0
for f in $(cd "$SRC" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
  room=${f%%/*}
  ok=$(allowed "$room")
  if [ "$ok" = UNKNOWN ]; then
    echo "FAIL: $f: room '$room' is not in tests/compile/includes.sh (add it with the rooms it may include)"
    fail=1
    continue
  fi
  grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$SRC/$f" | while IFS= read -r hit; do
    line=${hit%%:*}
    inc=$(echo "$hit" | sed 's/^[^"]*"//; s/".*//')
    case $inc in
    tracy/*) continue ;; # Tracy's own header (tracy.c only)
    esac
    dir=$(dirname "$f")
    target=$(cd "$SRC/$dir" 2>/dev/null && realpath -m --relative-to="$SRC" "$inc")
    troom=${target%%/*}
    [ "$troom" = "$room" ] && continue
    case " $ok " in
    *" $troom "*) ;;
    *) echo "FAIL: src/$f:$line includes \"$inc\" ($troom): room $room may include only: ${ok:-nothing} (tests/compile/includes.sh)" ;;
    esac
  done
done >"${TMPDIR:-/tmp}/ludus-includes.$$"
if [ -s "${TMPDIR:-/tmp}/ludus-includes.$$" ]; then
  cat "${TMPDIR:-/tmp}/ludus-includes.$$"
  rm -f "${TMPDIR:-/tmp}/ludus-includes.$$"
  exit 1
fi
rm -f "${TMPDIR:-/tmp}/ludus-includes.$$"
[ $fail = 0 ] || exit 1
# Outside src/platform no file includes an OS or threads header: the
# platform layer is the only place that knows them.
os=$(cd "$SRC" && grep -rln -E '^[[:space:]]*#[[:space:]]*include[[:space:]]*<(pthread|unistd|fcntl|signal|windows|sched|dlfcn|sys/[a-z_]+)\.h>' \
  --include='*.c' --include='*.h' . | grep -v '^\./platform/' | grep -v '^\./vulkan/' || true)
if [ -n "$os" ]; then
  echo "FAIL: OS headers outside src/platform: $(echo $os)"
  exit 1
fi
# The other lists of rooms agree with this table: the directories of src/
# are its rows; CMake's LUDUS_ROOMS holds them all but backend (one file of
# it, picked by LUDUS_BACKEND) and vulkan (a library of its own);
# scripts/amalgamate.py's LAYERS all but analysis and vulkan (the single
# file is the runtime and the exporters).
root=$(dirname "$SRC")
self=$(cd "$(dirname "$0")" && pwd)/$(basename "$0")
words() { tr ' ,' '\n\n' | tr -d '"' | sed '/^$/d' | sort | tr '\n' ' '; }
dirs=$(cd "$SRC" && ls -d */ | tr -d / | words)
table=$(sed -n 's/^  \([a-z_]*\)) echo .*/\1/p' "$self" | words)
cmake_rooms=$(sed -n 's/^set(LUDUS_ROOMS \(.*\))$/\1/p' "$root/CMakeLists.txt" | words)
layers=$(tr -d '\n' < "$root/scripts/amalgamate.py" | sed -n 's/.*LAYERS = \[\([^]]*\)\].*/\1/p' | words)
without() { echo "$1" | tr ' ' '\n' | grep -v -x -e "$2" -e "$3" | words; }
[ "$table" = "$dirs" ] || { echo "FAIL: src/ has the rooms '$dirs', the table of tests/compile/includes.sh '$table'"; exit 1; }
[ "$cmake_rooms" = "$(without "$dirs" backend vulkan)" ] ||
  { echo "FAIL: CMakeLists.txt's LUDUS_ROOMS is '$cmake_rooms', not src/'s rooms but backend and vulkan"; exit 1; }
[ "$layers" = "$(without "$dirs" analysis vulkan)" ] ||
  { echo "FAIL: scripts/amalgamate.py's LAYERS is '$layers', not src/'s rooms but analysis and vulkan"; exit 1; }
echo "ok: every include of src/ points down the room graph; OS headers only in src/platform; CMake's rooms and" \
  "the single file's layers agree with the table"
