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
import re
import shutil
import subprocess

# the magnet text's first columns (module/shared/format_text.c's header)
TEXT_HEADER = "time\tcpu\tevent\t"
# all of them (test_exp checks them against ttpb2ascii's header)
TEXT_COLUMNS = (
    "time cpu event sock family laddr lport raddr rport state len seq "
    "end_seq mark pid comm req ret mss srtt_us rttvar_us rto_us cwnd "
    "ssthresh snd_wnd rcv_wnd snd_una snd_nxt write_seq copied_seq "
    "packets_out retrans_out total_retrans ca_state ca_name ifindex netns ip_id "
    "ip_tos ip_ttl ip_proto segs_out data_segs_out segs_in data_segs_in "
    "bytes_sent bytes_received bytes_acked bytes_retrans rcv_nxt "
    "min_rtt_us rtt_us advmss snd_wscale rcv_wscale opts pacing_rate "
    "delivery_rate delivered delivered_ce lost_out sacked_out app_limited "
    "bbr_bw bbr_min_rtt bbr_pacing_gain bbr_cwnd_gain drop_reason drop_where "
    "prev_state kind timeouts qdisc qdisc_handle qdisc_qlen qdisc_backlog "
    "chrono chrono_us busy_us rwnd_limited_us sndbuf_limited_us reordering "
    "reord_seen dsack_dups rcvbuf rcvbuf_before window_clamp "
    "window_clamp_before rcv_ssthresh rcv_space rcv_rtt_us total_rto "
    "total_rto_recoveries total_rto_time rto_recovery_ms lost").split()
_INDEX = {n: i for i, n in enumerate(TEXT_COLUMNS)}
# ttprobe's ASCII line (docs/compat-formats.md, section 1): 17 fields
_TTPROBE = re.compile(rb"^[oi],[0-9]+\.[0-9]{6},[0-9A-Fa-f.:]+,[0-9]+,"
                      rb"[0-9A-Fa-f.:]+,[0-9]+(,[0-9]+){11}\n?$")

# where ttpb2ascii is: beside this package in the source tree
# (python/ -> userspace/), installed beside magnet-exp, or on PATH
_HERE = os.path.dirname(os.path.abspath(__file__))


