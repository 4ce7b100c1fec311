#!/bin/sh
# The single-file form (HEADER, made by scripts/amalgamate.py; made here
# when not given) alone, nothing else of the project on the include path:
#   1. a program of two files, one defining LUDUS_IMPLEMENTATION, built as C
#      (-Wpedantic -Werror, with CC and with clang) and with its instrumented
#      file as C++ (-Wpedantic -Wold-style-cast -Werror, with CXX and clang++); the header twice in
#      one file; the implementation in a C++ file stops at one clear #error;
#      the program traces launch to exit under LUDUS_TRACE
#   2. the demo (examples/demo.c with its <ludus/...> includes replaced by
#      the single file, which it implements) with warnings as errors
# Each runs and writes a JSON trace that python3 reads back and
# tests/format/trace_json.py checks.
# usage: check_single_file.sh SOURCE_DIR WORK_DIR [CC [CXX [HEADER]]]
set -eu
src=$1 work=$2 cc=${3:-cc} cxx=${4:-c++} header=${5:-}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*"; exit 1; }
if [ -n "$header" ]; then
    cp "$header" "$work/ludus_profiling.h" || fail "no single file at $header"
else
    python3 "$src/scripts/amalgamate.py" -o "$work/ludus_profiling.h" >/dev/null || fail "scripts/amalgamate.py"
fi
cp "$src/tests/package/single_file/impl.c" "$src/tests/package/single_file/main.c" "$work/"
cd "$work"
flags="-O2 -Wall -Wextra -Wpedantic -Werror"

# A JSON trace with events named as given, nested alike in every viewer.
check_json() {
    python3 "$src/tests/format/trace_json.py" "$1" >nesting.log || { cat nesting.log; fail "trace $1: nesting"; }
    python3 - "$@" <<'EOF' || fail "trace $1"
import json, sys
d = json.load(open(sys.argv[1]))
names = {e.get("name") for e in d["traceEvents"]}
missing = [n for n in sys.argv[2:] if n not in names]
if missing:
    sys.exit("%s: no event named %s (of %d events)" % (sys.argv[1], missing, len(d["traceEvents"])))
EOF
}

# 1. two files; the header included twice where the implementation is
printf '#define LUDUS_IMPLEMENTATION\n#include "ludus_profiling.h"\n#include "ludus_profiling.h"\n' >impl2.c
$cc -std=c11 $flags -c impl.c -o impl.o || fail "impl.c"
$cc -std=c11 $flags -fsyntax-only impl2.c || fail "the header twice with LUDUS_IMPLEMENTATION"
$cc -std=c11 $flags -Wdeclaration-after-statement -c main.c -o main.o 2>main.log &&
    ! grep -q . main.log || { cat main.log; fail "main.c as C11"; }
$cc main.o impl.o -o single -pthread -lm || fail "link (C)"
./single "$work/single.json" >/dev/null || fail "run (C)"
check_json single.json work Inner Frame
# launch to exit: the implementation holds the LUDUS_TRACE hook
LUDUS_TRACE="$work/launch.json" ./single --launch >/dev/null 2>launch.err || { cat launch.err; fail "run under LUDUS_TRACE"; }
grep -q "ludus: wrote $work/launch.json" launch.err || { cat launch.err; fail "LUDUS_TRACE wrote nothing"; }
check_json launch.json work Inner Frame
if command -v clang >/dev/null 2>&1; then
    clang -std=c11 $flags -c impl.c -o impl_clang.o || fail "impl.c with clang -Wpedantic"
fi
if command -v clang++ >/dev/null 2>&1; then
    clang++ -std=c++11 -x c++ $flags -Wold-style-cast -c main.c -o main_clangxx.o || fail "main.c as C++11 with clang++"
fi
if command -v "$cxx" >/dev/null 2>&1; then
    $cxx -std=c++11 -x c++ $flags -Wold-style-cast -c main.c -o main_cxx.o || fail "main.c as C++11"
    $cxx main_cxx.o impl.o -o single_cxx -pthread -lm || fail "link (C++)"
    ./single_cxx "$work/single_cxx.json" >/dev/null || fail "run (C++)"
    check_json single_cxx.json work Inner
    # The implementation is C: in a C++ file, one #error that says so.
    ! $cxx -std=c++11 -x c++ -c impl.c -o impl_cxx.o 2>impl_cxx.log || fail "the implementation compiled as C++"
    [ "$(grep -c 'error' impl_cxx.log)" -le 2 ] && grep -q "define LUDUS_IMPLEMENTATION in a C file" impl_cxx.log ||
        { head -20 impl_cxx.log; fail "the implementation as C++: not one clear error"; }
fi

# 2. the demo
python3 - "$src/examples/demo.c" demo.c <<'EOF' || fail "rewriting the demo's includes"
import re, sys
lines, out, first = open(sys.argv[1]).read().split("\n"), [], True
for line in lines:
    if re.match(r"#include <ludus/", line):
        if first:
            out += ["#define LUDUS_IMPLEMENTATION", '#include "ludus_profiling.h"']
            first = False
        continue
    out.append(line)
if first:
    sys.exit("the demo includes no <ludus/...> header")
open(sys.argv[2], "w").write("\n".join(out))
EOF
$cc -std=c11 $flags demo.c -o demo -pthread -lm 2>demo.log || { cat demo.log; fail "the demo from the single file"; }
./demo --frames 40 --trace "$work/demo.json" >demo.out 2>&1 || { cat demo.out; fail "the demo runs"; }
check_json demo.json Frame "Job: Animate"
echo "ok: a two-file program (C and C++) and the demo built from the single file alone and ran"
