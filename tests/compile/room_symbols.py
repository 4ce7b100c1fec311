#!/usr/bin/env python3
"""The rooms of src/ point one way on the built objects' symbols too.

includes.sh checks the includes; a room can still reach another through a
symbol it names without its header (a prototype written by hand, a header of
a third room that declares it). Here each object file of the libraries
(ludus and ludus_analysis, every room) is read with nm: a symbol it uses
(U) that an object of another room defines is an edge between the rooms.
Every edge must be one that room may use (its `room` row of the module
table, src/modules.txt, the one description of the room graph), and the
edges found must form no cycle. No exceptions: a lower room that must reach
up registers a hook (a function pointer the upper room sets).

usage: room_symbols.py NM MODULES_TXT OBJECT...
"""
import collections
import os
import re
import subprocess
import sys

def allowed_table(modules_txt):
    """room -> the rooms it may use, from the module table (scripts/modules.py reads it)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(modules_txt)))
    sys.path.insert(0, os.path.join(root, "scripts"))
    import modules
    t = modules.Table(root)
    if t.problems:
        sys.exit("FAIL: " + "; ".join(t.problems))
    return t.uses


def room_of(path):
    """The room of an object built from src/<room>/<file>.c, or None."""
    parts = os.path.normpath(path).split(os.sep)
    for i in range(len(parts) - 2, 0, -1):
        if parts[i - 1] == "src":
            return parts[i]
    return None


def symbols(nm, obj):
    out = subprocess.run([nm, "-P", obj], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        name, kind = f[0], f[1]
        if kind == "U":
            used.add(name)
        elif kind in "TDBRVWCGS" and kind.isupper():  # global definitions only
            defined.add(name)
    return defined, used


def find_cycle(edges):
    """A cycle in the room graph as a list of rooms, or None."""
    state = {}
    stack = []

    def visit(r):
        state[r] = 1
        stack.append(r)
        for t in sorted(edges.get(r, ())):
            if state.get(t) == 1:
                return stack[stack.index(t):] + [t]
            if t not in state:
                c = visit(t)
                if c:
                    return c
        stack.pop()
        state[r] = 2
        return None

    for r in sorted(edges):
        if r not in state:
            c = visit(r)
            if c:
                return c
    return None


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    nm, modules_txt = sys.argv[1], sys.argv[2]
    # ctest passes $<TARGET_OBJECTS:...> as one ;-separated argument
    objs = [o for arg in sys.argv[3:] for o in arg.split(";") if o]
    table = allowed_table(modules_txt)
    definer = {}  # symbol -> (room, object)
    uses = []  # (room, object, symbol)
    rooms = set()
    for obj in objs:
        room = room_of(obj)
        if room is None:
            continue  # not ours (Tracy's client)
        rooms.add(room)
        defined, used = symbols(nm, obj)
        for s in defined:
            definer.setdefault(s, (room, obj))
        uses += [(room, obj, s) for s in used]
    unknown = sorted(r for r in rooms if r not in table)
    if unknown:
        sys.exit("FAIL: rooms not in %s: %s" % (modules_txt, " ".join(unknown)))
    edges = collections.defaultdict(set)
    why = {}
    bad = []
    for room, obj, s in uses:
        if s not in definer:
            continue  # the C library's, the OS's
        troom, tobj = definer[s]
        if troom == room:
            continue
        edges[room].add(troom)
        why.setdefault((room, troom), "%s uses %s (%s)" % (os.path.basename(obj), s, os.path.basename(tobj)))
        if troom not in table[room]:
            bad.append("FAIL: %s/%s uses %s, defined in %s/%s: room %s may use only: %s (src/modules.txt)" %
                       (room, os.path.basename(obj).replace(".o", ""), s, troom,
                        os.path.basename(tobj).replace(".o", ""), room, " ".join(sorted(table[room])) or "nothing"))
    for line in sorted(set(bad)):
        print(line)
    cycle = find_cycle(edges)
    if cycle:
        print("FAIL: the rooms' symbols form a cycle: %s (%s)" %
              (" -> ".join(cycle), "; ".join(why[(a, b)] for a, b in zip(cycle, cycle[1:]))))
    if bad or cycle:
        return 1
    table_cycle = find_cycle({r: set(v) for r, v in table.items()})
    if table_cycle:
        print("FAIL: the room table of src/modules.txt has a cycle: %s" % " -> ".join(table_cycle))
        return 1
    print("ok: %d objects in %d rooms, %d room-to-room edges on symbols, every one down the room graph "
          "(src/modules.txt), no cycle" % (len(objs), len(rooms), sum(len(v) for v in edges.values())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
