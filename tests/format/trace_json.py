"""Reading a Ludus Chrome JSON export as a viewer does, and the check every
test that exports JSON runs on it (load() runs it; from a shell:
python3 trace_json.py FILE.json...).

check_nesting: viewers read ts and dur as doubles (microseconds) and nest by
comparing ts + dur computed in double arithmetic (speedscope after taking
each thread's first ts off every ts). For every slice (X, and B/E pairs) of
every track, the nesting is taken from the exact values written (the
decimals as rationals, so the ns the capture holds), and then, in double
arithmetic, as each viewer computes: a child's end must not pass its
parent's end nor its begin come before the parent's, and a slice's end must
not pass the next sibling's begin; both with absolute times and rebased on
the track's first ts. Two siblings of one name must not touch (an end equal
to the next begin), which speedscope draws as one slice. It also counts the values that are not doubles
exactly and the sums that round (src/export/writer.h writes neither).

track_events: complete slices (X, written when they end, children first)
become a begin and an end, and each track's events are put in time order
with ties broken so slices nest: at one ts ends come before begins,
later-begun slices end first, longer slices begin first, and a zero-length
slice's begin comes right before its end. Flow ends (an X of cat "flow" plus
s/f) and instants stay as they are. Counters are keyed ("C", track name):
the name, and for a frame statistic (its one argument is not "value") the
series after a space, as Perfetto names the track ("DrawCalls per frame")."""
import json
import sys
from decimal import Decimal

MAX_REPORTED = 5


def load(path, check=True):
    """The parsed trace; with check, check_nesting must pass (AssertionError)."""
    with open(path) as f:
        text = f.read()
    doc = json.loads(text)
    if check:
        problems, _ = check_nesting(text)
        assert not problems, "%s: %d nesting problems in double arithmetic, first: %s" % (
            path, len(problems), "; ".join(problems[:MAX_REPORTED]))
    return doc


def _exact_double(s):
    """1 when the decimal text s is a double exactly."""
    return Decimal(s) == Decimal(float(s))


def _sum_exact(a, b):
    """1 when a + b is exact in double arithmetic (TwoSum's error term)."""
    s = a + b
    bb = s - a
    return (a - (s - bb)) + (b - bb) == 0


