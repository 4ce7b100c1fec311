#!/usr/bin/env python3
"""Demo capture -> .ludus -> .pftrace (ludus-trace convert) and the direct
ludus_capture_save(c, LUDUS_FORMAT_PFTRACE, ...) are decoded with protoc against perfetto_subset.proto;
per thread, the slices (names, begin/end timestamps, nesting), instants,
counters and flows must match the Chrome JSON export of the same capture.
usage: check_pftrace.py DEMO LUDUS_TRACE PROTOC PROTO"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_json  # noqa: E402
import pftrace_time  # noqa: E402

demo, tool, protoc, proto = sys.argv[1:5]


def parse_text(text):
    """protoc text format -> nested lists of (key, value) pairs."""
    toks = text.split("\n")
    root, stack = [], []
    cur = root
    for line in toks:
        line = line.strip()
        if not line:
            continue
        if line.endswith("{"):
            node = []
            cur.append((line[:-1].strip(), node))
            stack.append(cur)
            cur = node
        elif line == "}":
            cur = stack.pop()
        else:
            k, v = line.split(":", 1)
            v = v.strip()
            if v.startswith('"'):
                v = json.loads(v) if "\\" not in v else bytes(v[1:-1], "utf-8").decode("unicode_escape")
            cur.append((k.strip(), v))
    return root


def get(node, key, default=None):
    for k, v in node:
        if k == key:
            return v
    return default


def all_of(node, key):
    return [v for k, v in node if k == key]


def decode(path):
    out = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", os.path.dirname(proto),
                          os.path.basename(proto)], stdin=open(path, "rb"), capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return [v for k, v in parse_text(out.stdout) if k == "packet"]


def pftrace_events(path):
    packets = decode(path)
    names, cats, tracks, defaults, counters, asyncs = {}, {}, {}, {}, {}, {}
    events = {}  # tid -> list
    described_counters = set()
    clocks = pftrace_time.Clocks()
    for p in packets:
        seq = int(get(p, "trusted_packet_sequence_id", "0"))
        assert seq != 0, "every packet needs a sequence id"
        flags = int(get(p, "sequence_flags", "0"))
        d = get(p, "trace_packet_defaults")
        snap = get(p, "clock_snapshot")
        raw = get(p, "timestamp")
        ts = clocks.packet(seq, flags, int(get(d, "timestamp_clock_id")) if d and get(d, "timestamp_clock_id") else None,
                           [(int(get(c, "clock_id")), int(get(c, "timestamp", "0")), get(c, "is_incremental") == "true")
                            for c in all_of(snap, "clocks")] if snap else None,
                           int(raw) if raw is not None else None,
                           int(get(p, "timestamp_clock_id")) if get(p, "timestamp_clock_id") else None)
        if flags & 1:
            names[seq], cats[seq] = {}, {}
            defaults.pop(seq, None)
        d = get(p, "trace_packet_defaults")
        if d:
            defaults[seq] = int(get(get(d, "track_event_defaults"), "track_uuid"))
        idata = get(p, "interned_data")
        if idata:
            assert seq in names, "interned data before the sequence was cleared"
            for e in all_of(idata, "event_names"):
                names[seq][int(get(e, "iid"))] = get(e, "name")
            for e in all_of(idata, "event_categories"):
                cats[seq][int(get(e, "iid"))] = get(e, "name")
        td = get(p, "track_descriptor")
        if td:
            uuid = int(get(td, "uuid"))
            th = get(td, "thread")
            if th:
                tracks[uuid] = int(get(th, "tid"))
            if get(td, "counter") is not None:
                counters[uuid] = get(td, "name")
                described_counters.add(uuid)
            elif not th and get(td, "parent_uuid") == "1":  # an async track's lane: "Name" or "Name (k)"
                tn = get(td, "name")
                lane = 0
                if tn.endswith(")") and " (" in tn:
                    tn, k = tn[:-1].rsplit(" (", 1)
                    lane = int(k) - 1
                asyncs[uuid] = (tn, lane)
        te = get(p, "track_event")
        if not te:
            continue
        assert ts is not None, "a track event without a timestamp"
        typ = get(te, "type")
        uuid = int(get(te, "track_uuid", defaults.get(seq, 0)))
        if typ == "TYPE_COUNTER":
            assert uuid in described_counters, "counter used before its track was described"
            v = get(te, "counter_value")
            v = int(v) if v is not None else float(get(te, "double_counter_value"))
            events.setdefault(("C", counters[uuid]), []).append((ts, v))
            continue
        if uuid in asyncs:
            nm = get(te, "name") if typ == "TYPE_SLICE_BEGIN" else None
            events.setdefault(("A",) + asyncs[uuid], []).append((typ, ts, nm))
            continue
        if uuid not in tracks:
            continue  # the process-level metadata instant
        tid = tracks[uuid]
        ann = {(get(a, "name") or str(get(a, "name_iid"))): a for a in all_of(te, "debug_annotations")}
        name = names[seq].get(int(get(te, "name_iid", "0")), get(te, "name"))
        cat_iids = all_of(te, "category_iids")
        cat = cats[seq].get(int(cat_iids[0])) if cat_iids else get(te, "categories")
        flows = [int(x) for x in all_of(te, "flow_ids")]
        tflows = [int(x) for x in all_of(te, "terminating_flow_ids")]
        events.setdefault(tid, []).append((typ, ts, name, cat, flows, tflows, ann))
    return events


def json_events(path):
    doc = trace_json.load(path)
    return doc, trace_json.track_events(doc)


ASYNC_TID0, FIBER_TID0 = 0x7FFE0000, 0x7FFF0000


def async_events(doc, js):
    """The JSON's async lanes (pseudo-threads named "Track" or "Track (k)",
    tids from 0x7ffe0000) keyed as the pftrace's async tracks: ("A", track,
    lane), their slices as begin/end pairs; removed from js."""
    names = {e["tid"]: e["args"]["name"] for e in doc["traceEvents"] if e["ph"] == "M" and e["name"] == "thread_name"}
    out = {}
    for tid in [t for t in js if isinstance(t, int) and ASYNC_TID0 <= t < FIBER_TID0]:
        tn, lane = names[tid], 0
        if tn.endswith(")") and " (" in tn:
            tn, k = tn[:-1].rsplit(" (", 1)
            lane = int(k) - 1
        ev = []
        for ph, ts, e, flags in js.pop(tid):
            ev.append(("TYPE_SLICE_BEGIN", ts, e["name"]) if ph == "B" else ("TYPE_SLICE_END", ts, None))
        out[("A", tn, lane)] = ev
    return out


def annotation_value(a):
    """A named debug annotation's value, as the JSON export writes it."""
    for key, conv in (("int_value", int), ("uint_value", int), ("double_value", float), ("string_value", str)):
        v = get(a, key)
        if v is not None:
            return conv(v)
    return None


