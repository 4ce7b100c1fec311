#!/bin/sh
# The layers point one way, checked on the built artefacts:
#   1. a program that only records (begin, a scope, end) linked statically
#      links no exporter, no analysis and no launch-to-exit hook when it
#      asks for none (LUDUS_NO_LAUNCH); the same program without it takes the
#      launch code in (its files name ludus__launch_link), nothing passed;
#   2. the analysis is a library of its own: libludus.a holds the files of
#      the module table's (src/modules.txt) ludus rows, no analysis file; libludus.so and libludus_analysis.so together export exactly the
#      functions and variables the public headers declare (LUDUS_API: the
#      API and the inline hot path's ludus__ entry points), each symbol from
#      one of them, nothing else; the code the analysis shares with the
#      runtime is a private copy in libludus_analysis.so (CMake's
#      ludus_analysis_shared), which copies no state of the runtime: it
#      defines no writable variable that an object of libludus.a defines;
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
# libludus.a holds the objects of the module table's ludus rows for this
# build (Linux, the built-in backend), no more (no analysis file) and no less.
python3 "$SRC/../scripts/modules.py" files ludus | awk '$2 ~ /^(any|linux|posix|builtin)$/ {n = split($1, p, "/"); print p[n] ".o"}' |
  sort > "$WORK/table_objects.txt"
ar t "$LIB_A" | sort > "$WORK/archive_objects.txt"
[ -s "$WORK/table_objects.txt" ] || fail "src/modules.txt names no ludus file"
cmp -s "$WORK/table_objects.txt" "$WORK/archive_objects.txt" ||
  fail "libludus.a is not the module table's ludus files (< table, > archive): $(diff "$WORK/table_objects.txt" "$WORK/archive_objects.txt" | grep '^[<>]' | tr '\n' ' ')"
"$NM" -D --defined-only "$LIB_SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$WORK/exported.txt"
"$NM" -D --defined-only "$AN_SO" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort -u > "$WORK/exported_analysis.txt"
both=$(comm -12 "$WORK/exported.txt" "$WORK/exported_analysis.txt")
[ -z "$both" ] || fail "exported by both libraries: $(echo $both)"
extra=$(comm -23 "$WORK/exported_analysis.txt" "$declared")
[ -z "$extra" ] || fail "libludus_analysis.so exports symbols no public header declares: $(echo $extra)"
extra=$(comm -23 "$WORK/exported.txt" "$declared")
[ -z "$extra" ] || fail "libludus.so exports symbols no public header declares: $(echo $extra)"
sort -u "$WORK/exported.txt" "$WORK/exported_analysis.txt" > "$WORK/exported_all.txt"
missing=$(comm -13 "$WORK/exported_all.txt" "$declared")
[ -z "$missing" ] || fail "declared LUDUS_API but exported by neither library: $(echo $missing)"
# The private copy: the objects of libludus.a it took (those one of whose
# global symbols it defines), and the writable variables among them (a
# second copy of the runtime's state). Allowed, each for its reason:
#   alloc.c.o alloc_state  the crash copy's private region: set only in the
#                          process that writes a crash, which runs no analysis
#   fault.c.o fault, ludus__fault_hook; linux_file_map.c.o
#   ludus__file_map_reserve_error; posix_file.c.o ludus__file_no_tmpfile
#                          the tests' switches (fault injection, a full disk,
#                          no O_TMPFILE): set by unit tests, in static links
#   crc32c.c.o crc32c_state  tables computed once from constants: a cache
#   posix.c.o posix_state  thread-exit hooks: the analysis registers none
#   posix_file.c.o tmp_counter  temporary names (pid, counter): a name taken
#                          by the other copy is EEXIST, and the next is tried
state_allowed="alloc.c.o:alloc_state fault.c.o:fault fault.c.o:ludus__fault_hook linux_file_map.c.o:ludus__file_map_reserve_error
  posix_file.c.o:ludus__file_no_tmpfile crc32c.c.o:crc32c_state posix.c.o:posix_state posix_file.c.o:tmp_counter"
