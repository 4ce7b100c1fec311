"""A Chrome JSON trace written by a port (check_windows.sh, check_msvc.sh):
it parses and holds an event of each name given.
usage: check_trace_json.py TRACE NAME..."""
import json
import sys

d = json.load(open(sys.argv[1]))
names = {e.get("name") for e in d["traceEvents"]}
missing = [n for n in sys.argv[2:] if n not in names]
if missing:
    sys.exit("%s: no event named %s" % (sys.argv[1], missing))
print("%s: %d events, clock %s" % (sys.argv[1], len(d["traceEvents"]), d["metadata"]["clock"]["source"]))
