#!/usr/bin/python3
"""Checks of the ttprobe build's compat=ttprobe output (docs/compat-formats.md,
"The TEACUP drop-in"), against iperf3's JSON and against magnet's own records.

  checkttprobe.py teacup LOG.gz T0 T1 [--flow JSON]... [--absent JSON]...
      LOG.gz read as TEACUP's binary mode reads a ttprobe log: gzip, a
      plain sequence of ttprobe's 96-byte struct tcp_log (x86-64 ctypes
      layout), no header; rows in SYN_SENT skipped; flows from fields 3-6
      (source address and port, destination address and port); cwnd =
      snd_cwnd * mss_cache and RTT = srtt / 1000 per flow. Each --flow's
      iperf3 data connection must be there from both ends, with the
      sender's 'o' lengths and the receiver's 'i' lengths accounting for
      iperf3's byte counts; no --absent flow may appear; timestamps within
      [T0 - 1, T1 + 1].
  checkttprobe.py counter FIRST LOG...
      ttprobe ASCII logs of consecutive opens: field 7 runs FIRST, FIRST+1,
      ... across all of them (ttprobe: from 0 since load, no restart).
  checkttprobe.py semantics TEXT LOG...
      every line of the ttprobe ASCII LOGs matches a tcp_out/tcp_in line of
      magnet's text log TEXT (omode=3, the same segments recorded by a
      second module) with the same flow, sequence numbers, length, MSS and
      RTT; its fields 10 and 11 must be ttprobe's: snd_cwnd * mss and
      tcp_current_ssthresh() * mss in 32 bits, computed here from TEXT's
      cwnd, ssthresh and ca_state. Prints how often each branch of the
      ssthresh rule was seen; the infinite-ssthresh wrap, the CWR/Recovery
      branch and the 3/4-cwnd branch must each occur.
"""
import ctypes
import gzip
import ipaddress
import json
import socket
import struct
import sys

TCP_SYN_SENT = 2
TCP_CA_CWR, TCP_CA_RECOVERY = 2, 3


def fail(msg):
    print("checkttprobe: FAIL: " + msg)
    sys.exit(1)


class TcpLog(ctypes.Structure):
    """ttprobe v0.1.2's struct tcp_log as TEACUP's reader declares it."""
    _fields_ = [
        ("tv_sec", ctypes.c_long), ("tv_usec", ctypes.c_long),
        ("src", ctypes.c_ubyte * 16), ("dst", ctypes.c_ubyte * 16),
        ("sport", ctypes.c_uint16), ("dport", ctypes.c_uint16),
        ("length", ctypes.c_uint16),
        ("snd_nxt", ctypes.c_uint32), ("snd_una", ctypes.c_uint32),
        ("snd_wnd", ctypes.c_uint32), ("rcv_wnd", ctypes.c_uint32),
        ("snd_cwnd", ctypes.c_uint32), ("ssthresh", ctypes.c_uint32),
        ("srtt", ctypes.c_uint32), ("mss_cache", ctypes.c_uint32),
        ("sock_state", ctypes.c_ubyte), ("direction", ctypes.c_ubyte),
        ("addr_family", ctypes.c_ubyte),
    ]


def addr(raw, family):
    b = bytes(raw)
    if family == socket.AF_INET:
        return socket.inet_ntop(socket.AF_INET, b[:4])
    if family == socket.AF_INET6:
        # 8 network-order u16, as ttprobe's ASCII prints them
        return ":".join("%04X" % g for g in struct.unpack("!8H", b))
    fail("address family %d" % family)


def ttprobe_addr(text):
    a = ipaddress.ip_address(text)
    if a.version == 6 and a.ipv4_mapped:
        a = a.ipv4_mapped
    return str(a) if a.version == 4 else a.exploded.upper()


def iperf_keys(path):
    with open(path) as f:
        j = json.load(f)
    c = j["start"]["connected"][0]
    cli = (ttprobe_addr(c["local_host"]), c["local_port"])
    srv = (ttprobe_addr(c["remote_host"]), c["remote_port"])
    return cli + srv, srv + cli, j


