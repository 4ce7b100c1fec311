#!/usr/bin/env python3
"""Gate accuracy: for every `ludus-trace diff --fail-if` gate the docs show,
how often it trips on an unchanged program (A/A) and how often it finds one
site made slower, on a program with a job system whose work migrates
between threads (bench/diff_jobs.c: the main thread and two workers pop the
same jobs; the main thread then waits for the workers without a scope), on
a machine as loaded as a shared CI runner: two CPU-bound processes beside
the runs (--load 0 to run without them). The successor of diff_accuracy.py
for the gates (diff_accuracy.py still measures the verdicts on a
single-threaded program).

Two modes: paced (a frame limiter at --hz) and uncapped. Per mode, groups
of runs captured interleaved, so drift in the machine's load hits every
group alike: base1, base2 (the same program) and slowX (every Animate job
X% more CPU work, X in --changes). Each pair (the p-th runs of two groups)
is diffed with 1 and with --runs runs per side:

  A/A   base1 against base2: every tripped gate is a false trip
  +X %  base1 against slowX: a gate that can see Animate (one naming it, or
        one on any site) finds it when it trips

The gates run as a CI script would run them: one `ludus-trace diff
--fail-if ...` per pair with every gate, reading which tripped from its
stderr ('lock JobQueue' in a second diff of its own: a lock that never
waited on either side is a usage error, exit 1, counted as not judged).
'slower' and 'more time per frame' with --gate-sites-only are read from the
same diff's JSON (a site entry with that verdict: what the option gates).

  diff_gates.py DIFF_JOBS LUDUS_TRACE [--pairs 20] [--runs 3] [--load 2]
                [--frames 300] [--paced-frames 120] [--hz 100]
                [--changes 5,10,15] [--work DIR] [--reuse]"""
import argparse
import json
import os
import re
import subprocess

import loaded_captures
from loaded_captures import cpu_model

ap = argparse.ArgumentParser()
ap.add_argument("workload")
ap.add_argument("tool")
ap.add_argument("--pairs", type=int, default=20)
ap.add_argument("--runs", type=int, default=3)
ap.add_argument("--load", type=int, default=2, help="CPU-bound processes started beside the runs")
ap.add_argument("--frames", type=int, default=300, help="frames of an uncapped run")
ap.add_argument("--paced-frames", type=int, default=120, help="frames of a paced run")
ap.add_argument("--hz", type=float, default=100)
ap.add_argument("--changes", default="5,10,15")
ap.add_argument("--work", default="/tmp/ludus-diff-gates")
ap.add_argument("--reuse", action="store_true", help="diff the captures of an earlier run in --work again")
args = ap.parse_args()
changes = [int(x) for x in args.changes.split(",") if x]
os.makedirs(args.work, exist_ok=True)

SLOW = "Animate"
# (gate, what it can see of the slow site: "site" names it, "any" gates every
# site and path, None cannot see it: a counter, a lock, the errors)
GATES = [
    ("slower", "any"),
    ("slower " + SLOW, "site"),
    ("more time per frame", "any"),
    ("more time per frame " + SLOW, "site"),
    ("p50 > +5%", "any"),
    ("p50 " + SLOW + " > +5%", "site"),
    ("p90 > +5%", "any"),
    ("mean > +5%", "any"),
    ("total > +5%", "any"),
    ("calls > +10%", None),  # more calls: a slower Animate calls no more
    ("counter DrawCalls > +10%", None),
    ("errors > +0%", None),
    ("warnings > +10%", None),
]
LOCK_GATE = "lock JobQueue > +20%"
DERIVED = [("slower --gate-sites-only", "any", 4), ("more time per frame --gate-sites-only", "any", 128)]
ALL = [g for g, _ in GATES] + [LOCK_GATE] + [g for g, _, _ in DERIVED]
SEES = dict((g, s) for g, s in GATES)
SEES[LOCK_GATE] = None
for g, s, _ in DERIVED:
    SEES[g] = s
MODES = [("paced", ["--frames", str(args.paced_frames), "--hz", str(args.hz)]),
         ("uncapped", ["--frames", str(args.frames)])]


groups = ["base1", "base2"] + ["slow%d" % c for c in changes]
flags = {"base1": [], "base2": []}
for c in changes:
    flags["slow%d" % c] = ["--slow", str(c)]
n = args.pairs * args.runs
path = lambda m, g, i: os.path.join(args.work, "%s-%s-%03d.ludus" % (m, g, i))
load_before, load_after, capture_s, load = loaded_captures.capture(
    args.work, args.load, args.reuse,
    ([args.workload, path(m, g, i)] + mflags + flags[g] for i in range(n) for m, mflags in MODES for g in groups))

TRIP = re.compile(r"^gate '(.*)' tripped:")


