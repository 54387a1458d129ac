"""Stream the records of a magnet log through `ttpb2ascii -f magnet`.

One record at a time, as a Row whose fields are named by the text format's
header line; nothing is kept, so memory stays flat in the log's size.
"""
import os
import shutil
import subprocess

# where ttpb2ascii is: beside this package in the source tree
# (python/ -> userspace/), installed beside magnet-exp, or on PATH
_HERE = os.path.dirname(os.path.abspath(__file__))


def find_ttpb2ascii(given=None):
    if given:
        return given
    env = os.environ.get("MAGNET_TTPB2ASCII")
    if env:
        return env
    for cand in (os.path.join(_HERE, "..", "..", "userspace", "ttpb2ascii"),
                 os.path.join(_HERE, "..", "..", "..", "bin", "ttpb2ascii")):
        if os.access(cand, os.X_OK):
            return os.path.normpath(cand)
    found = shutil.which("ttpb2ascii")
    if not found:
        raise FileNotFoundError("ttpb2ascii not found (make, or make install)")
    return found


class Row:
    """One text line: fields by column name; numbers with int_()."""
    __slots__ = ("_v", "_ix")

    def __init__(self, values, index):
        self._v = values
        self._ix = index

    def __getitem__(self, name):
        return self._v[self._ix[name]]

    def get(self, name, default=""):
        """the field, or @default if the header has no such column (a
        ttpb2ascii older than the column)"""
        i = self._ix.get(name)
        return self._v[i] if i is not None else default

    def int_(self, name, default=0):
        v = self._v[self._ix[name]]
        return int(v) if v else default

    def time_ns(self):
        """the wall-clock time, in ns since the epoch"""
        s, _, ns = self._v[0].partition(".")
        return int(s) * 1000000000 + int(ns or 0)


class LogEnd:
    """How the decoding ended: ttpb2ascii's exit code and message."""

    def __init__(self):
        self.code = None
        self.message = ""

    @property
    def truncated(self):
        return self.code == 3

    @property
    def corrupt(self):
        return self.code not in (0, 3)


def rows(path, end, ttpb2ascii=None):
    """Yield the Rows of the log at @path; @end (a LogEnd) gets the exit
    status once they are all read."""
    prog = find_ttpb2ascii(ttpb2ascii)
    p = subprocess.Popen([prog, "-f", "magnet", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, bufsize=1 << 20)
    try:
        header = p.stdout.readline().rstrip("\n")
        index = {name: i for i, name in enumerate(header.split("\t"))} \
            if header else {}
        for line in p.stdout:
            yield Row(line.rstrip("\n").split("\t"), index)
    finally:
        p.stdout.close()
        err = p.stderr.read()
        p.stderr.close()
        end.code = p.wait()
        end.message = err.strip()
