#!/usr/bin/env python3
"""Keeps README.md and docs/*.md true to the tree (ctest: docs_*).

  check_docs.py readme_example ROOT   the README's C block after the line that
                                      names examples/minimal.c is that file, byte for byte
  check_docs.py paths ROOT            every src/, include/, tests/, scripts/, docs/,
                                      examples/, bench/, tools/, cmake/ path the docs name
                                      exists, and every relative Markdown link
  check_docs.py names ROOT            every ludus_*/LUDUS_* name the docs use (but the
                                      README's Changelog, which lists old names) is in the code
  check_docs.py files ROOT            every file name (x.c, x.h, dir/x.py ...) the docs and the
                                      comments of the sources and build files give exists: a
                                      path as written (or as the end of one), a bare name
                                      somewhere in the tree; but the system's headers and other
                                      projects' files (FOREIGN_FILES, each with its reason)
  check_docs.py counts ROOT           every count of test programs the docs state ("the 32
                                      unit test programs", "17 of its 32 programs", "26 unit
                                      programs" on musl's line) is the count in the CMake lists
  check_docs.py signals ROOT          docs/instrument.md's list of what is (and is not)
                                      async-signal-safe agrees with the headers' comments that
                                      say so of what they declare, and no other page calls a
                                      call of the "not" list (or its noun: `LUDUS_PROFILE_FRAME`,
                                      "frames") async-signal-safe
  check_docs.py platform ROOT         docs/building.md names every file of src/platform/, by its
                                      name or a glob in backquotes (`posix_*.c`)
  check_docs.py layers ROOT           docs/design.md's "Layers" table has a line for each room of the
                                      module table (src/modules.txt), src/ROOM/, in its order, and
                                      says in brackets the libraries its files go into, those only

Exit 0 when all holds, 1 with one line per problem."""
import fnmatch
import glob
import os
import re
import sys

PREFIXES = ("src", "include", "tests", "scripts", "docs", "examples", "bench", "tools", "cmake", "single_file")
PATH_RE = re.compile(r"(?<![\w./$-])((?:%s)/[A-Za-z0-9_.*/+-]*[A-Za-z0-9_*/])" % "|".join(PREFIXES))
# Paths of other projects the docs name (not ours to check).
FOREIGN = {"src/import/trace-event.ts"}  # speedscope's, docs/viewers.md
# What `make single-file` writes (not in the repository: a release publishes it, docs/building.md).
GENERATED = {"single_file/ludus_profiling.h", "ludus_profiling.h", "single_file/", "single_file"}
LINK_RE = re.compile(r"\]\((?![a-z]+:)([^)#\s]+)")
NAME_RE = re.compile(r"\b(?:ludus|LUDUS)_[A-Za-z0-9_]+")
CODE_DIRS = ("include", "src", "tools", "cmake", "examples", "tests", "bench", "scripts", "single_file")
CODE_FILES = ("CMakeLists.txt", "Makefile")


