#!/bin/sh
# The Vulkan backend end to end on whatever Vulkan device the loader finds
# first (CI: Mesa's lavapipe, scripts/ensure-vulkan.sh):
#   1. the example records 3 compute passes per frame for 40 frames and
#      writes JSON, pftrace and .ludus; every frame's passes come back
#      (coverage frames = 40, nothing lost), each pass is a slice on the GPU
#      track linked by a flow to the CPU thread that recorded it, and starts
#      after that CPU submission (within its stated error bound);
#   2. ludus-trace report prints the GPU frame time and the passes, and
#      --source gpu --json gives them as JSON;
#   3. the pftrace (decoded by protoc against tests/format's Perfetto
#      subset): a GPU track with the 120 passes as slices, each terminating
#      the flow its CPU side started, and a counter track of 40 frame times;
#   4. a late readback (collection every 4th frame, 2 slots): frames begun
#      while the ring is full are counted ring_full, the others come back;
#   5. collection right after each submission: frames not finished are
#      counted not_ready and read at a later call, none is lost.
# usage: check_vulkan.sh VULKAN_COMPUTE LUDUS_TRACE WORKDIR
set -eu
ex=$1 lt=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir"
"$ex" --frames 40 "$dir/vk.json" "$dir/vk.pftrace" "$dir/vk.ludus" > "$dir/run.txt"
cat "$dir/run.txt"
grep -q "calibration path:" "$dir/run.txt"
"$lt" report "$dir/vk.ludus" > "$dir/report.txt"
grep -q "GPU frame time" "$dir/report.txt"
grep -q "Simulate" "$dir/report.txt"
"$lt" report "$dir/vk.ludus" --source gpu --json > "$dir/report.json"
"$lt" diff "$dir/vk.ludus" "$dir/vk.ludus" --source gpu > "$dir/diff.txt"
grep -q "Simulate" "$dir/diff.txt"
"$ex" --frames 40 --in-flight 2 --collect-every 4 "$dir/late.ludus" > "$dir/late.txt"
"$lt" report "$dir/late.ludus" --source gpu --json > "$dir/late.json"
"$ex" --frames 40 --collect-after-submit "$dir/early.ludus" > "$dir/early.txt"
"$lt" report "$dir/early.ludus" --source gpu --json > "$dir/early.json"
proto_dir=$(cd "$(dirname "$0")/../format" && pwd)
protoc --decode=perfetto.protos.Trace -I "$proto_dir" perfetto_subset.proto < "$dir/vk.pftrace" > "$dir/vk.pftrace.txt"
python3 - "$dir" <<'EOF'
import json, re, sys
d = sys.argv[1]
pf = open(d + "/vk.pftrace.txt").read()
# the GPU lane's track and the frame-time counter track, then their events
gpu_uuid = re.search(r'track_descriptor \{\s*uuid: (\d+)\s*name: "[^"]*compute"', pf).group(1)
ctr_uuid = re.search(r'track_descriptor \{\s*uuid: (\d+)\s*name: "[^"]*compute frame time \(ns\)"', pf).group(1)
events = re.findall(r'track_event \{(.*?)\n  \}', pf, re.S)
begins = [e for e in events if "TYPE_SLICE_BEGIN" in e and re.search(r"track_uuid: %s\b" % gpu_uuid, e)]
ends = [e for e in events if "TYPE_SLICE_END" in e and re.search(r"track_uuid: %s\b" % gpu_uuid, e)]
values = [e for e in events if "TYPE_COUNTER" in e and re.search(r"track_uuid: %s\b" % ctr_uuid, e)]
assert len(begins) == 120 and len(ends) == 120, (len(begins), len(ends))
assert sum("terminating_flow_ids" in e for e in begins) == 120
assert len(values) == 40, len(values)
cpu_flows = len(re.findall(r"\bflow_ids: ", pf))
assert cpu_flows == 120, cpu_flows
t = json.load(open(d + "/vk.json"))
ev = t["traceEvents"]
meta = t["metadata"]["gpu"]
assert len(meta) == 1, meta
g = meta[0]
cov = g["coverage"]
assert cov["frames"] == 40 and cov["lost"] == 0 and cov["ring_full"] == 0, cov
names = {e["tid"]: e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
passes = [e for e in ev if e.get("ph") == "X" and e.get("cat") == "gpu"]
assert len(passes) == 120, len(passes)
assert {p["name"] for p in passes} == {"Clear", "Simulate", "Reduce"}
gpu_tids = {p["tid"] for p in passes}
for tid in gpu_tids:
    assert "compute" in names[tid] or "GPU" in names[tid], names[tid]
    if not g["calibrated"]:
        assert "(uncalibrated)" in names[tid]
# each pass ends the flow its recording thread started, after that submission
starts = {e["id"]: e for e in ev if e.get("ph") == "s"}
ends = [e for e in ev if e.get("ph") == "f" and e["tid"] in gpu_tids]
assert len(ends) == 120, len(ends)
cpu = [k for k, v in names.items() if v == "render"]
assert cpu, names
by_begin = {(p["tid"], p["ts"]): p for p in passes}
for f in ends:
    s = starts[f["id"]]
    assert s["tid"] == cpu[0], s
    p = by_begin[(f["tid"], f["ts"])]
    err_us = p["args"]["error_ns"] / 1000.0
    assert p["ts"] + err_us >= s["ts"], (p, s)
r = json.load(open(d + "/report.json"))["gpu"]
assert r["tracks"][0]["frames"] == 40 and r["tracks"][0]["frame_time"]["p50_ns"] > 0, r["tracks"]
assert {p["pass"] for p in r["passes"]} == {"Clear", "Simulate", "Reduce"}
late = json.load(open(d + "/late.json"))["gpu"]["tracks"][0]
lc = late["coverage"]
assert lc["ring_full"] > 0 and lc["frames"] > 0 and lc["frames"] + lc["ring_full"] == 40, lc
early = json.load(open(d + "/early.json"))["gpu"]
ec = early["tracks"][0]["coverage"]
assert ec["not_ready"] > 0 and ec["frames"] == 40 and ec["lost"] == 0, ec
assert sum(p["duration"]["count"] for p in early["passes"]) == 120, early["passes"]
print("not ready at a collection right after submission: %d of 40 frames (all read later)" % ec["not_ready"])
print("vulkan example: %d passes, calibrated %s (max error %d ns), late readback: %d frames timed, %d ring_full, %d not_ready"
      % (len(passes), g["calibrated"], g["max_error_ns"], lc["frames"], lc["ring_full"], lc["not_ready"]))
EOF
