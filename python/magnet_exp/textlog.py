"""Stream the records of a magnet log through `ttpb2ascii -f magnet`.

One record at a time, as a Row whose fields are named by the text format's
header line; nothing is kept, so memory stays flat in the log's size.
A log that already is the magnet text (omode=3, `cat /proc/net/magnet`,
gzip or not) is read as it is, with the checks ttpb2ascii makes of a
binary log: a header, every line as many fields as it has, the last line
complete.
"""
import gzip
import os
import shutil
import subprocess

# the magnet text's first columns (module/shared/format.c's header)
TEXT_HEADER = "time\tcpu\tevent\t"

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


def _open(path):
    """@path as bytes, gunzipped if it is gzip"""
    f = open(path, "rb")
    if f.peek(2)[:2] == b"\x1f\x8b":
        f.close()
        return gzip.open(path, "rb")
    return f


def is_text(path):
    """whether the log at @path is the magnet text (else leave it to
    ttpb2ascii, which says what it is not)"""
    try:
        with _open(path) as f:
            return f.read(len(TEXT_HEADER)) == TEXT_HEADER.encode()
    except (OSError, EOFError):
        return False


def _text_rows(path, end):
    """the Rows of a magnet text log, with ttpb2ascii's exit codes: 3 if
    its last line is cut, 2 at a line that is not a record (and none
    after it)"""
    end.code = 0
    with _open(path) as raw:
        try:
            header = raw.readline().decode().rstrip("\n")
            names = header.split("\t")
            index = {name: i for i, name in enumerate(names)}
            n = 1
            for line in raw:
                n += 1
                if not line.endswith(b"\n"):
                    end.code = 3
                    end.message = ("%s: last line cut short (%d bytes, line "
                                   "%d): ignored" % (path, len(line), n))
                    return
                v = line.decode().rstrip("\n").split("\t")
                if len(v) != len(names):
                    end.code = 2
                    end.message = ("%s: line %d has %d fields, the header "
                                   "%d: not a record" % (path, n, len(v),
                                                         len(names)))
                    return
                yield Row(v, index)
        except (OSError, EOFError, UnicodeDecodeError) as e:
            end.code = 2
            end.message = "%s: %s" % (path, e)


def rows(path, end, ttpb2ascii=None):
    """Yield the Rows of the log at @path; @end (a LogEnd) gets the exit
    status once they are all read."""
    if is_text(path):
        yield from _text_rows(path, end)
        return
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
