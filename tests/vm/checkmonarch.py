#!/usr/bin/python3
"""Assertions on one Monarch flow (magnet-exp monarch, case_monarch).

  checkmonarch.py flow DIR LOG REMOTE_ANSWERS MIN_BYTES
      DIR: magnet-exp monarch -o DIR; LOG: magnet's text log (omode=3) of
      the flow; REMOTE_ANSWERS: the answers the remote's own counters say
      it sent (nstat: TcpOutRsts, or IcmpOutMsgs, after minus before). The flow moved at least
      MIN_BYTES (iperf3) with no error and a clean teardown; the answers
      the trace saw (responses and unmatched ones) plus the check's equal
      REMOTE_ANSWERS (no loss on the way back: every answer sent arrives);
      every packet of the trace's probes was answered or expired, none
      both; the sender's TCP events in LOG (its namespace's inode from
      monarch.json) show the cwnd and the smoothed RTT taking at least 5
      values each, and the receiver's namespace has TCP events too; tshark
      (if installed) reads probes.pcapng: a frame per probe, of the size
      and with the TCP sequence number the trace says, and per answer.

Exits non-zero with a reason on the first failed assertion.
"""
import json
import re
import shutil
import subprocess
import sys


def fail(msg):
    print("checkmonarch: FAIL: " + msg)
    sys.exit(1)


def cmd_flow(d, log, answers, min_bytes):
    s = json.load(open(d + "/monarch.json"))
    if s.get("error"):
        fail("the run failed: %s" % s["error"])
    if s.get("teardown_errors"):
        fail("teardown: %s" % s["teardown_errors"])
    if s["bytes"] < min_bytes:
        fail("%d bytes moved, not %d" % (s["bytes"], min_bytes))
    m = re.search(r"(\d+) of 3 answered", s["check"])
    if not m:
        fail("no check result in %r" % s["check"])
    checked = int(m.group(1))
    probes, answered, expired, unmatched = {}, set(), set(), 0
    with open(d + "/trace.txt") as f:
        head = None
        for line in f:
            if line.startswith("#"):
                continue
            w = line.rstrip("\n").split("\t")
            if head is None:
                head = w
                continue
            r = dict(zip(head, w))
            if r["event"] == "probe":
                probes[r["key"]] = r
            elif r["event"] == "response":
                answered.add(r["key"])
            elif r["event"] == "expired":
                expired.add(r["key"])
            elif r["event"] == "unmatched":
                unmatched += 1
    if not probes:
        fail("no probe in the trace")
    if answered & expired:
        fail("answered and expired: %s" % sorted(answered & expired)[:5])
    if set(probes) != answered | expired:
        fail("%d probes neither answered nor expired"
             % len(set(probes) - answered - expired))
    seen = len(answered) + unmatched + checked
    if seen != answers:
        fail("the trace saw %d answers (%d responses, %d unmatched, %d of "
             "the check), the remote sent %d" % (seen, len(answered),
                                                 unmatched, checked,
                                                 answers))
    # the pcapng, read by tshark: a frame per probe and per answer, each
    # probe the size the trace says, its comment naming its key
    if shutil.which("tshark"):
        r = subprocess.run(
            ["tshark", "-r", d + "/probes.pcapng", "-T", "fields", "-e",
             "frame.len", "-e", "frame.comment"], stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True, check=True)
        got_p, got_a = {}, 0
        for l in r.stdout.splitlines():
            ln, com = (l.split("\t") + [""])[:2]
            m = re.match(r"probe (\d+) for the held packet of TCP seq (\d+)",
                         com)
            if m:
                got_p[m.group(1)] = (int(ln), m.group(2))
            elif com.startswith("answer to probe "):
                got_a += 1
        want_p = {k: (int(v["wire_len"]), v["seq"]) for k, v in probes.items()}
        if got_p != want_p:
            fail("the pcapng's probes differ from the trace's: %d and %d, "
                 "first differing %s" % (
                     len(got_p), len(want_p),
                     sorted(set(got_p.items()) ^ set(want_p.items()))[:2]))
        if got_a != len(answered) + unmatched:
            fail("the pcapng has %d answers, the trace %d"
                 % (got_a, len(answered) + unmatched))
        pcap = "; pcapng: %d probes, %d answers" % (len(got_p), got_a)
    else:
        pcap = "; no tshark: pcapng not read"
    ns = s["namespaces"]
    lines = open(log).read().splitlines()
    head = lines[0].split("\t")
    cw, rtt, rcv = set(), set(), 0
    for l in lines[1:]:
        r = dict(zip(head, l.split("\t")))
        if r["event"] not in ("tcp_out", "tcp_in"):
            continue
        if r["netns"] == str(ns["sender_netns"]):
            cw.add(r["cwnd"])
            rtt.add(r["srtt_us"])
        elif r["netns"] == str(ns["receiver_netns"]):
            rcv += 1
    if len(cw) < 5 or len(rtt) < 5:
        fail("the sender's TCP events show %d cwnd and %d srtt values"
             % (len(cw), len(rtt)))
    if not rcv:
        fail("no TCP event of the receiver's namespace")
    print("monarch ok: %s, %d bytes, %.3f Mbit/s, %d probes, %d answered, "
          "%d expired, %d unmatched, remote %d answers; sender cwnd %d "
          "values (%s..%s), srtt %d values%s"
          % (s["probe"], s["bytes"], s["mbps"], len(probes), len(answered),
             len(expired), unmatched, answers, len(cw),
             min(cw, key=int), max(cw, key=int), len(rtt), pcap))


def main(argv):
    if len(argv) == 6 and argv[1] == "flow":
        cmd_flow(argv[2], argv[3], int(argv[4]), int(argv[5]))
    else:
        print(__doc__)
        sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