def check_nesting(text):
    """(problems, stats) for a JSON trace's text: see the module's doc."""
    doc = json.loads(text, parse_float=str)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    tracks = {}
    open_b = {}
    stats = {"slices": 0, "tracks": 0, "inexact_values": 0, "inexact_sums": 0, "max_depth": 0}
    for i, e in enumerate(events):
        ph = e.get("ph")
        if ph not in ("X", "B", "E"):
            continue
        key = (e.get("pid"), e.get("tid"))
        ts = str(e["ts"])
        if ph == "X":
            dur = str(e.get("dur", 0))
            tracks.setdefault(key, []).append((ts, dur, e.get("name", ""), i))
        elif ph == "B":
            open_b.setdefault(key, []).append((ts, e.get("name", ""), i))
        else:
            stack = open_b.get(key)
            if stack:
                bts, name, bi = stack.pop()
                # a B/E pair: its end is the E's ts itself, no sum
                tracks.setdefault(key, []).append((bts, None, name, bi, ts))
    problems = []
    for key, slices in tracks.items():
        stats["tracks"] += 1
        rows = []
        for s in slices:
            ts = s[0]
            b_exact = Decimal(ts)
            b_d = float(ts)
            if not _exact_double(ts):
                stats["inexact_values"] += 1
            if s[1] is None:  # B/E
                e_exact = Decimal(s[4])
                d_d = float(s[4]) - b_d
                e_d = float(s[4])
            else:
                dur = s[1]
                if not _exact_double(dur):
                    stats["inexact_values"] += 1
                e_exact = b_exact + Decimal(dur)
                d_d = float(dur)
                e_d = b_d + d_d
                if not _sum_exact(b_d, d_d):
                    stats["inexact_sums"] += 1
            rows.append([b_exact, e_exact, b_d, d_d, e_d, s[2], s[3]])
        stats["slices"] += len(rows)
        t0 = min(r[2] for r in rows)
        for r in rows:
            r.append(r[2] - t0)         # speedscope: ts rebased on the track's first ts
            r.append((r[2] - t0) + r[3])  # ... and its end
        rows.sort(key=lambda r: (r[0], -r[1], r[6]))
        stack = []  # [row, last child]
        last_top = None
        for r in rows:
            while stack and stack[-1][0][1] <= r[0]:
                stack.pop()
            parent = stack[-1] if stack else None
            prev = parent[1] if parent else last_top
            where = "tid %s" % (key[1],)
            if parent and r[1] > parent[0][1]:
                problems.append("%s: \"%s\" at %s us ends after \"%s\" that encloses its begin (the file's own "
                                "values overlap)" % (where, r[5], r[0], parent[0][5]))
            for label, b, e, pb, pe, qe in (("", r[2], r[4], parent and parent[0][2], parent and parent[0][4],
                                             prev and prev[4]),
                                            (" (rebased as speedscope does)", r[7], r[8], parent and parent[0][7],
                                             parent and parent[0][8], prev and prev[8])):
                if parent and r[1] <= parent[0][1] and e > pe:
                    problems.append("%s: \"%s\" (ts %r + dur %r = %r) ends after its parent \"%s\" (%r) in double "
                                    "arithmetic%s" % (where, r[5], b, r[3], e, parent[0][5], pe, label))
                if parent and b < pb:
                    problems.append("%s: \"%s\" begins before its parent \"%s\" in double arithmetic%s" %
                                    (where, r[5], parent[0][5], label))
                if prev is not None and qe > b:
                    problems.append("%s: \"%s\" ends at %r in double arithmetic, after the next sibling \"%s\" "
                                    "begins (%r)%s" % (where, prev[5], qe, r[5], b, label))
            if prev is not None and prev[4] == r[2] and prev[5] == r[5] and prev[3] > 0 and r[3] > 0:
                problems.append("%s: two \"%s\" slices touch (one ends at %r, where the next begins): speedscope "
                                "draws them as one" % (where, r[5], r[2]))
            if parent:
                parent[1] = r
            else:
                last_top = r
            stack.append([r, None])
            stats["max_depth"] = max(stats["max_depth"], len(stack))
    return problems, stats


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
            keyed.setdefault(("C", track), []).append(((ts, 1, 0, i, 0), ("C", ts, e, "")))
            continue
        track = keyed.setdefault(e["tid"], [])
        if ph == "X" and e.get("cat") != "flow":
            d = int(round(float(e["dur"]) * 1000))
            assert d >= 0, e
            flags = e.get("args", {}).get("ludus", "")
            if d == 0:  # its begin right before its end, among the instants of its time
                track.append(((ts, 1, 0, i, 0), ("B", ts, e, "")))
                track.append(((ts, 1, 0, i, 1), ("E", ts, e, flags)))
                continue
            track.append(((ts, 2, -(ts + d), -i, 0), ("B", ts, e, "")))
            track.append(((ts + d, 0, -ts, i, 0), ("E", ts + d, e, flags)))
        else:
            track.append(((ts, 1, 0, i, 0), (ph, ts, e, "")))
    return {k: [ev for _, ev in sorted(v, key=lambda x: x[0])] for k, v in keyed.items()}


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: trace_json.py FILE.json...")
    failed = 0
    for path in sys.argv[1:]:
        with open(path) as f:
            problems, st = check_nesting(f.read())
        print("%s: %d slices on %d tracks, depth %d; %d values not doubles exactly, %d sums rounded; %s" %
              (path, st["slices"], st["tracks"], st["max_depth"], st["inexact_values"], st["inexact_sums"],
               "%d nesting problems in double arithmetic" % len(problems) if problems else "nesting ok"))
        for p in problems[:MAX_REPORTED]:
            print("  " + p)
        failed |= bool(problems)
    sys.exit(1 if failed else 0)
