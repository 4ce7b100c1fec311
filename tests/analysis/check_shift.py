#!/usr/bin/env python3
"""Recomputes the diff's per-call shift on its own and compares: the
Hodges-Lehmann estimate (median of all pairwise differences of log(1 + ns),
NEW - BASE), its distribution-free interval (order statistics c and N + 1 - c
of the sorted differences, c = floor(N/2 - z sqrt(var U)) with the
tie-corrected variance, z for alpha / tests), and the run-to-run widening
(in quadrature: with one run per side the distances below and above of the
Hodges-Lehmann interval at run_alpha of NEW's 8 blocks of frames against
BASE's (each block's lower median of a frame's log(1 + exclusive ns per
call)), each at least z(run_alpha) x log(1 + run_noise) x sqrt(2); t(run_alpha, df) x the pooled SD of the per-run lower
medians x sqrt(1/ka + 1/kb) with several). Binned cases put each duration at its
log-linear bucket's middle (computed here from the bucket definition),
clamped to the side's min and max. Every pair is listed: brute force.
   check_shift.py SHIFT_DUMP"""
import json
import math
import statistics
import subprocess
import sys

T_05_4DF = 2.7764451051977987  # Student t, two-sided 5%, 4 degrees of freedom (published tables)

doc = json.loads(subprocess.run([sys.argv[1]], check=True, stdout=subprocess.PIPE).stdout)


def bucket_mid(v):
    if v < 64:
        return v
    e = v.bit_length() - 1
    shift = e - 6
    sub = (v >> shift) & 63
    return ((64 + sub) << shift) + ((1 << shift) >> 1)


def side_values(runs, exact):
    out = []
    for r in runs:
        if exact:
            out.append([math.log1p(v) for v in r])
        else:
            lo, hi = min(r), max(r)
            out.append([math.log1p(min(max(bucket_mid(v), lo), hi)) for v in r])
    return out


def hl(x, y, z):
    diffs = sorted(b - a for a in x for b in y)
    n = len(diffs)
    est = diffs[(n + 1) // 2 - 1] if n % 2 else (diffs[n // 2 - 1] + diffs[n // 2]) / 2
    na, nb = len(x), len(y)
    counts = {}
    for v in x + y:
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = na * nb / 12.0 * ((na + nb + 1) - ties / ((na + nb) * (na + nb - 1)))
    c = math.floor(n / 2 - z * math.sqrt(var))
    assert c >= 1
    return est, diffs[c - 1], diffs[n - c]


def lower_median(v):
    s = sorted(v)
    return s[(len(s) + 1) // 2 - 1]


fail = []
for case in doc["cases"]:
    d = case["diff"]
    entry = [e for e in d["entries"] if e["kind"] == "site" and e["name"] == "B"][0]
    # Bonferroni: 6 tests per entry present on both sides
    tests = 6 * sum(1 for e in d["entries"] if e["base_index"] >= 0 and e["new_index"] >= 0)
    if d["tests"] != tests or abs(d["alpha_per_test"] - d["alpha"] / tests) > 1e-12:
        fail.append("%s: tests %s, alpha per test %s" % (case["name"], d["tests"], d["alpha_per_test"]))
    z = statistics.NormalDist().inv_cdf(1 - d["alpha"] / tests / 2)
    # the runs of a side pooled into one sample (binned: clamped to the pooled min and max)
    xs, ys = side_values(case["base"], case["exact"]), side_values(case["new"], case["exact"])
    px = side_values([sum(case["base"], [])], case["exact"])[0]
    py = side_values([sum(case["new"], [])], case["exact"])[0]
    est, lo, hi = hl(px, py, z)
    ka, kb = len(xs), len(ys)
    runs = d["runs"]
    if ka == 1 and kb == 1:
        # blocks of frames stand for runs: one call of B per frame, so a frame's time per call is its duration
        # (exact: cells keep exact ns in either mode); 8 blocks of each run's 199 window frames (the first B
        # lies before the first mark), each block's lower median of log(1 + ns); the Hodges-Lehmann interval of
        # NEW's blocks against BASE's at run_alpha gives the terms below and above, at least z x floor x sqrt 2
        assert runs["blocks"] == 8
        zr = statistics.NormalDist().inv_cdf(1 - runs["run_alpha"] / 2)
        meds = []
        for side in (case["base"][0][1:], case["new"][0][1:]):
            n = len(side)
            meds.append([lower_median([math.log1p(side[f]) for f in range(n) if f * 8 // n == k]) for k in range(8)])
        be, bl, bh = hl(meds[0], meds[1], zr)
        least = zr * math.log1p(runs["assumed_sd"]) * math.sqrt(2)
        b_lo, b_hi = max(be - bl, least), max(bh - be, least)
        sd = None
    else:
        # per-run lower medians (binned: each run's own bucket middles)
        meds = [[lower_median(r) for r in s] for s in (xs, ys)]
        ss = sum((m - statistics.fmean(s)) ** 2 for s in meds for m in s)
        sd = math.sqrt(ss / (ka + kb - 2))
        assert ka + kb - 2 == 4
        b_lo = b_hi = T_05_4DF * sd * math.sqrt(1 / ka + 1 / kb)
    want = [math.expm1(est), math.expm1(est - math.hypot(est - lo, b_lo)), math.expm1(est + math.hypot(hi - est, b_hi))]
    got = entry["shift"]
    for k, name in enumerate(("estimate", "low end", "high end")):
        if abs(want[k] - got[k]) > 2e-6:
            fail.append("%s: %s %.6f, recomputed %.6f" % (case["name"], name, got[k], want[k]))
    if sd is not None and abs(math.expm1(sd) - entry["run_sd"]) > 2e-6:
        fail.append("%s: run SD %.6f, recomputed %.6f" % (case["name"], entry["run_sd"], math.expm1(sd)))
    # the verdict rule: slower work only when the whole interval lies beyond min_shift
    slower = bool(entry["flags"] & 4)
    if slower != (want[1] >= d["min_shift"]):
        fail.append("%s: verdict %s with a low end of %.4f" % (case["name"], entry["verdict"], want[1]))
    print("%-20s shift %+.4f [%+.4f, %+.4f] (recomputed %+.4f [%+.4f, %+.4f]) %s" % (
        case["name"], got[0], got[1], got[2], want[0], want[1], want[2], entry["verdict"]))
# binned against exact: within two bucket errors of each other
by = {c["name"]: c for c in doc["cases"]}
tol = 2 * math.log1p(1 / 128)
for runs in ("one run", "three runs"):
    e = [x for x in by[runs + ", exact"]["diff"]["entries"] if x["name"] == "B" and x["kind"] == "site"][0]["shift"]
    b = [x for x in by[runs + ", binned"]["diff"]["entries"] if x["name"] == "B" and x["kind"] == "site"][0]["shift"]
    for k in range(3):
        if abs(math.log1p(e[k]) - math.log1p(b[k])) > tol:
            fail.append("%s: binned %.4f vs exact %.4f, beyond %.4f" % (runs, b[k], e[k], tol))
for f in fail:
    print("FAIL:", f)
sys.exit(1 if fail else 0)
