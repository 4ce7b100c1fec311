#!/usr/bin/env python3
"""One word, one meaning: every LUDUS_API (and LUDUS_VK_API) function of the public headers
checked against docs/design.md's "The public API's words" (the table between
the api-words markers and the accessor rules under it):
  - a function named with a word that something ends (create, open, begin,
    start, enter, retain) has the ending word's function beside it, same
    object, with or without the words after it (ludus_diff_create_runs ->
    ludus_diff_destroy, ludus_vk_begin_pass -> ludus_vk_end_pass);
  - `<item>(object, index[, out])` has `<item>_count(object)` beside it; no
    `_at`, no `get_` on an indexed item; `_count` takes the object alone;
  - `get_` copies a struct into *out: (out) or (object, out), and a call of
    that shape (a struct pointer named out, nothing else but the object) is
    called get;
  - `find_<item>` returns int64_t and `<item>` is beside it;
  - every function has a comment directly above it (or above its group of
    declarations) in the header that declares it, and no header carries a
    prototype of another header's function in a comment;
  - `live` is the watched process's side only (no ludus_live_* reads the
    in-process frame ring).
Prints one line per broken rule with header and line, exit 1; else a summary.
usage: api_words.py INCLUDE_DIR DESIGN_MD"""
import os
import re
import sys

inc, design = sys.argv[1], sys.argv[2]
text = open(design, encoding="utf-8").read()
m = re.search(r"<!-- api-words[^>]*-->(.*?)<!-- /api-words -->", text, re.S)
if not m:
    sys.exit("api_words: %s has no api-words table" % design)
ENDS = {}  # word -> the words that end it
for row in m.group(1).splitlines():
    cells = [c.strip() for c in row.strip().strip("|").split("|")]
    if len(cells) != 3 or not cells[0].startswith("`"):
        continue
    word = cells[0].strip("`")
    enders = re.findall(r"`([a-z]+)`", cells[2])
    if enders:
        ENDS[word] = enders
if not ENDS:
    sys.exit("api_words: the api-words table lists no word with an end")

# Opaque handles: typedef struct ludus_x ludus_x; (no body in a public header)
HANDLE = set()
decls = []  # (header, line, name, return type, [(type, name)], documented)
commented_protos = []  # (header, line, name)
for fn in sorted(os.listdir(inc)):
    if not fn.endswith(".h"):
        continue
    path = os.path.join(inc, fn)
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines):
        for h in re.findall(r"typedef struct (ludus_[a-z0-9_]+) \1;", line):
            HANDLE.add(h)
        c = re.match(r"\s*/\*\s*(?:const\s+)?[a-z0-9_]+\s*\**\s*(ludus_[a-z0-9_]+)\(.*\);", line)
        if c:
            commented_protos.append((fn, i + 1, c.group(1)))
    # the lines of every LUDUS_API declaration (a group of them shares the comment above)
    in_decl = set()
    i = 0
    while i < len(lines):
        if re.match(r"LUDUS_(VK_)?API ", lines[i]):
            j = i
            while ";" not in lines[j] and j + 1 < len(lines):
                j += 1
            in_decl.update(range(i, j + 1))
            i = j
        i += 1

    def documented_above(start):
        """The comment directly above: over the declarations of its group,
        preprocessor lines and a struct the functions read (its comment
        documents them), the first line up ends a comment."""
        k = start - 1
        while k >= 0:
            ln = lines[k].rstrip()
            if k in in_decl or ln.startswith("#") or re.match(r"typedef [^{]*;$", ln):
                k -= 1
            elif re.match(r"\}\s*ludus_[a-z0-9_]+;$", ln):
                while k >= 0 and not lines[k].startswith("typedef "):
                    k -= 1
                k -= 1
            else:
                return ln.endswith("*/")
        return False

    i = 0
    while i < len(lines):
        if not re.match(r"LUDUS_(VK_)?API ", lines[i]):
            i += 1
            continue
        start = i
        body = lines[i]
        while ";" not in body and i + 1 < len(lines):
            i += 1
            body += " " + lines[i].strip()
        proto = re.sub(r"/\*.*?\*/", "", body.split(";")[0] + ";")
        proto = re.sub(r"\s*__attribute__\(\(.*\)\)\s*;$", ";", proto)
        pm = re.match(r"LUDUS_(?:VK_)?API\s+(.*?)\b(ludus_[a-z0-9_]+)\s*\((.*)\)\s*;", proto)
        if not pm and "(" not in proto:  # a variable (ludus__launch_link), not a function
            i += 1
            continue
        if not pm:
            print("%s:%d: cannot read the declaration: %s" % (fn, start + 1, proto))
            sys.exit(1)
        ret, name, params = pm.group(1).strip(), pm.group(2), pm.group(3).strip()
        plist = []
        if params not in ("void", ""):
            for p in params.split(","):
                p = p.strip()
                if p == "...":
                    plist.append(("...", "..."))
                    continue
                q = re.match(r"(.*?)([A-Za-z_][A-Za-z0-9_]*)\s*(\[.*\])?$", p)
                if not q:
                    sys.exit("api_words: %s:%d: cannot read the parameter %r of %s" % (fn, start + 1, p, name))
                plist.append((q.group(1).strip(), q.group(2)))
        documented = "/*" in body.split(";", 1)[1] or documented_above(start)
        if not name.startswith("ludus__"):
            decls.append((fn, start + 1, name, ret, plist, documented))
        i += 1