def doc_files(root):
    return [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def readme_example(root):
    lines = read(os.path.join(root, "README.md")).splitlines(keepends=True)
    want = read(os.path.join(root, "examples", "minimal.c"))
    named = next((i for i, l in enumerate(lines) if "examples/minimal.c" in l and not l.startswith("```")), None)
    if named is None:
        return ["README.md never names examples/minimal.c"]
    start = next((i for i in range(named + 1, len(lines)) if lines[i].rstrip("\n") == "```c"), None)
    if start is None:
        return ["README.md: no ```c block after line %d, which names examples/minimal.c" % (named + 1)]
    end = next((i for i in range(start + 1, len(lines)) if lines[i].rstrip("\n") == "```"), None)
    if end is None:
        return ["README.md: the ```c block of line %d is never closed" % (start + 1)]
    got = "".join(lines[start + 1:end])
    if got == want:
        return []
    g, w = got.splitlines(keepends=True), want.splitlines(keepends=True)
    k = next((i for i in range(min(len(g), len(w))) if g[i] != w[i]), min(len(g), len(w)))
    return ["README.md line %d differs from examples/minimal.c line %d: README %r, file %r"
            % (start + 2 + k, k + 1, g[k] if k < len(g) else "<end>", w[k] if k < len(w) else "<end>")]


def exists(root, p):
    full = os.path.join(root, p)
    if "*" in p:
        return bool(glob.glob(full))
    # a program the docs name by its source (tests/format/nesting_trace, bench/bench_report)
    return os.path.exists(full) or any(os.path.exists(full + ext) for ext in (".c", ".cpp"))


def paths(root):
    problems = []
    for f in doc_files(root):
        for n, line in enumerate(read(f).splitlines(), 1):
            for m in PATH_RE.finditer(line):
                p = m.group(1).rstrip(".")
                if p in FOREIGN or p in GENERATED or line[max(0, m.start() - 6):m.start()].endswith("build/"):
                    continue
                if not exists(root, p):
                    problems.append("%s:%d: %s does not exist" % (os.path.relpath(f, root), n, p))
            for m in LINK_RE.finditer(line):  # a relative Markdown link, from the page's folder
                if not os.path.exists(os.path.join(os.path.dirname(f), m.group(1))):
                    problems.append("%s:%d: the link %s leads nowhere" % (os.path.relpath(f, root), n, m.group(1)))
    return problems


def code_text(root):
    parts = [read(os.path.join(root, f)) for f in CODE_FILES if os.path.exists(os.path.join(root, f))]
    for d in CODE_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if x != "node_modules"]
            for fn in filenames:
                try:
                    parts.append(read(os.path.join(dirpath, fn)))
                except (UnicodeDecodeError, OSError):
                    pass
    return "\n".join(parts)


def names(root):
    code = set(NAME_RE.findall(code_text(root)))
    problems = []
    for f in doc_files(root):
        in_changelog = False
        for n, line in enumerate(read(f).splitlines(), 1):
            if f.endswith("README.md") and line.startswith("## "):
                in_changelog = line.strip().lower().startswith("## changelog")
            if in_changelog:
                continue
            for m in NAME_RE.finditer(line):
                name = m.group(0)
                if re.match(r"\.[co]\b", line[m.end():]):
                    continue  # a file of the reader's own (ludus_impl.c)
                if name.endswith("_") and any(c.startswith(name) for c in code):
                    continue  # a prefix (LUDUS__NF_GPU_*)
                if name not in code:
                    problems.append("%s:%d: %s is in no source, header or build file" %
                                    (os.path.relpath(f, root), n, name))
    return problems


# ---- files: the file names docs and comments give ----

FILE_RE = re.compile(r"(?<![\w/.$-])((?:[\w.+-]+/)*[A-Za-z_][\w+-]*\.(?:c|h|cpp|hpp|py|sh|mjs|cmake|proto))\b(?![\w/(-])")
C_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
HASH_COMMENT_RE = re.compile(r"#[^\n]*")
# Files that are not ours, by name: the system's headers, other projects'
# files the comments cite, and a reader's own files in the docs' examples.
FOREIGN_FILES = {
    # the C library, POSIX and Windows
    "errno.h", "execinfo.h", "signal.h", "stdarg.h", "stddef.h", "stdint.h", "stdio.h", "stdlib.h",
    "string.h", "unistd.h", "windows.h", "direct.h", "rpcndr.h",
    # other projects
    "TracyClient.cpp", "TracyVulkan.hpp",  # Tracy
    "zstd.h",  # zstd (libzstd-dev), behind LUDUS_ZSTD
    "cpu-exec.c",                          # qemu (tests/unit/test_util.h)
    "onelua.c",                            # Lua
    "spall.h",                             # spall
    "tracy-tools/build.sh",                # the Tracy check's own tool tree (tests/tracy)
    # a reader's own files in the docs' and comments' examples
    "a.c", "b.c", "game.c", "physics.c", "ludus_impl.c", "impl2.c",
    # named as still to write (docs/building.md: macOS)
    "darwin.c",
}
# Sources whose comments are checked; a dated log (bench/RESULTS.md) is not.
COMMENT_DIRS = ("include", "src", "tools", "cmake", "examples", "tests", "bench", "scripts")
SKIP_DIRS = {"node_modules", "data", "shim", "msvc"}  # vendored or generated text; shims of foreign headers


