#!/usr/bin/env python3
"""make demo's Wireshark check (scripts/demo.sh): per run of a magnet-exp
directory, the sender's device packets exported as pcapng (ttpb2ascii -f
pcapng -n SENDER'S-NETNS -L dev: one host, one interface), read by tshark:
the data segments the sender sent again (Wireshark's expert info calls a
segment below the highest sequence sent a retransmission, a fast
retransmission, a spurious retransmission or, sent soon after the one
before, out-of-order) must be as many as the analysis's retransmits (the
sender's tcp_info total_retrans in its last TCP record), on the data
connection (iperf3's busiest). Also how many
interfaces the all-hosts export has (one per namespace and device).

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


def main(d):
    tool = os.environ.get("MAGNET_TTPB2ASCII", "ttpb2ascii")
    with open(os.path.join(d, "summary.json")) as f:
        runs = json.load(f)["runs"]
    with open(os.path.join(d, "topology.json")) as f:
        hosts = {v.split(" ")[0]: k for k, v in
                 json.load(f)["netns_hosts"].items()}
    port = 5201
    bad = 0
    tmp = tempfile.mkdtemp()
    for r in runs:
        log = os.path.join(d, r["log"])
        one = os.path.join(tmp, "sender.pcapng")
        subprocess.run([tool, "-f", "pcapng", "-n", hosts["sender"], "-L",
                        "dev", "-o", one, log], check=True)
        rows = [x.split("\t") for x in tshark(
            one, "-Y", "tcp.dstport == %d && tcp.len > 0" % port, "-T",
            "fields", "-e", "frame.interface_name", "-e", "tcp.srcport",
            *sum((["-e", a] for a in AGAIN), []))]
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
        allhosts = os.path.join(tmp, "all.pcapng")
        subprocess.run([tool, "-f", "pcapng", "-o", allhosts, log],
                       check=True)
        names = sorted(set(tshark(allhosts, "-T", "fields", "-e",
                                  "frame.interface_name")))
        want = r["metrics"]["retransmits"]
        ok = want is not None and again == want and len(ifaces) == 1
        bad += not ok
        print("%s #%d: Wireshark on the sender's device (%s): %d data "
              "segments sent again (%d retransmissions, %d of them fast, "
              "%d spurious, %d out-of-order); the analysis: %s "
              "retransmits%s" % (
                  r["variant"], r["repetition"], ", ".join(sorted(ifaces)),
                  again, kinds[0], kinds[1], kinds[2], kinds[3], want,
                  "" if ok else ": THEY DIFFER"))
        print("  the all-hosts export: %d interfaces (%s)" % (
            len(names), ", ".join(names)))
        os.unlink(one)
        os.unlink(allhosts)
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
