#!/usr/bin/env python3
"""Writes single_file/ludus_profiling.h: the runtime and the exporters in one
header, stb style. Every file that includes it gets the public API (the
headers of include/ludus/ but analysis.h); the one that defines
LUDUS_IMPLEMENTATION first also gets the implementation: the platform layer,
the recorder, captures, the exporters, the overlay and the LUDUS_TRACE hook.

The sources stay the truth: this script only pastes them together.
  - A project header is pasted where it is first included, and dropped after.
  - Each platform file is kept for its OS only (PLATFORM_OS below).
  - What one .c file defines for itself must not leak into the next: its
    macros are #undef'd after it, and its file-scope statics, struct tags
    and typedefs are renamed ludus__sf_<file>_name (outside literals and member
    accesses), so that neither another source file nor the program that
    includes the implementation meets a plain name of ours.

usage: amalgamate.py [--check] [-o PATH]
  --check  regenerate in memory, compare with PATH, exit 1 (and say how to
           fix it) when they differ
"""
import argparse
import difflib
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "single_file", "ludus_profiling.h")

PUBLIC = ["profiling.h", "capture.h", "capture_file.h", "overlay.h", "locks.h", "rolling.h", "gpu.h"]
LAYERS = ["platform", "base", "record", "backend", "capture", "gpu", "session", "format", "export", "postmortem",
          "overlay", "flight", "live", "launch"]
# A platform file by its name's prefix: the OS it is compiled for.
PLATFORM_OS = [
    ("linux_", "defined(__linux__)"),
    ("linux.", "defined(__linux__)"),
    ("posix", "!defined(_WIN32)"),
    ("win32", "defined(_WIN32)"),
    ("darwin", "defined(__APPLE__)"),
]

KEYWORDS = {"inline", "const", "struct", "union", "enum", "void", "volatile", "unsigned", "signed", "int", "char",
            "long", "short", "double", "float", "_Thread_local", "__thread", "_Atomic"}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]')
DEFINE_RE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")
# File-scope statics: a line that starts with "static" (and is not a
# prototype's continuation), the name before "(", "=", "[" or ";".
ATTR = r"(?:__attribute__\(\(.*?\)\)\s*)?"
STATIC_PTR_RE = re.compile(ATTR + r"static\s[^(=;]*\(\s*\*\s*([A-Za-z_]\w*)")
STATIC_FN_RE = re.compile(ATTR + r"static\s[^=;(]*?\b([A-Za-z_]\w*)\s*\(")
STATIC_VAR_RE = re.compile(ATTR + r"static\s[^(]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])*\s*(?:=|;)")
TYPEDEF_END_RE = re.compile(r"^}\s*([A-Za-z_]\w*)\s*[;=]")  # } name; closing a typedef or a static struct
TAG_RE = re.compile(r"^(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*{")
TYPEDEF_RE = re.compile(r"^typedef\s[^;{]*?\b([A-Za-z_]\w*)\s*;")


def rel(path):
    return os.path.relpath(path, ROOT)


def resolve(include, quote, from_dir):
    """The project file an #include names, or None for a system header."""
    candidates = []
    if quote == '"':
        candidates.append(os.path.join(from_dir, include))
    if include.startswith("ludus/"):
        candidates.append(os.path.join(ROOT, "include", include))
    for c in candidates:
        c = os.path.normpath(c)
        if os.path.isfile(c):
            return c
    return None


# Files outside the platform layer not built everywhere (as CMakeLists.txt).
NOT_PORTED = {}
# Files of the layers left out of the single file: the Tracy backend (the
# single file is the built-in recorder; a Tracy build links Tracy's client).
LEFT_OUT = {"backend/tracy.c"}


def platform_condition(path):
    rel_src = os.path.relpath(path, os.path.join(ROOT, "src")).replace(os.sep, "/")
    if rel_src in NOT_PORTED:
        return NOT_PORTED[rel_src]
    if os.path.basename(os.path.dirname(path)) != "platform" or not path.endswith(".c"):
        return None
    name = os.path.basename(path)
    for prefix, cond in PLATFORM_OS:
        if name.startswith(prefix):
            return cond
    return None  # portable platform code


