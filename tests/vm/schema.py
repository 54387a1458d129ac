"""The record layout, read from module/uapi/schema.h's tables, for the Python
checks (magnetlog.py, checkstack.py, checkctl.py).

    import schema
    schema.PARTS["v3_tcp"].unpack(buf, off)   # {field name: value}
    schema.PARTS["v3_tcp"].size                # 144
    schema.V2.offset("cwnd")                   # 128

Each part is a table of schema.h (MAGNET_V3_TCP_PART is "v3_tcp", the
version 2 record's four tables together are V2, "v2"); its fields are
naturally aligned, in order, without padding. tests/unit/check.sh compares
what this reads with what the C compiler makes of the same tables
(tests/unit/schema_dump). Integers in the writer's byte order; only the
native one (the guests are little-endian) here.
"""
import os
import re
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
# the repository's module/uapi, or, in a VM test's guest, the copy of it
# tests/vm/run.sh puts beside the snapshot of tests/vm (as uapi/), so the
# guest reads the layout of the tree its module was built from
MODULE = os.path.join(HERE, "uapi")
if not os.path.isdir(MODULE):
    MODULE = os.path.join(HERE, "..", "..", "module", "uapi")

# schema.h's table macros, by the names used here
TABLES = {
    "MAGNET_V3_HDR_FIELDS": "v3_hdr",
    "MAGNET_V3_COUNT_PART": "v3_count",
    "MAGNET_V3_FLOW_PART": "v3_flow",
    "MAGNET_V3_TCP_PART": "v3_tcp",
    "MAGNET_V3_APP_PART": "v3_app",
    "MAGNET_V3_PKT_PART": "v3_pkt",
    "MAGNET_V3_RATE_PART": "v3_rate",
    "MAGNET_V3_DROP_PART": "v3_drop",
    "MAGNET_V3_TCPEV_PART": "v3_tcpev",
    "MAGNET_V3_QDISC_PART": "v3_qdisc",
    "MAGNET_V3_LIMIT_PART": "v3_limit",
    "MAGNET_V3_RCVBUF_PART": "v3_rcvbuf",
    "MAGNET_V3_RTOEND_PART": "v3_rtoend",
    "MAGNET_V2_HEAD": "v2_head",
    "MAGNET_V2_SNAP": "v2_snap",
    "MAGNET_V2_HDR": "v2_hdr",
    "MAGNET_V2_TAIL": "v2_tail",
    "MAGNET_SYSINFO_FIELDS": "sysinfo",
}

# C type: (struct code, bytes, name as docs/binary-format.md spells it)
TYPES = {
    "__u8": ("B", 1, "u8"), "char": ("B", 1, "char"),
    "__u16": ("H", 2, "u16"), "__u32": ("I", 4, "u32"),
    "__u64": ("Q", 8, "u64"), "__s64": ("q", 8, "s64"),
}

ENTRY = re.compile(r"X\(\s*(\w+)\s*,\s*(\w+)\s*,\s*(?:\[\s*(\w+)\s*\])?\s*,\s*([FVR])\s*\)")
# another table's entries in place: MAGNET_V2_CONN(X) in MAGNET_V2_TAIL
TABLE_REF = re.compile(r"\b(MAGNET_\w+)\(X\)")


class Field:
    def __init__(self, name, ctype, count, kind, offset):
        self.name, self.ctype, self.count, self.kind = name, ctype, count, kind
        self.offset = offset
        code, self.esize, self.tname = TYPES[ctype]
        self.array = count is not None
        n = count or 1
        self.size = self.esize * n
        # byte and char arrays as bytes, others as ints (a tuple for an array)
        if self.array and self.esize == 1:
            self.code = "%ds" % n
        else:
            self.code = ("%d" % n if self.array else "") + code


