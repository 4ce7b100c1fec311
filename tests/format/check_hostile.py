#!/usr/bin/env python3
"""The hostile-name corpus (hostile_names.c) through every output kind:
Chrome JSON and .pftrace of the live capture, the .ludus file and its
conversions, ludus-trace info, report (text, JSON, CSV, HTML, the GPU
section), diff (text, JSON, CSV, HTML). Each output must be safe for what
reads it:
  - JSON: strict UTF-8 and strict JSON, every corpus name decoded intact
    (invalid bytes as U+FFFD), no '<' that could close a <script>;
  - pftrace: every string field valid UTF-8 (protoc decodes it), names intact;
  - text (terminal, CSV): valid UTF-8 with no control character but the
    newline, no C1 control, no line separator, no bidirectional control: the
    escapes are shown (\\x1b...) instead;
  - HTML: only the template's own elements and handlers, exactly its two
    scripts, the data script free of '</', '<!--' and '<script', and every
    name intact in its data. (make test-viewers opens the HTML in Chromium
    with a trap for any script of a name.)
usage: check_hostile.py HOSTILE_NAMES LUDUS_TRACE PROTOC PROTO WORKDIR"""
import html.parser
import json
import os
import re
import subprocess
import sys

prog, tool, protoc, proto, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what)


def run(args):
    """stdout, or None (a failure noted) when the command fails."""
    out = subprocess.run(args, capture_output=True)
    if out.returncode != 0:
        fail("%s exited %d: %s" % (" ".join(os.path.basename(a) for a in args), out.returncode,
                                   out.stderr.decode("utf-8", "replace")[:300]))
        return None
    return out.stdout


def read(path):
    return open(path, "rb").read() if os.path.exists(path) else None


# The corpus as the program has it (kept in step with hostile_names.c).
CORPUS = [
    b"quote\" back\\slash 'single' amp&amp; &lt;",
    b"</script><script>window.__pwned=1</script>",
    b"<img src=x onerror=\"window.__pwned=2\">",
    b"\"><svg onload=window.__pwned=3>",
    b"<!--<script>window.__pwned=4//",
    b"<script>window.__pwned=5</script>",
    b"]]></title></style></textarea><iframe srcdoc=\"<script>parent.__pwned=6</script>\">",
    b"javascript:window.__pwned=7",
    b"${window.__pwned=8}`;window.__pwned=9;`",
    b"esc \x1b[31mred\x1b[0m \x1b]0;title\x07 \x9b2J 8-bit csi",
    b"c1 \xc2\x9b2J \xc2\x85nel",
    b"ctl \x01\x02\x08\x0b\x0c\x0e\x1f\x7f tab\tnl\ncr\r",
    b"bad utf8 \xff\xfe \xc3 \xed\xa0\x80 \xf4\x90\x80\x80 \xc0\xaf",
    b"sep \xe2\x80\xa8window.__pwned=10//\xe2\x80\xa9para",
    b"bidi \xe2\x80\xaeevil\xe2\x80\xac \xe2\x81\xa6x\xe2\x81\xa9",
    b"=cmd|' /C calc'!A0",
    b"@SUM(1+1)",
    b"+1+2",
    b"-3-4",
    b"%s%n%x%p%%",
]
# Literal names (C literals: their escapes resolved)
LITERALS = [
    b"frame </script><script>window.__pwned=60</script>",
    b"<!--<script>window.__pwned=61//",
    b"esc \x1b[31m lit \xff\xfe \xe2\x80\xa8 \" \\ \t",
    b"count </script><script>window.__pwned=70</script>\x1b[1m",
    b"mark </script><script>window.__pwned=62</script>\x1b[4m",
]


def clean(b):
    """The library's UTF-8 cleaning: each byte that starts no valid character becomes U+FFFD."""
    out, i = [], 0
    while i < len(b):
        c = b[i]
        n = 1 if c < 0x80 else 2 if 0xC2 <= c <= 0xDF else 3 if 0xE0 <= c <= 0xEF else 4 if 0xF0 <= c <= 0xF4 else 0
        try:
            if not n:
                raise ValueError
            out.append(b[i:i + n].decode("utf-8"))
            i += n
        except (ValueError, UnicodeDecodeError):
            out.append("\ufffd")
            i += 1
    return "".join(out)


for side in ("base", "new"):
    if run([prog, os.path.join(work, side)] + (["new"] if side == "new" else [])) is None:
        sys.exit("hostile_names failed")
base, new = os.path.join(work, "base"), os.path.join(work, "new")
big = clean(open(base + ".big", "rb").read()[:120])
names = [clean(n) for n in CORPUS]
literals = [clean(n) for n in LITERALS]