def tree_files(root):
    """Every file under the project's folders, relative to root."""
    out = [f for f in ("CMakeLists.txt", "Makefile", "README.md") if os.path.exists(os.path.join(root, f))]
    for d in ("include", "src", "tools", "cmake", "examples", "tests", "bench", "scripts", "docs", "single_file"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if x != "node_modules"]
            out += [os.path.relpath(os.path.join(dirpath, fn), root) for fn in filenames]
    return out


def texts_to_check(root):
    """(file, line number, text): the docs whole, the comments of sources and build files."""
    for f in doc_files(root):
        for n, line in enumerate(read(f).splitlines(), 1):
            yield os.path.relpath(f, root), n, line
    sources = ["CMakeLists.txt", "Makefile"]
    for d in COMMENT_DIRS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, d)):
            dirnames[:] = [x for x in dirnames if x not in SKIP_DIRS]
            sources += [os.path.relpath(os.path.join(dirpath, fn), root) for fn in filenames]
    for rel in sources:
        ext = os.path.splitext(rel)[1]
        if ext in (".c", ".h", ".cpp", ".hpp"):
            pattern = C_COMMENT_RE
        elif ext in (".py", ".sh", ".cmake") or os.path.basename(rel) in ("CMakeLists.txt", "Makefile"):
            pattern = HASH_COMMENT_RE
        else:
            continue
        try:
            text = read(os.path.join(root, rel))
        except (UnicodeDecodeError, OSError):
            continue
        for m in pattern.finditer(text):
            first = text.count("\n", 0, m.start()) + 1
            for k, line in enumerate(m.group(0).split("\n")):
                yield rel, first + k, line


def files(root):
    tree = tree_files(root)
    names_in_tree = {os.path.basename(f) for f in tree}
    problems = []
    for rel, n, line in texts_to_check(root):
        for m in FILE_RE.finditer(line):
            name = m.group(1)
            if name in FOREIGN_FILES or name in FOREIGN or name in GENERATED or "*" in name:
                continue
            if line[max(0, m.start() - 6):m.start()].endswith("build/"):
                continue  # a build product
            if "/" in name:
                ok = os.path.exists(os.path.join(root, name)) or any(f.endswith("/" + name) for f in tree)
            else:
                ok = name in names_in_tree
            if not ok:
                problems.append("%s:%d: %s is named but no such file is in the tree" % (rel, n, name))
    return problems


# ---- counts: how many test programs the docs say ----

def cmake_list(text, var):
    """The words of every set(var ...) and list(APPEND var ...) in text, in order, and those of the
    first set() alone."""
    first, every = None, []
    for m in re.finditer(r"(?:set|list\(APPEND)\s*\(?\s*%s\s+([^)]*)\)" % re.escape(var), text):
        words = m.group(1).split()
        if first is None:
            first = words
        every += words
    return first or [], every


def program_counts(root):
    unit = re.findall(r"^\s*ludus_add_test\((unit_\w+)", read(os.path.join(root, "tests", "unit", "CMakeLists.txt")),
                      re.M)
    windows, posix = cmake_list(read(os.path.join(root, "tests", "ports", "CMakeLists.txt")), "ludus_port_units")
    return {"unit": len(unit), "windows": len(windows), "posix port": len(posix)}


def words(pattern):
    """A pattern whose spaces match any white space (a phrase broken over lines)."""
    return re.compile(pattern.replace(" ", r"\s+"))


# (pattern, the counts its groups state, in order, and a word its paragraph must hold, or None)
COUNT_RULES = [
    (words(r"\b(\d+) of (?:the|its) (\d+) (?:unit )?(?:test )?programs"), ("windows", "unit"), None),
    (words(r"\bthe (\d+) Windows unit programs"), ("windows",), None),
    (words(r"\bthe (\d+) unit test programs"), ("unit",), None),
    (words(r"\b(\d+) unit programs"), ("posix port",), "musl"),
]
ANY_COUNT_RE = words(r"\b\d+ (?:of (?:the|its) \d+ )?(?:\w+ )?unit (?:test )?programs|\b\d+ of (?:the|its) \d+ programs")


