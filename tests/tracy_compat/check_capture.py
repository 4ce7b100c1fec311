#!/usr/bin/env python3
"""Checks a JSON capture of a program instrumented with Tracy's names
against an expectation file: one rule a line, fields separated by '|':
  zone|NAME|N            N slices named NAME (not lock waits)
  lock|NAME|N            N lock waits (category "lock") named NAME
  lock_max|NAME|N        at most N lock waits named NAME
  inside|CHILD|PARENT    every CHILD slice lies within a PARENT slice of its thread
  args|NAME|K=V,...      every slice named NAME has these annotations (values as text)
  frames|N               N frames
  counter|NAME|N|LAST    N samples on the track NAME, the last one LAST
  message|TEXT|N         N log messages TEXT
  memory|DOMAIN|ALLOCS|FREES|LIVE|ALLOC_BYTES   the domain's figures at capture end
  meta|KEY|VALUE         a figure of the capture's metadata (dropped, orphan_ends...)
usage: check_capture.py CAPTURE.json EXPECT.txt"""
import json
import sys

cap = json.load(open(sys.argv[1]))
ev = cap["traceEvents"]
meta = cap["metadata"]
slices = [e for e in ev if e.get("ph") == "X"]
errors = []


def fail(rule, msg):
    errors.append("%s: %s" % (rule, msg))


def num(text):
    return float(text)


for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    f = line.split("|")
    kind = f[0]
    if kind in ("zone", "lock", "lock_max"):
        is_lock = kind != "zone"
        n = sum(1 for e in slices if e["name"] == f[1] and (e.get("cat") == "lock") == is_lock)
        if (kind == "lock_max" and n > int(f[2])) or (kind != "lock_max" and n != int(f[2])):
            fail(line, "found %d" % n)
    elif kind == "inside":
        parents = [e for e in slices if e["name"] == f[2]]
        kids = [e for e in slices if e["name"] == f[1]]
        if not kids:
            fail(line, "no %s" % f[1])
        for k in kids:
            if not any(p["tid"] == k["tid"] and p["ts"] <= k["ts"] and k["ts"] + k["dur"] <= p["ts"] + p["dur"]
                       for p in parents):
                fail(line, "a %s at ts %s is in no %s" % (f[1], k["ts"], f[2]))
                break
    elif kind == "args":
        want = dict(kv.split("=", 1) for kv in f[2].split(","))
        named = [e for e in slices if e["name"] == f[1]]
        if not named:
            fail(line, "no slice")
        for e in named:
            got = {k: str(v) for k, v in e.get("args", {}).items()}
            for k, v in want.items():
                if got.get(k) != v:
                    fail(line, "args %s" % got)
                    break
    elif kind == "frames":
        if meta["frames"] != int(f[1]):
            fail(line, "found %d" % meta["frames"])
    elif kind == "counter":
        s = [e for e in ev if e.get("ph") == "C" and e["name"] == f[1]]
        if len(s) != int(f[2]):
            fail(line, "found %d samples" % len(s))
        elif s and num(list(s[-1]["args"].values())[0]) != num(f[3]):
            fail(line, "last %s" % s[-1]["args"])
    elif kind == "message":
        n = sum(1 for e in ev if e.get("ph") in ("I", "i") and e.get("cat") == "log" and e["name"] == f[1])
        if n != int(f[2]):
            fail(line, "found %d" % n)
    elif kind == "memory":
        d = [x for x in meta["memory_coverage"]["domains"] if x["name"] == f[1]]
        if not d:
            fail(line, "no domain")
            continue
        d = d[0]
        got = [d["allocs"], d["frees"], d["live_bytes"], d["alloc_bytes"]]
        if got != [int(x) for x in f[2:6]]:
            fail(line, "found allocs, frees, live, alloc_bytes = %s" % got)
    elif kind == "meta":
        if str(meta.get(f[1])) != f[2]:
            fail(line, "found %s" % meta.get(f[1]))
    else:
        fail(line, "unknown rule")

for e in errors:
    print("FAIL " + e)
print("%s: %s" % (sys.argv[1], "FAILED" if errors else "ok"))
sys.exit(1 if errors else 0)
