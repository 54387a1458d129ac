"""ttpb2ascii -f parquet read back by pyarrow, pandas, Polars and DuckDB:
every value of every column the magnet text's (ttpb2ascii -f magnet), in
the type docs/outputs.md's table gives it ("Columns for pandas, Polars and
DuckDB": the test reads the table, so the doc is what is tested).

usage: test_parquet.py TTPB2ASCII TMPDIR BIG LOG...  (check.sh, with the
readers' venv's python3); BIG a log of more than one row group, compared
whole with pyarrow and at the groups' edges with the others. Closes with
"test_parquet: N passed, N failed".
"""
import os
import re
import subprocess
import sys

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq

import tally

HERE = os.path.dirname(os.path.abspath(__file__))
DOC = os.path.join(HERE, "..", "..", "docs", "outputs.md")
GROUP = 65536
T = tally.Tally("test_parquet")
check = T.check


def doc_types():
    """{column: type} from docs/outputs.md's table; "*" the rest's"""
    text = open(DOC).read()
    sec = text.split("## Columns for pandas, Polars and DuckDB", 1)[1]
    sec = sec.split("\n## ", 1)[0]
    types = {}
    for m in re.finditer(r"^\| `([a-z0-9\[\]]+)`(, from hex)? \| (.*) \|$",
                         sec, re.M):
        t = m.group(1) + ("/hex" if m.group(2) else "")
        cols = re.findall(r"`([a-z_0-9]+)`", m.group(3))
        if m.group(3).startswith("every other column"):
            types["*"] = t
            continue
        # a row's columns come first; a note in parentheses may follow
        for c in re.findall(r"`([a-z_0-9]+)`",
                            m.group(3).split(" (", 1)[0]):
            types[c] = t
        assert cols, m.group(0)
    return types


TYPES = doc_types()
ARROW = {"uint32": pa.uint32(), "uint64": pa.uint64(), "int64": pa.int64(),
         "string": pa.string(), "timestamp[ns]": pa.timestamp("ns"),
         "uint64/hex": pa.uint64()}
POLARS = {"uint32": pl.UInt32, "uint64": pl.UInt64, "int64": pl.Int64,
          "string": pl.String, "timestamp[ns]": pl.Datetime("ns"),
          "uint64/hex": pl.UInt64}
DUCK = {"uint32": "UINTEGER", "uint64": "UBIGINT", "int64": "BIGINT",
        "string": "VARCHAR", "timestamp[ns]": "TIMESTAMP_NS",
        "uint64/hex": "UBIGINT"}


def kind(col):
    return TYPES.get(col, TYPES["*"])


def text_of(ttpb, log):
    """the magnet text's header and rows (a list per column, None for an
    empty field, the value in its documented type), and ttpb2ascii's
    exit status"""
    p = subprocess.run([ttpb, "-f", "magnet", log], capture_output=True)
    lines = p.stdout.decode().split("\n")
    assert lines[-1] == "", log
    head = lines[0].split("\t")
    cols = [[] for _ in head]
    conv = []
    for c in head:
        k = kind(c)
        conv.append(str if k == "string" else
                    (lambda v: int(v) - (int(v) >= 2 ** 63) * 2 ** 64)
                    if k == "int64" else
                    (lambda v: int(v, 16)) if k == "uint64/hex" else
                    (lambda v: int(v.split(".")[0]) * 10 ** 9 +
                     int(v.split(".")[1])) if k == "timestamp[ns]" else int)
    for line in lines[1:-1]:
        f = line.split("\t")
        assert len(f) == len(head), (log, line)
        for i, v in enumerate(f):
            cols[i].append(conv[i](v) if v != "" else None)
    return head, cols, p.returncode


def to_parquet(ttpb, log, out):
    p = subprocess.run([ttpb, "-f", "parquet", "-o", out, log],
                       capture_output=True, text=True)
    return p.returncode, p.stderr


def by_pyarrow(path):
    t = pq.read_table(path)
    types = {n: t.schema.field(n).type for n in t.column_names}
    vals = {}
    for n in t.column_names:
        c = t.column(n)
        if pa.types.is_timestamp(c.type):
            c = c.cast(pa.int64())
        vals[n] = c.to_pylist()
    return t.column_names, types, vals


def by_pandas(path):
    df = pd.read_parquet(path, engine="pyarrow", dtype_backend="pyarrow")
    types = {n: df[n].dtype.pyarrow_dtype for n in df.columns}
    vals = {}
    for n in df.columns:
        s = df[n]
        if pa.types.is_timestamp(types[n]):
            s = s.astype("int64[pyarrow]")
        vals[n] = [None if v is pd.NA else v for v in s.tolist()]
    return list(df.columns), types, vals