def counts(root):
    have = program_counts(root)
    problems = []
    for f in doc_files(root):
        rel = os.path.relpath(f, root)
        text = read(f)
        for para in re.finditer(r"(?:[^\n]+\n?)+", text):  # a paragraph (or a table row)
            body, at = para.group(0), para.start()
            checked = []
            for rule, what, word in COUNT_RULES:
                if word and word not in body:
                    continue
                for m in rule.finditer(body):
                    if any(a <= m.start() < b for a, b in checked):
                        continue
                    checked.append((m.start(), m.end()))
                    n = text.count("\n", 0, at + m.start()) + 1
                    for g, key in enumerate(what, 1):
                        if int(m.group(g)) != have[key]:
                            problems.append("%s:%d: \"%s\" says %s %s programs; the CMake lists hold %d" %
                                            (rel, n, " ".join(m.group(0).split()), m.group(g), key, have[key]))
            for m in ANY_COUNT_RE.finditer(body):
                if not any(a <= m.start() < b for a, b in checked):
                    n = text.count("\n", 0, at + m.start()) + 1
                    problems.append("%s:%d: \"%s\": a count of test programs no rule of check_docs.py checks" %
                                    (rel, n, " ".join(m.group(0).split())))
    return problems


# ---- platform: building.md's account of the platform layer is whole ----

def platform(root):
    text = read(os.path.join(root, "docs", "building.md"))
    named = set(re.findall(r"`([\w*.]+\.[ch])`", text))
    problems = []
    for fn in sorted(os.listdir(os.path.join(root, "src", "platform"))):
        if not any(fnmatch.fnmatchcase(fn, pat) for pat in named):
            problems.append("docs/building.md: src/platform/%s is not named (by name or a glob in backquotes)" % fn)
    return problems


# ---- layers: docs/design.md's table of rooms is the module table's ----

def layers(root):
    sys.path.insert(0, os.path.join(root, "scripts"))
    import modules  # scripts/modules.py: the module table
    t = modules.Table(root)
    problems = ["src/modules.txt: " + p for p in t.problems]
    text = read(os.path.join(root, "docs", "design.md"))
    m = re.search(r"^## Layers\n.*?^```\n(.*?)^```", text, re.S | re.M)
    if not m:
        return problems + ["docs/design.md: no code block under \"## Layers\""]
    rows = re.findall(r"^src/([a-z_]+)/\s+(.*)$", m.group(1), re.M)
    said = [r for r, _ in rows]
    if said != t.rooms:
        problems.append("docs/design.md \"Layers\" lists the rooms %s; src/modules.txt has %s (same rooms, same order)" %
                        (" ".join(said), " ".join(t.rooms)))
    libs = {}
    for _rel, room, library, _when in t.files:
        libs.setdefault(room, set()).add(library)
    words = {"ludus": "libludus", "analysis": "libludus_analysis", "vulkan": "ludus_vulkan"}
    # the row's text and its continuation lines (indented, up to the next row)
    block = m.group(1).split("\n")
    for i, line in enumerate(block):
        r = re.match(r"^src/([a-z_]+)/", line)
        if not r or r.group(1) not in libs:
            continue
        text_of_row = line
        for more in block[i + 1:]:
            if not more.startswith(" "):
                break
            text_of_row += " " + more
        bracket = re.search(r"\[([^]]*)\]", text_of_row)
        said_libs = set(re.findall(r"[\w]+", bracket.group(1))) if bracket else set()
        want = {words[lib] for lib in libs[r.group(1)]}
        if said_libs != want:
            problems.append("docs/design.md \"Layers\": src/%s/ says [%s]; src/modules.txt puts its files in %s" %
                            (r.group(1), ", ".join(sorted(said_libs)), ", ".join(sorted(want))))
    return problems


# ---- signals: one list of async-signal-safe calls, and the headers agree ----

SAFE_RE = re.compile(r"async-signal[- ]safe", re.I)
NOT_SAFE_RE = re.compile(r"\bnot\s+async-signal[- ]safe", re.I)


