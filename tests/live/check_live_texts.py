#!/usr/bin/env python3
"""The watched process's texts are shown, never sent raw (docs/live.md): the
demo started through a link whose name holds an escape sequence (a process
names itself: /proc/PID/comm) with LUDUS_LIVE=1, captured by
`ludus-trace capture`: its line names the process with \\xHH, no control
character reaches the terminal of whoever captures it.
   check_live_texts.py DEMO LUDUS_TRACE WORKDIR"""
import json
import os
import shutil
import subprocess
import sys
import time

demo, tool, work = sys.argv[1:4]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
name = os.path.join(work, "\x1b]0;pwn\x07\x1b[2J")  # retitles, then clears, a terminal
os.symlink(demo, name)
env = dict(os.environ, LUDUS_LIVE="1")
env.pop("LUDUS_TRACE", None)
p = subprocess.Popen([name, "--no-capture", "--frames", "100000000"], env=env, stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE)
try:
    # the block appears when the library loads: wait for it (not a timing assertion: up to 60 s)
    for _ in range(600):
        fds = os.path.join("/proc", str(p.pid), "fd")
        try:
            if any(os.readlink(os.path.join(fds, f)).startswith("/memfd:ludus-live") for f in os.listdir(fds)):
                break
        except OSError:
            pass
        if p.poll() is not None:
            sys.exit("FAIL: the demo exited: %r" % p.stderr.read())
        time.sleep(0.1)
    comm = open("/proc/%d/comm" % p.pid, "rb").read()
    if b"\x1b" not in comm:
        print("skip: the process name holds no escape here (%r)" % comm)
        sys.exit(0)
    # the block appears before the demo's first frame: a capture begun then may hold no event
    # (seen under ASan on a loaded machine). Wait until top reads scopes (not a timing
    # assertion: up to 12 readings of `top --once`, each up to 10 s)
    for _ in range(12):
        t = subprocess.run([tool, "top", str(p.pid), "--once", "--json"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=120)
        if t.returncode == 0 and json.loads(t.stdout)["top"]["scopes"]:
            break
    out = os.path.join(work, "texts.ludus")
    r = subprocess.run([tool, "capture", str(p.pid), "--seconds", "0.2", "-o", out], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
finally:
    p.kill()
    p.wait()
text = (r.stdout + r.stderr).decode("utf-8", "replace")
bad = [c for c in text if (ord(c) < 0x20 and c != "\n") or 0x7F <= ord(c) < 0xA0]
if r.returncode != 0 or "wrote " + out not in text:
    sys.exit("FAIL: capture: rc %d %r" % (r.returncode, text))
if bad or "\\x1b]0;pwn\\x07" not in text:
    sys.exit("FAIL: the process's name reached the terminal raw: %r" % text)
print("check_live_texts: ok (%s)" % text.strip())
