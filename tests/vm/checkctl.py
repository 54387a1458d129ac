#!/usr/bin/python3
"""Assertions for the control plane (filter, reset, statistics) and the
web10g output, run inside the test guests.

  checkctl.py term LOG KEY VALUE [FLOW...]
        LOG is magnet text (omode=3) recorded under `filter KEY=VALUE`:
        every event line satisfies the term, there are event lines, and each
        FLOW (laddr,lport,raddr,rport as the socket sees it) appears; a
        FLOW of !FLOW must not appear. A FLOW may also be JSON:sender or
        JSON:receiver, iperf3's data flow in its -J output JSON as that
        side's socket sees it
  checkctl.py absent LOG FLOW...       no event line of these flows
  checkctl.py web10g W10G TTPROBE STATS TT_STATS  web10g lines (omode=2): 128
        columns, no lowercase letter in data lines, counters that only
        grow, no line that repeats the counters of the one before (beyond
        the unsettled reads STATS counts); CurCwnd and SmoothedRTT equal the
        ttprobe fields of the same segments (TTPROBE recorded at the same
        time); STATS (the statistics file at the end) shows that segments
        did wait in a backlog, and that none is left pending or untracked;
        neither module (STATS, TT_STATS) lost a record
  checkctl.py octets W10G JSON         for the iperf3 data flow in JSON the
        octet counters account for the bytes iperf3 reports
  checkctl.py ss W10G SS FLOW          the flow's last web10g line agrees with
        `ss -tin` (file SS) on segments, data segments, bytes sent and MSS
  checkctl.py tcpinfo TEXT INFO PORT   the last tcp_out record of one
        byte from local port PORT in the magnet text TEXT (ttpb2ascii's)
        equals the socket's TCP_INFO and TCP_CC_INFO as tcpflow.py read
        them just before it sent that byte (file INFO): the rate part, the
        MSS, min RTT, bytes acked and received, BBR's state (empty for a
        congestion control without one)
  checkctl.py cids W10G N [least|distinct|sequential]  web10g connection
        ids: in order, never 0, never two flows for one id; at least N, or
        exactly N with one per flow, or exactly N for flows that reuse a
        four-tuple one connection after another (cmd_cids)
"""
import collections
import ipaddress
import json
import math
import re
from collections import Counter
import struct
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
from checklog import iperf_flow, text_rows, ttprobe_addr  # noqa: E402
import schema  # noqa: E402
from magnetlog import COUNT, Bad, v3_headers  # noqa: E402

OUT_EVENTS = {"tcp_out", "app_send", "ip_out", "dev_out"}
ALL_EVENTS = OUT_EVENTS | {"tcp_in", "app_recv", "ip_in", "dev_in"}
MARKERS = {"lost", "reset"}


def fail(msg):
    print("checkctl: FAIL: " + msg)
    sys.exit(1)


def flow_of(r):
    return ",".join((r["laddr"], r["lport"], r["raddr"], r["rport"]))


def flow_arg(a):
    """a FLOW argument: laddr,lport,raddr,rport, or JSON:sender|receiver"""
    path, _, role = a.rpartition(":")
    if role in ("sender", "receiver"):
        return ",".join(iperf_flow(path, role)[0])
    return a


def events(path):
    _, rows = text_rows(path)
    return [r for r in rows if r["event"] not in MARKERS]


def in_net(addr, net):
    a = ipaddress.ip_address(addr if ":" not in addr or addr.count(":") != 7
                             else addr)
    return a.version == net.version and a in net


