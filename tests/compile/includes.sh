#!/bin/sh
# The rooms of src/ point one way, checked on the sources' includes: each
# room may include itself and the rooms its row of the module table,
# src/modules.txt, lists (`room ROOM MAY_USE...`, bottom up; docs/design.md,
# "Layers"). An include of another room, or of a header the room may not
# see, fails with the file, the line and the rule.
# usage: includes.sh SRC_DIR
set -eu
SRC=$(cd "$1" && pwd)
TABLE=$SRC/modules.txt
allowed() {
  awk -v r="$1" '{sub(/#.*/, "")} $1 == "room" && $2 == r {found = 1; for (i = 3; i <= NF; i++) printf "%s%s", (i > 3 ? " " : ""), $i}
    END {if (!found) printf "UNKNOWN"}' "$TABLE"
}
fail=0
for f in $(cd "$SRC" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
  room=${f%%/*}
  ok=$(allowed "$room")
  if [ "$ok" = UNKNOWN ]; then
    echo "FAIL: $f: room '$room' is not in src/modules.txt (add its room row with the rooms it may include)"
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
    *) echo "FAIL: src/$f:$line includes \"$inc\" ($troom): room $room may include only: ${ok:-nothing} (src/modules.txt)" ;;
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
echo "ok: every include of src/ points down the room graph of src/modules.txt; OS headers only in src/platform"