class Paster:
    def __init__(self):
        self.done = set()
        self.out = []

    def header(self, path):
        """Pastes a project header once."""
        if path in self.done:
            return
        self.done.add(path)
        self.out.append("/* ---- %s ---- */\n" % rel(path))
        self.body(path)

    def body(self, path, rename=None):
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        if rename:
            lines = [rename_in_code(line, rename) for line in lines]
        d = os.path.dirname(path)
        # A source's "_GNU_SOURCE unless the build asks for POSIX alone"
        # (#ifndef _POSIX_C_SOURCE / #define _GNU_SOURCE / #endif) goes whole.
        text = "".join(lines)
        text = re.sub(r"^[ \t]*#[ \t]*ifndef[ \t]+_POSIX_C_SOURCE\b.*\n[ \t]*#[ \t]*define[ \t]+_GNU_SOURCE\b.*\n"
                      r"[ \t]*#[ \t]*endif.*\n", "", text, flags=re.M)
        lines = text.splitlines(keepends=True)
        for line in lines:
            m = INCLUDE_RE.match(line)
            if m:
                target = resolve(m.group(2), m.group(1), d)
                if target:
                    self.header(target)
                    continue
            # The sources say it for their own compilation; the single file
            # says it once, before any system header (see PROLOGUE).
            if re.match(r"^\s*#\s*define\s+_GNU_SOURCE\b", line):
                continue
            self.out.append(line)
        if self.out and not self.out[-1].endswith("\n"):
            self.out.append("\n")


def file_statics(path):
    """Names a .c file declares for itself at file scope: static functions
    and variables, struct tags and typedefs (clang-format keeps them, and
    only them, at column 0)."""
    names = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = (STATIC_PTR_RE.match(line) or STATIC_FN_RE.match(line) or STATIC_VAR_RE.match(line) or TYPEDEF_END_RE.match(line) or
                 TAG_RE.match(line) or TYPEDEF_RE.match(line))
            if m and m.group(1) not in KEYWORDS:
                names.add(m.group(1))
    # A name the file also uses as a member (x.name, p->name, .name = ) keeps
    # it: renaming would reach the members of structs declared elsewhere.
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return {n for n in names if not re.search(r"(?:\.|->)\s*%s\b" % re.escape(n), text)}


LITERAL_RE = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'')


def rename_in_code(line, rename):
    """Renames identifiers outside string and character literals, and not
    after . or -> (a member of a struct declared elsewhere keeps its name)."""
    pattern = re.compile(r"(?<![.\w])(?<!->)\b(%s)\b" % "|".join(map(re.escape, rename)))
    out, at = [], 0
    for m in LITERAL_RE.finditer(line):
        out.append(pattern.sub(lambda k: rename[k.group(1)], line[at:m.start()]))
        out.append(m.group(0))
        at = m.end()
    out.append(pattern.sub(lambda k: rename[k.group(1)], line[at:]))
    return "".join(out)


def file_macros(path):
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = DEFINE_RE.match(line)
            if m and m.group(1) != "_GNU_SOURCE" and m.group(1) not in names:
                names.append(m.group(1))
    return names


def sources():
    files = []
    for layer in LAYERS:
        d = os.path.join(ROOT, "src", layer)
        files += [os.path.join(d, n) for n in sorted(os.listdir(d))
                  if n.endswith(".c") and layer + "/" + n not in LEFT_OUT]
    return files


PROLOGUE = """\
/* ludus_profiling.h: Ludus Profiling in one file (the runtime and the
 * exporters), stb style. GENERATED by scripts/amalgamate.py from include/ludus/
 * and src/{%s}: edit those and run the script; never this file.
 *
 * Every file that uses the profiler includes it:
 *     #include "ludus_profiling.h"
 * and exactly one C file of the program defines the implementation first:
 *     #define LUDUS_IMPLEMENTATION
 *     #include "ludus_profiling.h"
 * Build with threads (-pthread; on Linux -lm too). On glibc the
 * implementation needs GNU interfaces: the header defines _GNU_SOURCE when
 * LUDUS_IMPLEMENTATION is set, so include it before any system header in that
 * file. The API is that of %s
 * (docs/building.md, "Use it in your project"). */
#if defined(LUDUS_IMPLEMENTATION) && !defined(LUDUS_SINGLE_FILE_IMPLEMENTED) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif

#ifndef LUDUS_SINGLE_FILE_H
#define LUDUS_SINGLE_FILE_H
"""


