#!/usr/bin/env python3
"""ludus-trace info/convert: exit codes (0 ok, 1 usage, 2 bad input, 3 I/O),
the one-line error naming the offset of a truncated or corrupted file, and
convert with --from/--to (slices clipped and flagged) and --threads.
usage: check_cli.py DEMO LUDUS_TRACE"""
import json, os, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_json  # noqa: E402

demo, tool = sys.argv[1:3]


def run(*args):
    p = subprocess.run([tool, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def slices_ok(doc, lo, hi):
    """Per track: slices nest, every event within [lo, hi] ns; returns the
    count of slice ends clipped by the cut."""
    clipped = 0
    for key, evs in trace_json.track_events(doc).items():
        stack = []
        for ph, ts, e, flags in evs:
            assert lo <= ts <= hi, (e, lo, hi)
            if ph == "B":
                stack.append(ts)
            elif ph == "E":
                assert stack, e
                assert ts >= stack.pop()
                if "clipped" in flags:
                    clipped += 1
        assert not stack, (key, stack)
    return clipped


with tempfile.TemporaryDirectory() as d:
    js = os.path.join(d, "demo.json")
    subprocess.run([demo, "--trace", js, "--frames", "60"], check=True, stdout=subprocess.DEVNULL)
    cap = os.path.join(d, "demo.ludus")
    full = json.load(open(js))

    rc, out, err = run("info", cap)
    assert rc == 0, err
    # frames as report counts them: 60 marks make 59 frames
    assert "clock:" in out and "Main" in out and "frames:      59 complete" in out and "60 marks" in out, out
    # and report says the same number (it once said one fewer than info's marks)
    rc, rep, err = run("report", cap)
    assert rc == 0, err
    assert ", 59 complete frames in the window (of 59)" in rep, rep[:1500]

    # usage errors
    assert run()[0] == 1
    assert run("info")[0] == 1
    assert run("convert", cap)[0] == 1
    assert run("convert", cap, os.path.join(d, "x.txt"))[0] == 1
    assert run("convert", cap, os.path.join(d, "x.json"), "--from", "abc")[0] == 1
    assert run("convert", cap, os.path.join(d, "x.json"), "--threads", "NoSuchThread")[0] == 1
    assert run("convert", cap, os.path.join(d, "x.ludus"), "--from", "1ms")[0] == 1
    assert run("info", "--help")[0] == 0

    # bad input: truncated and corrupted files name the offset, one line
    data = open(cap, "rb").read()
    trunc = os.path.join(d, "trunc.ludus")
    open(trunc, "wb").write(data[: len(data) // 2])
    for verb in (["info", trunc], ["convert", trunc, os.path.join(d, "t.json")]):
        rc, out, err = run(*verb)
        assert rc == 2, (verb, rc, err)
        assert "offset " in err and err.count("\n") == 1, err
    assert not os.path.exists(os.path.join(d, "t.json"))
    bad = bytearray(data)
    bad[0] = ord("X")
    open(trunc, "wb").write(bad)
    rc, out, err = run("info", trunc)
    assert rc == 2 and "offset 0: bad magic" in err, err

    # sixteen bytes flipped in the middle: every verb names the damage, once
    dmg = os.path.join(d, "damaged.ludus")
    bad = bytearray(data)
    for i in range(16):
        bad[len(bad) // 2 + i] ^= 0xFF
    open(dmg, "wb").write(bad)
    for verb in (["info", dmg], ["report", dmg], ["convert", dmg, os.path.join(d, "dmg.json")],
                 ["diff", dmg, cap], ["diff", cap, dmg]):
        rc, out, err = run(*verb)
        assert rc == 2, (verb, rc, err)
        assert err.count("\n") == 1 and "malformed input, offset " in err, (verb, err)
        assert err.count("malformed input") == 1, (verb, err)
    assert not os.path.exists(os.path.join(d, "dmg.json"))

    # values that are not numbers, gates that cannot trip, cuts of nothing
    for bad_time in ("nan", "inf", "-1ms", "1e400"):
        rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--from", bad_time)
        assert rc == 1 and "bad time" in err, (bad_time, rc, err)
    rc, _, err = run("diff", cap, cap, "--fail-if", "p90 > +nan%")
    assert rc == 1 and "not a finite number" in err, (rc, err)
    rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--from", "100s")
    assert rc == 1 and "selects nothing" in err, (rc, err)
    rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--threads", "")
    assert rc == 1 and "no thread" in err, (rc, err)
    assert not os.path.exists(os.path.join(d, "x.json"))

    # a full output device: said, not silent
    with open("/dev/full", "w") as full_dev:
        p = subprocess.run([tool, "report", cap], stdout=full_dev, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 3 and "No space left" in p.stderr, (p.returncode, p.stderr)

    # I/O: missing input, unwritable output
    assert run("info", os.path.join(d, "missing.ludus"))[0] == 3
    assert run("convert", cap, os.path.join(d, "no", "dir", "x.json"))[0] == 3

    # conversions
    for ext in ("json", "pftrace", "ludus"):
        out_path = os.path.join(d, "all." + ext)
        rc, _, err = run("convert", cap, out_path)
        assert rc == 0, err
    assert open(os.path.join(d, "all.json")).read() == open(js).read(), "convert differs from the direct export"
    assert open(os.path.join(d, "all.ludus"), "rb").read() == data, ".ludus re-save is not identical"
    rc, _, err = run("convert", cap, os.path.join(d, "r.ludus"), "--raw")
    assert rc == 0, err
    rc, _, err = run("convert", os.path.join(d, "r.ludus"), os.path.join(d, "r.json"))
    assert open(os.path.join(d, "r.json")).read() == open(js).read(), "raw blocks read back differently"

    # time cut: every event inside, slices balanced, clipped ends flagged,
    # and the metadata counts what the cut holds
    # (from the middle of frame 10 to the middle of frame 12, wherever the loop
    # was then: a loaded machine may start the loop late, so no fixed time is
    # sure to hold events; the Frame scopes there are cut at both ends)
    marks = sorted(round(float(e["ts"]) * 1000) for e in full["traceEvents"] if e["ph"] == "I" and e.get("cat") == "frame")
    lo, hi = (marks[10] + marks[11]) // 2, (marks[12] + marks[13]) // 2
    cut = os.path.join(d, "cut.json")
    rc, _, err = run("convert", cap, cut, "--from", "%dns" % lo, "--to", "%dus" % (hi // 1000))
    assert rc == 0, err
    hi = hi // 1000 * 1000
    doc = json.load(open(cut))
    clipped = slices_ok(doc, lo, hi)
    held = 0
    for e in doc["traceEvents"]:
        flags = e.get("args", {}).get("ludus", "") if isinstance(e.get("args"), dict) else ""
        if e["ph"] == "X" and e.get("cat") != "flow":
            held += (0 if "clipped" in flags and round(float(e["ts"]) * 1000) <= lo else 1)  # its begin
            held += (0 if "incomplete" in flags else 1)  # its end
            if e.get("cat") not in ("async", "gpu"):  # a scope's annotations: its args but ours
                held += len(set(e.get("args", {})) - {"ludus"})
        elif e["ph"] in ("C", "s", "f") or (e["ph"] == "I" and e.get("cat") != "ludus"):
            held += 1
    meta = doc["metadata"]
    held += meta.get("annotations_superseded", 0) + meta.get("annotations_dropped", 0)
    assert meta["events"] == held == sum(t["events"] for t in meta["threads"]), (meta["events"], held)
    assert meta["events"] < full["metadata"]["events"]
    assert clipped >= 1, "three frames of the loop cut through at least one slice"
    n_cut = sum(1 for e in doc["traceEvents"] if e["ph"] != "M")
    n_full = sum(1 for e in full["traceEvents"] if e["ph"] != "M")
    assert 0 < n_cut < n_full

    # thread subset by name and by tid
    tids = {e["tid"]: e["args"]["name"] for e in full["traceEvents"] if e.get("name") == "thread_name"}
    main_tid = [t for t, n in tids.items() if n == "Main"][0]
    worker_tid = [t for t, n in tids.items() if n.startswith("Worker")][0]
    sub = os.path.join(d, "sub.json")
    rc, _, err = run("convert", cap, sub, "--threads", "Main,%d" % worker_tid)
    assert rc == 0, err
    doc = json.load(open(sub))
    got = {e["tid"] for e in doc["traceEvents"] if e["ph"] != "M"}
    # and the async lanes (tids from 0x7ffe0000) of zones those threads began or ended
    assert {t for t in got if not 0x7FFE0000 <= t < 0x7FFF0000} == {main_tid, worker_tid}, got
    slices_ok(doc, 0, 1 << 62)
print("ok")
