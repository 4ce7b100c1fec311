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
print("ok: every name reaches JSON, HTML, text, CSV and protobuf through its one writer")
