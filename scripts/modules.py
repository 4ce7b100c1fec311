#!/usr/bin/env python3
"""Reads src/modules.txt, the module table (its header says what the rows
mean), for the Python checks and the single-file build, and checks it holds
together: known libraries and conditions, each room's rows after its room
line, each room using only rooms above it, every .c of src/ in one row.

usage: modules.py [ROOT]          check the table, print the rooms in order
       modules.py files LIBRARY   the .c files (src/ROOM/NAME) of LIBRARY, in table order
"""
import fnmatch
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIBRARIES = ("ludus", "analysis", "vulkan")
WHEN = ("any", "linux", "posix", "windows", "builtin", "tracy")


class Table:
    def __init__(self, root=ROOT):
        self.root = root
        self.path = os.path.join(root, "src", "modules.txt")
        self.rooms = []  # room names, bottom up
        self.uses = {}  # room -> set of rooms it may use
        self.rows = []  # (room, glob, library, when)
        self.problems = []
        with open(self.path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                w = line.split("#", 1)[0].split()
                if not w:
                    continue
                where = "src/modules.txt:%d" % n
                if w[0] == "room" and len(w) >= 2:
                    if w[1] in self.uses:
                        self.problems.append("%s: room %s listed twice" % (where, w[1]))
                    for u in w[2:]:
                        if u not in self.uses:
                            self.problems.append("%s: room %s may use %s, which is not a room above it" %
                                                 (where, w[1], u))
                    self.rooms.append(w[1])
                    self.uses[w[1]] = set(w[2:])
                elif w[0] == "file" and len(w) == 5:
                    room, glob, library, when = w[1:]
                    if not self.rooms or self.rooms[-1] != room:
                        self.problems.append("%s: a file row of %s not under its room line" % (where, room))
                    if library not in LIBRARIES:
                        self.problems.append("%s: library %s is none of %s" % (where, library, " ".join(LIBRARIES)))
                    if when not in WHEN:
                        self.problems.append("%s: condition %s is none of %s" % (where, when, " ".join(WHEN)))
                    self.rows.append((room, glob, library, when))
                else:
                    self.problems.append("%s: not a room or file row: %s" % (where, line.strip()))
        self.files = []  # (src-relative path, room, library, when), table order
        claimed = set()
        for room, glob, library, when in self.rows:
            d = os.path.join(root, "src", room)
            names = sorted(os.listdir(d)) if os.path.isdir(d) else []
            for name in names:
                rel = room + "/" + name
                if name.endswith(".c") and fnmatch.fnmatchcase(name, glob) and rel not in claimed:
                    claimed.add(rel)
                    self.files.append((rel, room, library, when))
        for d in sorted(os.listdir(os.path.join(root, "src"))):
            if not os.path.isdir(os.path.join(root, "src", d)):
                continue
            if d not in self.uses:
                self.problems.append("src/%s/ is a room that src/modules.txt does not list" % d)
            for name in sorted(os.listdir(os.path.join(root, "src", d))):
                if name.endswith(".c") and d + "/" + name not in claimed:
                    self.problems.append("src/%s/%s is in no file row of src/modules.txt" % (d, name))

    def room_of(self, rel):
        return rel.split("/", 1)[0]

    def library_files(self, library):
        return [f for f in self.files if f[2] == library]


def main():
    args = sys.argv[1:]
    root = ROOT
    if args and args[0] == "files":
        t = Table(root)
        for rel, _room, _lib, when in t.library_files(args[1]):
            print(rel, when)
        return 0
    if args:
        root = args[0]
    t = Table(root)
    for p in t.problems:
        print("FAIL: " + p)
    if t.problems:
        return 1
    print("ok: src/modules.txt: %d rooms (%s), %d files" % (len(t.rooms), " ".join(t.rooms), len(t.files)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
