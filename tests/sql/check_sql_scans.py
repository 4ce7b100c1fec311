#!/usr/bin/env python3
"""ludus-trace sql's event tables read from the capture files at each query
(tools/ludus-trace/sql_vtab.c, docs/sql.md) give the answers the loaded
tables gave. A capture from standard input is loaded into the database as
before, so "sql - < FILE" is the oracle. The queries cover a scan, constants
(no lookup), lookups by a join's value (a few: read from the file; many:
the copy, indexed), rescans of a correlated subquery, the views, a scan cut
short by LIMIT while its thread is ahead, many captures (a join on
capture_id, a self-join within each), and a capture damaged after it was
loaded (the scan that reads it again names it and the offset).
usage: check_sql_scans.py LUDUS_TRACE HOSTILE_NAMES WORKDIR [DEMO]
Without DEMO (the TSan tree, where the demo is too slow): the hostile-name
capture, and a directory of four copies of it (the scans' thread hands over
many batches)."""
import json, os, shutil, subprocess, sys

tool, hostile, work = sys.argv[1:4]
demo = sys.argv[4] if len(sys.argv) > 4 else None
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "many"))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(*args, stdin=None):
    p = subprocess.run([tool, *args], capture_output=True, cwd=work, input=stdin)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def loaded(path, query, fmt="--csv"):
    """The oracle: the capture through standard input, loaded."""
    return run("sql", "-", query, fmt, stdin=open(os.path.join(work, path), "rb").read())


subprocess.run([hostile, os.path.join(work, "hostile")], check=True, capture_output=True)
captures = ["hostile.ludus"]
if demo:
    for name, frames in (("demo", "60"), ("long", "600")):
        subprocess.run([demo, "--trace", os.path.join(work, name + ".json"), "--frames", frames], check=True,
                       capture_output=True)
        captures.append(name + ".ludus")
for i in range(1, 5):
    shutil.copy(os.path.join(work, captures[-1]), os.path.join(work, "many", "run%d.ludus" % i))

same_queries = [
    "SELECT frame, count(*) AS n, sum(dur) AS ns FROM slice GROUP BY frame ORDER BY ns DESC, frame LIMIT 5",
    "SELECT s.name, p.name AS parent, count(*) AS n FROM slice s JOIN slice p ON p.id = s.parent_id "
    "AND p.capture_id = s.capture_id GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT s.name, a.key, count(*) AS n FROM slice s JOIN args a ON a.arg_set_id = s.arg_set_id GROUP BY 1, 2 ORDER BY 1, 2",
    "SELECT t.name, count(*) AS n, sum(s.dur) AS d FROM slice s JOIN thread t ON t.utid = s.utid GROUP BY 1 ORDER BY 1",
    "SELECT f.id, count(*) AS n FROM frame f JOIN slice s ON s.frame = f.id WHERE f.hitch = 1 GROUP BY f.id ORDER BY f.id",
    "SELECT name, (SELECT count(*) FROM log l WHERE l.frame = s.frame) AS logs FROM slice s WHERE depth = 0 ORDER BY id LIMIT 40",
    "SELECT count(*) AS n FROM slice WHERE name IN ('Render', 'Physics')",
    "SELECT count(*) AS n, sum(dur) AS d FROM slice WHERE frame = 10",
    "SELECT count(*) AS n, sum(dur) AS d FROM lock_wait",
    "SELECT count(*) AS n, sum(ts_in - ts_out) AS d FROM flow",
    "SELECT count(*) AS n FROM (SELECT DISTINCT frame FROM log) f, counter c WHERE c.frame = f.frame",
    "SELECT id, name, ts FROM slice ORDER BY ts DESC, id LIMIT 3",
    "SELECT * FROM slice LIMIT 1",
    "SELECT * FROM instant ORDER BY ts",
    "SELECT * FROM async_slice ORDER BY ts",
    "SELECT * FROM flow_event ORDER BY ts, direction",
    "SELECT * FROM counter ORDER BY ts, track_id LIMIT 50",
    "SELECT * FROM log ORDER BY ts",
    "SELECT * FROM args ORDER BY arg_set_id, key",
]
for target in captures:
    for q in same_queries:
        rc, out, err = run("sql", target, q, "--csv")
        lrc, lout, lerr = loaded(target, q)
        check(rc == 0 and lrc == 0 and out == lout,
              "%s: %s: read from the file %r, loaded %r (%s %s)" % (target, q, out[:200], lout[:200], err, lerr))

# Many captures: each capture's rows are its own; a join on capture_id reads one file at a time.
one = json.loads(loaded(captures[-1], "SELECT count(*) AS n, sum(dur) AS d, "
                        "sum(parent_id IS NOT NULL) AS nested FROM slice", "--json")[1])[0]
for q in ("SELECT c.id, count(*) AS n, sum(s.dur) AS d FROM slice s JOIN capture c ON c.id = s.capture_id "
          "GROUP BY c.id ORDER BY c.id",
          "SELECT capture_id, count(*) AS n, sum(dur) AS d FROM slice GROUP BY 1 ORDER BY 1"):
    rc, out, err = run("sql", "many", q, "--json")
    got = json.loads(out) if rc == 0 else err
    check(rc == 0 and [(r["n"], r["d"]) for r in got] == [(one["n"], one["d"])] * 4,
          "many captures: each capture's slices (%r)" % got)
rc, out, err = run("sql", "many", "SELECT s.capture_id, count(*) AS n FROM slice s JOIN slice p ON "
                   "p.capture_id = s.capture_id AND p.id = s.parent_id GROUP BY 1 ORDER BY 1", "--json")
got = json.loads(out) if rc == 0 else err
check(rc == 0 and [r["n"] for r in got] == [one["nested"]] * 4, "many captures: a self-join in each (%r)" % got)

# A capture damaged after it was loaded: the scan that reads it again fails,
# naming it and the offset, as an SQL error (exit 1); the prompt survives.
p = subprocess.Popen([tool, "sql", "many", "--csv"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, cwd=work)
p.stdin.write(b"SELECT count(*) AS n FROM capture;\n")
p.stdin.flush()
first = p.stdout.readline() + p.stdout.readline()
data = bytearray(open(os.path.join(work, "many", "run1.ludus"), "rb").read())
data[len(data) // 2] ^= 0xFF
open(os.path.join(work, "many", "bad.tmp"), "wb").write(data)
os.replace(os.path.join(work, "many", "bad.tmp"), os.path.join(work, "many", "run1.ludus"))
out, err = p.communicate(b"SELECT count(*) AS n FROM slice;\nSELECT 7 AS after;\n", timeout=120)
err = err.decode("utf-8", "replace")
check(first == b"n\r\n4\r\n" and p.returncode == 1 and "run1.ludus" in err and "offset" in err and
      out.endswith(b"after\r\n7\r\n"),
      "a capture damaged after loading: the scan says which and where (rc %s, %r, %r, %r)" % (p.returncode, first, out, err))

print("check_sql_scans: %s" % ("ok" if not failures else "%d problems" % len(failures)))
sys.exit(1 if failures else 0)
