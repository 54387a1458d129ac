#!/usr/bin/python3
"""schemacheck.py DUMP DOC: the record layout as the C compiler makes it of
module/uapi/schema.h's tables (DUMP, tests/unit/schema_dump's output) must be
what tests/vm/schema.py reads of the same file, and what DOC
(docs/binary-format.md) draws in its field tables: every offset, type and
name, part by part. Prints each difference; exits 1 if any.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "vm"))
import schema  # noqa: E402

# the parts that version 2's record draws as one table
V2_MAIN = ("v2_head", "v2_snap", "v2_tail")

# where DOC draws each part: the text that introduces it, and the offset
# its offsets count from (version 3: the record's start, but the rate and
# drop, TCP event and qdisc parts)
DOC = [
    ("sysinfo", "## SYSINFO header (`struct magnet_sysinfo`", 0),
    (V2_MAIN, "## Records (`struct magnet_record`", 0),
    ("v2_hdr", "### The packet header (`RF_HDR`", 0),
    ("v3_hdr", "**Header** (`struct magnet_v3_hdr`", 0),
    ("v3_flow", "**FLOW** (`struct magnet_v3_flow`", "hdr"),
    ("v3_count", "**LOST, RESET** (`struct magnet_v3_count`)", "hdr"),
    ("v3_tcp", "**TCP part** (`struct magnet_v3_tcp`)", "hdr"),
    ("v3_app", "**Call part** (`struct magnet_v3_app`)", "tcp"),
    ("v3_rate", "**Rate part** (`struct magnet_v3_rate`", 0),
    ("v3_pkt", "**Packet part** (`struct magnet_v3_pkt`)", "hdr"),
    ("v3_drop", "**Drop part** (`struct magnet_v3_drop`", 0),
    ("v3_tcpev", "**TCP event part** (`struct magnet_v3_tcpev`", 0),
    ("v3_qdisc", "**Qdisc part** (`struct magnet_v3_qdisc`", 0),
    ("v3_limit", "**Limit part** (`struct magnet_v3_limit`", 0),
    ("v3_rcvbuf", "**Rcvbuf part** (`struct magnet_v3_rcvbuf`", 0),
    ("v3_rtoend", "**Rtoend part** (`struct magnet_v3_rtoend`", 0),
]

errors = []


def err(msg):
    errors.append(msg)
    print("schemacheck: " + msg)


def read_dump(path):
    parts, cur = {}, None
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "part":
                cur = parts[w[1]] = dict(size=int(w[2]), fields=[])
            else:
                cur["fields"].append((int(w[0]), w[1], w[2], w[3]))
    return parts


def py_fields(name):
    """schema.py's reading of part @name, as the dump prints it."""
    part = schema.PARTS[name]
    base = 0
    if name.startswith("v2_"):      # the dump gives offsets in the record
        base = schema.V2.by_name[part.fields[0].name].offset
    return [(base + f.offset, f.tname + ("[%d]" % f.count if f.array else ""),
             f.name, f.kind) for f in part.fields]


def doc_rows(text, key):
    """(offset, type, [names]) of the table, or the sentence of
    'OFFSET TYPE `name`' items, that follows @key in @text."""
    at = text.find(key)
    if at < 0:
        err("the documentation has no '%s'" % key)
        return []
    rest = text[at:].split("\n")
    i = 0
    while i < len(rest) and rest[i].strip():
        i += 1
    # a sentence: "16 u64 `req`, 24 s64 `ret`", in the paragraph of @key
    para = " ".join(rest[:i])
    rows = [(int(m.group(1)), m.group(2) + (m.group(3) or ""),
             [m.group(4) or m.group(5)]) for m in
            re.finditer(r"(\d+) ((?:u|s)\d+|char)(\[\d+\])? (?:`(\w+)`|(reserved))", para)]
    if rows:
        return rows
    # else the table after it
    while i < len(rest) and not rest[i].startswith("|"):
        i += 1
    for line in rest[i + 2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip("|").split("|")]
        names = re.findall(r"`(\w+)`", cells[2].split(":")[0])
        if not names and cells[2].startswith("reserved"):
            names = ["reserved"]
        rows.append((int(cells[0]), cells[1], names))
    return rows


SIZES = {"u8": 1, "char": 1, "u16": 2, "u32": 4, "u64": 8, "s64": 8}


def expand(rows, where):
    """The rows as single fields: (offset, type, name)."""
    out = []
    for off, typ, names in rows:
        m = re.match(r"(\w+) × (\w+)$", typ)
        if m and m.group(2) == "n":
            continue            # the packet's options: not a field
        if m:
            t, k = m.group(1), int(m.group(2))
            if len(names) == k:
                for n in names:
                    out.append((off, t, n))
                    off += SIZES[t]
            elif len(names) == 1:
                out.append((off, "%s[%d]" % (t, k), names[0]))
            else:
                err("%s: the row at %d has %d names for %s" % (where, off, len(names), typ))
        elif len(names) == 1:
            out.append((off, typ, names[0]))
        else:
            err("%s: the row at %d names %r" % (where, off, names))
    return out


def main():
    dump = read_dump(sys.argv[1])
    # 1. schema.py reads the header as the compiler does
    for name in schema.TABLES.values():
        if name not in dump:
            err("schema_dump has no part %s" % name)
            continue
        if dump[name]["size"] != schema.PARTS[name].size:
            err("%s: %d bytes, schema.py reads %d" % (name, dump[name]["size"],
                                                      schema.PARTS[name].size))
        if dump[name]["fields"] != py_fields(name):
            err("%s: schema.py reads\n  %r\nthe compiler has\n  %r"
                % (name, py_fields(name), dump[name]["fields"]))
    # 2. the documentation draws it
    with open(sys.argv[2]) as f:
        text = f.read()
    bases = {0: 0, "hdr": dump["v3_hdr"]["size"],
             "tcp": dump["v3_hdr"]["size"] + dump["v3_tcp"]["size"]}
    for names, key, base in DOC:
        names = names if isinstance(names, tuple) else (names,)
        want = [(bases[base] + off, typ, name, kind)
                for p in names for off, typ, name, kind in dump[p]["fields"]]
        got = expand(doc_rows(text, key), key)
        where = "/".join(names)
        for i in range(max(len(want), len(got))):
            w = want[i] if i < len(want) else None
            g = got[i] if i < len(got) else None
            if w and g and w[:2] == g[:2] and \
                    (w[2] == g[2] or (w[3] == "R" and g[2] == "reserved")):
                continue
            err("%s: the documentation has %s where schema.h has %s"
                % (where, "%d %s %s" % g if g else "nothing",
                   "%d %s %s" % w[:3] if w else "nothing"))
            break
    print("schemacheck: %d parts, %s" % (len(dump), "%d differences" % len(errors)
                                          if errors else "schema.py and the documentation agree"))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
