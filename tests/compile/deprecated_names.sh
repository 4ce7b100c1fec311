#!/bin/sh
# The old names 0.3 changed (deprecated_names.c): with the deprecation
# warning allowed, the program compiles under -Wall -Wextra -Werror and links
# against the static libraries; without, each old call's warning names its
# new call; with LUDUS_NO_DEPRECATED the old names are gone.
# usage: deprecated_names.sh CC INCLUDE_DIR SOURCE LIBLUDUS_ANALYSIS_A LIBLUDUS_A WORK [EXTRA_LIBS]
set -u
CC=$1 INC=$2 SRC=$3 AN_A=$4 LIB_A=$5 WORK=$6 EXTRA=${7:-}
mkdir -p "$WORK"
fail() { echo "FAIL: $*"; exit 1; }
# shellcheck disable=SC2086
"$CC" -std=c11 -Wall -Wextra -Werror -Wno-deprecated-declarations -I"$INC" "$SRC" "$AN_A" "$LIB_A" $EXTRA \
    -lpthread -lm -o "$WORK/deprecated_names" 2>"$WORK/allowed.log" ||
    { cat "$WORK/allowed.log"; fail "the old names do not build or link with the warning allowed"; }
"$CC" -std=c11 -Wall -Wextra -I"$INC" -c "$SRC" -o "$WORK/warned.o" 2>"$WORK/warned.log" ||
    { cat "$WORK/warned.log"; fail "the old names do not compile"; }
for new in ludus_diff_entry_count ludus_diff_entry ludus_diff_find_entry ludus_diff_counter ludus_diff_lock \
    ludus_analysis_get_messages ludus_capture_thread ludus_capture_get_stream_result ludus_gpu_note_coverage \
    ludus_frame_ring_frames ludus_frame_ring_frame_ns ludus_frame_ring_value; do
    grep -q "renamed $new\b" "$WORK/warned.log" || { cat "$WORK/warned.log"; fail "no warning names $new"; }
done
warned=$(grep -c "warning: .*deprecated" "$WORK/warned.log")
[ "$warned" -eq 12 ] || { cat "$WORK/warned.log"; fail "$warned deprecation warnings, expected one per old call (12)"; }
if "$CC" -std=c11 -Werror=implicit-function-declaration -DLUDUS_NO_DEPRECATED -I"$INC" -c "$SRC" -o "$WORK/none.o" 2>"$WORK/none.log"; then
    fail "LUDUS_NO_DEPRECATED still declares the old names"
fi
echo "ok: 12 old calls build with a warning that names the new one, link against the new libraries; LUDUS_NO_DEPRECATED removes them"
