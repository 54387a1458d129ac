#!/usr/bin/python3
"""Assertions on a ttprobe-format log written by magnet (docs/compat-formats.md,
section 1, "ttprobe ASCII lines").

Used inside the test guests. Each subcommand exits non-zero with a reason on
the first failed assertion and prints a one-line summary when it passes.

  checklog.py format LOG T0 T1 [FIRST]  every line well formed, field 7
                                      counts FIRST (default 1), FIRST+1, ...
                                      (compat=ttprobe: from 0 since load),
                                      timestamps within [T0-1, T1+1]
  checklog.py flow LOG JSON [--role sender|receiver] [--bytes]
                                      the iperf3 data flow in JSON appears with
                                      the right addresses/ports; --bytes: the
                                      sender's 'o' lengths account for the bytes
                                      iperf3 reports sent
  checklog.py absent LOG JSON         the flow in JSON does not appear
  checklog.py only-dir LOG o|i        every line has that direction
  checklog.py only-port LOG PORT      every line has PORT at one end
  checklog.py cwnd-changes LOG        no flow has two consecutive lines with
                                      the same cwnd (full=0)
  checklog.py count LOG JSON          print the number of lines of the flow
  checklog.py text LOG                magnet text (omode=3): a header of 96
                                      named columns, 96 fields on every line,
                                      all 8 event types, iperf3 as comm; the
                                      rate part's columns filled on TCP and
                                      app lines, empty on the others; the
                                      limit part's on TCP lines only; the
                                      drop columns empty (no events=drop); a
                                      namespace on every event line
  checklog.py protos LOG P [includes] magnet text: the set of ip_proto values
                                      on IP/device lines is exactly P (e.g. 6),
                                      or includes P
  checklog.py same-shape LOG1 LOG2    both logs hold the same number of flows,
                                      each flow with both 'i' and 'o' lines
"""
import ipaddress
import json
import re
import sys

ADDR4 = r"\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}"
ADDR6 = r"[0-9A-F]{4}(?::[0-9A-F]{4}){7}"
LINE = re.compile(
    r"^[io],\d+\.\d{6},(?:%s|%s),\d+,(?:%s|%s),\d+(?:,\d+){11}$"
    % (ADDR4, ADDR6, ADDR4, ADDR6))


def fail(msg):
    print("checklog: FAIL: " + msg)
    sys.exit(1)


def read_lines(path):
    with open(path, "rb") as f:
        data = f.read()
    if data and not data.endswith(b"\n"):
        fail("%s: last line is incomplete" % path)
    return data.decode("ascii").splitlines()


def fields(path):
    return [l.split(",") for l in read_lines(path)]


def ttprobe_addr(text):
    """An address as magnet prints it (v4-mapped IPv6 becomes IPv4)."""
    a = ipaddress.ip_address(text)
    if a.version == 6 and a.ipv4_mapped:
        a = a.ipv4_mapped
    if a.version == 4:
        return str(a)
    return a.exploded.upper()


def iperf_flow(json_path, role):
    """(local addr, local port, remote addr, remote port) of the data flow,
    as seen by the sender (client) or the receiver (server) socket."""
    with open(json_path) as f:
        j = json.load(f)
    c = j["start"]["connected"][0]
    cli = (ttprobe_addr(c["local_host"]), str(c["local_port"]))
    srv = (ttprobe_addr(c["remote_host"]), str(c["remote_port"]))
    if role == "sender":
        return cli + srv, j
    return srv + cli, j


def cmd_format(path, t0, t1, first="1"):
    rows = read_lines(path)
    if not rows:
        fail("%s is empty" % path)
    for n, line in enumerate(rows, 1):
        if not LINE.match(line):
            fail("line %d is malformed: %r" % (n, line))
        f = line.split(",")
        if len(f) != 17:
            fail("line %d has %d fields" % (n, len(f)))
        if int(f[6]) != n - 1 + int(first):
            fail("line %d: packet counter is %s, want %d"
                 % (n, f[6], n - 1 + int(first)))
        ts = float(f[1])
        if not (float(t0) - 1 <= ts <= float(t1) + 1):
            fail("line %d: timestamp %s outside [%s, %s] +- 1 s"
                 % (n, f[1], t0, t1))
    print("format ok: %d lines, 17 fields each, counter %s..%d, timestamps in range"
          % (len(rows), first, len(rows) - 1 + int(first)))


def flow_rows(rows, key):
    return [r for r in rows if tuple(r[2:6]) == key]


