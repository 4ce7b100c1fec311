#!/bin/sh
# Compiled-out macros emit no code: builds compiled_out.c at
# LUDUS_PROFILE_LEVEL 0, -O2, with and without the macros, and compares the
# disassembly of work_fn (objdump -d --no-show-raw-insn, that symbol only,
# relocations included). Identical or the test fails with a diff.
# usage: compiled_out.sh CC OBJDUMP INCLUDE_DIR SOURCE WORKDIR
set -eu
CC=$1 OBJDUMP=$2 INC=$3 SRC=$4 WORK=$5
mkdir -p "$WORK"
name=$(basename "$CC")
for m in 0 1; do
    "$CC" -std=c11 -O2 -DLUDUS_PROFILE_LEVEL=0 -DWITH_MACROS=$m -I"$INC" -c "$SRC" -o "$WORK/out_${name}_$m.o"
    "$OBJDUMP" -dr --no-show-raw-insn "$WORK/out_${name}_$m.o" | sed -n '/<work_fn>:/,/^$/p' > "$WORK/out_${name}_$m.dis"
    [ -s "$WORK/out_${name}_$m.dis" ] || { echo "FAIL: work_fn not found"; exit 1; }
done
if ! diff -u "$WORK/out_${name}_0.dis" "$WORK/out_${name}_1.dis"; then
    echo "FAIL: work_fn differs with the macros compiled out"
    exit 1
fi
echo "ok: work_fn identical with and without macros at level 0 ($(grep -c ':	' "$WORK/out_${name}_0.dis") instructions)"
