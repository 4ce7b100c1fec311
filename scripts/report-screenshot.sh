#!/usr/bin/env bash
# Makes docs/img/report.png, the README's screenshot: the HTML report of
# `make demo` (BUILD/ludus-report.html) in headless Chromium, 1600 x 1000
# (tests/viewers/screenshot.mjs; scripts/ensure-viewer-deps.sh installs
# Chromium and the npm packages when missing). docs/building.md says so.
#   scripts/report-screenshot.sh [OUT.png]      (BUILD=build, JOBS=N as for make)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$root/docs/img/report.png}")"
build="${BUILD:-build}"
cd "$root"
make --no-print-directory demo BUILD="$build" ${JOBS:+JOBS=$JOBS} >/dev/null
./scripts/ensure-viewer-deps.sh
mkdir -p "$(dirname "$out")"
node tests/viewers/screenshot.mjs "$build/ludus-report.html" "$out"
echo "ludus: wrote $out ($(wc -c <"$out") bytes)"
