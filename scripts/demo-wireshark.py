#!/usr/bin/env python3
"""make demo's Wireshark check (scripts/demo.sh): per run of a magnet-exp
directory, the sender's device packets exported as pcapng (ttpb2ascii -f
pcapng -n SENDER'S-NETNS -L dev: one host, one interface), read by tshark:
the data segments the sender sent again (Wireshark's expert info calls a
segment below the highest sequence sent a retransmission, a fast
retransmission, a spurious retransmission or, sent soon after the one
before, out-of-order) must be as many as the analysis's retransmits (the
sender's tcp_info total_retrans in its last TCP record), on the data
connection (iperf3's busiest). Then every device's own file, those
magnet-exp report --pcapng left in <run>.analysis/pcapng/ (ttpb2ascii
-f pcapng --split --events: one file per namespace and device, as
Wireshark must get them: it merges a file's interfaces, and takes a
packet's copy on another one for a retransmission; and each namespace's
events, which are no packets and are not counted here): on the sender's and the router's
devices, which every data segment passes, the segments whose sequence
range came before in the same file must be as many (Wireshark's flags
are shown: a veth reorders packets across CPUs, which it calls
out-of-order), less, on a device whose outgoing packets are its
wire_out events (events=wire: where it hands them to its driver, after
its qdisc), the data segments of the connection its qdisc dropped there
(drop_out events): those never left it; the receiver's are shown (what
the path lost never reached it).
Then each device the run's <run>_qdisc.txt gives tc's counters of (the
router's): the packets the analysis says left it ("Through each device,
to the wire": its wire_out events) must be tc's sent packets, less at
most NONTCP that are not TCP (magnet records TCP only; 3 on each of the
router's devices in a demo run: its ARP and IPv6 neighbour discovery),
and on a device whose netem delays every packet, the time
from taking a packet in (dev_out) to handing it to the driver must be at
least that delay for 90% of the packets (p10).

usage: demo-wireshark.py EXPDIR   (MAGNET_TTPB2ASCII: the ttpb2ascii)
exit 0 if every run agrees, 1 if one does not, 2 on a missing file or tool
"""
import json
import os
import re
import subprocess
import sys
import tempfile

NONTCP = 6

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


