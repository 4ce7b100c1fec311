#!/usr/bin/env python3
"""The issue's acceptance check, end to end: the demo against itself with one
job made twice as slow. `ludus-trace diff` must call that job's work (path
"Job: Animate/Execute") slower work and not more work, must not call the
job's calls per frame changed, and must trip a p50 gate (exit code 4; p50 rather than p90, which preemption on a loaded machine moves).
Counters: the slow run counts the same draw calls and jobs per frame (no
counter verdict); a run with 80 more draw calls per frame (400 -> 480) must
make "DrawCalls per frame" more work (+20%) and trip 'counter DrawCalls > +10%'.
   check_demo_diff.py DEMO LUDUS_TRACE WORKDIR"""
import json
import os
import subprocess
import sys

demo, tool, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
base = os.path.join(work, "base.json")
slow = os.path.join(work, "slow.json")
subprocess.run([demo, "--trace", base, "--frames", "120"], check=True, stdout=subprocess.DEVNULL)
subprocess.run([demo, "--trace", slow, "--frames", "120", "--slow-job", "Job: Animate", "--slow-factor", "2"],
               check=True, stdout=subprocess.DEVNULL)
bl, sl = base[:-5] + ".ludus", slow[:-5] + ".ludus"
out = subprocess.run([tool, "diff", bl, sl, "--json"], check=True, stdout=subprocess.PIPE).stdout
doc = json.loads(out)
entries = doc["entries"]
by = {(e["kind"], e["name"]): e for e in entries}
# Lock waits (the demo's JobQueue) come and go with contention, which a slower
# job changes: the diff compares them in its lock section ("more/less waiting"),
# so their scope entries are not held to "no calls per frame changed".
locks = {l["name"] for l in doc.get("locks", [])}

fail = []
e = by.get(("path", "Job: Animate/Execute"))
if e is None:
    fail.append("no entry for path Job: Animate/Execute")
else:
    if not e["flags"] & 4:
        fail.append("Job: Animate/Execute is not 'slower work': %s" % e["verdict"])
    if e["flags"] & 1:
        fail.append("Job: Animate/Execute is called 'more work'")
    if not 0.8 < e["rel"]["p50"] < 1.2:
        fail.append("Job: Animate/Execute p50 change %.2f, expected about +100%%" % e["rel"]["p50"])
for (kind, name), x in by.items():
    if name.split("/")[-1] in locks:
        continue
    if x["flags"] & 3:  # more or less work: no site's calls per frame changed
        fail.append("%s %s called %s" % (kind, name, x["verdict"]))
gate = subprocess.run([tool, "diff", bl, sl, "--fail-if", "p50 > +50%"], stdout=subprocess.DEVNULL)
if gate.returncode != 4:
    fail.append("--fail-if 'p50 > +50%%' exited %d, expected 4" % gate.returncode)
same = subprocess.run([tool, "diff", bl, bl, "--fail-if", "p90 > +5%"], stdout=subprocess.DEVNULL)
if same.returncode != 0:
    fail.append("BASE against itself exited %d, expected 0" % same.returncode)
cby = {(c["name"], c["series"]): c for c in json.loads(out)["counters"]}
for key in (("DrawCalls", "per frame"), ("JobsRun", "per frame")):
    c = cby.get(key)
    if c is None:
        fail.append("no counter entry for %s %s" % key)
    elif c["flags"] or c["mean"][0] != c["mean"][1]:
        fail.append("%s %s: %s, mean %s (same count per frame in both runs)" % (key + (c["verdict"], c["mean"])))
more = os.path.join(work, "more.json")
subprocess.run([demo, "--trace", more, "--frames", "120", "--extra-draws", "80"], check=True,
               stdout=subprocess.DEVNULL)
ml = more[:-5] + ".ludus"
mout = json.loads(subprocess.run([tool, "diff", bl, ml, "--json"], check=True, stdout=subprocess.PIPE).stdout)
c = {(c["name"], c["series"]): c for c in mout["counters"]}.get(("DrawCalls", "per frame"))
if c is None or c["verdict"] != "more work" or abs(c["rel"] - 0.2) > 0.005:
    fail.append("80 more draw calls per frame: DrawCalls per frame is %s" % c)
gate = subprocess.run([tool, "diff", bl, ml, "--fail-if", "counter DrawCalls > +10%"], stdout=subprocess.DEVNULL)
if gate.returncode != 4:
    fail.append("--fail-if 'counter DrawCalls > +10%%' exited %d, expected 4" % gate.returncode)
gate = subprocess.run([tool, "diff", bl, ml, "--fail-if", "counter DrawCalls > +30%"], stdout=subprocess.DEVNULL)
if gate.returncode != 0:
    fail.append("--fail-if 'counter DrawCalls > +30%%' exited %d, expected 0 (+20%%)" % gate.returncode)
for f in fail:
    print("FAIL:", f)
print("demo diff: %d entries, %s" % (len(entries), "FAILED" if fail else "Job: Animate/Execute is slower work"))
sys.exit(1 if fail else 0)
