#!/usr/bin/env bash
# .text (code) and read-only data growth per 1000 instrumentation sites:
# 1000 functions with one LUDUS_PROFILE_SCOPE each, at level 1 and level 0,
# and the same functions without macros. gcc -O2.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
{
  echo '#include <ludus/profiling.h>'
  echo 'void sink(int);'
  for i in $(seq 1 1000); do
    echo "void f$i(int x) { LUDUS_PROFILE_SCOPE(Site$i); sink(x + $i); }"
  done
} > "$tmp/sites.c"
sed 's/LUDUS_PROFILE_SCOPE(Site[0-9]*);//' "$tmp/sites.c" > "$tmp/plain.c"
cc=${CC:-cc}
$cc -std=c11 -O2 -I"$root/include" -c "$tmp/sites.c" -o "$tmp/l1.o"
$cc -std=c11 -O2 -I"$root/include" -DLUDUS_PROFILE_LEVEL=0 -c "$tmp/sites.c" -o "$tmp/l0.o"
$cc -std=c11 -O2 -I"$root/include" -c "$tmp/plain.c" -o "$tmp/plain.o"
sec() { size -A "$1" | awk -v s="$2" 'index($1, s) == 1 { t += $2 } END { print t + 0 }'; }
for o in plain l0 l1; do
  text=$(sec "$tmp/$o.o" .text)
  ro=$(( $(sec "$tmp/$o.o" .rodata) + $(sec "$tmp/$o.o" .data) ))
  eval "${o}_text=$text ${o}_ro=$ro"
done
echo "text_size: 1000 sites, $($cc --version | head -1), -O2"
echo "  .text   no macros $plain_text B, level 0 $l0_text B, level 1 $l1_text B: +$(( (l1_text - plain_text) / 1000 )) B of code per site"
echo "  data    no macros $plain_ro B, level 0 $l0_ro B, level 1 $l1_ro B: +$(( (l1_ro - plain_ro) / 1000 )) B of descriptor and strings per site"
[ "$plain_text" = "$l0_text" ] && echo "  level 0 adds no code (same .text size as no macros)"