errors = []
names = {d[2] for d in decls}
where = {}
for d in decls:
    where.setdefault(d[2], []).append(d[0])


def err(d, msg):
    errors.append("%s:%d: %s: %s" % (d[0], d[1], d[2], msg))


def is_struct_out(ptype, pname):
    """A struct the caller owns, to be filled: `ludus_x *out` (not a handle,
    not a pointer to a pointer)."""
    t = ptype.replace("const", "").replace("struct", "").strip()
    return pname == "out" and t.endswith("*") and not t.endswith("**") and \
        t[:-1].strip().startswith("ludus_") and t[:-1].strip() not in HANDLE


for d in decls:
    fn, line, name, ret, plist, documented = d
    if not documented:
        err(d, "no comment directly above its declaration (document it where it is declared)")
    words = name[len("ludus_"):].split("_")
    # pairs: the first word the table knows that something ends
    for k, w in enumerate(words):
        if w in ENDS and k > 0:
            obj, rest = "_".join(words[:k]), "".join("_" + x for x in words[k + 1:])
            if not any(("ludus_%s_%s" % (obj, e)) in names or ("ludus_%s_%s%s" % (obj, e, rest)) in names
                       for e in ENDS[w]):
                err(d, "'%s' without its end: no ludus_%s_{%s}[%s]" % (w, obj, ",".join(ENDS[w]), rest))
            break
    if name.endswith("_at"):
        err(d, "'_at' accessor: an indexed item is ludus_<object>_<item>(object, index)")
    has_index = len(plist) >= 2 and plist[1][1] == "index"
    if has_index:
        if "_get_" in name:
            err(d, "'get_' on an indexed item (get copies a whole-object summary)")
        if (name + "_count") not in names:
            err(d, "indexed item without %s_count" % name)
    if name.endswith("_count"):
        if len(plist) != 1 or not re.search(r"(uint32_t|uint64_t|size_t)$", ret):
            err(d, "'_count' is how many items an accessor has: (object) only, an unsigned result")
        elif name[:-len("_count")] not in names:
            err(d, "%s without the item accessor %s" % (name, name[:-len("_count")]))
    out_shape = (len(plist) == 1 and is_struct_out(*plist[0])) or \
        (len(plist) == 2 and is_struct_out(*plist[1]) and plist[0][0].replace("const", "").strip().rstrip("*").strip() in HANDLE)
    if "_get_" in name and not out_shape:
        err(d, "'get_' copies a struct into *out: (out) or (object, out)")
    if out_shape and "_get_" not in name and not re.search(r"_(parse|defaults)$", name):
        err(d, "copies a struct into *out: call it ludus_<object>_get_<what>")
    fm = re.match(r"(ludus_.*)_find_([a-z0-9_]+)$", name)
    if fm:
        if ret != "int64_t":
            err(d, "'find_' returns the item's index (int64_t, -1 when absent)")
        if "%s_%s" % fm.groups() not in names:
            err(d, "'find_' without the accessor %s_%s" % fm.groups())
    elif "_find" in name:
        err(d, "a lookup is ludus_<object>_find_<item>")
    if name.startswith("ludus_live_") and fn == "overlay.h":
        err(d, "'live' is the watched process's side; the in-process ring is frame_ring")
for n, hs in where.items():
    if len(set(hs)) > 1:
        errors.append("%s: declared in %s (one header declares and documents it)" % (n, ", ".join(hs)))
for fn, line, n in commented_protos:
    if n in where and fn not in where[n]:
        errors.append("%s:%d: %s: a prototype in a comment; %s declares and documents it" % (fn, line, n, where[n][0]))

if errors:
    for e in errors:
        print("FAIL " + e)
    print("api_words: %d rule(s) broken (docs/design.md, \"The public API's words\")" % len(errors))
    sys.exit(1)
print("ok: %d public functions in %d headers follow docs/design.md's %d words and accessor rules" %
      (len(decls), len(set(d[0] for d in decls)), len(ENDS)))
