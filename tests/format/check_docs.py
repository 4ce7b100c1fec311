#!/usr/bin/env python3
"""Keeps README.md and docs/*.md true to the tree (ctest: docs_*).

  check_docs.py readme_example ROOT   the README's C block after the line that
                                      names examples/minimal.c is that file, byte for byte
  check_docs.py paths ROOT            every src/, include/, tests/, scripts/, docs/,
                                      examples/, bench/, tools/, cmake/ path the docs name
                                      exists, and every relative Markdown link
  check_docs.py names ROOT            every ludus_*/LUDUS_* name the docs use (but the
                                      README's Changelog, which lists old names) is in the code

Exit 0 when all holds, 1 with one line per problem."""
import glob
import os
import re
import sys

PREFIXES = ("src", "include", "tests", "scripts", "docs", "examples", "bench", "tools", "cmake", "single_file")
PATH_RE = re.compile(r"(?<![\w./$-])((?:%s)/[A-Za-z0-9_.*/+-]*[A-Za-z0-9_*/])" % "|".join(PREFIXES))
# Paths of other projects the docs name (not ours to check).
FOREIGN = {"src/import/trace-event.ts"}  # speedscope's, docs/viewers.md
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
                if p in FOREIGN or line[max(0, m.start() - 6):m.start()].endswith("build/"):
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


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("readme_example", "paths", "names"):
        print(__doc__)
        return 1
    root = sys.argv[2]
    problems = {"readme_example": readme_example, "paths": paths, "names": names}[sys.argv[1]](root)
    for p in problems:
        print("check_docs: " + p)
    if not problems:
        print("check_docs: %s: ok" % sys.argv[1])
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
