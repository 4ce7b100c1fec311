#!/usr/bin/env python3
"""The rule of names in outputs, checked on the sources: a name (any field
.name, ->pass, .process_name, ... of a site, thread, track, lock, counter,
GPU pass, message, path or file) reaches an output only through the one
writer of that output kind:
  JSON (and HTML <script> data)  ludus__w_json_str / ludus__w_jstr
  HTML text and attributes       ludus__w_html_str
  terminal text                  ludus__text_name / ludus__text_show (ludus_text_show in ludus-trace)
  CSV                            ludus__w_csv
  protobuf (.pftrace)            ludus__pb_str (ludus__pb_str_max)
so no call that writes raw bytes (ludus__w_fmt, ludus__w_str, ludus__w_bytes,
ludus__pb_bytes, printf, fprintf, fputs, put) may take a name field as an
argument except inside one of those. A call that writes the program's own
constant text (a verb's name, a table of labels) says so with the comment
"/* constant text */" on the call's first line. tests/format/check_hostile.py checks
the outputs themselves with a corpus of hostile names.

A second rule, for the single file (scripts/amalgamate.py pastes the files
of libludus, the module table's ludus rows, one after the other, renaming
nothing): no two of those files define the same file-scope name: static
functions and variables, struct, union and enum tags, typedefs, enumerators,
and the macros a file defines and does not #undef. A name a file keeps for
itself is named after the file's concept (sites_state, not S).
usage: names_lint.py SOURCE_DIR"""
import os
import re
import sys

root = sys.argv[1]
DIRS = ["src/analysis", "src/export", "src/base", "tools/ludus-trace"]
RAW = ["ludus__w_fmt", "ludus__w_str", "ludus__w_bytes", "ludus__pb_bytes", "printf", "fprintf", "fputs", "put"]
SAFE = ["ludus__text_name", "ludus__text_show", "ludus_text_show", "ludus__w_json_str", "ludus__w_jstr",
        "ludus__w_html_str", "ludus__w_csv", "ludus__pb_str", "ludus__pb_str_max", "strlen", "strnlen", "sizeof"]
# Fields that hold a name or a text from the program or a file, and the
# functions that return one.
NAME = re.compile(r"(?:->|\.)\s*(name|pass|track|path|text|category|file|function|thread|process_name|"
                  r"crash_signal_name|trigger_reason|trigger_detail|window|frame_thread|title|device|categories)\b|"
                  r"\b(ludus__hitch_item|ludus_analysis_site_label|where)\s*\(")


def strip(src):
    """Comments removed, string and char literals blanked (same length)."""
    out, i, n = [], 0, len(src)
    while i < n:
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif src[i] in "\"'":
            q, j = src[i], i + 1
            while j < n and src[j] != q:
                j += 2 if src[j] == "\\" else 1
            out.append(q + "_" * (j - i - 1) + q)
            i = j + 1
        else:
            out.append(src[i])
            i += 1
    return "".join(out)