def log_rows(tool, log):
    """the magnet text of @log, as dicts"""
    out = subprocess.run([tool, "-f", "magnet", log], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    head = out[0].split("\t")
    return [dict(zip(head, x.split("\t"))) for x in out[1:]]


def tc_counts(path):
    """device -> (sent packets, netem delay in s or 0) of each root qdisc
    in `tc -s qdisc` output @path"""
    out, dev = {}, None
    with open(path) as f:
        for line in f:
            m = re.match(r"qdisc (\S+) \S+ dev (\S+) root", line)
            if m:
                dev = m.group(2)
                dl = re.search(r" delay ([0-9.]+)(us|ms|s)\b", line)
                k = {"us": 1e-6, "ms": 1e-3, "s": 1.0}
                delay = float(dl.group(1)) * k[dl.group(2)] if dl else 0.0
                continue
            m = re.match(r"\s*Sent \d+ bytes (\d+) pkt", line)
            if m and dev:
                out[dev] = (int(m.group(1)), delay)
                dev = None
    return out


def egress(d, r, topo):
    """the analysis's packets that left each device of the run's
    qdisc.txt, against tc's; True if they agree"""
    base = r["log"][:-len("_magnet.bin.gz")]
    qd = os.path.join(d, base + "_qdisc.txt")
    with open(os.path.join(d, base + "_magnet.analysis",
                           "verdict.json")) as f:
        rows = json.load(f).get("devices_out") or []
    ok = True
    if not rows:
        print("  no device has wire_out events (events=wire): "
              "THE ROUTER'S EGRESS IS NOT KNOWN")
        return False
    for dev, (sent, delay) in sorted(tc_counts(qd).items()):
        t = topo["devices"].get(dev)
        if not t:
            continue
        row = [x for x in rows if str(x["device"]) == str(t["ifindex"]) and
               "(%s)" % t["netns"] in (x["host"] or "")]
        if not row:
            print("  %s: tc sent %d packets; no wire_out event: DIFFERS" %
                  (dev, sent))
            ok = False
            continue
        x = row[0]
        good = x["left"] <= sent <= x["left"] + NONTCP
        waited = x["p10_us"] is not None and x["p10_us"] >= delay * 1e6
        ok = ok and good and waited
        print("  %s: tc sent %d packets; the analysis: %d left it (wire_out), "
              "%d taken in (dev_out); from taking one in to its leaving: "
              "p10 %s ms, p50 %s ms (netem's delay %.1f ms)%s" % (
                  dev, sent, x["left"], x["taken_in"],
                  _ms(x["p10_us"]), _ms(x["p50_us"]), delay * 1e3,
                  "" if good and waited else ": THEY DIFFER"))
    return ok


def plugin_line(path, cwnd_max):
    """what the plugin (wireshark/magnet.lua) makes of the sender's file:
    the packets that carry the kernel's state, those whose congestion
    window exceeded 50 segments, the largest; shown, not checked (the
    unit suite's checkwireshark.py holds every field to the magnet text)"""
    lua = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "wireshark", "magnet.lua")
    p = subprocess.run(["tshark", "-X", "lua_script:" + lua, "-r", path,
                        "-Y", "magnet.cwnd", "-T", "fields", "-e",
                        "magnet.cwnd"], capture_output=True, text=True)
    if p.returncode:
        print("    the plugin: tshark did not load it (%s)" % (
            p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[0])
        return
    cw = [int(x) for x in p.stdout.split()]
    print("    with the plugin (tshark -X lua_script:wireshark/magnet.lua "
          "-Y 'magnet.cwnd > 50' counts them): %d of its %d packets with "
          "the sender's state have a cwnd above 50 segments, the largest %s (the "
          "analysis's largest over all its TCP records: %s)" % (
              sum(x > 50 for x in cw), len(cw), max(cw) if cw else "-",
              cwnd_max))


def _ms(us):
    return "-" if us is None else "%.2f" % (us / 1e3)


def main(d):
    tool = os.environ.get("MAGNET_TTPB2ASCII", "ttpb2ascii")
    with open(os.path.join(d, "summary.json")) as f:
        runs = json.load(f)["runs"]
    with open(os.path.join(d, "topology.json")) as f:
        topo = json.load(f)
    names = topo["netns_hosts"]
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
        # the connection's data segments dropped at each device, and
        # whether the log has wire_out events (then those never left)
        text = log_rows(tool, log)
        wire = any(x["event"] == "wire_out" for x in text)
        dropped = {}
        for x in text:
            if x["event"] == "drop_out" and x["lport"] == data and \
                    x["seq"] != x["end_seq"] and x["ifindex"]:
                k = (x["netns"], x["ifindex"])
                dropped[k] = dropped.get(k, 0) + 1
        if not r.get("pcapng"):
            raise ValueError("%s: no pcapng files (magnet-exp report "
                             "--pcapng writes them)" % r["log"])
        split = os.path.join(d, r["pcapng"])
        with open(os.path.join(split, "files.txt")) as f:
            listing = [x.split("\t")[0] for x in f if not x.startswith("#")]
        for name in listing:
            if name.endswith("-events.pcapng"):
                continue
            path = os.path.join(split, name)
            ns, ifn = name[:-len(".pcapng")].split("-")
            ns, ifn = ns[2:], ifn[2:]
            host = names.get(ns, "netns " + ns)
            role = host.split(" ")[0]
            n = copies(path, port, data)
            if role == "sender":
                plugin_line(path, r["metrics"].get("cwnd_max"))
            gone = dropped.get((ns, ifn), 0) if wire else 0
            must = role in ("sender", "router")
            good = want is not None and (n + gone == want or not must)
            ok = ok and good
            print("  %s, its own file (%s): %d copies of a segment (%d "
                  "flagged by Wireshark)%s%s" % (
                      host, os.path.basename(path), n,
                      len(data_again(path, port, data)),
                      ", %d dropped there before they left" % gone
                      if gone else "",
                      "" if good else ": DIFFERS FROM THE ANALYSIS'S %s"
                      % want))
        ok = egress(d, r, topo) and ok
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
