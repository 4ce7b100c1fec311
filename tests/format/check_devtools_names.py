#!/usr/bin/env python3
"""A Chrome JSON trace of scopes named after DevTools' own events (Animation,
RunTask, FunctionCall, Paint, ...), with and without a category: every slice
carries a category (a scope without one gets "default") and the name as
recorded followed by a zero-width space (U+200B): DevTools' trace_engine
interprets these names whatever the category, and stops on the args it
expects, so the written name must differ from its own while it shows the
same. A name DevTools does not interpret ("Outer") is written as it is.
usage: check_devtools_names.py DEVTOOLS_NAMES OUT.json"""
import json, subprocess, sys

prog, out = sys.argv[1:3]
subprocess.run([prog, out], check=True)
with open(out) as f:
    events = json.load(f)
events = events["traceEvents"] if isinstance(events, dict) else events
slices = [e for e in events if e.get("ph") == "X" and e.get("cat") != "flow"]
fail = [e for e in slices if not isinstance(e.get("cat"), str) or not e["cat"]]
assert not fail, "slices without a category: %r" % fail[:3]
ZWSP = "\u200b"
cats = {}
for e in slices:
    name = e["name"]
    if name != "Outer":
        assert name.endswith(ZWSP) and ZWSP not in name[:-1], repr(name)
        name = name[:-1]
    else:
        assert ZWSP not in name, repr(name)
    cats.setdefault(name, set()).add(e["cat"])
want = {"Animation": {"default", "game"}, "RunTask": {"default", "jobs"}, "FunctionCall": {"default", "jobs"},
        "Paint": {"default", "render"}, "Layout": {"default"}, "UpdateLayoutTree": {"default"},
        "EventDispatch": {"input"}, "TimerFire": {"default"}, "Outer": {"default"}}
for name, c in want.items():
    assert cats.get(name) == c, (name, cats.get(name), c)
instants = [e for e in events if e.get("ph") in ("I", "i")]
assert all(isinstance(e.get("cat"), str) and e["cat"] for e in instants), instants[:3]
print("ok: %d slices, each with a category; names as recorded" % len(slices))
