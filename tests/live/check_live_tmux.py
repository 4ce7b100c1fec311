#!/usr/bin/env python3
"""The live screen of `ludus-trace top PID` in an 80x24 tmux pane (docs/live.md):
it fits (no line past 80 columns, the header on the first row: nothing
scrolled), shows frame times, the sparkline, top scopes and counters, and
answers its keys: s (sort), w (window), p (pause), c (a capture, written and
loadable), q (quits, the terminal given back). Every wait is a poll for a
screen that must come (up to 30 s), never a timing assertion. Skipped, with a
message, without tmux (scripts/ensure-deps.sh installs it).
   check_live_tmux.py DEMO LUDUS_TRACE WORKDIR"""
import os
import shutil
import subprocess
import sys
import time

demo, tool, work = sys.argv[1:4]
if not shutil.which("tmux"):
    print("skip: tmux is not installed (scripts/ensure-deps.sh installs it)")
    sys.exit(0)
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
sock = "ludus-live-test-%d" % os.getpid()
env = dict(os.environ, LUDUS_LIVE="1")
env.pop("LUDUS_TRACE", None)
d = subprocess.Popen([demo, "--no-capture", "--frames", "100000000"], env=env, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)


def tmux(*args, check=True):
    return subprocess.run(["tmux", "-L", sock] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, check=check)


def fail(msg):
    tmux("kill-server", check=False)
    d.kill()
    sys.exit("FAIL: " + msg)


def pane():
    return tmux("capture-pane", "-p", "-t", "top").stdout


def wait_for(pred, what):
    last = ""
    for _ in range(300):
        last = pane()
        if pred(last):
            return last
        time.sleep(0.1)
    fail("%s never showed; the screen:\n%s" % (what, last))


time.sleep(0.5)  # the block appears at load; top retries below if it is not there yet
cmd = "cd %s && LANG=C.UTF-8 %s top %d --interval 200; echo top-exited-$?; sleep 60" % (work, tool, d.pid)
tmux("new-session", "-d", "-x", "80", "-y", "24", "-s", "top", cmd)
screen = wait_for(lambda s: "top scopes over" in s and "DrawCalls" in s, "the top scopes")
rows = screen.rstrip("\n").split("\n")
if len(rows) > 24 or any(len(r) > 80 for r in rows):
    fail("the screen does not fit 80x24:\n" + screen)
if not rows[0].startswith("ludus-trace top %d (ludus-demo)" % d.pid):
    fail("the header is not on the first row (scrolled?):\n" + screen)
if "p50" not in rows[1] or "p99" not in rows[1] or "max" not in rows[1]:
    fail("no frame times on the second row:\n" + screen)
if "MainPass" not in screen or "excl/frame" not in screen or "lock waits:" not in screen or "losses:" not in screen:
    fail("missing parts:\n" + screen)
tmux("send-keys", "-t", "top", "s")
wait_for(lambda s: "sort calls" in s, "sort calls after s")
tmux("send-keys", "-t", "top", "s")
wait_for(lambda s: "sort name" in s, "sort name after s")
tmux("send-keys", "-t", "top", "w")
wait_for(lambda s: "window 300" in s, "window 300 after w")
tmux("send-keys", "-t", "top", "p")
wait_for(lambda s: "PAUSED" in s, "PAUSED after p")
tmux("send-keys", "-t", "top", "p")
wait_for(lambda s: "PAUSED" not in s, "the pause ended after p")
tmux("send-keys", "-t", "top", "c")
done = wait_for(lambda s: "capture: wrote" in s or "capture failed" in s, "the capture's result after c")
if "capture failed" in done:
    fail("the capture failed:\n" + done)
files = [f for f in os.listdir(work) if f.startswith("ludus-%d-" % d.pid) and f.endswith(".ludus")]
if len(files) != 1:
    fail("capture files: %s" % files)
r = subprocess.run([tool, "report", os.path.join(work, files[0])], stdout=subprocess.PIPE, text=True)
if r.returncode != 0 or "Frame time" not in r.stdout:
    fail("the capture does not load: " + r.stdout[:300])
tmux("send-keys", "-t", "top", "q")
wait_for(lambda s: "top-exited-0" in s and "top scopes" not in s, "a clean exit after q")
tmux("kill-server", check=False)
d.kill()
d.wait()
print("ok")
