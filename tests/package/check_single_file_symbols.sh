#!/bin/sh
# The single file's implementation is libludus: an object compiled from
# ludus_profiling.h with LUDUS_IMPLEMENTATION defines the same global
# symbols as the objects of libludus.a (nm), no more (the analysis
# library's ludus_capture_open was one) and no fewer.
# usage: check_single_file_symbols.sh CC NM HEADER STATIC_LIB WORK_DIR
set -eu
cc=$1 nm=$2 header=$3 lib=$4 work=$5
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$work"
[ -s "$header" ] || fail "no $header (scripts/amalgamate.py -o $header makes it)"
cp "$header" "$work/ludus_profiling.h"
printf '#define LUDUS_IMPLEMENTATION\n#include "ludus_profiling.h"\n' >"$work/impl.c"
"$cc" -std=c11 -O2 -c "$work/impl.c" -o "$work/impl.o" || fail "the single file's implementation does not compile"
"$nm" -g --defined-only "$work/impl.o" | awk 'NF == 3 {print $3}' | sort -u >"$work/single_file.txt"
"$nm" -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 {print $3}' | sort -u >"$work/library.txt"
[ -s "$work/library.txt" ] || fail "$lib defines no global symbol"
only_sf=$(comm -23 "$work/single_file.txt" "$work/library.txt")
only_lib=$(comm -13 "$work/single_file.txt" "$work/library.txt")
[ -z "$only_sf" ] || fail "the single file defines what libludus.a does not: $(echo $only_sf)"
[ -z "$only_lib" ] || fail "libludus.a defines what the single file does not: $(echo $only_lib)"
echo "ok: the single file's implementation and libludus.a define the same $(wc -l <"$work/library.txt") global symbols"
