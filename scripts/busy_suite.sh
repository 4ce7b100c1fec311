#!/usr/bin/env bash
# The busy-machine proof (issue 33): runs a built tree's ctest N times in a
# row beside two CPU burners (`while :; do :; done`), as a suite must pass on
# a machine doing other work. Each run prints a pass/fail line and the tests
# that failed; the burners are killed on any exit (trap). Exit 0 when every
# run passed, 1 when one failed, 2 on a usage error or a tree not built.
#
#   scripts/busy_suite.sh [plain|asan|tsan] N [REGEX]
#
# plain: BUILD (default build), as `make test-plain` runs it; asan: BUILD-asan
# without the compile checks (`make test-asan`); tsan: BUILD-tsan, the
# concurrency tests (`make test-tsan`). REGEX: only the tests it matches
# (ctest -R). Build the tree first (make build TESTS=ON, make test-asan ...).
# JOBS (default 2) is ctest's -j; BURNERS (default 2) the burners.
set -u

usage() {
    echo "usage: $0 [plain|asan|tsan] N [REGEX]  (N >= 1 runs; REGEX: ctest -R)" >&2
    exit 2
}

if [ $# -lt 2 ] || [ $# -gt 3 ]; then usage; fi
tree=$1
runs=$2
filter=${3:-}
case $runs in '' | *[!0-9]* | 0) usage ;; esac

root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
case $tree in
plain) dir=$build extra=() ;;
asan) dir=$build-asan extra=(-LE compile) ;;
tsan) dir=$build-tsan extra=(-L concurrency) ;;
*) usage ;;
esac
[ -f "$dir/CTestTestfile.cmake" ] || {
    echo "busy_suite: $dir is not a built test tree (build it first: docs/building.md)" >&2
    exit 2
}
what=""
if [ -n "$filter" ]; then
    extra+=(-R "$filter")
    what=", the tests matching \"$filter\""
fi

burners=()
stop_burners() {
    for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null; done
    for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null; done
    burners=()
}
trap stop_burners EXIT
trap 'exit 130' INT TERM
for _ in $(seq "${BURNERS:-2}"); do
    (while :; do :; done) &
    burners+=($!)
done
echo "busy_suite: $tree tree $dir, $runs run(s), ${#burners[@]} CPU burners (pids ${burners[*]})$what"

log=$(mktemp)
failed_runs=0
for i in $(seq "$runs"); do
    start=$(date +%s)
    (cd "$dir" && ctest --output-on-failure -j "${JOBS:-2}" "${extra[@]}") >"$log" 2>&1
    rc=$?
    secs=$(($(date +%s) - start))
    summary=$(grep -E '^[0-9]+% tests passed' "$log" | tail -1)
    if [ $rc -eq 0 ]; then
        echo "run $i/$runs: pass (${summary:-no summary}; ${secs} s)"
    else
        failed_runs=$((failed_runs + 1))
        echo "run $i/$runs: FAIL (rc $rc; ${summary:-no summary}; ${secs} s)"
        # ctest's list of failed tests: "	  12 - unit_fork (Failed)"
        sed -n '/^The following tests FAILED:/,/^[^[:space:]]/p' "$log" | grep -E '^[[:space:]]+[0-9]+ - ' |
            sed 's/^[[:space:]]*/  failed: /'
        # the failed tests' output (ctest --output-on-failure), kept for whoever hunts the cause
        keep="${TMPDIR:-/tmp}/busy_suite-$tree-run$i.log"
        cp "$log" "$keep" && echo "  output: $keep"
    fi
done
rm -f "$log"
echo "busy_suite: $((runs - failed_runs)) of $runs run(s) passed"
[ $failed_runs -eq 0 ]
