#!/bin/sh
# The capture model by audience (docs/design.md, "The capture model's
# headers"), checked on what each source really includes (the compiler's
# -MM, so an include through another header counts):
#   - the read side: exporters (src/export) and the analysis (src/analysis)
#     see capture_model.h, nev.h and the GPU data, never how a capture is
#     built (capture_build.h) nor the session's, the flight recorder's or
#     the post-mortem paths' headers;
#   - the session's private header: only src/session's files include it;
#   - every header of src/capture and src/session is under 300 lines.
# usage: audiences.sh CC SRC_DIR INCLUDE_DIR
set -eu
CC=$1
SRC=$(cd "$2" && pwd)
INC=$(cd "$3" && pwd)
fail=0
tmp=${TMPDIR:-/tmp}/ludus-audiences.$$
trap 'rm -f "$tmp" "$tmp.mm"' EXIT
# deps F: the headers F includes, one a line, into $tmp (-MG: a header of
# another build's, Tracy's, counts by its name); the compiler's failure fails the check
deps() {
  "$CC" -MM -MG -I"$INC" -I"$SRC" -D_GNU_SOURCE -DTRACY_ENABLE "$1" >"$tmp.mm" || { echo "FAIL: $CC -MM $1"; exit 1; }
  tr ' \\' '\n\n' <"$tmp.mm" | sed '/^$/d' >"$tmp"
}
for f in "$SRC"/export/*.c "$SRC"/analysis/*.c; do
  deps "$f"
  bad=$(grep -E '/(capture_build|session|session_private|gpu_store|flight|postmortem)\.h$' "$tmp" || true)
  if [ -n "$bad" ]; then
    echo "FAIL: ${f#"$SRC"/} (read side) includes $(echo "$bad" | sed "s|$SRC/||" | tr '\n' ' ')"
    fail=1
  fi
done
for f in $(find "$SRC" -name '*.c' ! -path "$SRC/session/*" ! -path "$SRC/vulkan/*" | sort); do
  deps "$f"
  if grep -q '/session/session_private\.h$' "$tmp"; then
    echo "FAIL: ${f#"$SRC"/} includes session/session_private.h (the session's own files only)"
    fail=1
  fi
done
for h in "$SRC"/capture/*.h "$SRC"/session/*.h; do
  n=$(wc -l <"$h")
  if [ "$n" -ge 300 ]; then
    echo "FAIL: ${h#"$SRC"/} has $n lines (a header of the capture model stays under 300: split it by audience)"
    fail=1
  fi
done
[ $fail = 0 ] || exit 1
echo "ok: export and analysis see the read side only; session_private.h stays in src/session; capture and session headers under 300 lines"