def run_diff(base, new, gates, json_out):
    cmd = [args.tool, "diff"] + base + (["--"] if len(base) > 1 or len(new) > 1 else []) + new
    for g in gates:
        cmd += ["--fail-if", g]
    if json_out:
        cmd.append("--json")
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 4, 1):
        raise SystemExit("diff failed (%d): %s\n%s" % (p.returncode, " ".join(cmd), p.stderr))
    tripped = {}
    for line in p.stderr.splitlines():
        mt = TRIP.match(line)
        if mt:
            tripped.setdefault(mt.group(1), []).append(line)
    return p.returncode, tripped, (json.loads(p.stdout) if json_out and p.returncode != 1 else None)


def judge(base, new):
    """{gate: (tripped, sees the slow site)}, or None for a gate not judged"""
    out = {}
    rc, tripped, doc = run_diff(base, new, [g for g, _ in GATES], True)
    if rc == 1:
        raise SystemExit("usage error from the gates: %s" % [g for g, _ in GATES])
    for g, _ in GATES:
        lines = tripped.get(g, [])
        out[g] = (bool(lines), any(re.search(r"\b(site|path) (\S+/)?%s\b" % SLOW, l) for l in lines))
    for g, _, bit in DERIVED:
        hit = [e for e in doc["entries"] if e["kind"] == "site" and e["flags"] & bit]
        out[g] = (bool(hit), any(e["name"] == SLOW for e in hit))
    rc, tripped, _ = run_diff(base, new, [LOCK_GATE], False)
    out[LOCK_GATE] = None if rc == 1 else (bool(tripped.get(LOCK_GATE)), False)
    machine = doc.get("machine", {}).get("changed", False)
    return out, machine


# results[(mode, runs, change)][gate] = [tripped, found, not judged]; machine[(mode, runs, change)] = pairs
results, machine = {}, {}
examples = []
for m, _ in MODES:
    for runs in (1, args.runs):
        for change in [None] + changes:
            key = (m, runs, change)
            res = results[key] = dict((g, [0, 0, 0]) for g in ALL)
            machine[key] = 0
            for p in range(args.pairs):
                idx = [p * args.runs + k for k in range(runs)]
                base = [path(m, "base1", i) for i in idx]
                new = [path(m, "base2" if change is None else "slow%d" % change, i) for i in idx]
                out, mach = judge(base, new)
                machine[key] += mach
                for g in ALL:
                    if out[g] is None:
                        res[g][2] += 1
                        continue
                    res[g][0] += out[g][0]
                    found = out[g][1] if SEES[g] == "site" or SEES[g] == "any" else False
                    res[g][1] += found
                    if change is None and out[g][0] and len(examples) < 16:
                        examples.append("%s, %d run(s)/side, pair %d: %s" % (m, runs, p, g))

P = args.pairs
print("Gate accuracy: %d pairs per cell; bench/diff_jobs (3 threads, the jobs migrate), paced at %g Hz "
      "(%d frames) and uncapped (%d frames); %d CPU-bound processes beside the runs" % (
          P, args.hz, args.paced_frames, args.frames, load))
print("CPU: %s, %d cores; load average %s before the captures, %s after; captures took %.0f s" % (
    cpu_model(), os.cpu_count() or 0, load_before, load_after, capture_s))
print()
cols = []
for m, _ in MODES:
    for runs in (1, args.runs):
        cols.append((m, runs))
head = "| gate | " + " | ".join("%s, %d run%s/side: A/A trips; found +%s %%" % (
    m, r, "" if r == 1 else "s", "/".join(str(c) for c in changes)) for m, r in cols) + " |"
print(head)
print("|---" * (1 + len(cols)) + "|")
holds = {}
for g in ALL:
    cells = []
    ok = True
    for m, runs in cols:
        aa = results[(m, runs, None)][g]
        nj = aa[2]
        cell = "%d/%d" % (aa[0], P - nj) + (" (%d not judged)" % nj if nj else "")
        if SEES[g]:
            cell += "; " + "/".join("%d" % results[(m, runs, c)][g][1] for c in changes)
        cells.append(cell)
        ok = ok and aa[0] <= max(1, (P - nj) // 20) and P - nj >= P // 2
        if SEES[g] and runs == args.runs and 15 in changes:
            ok = ok and results[(m, runs, 15)][g][1] >= P - P // 20
    holds[g] = ok
    print("| `%s` | %s |" % (g, " | ".join(cells)))
print()
print("Pairs where the diff said the machine changed: " + (", ".join(
    "%s %d run(s) %s: %d" % (m, r, "A/A" if c is None else "+%d%%" % c, machine[(m, r, c)])
    for m, r in cols for c in [None] + changes if machine[(m, r, c)]) or "none"))
if examples:
    print("\nFalse trips (first ones):")
    for x in examples:
        print("  " + x)
print()
print("Holds (A/A false trips <= 1 in %d in every cell; +15%% found >= %d in %d with %d runs where it can see Animate):" %
      (P, P - P // 20, P, args.runs))
for g in ALL:
    print("  %s %s" % ("HOLDS" if holds[g] else "FAILS", g))
