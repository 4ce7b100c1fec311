#!/bin/sh
# Idle path has no call: compiles idle_path.c (one LUDUS_PROFILE_SCOPE around
# a store) at LUDUS_PROFILE_LEVEL 1, -O2, disassembles idle_fn and checks:
#   1. the function loads ludus__armed (a relocation naming it) before its
#      first conditional jump, and no call precedes that jump;
#   2. the path taken when ludus__armed == 0 has no call: for je/jz it starts
#      at the jump target, for jne/jnz at the fall-through; from there we
#      follow straight-line code (and unconditional jumps inside the
#      function) to the first ret, and find no call and no jump to another
#      symbol (a tail call). Later conditional jumps on that path are
#      followed on their fall-through.
# x86-64 only (elsewhere the test reports success without checking).
# usage: idle_path.sh CC OBJDUMP INCLUDE_DIR SOURCE WORKDIR
set -eu
CC=$1 OBJDUMP=$2 INC=$3 SRC=$4 WORK=$5
case "$(uname -m)" in x86_64) ;; *) echo "skip: not x86-64"; exit 0 ;; esac
mkdir -p "$WORK"
name=$(basename "$CC")
obj="$WORK/idle_$name.o"
"$CC" -std=c11 -O2 -DLUDUS_PROFILE_LEVEL=1 -I"$INC" -c "$SRC" -o "$obj"
dis="$WORK/idle_$name.dis"
"$OBJDUMP" -dr --no-show-raw-insn "$obj" | sed -n '/<idle_fn>:/,/^$/p' > "$dis"
[ -s "$dis" ] || { echo "FAIL: idle_fn not found in $obj"; exit 1; }
awk '
function fail(msg) { print "FAIL: " msg; bad = 1; exit 1 }
/^ *[0-9a-f]+:\t/ {
    split($0, f, "\t"); addr = f[1]; sub(/^ */, "", addr); sub(/:$/, "", addr)
    ins = f[2]; mn = ins; sub(/ .*/, "", mn)
    n++; A[n] = addr; M[n] = mn; I[n] = ins; idx[addr] = n
    next
}
/R_X86_64/ { R[n] = R[n] " " $0; if ($0 ~ /ludus__armed/ && !armed_at) armed_at = n; next }
END {
    if (bad) exit 1
    for (i = 1; i <= n; i++) if (M[i] ~ /^j/ && M[i] != "jmp") { first = i; break }
    if (!first) fail("no conditional jump in idle_fn")
    if (!armed_at || armed_at >= first) fail("no load of ludus__armed before the first conditional jump")
    for (i = 1; i < first; i++) if (M[i] ~ /^call/) fail("call before the armed test: " I[i])
    tgt = I[first]; sub(/^[a-z]+ +/, "", tgt); sub(/ .*/, "", tgt)
    if (M[first] == "je" || M[first] == "jz") start = idx[tgt]
    else if (M[first] == "jne" || M[first] == "jnz") start = first + 1
    else fail("unexpected first branch " I[first])
    if (!start) fail("jump target " tgt " not in idle_fn")
    steps = 0
    for (i = start; i <= n && steps < 500; steps++) {
        if (M[i] ~ /^call/) fail("call on the idle path: " I[i])
        if (M[i] ~ /^ret/) { print "ok: idle path " A[start] ".." A[i] " has no call (" steps + 1 " instructions)"; exit 0 }
        if (M[i] == "jmp") {
            if (R[i] != "") fail("tail call on the idle path: " I[i] R[i])
            t = I[i]; sub(/^[a-z]+ +/, "", t); sub(/ .*/, "", t)
            if (!(t in idx)) fail("jump out of idle_fn on the idle path: " I[i])
            i = idx[t]; continue
        }
        i++
    }
    fail("no ret reached on the idle path")
}' "$dis" || { cat "$dis"; exit 1; }