def generate():
    p = Paster()
    p.out.append(PROLOGUE % (",".join(LAYERS), ", ".join("<ludus/%s>" % h for h in PUBLIC)))
    for h in PUBLIC:
        p.header(os.path.join(ROOT, "include", "ludus", h))
    p.out.append("#endif /* LUDUS_SINGLE_FILE_H */\n\n")
    p.out.append("#if defined(LUDUS_IMPLEMENTATION) && !defined(LUDUS_SINGLE_FILE_IMPLEMENTED)\n")
    p.out.append("#define LUDUS_SINGLE_FILE_IMPLEMENTED\n")
    # The implementation is C11: in a C++ file, one clear error and nothing else.
    p.out.append("#ifdef __cplusplus\n")
    p.out.append('#error "ludus_profiling.h: define LUDUS_IMPLEMENTATION in a C file: the implementation is C11 '
                 '(the API works from C and C++); compile that one file as C (cc -std=c11 -c impl.c)"\n')
    p.out.append("#else\n")
    p.out.append("#if defined(__GLIBC__) && !defined(__USE_GNU)\n")
    p.out.append('#error "ludus_profiling.h: with LUDUS_IMPLEMENTATION, include it before any system header (it needs _GNU_SOURCE)"\n')
    p.out.append("#endif\n")
    # The platform layer's headers first: a header is pasted where it is
    # first included, and that must not be inside one OS's file.
    pdir = os.path.join(ROOT, "src", "platform")
    for h in sorted(n for n in os.listdir(pdir) if n.endswith(".h")):
        p.header(os.path.join(pdir, h))
    srcs = sources()
    statics = {s: file_statics(s) for s in srcs}
    # What a .c file declares for itself gets a prefix: neither another
    # source file nor the program that includes the implementation may
    # declare the same name (a demo's own cmp_i64, a reader typedef).
    for src in srcs:
        cond = platform_condition(src)
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(src))[0])
        rename = {n: "ludus__sf_%s_%s" % (stem, n) for n in statics[src] if not n.startswith("ludus")}
        p.out.append("\n/* ==== %s ==== */\n" % rel(src))
        if cond:
            p.out.append("#if %s\n" % cond)
        p.body(src, rename)
        for n in file_macros(src):
            p.out.append("#undef %s\n" % n)
        if cond:
            p.out.append("#endif /* %s */\n" % cond)
    p.out.append("\n#endif /* __cplusplus */\n")
    p.out.append("#endif /* LUDUS_IMPLEMENTATION */\n")
    return "".join(p.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-o", "--output", default=DEFAULT_OUT)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    text = generate()
    if a.check:
        try:
            with open(a.output, encoding="utf-8") as f:
                old = f.read()
        except OSError as e:
            print("amalgamate: cannot read %s: %s" % (a.output, e))
            return 1
        if old == text:
            print("amalgamate: %s matches the sources" % rel(a.output))
            return 0
        diff = list(difflib.unified_diff(old.splitlines(), text.splitlines(), "checked in", "from the sources", lineterm="", n=1))
        print("amalgamate: %s is out of date with the sources (%d diff lines; first ones below)." % (rel(a.output), len(diff)))
        print("Regenerate it: python3 scripts/amalgamate.py (or make single-file) and commit it.")
        print("\n".join(diff[:40]))
        return 1
    os.makedirs(os.path.dirname(a.output), exist_ok=True)
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    print("amalgamate: wrote %s (%d lines)" % (rel(a.output), text.count("\n")))
    return 0


if __name__ == "__main__":
    sys.exit(main())