def cmd_teacup(path, t0, t1, flows, absent):
    data = gzip.open(path, "rb").read()
    size = ctypes.sizeof(TcpLog)
    if size != 96:
        fail("ctypes struct tcp_log is %d bytes" % size)
    if not data:
        fail("%s is empty" % path)
    if len(data) % size:
        fail("%s: %d bytes, not a whole number of 96-byte records"
             % (path, len(data)))
    per = {}
    nrec = skipped = 0
    for off in range(0, len(data), size):
        r = TcpLog.from_buffer_copy(data, off)
        nrec += 1
        if r.direction not in (ord("i"), ord("o")):
            fail("record %d: direction %d" % (nrec - 1, r.direction))
        ts = r.tv_sec + r.tv_usec / 1e6
        if not 0 <= r.tv_usec < 1000000 or not float(t0) - 1 <= ts <= float(t1) + 1:
            fail("record %d: time %d.%06d outside [%s, %s] +- 1 s"
                 % (nrec - 1, r.tv_sec, r.tv_usec, t0, t1))
        if r.sock_state == TCP_SYN_SENT:
            skipped += 1
            continue
        key = (addr(r.src, r.addr_family), socket.ntohs(r.sport),
               addr(r.dst, r.addr_family), socket.ntohs(r.dport))
        per.setdefault(key, []).append(r)
    print("%s: %d records, %d flows, %d SYN_SENT rows skipped"
          % (path, nrec, len(per), skipped))
    for jpath in absent:
        for key in iperf_keys(jpath)[:2]:
            if key in per:
                fail("flow %s (before the open) is in the log" % (key,))
    for jpath in flows:
        skey, rkey, j = iperf_keys(jpath)
        sent = j["end"]["sum_sent"]["bytes"]
        received = j["end"]["sum_received"]["bytes"]
        retrans = j["end"]["sum_sent"].get("retransmits", 0)
        for role, key in (("sender", skey), ("receiver", rkey)):
            rows = per.get(key)
            if not rows:
                fail("%s flow %s not in the log" % (role, key))
            dirs = {chr(r.direction) for r in rows}
            if dirs != {"i", "o"}:
                fail("%s flow %s has only '%s' rows" % (role, key, "".join(dirs)))
        out = [r for r in per[skey] if r.direction == ord("o")]
        total = sum(r.length for r in out)
        hi = sent + 37 + retrans * 65536
        if not received <= total <= hi:
            fail("sender %s: 'o' lengths sum to %d, iperf3 sent %d, received %d, %d retransmits"
                 % (skey, total, sent, received, retrans))
        # 'i' lengths include the TCP header (at most 60 bytes a segment):
        # no more than what the sender transmitted, a resent segment at
        # most twice, so a record counted twice goes past the bound
        ins = [r for r in per[rkey] if r.direction == ord("i")]
        rtotal = sum(r.length for r in ins)
        rhi = hi + 60 * len(ins)
        if not received <= rtotal <= rhi:
            fail("receiver %s: 'i' lengths sum to %d, iperf3 received %d, "
                 "sent %d with %d retransmits (at most %d)"
                 % (rkey, rtotal, received, sent, retrans, rhi))
        cwnd = [r.snd_cwnd * r.mss_cache for r in out]
        rtt = [r.srtt / 1000.0 for r in out]
        if not all(c > 0 for c in cwnd) or max(rtt) <= 0:
            fail("sender %s: cwnd %d..%d bytes, RTT up to %.3f ms"
                 % (skey, min(cwnd), max(cwnd), max(rtt)))
        print("flow %s: %d 'o' rows, %d bytes (iperf3 sent %d, received %d), cwnd %d..%d bytes, RTT %.3f..%.3f ms"
              % (skey, len(out), total, sent, received, min(cwnd), max(cwnd),
                 min(rtt), max(rtt)))
    print("teacup ok")