class Part:
    def __init__(self, name, fields):
        self.name = name
        self.fields = fields
        self.by_name = {f.name: f for f in fields}
        self.size = sum(f.size for f in fields)
        self.struct = struct.Struct("<" + "".join(f.code for f in fields))
        assert self.struct.size == self.size, name

    def offset(self, name):
        return self.by_name[name].offset

    def unpack(self, buf, off=0):
        """{name: value} of the part at @off in @buf."""
        vals = list(self.struct.unpack_from(buf, off))
        out = {}
        for f in self.fields:
            if f.array and f.esize > 1:
                out[f.name] = tuple(vals[:f.count])
                del vals[:f.count]
            else:
                out[f.name] = vals.pop(0)
        return out

    def put(self, buf, off, name, value):
        """Write field @name of the part at @off in @buf."""
        f = self.by_name[name]
        if f.array and f.esize > 1:
            struct.pack_into("<" + f.code, buf, off + f.offset, *value)
        else:
            struct.pack_into("<" + f.code, buf, off + f.offset, value)

    def picker(self, names):
        """A struct.Struct that reads the fields @names (in offset order)
        of a part and skips the rest."""
        fmt, at = "<", 0
        for n in names:
            f = self.by_name[n]
            assert f.offset >= at, n
            fmt += "%dx" % (f.offset - at) if f.offset > at else ""
            fmt += f.code
            at = f.offset + f.size
        if at < self.size:
            fmt += "%dx" % (self.size - at)
        return struct.Struct(fmt)


def _defines(text):
    return {m.group(1): int(m.group(2), 0) for m in
            re.finditer(r"^#define\s+(\w+)\s+(\d+|0x[0-9a-fA-F]+)\b", text, re.M)}


def _tables(path):
    with open(path) as f:
        lines = f.read().split("\n")
    tables, cur = {}, None
    for line in lines:
        m = re.match(r"#define\s+(\w+)\(X\)", line)
        if m:
            cur = tables.setdefault(m.group(1), [])
        elif cur is not None:
            cur.append(line)
        if cur is not None and not line.rstrip().endswith("\\"):
            cur = None
    # comments out, then the entries in order, a table named in another
    # (MAGNET_V2_CONN(X) in MAGNET_V2_TAIL) by its own entries
    bodies = {k: re.sub(r"/\*.*?\*/", " ", "\n".join(v), flags=re.S)
              for k, v in tables.items()}

    def entries(name, seen=()):
        assert name not in seen, "schema.h's table %s names itself" % name
        out = []
        for m in re.finditer("%s|%s" % (ENTRY.pattern, TABLE_REF.pattern),
                             bodies[name]):
            if m.group(5):
                out += entries(m.group(5), seen + (name,))
            else:
                out.append(tuple(g or "" for g in m.group(1, 2, 3, 4)))
        return out
    return {k: entries(k) for k in bodies}


def load(module=MODULE):
    with open(os.path.join(module, "record.h")) as f:
        consts = _defines(f.read())
    parts = {}
    for macro, entries in _tables(os.path.join(module, "schema.h")).items():
        if macro not in TABLES:
            continue
        fields, off = [], 0
        for ctype, name, dim, kind in entries:
            count = None
            if dim:
                count = int(dim) if dim.isdigit() else consts[dim]
            f = Field(name, ctype, count, kind, off)
            # version 2's later tables start in the record, not at 0
            assert off % f.esize == 0 or macro in ("MAGNET_V2_TAIL", "MAGNET_V2_HDR"), \
                "%s.%s is not aligned" % (macro, name)
            fields.append(f)
            off += f.size
        parts[TABLES[macro]] = Part(TABLES[macro], fields)
    missing = set(TABLES.values()) - set(parts)
    assert not missing, "schema.h has no table for %s" % sorted(missing)
    return parts


PARTS = load()


def _v2():
    """The version 2 record, its tables laid end to end (the snapshot and
    the packet header share their bytes)."""
    p = PARTS
    fields, off = [], 0
    for name in ("v2_head", "v2_snap", "v2_tail"):
        if name == "v2_tail":
            off = 112 + max(p["v2_snap"].size, p["v2_hdr"].size)
        for f in p[name].fields:
            fields.append(Field(f.name, f.ctype, f.count, f.kind, off + f.offset))
        off += p[name].size
    v2 = Part("v2", fields)
    hdr = {f.name: Field(f.name, f.ctype, f.count, f.kind, 112 + f.offset)
           for f in p["v2_hdr"].fields}
    v2.by_name.update(hdr)      # the packet header's fields, by name too
    v2.hdr_fields = list(hdr.values())
    return v2


V2 = _v2()
assert all(f.offset % f.esize == 0 for f in V2.fields + V2.hdr_fields)
assert PARTS["v2_head"].size == 112 and V2.size == 256
HDR_SIZE = PARTS["v3_hdr"].size