def backquoted_names(text):
    """ludus_/LUDUS_ names in backquotes, a shorthand `LUDUS_PROFILE_SCOPE`/`FUNCTION` expanded."""
    out = set()
    for group in re.finditer(r"`[\w]+`(?:/`[\w]+`)*", text):
        parts = re.findall(r"`(\w+)`", group.group(0))
        prefix = parts[0][:parts[0].rfind("_") + 1] if parts[0].startswith(("LUDUS_", "ludus_")) else ""
        for i, p in enumerate(parts):
            name = p if i == 0 or p.startswith(("LUDUS_", "ludus_")) else prefix + p
            if name.startswith(("LUDUS_", "ludus_")):
                out.add(name)
    return out


def signal_lists(root):
    text = read(os.path.join(root, "docs", "instrument.md"))
    m = re.search(r"^- Async-signal-safe:(.*?)^- ", text, re.S | re.M)
    if not m:
        return None, None
    safe, _, unsafe = m.group(1).partition("Not async-signal-safe:")
    return backquoted_names(safe), backquoted_names(unsafe)


def header_marks(root):
    """(header, line, name, safe): what a header's comment says of the names declared after it."""
    marks = []
    for h in sorted(glob.glob(os.path.join(root, "include", "ludus", "*.h"))):
        text = read(h)
        comments = list(C_COMMENT_RE.finditer(text))
        for i, c in enumerate(comments):
            said = c.group(0)
            if not SAFE_RE.search(said):
                continue
            safe = not NOT_SAFE_RE.search(said)
            # what it documents: the code up to the next comment that opens a line
            nxt = next((d.start() for d in comments[i + 1:] if not text[text.rfind("\n", 0, d.start()) + 1:d.start()].strip()),
                       len(text))
            code = C_COMMENT_RE.sub("", text[c.end():nxt])
            declared = re.findall(r"#define\s+((?:LUDUS|ludus)_\w+)|\b(ludus_\w+)\s*\(", code)
            line = text.count("\n", 0, c.start()) + 1
            for a, b in declared:
                marks.append((os.path.relpath(h, root), line, a or b, safe))
    return marks


def signals(root):
    safe, unsafe = signal_lists(root)
    if safe is None:
        return ["docs/instrument.md: no \"- Async-signal-safe:\" list"]
    problems = []
    for h, line, name, is_safe in header_marks(root):
        if is_safe and name in unsafe:
            problems.append("%s:%d: says %s is async-signal-safe; docs/instrument.md lists it as not" % (h, line, name))
        if not is_safe and name in safe:
            problems.append("%s:%d: says %s is not async-signal-safe; docs/instrument.md lists it as safe" %
                            (h, line, name))
    nouns = {}
    for name in unsafe:
        if name.startswith("LUDUS_PROFILE_"):
            word = name[len("LUDUS_PROFILE_"):].lower()
            nouns[word] = nouns[word + "s"] = name
    for f in doc_files(root):
        if f.endswith(os.path.join("docs", "instrument.md")):
            continue
        text = read(f)
        for clause in re.finditer(r"[^.;:]+", text):
            said = clause.group(0)
            if not SAFE_RE.search(said) or NOT_SAFE_RE.search(said):
                continue
            named = {n for n in NAME_RE.findall(said) if n in unsafe}
            named |= {nouns[w] for w in re.findall(r"\b[a-z_]+\b", said) if w in nouns}
            for name in sorted(named):
                problems.append("%s:%d: calls %s async-signal-safe; docs/instrument.md lists it as not" %
                                (os.path.relpath(f, root), text.count("\n", 0, clause.start()) + 1, name))
    return problems


CHECKS = {"layers": layers, "readme_example": readme_example, "paths": paths, "names": names, "files": files, "counts": counts,
          "platform": platform, "signals": signals}


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CHECKS:
        print(__doc__)
        return 1
    root = sys.argv[2]
    problems = CHECKS[sys.argv[1]](root)
    for p in problems:
        print("check_docs: " + p)
    if not problems:
        print("check_docs: %s: ok" % sys.argv[1])
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
