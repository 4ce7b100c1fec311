#!/usr/bin/env python3
"""Two processes (merge_peer send / recv, traced with LUDUS_TRACE, running
at once) merged by `ludus-trace merge` into one JSON and one Perfetto trace:
a process each; every event of each capture is there, shifted by its
capture's start after the earliest (exact to the ns in pftrace, to the JSON's
0.001 us); sequences, track uuids and the library's own flow ids do not
collide; the flow whose id the program gave links the two processes.
usage: check_merge.py PEER LUDUS_TRACE PROTOC PROTO WORKDIR"""
import collections, json, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_json  # noqa: E402
import pftrace_time  # noqa: E402

peer, tool, protoc, proto, work = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
a, b = os.path.join(work, "send.ludus"), os.path.join(work, "recv.ludus")
recv = subprocess.Popen([peer, "recv", "42", "40"], env=dict(os.environ, LUDUS_TRACE=b), stderr=subprocess.DEVNULL)
subprocess.run([peer, "send", "42"], env=dict(os.environ, LUDUS_TRACE=a), stderr=subprocess.DEVNULL, check=True,
               timeout=30)
assert recv.wait(timeout=30) == 0
CALLER = (1 << 63) | 42


def run(*args):
    return subprocess.run([tool, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)


def info(path):
    out = run("info", path).stdout
    pid = int(out.split("(pid ")[1].split(")")[0])
    start = int(out.split("capture:     ")[1].split(" ..")[0])
    return pid, start


(pa, sa), (pb, sb) = info(a), info(b)
assert pa != pb
origin = min(sa, sb)
shift = {pa: sa - origin, pb: sb - origin}

# ---- JSON ----
mj = os.path.join(work, "all.json")
out = run("merge", a, b, "-o", mj).stdout
assert "merged 2 capture(s)" in out, out
doc = trace_json.load(mj)
ev = doc["traceEvents"]
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert set(procs) == {pa, pb}, procs
meta = doc["metadata"]
assert meta["merged"] is True and meta["time_origin_ns"] == origin, meta
assert {c["pid"]: c["ts_offset_ns"] for c in meta["captures"]} == shift, meta["captures"]
for path, pid in ((a, pa), (b, pb)):
    one = os.path.join(work, "one.json")
    run("convert", path, one)
    own = [e for e in trace_json.load(one)["traceEvents"] if e["ph"] != "M"]
    mine = [e for e in ev if e["ph"] != "M" and e["pid"] == pid]
    assert len(own) == len(mine), (pid, len(own), len(mine))
    key = lambda e: (e["ph"], e.get("name", ""), e["tid"])  # noqa: E731
    for x, y in zip(sorted(own, key=lambda e: (key(e), float(e["ts"]))),
                    sorted(mine, key=lambda e: (key(e), float(e["ts"])))):
        assert key(x) == key(y), (x, y)
        assert abs(float(x["ts"]) * 1000 + shift[pid] - float(y["ts"]) * 1000) <= 1.5, (x, y, shift[pid])
# the caller's flow: out in the sender, in in the receiver; the library's own
# flows pair within their process
flows = collections.defaultdict(list)
for e in ev:
    if e["ph"] in "sf":
        flows[int(e["id"], 16)].append((e["ph"], e["pid"]))
assert sorted(flows[CALLER]) == [("f", pb), ("s", pa)], flows[CALLER]
own_ids = [i for i in flows if i != CALLER]
assert len(own_ids) == 10, own_ids  # 5 per process, none merged into another's
for i in own_ids:
    assert sorted(p for p, _ in flows[i]) == ["f", "s"] and len({pid for _, pid in flows[i]}) == 1, flows[i]
trace_json.track_events(doc)  # every track reads back as a viewer reads it

# ---- Perfetto protobuf ----
mp = os.path.join(work, "all.pftrace")
run("merge", a, b, "-o", mp)


def packets(path):
    """(seq, time or None, uuids described, pids described, flow ids, terminating flow ids) per packet,
    from protoc's text output (fields we need only); times as Perfetto reads them (pftrace_time)."""
    out = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", os.path.dirname(proto),
                          os.path.basename(proto)], stdin=open(path, "rb"), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    res, cur, depth, path_ = [], None, 0, []
    for line in out.stdout.splitlines():
        line = line.strip()
        if line.endswith("{"):
            name = line[:-1].strip()
            path_.append(name)
            if path_ == ["packet"]:
                cur = {"seq": None, "ts": None, "uuid": [], "pid": [], "flow": [], "term": [], "flags": 0,
                       "dclock": None, "clock": None, "snap": []}
            elif path_ == ["packet", "clock_snapshot", "clocks"]:
                cur["snap"].append([None, 0, False])
            continue
        if line == "}":
            if path_ == ["packet"]:
                res.append(cur)
            path_.pop()
            continue
        k, _, v = line.partition(": ")
        if path_ == ["packet"] and k == "trusted_packet_sequence_id":
            cur["seq"] = int(v)
        elif path_ == ["packet"] and k == "timestamp":
            cur["ts"] = int(v)
        elif path_ == ["packet"] and k == "timestamp_clock_id":
            cur["clock"] = int(v)
        elif path_ == ["packet"] and k == "sequence_flags":
            cur["flags"] = int(v)
        elif path_ == ["packet", "trace_packet_defaults"] and k == "timestamp_clock_id":
            cur["dclock"] = int(v)
        elif path_ == ["packet", "clock_snapshot", "clocks"]:
            c = cur["snap"][-1]
            if k == "clock_id":
                c[0] = int(v)
            elif k == "timestamp":
                c[1] = int(v)
            elif k == "is_incremental":
                c[2] = v == "true"
        elif path_ == ["packet", "track_descriptor"] and k == "uuid":
            cur["uuid"].append(int(v))
        elif path_ == ["packet", "track_descriptor", "process"] and k == "pid":
            cur["pid"].append(int(v))
        elif path_ == ["packet", "track_event"] and k == "flow_ids":
            cur["flow"].append(int(v))
        elif path_ == ["packet", "track_event"] and k == "terminating_flow_ids":
            cur["term"].append(int(v))
    clocks = pftrace_time.Clocks()
    for m in res:
        m["ts"] = clocks.packet(m["seq"], m["flags"], m["dclock"], [tuple(c) for c in m["snap"]], m["ts"], m["clock"])
    return res


merged = packets(mp)
assert sorted(p for m in merged for p in m["pid"]) == sorted([pa, pb])
uuids = [u for m in merged for u in m["uuid"]]
assert len(uuids) == len(set(uuids)), "track uuids collide"
for i, (path, pid) in enumerate(((a, pa), (b, pb))):
    one = os.path.join(work, "one.pftrace")
    run("convert", path, one)
    own = packets(one)
    mine = [m for m in merged if m["seq"] >> 20 == i]
    assert len(own) == len(mine), (i, len(own), len(mine))
    for x, y in zip(own, mine):  # in order, rewritten field by field
        assert y["seq"] == x["seq"] + (i << 20)
        assert (x["ts"] is None) == (y["ts"] is None) and (x["ts"] is None or y["ts"] == x["ts"] + shift[pid]), (x, y)
        assert y["uuid"] == [u + (i << 40) for u in x["uuid"]]
assert [m["flow"] for m in merged if CALLER in m["flow"]] and [m["term"] for m in merged if CALLER in m["term"]]
own_flows = [f for m in merged for f in m["flow"] if f != CALLER]
assert len(own_flows) == len(set(own_flows)) == 10, own_flows
print("merge: 2 processes, json and pftrace, every event shifted exactly, ids apart, the caller's flow linked")
