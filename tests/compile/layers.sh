#!/bin/sh
# The layers point one way, checked on the built artefacts:
#   1. a program that only records (begin, a scope, end) linked statically
#      links no exporter, no analysis and no launch-to-exit hook when it
#      asks for none (LUDUS_NO_LAUNCH); the same program without it takes the
#      launch code in (its files name ludus__launch_link), nothing passed;
#   2. the shared library exports exactly the functions and variables the
#      public headers declare (LUDUS_API), nothing internal;
#   3. ludus-trace is linked against libludus.so.0 and uses only symbols the
#      public headers declare.
# usage: layers.sh CC NM INCLUDE_DIR STATIC_LIB SHARED_LIB LUDUS_TRACE WORKDIR
set -eu
CC=$1 NM=$2 INC=$3 LIB_A=$4 LIB_SO=$5 TOOL=$6 WORK=$7
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

# What the public headers declare: on each LUDUS_API line, the identifier
# before a "(", ";", "[" or "__attribute__".
declared="$WORK/declared.txt"
grep -h 'LUDUS_API' "$INC"/ludus/*.h | grep -v '#define' | sed 's/__attribute__.*/;/' |
  grep -o 'ludus_[A-Za-z0-9_]*[[:space:]]*[(;\[]' | sed 's/[[:space:]]*[(;\[]$//' | sort -u > "$declared"
[ -s "$declared" ] || fail "no LUDUS_API declarations found in $INC/ludus"

# 1. recorder only
cat > "$WORK/record_only.c" <<'C'
#include <ludus/capture.h>
#include <ludus/profiling.h>
int main(void) {
    if (ludus_capture_begin(NULL) != 0) return 1;
    { LUDUS_PROFILE_SCOPE(Only); }
    return ludus_capture_end(NULL);
}
C
"$CC" -std=c11 -O2 -DLUDUS_NO_LAUNCH -I"$INC" "$WORK/record_only.c" "$LIB_A" -lpthread -lm -o "$WORK/record_only"
"$WORK/record_only" || fail "the recorder-only program failed"
linked=$("$NM" "$WORK/record_only" | awk '{print $NF}' |
  grep -E '^ludus__(export_|native_write|fmt_|w_json|analy)|^ludus_(capture_save|capture_write|analyze|launch_)|launch_init' || true)
[ -z "$linked" ] || fail "a recorder-only program links: $(echo $linked)"
"$CC" -std=c11 -O2 -I"$INC" "$WORK/record_only.c" "$LIB_A" -lpthread -lm -o "$WORK/with_launch"
"$NM" "$WORK/with_launch" | grep -q ' launch_init$' || fail "a static link of an instrumented program has no launch code"

# 2. exports of the shared library
"$NM" -D --defined-only "$LIB_SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$WORK/exported.txt"
extra=$(comm -23 "$WORK/exported.txt" "$declared")
[ -z "$extra" ] || fail "libludus.so exports symbols no public header declares: $(echo $extra)"
missing=$(comm -13 "$WORK/exported.txt" "$declared")
[ -z "$missing" ] || fail "declared LUDUS_API but not exported: $(echo $missing)"
soname=$(objdump -p "$LIB_SO" | awk '/SONAME/ {print $2}')
[ "$soname" = "libludus.so.0" ] || fail "SONAME is '$soname', not libludus.so.0"

# 3. ludus-trace on the public API of the shared library
ldd "$TOOL" | grep -q 'libludus\.so\.0 ' || fail "ludus-trace is not linked against libludus.so.0: $(ldd "$TOOL")"
"$NM" -u "$TOOL" | awk '{print $NF}' | grep '^ludus' | sed 's/@.*//' | sort -u > "$WORK/used.txt"
private=$(comm -23 "$WORK/used.txt" "$declared")
[ -z "$private" ] || fail "ludus-trace uses symbols outside the public API: $(echo $private)"
echo "ok: recorder-only link has no exporter (instrumented code takes the launch code in); $(wc -l < "$WORK/exported.txt") exported symbols, all declared; ludus-trace uses $(wc -l < "$WORK/used.txt") public symbols of libludus.so.0"
