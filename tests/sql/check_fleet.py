"""docs/sql.md, "A fleet of captures": its nightly job and its fleet query,
run as written (bash, with DuckDB's Node package standing in for the duckdb
shell: duckdb_shim.mjs), on two demo captures, then a third the next night.
Checks: every table of each capture is in the fleet's Parquet files with the
rows `ludus-trace sql` gives for that capture (counts per table, the slices'
durations), the fleet query answers for both captures, and the second night
appends the new capture's files and leaves the first ones as they were.
   check_fleet.py DEMO LUDUS_TRACE WORK ROOT
Skipped (exit 0, said) where node or the package is missing, as the DuckDB
read-back of check_sql.py is."""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

demo, tool, work, root = sys.argv[1:5]
node = shutil.which("node")
pkg = os.path.join(root, "tests", "sql", "node_modules", "@duckdb", "node-api")
if not node or not os.path.isdir(pkg):
    print("fleet check skipped: %s (scripts/ensure-sql-deps.sh installs it)" % ("no node" if not node else pkg + " missing"))
    sys.exit(0)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(os.path.join(work, "captures"))
bindir = os.path.join(work, "bin")
os.makedirs(bindir)
with open(os.path.join(bindir, "duckdb"), "w") as f:
    f.write('#!/bin/sh\nexec "%s" "%s" "$@"\n' % (node, os.path.join(root, "tests", "sql", "duckdb_shim.mjs")))
os.chmod(os.path.join(bindir, "duckdb"), 0o755)
os.symlink(tool, os.path.join(bindir, "ludus-trace"))
env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))

doc = open(os.path.join(root, "docs", "sql.md")).read()


def block(marker, lang):
    m = re.search(r"<!-- fleet: %s -->\n```%s\n(.*?)^```" % (marker, lang), doc, re.S | re.M)
    assert m, "docs/sql.md has no %s block" % marker
    return m.group(1)


nightly, query = block("nightly", "sh"), block("query", "sql")


def record(name, frames):
    js = os.path.join(work, "captures", name + ".json")
    subprocess.run([demo, "--trace", js, "--frames", str(frames)], check=True, capture_output=True)
    os.remove(js)


def night():
    p = subprocess.run(["bash", "-e", "-c", nightly], cwd=work, env=env, capture_output=True, text=True)
    assert p.returncode == 0, (p.stdout, p.stderr)


def duck(sql):
    p = subprocess.run(["duckdb"], input=sql, cwd=work, env=env, capture_output=True, text=True)
    assert p.returncode == 0, (sql, p.stderr)
    return [json.loads(l) for l in p.stdout.splitlines() if l.strip()]


def tool_sql(cap, q):
    p = subprocess.run([tool, "sql", cap, q, "--json"], cwd=work, capture_output=True, text=True)
    assert p.returncode == 0, (q, p.stderr)
    return json.loads(p.stdout)


def files():
    out = {}
    for dp, _, fs in os.walk(os.path.join(work, "fleet")):
        for f in fs:
            p = os.path.join(dp, f)
            out[os.path.relpath(p, work)] = (os.stat(p).st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest())
    return out


failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def check_capture(name):
    tables = sorted(t for t in os.listdir(os.path.join(work, "fleet")))
    check("slice" in tables and "capture" in tables and "frame" in tables, "fleet tables: %s" % tables)
    cap = os.path.join("captures", name + ".ludus")
    want = tool_sql(cap, " UNION ALL ".join("SELECT '%s' AS t, count(*) AS n FROM %s" % (t, t) for t in tables))
    got = duck(" UNION ALL ".join("SELECT '%s' AS t, count(*) AS n FROM read_parquet('fleet/%s/*.parquet', "
                                  "union_by_name = true) WHERE capture = '%s'" % (t, t, name) for t in tables) + ";\n")
    check({r["t"]: int(r["n"]) for r in want} == {r["t"]: int(r["n"]) for r in got},
          "%s: rows per table, ludus-trace sql %s vs fleet %s" % (name, want, got))
    check(any(r["t"] == "slice" and int(r["n"]) > 100 for r in want), "%s: slices recorded" % name)
    w = tool_sql(cap, "SELECT name, sum(dur) AS d FROM slice GROUP BY name ORDER BY name")
    g = duck("SELECT name, sum(dur)::BIGINT AS d FROM read_parquet('fleet/slice/*.parquet') WHERE capture = '%s' "
             "GROUP BY name ORDER BY name;\n" % name)
    check([(r["name"], int(r["d"])) for r in w] == [(r["name"], int(r["d"])) for r in g],
          "%s: slice durations by name" % name)


# night 1: two captures
record("run1", 40)
record("run2", 70)
night()
for n in ("run1", "run2"):
    check_capture(n)
rows = duck(query)
check({r["capture"] for r in rows} == {"run1", "run2"}, "fleet query: both captures (%s)" % rows[:3])
check(all(int(r["n"]) > 0 and r["p99_ns"] is not None for r in rows), "fleet query: counts and p99")
before = files()
check(len(before) >= 2 * 10, "fleet files: %d" % len(before))

# night 2: one more capture; the first two are skipped, their files untouched
record("run3", 50)
night()
after = files()
check(all(after.get(k) == v for k, v in before.items()), "night 2 rewrote a file of night 1")
new = [k for k in after if k not in before]
check(new and all(k.endswith("/run3.parquet") for k in new), "night 2 wrote run3's files only: %s" % new[:5])
check_capture("run3")
check({r["capture"] for r in duck(query)} == {"run1", "run2", "run3"}, "fleet query: three captures")

if failures:
    print("%d failures" % len(failures))
    sys.exit(1)
print("fleet: %d Parquet files, 3 captures, as docs/sql.md says" % len(after))
