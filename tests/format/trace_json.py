"""Reading a Ludus Chrome JSON export as a viewer does: complete slices (X,
written when they end, children first) become a begin and an end, and each
track's events are put in time order with ties broken so slices nest: at one
ts ends come before begins, later-begun slices end first, longer slices
begin first. Flow ends (an X of cat "flow" plus s/f) and instants stay as
they are. Counters are keyed ("C", track name): the name, and for a frame
statistic (its one argument is not "value") the series after a space, as
Perfetto names the track ("DrawCalls per frame")."""
import json


def load(path):
    return json.load(open(path))


def track_events(doc):
    """{tid or ("C", name): [(ph, ts_ns, event, flags)]} in time order;
    ph is "B", "E", or the event's own phase; flags the end's {"ludus": ...}."""
    keyed = {}
    for i, e in enumerate(doc["traceEvents"]):
        ph = e["ph"]
        if ph == "M":
            continue
        ts = int(round(float(e["ts"]) * 1000))
        if ph == "C":
            (series,) = e["args"].keys()
            track = e["name"] if series == "value" else e["name"] + " " + series
            keyed.setdefault(("C", track), []).append(((ts, 1, 0, i), ("C", ts, e, "")))
            continue
        track = keyed.setdefault(e["tid"], [])
        if ph == "X" and e.get("cat") != "flow":
            d = int(round(float(e["dur"]) * 1000))
            assert d >= 0, e
            flags = e.get("args", {}).get("ludus", "")
            track.append(((ts, 2, -(ts + d), -i), ("B", ts, e, "")))
            track.append(((ts + d, 0, -ts, i), ("E", ts + d, e, flags)))
        else:
            track.append(((ts, 1, 0, i), (ph, ts, e, "")))
    return {k: [ev for _, ev in sorted(v, key=lambda x: x[0])] for k, v in keyed.items()}