def find_ttpb2ascii(given=None):
    if given:
        return given
    env = os.environ.get("MAGNET_TTPB2ASCII")
    if env:
        return env
    # (make install: <PREFIX>/lib/magnet/python/magnet_exp/ and
    # <PREFIX>/bin/)
    for cand in (os.path.join(_HERE, "..", "..", "userspace", "ttpb2ascii"),
                 os.path.join(_HERE, "..", "..", "..", "..", "bin",
                              "ttpb2ascii"),
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
        # or "ttprobe" (its ASCII lines) or "web10g" (web10g-logger's)
        self.kind = "magnet"

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


def _lines(raw, path, end, first):
    """(number, line) of @raw's complete lines, numbered from @first; a last
    line without its newline is left out and sets @end to ttpb2ascii's
    exit 3"""
    for n, line in enumerate(raw, first):
        if not line.endswith(b"\n"):
            end.code = 3
            end.message = ("%s: last line cut short (%d bytes, line %d): "
                           "ignored" % (path, len(line), n))
            return
        yield n, line


def is_ttprobe(path):
    """whether the log at @path is ttprobe's ASCII lines"""
    try:
        with _open(path) as f:
            return bool(_TTPROBE.match(f.readline(512)))
    except (OSError, EOFError):
        return False


def _ttprobe_rows(path, end):
    """ttprobe's ASCII lines as Rows of the magnet text's columns: what a
    line has (docs/compat-formats.md, section 1), cwnd and ssthresh from
    bytes to packets (ttprobe's "infinite" ssthresh, 0x7fffffff packets,
    wrapped in 32 bits or not, as it is), and bytes_acked and bytes_sent
    as snd_una's and snd_nxt's progress from the connection's first line
    (ttprobe has no byte counters); the rest empty. Exit codes as
    ttpb2ascii's."""
    end.code = 0
    end.kind = "ttprobe"
    first_una = {}
    with _open(path) as raw:
        for n, line in _lines(raw, path, end, 1):
            if not _TTPROBE.match(line):
                end.code = 2
                end.message = ("%s: line %d is not a ttprobe line (17 fields:"
                               " docs/compat-formats.md)" % (path, n))
                return
            f = line.decode().rstrip("\n").split(",")
            v = [""] * len(TEXT_COLUMNS)
            sec, usec = f[1].split(".")
            mss = int(f[7])

            def pkts(b):
                if mss and b in (0x7fffffff * mss,
                                 (0x7fffffff * mss) & 0xffffffff):
                    return "2147483647"
                return str(b // mss) if mss else ""
            conn = (f[2], f[3], f[4], f[5])
            una, nxt = int(f[14]), int(f[15])
            base = first_una.setdefault(conn, una)
            for name, val in (
                    ("time", "%s.%s000" % (sec, usec)),
                    ("event", "tcp_out" if f[0] == "o" else "tcp_in"),
                    ("family", "6" if ":" in f[2] else "4"),
                    ("laddr", f[2]), ("lport", f[3]), ("raddr", f[4]),
                    ("rport", f[5]), ("mss", f[7]), ("srtt_us", f[8]),
                    ("cwnd", pkts(int(f[9]))),
                    ("ssthresh", pkts(int(f[10]))), ("snd_wnd", f[11]),
                    ("rcv_wnd", f[12]), ("state", f[13]),
                    ("snd_una", f[14]), ("snd_nxt", f[15]), ("len", f[16]),
                    ("bytes_acked", str((una - base) % 2 ** 32)),
                    ("bytes_sent", str((nxt - base) % 2 ** 32))):
                v[_INDEX[name]] = val
            yield Row(v, _INDEX)


# web10g-logger's header (docs/compat-formats.md, section 4)
WEB10G_HEADER = "Timestamp,CID,LocalAddress,LocalPort,RemAddress,RemPort,"
# RFC 4898's State -> the kernel's sk_state
_W10G_STATE = {1: 7, 2: 10, 3: 2, 4: 3, 5: 1, 6: 4, 7: 5, 8: 8, 9: 9,
               10: 11, 11: 6}


def is_web10g(path):
    """whether the log at @path is web10g-logger's (with its header)"""
    try:
        with _open(path) as f:
            return f.read(len(WEB10G_HEADER)) == WEB10G_HEADER.encode()
    except (OSError, EOFError):
        return False


def _web10g_rows(path, end):
    """web10g-logger's lines as Rows of the magnet text's columns
    (docs/experiments.md says which): RFC 4898's units turned into the
    text's (ms to us, bytes to packets for cwnd and ssthresh, the MIB's
    State to sk_state); Gauge32's capped ssthresh (4294967295: Linux's
    "infinite" before the first loss) as the kernel's 0x7fffffff; the
    direction, which a line does not say, from the counters: tcp_in when
    SegsIn grew since the connection's last line, else tcp_out. Exit codes
    as ttpb2ascii's."""
    end.code = 0
    end.kind = "web10g"
    last_in = {}
    with _open(path) as raw:
        names = raw.readline().decode(errors="replace").rstrip("\n") \
            .split(",")
        ix = {n: i for i, n in enumerate(names)}
        for n, line in _lines(raw, path, end, 2):
            f = line.decode(errors="replace").rstrip("\n").split(",")
            if len(f) != len(names) or "." not in f[0]:
                end.code = 2
                end.message = ("%s: line %d has %d fields, the header %d: "
                               "not a web10g line" % (path, n, len(f),
                                                      len(names)))
                return

            def g(name):
                i = ix.get(name)
                return f[i] if i is not None else ""

            def ms(name):
                v = g(name)
                return str(int(v) * 1000) if v else ""
            mss = int(g("CurMSS") or 0)

            def pkts(name):
                v = g(name)
                if not v or not mss:
                    return ""
                return "2147483647" if int(v) == 0xffffffff else \
                    str(int(v) // mss)
            conn = (f[2], f[3], f[4], f[5])
            segs_in = int(g("SegsIn") or 0)
            way = "tcp_in" if segs_in > last_in.get(conn, 0) else "tcp_out"
            last_in[conn] = segs_in
            st = g("State")
            sec, usec = f[0].split(".")
            v = [""] * len(TEXT_COLUMNS)
            for name, val in (
                    ("time", "%s.%s000" % (sec, usec)), ("event", way),
                    ("family", "6" if ":" in f[2] else "4"),
                    ("laddr", f[2]), ("lport", f[3]), ("raddr", f[4]),
                    ("rport", f[5]),
                    ("state", str(_W10G_STATE.get(int(st), "")) if st
                     else ""),
                    ("mss", g("CurMSS")), ("srtt_us", ms("SmoothedRTT")),
                    ("rttvar_us", ms("RTTVar")), ("rto_us", ms("CurRTO")),
                    ("cwnd", pkts("CurCwnd")),
                    ("ssthresh", pkts("CurSsthresh")),
                    ("snd_una", g("SndUna")), ("snd_nxt", g("SndNxt")),
                    ("rcv_nxt", g("RcvNxt")),
                    ("total_retrans", g("SegsRetrans")),
                    ("segs_out", g("SegsOut")),
                    ("data_segs_out", g("DataSegsOut")),
                    ("segs_in", g("SegsIn")),
                    ("data_segs_in", g("DataSegsIn")),
                    ("bytes_sent", g("HCDataOctetsOut")),
                    ("bytes_received", g("HCThruOctetsReceived")),
                    ("bytes_acked", g("HCThruOctetsAcked")),
                    ("min_rtt_us", ms("MinRTT")),
                    ("rtt_us", ms("SampleRTT"))):
                v[_INDEX[name]] = val
            yield Row(v, _INDEX)


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
            for n, line in _lines(raw, path, end, 2):
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
    if is_ttprobe(path):
        yield from _ttprobe_rows(path, end)
        return
    if is_web10g(path):
        yield from _web10g_rows(path, end)
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