"$NM" --defined-only "$AN_SO" | awk 'NF == 3 {print $3}' | sort -u > "$WORK/analysis_defined.txt"
[ -s "$WORK/analysis_defined.txt" ] || fail "libludus_analysis.so has no symbol table (stripped?)"
objdump -t "$LIB_A" | awk '/^[^ ]+\.o:/ {m = $1; sub(":$", "", m)} NF >= 6 && / g / {print m, $NF}' |
  sort -u > "$WORK/runtime_globals.txt"
awk 'NR == FNR {d[$1] = 1; next} ($2 in d) {print $1}' "$WORK/analysis_defined.txt" "$WORK/runtime_globals.txt" |
  sort -u > "$WORK/copied.txt"
[ -s "$WORK/copied.txt" ] || fail "libludus_analysis.so holds no object of libludus.a (the check reads nothing)"
# (objdump -t: the section is the first field after the address that
# starts with "." or "*"; ".hidden" may stand between the size and the name)
state=$(objdump -t "$LIB_A" | awk '/^[^ ]+\.o:/ {m = $1; sub(":$", "", m); next}
  NF >= 5 {sec = ""; for (i = 2; i < NF; i++) if ($i ~ /^[.*]/) {sec = $i; break}}
  NF >= 5 && sec ~ /^\.(data|bss|tdata|tbss)(\.|$)/ && sec !~ /rel\.ro/ && $NF !~ /^\./ {print m ":" $NF}' |
  sort -u | awk 'NR == FNR {c[$1] = 1; next} {split($0, f, ":")} (f[1] in c)' "$WORK/copied.txt" - |
  grep -v -x -F -e "$(echo $state_allowed | tr ' ' '\n')" || true)
[ -z "$state" ] || fail "libludus_analysis.so holds a copy of the runtime's state (object:variable): $(echo $state)"
copied=$(wc -l < "$WORK/copied.txt")
# the soname's version: major.minor before 1.0, the major after (CMakeLists.txt)
ver=$(sed -n 's/^#define LUDUS_VERSION_STRING "\([0-9.]*\)"$/\1/p' "$SRC/../include/ludus/capture.h")
sover=$(echo "$ver" | awk -F. '{print ($1 == 0) ? $1 "." $2 : $1}')
soname=$(objdump -p "$LIB_SO" | awk '/SONAME/ {print $2}')
[ "$soname" = "libludus.so.$sover" ] || fail "SONAME is '$soname', not libludus.so.$sover (version $ver)"
ldd "$AN_SO" | grep -q "libludus\.so\.$sover " || fail "libludus_analysis.so is not linked against libludus.so.$sover"
public_rt=$(comm -12 "$WORK/exported.txt" "$declared" | wc -l)
public_an=$(wc -l < "$WORK/exported_analysis.txt")
hot=$(grep -c '^ludus__' "$WORK/exported.txt" || true)

# 3. ludus-trace on the public API of the shared library
ldd "$TOOL" | grep -q "libludus\.so\.$sover " || fail "ludus-trace is not linked against libludus.so.$sover: $(ldd "$TOOL")"
ldd "$TOOL" | grep -q "libludus_analysis\.so\.$sover " || fail "ludus-trace is not linked against libludus_analysis.so.$sover"
"$NM" -u "$TOOL" | awk '{print $NF}' | grep '^ludus' | sed 's/@.*//' | sort -u > "$WORK/used.txt"
private=$(comm -23 "$WORK/used.txt" "$declared")
[ -z "$private" ] || fail "ludus-trace uses symbols outside the public API: $(echo $private)"
echo "ok: recorder-only link has no exporter (instrumented code takes the launch code in); libludus.so exports" \
  "$public_rt public symbols ($hot of them the inline hot path's ludus__ entry points), nothing else;" \
  "libludus_analysis.so $public_an public symbols and a private copy of $copied runtime objects, no state of the runtime but the listed; ludus-trace uses" \
  "$(wc -l < "$WORK/used.txt") public symbols"