def cmd_flow(path, json_path, role, check_bytes):
    key, j = iperf_flow(json_path, role)
    rows = flow_rows(fields(path), key)
    if not rows:
        fail("flow %s (%s) not in %s" % (",".join(key), role, path))
    dirs = {r[0] for r in rows}
    print("flow %s (%s): %d lines, directions %s"
          % (",".join(key), role, len(rows), "".join(sorted(dirs))))
    if check_bytes:
        # iperf3's sum_sent counts bytes the client wrote to the socket; its
        # sum_received what the server read. TCP must have transmitted at
        # least every received byte, and no more than what was written
        # (plus iperf3's 37-byte stream cookie and retransmissions, each at
        # most one 64 KiB GSO segment). When the server closes before the
        # client's send buffer drained, sent > received, and TCP never
        # transmitted the difference.
        sent = j["end"]["sum_sent"]["bytes"]
        received = j["end"]["sum_received"]["bytes"]
        retrans = j["end"]["sum_sent"].get("retransmits", 0)
        if role == "sender":
            total = sum(int(r[16]) for r in rows if r[0] == "o")
            lo, hi = received, sent + 37 + retrans * 65536
        else:
            # 'i' lengths at TCP receive include the TCP header (at most
            # 60 bytes a segment); the receiver gets no more than the
            # sender transmitted, a resent segment at most twice, so a
            # record counted twice goes past the bound
            ins = [r for r in rows if r[0] == "i"]
            total = sum(int(r[16]) for r in ins)
            lo, hi = received, sent + 37 + retrans * 65536 + 60 * len(ins)
        if total < lo:
            fail("%s lengths sum to %d, iperf3 received %d"
                 % (role, total, received))
        if total > hi:
            fail("'%s' lengths sum to %d, iperf3 sent %d with %d retransmits"
                 " (at most %d)" % ("o" if role == "sender" else "i", total,
                                   sent, retrans, hi))
        print("bytes ok (%s): lengths %d, iperf3 sent %d, received %d, %d retransmits"
              % (role, total, sent, received, retrans))


def cmd_absent(path, json_path):
    for role in ("sender", "receiver"):
        key, _ = iperf_flow(json_path, role)
        if flow_rows(fields(path), key):
            fail("flow %s should have been filtered out" % ",".join(key))
    print("absent ok")


def cmd_only_dir(path, d):
    rows = fields(path)
    if not rows:
        fail("no lines")
    bad = [r for r in rows if r[0] != d]
    if bad:
        fail("%d of %d lines are not '%s', first: %s"
             % (len(bad), len(rows), d, ",".join(bad[0])))
    print("direction ok: %d lines, all '%s'" % (len(rows), d))


def cmd_only_port(path, port):
    rows = fields(path)
    if not rows:
        fail("no lines")
    bad = [r for r in rows if port not in (r[3], r[5])]
    if bad:
        fail("%d lines without port %s, first: %s"
             % (len(bad), port, ",".join(bad[0])))
    print("port ok: %d lines, all with port %s" % (len(rows), port))


def cmd_cwnd_changes(path):
    rows = fields(path)
    if not rows:
        fail("no lines")
    last = {}
    for r in rows:
        key = tuple(r[2:6])
        if key in last and last[key] == r[9]:
            fail("flow %s repeats cwnd %s at line %s"
                 % (",".join(key), r[9], r[6]))
        last[key] = r[9]
    print("cwnd ok: %d lines over %d flows, each a cwnd change"
          % (len(rows), len(last)))


def cmd_count(path, json_path):
    key, _ = iperf_flow(json_path, "sender")
    print(len(flow_rows(fields(path), key)))


def cmd_same_shape(a, b):
    shapes = []
    for path in (a, b):
        flows = {}
        for r in fields(path):
            flows.setdefault(tuple(r[2:6]), set()).add(r[0])
        # the listening socket only receives SYNs
        data = [k for k in flows if k[3] != "0"]
        one_way = [k for k in data if flows[k] != {"i", "o"}]
        if one_way:
            fail("%s: flow %s has only '%s' lines"
                 % (path, ",".join(one_way[0]), "".join(flows[one_way[0]])))
        shapes.append(len(data))
    if shapes[0] != shapes[1]:
        fail("%s has %d flows, %s has %d" % (a, shapes[0], b, shapes[1]))
    print("same shape: %d flows in each, all with 'i' and 'o' lines" % shapes[0])


def text_rows(path):
    lines = read_lines(path)
    if not lines:
        fail("%s is empty" % path)
    head = lines[0].split("\t")
    rows = [dict(zip(head, l.split("\t"))) for l in lines[1:]]
    for n, l in enumerate(lines[1:], 2):
        if l.count("\t") != len(head) - 1:
            fail("line %d has %d fields, header %d" % (n, l.count("\t") + 1, len(head)))
    return head, rows


RATE_COLS = ("pacing_rate", "delivery_rate", "delivered", "delivered_ce",
             "lost_out", "sacked_out", "app_limited")
BBR_COLS = ("bbr_bw", "bbr_min_rtt", "bbr_pacing_gain", "bbr_cwnd_gain")
# the limit part's (docs/binary-format.md, "Limit part"): TCP lines only
LIMIT_COLS = ["chrono", "chrono_us", "busy_us", "rwnd_limited_us",
              "sndbuf_limited_us", "reordering", "reord_seen", "dsack_dups"]
# the rcvbuf part's ("Rcvbuf part"): rcvbuf lines only (events=rcvbuf)
RCVBUF_COLS = ["rcvbuf", "rcvbuf_before", "window_clamp",
               "window_clamp_before", "rcv_ssthresh", "rcv_space",
               "rcv_rtt_us"]
