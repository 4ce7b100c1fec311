#!/bin/sh
# Instructions of one LUDUS_PROFILE_SCOPE on AArch64, counted in the
# disassembly (valgrind does not run under qemu-user, and there is no arm64
# machine here): a function whose body is one scope around a call, compiled
# by Debian's aarch64-linux-gnu-gcc -O2, laid out straight by the compiler:
#   idle       from the entry to the branch taken when no capture is armed
#   begin      from the entry to the call (the armed check, the register
#              saves the call needs, the claim, the room check, the counter
#              read, the event and the release of the slot)
#   end        from the call's return to ret (the end event and the restores)
# usage: bench/aarch64_scope_insns.sh [CC]   (prints the disassembly and the counts)
set -eu
cc=${1:-aarch64-linux-gnu-gcc}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/scope.c" <<'C'
#include <ludus/profiling.h>
void work(void);
void scoped(void) {
    LUDUS_PROFILE_SCOPE(S);
    work();
}
C
$cc -std=c11 -O2 -fPIC -I"$root/include" -c "$work/scope.c" -o "$work/scope.o"
aarch64-linux-gnu-objdump -d --no-show-raw-insn "$work/scope.o" | sed -n '/<scoped>:/,/^$/p' >"$work/dis.txt"
cat "$work/dis.txt"
awk '
/^ *[0-9a-f]+:\t/ { n++; line[n] = $0 }
END {
    for (i = 1; i <= n; i++) {
        if (!idle && line[i] ~ /\tcbnz\t|\tcbz\t|\tb\.ne\t|\tb\.eq\t/) idle = i
        if (!call && line[i] ~ /\tbl\t.*<work>/) call = i
        if (call && !ret && line[i] ~ /\tret/) ret = i
    }
    # the idle path leaves by a tail call right after its branch: not run when armed
    tail = line[idle + 1] ~ /\tb\t.*<work>/ ? 1 : 0
    printf "idle path: %d instructions (then the call to work)\n", idle
    printf "recording begin: %d instructions up to the call\n", call - 1 - tail
    printf "recording end: %d instructions from the return to ret\n", ret - call
    printf "recording scope: %d instructions in all\n", call - 1 - tail + ret - call
}' "$work/dis.txt"