def close_paren(s, i):
    """Index after the ')' matching the '(' at i."""
    depth = 0
    for j in range(i, len(s)):
        if s[j] in "([{":
            depth += 1
        elif s[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j + 1
    return len(s)


def blank_safe(arg):
    for f in SAFE:
        for m in list(re.finditer(r"\b%s\s*\(" % f, arg)):
            j = close_paren(arg, m.end() - 1)
            arg = arg[:m.start()] + " " * (j - m.start()) + arg[j:]
    return arg


problems = []
for d in DIRS:
    for f in sorted(os.listdir(os.path.join(root, d))):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join(d, f)
        src = open(os.path.join(root, path), encoding="utf-8").read()
        lines = src.split("\n")
        s = strip(src)
        for m in re.finditer(r"(?<![\w.>])(%s)\s*\(" % "|".join(RAW), s):
            line = s.count("\n", 0, m.start()) + 1
            pre = s[:m.start()].rstrip()
            if re.search(r"\b(static|void|int|uint8_t|char)\s*\**$", pre):  # a definition or declaration
                continue
            args = s[m.end():close_paren(s, m.end() - 1) - 1]
            hit = NAME.search(blank_safe(args))
            if hit and "/* constant text */" not in lines[line - 1]:
                problems.append("%s:%d: %s(...) writes %s raw: use the output kind's name writer" %
                                (path, line, m.group(1), hit.group(0).strip()))
for p in problems:
    print(p)
if problems:
    sys.exit("names_lint: %d name(s) written raw (the rule: tests/compile/names_lint.py)" % len(problems))


# ---- the single file's rule: file-scope names unique across libludus's files ----

TOKEN_RE = re.compile(r"[A-Za-z_]\w*|\d[\w.]*|->|\S")
KEYWORDS = {"static", "const", "volatile", "inline", "extern", "struct", "union", "enum", "typedef", "void", "char",
            "short", "int", "long", "float", "double", "signed", "unsigned", "_Bool", "_Atomic", "_Thread_local",
            "__thread", "_Alignas", "_Noreturn", "restrict", "sizeof", "_Static_assert", "register"}


def drop_attributes(toks):
    """Tokens without __attribute__((...)), __declspec(...) and _Alignas(...)."""
    out, i = [], 0
    while i < len(toks):
        if toks[i] in ("__attribute__", "__declspec", "_Alignas", "alignas") and i + 1 < len(toks) and toks[i + 1] == "(":
            depth, i = 0, i + 1
            while i < len(toks):
                depth += {"(": 1, ")": -1}.get(toks[i], 0)
                i += 1
                if depth == 0:
                    break
            continue
        out.append(toks[i])
        i += 1
    return out


def declared(toks):
    """The names a file-scope declaration (its tokens at brace depth 0, bodies left out) declares for
    the file: a static's declarators, a typedef's name."""
    toks = drop_attributes(toks)
    if "static" not in toks and "typedef" not in toks:
        return []
    names, depth, prev = [], 0, None
    for i, t in enumerate(toks):
        if t in "([":
            # a function's name (or a pointer's: (*name)) stands before its parameter list
            # as does an array's before its bound
            if depth == 0 and prev and re.match(r"[A-Za-z_]", prev) and prev not in KEYWORDS:
                names.append(prev)
            depth += 1
        elif t in ")]":
            depth -= 1
            if t == ")" and i >= 3 and toks[i - 3] == "(" and toks[i - 2] == "*" and re.match(r"[A-Za-z_]", toks[i - 1]):
                names.append(toks[i - 1])  # (*name)
        elif depth == 0 and t in (",", ";", "=") and prev and re.match(r"[A-Za-z_]", prev) and prev not in KEYWORDS:
            names.append(prev)
        if t == "=" and depth == 0:
            depth += 100  # an initializer: nothing after it declares until the next ","
        elif t == "," and depth >= 100:
            depth -= 100
        prev = t
    return names


def file_scope_names(path):
    """(name, line) of every name the file defines for itself at file scope."""
    src = strip(open(path, encoding="utf-8").read())
    found = []
    # macros: #define NAME, unless the file #undefs it
    undefs = set(re.findall(r"^[ \t]*#[ \t]*undef[ \t]+(\w+)", src, re.M))
    for m in re.finditer(r"^[ \t]*#[ \t]*define[ \t]+(\w+)", src, re.M):
        if m.group(1) not in undefs and m.group(1) != "_GNU_SOURCE":
            found.append((m.group(1), src.count("\n", 0, m.start()) + 1))
    # preprocessor lines out (with their continuations), same length
    code = re.sub(r"^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), src, flags=re.M)
    toks = [(m.group(0), m.start()) for m in TOKEN_RE.finditer(code)]
    line = lambda at: code.count("\n", 0, at) + 1
    decl, depth, i = [], 0, 0
    enum_open = []  # brace depths at which a file-scope enum's body is open
    while i < len(toks):
        t, at = toks[i]
        if t == "{":
            if depth == 0 and decl and decl[-1][0] == ")" and "=" not in [d[0] for d in decl]:
                # a function's body: skip it, the declaration ends here
                found += [(n, line(decl[0][1])) for n in declared([d[0] for d in decl] + [";"])]
                depth, i = 1, i + 1
                while i < len(toks) and depth:
                    depth += {"{": 1, "}": -1}.get(toks[i][0], 0)
                    i += 1
                decl = []
                continue
            if i >= 2 and toks[i - 2][0] in ("struct", "union", "enum") and re.match(r"[A-Za-z_]", toks[i - 1][0]):
                found.append((toks[i - 1][0], line(toks[i - 1][1])))
            if i >= 1 and (toks[i - 1][0] == "enum" or (i >= 2 and toks[i - 2][0] == "enum")) and depth == 0:
                enum_open.append(depth + 1)
            depth += 1
        elif t == "}":
            if enum_open and enum_open[-1] == depth:
                enum_open.pop()
            depth -= 1
        elif depth == 0:
            decl.append((t, at))
            if t == ";":
                found += [(n, line(decl[0][1])) for n in declared([d[0] for d in decl])]
                decl = []
        elif enum_open and enum_open[-1] == depth and re.match(r"[A-Za-z_]", t) and toks[i - 1][0] in ("{", ","):
            found.append((t, line(at)))
        i += 1
    return found


sys.path.insert(0, os.path.join(root, "scripts"))
import modules  # noqa: E402 (scripts/modules.py: the module table)

table = modules.Table(root)
where = {}  # name -> the places (file:line) that define it
for rel, _room, _lib, when in table.library_files("ludus"):
    if when == "tracy":
        continue  # not in the single file (the built-in recorder)
    seen = set()
    for name, line in file_scope_names(os.path.join(root, "src", rel)):
        if name not in seen:
            seen.add(name)
            where.setdefault(name, []).append("src/%s:%d" % (rel, line))
clashes = sorted((n, w) for n, w in where.items() if len(w) > 1)
for name, w in clashes:
    print("%s: %s defined at file scope by %d files of the single file: %s (name it after its file's concept)" %
          (w[0], name, len(w), ", ".join(w)))
if clashes:
    sys.exit("names_lint: %d file-scope name(s) defined twice in the files the single file pastes together "
             "(the rule: tests/compile/names_lint.py)" % len(clashes))
print("ok: every name reaches JSON, HTML, text, CSV and protobuf through its one writer; %d file-scope names of %d "
      "files of the single file, none defined twice" % (len(where), len(table.library_files("ludus"))))
