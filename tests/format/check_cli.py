#!/usr/bin/env python3
"""ludus-trace info/convert: exit codes (0 ok, 1 usage, 2 bad input, 3 I/O),
the one-line error naming the offset of a truncated or corrupted file, and
convert with --from/--to (slices clipped and flagged) and --threads. Unix
manners: --version; -o on every verb that writes, beside the positional OUT;
"-" for standard input and output and /dev/stdout; an unknown option named
with the ones the verb takes; the exit codes in every --help; progress on
stderr only when it is a terminal (a pty here, LUDUS_TRACE_PROGRESS_MS=0 so
the test does not wait for a second of work).
usage: check_cli.py DEMO LUDUS_TRACE"""
import json, os, pty, select, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_json  # noqa: E402

demo, tool = sys.argv[1:3]


def run(*args, stdin=None):
    p = subprocess.run([tool, *args], capture_output=True, text=True, stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def run_bytes(*args, stdin=None):
    p = subprocess.run([tool, *args], capture_output=True, stdin=stdin)
    return p.returncode, p.stdout, p.stderr


def run_pty_stderr(*args):
    """Runs with stderr on a pseudo-terminal: (rc, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    p = subprocess.Popen([tool, *args], stdout=subprocess.PIPE, stderr=slave,
                         env=dict(os.environ, LUDUS_TRACE_PROGRESS_MS="0"))
    os.close(slave)
    got = b""
    while True:
        r, _, _ = select.select([master], [], [], 30)
        if not r:
            break
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        got += chunk
    out = p.stdout.read()
    rc = p.wait(timeout=60)
    os.close(master)
    return rc, out, got.decode("utf-8", "replace")


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
    full = trace_json.load(js)

    rc, out, err = run("info", cap)
    assert rc == 0, err
    # frames as report counts them: 60 marks make 59 frames
    assert "clock:" in out and "Main" in out and "frames:      59 complete" in out and "60 marks" in out, out
    # info reads the header, tables and summary through the index at the file's end, not the blocks
    assert "read:        the header, tables and summary, through the index" in out, out[:300]
    # and report says the same number (it once said one fewer than info's marks)
    rc, rep, err = run("report", cap)
    assert rc == 0, err
    assert ", 59 complete frames in the window (of 59)" in rep, rep[:1500]

    # usage errors
    assert run()[0] == 1
    assert run("info")[0] == 1
    assert run("convert", cap)[0] == 1
    rc, _, err = run("convert", cap, os.path.join(d, "x.txt"))
    assert rc == 1 and "extension picks the format" in err, err
    assert run("convert", cap, os.path.join(d, "x.json"), "--from", "abc")[0] == 1
    assert run("convert", cap, os.path.join(d, "x.json"), "--threads", "NoSuchThread")[0] == 1
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
    for verb in (["report", dmg], ["convert", dmg, os.path.join(d, "dmg.json")],
                 ["diff", dmg, cap], ["diff", cap, dmg]):
        rc, out, err = run(*verb)
        assert rc == 2, (verb, rc, err)
        assert err.count("\n") == 1 and "malformed input, offset " in err, (verb, err)
        assert err.count("malformed input") == 1, (verb, err)
    assert not os.path.exists(os.path.join(d, "dmg.json"))
    # info reads no block: the damage in the middle is not its to see (report's and convert's)
    rc, out, err = run("info", dmg)
    assert rc == 0 and "through the index" in out, (rc, out, err)
    # a damaged end (the index): info reads the file whole and names the damage
    bad = bytearray(data)
    bad[-30] ^= 0xFF
    open(dmg, "wb").write(bad)
    rc, out, err = run("info", dmg)
    assert rc == 2 and "checksum mismatch in a record of tag 6" in err, (rc, err)

    # values that are not numbers, gates that cannot trip, cuts of nothing
    for bad_time in ("nan", "inf", "-1ms", "1e400"):
        rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--from", bad_time)
        assert rc == 1 and "bad time" in err, (bad_time, rc, err)
    rc, _, err = run("diff", cap, cap, "--fail-if", "p90 > +nan%")
    assert rc == 1 and "not a finite number" in err, (rc, err)
    # a gate naming what neither side has guards nothing: a usage error naming the nearest names
    for gate, said in (("slower Rendr", "nearest: 'Render'"), ("p50 Frame/Updat > +5%", "'Frame/Update'"),
                       ("counter Memory/Jobs peak live byte > +1%", "nearest: 'Memory/Jobs peak live bytes'"),
                       ("lock JobQeue > +10%", "no lock named 'JobQeue'")):
        rc, out, err = run("diff", cap, cap, "--fail-if", gate)
        assert rc == 1 and said in err and not out, (gate, rc, err)
    rc, out, err = run("diff", cap, cap, "--fail-if", "slower Render", "--fail-if", "slower",
                       "--fail-if", "more time per frame", "--fail-if", "counter Memory/Jobs peak live bytes > +1%")
    assert rc == 0 and "Gates tripped" not in out, (rc, err)
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

    # Unix manners: --version, options named, exit codes listed
    rc, out, err = run("--version")
    assert rc == 0 and out.startswith("ludus-trace ") and "Ludus Profiling" in out, (rc, out, err)
    verbs = ["info", "convert", "report", "diff", "merge", "recover"]
    rc, out, err = run("--help")
    assert rc == 0 and all(v in out for v in verbs), out
    for code in range(5):
        assert "\n  %d  " % code in out, ("exit code %d not in --help" % code, out)
    for v in verbs:
        rc, out, err = run(v, "--version")
        assert rc == 0 and out.startswith("ludus-trace "), (v, rc, out)
        rc, out, err = run(v, "--help")
        assert rc == 0 and "exit codes:" in out and "\n  4  " in out and "options: " in out, (v, out)
        rc, out, err = run(v, "--no-such-option", cap)
        assert rc == 1 and "unknown option '--no-such-option'" in err and "takes: " in err, (v, rc, err)
        assert err.count("\n") == 1, (v, err)  # one line: the option and the ones the verb takes
        assert "-o OUT" in err, (v, err)  # every verb writes something: -o is among them
    rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--from")
    assert rc == 1 and "--from needs a value" in err, err
    rc, _, err = run("report", cap, "--top")
    assert rc == 1 and "--top needs a value" in err, err
    # --budget: no frame within it is a hitch (the demo's frames are a few ms)
    rc, out, err = run("report", cap, "--budget", "500")
    assert rc == 0 and "budget 500.00 ms) = 500.00 ms): 0, worst first" in out, (rc, out[:2000], err)
    rc, _, err = run("report", cap, "--budget", "soon")
    assert rc == 1 and "--budget takes a frame budget in ms" in err, err
    rc, _, err = run("nosuchverb")
    assert rc == 1 and "unknown verb 'nosuchverb'" in err and "convert" in err, err
    rc, _, err = run("convert", cap, os.path.join(d, "a.json"), "-o", os.path.join(d, "b.json"))
    assert rc == 1 and "not both" in err, err
    rc, _, err = run("convert", cap, os.path.join(d, "x.json"), "--format", "xml")
    assert rc == 1 and "the formats are json, pftrace and ludus" in err, err

    # -o beside the positional OUT, "-" and /dev/stdout
    ref = {}
    for ext in ("json", "pftrace", "ludus"):
        pos, opt = os.path.join(d, "pos." + ext), os.path.join(d, "opt." + ext)
        assert run("convert", cap, pos)[0] == 0 and run("convert", cap, "-o", opt)[0] == 0
        ref[ext] = open(pos, "rb").read()
        assert open(opt, "rb").read() == ref[ext], ext
        rc, out, err = run_bytes("convert", cap, "-", "--format", ext)
        assert rc == 0 and out == ref[ext], (ext, rc, err)
        rc, out, err = run_bytes("convert", "-", os.path.join(d, "in." + ext), stdin=open(cap, "rb"))
        assert rc == 0 and open(os.path.join(d, "in." + ext), "rb").read() == ref[ext], (ext, rc, err)
    rc, out, err = run_bytes("convert", cap, "-")  # "-" without --format: JSON
    assert rc == 0 and out == ref["json"], (rc, err)
    rc, out, err = run_bytes("convert", cap, "/dev/stdout")
    assert rc == 0 and out == ref["json"], (rc, err)
    rc, out, err = run_bytes("convert", "-", "-", stdin=open(cap, "rb"))
    assert rc == 0 and out == ref["json"], (rc, err)
    rc, _, err = run("convert", "-", "-", "--threads", "Main", stdin=subprocess.DEVNULL)
    assert rc == 2 and "standard input" in err, (rc, err)  # an empty input: bad input, said
    info_ref = run("info", cap)[1]
    rc, out, err = run("info", "-", stdin=open(cap, "rb"))
    # all but the file line and how it was read (standard input is read whole, the file through its index)
    assert rc == 0 and "read:        every record" in out, (rc, out)
    strip = lambda t: [l for l in t.split("\n")[1:] if not l.startswith("read:")]
    assert strip(out) == strip(info_ref), (out, info_ref)
    assert run("info", cap, "-o", os.path.join(d, "info.txt"))[0] == 0
    assert open(os.path.join(d, "info.txt")).read() == info_ref
    rep_ref = run("report", cap)[1]
    assert run("report", cap, "-o", os.path.join(d, "rep.txt"))[0] == 0
    assert open(os.path.join(d, "rep.txt")).read() == rep_ref
    rc, out, err = run("report", "-", stdin=open(cap, "rb"))
    assert rc == 0 and out.count("\n") == rep_ref.count("\n"), (rc, err)
    rc, out, err = run("report", cap, "--html", "-")
    assert rc == 0 and out.startswith("<!DOCTYPE html>") and out.rstrip().endswith("</html>"), (rc, out[:100], err)
    diff_ref = run("diff", cap, cap)[1]
    rc, out, err = run("diff", "-", cap, stdin=open(cap, "rb"))
    assert rc == 0 and out == diff_ref, (rc, err)
    assert run("diff", cap, cap, "-o", os.path.join(d, "diff.txt"))[0] == 0
    assert open(os.path.join(d, "diff.txt")).read() == diff_ref
    rc, _, err = run("diff", "-", "-", stdin=open(cap, "rb"))
    assert rc == 1 and "one input only" in err, (rc, err)
    rc, out, err = run("merge", cap, "-o", "-")
    assert rc == 0 and json.loads(out)["metadata"]["merged"] is True and "merged 1 capture" in err, (rc, err)
    rc, out, err = run("merge", "-", "-o", os.path.join(d, "m.json"), stdin=open(cap, "rb"))
    assert rc == 0 and trace_json.load(os.path.join(d, "m.json"))["metadata"]["merged"], (rc, err)
    rc, _, err = run("recover", "-", os.path.join(d, "r.json"))
    assert rc == 1 and "POOL is a file" in err, (rc, err)
    rc, _, err = run("recover", os.path.join(d, "no.pool"), "-o", os.path.join(d, "r.json"))
    assert rc == 3 and "no.pool" in err, (rc, err)

    # progress: on a terminal, for each verb that reads or writes; none on a pipe
    rc, out, tty = run_pty_stderr("info", cap)
    assert rc == 0 and "ludus-trace info: reading " + cap in tty and out.decode() == info_ref, (rc, tty)
    rc, out, tty = run_pty_stderr("report", cap)
    assert rc == 0 and "ludus-trace report: analysing" in tty, (rc, tty)
    rc, out, tty = run_pty_stderr("convert", cap, os.path.join(d, "p.json"))
    assert rc == 0 and "ludus-trace convert: writing [" in tty and "%" in tty, (rc, tty)
    rc, out, tty = run_pty_stderr("merge", cap, "-o", os.path.join(d, "pm.json"))
    assert rc == 0 and "ludus-trace merge: writing" in tty, (rc, tty)
    for args in (["info", cap], ["report", cap], ["convert", cap, os.path.join(d, "q.json")], ["diff", cap, cap]):
        p = subprocess.run([tool, *args], capture_output=True, text=True,
                           env=dict(os.environ, LUDUS_TRACE_PROGRESS_MS="0"))
        assert p.returncode == 0 and p.stderr == "", (args, p.stderr)

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
    doc = trace_json.load(cut)
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

    # the same cut as a capture file (it was refused: "a .ludus file holds whole threads"): a capture
    # of the range, its times counted from --from, its slices the JSON cut's (async zones begun
    # before the cut are not carried), info and report read it, and it says what it was cut from
    cutl = os.path.join(d, "cut.ludus")
    rc, _, err = run("convert", cap, cutl, "--from", "%dns" % lo, "--to", "%dns" % hi)
    assert rc == 0, err
    rc, out, err = run("info", cutl)
    assert rc == 0 and "cut:         %.3f .. %.3f ms of a capture of" % (lo / 1e6, hi / 1e6) in out, (rc, out, err)
    assert "frames:      1 complete" in out and "2 marks" in out, out
    rc, rep, err = run("report", cutl)
    assert rc == 0, err
    rc, _, err = run("convert", cutl, os.path.join(d, "cut2.json"))
    assert rc == 0, err
    doc2 = trace_json.load(os.path.join(d, "cut2.json"))

    def slices(doc, shift):
        out = {}
        for e in doc["traceEvents"]:
            if e["ph"] == "X" and e.get("cat") not in ("flow", "async", "gpu"):
                out.setdefault(e["name"], []).append(  # (spans: the lanes of a cut are its own)
                    (round(float(e["ts"]) * 1000) + shift, round(float(e["dur"]) * 1000)))
        return {k: sorted(v) for k, v in out.items()}

    want, got = slices(doc, 0), slices(doc2, lo)
    assert want.keys() == got.keys(), (sorted(want.keys() ^ got.keys()))
    for k in want:
        assert len(want[k]) == len(got[k]) and all(abs(a[0] - b[0]) <= 2 and abs(a[1] - b[1]) <= 2
                                                   for a, b in zip(want[k], got[k])), (k, want[k][:4], got[k][:4])
    assert sum(len(v) for v in got.values()) > 10
    count = lambda doc, ph: sum(1 for e in doc["traceEvents"] if e["ph"] == ph)
    assert count(doc2, "C") == count(doc, "C"), (count(doc2, "C"), count(doc, "C"))
    # a cut of the cut names the first source's range
    rc, _, err = run("convert", cutl, os.path.join(d, "cut3.ludus"), "--from", "1000ns")
    assert rc == 0, err
    rc, out, err = run("info", os.path.join(d, "cut3.ludus"))
    assert rc == 0 and "cut:         %.3f .. %.3f ms" % ((lo + 1000) / 1e6, hi / 1e6) in out, (rc, out, err)

    # --frames: the time of frames as report numbers them, as a cut (any output)
    fr = os.path.join(d, "frames.ludus")
    rc, _, err = run("convert", cap, fr, "--frames", "10-12")
    assert rc == 0, err
    rc, out, err = run("info", fr)
    assert rc == 0 and "frames:      3 complete" in out and "4 marks" in out, (rc, out, err)
    rc, _, err = run("convert", cap, fr, "--frames", "last:5")
    assert rc == 0, err
    rc, out, err = run("info", fr)
    assert rc == 0 and "frames:      5 complete" in out, (rc, out, err)
    rc, _, err = run("convert", cap, os.path.join(d, "fr.json"), "--frames", "0-3")
    assert rc == 1 and "the capture's complete frames are 1 to 59" in err, (rc, err)
    rc, _, err = run("convert", cap, os.path.join(d, "fr.json"), "--frames", "3-2")
    assert rc == 1 and "--frames takes" in err, (rc, err)
    rc, _, err = run("convert", cap, os.path.join(d, "fr.json"), "--frames", "3-4", "--from", "1ms")
    assert rc == 1 and "not both" in err, (rc, err)

    # thread subset by name and by tid
    tids = {e["tid"]: e["args"]["name"] for e in full["traceEvents"] if e.get("name") == "thread_name"}
    main_tid = [t for t, n in tids.items() if n == "Main"][0]
    worker_tid = [t for t, n in tids.items() if n.startswith("Worker")][0]
    sub = os.path.join(d, "sub.json")
    rc, _, err = run("convert", cap, sub, "--threads", "Main,%d" % worker_tid)
    assert rc == 0, err
    doc = trace_json.load(sub)
    got = {e["tid"] for e in doc["traceEvents"] if e["ph"] != "M"}
    # and the async lanes (tids from 0x7ffe0000) of zones those threads began or ended
    assert {t for t in got if not 0x7FFE0000 <= t < 0x7FFF0000} == {main_tid, worker_tid}, got
    slices_ok(doc, 0, 1 << 62)
print("ok")
