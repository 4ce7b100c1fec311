#!/usr/bin/env bash
# The Tracy backend end to end (make test-tracy): the demo built with
# -DLUDUS_BACKEND=tracy runs while Tracy's own tracy-capture listens on
# 127.0.0.1; tracy-csvexport lists what it received, and tests/tracy/compare.py
# checks it against the same demo (--deterministic) recorded by the built-in
# recorder: every site present, counts equal per site.
#
#   check_tracy.sh SOURCE_DIR BUILTIN_BUILD OUT_DIR
#
# BUILTIN_BUILD holds a default build (examples/ludus-demo). OUT_DIR gets the
# Tracy build (OUT_DIR/build), tracy-capture and tracy-csvexport (OUT_DIR/tools,
# built once from Tracy's sources and kept), the traces and the CSV files.
# Tracy's sources: LUDUS_TRACY_SRC (a checkout with public/, server/,
# capture/, csvexport/), default ../shared/third_party/tracy beside the
# repository, which also holds the tools' build script (tracy-tools/build.sh).
# A missing dependency skips the test with a message on a developer's
# machine, and fails it in CI (LUDUS_CI=1).
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILTIN=$(cd "$2" && pwd)
OUT=$3
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
SHARED=$(cd "$SRC/.." && pwd)/shared
TRACY=${LUDUS_TRACY_SRC:-$SHARED/third_party/tracy}
TOOLS_SCRIPT=${LUDUS_TRACY_TOOLS_SCRIPT:-$SHARED/third_party/tracy-tools/build.sh}
FRAMES=${LUDUS_TRACY_FRAMES:-120}
LIMIT=${LUDUS_TRACY_TIMEOUT:-120} # seconds, for each process

missing() {
  if [ "${LUDUS_CI:-0}" = 1 ]; then
    echo "test-tracy: FAIL: $1 (CI must have it)" >&2
    exit 1
  fi
  echo "test-tracy: SKIPPED: $1"
  exit 0
}

[ -f "$TRACY/public/TracyClient.cpp" ] || missing "no Tracy sources at $TRACY (set LUDUS_TRACY_SRC)"
[ -f "$TOOLS_SCRIPT" ] || missing "no script to build tracy-capture at $TOOLS_SCRIPT (set LUDUS_TRACY_TOOLS_SCRIPT)"
command -v g++ >/dev/null || missing "g++ is missing (scripts/ensure-port-deps.sh tracy installs it)"
[ -f /usr/include/capstone/capstone.h ] || missing "libcapstone-dev is missing (scripts/ensure-port-deps.sh tracy)"
[ -f /usr/include/zstd.h ] || missing "libzstd-dev is missing (scripts/ensure-port-deps.sh tracy)"
[ -x "$BUILTIN/examples/ludus-demo" ] || { echo "test-tracy: no $BUILTIN/examples/ludus-demo" >&2; exit 1; }

# Tracy's tools, built once (about 2 minutes on 2 cores) and kept.
if [ ! -x "$OUT/tools/tracy-capture" ] || [ ! -x "$OUT/tools/tracy-csvexport" ]; then
  echo "test-tracy: building tracy-capture and tracy-csvexport from $TRACY (once)"
  bash "$TOOLS_SCRIPT" "$TRACY" "$OUT/tools" >"$OUT/tools-build.log" 2>&1 || {
    tail -20 "$OUT/tools-build.log" >&2
    echo "test-tracy: FAIL: building Tracy's tools (log: $OUT/tools-build.log)" >&2
    exit 1
  }
fi

# The backend with clang's warnings as errors (library_clang_werror leaves
# it out: it needs Tracy's headers).
if command -v clang >/dev/null; then
  clang -std=c11 -Wall -Wextra -Werror -fsyntax-only -DTRACY_ENABLE -I"$SRC/include" \
    -I"$SRC/src" -I"$TRACY/public" "$SRC/src/backend/tracy.c"
fi

# The demo with the Tracy backend, in Release (LUDUS_TRACY_BUILD_TYPE), warnings as errors.
cmake -S "$SRC" -B "$OUT/build" -DCMAKE_BUILD_TYPE="${LUDUS_TRACY_BUILD_TYPE:-Release}" -DLUDUS_BACKEND=tracy -DLUDUS_WERROR=ON \
  -DLUDUS_TRACY_DIR="$TRACY/public" -DLUDUS_BUILD_BENCH=OFF -DLUDUS_ZSTD=OFF >"$OUT/configure.log" 2>&1 || {
  tail -20 "$OUT/configure.log" >&2
  exit 1
}
cmake --build "$OUT/build" -j "${JOBS:-2}" --target ludus-demo ludus >"$OUT/build.log" 2>&1 || {
  tail -30 "$OUT/build.log" >&2
  exit 1
}

