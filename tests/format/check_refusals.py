"""Every refusal is counted and said: a capture with counters past the
counters' table and run-time names past its name table (tests/format/
refusals.c), saved, read back by `ludus-trace info`, whose "also:" line gives
both counts, and the JSON export's metadata."""
import json
import os
import subprocess
import sys

prog, tool, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
path = os.path.join(work, "refusals.ludus")
subprocess.run([prog, path], check=True)
info = subprocess.run([tool, "info", path], stdout=subprocess.PIPE, text=True, check=True).stdout
also = [l for l in info.splitlines() if l.startswith("also:")]
assert also, info
assert "100 run-time names refused" in also[0], also[0]
assert "72 counters/gauges/domains refused" in also[0], also[0]
js = os.path.join(work, "refusals.json")
subprocess.run([tool, "convert", path, js], check=True, stdout=subprocess.DEVNULL)
meta = json.load(open(js))["metadata"]
assert meta["interner_drops"] == 100 and meta["counters_refused"] == 72, meta
print("refusals: said by info (%s) and in the JSON metadata" % also[0].strip())