def by_polars(path):
    df = pl.read_parquet(path)
    types = dict(df.schema)
    vals = {}
    for n in df.columns:
        s = df[n]
        if types[n] == pl.Datetime("ns"):
            s = s.cast(pl.Int64)
        vals[n] = s.to_list()
    return df.columns, types, vals


def by_duckdb(path, where=""):
    con = duckdb.connect()
    rel = con.sql("SELECT * FROM read_parquet('%s')" % path)
    names, types = rel.columns, dict(zip(rel.columns,
                                         (str(t) for t in rel.types)))
    sel = ", ".join('epoch_ns("%s")' % n if types[n] == "TIMESTAMP_NS"
                    else '"%s"' % n for n in names)
    rows = con.sql("SELECT %s FROM read_parquet('%s', file_row_number = "
                   "true) %s ORDER BY file_row_number" % (sel, path, where)
                   ).fetchall()
    vals = {n: [r[i] for r in rows] for i, n in enumerate(names)}
    return names, types, vals


READERS = (("pyarrow", by_pyarrow, ARROW), ("pandas", by_pandas, ARROW),
           ("polars", by_polars, POLARS), ("duckdb", by_duckdb, DUCK))


def same(log, head, cols, got, rows=None):
    """each column's values as the text's (of rows @rows, a range)"""
    name, (names, types, vals), want_t = got
    check(names == head, "%s, %s: the columns %s, not the text's"
          % (log, name, names[:3]))
    for i, c in enumerate(head):
        if c not in vals:
            continue
        want = cols[i] if rows is None else cols[i][rows.start:rows.stop]
        if vals[c] != want:
            bad = next(j for j, (a, b) in enumerate(zip(vals[c], want))
                       if a != b) if len(vals[c]) == len(want) else None
            check(False, "%s, %s: column %s differs%s" % (
                log, name, c, " (%d values, the text %d)" % (
                    len(vals[c]), len(want)) if bad is None else
                " at row %d: %r, the text %r" % (bad, vals[c][bad],
                                                  want[bad])))
        else:
            check(True, "")
        check(types[c] == want_t[kind(c)], "%s, %s: column %s is %s, the "
              "doc says %s" % (log, name, c, types[c], kind(c)))


def meta_end(path):
    return pq.ParquetFile(path).metadata.metadata[b"magnet.end"].decode()


def main():
    ttpb, tmp, big, logs = sys.argv[1], sys.argv[2], sys.argv[3], \
        sys.argv[4:]
    filled = set()
    for n, log in enumerate(logs):
        head, cols, rc = text_of(ttpb, log)
        out = os.path.join(tmp, "t%d.parquet" % n)
        prc, err = to_parquet(ttpb, log, out)
        check(prc == rc, "%s: -f parquet exits %d, -f magnet %d (%s)"
              % (log, prc, rc, err.strip()))
        if not os.path.exists(out) or not os.path.getsize(out):
            # refused before any record: usage (1: ttprobe's records) or
            # bad input (2: not a magnet log)
            check(rc in (1, 2), "%s: no Parquet file, yet -f magnet "
                  "exits %d" % (log, rc))
            continue
        for name, read, want_t in READERS:
            same(log, head, cols, (name, read(out), want_t))
        end = meta_end(out)
        check(end.startswith("complete" if rc == 0 else "cut short"),
              "%s: magnet.end '%s' with exit status %d" % (log, end, rc))
        filled |= {c for i, c in enumerate(head)
                   if any(v is not None for v in cols[i])}
    # every column and type met a value somewhere (the readers' paths)
    check(len(filled) == len(head), "columns never filled by these logs: "
          "%s" % sorted(set(head) - filled))

    # more than one row group: whole with pyarrow, the groups' edges
    # with the others
    head, cols, rc = text_of(ttpb, big)
    out = os.path.join(tmp, "big.parquet")
    check(to_parquet(ttpb, big, out)[0] == 0 and rc == 0,
          "%s: not decoded" % big)
    n = len(cols[0])
    groups = pq.ParquetFile(out).metadata.num_row_groups
    check(n > 2 * GROUP and groups == (n + GROUP - 1) // GROUP,
          "%s: %d rows in %d row groups" % (big, n, groups))
    same(big, head, cols, ("pyarrow", by_pyarrow(out), ARROW))
    edge = range(GROUP - 2, 2 * GROUP + 2)
    for name, read, want_t in READERS[1:3]:
        names, types, vals = read(out)
        vals = {c: v[edge.start:edge.stop] for c, v in vals.items()}
        same(big, head, cols, (name, (names, types, vals), want_t),
             edge)
    got = by_duckdb(out, "WHERE file_row_number BETWEEN %d AND %d" % (
        edge.start, edge.stop - 1))
    same(big, head, cols, ("duckdb", got, DUCK), edge)

    return T.close()


if __name__ == "__main__":
    sys.exit(main())