def pf_slices(pl, key):
    """A pftrace track's events, in file order (the order they were recorded,
    which nests them), as slices (begin, end, name, cat, incomplete,
    annotations), flow instants (ts, name, cat) and other instants (ts, name,
    cat)."""
    slices, flows, instants, stack = [], [], [], []
    for typ, ts, name, cat, flows_out, flows_in, ann in pl:
        if flows_out or flows_in:
            flows.append((ts, name, cat))
        elif typ == "TYPE_SLICE_BEGIN":
            stack.append((ts, name, cat))
        elif typ == "TYPE_SLICE_END":
            assert stack, (key, "an end with no open slice at", ts)
            b, name, cat = stack.pop()
            assert ts >= b, (key, "a slice ends before it begins", b, ts)
            args = tuple(sorted((k, annotation_value(a)) for k, a in ann.items() if get(a, "name") is not None))
            slices.append((b, ts, name, cat, "1" in ann or "incomplete" in ann, args))
        elif typ == "TYPE_INSTANT":
            instants.append((ts, name, cat))
    assert not stack, (key, "%d slices never end" % len(stack))
    return slices, flows, instants


def json_slices(jl):
    """The same from the JSON's X events (each a slice as written: begin and
    dur, so nothing depends on how ties at one ns are ordered)."""
    slices, flows, instants = [], [], []
    for ph, ts, e, flags in jl:
        name, cat = e.get("name"), e.get("cat")
        if ph == "X":  # a flow end's slice
            flows.append((ts, name, cat))
        elif ph == "B":
            d = int(round(float(e["dur"]) * 1000))
            args = e.get("args") or {}
            ann = tuple(sorted((k, v) for k, v in args.items() if k != "ludus"))  # its annotations
            slices.append((ts, ts + d, name, cat or "default", "incomplete" in args.get("ludus", ""), ann))
        elif ph == "I":
            instants.append((ts, name, cat))
    return slices, flows, instants


