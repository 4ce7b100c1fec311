#!/usr/bin/env python3
"""Every pass over a pathological shape grows as N log N, measured as
instructions (callgrind counts only the pass, not the recording; counts do
not depend on the machine's load) at N and 4N: a linear pass gives a ratio
near 4, N log N a little more, a quadratic one 16. Also what the pass
writes: the HTML report of a recursion any deeper has the same size (deep
paths are folded), the paths stop at LUDUS_PATH_DEPTH.
usage: check_bounded.py BOUNDED VALGRIND"""
import os
import re
import subprocess
import sys
import tempfile

prog, valgrind = sys.argv[1:3]
SHAPES = [("deep", 8000), ("paths", 2048), ("async", 3000)]
MAX_RATIO = 7.0  # 4N against N: 4 x (log 4N / log N) plus fixed costs, far below the quadratic 16
problems = []


def measure(shape, n):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cg.out")
        r = subprocess.run([valgrind, "--tool=callgrind", "--collect-atstart=no", "--toggle-collect=measured",
                            "--callgrind-out-file=" + out, prog, shape, str(n)], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("%s %s %d failed: %s" % (prog, shape, n, r.stderr[-2000:]))
        m = re.search(r"^summary:\s+(\d+)", open(out).read(), re.M)
        if not m:
            sys.exit("no callgrind summary for %s %d" % (shape, n))
        got = dict(re.findall(r"(\w+) (\d+)", r.stdout))
        return int(m.group(1)), int(got["bytes"]), int(got["paths"])


for shape, n in SHAPES:
    i1, b1, p1 = measure(shape, n)
    i4, b4, p4 = measure(shape, 4 * n)
    ratio = i4 / i1
    print("%-6s N=%-6d %12d instructions, 4N: %12d (x%.2f); output %d -> %d bytes; paths %d -> %d" %
          (shape, n, i1, i4, ratio, b1, b4, p1, p4))
    if ratio > MAX_RATIO:
        problems.append("%s: x%.2f the instructions for 4x the input (at most x%.1f)" % (shape, ratio, MAX_RATIO))
    if shape == "deep":
        if b4 > b1 * 1.1:  # the counts get a digit or two longer
            problems.append("deep: the HTML report grew from %d to %d bytes with the depth" % (b1, b4))
        if p4 != 256:
            problems.append("deep: %d paths, not LUDUS_PATH_DEPTH (256)" % p4)
for p in problems:
    print("FAIL:", p)
sys.exit(1 if problems else 0)
