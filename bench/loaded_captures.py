"""Captures taken on a machine as loaded as a shared CI runner, for the diff
benchmarks (diff_accuracy.py, diff_gates.py): CPU-bound processes beside the
runs, the load average before and after, and the record of both kept in the
work folder so --reuse can diff the same captures again."""
import json
import os
import subprocess
import sys
import time


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def _loadavg():
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def capture(work, load, reuse, runs):
    """Run the argument lists of `runs` one after the other beside `load`
    burners (or, with `reuse`, read what an earlier run kept in `work`).
    Returns (load_before, load_after, capture_s, load)."""
    state = os.path.join(work, "captured.json")
    if reuse:
        with open(state) as f:
            return tuple(json.load(f))
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(load)]
    t0 = time.time()
    try:
        time.sleep(0.5)  # let the burners reach full speed
        load_before = _loadavg()
        for argv in runs:
            subprocess.run(argv, check=True)
        load_after = _loadavg()
        capture_s = time.time() - t0
    finally:
        for b in burners:
            b.kill()
            b.wait()
    with open(state, "w") as f:
        json.dump([load_before, load_after, capture_s, load], f)
    return load_before, load_after, capture_s, load
