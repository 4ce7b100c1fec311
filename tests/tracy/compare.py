#!/usr/bin/env python3
"""Compares what Tracy received from the demo (tracy-csvexport's CSV) with
the same demo recorded by the built-in recorder (its Chrome JSON export),
or with a list of what it must hold (--expect: tests/tracy/edge_expect.txt).

  compare.py BUILTIN.json ZONES.csv MESSAGES.csv UNWRAPPED.csv
  compare.py --expect EXPECT.txt ZONES.csv MESSAGES.csv UNWRAPPED.csv GPU.csv

ZONES.csv: `tracy-csvexport x.tracy` (a row per source location with its
count); MESSAGES.csv: `tracy-csvexport -m x.tracy`; UNWRAPPED.csv:
`tracy-csvexport -u -p x.tracy` (a row per zone and per plot point); GPU.csv:
`tracy-csvexport -g x.tracy` (a row per GPU zone).

Checked, each a failure when it does not hold:
  - every slice name of the built-in capture (scopes, spans, lock waits,
    run-time names) is a Tracy zone name with the same count, and Tracy has
    no zone name the capture lacks;
  - every mark and log message is a Tracy message, as many times;
  - every async zone begins as often (Tracy: a message "<track>: <name>
    begins (id N)");
  - every counter track is a Tracy plot; plots and sampled counters
    (LUDUS_PROFILE_PLOT, ludus_counter_sample) have as many points, and
    per-frame counters as many points as the capture has frames.
Flows have no Tracy equivalent and are not compared (docs/tracy.md)."""
import collections
import csv
import json
import re
import sys


def read_tracy(zones_path, messages_path, unwrapped_path):
    zones = collections.Counter()
    with open(zones_path, newline="") as f:
        for row in csv.DictReader(f):
            zones[row["name"]] += int(row["counts"])
    messages = collections.Counter()
    with open(messages_path, newline="") as f:
        for row in csv.DictReader(f):
            messages[row["MessageName"]] += 1
    plots = collections.Counter()
    texts = collections.Counter()  # (zone, its text): scope annotations
    with open(unwrapped_path, newline="") as f:
        for row in csv.DictReader(f):
            value = row.get("value") or ""
            if value != "" and row["exec_time_ns"] == "":
                plots[row["name"]] += 1
            elif value != "":
                texts[row["name"] + "|" + value] += 1
    return zones, messages, plots, texts


def expect(expect_path, zones_path, messages_path, unwrapped_path, gpu_path):
    """--expect EXPECT.txt: Tracy's export against a list of 'kind name count'."""
    zones, messages, plots, texts = read_tracy(zones_path, messages_path, unwrapped_path)
    gpu = collections.Counter()
    with open(gpu_path, newline="") as f:
        for row in csv.DictReader(f):
            gpu[row["name"]] += 1
    got = {"zone": zones, "message": messages, "plot": plots, "gpu": gpu, "zonetext": texts}
    failures, want_zones = [], set()
    with open(expect_path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            kind, rest = line.split(" ", 1)
            name, n = rest.rsplit(" ", 1)
            if kind == "zone":
                want_zones.add(name)
            if got[kind].get(name, 0) != int(n):
                failures.append(f"{kind} {name!r}: want {n}, Tracy {got[kind].get(name, 0)}")
    for name in sorted(set(zones) - want_zones):
        failures.append(f"zone {name!r}: Tracy {zones[name]}, not expected")
    for f in failures:
        print("tracy-compare: FAIL " + f)
    if failures:
        return 1
    print(f"tracy-compare: {expect_path}: every zone, message and plot as expected")
    return 0


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "--expect":
        return expect(*sys.argv[2:])
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    builtin_path, zones_path, messages_path, unwrapped_path = sys.argv[1:]
    with open(builtin_path) as f:
        doc = json.load(f)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc

    slices = collections.Counter()
    asyncs = collections.Counter()
    messages = collections.Counter()
    counters = collections.Counter()
    counter_series = collections.defaultdict(set)
    frames = 0
    for e in events:
        ph, cat, name = e.get("ph"), e.get("cat"), e.get("name")
        if ph == "X" and cat == "async":
            asyncs[name] += 1
        elif ph == "X" and cat != "flow":
            slices[name] += 1
        elif ph in ("I", "i") and cat in ("mark", "log"):
            messages[name] += 1
        elif ph in ("I", "i") and cat == "frame":
            frames += 1
        elif ph == "C":
            counters[name] += 1
            counter_series[name].update((e.get("args") or {}).keys())

    zones, tracy_messages, plots, _ = read_tracy(zones_path, messages_path, unwrapped_path)
    begins = collections.Counter()
    for text, n in tracy_messages.items():
        m = re.match(r"^.*?: (.*) begins \(id \d+\)$", text)
        if m:
            begins[m.group(1)] += n

    failures = []
    for name, n in sorted(slices.items()):
        if zones.get(name, 0) != n:
            failures.append(f"zone {name!r}: built-in {n}, Tracy {zones.get(name, 0)}")
    for name in sorted(set(zones) - set(slices)):
        failures.append(f"zone {name!r}: Tracy {zones[name]}, not in the built-in capture")
    for name, n in sorted(messages.items()):
        if tracy_messages.get(name, 0) != n:
            failures.append(f"message {name!r}: built-in {n}, Tracy {tracy_messages.get(name, 0)}")
    for name, n in sorted(asyncs.items()):
        if begins.get(name, 0) != n:
            failures.append(f"async zone {name!r}: built-in {n}, Tracy {begins.get(name, 0)} begin messages")
    # Counter tracks by their series: "value" (a plot, a sampled counter, a
    # memory domain's samples), "per frame" (a counter), "last"/"min"/"max"
    # (a gauge). Tracy: plots and sampled counters a point per sample;
    # counters ("<name> per frame"), gauges ("<name>") and memory domains
    # ("Memory/<domain> live bytes") a point per frame mark.
    checked_plots = 0
    for name, series in sorted(counter_series.items()):
        if "value" in series and not name.startswith("Memory/"):
            plot, want = name, counters[name]
        elif "value" in series:
            plot, want = name + " live bytes", frames
        elif "per frame" in series:
            plot, want = name + " per frame", frames
        elif "last" in series:
            plot, want = name, frames
        else:
            continue
        checked_plots += 1
        if plots.get(plot, 0) != want:
            failures.append(f"plot {plot!r} (counter track {name!r}): want {want} points, Tracy {plots.get(plot, 0)}")

    print(
        f"tracy-compare: {len(slices)} zone names ({sum(slices.values())} zones), "
        f"{len(messages)} messages ({sum(messages.values())}), {len(asyncs)} async zone names "
        f"({sum(asyncs.values())}), {len(counters)} counter tracks ({checked_plots} plots checked), {frames} frames"
    )
    if not slices:
        failures.append("the built-in capture holds no slice")
    for f in failures:
        print("tracy-compare: FAIL " + f)
    if failures:
        return 1
    print("tracy-compare: every site of the built-in capture is in Tracy's export with the same count")
    return 0


if __name__ == "__main__":
    sys.exit(main())