# ---- the outputs ----
texts, jsons, htmls, pftraces = {}, {}, {}, {}
for f in ("conv.json", "conv.pftrace", "report.html", "diff.html"):
    if os.path.exists(os.path.join(work, f)):
        os.remove(os.path.join(work, f))
texts["info"] = run([tool, "info", base + ".ludus"])
texts["report"] = run([tool, "report", base + ".ludus", "--top", "1000"])
texts["report csv"] = run([tool, "report", base + ".ludus", "--csv"])
texts["report gpu"] = run([tool, "report", base + ".ludus", "--source", "gpu"])
texts["diff"] = run([tool, "diff", base + ".ludus", new + ".ludus"])
texts["diff csv"] = run([tool, "diff", base + ".ludus", new + ".ludus", "--csv"])
texts["diff gpu"] = run([tool, "diff", base + ".ludus", new + ".ludus", "--source", "gpu"])
jsons["export json"] = read(base + ".json")
jsons["report json"] = run([tool, "report", base + ".ludus", "--json"])
jsons["report gpu json"] = run([tool, "report", base + ".ludus", "--json", "--source", "gpu"])
jsons["diff json"] = run([tool, "diff", base + ".ludus", new + ".ludus", "--json"])
run([tool, "convert", base + ".ludus", os.path.join(work, "conv.json")])
run([tool, "convert", base + ".ludus", os.path.join(work, "conv.pftrace")])
jsons["convert json"] = read(os.path.join(work, "conv.json"))
run([tool, "report", base + ".ludus", "--html", os.path.join(work, "report.html")])
run([tool, "diff", base + ".ludus", new + ".ludus", "--html", os.path.join(work, "diff.html")])
for k in ("report", "diff"):
    htmls[k + " html"] = read(os.path.join(work, k + ".html"))
pftraces["export pftrace"] = base + ".pftrace"
pftraces["convert pftrace"] = os.path.join(work, "conv.pftrace")
for d in (texts, jsons, htmls):
    for k in [k for k, v in d.items() if v is None]:
        del d[k]
for k in [k for k, v in pftraces.items() if not os.path.exists(v)]:
    del pftraces[k]

# ---- text: nothing a terminal acts on ----
HIDDEN = re.compile("[\x00-\x09\x0b-\x1f\x7f\x80-\x9f\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
for what, data in texts.items():
    try:
        t = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8 (%s)" % (what, e))
        continue
    m = HIDDEN.search(t)
    if m:
        fail("%s: sends U+%04X at %d: %r" % (what, ord(m.group()), m.start(), t[max(0, m.start() - 40):m.start() + 20]))
for what in ("info", "report", "diff"):
    if what in texts and "\\x1b[31mred" not in texts[what].decode("utf-8", "replace"):
        fail("%s: the escape sequence of a name is not shown as \\x1b" % what)
for n in CORPUS[1:6]:
    if "report" in texts and clean(n) not in texts["report"].decode("utf-8", "replace"):
        fail("report: %r not shown as it is" % n)

# ---- CSV: one record a line, formulas defused ----
for what in ("report csv", "diff csv"):
    for line in texts.get(what, b"").decode("utf-8", "replace").split("\n")[1:]:
        for field in re.findall(r'(?:^|,)("(?:[^"]|"")*"|[^,]*)', line):
            v = field[1:-1].replace('""', '"') if field.startswith('"') else field
            if v[:1] in ("=", "+", "@") or (v[:1] == "-" and not re.match(r"^-[0-9.]", v)):
                fail("%s: a field starts a formula: %r" % (what, v[:40]))


# ---- JSON: strict, names intact ----
def strings(v, out):
    if isinstance(v, str):
        out.add(v)
    elif isinstance(v, list):
        for x in v:
            strings(x, out)
    elif isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            strings(x, out)
    return out


def check_json(what, data, expect):
    try:
        doc = json.loads(data.decode("utf-8"))  # strict: control characters in strings fail
    except (UnicodeDecodeError, ValueError) as e:
        fail("%s: not strict JSON: %s" % (what, e))
        return None
    if re.search(rb"<(/|!--|script)", data, re.I):
        fail("%s: holds '</', '<!--' or '<script' raw" % what)
    got = strings(doc, set())
    for n in expect:
        if n not in got:
            fail("%s: name %r missing (or changed)" % (what, n))
    if not any(s.startswith(big) for s in got):
        fail("%s: the 1 MB name's first bytes missing" % what)
    return got


for what, data in jsons.items():
    got = check_json(what, data, names)
    if got is not None and ("export" in what or "convert" in what):
        for n in literals:
            if not any(s.startswith(n) for s in got):
                fail("%s: literal name %r missing" % (what, n))
        if not any(s.startswith("nul\x00inside </script>") for s in got):
            fail("%s: the message with a NUL inside lost its tail" % what)


# ---- pftrace: every string valid UTF-8 ----
def unescape(s):
    """protoc's text format string (C escapes, octal bytes) -> bytes."""
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        e = s[i + 1]
        if e in "01234567":
            j = i + 1
            while j < len(s) and j < i + 4 and s[j] in "01234567":
                j += 1
            out.append(int(s[i + 1:j], 8))
            i = j
        elif e == "x":
            j = i + 2
            while j < len(s) and s[j] in "0123456789abcdefABCDEF":
                j += 1
            out.append(int(s[i + 2:j], 16))
            i = j
        else:
            out += {"n": b"\n", "r": b"\r", "t": b"\t", "\\": b"\\", "'": b"'", '"': b'"'}.get(e, e.encode())
            i += 2
    return bytes(out)


STRING_FIELDS = {"name", "process_name", "thread_name", "string_value", "categories"}
for what, path in pftraces.items():
    out = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", os.path.dirname(proto),
                          os.path.basename(proto)], stdin=open(path, "rb"), capture_output=True)
    if out.returncode != 0:
        fail("%s: protoc cannot decode it: %s" % (what, out.stderr.decode("utf-8", "replace")[:300]))
        continue
    got = set()
    for m in re.finditer(r'^\s*(\w+): "((?:[^"\\]|\\.)*)"$', out.stdout.decode("utf-8", "replace"), re.M):
        if m.group(1) not in STRING_FIELDS:
            continue
        b = unescape(m.group(2))
        try:
            got.add(b.decode("utf-8"))
        except UnicodeDecodeError:
            fail("%s: string field %s is not UTF-8: %r" % (what, m.group(1), b[:60]))
    for n in names:
        if n not in got:
            fail("%s: name %r missing" % (what, n))
    for n in literals:  # a counter's track: its name and series
        if not any(s.startswith(n) for s in got):
            fail("%s: literal name %r missing" % (what, n))
    if not any(s.startswith(big) for s in got):
        fail("%s: the 1 MB name's first bytes missing" % what)


