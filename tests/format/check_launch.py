#!/usr/bin/env python3
"""Launch-to-exit capture: a program that never starts a capture itself (the
demo with --no-capture) run with LUDUS_TRACE=PATH writes PATH at exit, in
the format its extension names, with the events it recorded. Bad values are
said at load, once. A program that forks: with %p each process writes its
own file (the child's holds only the child's events); with one PATH for
both, and for two unrelated processes, the file is one complete capture.
With LUDUS_TRACE_MODE=rolling, the last window at exit and a file per hitch;
with LUDUS_TRACE_MODE=stream, the file written as it records.
   check_launch.py DEMO LUDUS_TRACE WORKDIR FORK_TRACE"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_json  # noqa: E402

demo, tool, work, fork_prog = sys.argv[1:5]
os.makedirs(work, exist_ok=True)


def run(path):
    if os.path.exists(path):
        os.remove(path)
    env = dict(os.environ, LUDUS_TRACE=path)
    p = subprocess.run([demo, "--no-capture", "--frames", "10"], env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    assert os.path.exists(path), (path, p.stderr)
    assert "ludus: wrote " + path in p.stderr, p.stderr
    return p.stderr


js = os.path.join(work, "launch.json")
run(js)
doc = trace_json.load(js)
ev = doc["traceEvents"]
frames = [e for e in ev if e.get("ph") == "I" and e.get("name") == "Frame"]
assert len(frames) == 10, len(frames)
assert doc["metadata"]["events"] > 0 and doc["metadata"]["dropped"] == 0, doc["metadata"]

lud = os.path.join(work, "launch.ludus")
run(lud)
info = subprocess.run([tool, "info", lud], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "Main" in info, info

pf = os.path.join(work, "launch.pftrace")
run(pf)
assert open(pf, "rb").read(1) == b"\x0a"

# ludus-trace itself links the library but never traces itself.
own = os.path.join(work, "tool.json")
if os.path.exists(own):
    os.remove(own)
p = subprocess.run([tool, "info", lud], env=dict(os.environ, LUDUS_TRACE=own), stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
assert not os.path.exists(own) and "ludus:" not in p.stderr, p.stderr

# Without LUDUS_TRACE nothing is written and nothing is said.
env = {k: v for k, v in os.environ.items() if k != "LUDUS_TRACE"}
p = subprocess.run([demo, "--no-capture", "--frames", "2"], env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
assert "ludus:" not in p.stderr, p.stderr
# Bad values are reported when the library loads, and nothing is traced.
max_chunks = min(1 << 24, os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2 // 65536)
for env, what in ((dict(LUDUS_TRACE=os.path.join(work, "x.txt")), "unknown extension"),
                  (dict(LUDUS_TRACE=os.path.join(work, "no", "dir", "x.json")), "cannot be written"),
                  (dict(LUDUS_TRACE=os.path.join(work, "x.json"), LUDUS_TRACE_CHUNKS="abc"), "LUDUS_TRACE_CHUNKS=abc"),
                  (dict(LUDUS_TRACE=os.path.join(work, "x.json"), LUDUS_TRACE_CHUNKS="0"), "LUDUS_TRACE_CHUNKS=0"),
                  (dict(LUDUS_TRACE=os.path.join(work, "x.json"), LUDUS_TRACE_CHUNKS="4294967297"), "LUDUS_TRACE_CHUNKS=4294967297"),
                  # more than half the machine's memory: refused, the bound named (docs/capture.md)
                  (dict(LUDUS_TRACE=os.path.join(work, "x.json"), LUDUS_TRACE_CHUNKS=str(max_chunks + 1)),
                   "in 1 .. %d (at most 2^24, and half this machine's" % max_chunks)):
    p = subprocess.run([demo, "--no-capture", "--frames", "1"], env=dict(os.environ, **env), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True)
    assert p.stderr.count("ludus:") == 1 and what in p.stderr and "not tracing" in p.stderr, (env, p.stderr)
    assert not os.path.exists(os.path.join(work, "x.json"))

# A pool too small: the exit line, `info` and `report` say how large a pool
# would have held it, and that pool does (the same events: --deterministic).
adv = os.path.join(work, "small.ludus")
p = subprocess.run([demo, "--no-capture", "--frames", "200", "--deterministic"],
                   env=dict(os.environ, LUDUS_TRACE=adv, LUDUS_TRACE_CHUNKS="1"), stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
line = [l for l in p.stderr.split("\n") if l.startswith("ludus: wrote " + adv)]
assert line and " dropped: the pool was full; LUDUS_TRACE_CHUNKS=" in line[0], p.stderr
chunks = line[0].split("LUDUS_TRACE_CHUNKS=")[1].split()[0]
assert int(chunks) > 1, line
info = subprocess.run([tool, "info", adv], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "would have held every event: LUDUS_TRACE_CHUNKS=%s " % chunks in info, info
rep = subprocess.run([tool, "report", adv], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "would have held every event: LUDUS_TRACE_CHUNKS=%s " % chunks in rep, rep[:1500]
p = subprocess.run([demo, "--no-capture", "--frames", "200", "--deterministic"],
                   env=dict(os.environ, LUDUS_TRACE=adv, LUDUS_TRACE_CHUNKS=chunks), stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
assert " 0 dropped)" in p.stderr and "would have held" not in p.stderr, (chunks, p.stderr)

# fork with %p: two files, each its own process's.
# Under ASan (GCC 12's runtime) a child forked while another thread of the
# parent (here the library's prefault thread) held an allocator region's
# lock finds it locked forever; glibc's malloc has fork handlers, the
# sanitizer's allocator does not. Only LeakSanitizer's exit check takes every
# region: it is off for these runs (no effect on other builds).
fork_env = dict(os.environ)
fork_env["ASAN_OPTIONS"] = (os.environ.get("ASAN_OPTIONS", "") + ":detect_leaks=0").lstrip(":")
fork_dir = os.path.join(work, "fork")
os.makedirs(fork_dir, exist_ok=True)
for f in os.listdir(fork_dir):
    os.remove(os.path.join(fork_dir, f))
p = subprocess.run([fork_prog, "20"], env=dict(fork_env, LUDUS_TRACE=os.path.join(fork_dir, "t-%p.json")),
                   stderr=subprocess.PIPE, text=True, timeout=30, check=True)
files = sorted(os.listdir(fork_dir))
assert len(files) == 2, (files, p.stderr)
docs = {}
for f in files:
    doc = trace_json.load(os.path.join(fork_dir, f))
    pids = {e["pid"] for e in doc["traceEvents"]}
    assert pids == {int(f[2:-5])}, (f, pids)
    names = {e.get("name") for e in doc["traceEvents"] if e["ph"] == "X"}
    docs[f] = names
kinds = sorted(tuple(sorted(n & {"InChild", "InParent", "BeforeFork"})) for n in docs.values())
assert kinds == [("BeforeFork", "InParent"), ("InChild",)], kinds  # the child holds none of the parent's events

# one PATH for both, and for two unrelated processes at once: each finished
# file is one complete capture, and no temporary is left
same = os.path.join(fork_dir, "same.json")
for _ in range(5):
    subprocess.run([fork_prog, "5"], env=dict(fork_env, LUDUS_TRACE=same), stderr=subprocess.DEVNULL, timeout=30,
                   check=True)
    trace_json.load(same)
    ps = [subprocess.Popen([demo, "--no-capture", "--frames", "5"], env=dict(os.environ, LUDUS_TRACE=same),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    assert all(q.wait(timeout=60) == 0 for q in ps)
    trace_json.load(same)
assert sorted(os.listdir(fork_dir)) == sorted(files + ["same.json"]), os.listdir(fork_dir)

# LUDUS_TRACE_MODE=rolling: the last window written to PATH at exit, a file
# per hitch next to it (the demo's injected hitches; the default cooldown
# keeps one in a run this short), each read by `ludus-trace report`; then
# the trigger, cooldown and limit from the environment
roll_dir = os.path.join(work, "rolling")
if os.path.isdir(roll_dir):
    for f in os.listdir(roll_dir):
        os.remove(os.path.join(roll_dir, f))
os.makedirs(roll_dir, exist_ok=True)
roll = os.path.join(roll_dir, "app.ludus")
p = subprocess.run([demo, "--no-capture", "--frames", "400"],
                   env=dict(os.environ, LUDUS_TRACE=roll, LUDUS_TRACE_MODE="rolling", LUDUS_TRACE_WINDOW_MS="300"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True, timeout=60)
assert "ludus: wrote " + roll in p.stderr, p.stderr
hitch_files = [f for f in os.listdir(roll_dir) if f.startswith("app-") and f.endswith("-hitch.ludus")]
assert len(hitch_files) >= 1, (os.listdir(roll_dir), p.stderr)
# the exit line: the hitches, the files, and what got no file and why
assert "ludus: rolling window: " in p.stderr and "%d file" % len(hitch_files) in p.stderr, p.stderr
for f in [roll] + [os.path.join(roll_dir, h) for h in hitch_files]:
    info = subprocess.run([tool, "info", f], stdout=subprocess.PIPE, text=True, check=True).stdout
    ms = float(info.split("duration ")[1].split(" ms")[0])
    # the window, two segments at most (a snapshot drops none), slack; the
    # switch thread keeps that bound, and a machine loaded past its CPUs can
    # starve it (then the window is only shorter than the run)
    overloaded = os.getloadavg()[0] > (os.cpu_count() or 1)
    assert 0 < ms < (5000 if overloaded else 300 + 2 * 75 + 100), (f, ms)
    rep = subprocess.run([tool, "report", f], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert "Frame" in rep, rep[:500]
p = subprocess.run([demo, "--no-capture", "--frames", "1"],
                   env=dict(os.environ, LUDUS_TRACE=roll, LUDUS_TRACE_MODE="ring"), stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE, text=True, check=True)
assert p.stderr.count("LUDUS_TRACE_MODE=ring") == 1 and "not tracing" in p.stderr, p.stderr

# LUDUS_TRACE_MODE=stream: the file written while the demo runs, in a pool of
# 16 chunks (1 MiB) that the whole run would not fit; the exit line says what
# was streamed; info prints its frames from the file's summary (no analysis),
# report reads it; a JSON path is refused
streamed = os.path.join(work, "streamed.ludus")
p = subprocess.run([demo, "--no-capture", "--frames", "300"],
                   env=dict(os.environ, LUDUS_TRACE=streamed, LUDUS_TRACE_MODE="stream", LUDUS_TRACE_CHUNKS="16"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True, timeout=120)
assert "ludus: wrote " + streamed in p.stderr and "streamed " in p.stderr, p.stderr
info = subprocess.run([tool, "info", streamed], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "format v6" in info and "from the file's summary" in info and "300 marks" in info, info
assert "streamed:" in info, info
rep = subprocess.run([tool, "report", streamed], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "299 complete frames" in rep, rep[:800]
p = subprocess.run([demo, "--no-capture", "--frames", "1"],
                   env=dict(os.environ, LUDUS_TRACE=os.path.join(work, "s.json"), LUDUS_TRACE_MODE="stream"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True)
assert "LUDUS_TRACE_MODE=stream writes a .ludus file" in p.stderr and "not tracing" in p.stderr, p.stderr


# The rolling window's trigger, cooldown and file limit from the environment.
def rolling(frames, **env):
    for f in os.listdir(roll_dir):
        os.remove(os.path.join(roll_dir, f))
    p = subprocess.run([demo, "--no-capture", "--frames", str(frames)],
                       env=dict(dict(os.environ, LUDUS_TRACE=roll, LUDUS_TRACE_MODE="rolling",
                                     LUDUS_TRACE_WINDOW_MS="300"), **env), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, check=True, timeout=60)
    return p.stderr, sorted(f for f in os.listdir(roll_dir) if f != "app.ludus")


err, files = rolling(400, LUDUS_TRACE_HITCH="off")  # no trigger: only the last window at exit
assert files == [] and "ludus: wrote " + roll in err, (files, err)
# a frame budget no frame of the demo passes: no hitch (frames of a few ms, its hitches 6 ms more)
err, files = rolling(400, LUDUS_TRACE_BUDGET_MS="1000")
assert files == [] and "ludus: wrote " + roll in err, (files, err)
# DrawCalls per frame is 120 + 250 + 10 x (frame % 7): above 420 in one frame of seven, every time
err, files = rolling(300, LUDUS_TRACE_HITCH="off", LUDUS_TRACE_TRIGGER_COUNTER="DrawCalls>420",
                     LUDUS_TRACE_COOLDOWN_MS="0", LUDUS_TRACE_POST_MS="0", LUDUS_TRACE_MAX_FILES="3")
assert 1 <= len(files) <= 3 and all(f.endswith("-counter.ludus") for f in files), (files, err)
err, files = rolling(300, LUDUS_TRACE_HITCH="off", LUDUS_TRACE_TRIGGER_COUNTER="DrawCalls:per frame>420",
                     LUDUS_TRACE_MAX_FILES="1")
assert len(files) == 1 and files[0].endswith("-counter.ludus"), (files, err)
for name, value in (("LUDUS_TRACE_HITCH", "0.5"), ("LUDUS_TRACE_COOLDOWN_MS", "soon"),
                    ("LUDUS_TRACE_TRIGGER_COUNTER", "DrawCalls"), ("LUDUS_TRACE_MAX_FILES", "0"),
                    ("LUDUS_TRACE_POST_MS", "-5"), ("LUDUS_TRACE_WINDOW_MS", "10"),
                    ("LUDUS_TRACE_BUDGET_MS", "soon"), ("LUDUS_TRACE_BUDGET_MS", "0")):
    err, files = rolling(1, **{name: value})
    assert err.count("%s=%s" % (name, value)) == 1 and "not tracing" in err and files == [], (name, err)

# A crash (the demo dereferences NULL in frame 30): the program still dies of
# SIGSEGV, and the capture (or, rolling, the window next to PATH) is on disk,
# marked with the signal, and `ludus-trace report` reads it. AddressSanitizer
# (the ASan tree) would catch the fault itself: its handler is left out.
crash_env = dict(os.environ, ASAN_OPTIONS="handle_segv=0")
crash_dir = os.path.join(work, "crash")
shutil.rmtree(crash_dir, ignore_errors=True)
os.makedirs(crash_dir)
for mode in ["window", "rolling"]:
    path = os.path.join(crash_dir, mode + ".ludus")
    p = subprocess.run([demo, "--no-capture", "--frames", "100", "--crash-at-frame", "30"],
                       env=dict(crash_env, LUDUS_TRACE=path, LUDUS_TRACE_MODE=mode), stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, timeout=60)
    assert p.returncode == -signal.SIGSEGV, (p.returncode, p.stderr)
    if mode == "window":
        written = path
    else:  # next to PATH, the reason in the name
        crashed = [f for f in os.listdir(crash_dir) if f.startswith("rolling-") and f.endswith("-crash-SIGSEGV.ludus")]
        assert len(crashed) == 1, os.listdir(crash_dir)
        written = os.path.join(crash_dir, crashed[0])
    assert "the capture is in " + written in p.stderr, p.stderr
    info = subprocess.run([tool, "info", written], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert "ended by:    a crash, SIGSEGV" in info, info
    assert "frames:      29 complete" in info and "30 marks" in info, info  # every frame before the crash (the window: 300 ms)
    rep = subprocess.run([tool, "report", written], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert "Ended by a crash: SIGSEGV" in rep and "Crash" in rep, rep[:800]

# kill -9 (no handler runs): with LUDUS_TRACE_POOL the pool is a file, and
# `ludus-trace recover` reads back what the demo recorded until the kill.
pool = os.path.join(crash_dir, "demo.pool")
p = subprocess.Popen([demo, "--no-capture", "--frames", "100000"],
                     env=dict(os.environ, LUDUS_TRACE=os.path.join(crash_dir, "never.ludus"), LUDUS_TRACE_POOL=pool),
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
deadline = time.time() + 30
while time.time() < deadline and (not os.path.exists(pool) or os.path.getsize(pool) == 0):
    time.sleep(0.01)
time.sleep(0.5)  # frames, and journal passes (20 ms)
p.kill()
assert p.wait(timeout=30) == -signal.SIGKILL
assert not os.path.exists(os.path.join(crash_dir, "never.ludus"))
recovered = os.path.join(crash_dir, "recovered.ludus")
out = subprocess.run([tool, "recover", pool, recovered], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
assert out.returncode == 0, out.stderr
assert "recovered ludus-demo" in out.stdout, out.stdout
info = subprocess.run([tool, "info", recovered], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "recovered from a pool file" in info, info
frames = int(info.split("frames:      ")[1].split()[0])
assert frames >= 1, info  # 500 ms of 2.5 ms frames (a loaded machine runs fewer)
rep = subprocess.run([tool, "report", recovered], stdout=subprocess.PIPE, text=True, check=True).stdout
assert "Recovered from a pool file" in rep and "Frame" in rep, rep[:800]
# A normal exit: the trace is written and the pool file removed (nothing
# is left to recover).
clean_pool = os.path.join(crash_dir, "clean.pool")
clean_trace = os.path.join(crash_dir, "clean.ludus")
p = subprocess.run([demo, "--no-capture", "--frames", "20"],
                   env=dict(os.environ, LUDUS_TRACE=clean_trace, LUDUS_TRACE_POOL=clean_pool),
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60)
assert p.returncode == 0, p.stderr
assert os.path.exists(clean_trace), p.stderr
assert not os.path.exists(clean_pool), "the pool file outlived a normal exit"
print("launch-to-exit: json, ludus and pftrace written at exit; bad values said at load; fork; rolling window; "
      "streamed; crash; "
      "kill -9 with a pool file; the pool file removed at a normal exit")