def term_ok(r, key, value):
    if key == "port":
        return value in (r["lport"], r["rport"])
    if key == "sport":
        return r["lport"] == value
    if key == "dport":
        return r["rport"] == value
    if key == "addr":
        net = ipaddress.ip_network(value, strict=False)
        return in_net(r["laddr"], net) or in_net(r["raddr"], net)
    if key == "dir":
        out = r["event"] in OUT_EVENTS
        return (out and "o" in value) or (not out and "i" in value)
    if key == "events":
        layer = {"app": "app_", "tcp": "tcp_", "ip": "ip_", "dev": "dev_"}
        return any(r["event"].startswith(layer[l]) for l in value.split(","))
    if key == "fwmark":
        return int(r["mark"]) == int(value, 0)
    if key == "comm":
        return not r["event"].startswith("app_") or r["comm"] == value
    if key == "pid":
        return not r["event"].startswith("app_") or r["pid"] == value
    if key == "netns":
        # the test passes the namespace's addresses: events of that netns
        # carry one of them as their local address
        return r["laddr"] in value.split("|")
    fail("no check for term " + key)


def cmd_term(path, key, value, flows):
    gone = [flow_arg(f[1:]) for f in flows if f.startswith("!")]
    flows = [flow_arg(f) for f in flows if not f.startswith("!")]
    rows = events(path)
    if not rows:
        fail("%s: no event lines under %s=%s" % (path, key, value))
    for r in rows:
        if not term_ok(r, key, value):
            fail("%s=%s: line breaks the filter: %s %s %s"
                 % (key, value, r["event"], flow_of(r), r.get("comm", "")))
    seen = {flow_of(r) for r in rows}
    for fl in flows:
        if fl not in seen:
            fail("%s=%s: flow %s missing (seen: %s)" % (key, value, fl, sorted(seen)))
    none_seen(gone, seen, "%s=%s: " % (key, value))
    if key in ("dir", "events"):
        # the traffic drives every layer both ways (magnet loaded with
        # events=all): each event the term admits must be there, or a
        # filter that dropped one layer or one direction would pass
        admit = {e for e in ALL_EVENTS if term_ok({"event": e}, key, value)}
        missing = admit - {r["event"] for r in rows}
        if missing:
            fail("%s=%s: no %s line (the term admits %s)" % (
                key, value, ", ".join(sorted(missing)),
                ", ".join(sorted(admit))))
    if key in ("comm", "pid"):
        # every other line passes these terms: the application's own
        # calls, both ways, must be there, or a filter that dropped every
        # application event would pass
        kinds = {r["event"] for r in rows
                 if r["event"].startswith("app_") and r[key] == value}
        if kinds != {"app_send", "app_recv"}:
            fail("%s=%s: application events of it: %s, want app_send and "
                 "app_recv" % (key, value, sorted(kinds) or "none"))
    print("term ok: %s=%s, %d lines, %d flows" % (key, value, len(rows), len(seen)))


def none_seen(flows, seen, what=""):
    for fl in flows:
        if fl in seen:
            fail("%sflow %s should have been filtered out" % (what, fl))


def cmd_absent(path, flows):
    flows = [flow_arg(f) for f in flows]
    none_seen(flows, {flow_of(r) for r in events(path)})
    print("absent ok: %d flows" % len(flows))


W10G_COLS = 128


def web10g_iter(path):
    """the rows of a web10g log as dicts, one at a time (PATH may be a
    FIFO fed by the reader)"""
    with open(path) as f:
        head = f.readline().rstrip("\n").split(",")
        if head == [""]:
            fail("%s is empty" % path)
        if len(head) != W10G_COLS or head[:6] != ["Timestamp", "CID", "LocalAddress",
                                                  "LocalPort", "RemAddress", "RemPort"]:
            fail("web10g header has %d columns: %r" % (len(head), head[:8]))
        for n, l in enumerate(f, 2):
            l = l.rstrip("\n")
            fl = l.split(",")
            if len(fl) != W10G_COLS:
                fail("web10g line %d has %d columns" % (n, len(fl)))
            if LOWER.search(l):
                fail("web10g line %d has a lowercase letter: %s" % (n, l[:80]))
            yield dict(zip(head, fl))


LOWER = re.compile("[a-z]")


def web10g_rows(path):
    return list(web10g_iter(path))


