#!/usr/bin/env python3
"""make demo's Wireshark check (scripts/demo.sh): per run of a magnet-exp
directory, the sender's device packets exported as pcapng (ttpb2ascii -f
pcapng -n SENDER'S-NETNS -L dev: one host, one interface), read by tshark:
the data segments the sender sent again (Wireshark's expert info calls a
segment below the highest sequence sent a retransmission, a fast
retransmission, a spurious retransmission or, sent soon after the one
before, out-of-order) must be as many as the analysis's retransmits (the
sender's tcp_info total_retrans in its last TCP record), on the data
connection (iperf3's busiest). Then every device's own file (ttpb2ascii
-f pcapng --split: one file per namespace and device, as Wireshark must
get them: it merges a file's interfaces, and takes a packet's copy on
another one for a retransmission): on the sender's and the router's
devices, which every data segment passes (the router's egress records a
packet before its qdisc), the segments whose sequence range came before
in the same file must be as many (Wireshark's flags are shown: a veth
reorders packets across CPUs, which it calls out-of-order); the
receiver's are shown (what the path lost never reached it).

usage: demo-wireshark.py EXPDIR   (MAGNET_TTPB2ASCII: the ttpb2ascii)
exit 0 if every run agrees, 1 if one does not, 2 on a missing file or tool
"""
import json
import os
import subprocess
import sys
import tempfile

AGAIN = ("tcp.analysis.retransmission", "tcp.analysis.fast_retransmission",
         "tcp.analysis.spurious_retransmission", "tcp.analysis.out_of_order")


def tshark(path, *args):
    return subprocess.run(["tshark", "-r", path] + list(args),
                          capture_output=True, text=True,
                          check=True).stdout.splitlines()


def data_rows(path, port):
    """the data segments to @port in the pcapng file @path: interface,
    source port, and Wireshark's flags of AGAIN"""
    return [x.split("\t") for x in tshark(
        path, "-Y", "tcp.dstport == %d && tcp.len > 0" % port, "-T",
        "fields", "-e", "frame.interface_name", "-e", "tcp.srcport",
        *sum((["-e", a] for a in AGAIN), []))]


def data_again(path, port, sport):
    """the data segments from @sport to @port that Wireshark says were sent
    again, in @path"""
    return [x for x in data_rows(path, port) if x[1] == sport and any(x[2:])]


def copies(path, port, sport):
    """the data segments from @sport to @port in @path whose sequence
    range came before in the same file: the copies a device saw, which
    reordering (Wireshark's out-of-order) does not add to"""
    seen, n = set(), 0
    for x in tshark(path, "-Y", "tcp.dstport == %d && tcp.srcport == %s && "
                    "tcp.len > 0" % (port, sport), "-T", "fields", "-e",
                    "tcp.seq_raw", "-e", "tcp.len"):
        n += x in seen
        seen.add(x)
    return n


def main(d):
    tool = os.environ.get("MAGNET_TTPB2ASCII", "ttpb2ascii")
    with open(os.path.join(d, "summary.json")) as f:
        runs = json.load(f)["runs"]
    with open(os.path.join(d, "topology.json")) as f:
        names = json.load(f)["netns_hosts"]
    hosts = {v.split(" ")[0]: k for k, v in names.items()}
    port = 5201
    bad = 0
    tmp = tempfile.mkdtemp()
    for r in runs:
        log = os.path.join(d, r["log"])
        one = os.path.join(tmp, "sender.pcapng")
        subprocess.run([tool, "-f", "pcapng", "-n", hosts["sender"], "-L",
                        "dev", "-o", one, log], check=True)
        rows = data_rows(one, port)
        ifaces = {x[0] for x in rows}
        # the data connection: the one that sent the most segments (not
        # iperf3's control connection)
        ports = [x[1] for x in rows]
        data = max(set(ports), key=ports.count) if ports else None
        kinds = [0] * len(AGAIN)
        again = 0
        for x in rows:
            if x[1] != data:
                continue
            f = x[2:]
            again += any(f)
            for i, v in enumerate(f):
                kinds[i] += bool(v)
        want = r["metrics"]["retransmits"]
        ok = want is not None and again == want and len(ifaces) == 1
        print("%s #%d: Wireshark on the sender's device (%s): %d data "
              "segments sent again (%d retransmissions, %d of them fast, "
              "%d spurious, %d out-of-order); the analysis: %s "
              "retransmits%s" % (
                  r["variant"], r["repetition"], ", ".join(sorted(ifaces)),
                  again, kinds[0], kinds[1], kinds[2], kinds[3], want,
                  "" if ok else ": THEY DIFFER"))
        split = os.path.join(tmp, "split")
        listing = subprocess.run([tool, "-f", "pcapng", "--split", split,
                                  log], capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        for line in listing:
            path = line.split("\t")[0]
            ns = os.path.basename(path).split("-")[0][2:]
            host = names.get(ns, "netns " + ns)
            n = copies(path, port, data)
            must = host.split(" ")[0] in ("sender", "router")
            good = n == want or not must
            ok = ok and good
            print("  %s, its own file (%s): %d copies of a segment (%d "
                  "flagged by Wireshark)%s" % (
                      host, os.path.basename(path), n,
                      len(data_again(path, port, data)),
                      "" if good else ": DIFFERS FROM THE ANALYSIS'S %s"
                      % want))
            os.unlink(path)
        os.rmdir(split)
        bad += not ok
        os.unlink(one)
    os.rmdir(tmp)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        sys.exit(2)
    try:
        sys.exit(main(sys.argv[1]))
    except (OSError, KeyError, ValueError,
            subprocess.CalledProcessError) as e:
        print("demo-wireshark: %s" % e, file=sys.stderr)
        sys.exit(2)
