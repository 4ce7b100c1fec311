#!/usr/bin/env python3
"""Live from outside (docs/live.md): the demo started with LUDUS_LIVE=1 and
no LUDUS_TRACE is watched and captured by ludus-trace.
  1. clear errors: a dead pid, a process that publishes nothing, another
     user's process (when this runs as root: the watcher runs as nobody);
  2. `top PID --once --json`: frame times and top scopes recorded live, the
     demo's counter (DrawCalls: 370 .. 430 per frame, by construction)
     exact;
  3. the same period: while `top --json` streams, `capture PID --seconds 1`
     records; the top scopes published for those seconds (computed in the
     process from the capture) and the frame times the ring published are
     checked against `ludus-trace report` of the file (computed by the
     analysis library): the same scope ranked first (or one the report puts
     within the tolerance below of the first), each of the first five
     scopes' exclusive time within what the method allows (the report also
     counts the partial frames before the first and after the last mark of
     the capture: their length times the threads, plus 1 %), the frame
     p50 within 5 % (two clock reads of one mark: the ring's and the event's);
  4. the capture's file loads in the viewers' tools (report, convert);
  5. a link at the output, or planted at the temporary's name, is replaced,
     never followed; an unwritable path is a clear error;
  6. a program recording its own capture (LUDUS_TRACE) says it is busy; one
     running its own rolling window is read instead, and captured from it;
  7. top exits cleanly when the process does.
   check_live.py DEMO LUDUS_TRACE WORKDIR"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

demo, tool, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
procs = []


def fail(msg):
    for p in procs:
        if p.poll() is None:
            p.kill()
    sys.exit("FAIL: " + str(msg))


def check(cond, msg):
    if not cond:
        fail(msg)


def start_demo(extra_env=None):
    env = dict(os.environ, LUDUS_LIVE="1")
    env.pop("LUDUS_TRACE", None)
    env.update(extra_env or {})
    p = subprocess.Popen([demo, "--no-capture", "--frames", "100000000"], env=env, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    procs.append(p)
    # the block appears when the library loads, and is whole once its magic is written last:
    # wait for both (not a timing assertion: up to 20 s; a watcher that comes between the two
    # is told "still starting its live block (try again)")
    for _ in range(200):
        fds = os.path.join("/proc", str(p.pid), "fd")
        try:
            for f in os.listdir(fds):
                if os.readlink(os.path.join(fds, f)).startswith("/memfd:ludus-live"):
                    with open(os.path.join(fds, f), "rb") as block:
                        if block.read(8) == b"LUDLIVE\0":
                            return p
        except OSError:
            pass
        time.sleep(0.1)
    fail("the demo never published its live block: " + (p.stderr.read() if p.poll() is not None else ""))


def lt(*args, check_rc=0, **kw):
    r = subprocess.run([tool] + [str(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=120, **kw)
    if check_rc is not None and r.returncode != check_rc:
        fail("ludus-trace %s: rc %d (wanted %d)\n%s%s" % (" ".join(map(str, args)), r.returncode, check_rc, r.stdout,
                                                           r.stderr))
    return r


def nearest_rank(v, q):
    v = sorted(v)
    k = int(q * len(v) + 0.999999)
    return v[max(k, 1) - 1]


def top_once_json(pid):
    """`top PID --once --json` until its reading holds top scopes: --once prints after its
    settle time at the first new top scopes, or 10 s later without them (a loaded machine
    may take longer: a reading without scopes is asked again; not a timing assertion, up to
    12 readings)."""
    for _ in range(12):
        doc = json.loads(lt("top", pid, "--once", "--json").stdout)
        if doc["top"]["scopes"] or "records its own capture" in doc["state"]:
            return doc
    return doc


# ---- 1. errors ----
dead = subprocess.Popen(["true"])
dead.wait()
r = lt("top", dead.pid, "--once", check_rc=1)
check("no process %d" % dead.pid in r.stderr, r.stderr)
r = lt("capture", dead.pid, "-o", os.path.join(work, "dead.ludus"), check_rc=1)
check("no process" in r.stderr, r.stderr)
r = lt("top", os.getpid(), "--once", check_rc=1)
check("publishes nothing" in r.stderr and "LUDUS_LIVE=1" in r.stderr, r.stderr)
r = lt("top", "12x", check_rc=1)
check("not a number" in r.stderr, r.stderr)

d = start_demo()
if os.geteuid() == 0 and shutil.which("setpriv"):
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", tool, "top", str(d.pid),
                        "--once"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
    if "Permission denied" in r.stderr or r.returncode == 127 or "cannot open shared object" in r.stderr:
        print("skip: nobody cannot run %s here (%s)" % (tool, r.stderr.strip()[:200]))
    else:
        check(r.returncode == 1 and "belongs to user 0" in r.stderr and "only that user (or root)" in r.stderr,
              "another user's process: rc %d %s" % (r.returncode, r.stderr))
else:
    print("skip: the wrong-user check needs root and setpriv (here: uid %d)" % os.geteuid())

# ---- 2. top --once --json: recorded live ----
doc = top_once_json(d.pid)
check(doc["pid"] == d.pid and doc["process"].startswith("ludus-demo"), doc["process"])
check(doc["state"] == "recording top scopes", doc["state"])
fr = doc["frames"]
check(fr["count"] > 0 and 0 < fr["p50_ns"] <= fr["p99_ns"] <= fr["max_ns"], fr)
nums = [f[0] for f in fr["list"]]
check(nums == sorted(nums) and len(set(nums)) == len(nums), "frame numbers not increasing")
top = doc["top"]
check(top["rc"] == 0 and top["frames"] > 0 and top["scopes"], top)
ex = [s["exclusive_ns"] for s in top["scopes"]]
check(ex == sorted(ex, reverse=True), "scopes not ranked by exclusive time: %s" % ex)
check(top["frame_thread"] == "Main", top["frame_thread"])
names = {s["name"] for s in top["scopes"]}
check({"MainPass", "ShadowMaps", "Execute"} <= names, names)
vals = {v["name"]: v for v in doc["values"]}
dc = vals.get("DrawCalls")
check(dc and dc["kind"] == "counter" and dc["frames"] > 0, vals.keys())
check(370 <= dc["min"] <= dc["max"] <= 430 and 370 * dc["frames"] <= dc["sum"] <= 430 * dc["frames"], dc)
check(vals.get("Memory/Render", {}).get("kind") == "memory", vals.keys())

# plain text, one reading
for _ in range(12):  # as top_once_json: a reading without top scopes is asked again
    r = lt("top", d.pid, "--once")
    if "top scopes over " in r.stdout:
        break
check("top scopes over " in r.stdout and "p50" in r.stdout and "DrawCalls" in r.stdout, r.stdout)

# ---- 3. the same period: top streaming while a capture records ----
out = os.path.join(work, "live.ludus")
stream = subprocess.Popen([tool, "top", str(d.pid), "--json", "--window", "4096", "--interval", "200"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
procs.append(stream)
r = lt("capture", d.pid, "--seconds", "1", "-o", out)
check("wrote " + out in r.stdout, r.stdout)
after = None
deadline = time.time() + 60
while time.time() < deadline:
    line = stream.stdout.readline()
    if not line:
        break
    v = json.loads(line)
    c = v["capture"]
    if c["state"] == 2 and c["path"] == out and v["top"]["computed_ns"] >= c["end_ns"] and \
            c["begin_ns"] <= v["top"]["begin_ns"] and v["top"]["end_ns"] <= c["end_ns"]:
        after = v
        break
stream.kill()
stream.wait()
check(after is not None, "top never showed the capture's top scopes")
cap = after["capture"]
rep = json.loads(lt("report", out, "--json").stdout)
# the status the process published is the file's
check(rep["capture"]["events"] == cap["events"] and rep["capture"]["dropped"] == cap["dropped"], (rep["capture"], cap))
# the complete frames: the report's window is every one of them, the top's the last 4096 of them
check(abs(rep["window"]["frames"] - after["top"]["frames"]) <= 1, (rep["window"], after["top"]["frames"]))
sites = sorted(rep["sites"], key=lambda s: -s["exclusive"]["total_ns"])
live = {s["name"]: s for s in after["top"]["scopes"]}
# the partial frames at the capture's ends (the report counts them, the window not)
marks = [f for f in after["frames"]["list"] if cap["begin_ns"] <= f[1] and f[1] + f[2] <= cap["end_ns"]]
check(len(marks) >= 10, "frames of the capture in the ring: %d" % len(marks))
edges = (marks[0][1] - cap["begin_ns"]) + (cap["end_ns"] - (marks[-1][1] + marks[-1][2]))
threads = 1 + 3  # Main and the demo's 3 workers
by_name = {s["name"]: s["exclusive"]["total_ns"] for s in sites}
first = after["top"]["scopes"][0]["name"]
# the same scope first, up to what the method allows (two scopes within it of each other may swap)
check(first == sites[0]["name"] or
      by_name.get(first, 0) >= sites[0]["exclusive"]["total_ns"] - (edges * threads + 0.01 * by_name.get(first, 0)),
      "first scope: live %s, report %s (%s)" % (first, sites[0]["name"], by_name))
for s in sites[:5]:
    name = s["name"]
    check(name in live, "%s (report) not among the live scopes %s" % (name, list(live)))
    a, b = live[name]["exclusive_ns"], s["exclusive"]["total_ns"]
    tol = edges * threads + 0.01 * b
    check(abs(a - b) <= tol, "%s: live %d ns, report %d ns, allowed %d" % (name, a, b, tol))
p50_live = nearest_rank([f[2] for f in marks], 0.5)
p50_rep = rep["frames"]["median_ns"]
check(abs(p50_live - p50_rep) <= 0.05 * p50_rep, "frame p50: ring %d ns, report %d ns" % (p50_live, p50_rep))
print("same period: %d frames; first %s; p50 ring %.3f ms, report %.3f ms" %
      (rep["window"]["frames"], sites[0]["name"], p50_live / 1e6, p50_rep / 1e6))

# ---- 4. the file loads in the viewers' tools ----
r = lt("report", out)
check("Ludus report" in r.stdout and "Frame time" in r.stdout, r.stdout[:400])
lt("convert", out, os.path.join(work, "live.json"))
check(json.load(open(os.path.join(work, "live.json")))["traceEvents"], "empty JSON export")
# the process goes on: still watchable, still recording top scopes
doc = top_once_json(d.pid)
check(doc["state"] == "recording top scopes" and doc["top"]["scopes"], (doc["state"], doc["top"]))

# ---- 5. links are replaced, never followed; a bad path is a clear error ----
victim = os.path.join(work, "victim.txt")
with open(victim, "w") as f:
    f.write("keep me")
link = os.path.join(work, "link.ludus")
os.symlink(victim, link)
lt("capture", d.pid, "--seconds", "0.2", "-o", link)
check(not os.path.islink(link) and open(victim).read() == "keep me", "the output link was followed")
planted = os.path.join(work, ".planted.ludus.%d.live-tmp" % d.pid)
os.symlink(victim, planted)
lt("capture", d.pid, "--seconds", "0.2", "-o", os.path.join(work, "planted.ludus"))
check(open(victim).read() == "keep me" and not os.path.lexists(planted), "the planted temporary was followed")
check(os.path.isfile(os.path.join(work, "planted.ludus")), "no capture beside the planted link")
r = lt("capture", d.pid, "--seconds", "0.2", "-o", "/nonexistent-dir/x.ludus", check_rc=3)
check("cannot create" in r.stderr and "No such file" in r.stderr, r.stderr)
r = lt("capture", d.pid, "-o", os.path.join(work, "x.txt"), check_rc=1)
check("extension" in r.stderr, r.stderr)

# ---- 7. top exits when the process does ----
stream = subprocess.Popen([tool, "top", str(d.pid), "--interval", "200"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
procs.append(stream)
stream.stdout.readline()  # it runs
d.send_signal(signal.SIGTERM)
d.wait(timeout=30)
try:
    so, se = stream.communicate(timeout=30)
except subprocess.TimeoutExpired:
    fail("top did not exit after the process did")
check(stream.returncode == 0 and "process %d exited" % d.pid in so, (stream.returncode, so[-300:], se))

# ---- 6. a program with its own capture ----
b = start_demo({"LUDUS_TRACE": os.path.join(work, "own.ludus")})
doc = json.loads(lt("top", b.pid, "--once", "--json", "--settle", "500").stdout)
check("records its own capture" in doc["state"], doc["state"])
r = lt("capture", b.pid, "--seconds", "0.2", "-o", os.path.join(work, "busy.ludus"), check_rc=3)
check("capture of its own" in r.stderr, r.stderr)
b.send_signal(signal.SIGTERM)
b.wait(timeout=30)

# ... and one running its own rolling window: top reads it, capture writes its last seconds
b = start_demo({"LUDUS_TRACE": os.path.join(work, "roll.ludus"), "LUDUS_TRACE_MODE": "rolling",
                "LUDUS_TRACE_HITCH": "off"})
doc = top_once_json(b.pid)
check("program's own rolling window" in doc["state"] and doc["top"]["scopes"], doc["state"])
win = os.path.join(work, "window.json")
lt("capture", b.pid, "--seconds", "0.5", "-o", win)
check(json.load(open(win))["traceEvents"], "empty window capture")
b.send_signal(signal.SIGTERM)
b.wait(timeout=30)
print("ok")
