#!/usr/bin/env python3
"""Launch-to-exit capture: a program that never starts a capture itself (the
demo with --no-capture) run with LUDUS_TRACE=PATH writes PATH at exit, in
the format its extension names, with the events it recorded.
   check_launch.py DEMO LUDUS_TRACE WORKDIR"""
import json
import os
import subprocess
import sys

demo, tool, work = sys.argv[1:4]
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
doc = json.load(open(js))
ev = doc["traceEvents"]
frames = [e for e in ev if e.get("ph") == "i" and e.get("name") == "Frame"]
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
print("launch-to-exit: json, ludus and pftrace written at exit")