def w_flow(r):
    return ",".join((r["LocalAddress"], r["LocalPort"], r["RemAddress"], r["RemPort"]))


def backlog_stats(stats):
    for line in open(stats):
        m = re.match(r"backlog\tqueued (\d+)\tpending (\d+)\tuntracked (\d+)"
                     r"\tunsettled (\d+)$", line)
        if m:
            return [int(x) for x in m.groups()]
    fail("no backlog line in %s" % stats)


def lost_records(stats):
    for line in open(stats):
        f = line.rstrip("\n").split("\t")
        if f[0] == "total":
            return int(f[3])
    fail("no total line in %s" % stats)


def cmd_web10g(w10g, ttprobe, stats, tt_stats):
    # the line-by-line comparison needs every record of both modules
    for path in (stats, tt_stats):
        if lost_records(path):
            fail("%s: %d records lost (ring full); the comparison needs them all"
                 % (path, lost_records(path)))
    queued, pending, untracked, unsettled = backlog_stats(stats)
    # without backlogged segments the no-repeat check below proves nothing
    if queued == 0:
        fail("no segment waited in a socket backlog; the test did not exercise it")
    if pending or untracked:
        fail("backlog: %d sockets still pending, %d segments untracked" % (pending, untracked))
    repeats = []
    rows = web10g_rows(w10g)
    tp = [l.split(",") for l in open(ttprobe).read().splitlines()]
    byflow_w, byflow_t = {}, {}
    for r in rows:
        byflow_w.setdefault(w_flow(r), []).append(r)
    for f in tp:
        if f[13] != "10":     # web10g has no lines for listening sockets
            byflow_t.setdefault(",".join(f[2:6]), []).append(f)
    if set(byflow_w) != set(byflow_t):
        fail("flows differ: web10g %s, ttprobe %s" % (sorted(byflow_w), sorted(byflow_t)))
    keys = ("SegsOut", "DataSegsOut", "SegsIn", "DataSegsIn")
    compared = inlines = 0
    for fl, ws in byflow_w.items():
        ts = byflow_t[fl]
        if len(ws) != len(ts):
            fail("flow %s: %d web10g lines, %d ttprobe lines" % (fl, len(ws), len(ts)))
        prev = None
        for w, t in zip(ws, ts):
            if w["CurCwnd"] != t[9]:
                fail("flow %s: CurCwnd %s, ttprobe cwnd %s" % (fl, w["CurCwnd"], t[9]))
            if w["SmoothedRTT"] != str(int(t[8]) // 1000):
                fail("flow %s: SmoothedRTT %s ms, ttprobe srtt %s us"
                     % (fl, w["SmoothedRTT"], t[8]))
            if (w["SndUna"], w["SndNxt"]) != (t[14], t[15]):
                fail("flow %s: SndUna/SndNxt differ from ttprobe" % fl)
            cur = tuple(int(w[k]) for k in keys)
            inlines += t[0] == "i"
            if prev is not None:
                # TEACUP drops a line whose counters repeat. A tcp_out record
                # counts its own segment; a tcp_in record counts segments as
                # TCP processed them, so a backlogged segment counts when
                # its turn comes (docs/web10g.md)
                if cur == prev:
                    repeats.append("flow %s: %s line repeats counters %r"
                                   % (fl, "tcp_in" if t[0] == "i" else "tcp_out", cur))
                if any(c < p for c, p in zip(cur, prev)):
                    fail("flow %s: counters go back %r -> %r" % (fl, prev, cur))
            prev = cur
            compared += 1
    # a record read while an arrival held the lock (magnet_stats "unsettled")
    # may count it early: the one line after it may repeat, no other
    if len(repeats) > unsettled:
        fail("%d repeated lines, %d unsettled reads; first: %s"
             % (len(repeats), unsettled, repeats[0]))
    print("web10g ok: %d lines (%d tcp_in), %d flows; CurCwnd, SmoothedRTT, SndUna/SndNxt "
          "equal ttprobe's; counters never go back; %d repeated lines, %d unsettled reads; "
          "%d segments were backlogged"
          % (compared, inlines, len(byflow_w), len(repeats), unsettled, queued))


def cmd_sameevents(ev_a, ev_b, stats_a, stats_b):
    """Two modules' events of the same traffic (one per line, the time
    last, sorted; an application event through its ret field): the same,
    but
    - that a record read while an arrival held the socket lock through
      every read (magnet_stats "unsettled": the arrival's CPU preempted, in
      a VM) keeps Linux's segs_in and data_segs_in, which count that
      arrival early. So lines may differ in those two fields (the 42nd and
      43rd), in as many records as the two modules had unsettled reads;
    - the limit part's times (chrono_us, busy_us, rwnd_limited_us,
      sndbuf_limited_us, counted in jiffies from one reading of jiffies
      per record): each by the same whole number of jiffies or not at
      all, the later record (each line's last field is its time) the
      larger. That is how far jiffies moved between the two handlers: a
      tick, or, in a guest whose ticks were held up, several at once as
      the kernel catches up (4 ms within 491 us once, on the debug
      kernel at 1000 Hz). The jiffy is the greatest common divisor of
      those times;
    - an application event's state (the 9th field): it is read at the
      call's return, outside the socket lock, and the peer's FIN may be
      processed on another CPU between the two modules' handlers (the last
      read of a connection ends in CLOSE_WAIT in most runs). At most one
      such event per socket;
    and in nothing else."""
    def timed(path):
        """the lines of @path without their last field, the record's
        time, and those times in us ({line index: us})"""
        lines, us = [], {}
        for l in open(path).read().splitlines():
            l, _, t = l.rpartition("\t")
            if t.replace(".", "", 1).isdigit():
                sec, _, frac = t.partition(".")
                us[len(lines)] = int(sec) * 1000000 + \
                    int((frac + "000000")[:6])
            lines.append(l)
        return lines, us

    a, ta = timed(ev_a)
    b, tb = timed(ev_b)
    if len(a) != len(b):
        fail("%d events in %s, %d in %s" % (len(a), ev_a, len(b), ev_b))
    head = next((l.split("\t") for l in a if l.startswith("cpu\tevent\t")),
                [])
    jcols = [head.index(c) for c in ("chrono_us", "busy_us",
                                     "rwnd_limited_us", "sndbuf_limited_us")
             if c in head]
    state = head.index("state") if "state" in head else 8
    jiffy = 0
    for l in a + b:
        f = l.split("\t")
        for c in jcols:
            if c < len(f) and f[c].isdigit():
                jiffy = math.gcd(jiffy, int(f[c]))

    def masked(lines, cols, app_state=False, times=None):
        out = []
        for i, l in enumerate(lines):
            f = l.split("\t")
            m = list(f)
            for c in cols + ([state] if app_state and
                             f[1].startswith("app_") else []):
                if c < len(m):
                    m[c] = "-"
            out.append(("\t".join(m), f) if times is None else
                       ("\t".join(m), f, times.get(i)))
        return sorted(out)

    def only(x, y):
        """the lines of masked() list x not in y, counted as many times
        as x has more of them"""
        return Counter(r[0] for r in x) - Counter(r[0] for r in y)

    ma = masked(a, jcols + [41, 42], True, ta)
    mb = masked(b, jcols + [41, 42], True, tb)
    if [x[0] for x in ma] != [x[0] for x in mb]:
        only_a, only_b = only(ma, mb), only(mb, ma)
        fail("%d events differ beyond segs_in, the limit part's times and "
             "an application event's state; first only in %s: %r; first "
             "only in %s: %r" % (sum(only_a.values()), ev_a,
                                 min(only_a), ev_b, min(only_b)))
    apart = 0
    for (_, fa, ua), (_, fb, ub) in zip(ma, mb):
        if fa[:2] == ["cpu", "event"]:
            continue
        if ua is None or ub is None:
            fail("a line without its record's time: %r / %r" % (fa, fb))
        steps = {int(fb[c]) - int(fa[c]) for c in jcols
                 if c < len(fa) and fa[c].isdigit() and fb[c].isdigit()}
        steps.discard(0)
        if not steps:
            continue
        d = steps.pop()
        if steps or (d > 0) != (ub > ua) or (jiffy and d % jiffy):
            fail("the limit part's times moved by %s between the two "
                 "records (%d us apart): not one advance of jiffies, in the "
                 "later record: %r / %r"
                 % (sorted(steps | {d}), ub - ua, fa, fb))
        apart = max(apart, abs(d))
    if jcols and not 1000 <= jiffy <= 10000:
        fail("the limit part's times have a granularity of %d us, not a "
             "jiffy" % jiffy)
    # the application events that differ in their state, per socket
    sa = masked([l for l in a if l.split("\t")[1].startswith("app_")], [])
    sb = masked([l for l in b if l.split("\t")[1].startswith("app_")], [])
    moved = Counter(l.split("\t")[2] for l in only(sa, sb).elements())
    if any(n > 1 for n in moved.values()):
        fail("application events of one socket differ in their state more "
             "than once: %r" % dict(moved))
    # the records that differ in segs_in (the limit part's times aside)
    differ = sum(only(masked(a, jcols, True),
                      masked(b, jcols, True)).values())
    unsettled = backlog_stats(stats_a)[3] + backlog_stats(stats_b)[3]
    if differ > unsettled:
        fail("%d events differ in segs_in/data_segs_in, %d unsettled reads"
             % (differ, unsettled))
    print("same events: %d; %d differ in segs_in/data_segs_in, %d unsettled "
          "reads; %d application events in their state; the limit part's "
          "times %d us apart at most (a jiffy %d us)"
          % (len(a), differ, unsettled, sum(moved.values()), apart, jiffy))


def cmd_octets(w10g, json_path):
    rows = web10g_rows(w10g)
    j = json.load(open(json_path))
    c = j["start"]["connected"][0]
    cli = "%s,%d,%s,%d" % (ttprobe_addr(c["local_host"]), c["local_port"],
                           ttprobe_addr(c["remote_host"]), c["remote_port"])
    srv = "%s,%d,%s,%d" % (ttprobe_addr(c["remote_host"]), c["remote_port"],
                           ttprobe_addr(c["local_host"]), c["local_port"])
    sent = j["end"]["sum_sent"]["bytes"] + 37
    received = j["end"]["sum_received"]["bytes"] + 37
    out = [r for r in rows if w_flow(r) == cli]
    inn = [r for r in rows if w_flow(r) == srv]
    if not out or not inn:
        fail("data flow %s not in both directions" % cli)
    hc_out = int(out[-1]["HCDataOctetsOut"])
    if not received <= hc_out <= sent + 65536 * (1 + j["end"]["sum_sent"].get("retransmits", 0)):
        fail("sender HCDataOctetsOut %d; iperf3 sent %d, received %d" % (hc_out, sent, received))
    hc_in = int(inn[-1]["HCDataOctetsIn"])
    # TCP received at least what the application read (at a segment's
    # arrival TCP has not yet counted it, so the last value may lag by one
    # GSO segment), and at most what was sent: iperf3's server can close
    # before reading all that TCP received. Plus one: bytes_received counts
    # the peer's FIN (tcp_data_queue advances rcv_nxt to an end_seq that
    # includes it), so a record after the FIN is one above (docs/web10g.md)
    if not received - 65536 <= hc_in <= sent + 1:
        fail("receiver HCDataOctetsIn %d; iperf3 sent %d, received %d"
             % (hc_in, sent, received))
    print("octets ok: sender HCDataOctetsOut %d (sent %d), receiver HCDataOctetsIn %d "
          "(received %d)" % (hc_out, sent, hc_in, received))


def cmd_ss(w10g, ss_path, flow):
    rows = [r for r in web10g_rows(w10g) if w_flow(r) == flow]
    if not rows:
        fail("flow %s not in %s" % (flow, w10g))
    last = rows[-1]
    text = open(ss_path).read()
    want = {}
    for k, col in (("segs_out", "SegsOut"), ("segs_in", "SegsIn"),
                   ("data_segs_out", "DataSegsOut"), ("data_segs_in", "DataSegsIn"),
                   ("bytes_sent", "HCDataOctetsOut"), ("mss", "CurMSS")):
        m = re.search(r"\b%s:(\d+)" % k, text)
        if m:
            want[col] = m.group(1)
        elif k == "mss":
            fail("ss -tin shows no mss: %s" % text.strip()[:200])
        else:
            want[col] = "0"    # ss leaves out counters that are 0
    for col, v in want.items():
        if last[col] != v:
            fail("%s: web10g %s, ss -tin %s" % (col, last[col], v))
    print("ss ok: the last web10g line equals ss -tin on %s" % ", ".join(sorted(want)))


def cmd_tcpinfo(text, info_path, port):
    _, rows = text_rows(text)
    info = json.load(open(info_path))
    rows = [r for r in rows if r["event"] == "tcp_out" and r["lport"] == port
            and r["len"] == "1"]
    if not rows:
        fail("no tcp_out record of one byte from port %s in %s" % (port, text))
    r = rows[-1]
    want = {"pacing_rate": info["pacing_rate"],
            "delivery_rate": info["delivery_rate"],
            "delivered": info["delivered"], "delivered_ce": info["delivered_ce"],
            "lost_out": info["lost"], "sacked_out": info["sacked"],
            "app_limited": info["app_limited"], "mss": info["snd_mss"],
            "min_rtt_us": info["min_rtt"], "bytes_acked": info["bytes_acked"],
            "bytes_received": info["bytes_received"], "ca_name": info["cc"],
            "sock": "%016x" % info["cookie"]}
    cc = info["cc_info"]
    if info["cc"] == "bbr":
        if len(cc) != 5:
            fail("bbr's TCP_CC_INFO has %d words" % len(cc))
        want.update(bbr_bw=cc[1] << 32 | cc[0], bbr_min_rtt=cc[2],
                    bbr_pacing_gain=cc[3], bbr_cwnd_gain=cc[4])
    else:
        want.update(bbr_bw="", bbr_min_rtt="", bbr_pacing_gain="", bbr_cwnd_gain="")
    bad = ["%s: log %r, tcp_info %r" % (k, r[k], str(v)) for k, v in want.items()
           if r[k] != str(v)]
    if bad:
        fail("the record at %s differs from TCP_INFO: %s" % (r["time"], "; ".join(bad)))
    print("tcpinfo ok: %s, %s equal TCP_INFO%s" % (
        info["cc"], ", ".join("%s %s" % (k, r[k]) for k in sorted(want)),
        " and TCP_CC_INFO" if info["cc"] == "bbr" else ""))


# a version 2 record's event, cpu, ret and req (schema.py); a version 3
# record's header (ts cpu flow event flags len) and a LOST or RESET
# record's req and ret after it
REC_FIELDS = schema.V2.picker(["event", "cpu", "ret", "req"])
CHUNK = 256 * 4096


def stream_records(binpath):
    """(index, event, cpu, ret, req) of every event, LOST and RESET record
    after the header, index 1 first, in format version 2 or 3 (a version 3
    FLOW record is not one; an event's ret and req are 0 there); read in
    chunks, so BINPATH may be a FIFO fed by the reader, for logs too big to
    keep in the guest. Fails at the end if the stream is not whole
    records."""
    total = i = 0
    with open(binpath, "rb") as f:
        head = f.read(256)
        total = len(head)
        v3 = len(head) >= 6 and struct.unpack_from("<H", head, 4)[0] == 3
        rest = b""
        while True:
            # a buffered read returns CHUNK bytes unless the stream ends
            chunk = f.read(CHUNK)
            total += len(chunk)
            if not v3:
                whole = memoryview(chunk)[:len(chunk) - len(chunk) % 256]
                for ev, cpu, ret, req in REC_FIELDS.iter_unpack(whole):
                    i += 1
                    yield i, ev, cpu, ret, req
            else:
                buf = rest + chunk
                try:
                    heads, end = v3_headers(buf, total - len(buf))
                except Bad as e:
                    fail("%s: %s" % (binpath, e))
                for off, _, cpu, _, ev, _, _ in heads:
                    if ev in (9, 10):
                        req, ret = COUNT.unpack_from(buf, off + 16)
                    else:
                        req = ret = 0
                    if ev != 11:
                        i += 1
                        yield i, ev, cpu, ret, req
                rest = buf[end:]
            if len(chunk) < CHUNK:
                break
    if (rest if v3 else total % 256):
        fail("%s: %d bytes, not whole records" % (binpath, total))


def cmd_accounting(stats, binpath):
    """records read + LOST counts + RESET counts = hits, per CPU and in
    total, from the stream alone against the statistics at finish (a RESET
    mark carries all CPUs' discarded records on cpu 0, so per CPU the
    check is read + lost <= hits, and exact in total); prints the marks"""
    events = lost_s = reset_s = nlost = nreset = 0
    cpu_read, cpu_lost_s = {}, {}
    for _, ev, cpu, _, req in stream_records(binpath):
        if ev == 9:
            lost_s += req
            nlost += 1
            cpu_lost_s[cpu] = cpu_lost_s.get(cpu, 0) + req
        elif ev == 10:
            reset_s += req
            nreset += 1
        else:
            events += 1
            cpu_read[cpu] = cpu_read.get(cpu, 0) + 1
    # the statistics file may be written while the stream is read (a FIFO)
    hits = lost = None
    cpu_hits, cpu_lost = {}, {}
    for line in open(stats):
        f = line.rstrip("\n").split("\t")
        if f[0] == "total":
            hits, lost = int(f[1]), int(f[3])
        elif f[0].isdigit() and len(f) > 3:
            cpu_hits[int(f[0])] = int(f[1])
            cpu_lost[int(f[0])] = int(f[3])
    if hits is None:
        fail("no total line in %s" % stats)
    if events == 0:
        fail("the stream has no events")
    print("accounting: %d records read + %d lost (%d LOST records) + %d "
          "reset (%d RESET records); statistics: hits %d, lost %d"
          % (events, lost_s, nlost, reset_s, nreset, hits, lost))
    for cpu in sorted(set(cpu_hits) | set(cpu_read) | set(cpu_lost_s)):
        r, l = cpu_read.get(cpu, 0), cpu_lost_s.get(cpu, 0)
        h = cpu_hits.get(cpu)
        if h is None:
            fail("cpu %d: records in the stream, no statistics line" % cpu)
        if l != cpu_lost.get(cpu, 0):
            fail("cpu %d: the LOST records report %d lost, the statistics %d"
                 % (cpu, l, cpu_lost.get(cpu, 0)))
        if (r + l != h) if not nreset else (r + l > h):
            fail("cpu %d: read %d + lost %d != hits %d" % (cpu, r, l, h))
        if h:
            print("cpu %d: %d read + %d lost = %d hits" % (cpu, r, l, h))
    if lost_s != lost:
        fail("the LOST records report %d lost, the statistics %d" % (lost_s, lost))
    if events + lost_s + reset_s != hits:
        fail("read %d + lost %d + reset %d != hits %d"
             % (events, lost_s, reset_s, hits))
    print("accounting ok")


def cmd_cids(w10g, want, mode="least"):
    """web10g connection ids: none is 0, each new one the next number (ids
    are given in order of appearance, only to connections with a line), a
    CID never names two flows, and, by MODE:
      least       at least WANT of them;
      distinct    exactly WANT, one per flow (every socket open at once,
                  each end of each connection a four-tuple of its own: a
                  flow given a second id means the table lost its entry);
      sequential  exactly WANT; the connections of a flow (one four-tuple
                  used again, one connection after another) each have
                  their own id, and an id once followed by a newer one of
                  its flow never comes back"""
    top, flow_of, nrows = 0, {}, 0
    cids_of = collections.defaultdict(list)
    for n, r in enumerate(web10g_iter(w10g), 2):
        nrows += 1
        cid = int(r["CID"])
        fl = w_flow(r)
        if cid == 0:
            fail("line %d: CID 0 after %d connections" % (n, top))
        if cid > top:
            if cid != top + 1:
                fail("line %d: CID %d after %d" % (n, cid, top))
            top = cid
            flow_of[cid] = fl
            if mode == "distinct" and cids_of[fl]:
                fail("line %d: flow %s has CID %d, and had %s" % (
                    n, fl, cid, cids_of[fl]))
            cids_of[fl].append(cid)
        elif cid not in flow_of:
            fail("line %d: CID %d, new, after %d" % (n, cid, top))
        elif flow_of[cid] != fl:
            fail("line %d: CID %d is %s, was %s" % (n, cid, fl, flow_of[cid]))
        elif mode == "sequential" and cids_of[fl][-1] != cid:
            fail("line %d: CID %d of %s again after its CID %d" % (
                n, cid, fl, cids_of[fl][-1]))
    print("cids: %d connection ids (up to %d) of %d flows in %d lines"
          % (len(flow_of), top, len(cids_of), nrows))
    if mode == "least":
        if len(flow_of) < int(want):
            fail("%d connection ids, want at least %s" % (len(flow_of), want))
    elif mode in ("distinct", "sequential"):
        if len(flow_of) != int(want):
            fail("%d connection ids, want %s" % (len(flow_of), want))
    else:
        fail("cids: unknown mode " + mode)
    print("cids ok (%s)" % mode)


def cmd_misses(stats, binpath, least):
    """the probe misses in the stream (LOST records' ret) equal the
    statistics' probe_misses, at least LEAST of them, and the first LOST
    record with misses comes before the last event (reported as they were
    noticed, not only at the end of the drain)"""
    want = None
    for line in open(stats):
        f = line.rstrip("\n").split("\t")
        if f[0] == "probe_misses":
            want = int(f[1])
    if want is None:
        fail("no probe_misses line in %s" % stats)
    got = first = last_event = 0
    for i, ev, _, ret, _ in stream_records(binpath):
        if ev == 9:
            got += ret
            if ret and not first:
                first = i
        elif ev != 10:
            last_event = i
    print("misses: %d in the stream (first in record %d, last event %d), "
          "probe_misses %d" % (got, first, last_event, want))
    if got != want:
        fail("the stream reports %d probe misses, the statistics %d"
             % (got, want))
    if want < int(least):
        fail("%d probe misses, want at least %s" % (want, least))
    if not first or first > last_event:
        fail("no LOST record with misses before the last event")
    print("misses ok")


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, a = argv[1], argv[2:]
    if cmd == "term":
        cmd_term(a[0], a[1], a[2], a[3:])
    elif cmd == "misses":
        cmd_misses(*a)
    elif cmd == "cids":
        cmd_cids(*a)
    elif cmd == "absent":
        cmd_absent(a[0], a[1:])
    elif cmd == "web10g":
        cmd_web10g(*a)
    elif cmd == "octets":
        cmd_octets(*a)
    elif cmd == "ss":
        cmd_ss(*a)
    elif cmd == "tcpinfo":
        cmd_tcpinfo(*a)
    elif cmd == "accounting":
        cmd_accounting(*a)
    elif cmd == "sameevents":
        cmd_sameevents(*a)
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