def compare(pf, js):
    for key, jl in js.items():
        if isinstance(key, tuple) and key[0] == "A":
            assert sorted(pf.get(key, []), key=str) == sorted(jl, key=str), key
            # in file order every end closes a begin of the lane (Perfetto sorts by time, stable)
            depth = 0
            for typ, ts, name in sorted(pf[key], key=lambda e: e[1]):
                depth += 1 if typ == "TYPE_SLICE_BEGIN" else -1
                assert depth >= 0, (key, "an end before its begin at", ts)
            continue
        if isinstance(key, tuple):
            # a counter's samples come from every thread: compare them in time order
            assert sorted(pf[key]) == sorted((t, list(e["args"].values())[0]) for _, t, e, _ in jl), key
            continue
        js_sl, js_fl, js_in = json_slices(jl)
        pf_sl, pf_fl, pf_in = pf_slices(pf[key], key)
        # Slices: the same (begin, end, name, category, incomplete, annotations) on both sides.
        a, b = sorted(js_sl, key=str), sorted(pf_sl, key=str)
        if a != b:
            missing = [x for x in a if x not in b][:3]
            extra = [x for x in b if x not in a][:3]
            raise AssertionError((key, "slices differ", len(a), len(b), "JSON only:", missing, "pftrace only:", extra))
        assert sorted(js_in, key=str) == sorted(pf_in, key=str), (key, "instants", js_in[:3], pf_in[:3])
        # JSON flows are an X slice + s/f; the pftrace has one INSTANT with ids. The
        # JSON places a flow's 1 ns slice where it ties with no other event of the
        # thread: at most a few ns from the flow.
        assert len(js_fl) == len(pf_fl), (key, "flows", len(js_fl), len(pf_fl))
        for x, y in zip(sorted(js_fl), sorted(pf_fl)):
            assert x[1:] == y[1:] and -1000 <= x[0] - y[0] <= 1, (key, x, y)
    print("compared %d threads/counters" % len(js))


with tempfile.TemporaryDirectory() as d:
    js_path = os.path.join(d, "demo.json")
    subprocess.run([demo, "--trace", js_path, "--frames", "120"], check=True, stdout=subprocess.DEVNULL)
    cap = os.path.join(d, "demo.ludus")
    pft = os.path.join(d, "demo.pftrace")
    subprocess.run([tool, "convert", cap, pft], check=True)
    doc, js = json_events(js_path)
    js.update(async_events(doc, js))
    pf = pftrace_events(pft)
    assert sum(1 for k in js if isinstance(k, tuple) and k[0] == "A") == sum(
        1 for k in pf if isinstance(k, tuple) and k[0] == "A"), "the same async lanes"
    compare(pf, js)
    annotated = sum(1 for k, evs in js.items() if not isinstance(k, tuple) for ph, ts, e, flags in evs
                    if ph == "E" and set((e.get("args") or {})) - {"ludus"})
    assert annotated > 0, "the demo's scopes carry annotations (Execute: CostUs; Streaming: Chunk, Frame)"
    print("%d annotated slices match" % annotated)
    # first byte 0x0A (Trace.packet), and the size target
    data = open(pft, "rb").read()
    assert data[0] == 0x0A
    # the threads' sequences use the incremental clock (deltas), as Perfetto's SDK does
    assert sum(1 for p in decode(pft) if get(p, "clock_snapshot")) >= 1, "a clock snapshot per thread sequence"
    ratio = os.path.getsize(js_path) / len(data)
    events = doc["metadata"]["events"]
    print("pftrace %d bytes (%.1f per event), JSON %d bytes, ratio %.2f" % (len(data), len(data) / events,
                                                                           os.path.getsize(js_path), ratio))
    assert len(data) / events <= 20, "pftrace bytes per event"
    assert ratio >= 3, ratio
    # a cut: clipped ends carry incomplete and clipped annotations. Its bounds
    # are the middles of frames 20 and 24, wherever the program's loop was
    # then: on a loaded machine the loop can start late, and a fixed range
    # (once 50 ms .. 60 ms) could hold no event at all.
    marks = sorted(round(float(e["ts"]) * 1000) for e in doc["traceEvents"] if e["ph"] == "I" and e.get("cat") == "frame")
    lo, hi = (marks[20] + marks[21]) // 2, (marks[24] + marks[25]) // 2
    cut = os.path.join(d, "cut.pftrace")
    subprocess.run([tool, "convert", cap, cut, "--from", "%dns" % lo, "--to", "%dns" % hi], check=True)
    pc = pftrace_events(cut)
    for tid, evs in pc.items():
        if isinstance(tid, tuple):
            continue
        depth = 0
        for typ, ts, *_ in evs:
            assert lo <= ts <= hi, (ts, lo, hi)
            depth += {"TYPE_SLICE_BEGIN": 1, "TYPE_SLICE_END": -1}.get(typ, 0)
            assert depth >= 0
        assert depth == 0, (tid, depth)
print("ok")