def ttlines(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            rows.append([l.rstrip("\n").split(",") for l in f])
    return rows


def cmd_counter(first, paths):
    want = int(first)
    for p, rows in zip(paths, ttlines(paths)):
        if not rows:
            fail("%s is empty" % p)
        for n, r in enumerate(rows):
            if int(r[6]) != want:
                fail("%s line %d: field 7 is %s, want %d" % (p, n + 1, r[6], want))
            want += 1
        print("%s: field 7 runs %s..%s" % (p, rows[0][6], rows[-1][6]))
    print("counter ok")


def current_ssthresh(ssthresh, cwnd, ca_state):
    if ca_state in (TCP_CA_CWR, TCP_CA_RECOVERY):
        return ssthresh
    return max(ssthresh, (cwnd >> 1) + (cwnd >> 2))


def cmd_semantics(text, paths):
    with open(text) as f:
        head = f.readline().rstrip("\n").split("\t")
        mg = {}
        for l in f:
            r = dict(zip(head, l.rstrip("\n").split("\t")))
            if r["event"] not in ("tcp_out", "tcp_in"):
                continue
            key = ("o" if r["event"] == "tcp_out" else "i",
                   r["laddr"], r["lport"], r["raddr"], r["rport"])
            mg.setdefault(key, []).append(r)
    pos = {k: 0 for k in mg}
    seen = {"wrap": 0, "reduction": 0, "three_quarters": 0, "ssthresh": 0}
    n = 0
    for rows in ttlines(paths):
        for t in rows:
            key = (t[0], t[2], t[3], t[4], t[5])
            cand = mg.get(key, [])
            i = pos.get(key, 0)
            while i < len(cand) and not (
                    cand[i]["snd_una"] == t[14] and cand[i]["snd_nxt"] == t[15]
                    and cand[i]["len"] == t[16] and cand[i]["mss"] == t[7]
                    and cand[i]["srtt_us"] == t[8] and cand[i]["state"] == t[13]):
                i += 1
            if i == len(cand):
                fail("no magnet record for ttprobe line %s" % ",".join(t))
            pos[key] = i + 1
            m = cand[i]
            mss, cwnd, ss, ca = (int(m["mss"]), int(m["cwnd"]),
                                 int(m["ssthresh"]), int(m["ca_state"]))
            f10 = (cwnd * mss) & 0xffffffff
            cur = current_ssthresh(ss, cwnd, ca)
            f11 = (cur * mss) & 0xffffffff
            if int(t[9]) != f10 or int(t[10]) != f11:
                fail("line %s: fields 10, 11 = %s, %s; want %d, %d (cwnd %d, ssthresh %d, ca_state %d, mss %d)"
                     % (",".join(t), t[9], t[10], f10, f11, cwnd, ss, ca, mss))
            if ss == 0x7fffffff:
                seen["wrap"] += 1
            elif ca in (TCP_CA_CWR, TCP_CA_RECOVERY):
                seen["reduction"] += 1
            elif cur != ss:
                seen["three_quarters"] += 1
            else:
                seen["ssthresh"] += 1
            n += 1
    print("semantics: %d ttprobe lines matched; ssthresh rule: %s"
          % (n, ", ".join("%s %d" % kv for kv in sorted(seen.items()))))
    missing = [k for k in ("wrap", "reduction", "three_quarters") if not seen[k]]
    if missing:
        fail("branches of the ssthresh rule never seen: %s" % ", ".join(missing))
    print("semantics ok")


def main(argv):
    if len(argv) < 3:
        fail(__doc__)
    cmd, a = argv[1], argv[2:]
    if cmd == "teacup":
        flows = [a[i + 1] for i in range(3, len(a) - 1) if a[i] == "--flow"]
        absent = [a[i + 1] for i in range(3, len(a) - 1) if a[i] == "--absent"]
        cmd_teacup(a[0], a[1], a[2], flows, absent)
    elif cmd == "counter":
        cmd_counter(a[0], a[1:])
    elif cmd == "semantics":
        cmd_semantics(a[0], a[1:])
    else:
        fail("unknown check " + cmd)


if __name__ == "__main__":
    main(sys.argv)
