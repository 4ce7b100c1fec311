# Sourced by check_windows.sh and check_msvc.sh (after wine_session.sh and
# fail): the live view between two processes under Wine (docs/live.md).
#   check_live_windows LIVE_EXE TRACE_EXE DIR
# LIVE_EXE is tests/ports/windows_live.c built for the port. The watched
# program runs with LUDUS_LIVE=1; windows_live's own watcher checks the
# block's security, the ring that wakes the idle process and a capture on
# demand; ludus-trace.exe reads it with top --once --json, takes a capture,
# and a streaming top exits when the program does. Every wait is bounded
# and names what it waited for.
live_wait_for() { # SECONDS WHAT TEST...: until the test holds, SECONDS at most
    secs=$1 what=$2 n=$(($1 * 10))
    shift 2
    while ! "$@"; do
        n=$((n - 1))
        [ "$n" -gt 0 ] || { echo "live: waited $secs s for $what"; return 1; }
        sleep 0.1
    done
}
live_gone() { ! kill -0 "$1" 2>/dev/null; }
live_started() { test -s "$1" || live_gone "$2"; } # PIDFILE PID: it wrote its pid, or it is gone

check_live_windows() {
    live=$1 trace=$2 dir=$3
    rm -rf "$dir" && mkdir -p "$dir"
    LUDUS_LIVE=1 "$wine" "$live" serve "$dir" >"$dir/serve.txt" 2>&1 &
    serve_pid=$!
    live_wait_for 120 "its pid file" live_started "$dir/pid" "$serve_pid" || fail "live: the program did not start"
    [ -s "$dir/pid" ] || { cat "$dir/serve.txt"; fail "live: the program exited before it wrote its pid"; }
    pid=$(tr -d '\r\n' <"$dir/pid")
    "$wine" "$live" watch "$pid" "$dir" >"$dir/watch.txt" 2>&1 || { cat "$dir/watch.txt"; fail "live: windows_live watch"; }
    # top --once --json: a reading before the program's first top scopes is
    # asked again (as tests/live/check_live.py does), 12 times at most
    python3 - "$wine" "$trace" "$pid" <<'EOF' || fail "live: ludus-trace top --once --json"
import json, subprocess, sys
wine, trace, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
names = []
for _ in range(12):
    r = subprocess.run([wine, trace, "top", str(pid), "--once", "--json"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["pid"] == pid, (d["pid"], pid)
    assert d["frames"]["total"] > 0, d["frames"]
    names = [s["name"] for s in d["top"]["scopes"]]
    if "LiveWork" in names:
        sys.exit(0)
sys.exit("no reading of 12 named LiveWork among its top scopes: %s" % names)
EOF
    "$wine" "$trace" capture "$pid" --seconds 0.5 -o "$dir/cli.ludus" >"$dir/capture.txt" 2>&1 ||
        { cat "$dir/capture.txt"; fail "live: ludus-trace capture"; }
    "$wine" "$trace" report "$dir/cli.ludus" --top 5 >"$dir/cli-report.txt" 2>&1 ||
        { cat "$dir/cli-report.txt"; fail "live: ludus-trace report of the capture"; }
    grep -q LiveWork "$dir/cli-report.txt" || { cat "$dir/cli-report.txt"; fail "live: the capture holds no LiveWork"; }
    # a top that streams lines exits 0 when the program exits
    "$wine" "$trace" top "$pid" --json >"$dir/stream.json" 2>"$dir/stream.err" &
    top_pid=$!
    live_wait_for 120 "a reading" test -s "$dir/stream.json" || { cat "$dir/stream.err"; fail "live: streaming top wrote nothing"; }
    "$wine" "$live" stop "$pid" "$dir" >"$dir/stop.txt" 2>&1 || { cat "$dir/stop.txt"; fail "live: windows_live stop"; }
    live_wait_for 120 "the program to exit" live_gone "$serve_pid" || fail "live: the program did not exit"
    wait "$serve_pid" || { cat "$dir/serve.txt"; fail "live: the watched program failed"; }
    live_wait_for 120 "top to exit" live_gone "$top_pid" || { kill "$top_pid"; fail "live: top went on after the program exited"; }
    wait "$top_pid" || { cat "$dir/stream.err"; fail "live: top exited with an error"; }
    printf 'live view under Wine: %s readings streamed; %s\n' "$(grep -c . "$dir/stream.json")" "$(head -1 "$dir/capture.txt")"
}
