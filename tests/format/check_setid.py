#!/usr/bin/env python3
"""Set-ID programs ignore the environment's switches (docs/capture.md): a
set-user-ID-root copy of setid_victim, run by an ordinary user (nobody,
through setpriv) with LUDUS_TRACE in a directory of the user's own, its
file swapped during the run for a link to a root-only file, and
LUDUS_TRACE_POOL naming a file in a root-only directory, with LUDUS_LIVE=1:
the root-only file is unchanged, no pool file and no capture appear, and
the program runs normally. Needs root and setpriv: skipped with a message
otherwise. The same copy without the set-user-ID bit (run as nobody, the
same environment) does trace: the environment is what was ignored.
usage: check_setid.py SETID_VICTIM WORKDIR"""
import os, shutil, stat, subprocess, sys

victim, work = sys.argv[1:3]
if os.geteuid() != 0 or not shutil.which("setpriv"):
    print("skip: the set-user-ID check needs root and setpriv (here: uid %d)" % os.geteuid())
    sys.exit(0)
NOBODY = 65534
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
os.chmod(work, 0o755)
user = os.path.join(work, "user")  # the user's own directory
os.makedirs(user)
os.chown(user, NOBODY, NOBODY)
os.chmod(user, 0o755)
private = os.path.join(work, "private")  # root's
os.makedirs(private)
os.chmod(private, 0o700)
secret = os.path.join(private, "secret.json")
with open(secret, "w") as f:
    f.write("root's own\n")
os.chmod(secret, 0o600)
os.chmod(private, 0o711)  # traversable, not listable or writable: the link can point in
prog = os.path.join(work, "victim")
shutil.copy(victim, prog)
os.chown(prog, 0, 0)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(setuid):
    os.chmod(prog, 0o4755 if setuid else 0o755)
    for f in os.listdir(user):
        os.unlink(os.path.join(user, f))
    out = os.path.join(user, "out.json")
    with open(out, "w") as f:
        f.write("")
    os.chown(out, NOBODY, NOBODY)
    env = dict(os.environ, LUDUS_TRACE=out, LUDUS_TRACE_POOL=os.path.join(
        private if setuid else user, "pool.bin"), LUDUS_LIVE="1")
    p = subprocess.Popen(["setpriv", "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups", prog],
                         env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = p.stdout.readline()
    if setuid:  # the user swaps the output for a link to root's file while it runs
        os.unlink(out)
        os.symlink(secret, out)
    o, e = p.communicate("go\n", timeout=60)
    return p.returncode, ready, e


rc, ready, err = run(setuid=False)
if ready != "ready\n" and ("Permission denied" in err or rc == 126 or rc == 127):
    print("skip: nobody cannot run %s here (%s)" % (prog, err.strip()[:200]))
    sys.exit(0)
# without the bit, the environment is taken: the capture is written
check(rc == 0 and ready == "ready\n", "the plain copy runs: rc %d %r %s" % (rc, ready, err))
check(os.path.getsize(os.path.join(user, "out.json")) > 0, "the plain copy traces: %s" % err)

rc, ready, err = run(setuid=True)
check(rc == 0 and ready == "ready\n", "the set-user-ID copy runs: rc %d %r %s" % (rc, ready, err))
with open(secret) as f:
    check(f.read() == "root's own\n", "root's file is untouched")
check(os.lstat(secret).st_uid == 0 and stat.S_IMODE(os.lstat(secret).st_mode) == 0o600, "root's file keeps its owner")
check(os.listdir(private) == ["secret.json"], "no pool file in root's directory: %s" % os.listdir(private))
check(os.listdir(user) == ["out.json"] and os.path.islink(os.path.join(user, "out.json")),
      "nothing written in the user's directory: %s" % os.listdir(user))
check("ludus:" not in err, "the set-user-ID copy says nothing of tracing: %s" % err)
print("check_setid: %s" % ("ok" if not failures else "%d problems" % len(failures)))
sys.exit(1 if failures else 0)
