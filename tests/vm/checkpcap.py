#!/usr/bin/env python3
"""Check `ttpb2ascii -f pcapng -d out` of a capture against the capture's
own records, with tshark (case_pcapng, tests/vm/cases/40-packets.sh).

usage: checkpcap.py clean|lossy LOG.txt FILE.pcapng

LOG.txt is `ttpb2ascii -f magnet` of the capture (the stable text
interface). Every dev_out record must be one packet; per TCP flow (source
and destination port) tshark must count as many packets and bytes as the
dev_out records, and `-z conv,tcp` as many frames and bytes (to its
rounding). Both: per flow, the retransmissions tshark finds equal the
socket's total_retrans in magnet's TCP records. clean: tshark's TCP
analysis finds no lost segment, unseen ACK or out-of-order segment other
than a retransmission (the kernel may still retransmit on a clean path, a
tail loss probe or a timeout under emulation: total_retrans says so).
lossy: there are retransmissions.
"""
import collections
import subprocess
import sys


def fail(msg):
    print("checkpcap: FAIL: " + msg)
    sys.exit(1)


def tshark(*args):
    r = subprocess.run(["tshark"] + list(args), capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("tshark %s: exit %d: %s" % (" ".join(args), r.returncode,
                                         r.stderr.strip()[-300:]))
    return r.stdout


def main():
    mode, log, pcap = sys.argv[1:4]
    if mode not in ("clean", "lossy"):
        fail("mode %r" % mode)
    pkts = collections.Counter()
    pbytes = collections.Counter()
    retrans = collections.Counter()
    with open(log) as f:
        cols = f.readline().rstrip("\n").split("\t")
        ix = {c: i for i, c in enumerate(cols)}
        for line in f:
            r = line.rstrip("\n").split("\t")
            ev = r[ix["event"]]
            if ev in ("lost", "reset"):
                fail("the capture has a %s record: not a complete trace" % ev)
            key = (int(r[ix["lport"]]), int(r[ix["rport"]]))
            if ev == "dev_out":
                pkts[key] += 1
                pbytes[key] += int(r[ix["len"]])
            elif ev in ("tcp_out", "tcp_in"):
                retrans[key] = max(retrans[key], int(r[ix["total_retrans"]]))
    if not pkts:
        fail("no dev_out records in %s" % log)

    fields = ["frame.len", "tcp.srcport", "tcp.dstport",
              "tcp.analysis.retransmission",
              "tcp.analysis.fast_retransmission",
              "tcp.analysis.spurious_retransmission",
              "tcp.analysis.lost_segment", "tcp.analysis.ack_lost_segment",
              "tcp.analysis.out_of_order", "frame.comment",
              "tcp.analysis.keep_alive", "tcp.seq_raw", "tcp.len"]
    out = tshark("-r", pcap, "-T", "fields", "-E", "separator=\t",
                 *sum((["-e", x] for x in fields), []))
    tpkts = collections.Counter()
    tbytes = collections.Counter()
    tretrans = collections.Counter()
    broken = collections.Counter()
    commented = collections.Counter()
    sent = {}       # per flow: the end of the data sent so far (mod 2^32)
    for line in out.splitlines():
        v = (line.split("\t") + [""] * len(fields))[:len(fields)]
        key = (int(v[1] or 0), int(v[2] or 0))
        tpkts[key] += 1
        tbytes[key] += int(v[0])
        seq, n = int(v[11] or 0), int(v[12] or 0)
        # tshark's heuristics also call a retransmission "out-of-order"
        # (seen on the sender, shortly after the segments above it) or
        # "keep-alive" (one byte at the highest sequence sent; Linux's
        # keep-alives carry none, and iperf3 enables none): with data
        # already sent before in this flow, it is a retransmission
        d = (seq + n - sent.get(key, 0)) % 2**32
        old = key in sent and n and (d == 0 or d >= 2**31)
        if v[3] or v[4] or v[5] or ((v[8] or v[10]) and old):
            tretrans[key] += 1
        if n and (key not in sent or
                  (seq + n - sent[key]) % 2**32 < 2**31):
            sent[key] = (seq + n) % 2**32
        for i, name in ((6, "lost_segment"), (7, "ack_lost_segment"),
                        (8, "out_of_order")):
            if v[i] and not (i == 8 and old):
                broken[name] += 1
        if "cwnd " in v[9]:
            commented[key] += 1
    total = sum(pkts.values())
    if sum(tpkts.values()) != total:
        fail("tshark reads %d packets, the log has %d dev_out records"
             % (sum(tpkts.values()), total))
    for key in pkts:
        if tpkts[key] != pkts[key] or tbytes[key] != pbytes[key]:
            fail("flow %d -> %d: tshark %d packets %d bytes, magnet %d %d"
                 % (key + (tpkts[key], tbytes[key], pkts[key], pbytes[key])))
        if not commented[key]:
            fail("flow %d -> %d: no packet carries the TCP state comment"
                 % key)
    print("checkpcap: %d packets in %d flows, packets and bytes per flow as "
          "recorded" % (total, len(pkts)))

    # -z conv,tcp: frames per conversation, both directions together
    conv = tshark("-r", pcap, "-q", "-z", "conv,tcp")
    nconv = 0
    for line in conv.splitlines():
        t = line.split()
        if len(t) < 9 or t[1] != "<->":
            continue
        a, b = t[0].rsplit(":", 1)[1], t[2].rsplit(":", 1)[1]
        want = pkts[(int(a), int(b))] + pkts[(int(b), int(a))]
        if int(t[9].replace(",", "")) != want:
            fail("conv,tcp %s: %s frames, magnet %d" % (line, t[9], want))
        # total bytes, which tshark 4.0 shows in SI units ("70 kB"): the
        # same to within that unit's rounding
        wbytes = pbytes[(int(a), int(b))] + pbytes[(int(b), int(a))]
        unit = {"bytes": 1, "kB": 10**3, "MB": 10**6, "GB": 10**9}.get(t[11])
        if unit is None or abs(wbytes / unit - int(t[10].replace(",", ""))) >= 1:
            fail("conv,tcp %s: %s %s, magnet %d bytes"
                 % (line, t[10], t[11], wbytes))
        nconv += 1
    if nconv != len({tuple(sorted(k)) for k in pkts}):
        fail("conv,tcp lists %d conversations, magnet %d"
             % (nconv, len({tuple(sorted(k)) for k in pkts})))
    print("checkpcap: conv,tcp: %d conversations, frames and bytes as "
          "recorded" % nconv)

    flows = [k for k in pkts if retrans[k] or tretrans[k]]
    for key in flows:
        if tretrans[key] != retrans[key]:
            fail("flow %d -> %d: tshark finds %d retransmissions, magnet's "
                 "total_retrans is %d" % (key + (tretrans[key], retrans[key])))
        print("checkpcap: flow %d -> %d: %d retransmissions in tshark and in "
              "total_retrans" % (key + (retrans[key],)))
    if mode == "clean":
        if broken:
            fail("tshark's TCP analysis on a clean transfer: %s"
                 % dict(broken))
        print("checkpcap: clean: no lost segment, unseen ACK or out-of-order "
              "segment; %d retransmissions, as total_retrans"
              % sum(tretrans.values()))
    elif not flows:
        fail("lossy: no retransmission at all")


if __name__ == "__main__":
    main()