# The same work recorded by the built-in recorder.
rm -f "$OUT/builtin.json"
timeout "$LIMIT" "$BUILTIN/examples/ludus-demo" --deterministic --frames "$FRAMES" --trace "$OUT/builtin.json" \
  >"$OUT/builtin.log"

# Runs a program (its arguments) while tracy-capture listens on a free port,
# and exports what it received into $OUT/$NAME.{zones,messages,unwrapped}.csv.
capture() { # NAME PROGRAM ARGS...
  local name=$1
  shift
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  rm -f "$OUT/$name.tracy"
  timeout "$LIMIT" "$OUT/tools/tracy-capture" -a 127.0.0.1 -p "$port" -o "$OUT/$name.tracy" -f \
    >"$OUT/$name-capture.log" 2>&1 &
  CAP_PID=$!
  # TRACY_NO_EXIT: the client waits at exit until tracy-capture has everything.
  # TRACY_NO_SYS_TRACE: no kernel tracing (root would get it; not compared).
  TRACY_PORT=$port TRACY_NO_EXIT=1 TRACY_NO_SYS_TRACE=1 timeout "$LIMIT" "$@" >"$OUT/$name.log" 2>&1 || {
    cat "$OUT/$name.log" >&2
    echo "test-tracy: FAIL: $* failed" >&2
    exit 1
  }
  wait "$CAP_PID" || {
    cat "$OUT/$name-capture.log" >&2
    echo "test-tracy: FAIL: tracy-capture failed or timed out ($name)" >&2
    exit 1
  }
  CAP_PID=
  if grep -q "Instrumentation failure" "$OUT/$name-capture.log"; then
    cat "$OUT/$name-capture.log" >&2
    echo "test-tracy: FAIL: Tracy rejected what $name sent" >&2
    exit 1
  fi
  [ -s "$OUT/$name.tracy" ] || { echo "test-tracy: FAIL: tracy-capture wrote no trace ($name)" >&2; exit 1; }
  "$OUT/tools/tracy-csvexport" "$OUT/$name.tracy" >"$OUT/$name.zones.csv"
  "$OUT/tools/tracy-csvexport" -m "$OUT/$name.tracy" >"$OUT/$name.messages.csv"
  "$OUT/tools/tracy-csvexport" -u -p "$OUT/$name.tracy" >"$OUT/$name.unwrapped.csv"
  "$OUT/tools/tracy-csvexport" -g "$OUT/$name.tracy" >"$OUT/$name.gpu.csv"
}
CAP_PID=
cleanup() { [ -n "$CAP_PID" ] && kill "$CAP_PID" 2>/dev/null || true; }
trap cleanup EXIT

capture demo "$OUT/build/examples/ludus-demo" --deterministic --frames "$FRAMES"
python3 "$SRC/tests/tracy/compare.py" "$OUT/builtin.json" "$OUT/demo.zones.csv" "$OUT/demo.messages.csv" \
  "$OUT/demo.unwrapped.csv"

# What Tracy needs nested and the macros do not promise nested.
cc -std=c11 -O2 -DLUDUS_BACKEND_TRACY=1 -I"$SRC/include" "$SRC/tests/tracy/edge.c" "$OUT/build/libludus.a" \
  -lstdc++ -lpthread -lm -ldl -o "$OUT/edge"
capture edge "$OUT/edge"
# tracy-csvexport -g (v0.14) waits for the CPU zones' index only, not the GPU
# zones' (Worker::AreGpuSourceLocationZonesReady), so a run can list none of
# them: edge.c sends 10, so an export with none is read again (10 tries).
for try in 1 2 3 4 5 6 7 8 9 10; do
  [ "$(wc -l <"$OUT/edge.gpu.csv")" -gt 1 ] && break
  "$OUT/tools/tracy-csvexport" -g "$OUT/edge.tracy" >"$OUT/edge.gpu.csv"
done
python3 "$SRC/tests/tracy/compare.py" --expect "$SRC/tests/tracy/edge_expect.txt" "$OUT/edge.zones.csv" \
  "$OUT/edge.messages.csv" "$OUT/edge.unwrapped.csv" "$OUT/edge.gpu.csv"