# ---- HTML: only the template's markup ----
ALLOWED = {"html", "head", "meta", "title", "style", "body", "h1", "h2", "h3", "p", "span", "b", "svg", "table",
           "tr", "th", "td", "div", "button", "script", "label", "input"}  # the frame chart's controls


class Page(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.scripts, self.bad, self.cur, self.data = [], [], None, []

    def handle_starttag(self, tag, attrs):
        if tag not in ALLOWED:
            self.bad.append("element <%s>" % tag)
        for k, v in attrs:
            if k.startswith("on") and not (tag == "button" and k == "onclick" and v == "flame(null)"):
                self.bad.append("handler %s=%r on <%s>" % (k, v, tag))
            if v and "javascript:" in v.lower():
                self.bad.append("javascript: URL in %s" % k)
        if tag == "script":
            self.scripts.append(dict(attrs))
            self.cur = []

    def handle_data(self, d):
        if self.cur is not None:
            self.cur.append(d)

    def handle_endtag(self, tag):
        if tag == "script" and self.cur is not None:
            self.data.append("".join(self.cur))
            self.cur = None


for what, data in htmls.items():
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        fail("%s: not UTF-8: %s" % (what, e))
        continue
    p = Page()
    p.feed(text)
    for b in p.bad:
        fail("%s: %s" % (what, b))
    if len(p.scripts) != 2 or p.scripts[0].get("type") != "application/json":
        fail("%s: %d scripts, the template has 2 (data, code)" % (what, len(p.scripts)))
        continue
    raw = p.data[0]
    if re.search(r"<(/|!--|script)", raw, re.I):
        fail("%s: the data script holds '</', '<!--' or '<script'" % what)
    try:
        doc = json.loads(raw)
    except ValueError as e:
        fail("%s: the data script is not JSON: %s" % (what, e))
        continue
    got = strings(doc, set())
    for n in names:
        if n not in got:
            fail("%s: name %r missing from the data" % (what, n))
    if "report" in what and not any(s.startswith("gpu </script>") for s in got):
        fail("%s: the GPU context name is missing from the data" % what)

if failures:
    sys.exit("%d problem(s) with hostile names (above)" % len(failures))
print("ok: %d text, %d JSON, %d pftrace and %d HTML outputs safe with %d hostile names" %
      (len(texts), len(jsons), len(pftraces), len(htmls), len(CORPUS) + len(LITERALS) + 1))
