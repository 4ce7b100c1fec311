#!/bin/sh
# The layers point one way, checked on the built artefacts:
#   1. a program that only records (begin, a scope, end) linked statically
#      links no exporter, no analysis and no launch-to-exit hook when it
#      asks for none (LUDUS_NO_LAUNCH); the same program without it takes the
#      launch code in (its files name ludus__launch_link), nothing passed;
#   2. the analysis is a library of its own: libludus.a holds no object of
#      it, libludus.so and libludus_analysis.so together export exactly the
#      functions and variables the public headers declare (LUDUS_API), each
#      symbol from one of them, and libludus.so adds only the internal entry
#      points its sibling calls (LUDUS__SIBLING in src/*/*.h), all of which
#      the sibling uses; libludus_analysis.so exports nothing internal;
#   3. ludus-trace is linked against both and uses only symbols the public
#      headers declare.
# usage: layers.sh CC NM INCLUDE_DIR STATIC_LIB SHARED_LIB LUDUS_TRACE WORKDIR ANALYSIS_SO SRC_DIR [EXTRA_LIBS]
#   EXTRA_LIBS: what a static link needs besides -lpthread -lm (libzstd in a LUDUS_ZSTD build)
set -eu
CC=$1 NM=$2 INC=$3 LIB_A=$4 LIB_SO=$5 TOOL=$6 WORK=$7 AN_SO=$8 SRC=$9 EXTRA=${10:-}
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }

# What the public headers declare: on each LUDUS_API line, the identifier
# before a "(", ";", "[", "__attribute__" or LUDUS__TLS_MODEL.
declared="$WORK/declared.txt"
grep -h 'LUDUS_API' "$INC"/ludus/*.h | grep -v '#define' | sed 's/__attribute__.*/;/; s/[[:space:]]*LUDUS__TLS_MODEL.*/;/' |
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
"$CC" -std=c11 -O2 -DLUDUS_NO_LAUNCH -I"$INC" "$WORK/record_only.c" "$LIB_A" -lpthread -lm $EXTRA -o "$WORK/record_only"
"$WORK/record_only" || fail "the recorder-only program failed"
linked=$("$NM" "$WORK/record_only" | awk '{print $NF}' |
  grep -E '^ludus__(export_|native_write|fmt_|w_json|analy)|^ludus_(capture_save|capture_write|analyze|launch_)|launch_init' || true)
[ -z "$linked" ] || fail "a recorder-only program links: $(echo $linked)"
"$CC" -std=c11 -O2 -I"$INC" "$WORK/record_only.c" "$LIB_A" -lpthread -lm $EXTRA -o "$WORK/with_launch"
"$NM" "$WORK/with_launch" | grep -q ' launch_init$' || fail "a static link of an instrumented program has no launch code"

# 2. the runtime and the analysis libraries
an_objects=$(ar t "$LIB_A" | grep -E '^(analysis|report|diff|tree|frames|file_reader|recover)[a-z_]*\.c\.o$' || true)
[ -z "$an_objects" ] || fail "libludus.a holds analysis objects: $(echo $an_objects)"
grep -h 'LUDUS__SIBLING' "$SRC"/*/*.h | grep -v '#define' | sed 's/__attribute__.*/;/' |
  grep -o 'ludus__[A-Za-z0-9_]*[[:space:]]*[(;\[]' | sed 's/[[:space:]]*[(;\[]$//' | sort -u > "$WORK/sibling.txt"
"$NM" -D --defined-only "$LIB_SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$WORK/exported.txt"
"$NM" -D --defined-only "$AN_SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$WORK/exported_analysis.txt"
both=$(comm -12 "$WORK/exported.txt" "$WORK/exported_analysis.txt")
[ -z "$both" ] || fail "exported by both libraries: $(echo $both)"
extra=$(comm -23 "$WORK/exported_analysis.txt" "$declared")
[ -z "$extra" ] || fail "libludus_analysis.so exports symbols no public header declares: $(echo $extra)"
sort -u "$declared" "$WORK/sibling.txt" > "$WORK/allowed.txt"
extra=$(comm -23 "$WORK/exported.txt" "$WORK/allowed.txt")
[ -z "$extra" ] || fail "libludus.so exports symbols no public header declares: $(echo $extra)"
sort -u "$WORK/exported.txt" "$WORK/exported_analysis.txt" > "$WORK/exported_all.txt"
missing=$(comm -13 "$WORK/exported_all.txt" "$declared")
[ -z "$missing" ] || fail "declared LUDUS_API but exported by neither library: $(echo $missing)"
"$NM" -D --undefined-only "$AN_SO" | awk '{print $NF}' | grep '^ludus__' | sed 's/@.*//' | sort -u > "$WORK/sibling_used.txt"
unused=$(comm -23 "$WORK/sibling.txt" "$WORK/sibling_used.txt")
[ -z "$unused" ] || fail "LUDUS__SIBLING but libludus_analysis.so does not use it: $(echo $unused)"
soname=$(objdump -p "$LIB_SO" | awk '/SONAME/ {print $2}')
[ "$soname" = "libludus.so.0" ] || fail "SONAME is '$soname', not libludus.so.0"
ldd "$AN_SO" | grep -q 'libludus\.so\.0 ' || fail "libludus_analysis.so is not linked against libludus.so.0"
public_rt=$(comm -12 "$WORK/exported.txt" "$declared" | wc -l)
public_an=$(wc -l < "$WORK/exported_analysis.txt")
hot=$(grep '^ludus__' "$WORK/exported.txt" | comm -23 - "$WORK/sibling.txt" | wc -l)

# 3. ludus-trace on the public API of the shared library
ldd "$TOOL" | grep -q 'libludus\.so\.0 ' || fail "ludus-trace is not linked against libludus.so.0: $(ldd "$TOOL")"
ldd "$TOOL" | grep -q 'libludus_analysis\.so\.0 ' || fail "ludus-trace is not linked against libludus_analysis.so.0"
"$NM" -u "$TOOL" | awk '{print $NF}' | grep '^ludus' | sed 's/@.*//' | sort -u > "$WORK/used.txt"
private=$(comm -23 "$WORK/used.txt" "$declared")
[ -z "$private" ] || fail "ludus-trace uses symbols outside the public API: $(echo $private)"
echo "ok: recorder-only link has no exporter (instrumented code takes the launch code in); libludus.so exports" \
  "$public_rt public symbols ($hot of them the inline hot path's ludus__ internals) and $(wc -l < "$WORK/sibling.txt")" \
  "internal ones for its sibling; libludus_analysis.so $public_an public symbols; ludus-trace uses" \
  "$(wc -l < "$WORK/used.txt") public symbols"