# the TCP event part's RTO totals: TCP event lines only
RTO_COLS = ["total_rto", "total_rto_recoveries"]
# the rtoend part's times ("Rtoend part"): rto_end lines only (events=cong)
RTOEND_COLS = ["total_rto_time", "rto_recovery_ms"]


def cmd_text(path):
    head, rows = text_rows(path)
    if len(head) != 96 or head[:3] != ["time", "cpu", "event"] or \
            head[-29:] != ["drop_reason", "drop_where", "prev_state",
                           "kind", "timeouts", "qdisc", "qdisc_handle",
                           "qdisc_qlen", "qdisc_backlog"] + LIMIT_COLS + \
            RCVBUF_COLS + RTO_COLS + RTOEND_COLS + ["lost"]:
        fail("header has %d columns: %r" % (len(head), head[:5]))
    kinds = {r["event"] for r in rows}
    want = {"tcp_out", "tcp_in", "app_send", "app_recv", "ip_out", "ip_in",
            "dev_out", "dev_in"}
    if not want <= kinds:
        fail("event types missing: %s" % sorted(want - kinds))
    for r in rows:
        if not re.match(r"^\d+\.\d{9}$", r["time"]):
            fail("bad time %r" % r["time"])
        if r["event"].startswith("app_") and r["comm"] != "iperf3":
            fail("%s by %r" % (r["event"], r["comm"]))
        # the rate part: on TCP and app events (BBR's columns: not cubic)
        rate = [r[c] for c in RATE_COLS]
        if r["event"][:4] in ("tcp_", "app_"):
            if not all(v.isdigit() for v in rate):
                fail("%s line without its rate part: %r" % (r["event"], rate))
        elif r["event"] not in ("lost", "reset") and any(rate):
            fail("%s line with a rate part: %r" % (r["event"], rate))
        lim = [r[c] for c in LIMIT_COLS]
        if r["event"][:4] == "tcp_":
            if lim[0] not in ("none", "busy", "rwnd", "sndbuf") or \
                    not all(v.isdigit() for v in lim[1:]):
                fail("%s line without its limit part: %r" % (r["event"], lim))
        elif any(lim):
            fail("%s line with a limit part: %r" % (r["event"], lim))
        if any(r[c] for c in BBR_COLS) and r["ca_name"] != "bbr":
            fail("%s line of %s with BBR's columns" % (r["event"], r["ca_name"]))
        if r["drop_reason"] or r["drop_where"]:
            fail("%s line with drop columns (no events=drop): %r" % (
                r["event"], (r["drop_reason"], r["drop_where"])))
        if any(r[c] for c in RCVBUF_COLS):
            fail("%s line with rcvbuf columns (no events=rcvbuf): %r" % (
                r["event"], [r[c] for c in RCVBUF_COLS]))
        if r["prev_state"] or r["kind"] or r["timeouts"] or r["qdisc"] or \
                any(r[c] for c in RTO_COLS + RTOEND_COLS):
            fail("%s line with TCP event columns (no events=retrans or "
                 "state): %r" % (r["event"], (r["prev_state"],
                                 r["kind"], r["timeouts"])))
        if r["event"] not in ("lost", "reset") and not r["netns"].isdigit():
            fail("%s line without its namespace: %r" % (r["event"], r["netns"]))
    print("text ok: %d lines, 96 columns, event types %s, the rate part on every TCP and app line, the limit part on every TCP line, no drop, TCP event or rcvbuf columns, a namespace on every event line"
          % (len(rows), ",".join(sorted(kinds))))


def cmd_protos(path, want, mode="exactly"):
    _, rows = text_rows(path)
    got = {r["ip_proto"] for r in rows if r["event"] in ("ip_out", "ip_in", "dev_out", "dev_in")}
    want = set(want.split(","))
    if mode == "exactly" and got != want:
        fail("ip_proto values %s, expected exactly %s" % (sorted(got), sorted(want)))
    if mode == "includes" and not want <= got:
        fail("ip_proto values %s, expected to include %s" % (sorted(got), sorted(want)))
    print("protos ok: %s (%s %s)" % (",".join(sorted(got)), mode, ",".join(sorted(want))))


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, args = argv[1], argv[2:]
    if cmd == "format":
        cmd_format(*args)
    elif cmd == "flow":
        role = "sender"
        if "--role" in args:
            role = args[args.index("--role") + 1]
        cmd_flow(args[0], args[1], role, "--bytes" in args)
    elif cmd == "absent":
        cmd_absent(*args)
    elif cmd == "only-dir":
        cmd_only_dir(*args)
    elif cmd == "only-port":
        cmd_only_port(*args)
    elif cmd == "cwnd-changes":
        cmd_cwnd_changes(*args)
    elif cmd == "text":
        cmd_text(*args)
    elif cmd == "protos":
        cmd_protos(*args)
    elif cmd == "same-shape":
        cmd_same_shape(*args)
    elif cmd == "count":
        cmd_count(*args)
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
