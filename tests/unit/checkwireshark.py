#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""checkwireshark.py TTPB2ASCII PLUGIN LOG WORKDIR [--drops] [--events] [--queues]

wireshark/magnet.lua against the magnet text (check.sh): LOG exported with
`ttpb2ascii -f pcapng -L ip,dev --split` (and --drops), each file read by
tshark with the plugin, and every magnet.* field of every packet held to
what `ttpb2ascii -f magnet LOG` says of the same moment:

- the state fields: those of the packet's flow's latest TCP-layer record
  before it (same namespace, same addresses and ports as the packet's
  record), found at the packet's time minus magnet.age_ns; each field
  equal, as text, to that record's column of the same name (state and
  ca_state their numbers, ca_name its name), and absent where the column
  is empty; magnet.in_flight packets_out - sacked_out - lost_out +
  retrans_out of that record, magnet.cwnd_bytes its cwnd * mss;
- magnet.pid and magnet.comm: the flow's latest app_send or app_recv
  before the packet;
- a dropped packet's magnet.drop_reason and magnet.drop_where: its own
  record's columns;
- the gap fields: the LOST and RESET records between the file's previous
  packet and this one (before a file's first packet: since the log's
  start), their counts summed and their CPUs listed;
- magnet.layer, magnet.netns, magnet.ifindex: the packet record's;
- with --events, each event that is no packet on the wire (retrans, rto,
  tlp, state, cong_state, rcvbuf, rto_end, qdisc, qdisc_enq, drops without
  --drops)
  a record of its namespace's events interface, at its time, every
  field the magnet text's column of the same name in its line; a qdisc
  event's magnet.qdisc_sojourn_ns its time less that of the earliest
  qdisc_enq event not yet matched of the same device and packet
  (addresses, ports, sequence range, IP id) on the same interface;
- with --queues, those sojourns per device as many as the rows
  magnet-exp analyse's queues table measured from the enqueue, and their
  mean its mean (another implementation: python/magnet_exp/analyse.py);
- tshark's io,stat AVG(magnet.cwnd) per 100 ms: the mean over those
  packets' records, truncated as Wireshark does (checked both ways);
- without the plugin, tshark reads every file with exit 0, nothing on
  its standard error and no malformed packet; with it, no Lua error.

Prints a FAIL line per mismatch, then "checkwireshark: N passed, N failed";
exits 1 if any failed.
"""
import json
import os
import subprocess
import sys

import tally

TCP_LAYER = {"tcp_out", "tcp_in", "app_send", "app_recv", "retrans", "rto",
             "tlp", "state", "cong_state", "rcvbuf", "rto_end"}
PACKETS = {"ip_out", "ip_in", "dev_out", "dev_in", "wire_out", "drop_out",
           "drop_in"}
# the plugin's fields that are the magnet text's columns of the state
# record (docs/wireshark.md)
STATE_COLS = (
    "state ca_state ca_name cwnd ssthresh srtt_us rttvar_us rto_us mss "
    "snd_una snd_nxt snd_wnd rcv_wnd packets_out retrans_out total_retrans "
    "write_seq copied_seq rcv_nxt segs_out data_segs_out segs_in "
    "data_segs_in bytes_sent bytes_received bytes_acked bytes_retrans "
    "min_rtt_us rtt_us advmss snd_wscale rcv_wscale opts pacing_rate "
    "delivery_rate delivered delivered_ce lost_out sacked_out app_limited "
    "bbr_bw bbr_min_rtt bbr_pacing_gain bbr_cwnd_gain chrono chrono_us "
    "busy_us rwnd_limited_us sndbuf_limited_us reordering reord_seen "
    "dsack_dups").split()
OTHER = ("event age_ns cwnd_bytes in_flight pid comm drop_reason drop_where gap_lost "
         "gap_misses gap_reset gap_cpus layer netns ifindex "
         "qdisc_sojourn_ns").split()
# an event's own columns (--events)
EVENT_COLS = ("cpu family lport rport len seq end_seq mark timeouts ip_id "
              "ip_tos ip_ttl ip_proto qdisc_qlen qdisc_backlog rcvbuf "
              "rcvbuf_before window_clamp window_clamp_before rcv_ssthresh "
              "rcv_space rcv_rtt_us total_rto total_rto_recoveries "
              "total_rto_time rto_recovery_ms sock "
              "laddr raddr prev_state kind qdisc "
              "qdisc_handle").split()
EVENTS = {"retrans", "rto", "tlp", "state", "cong_state", "rcvbuf",
          "rto_end", "qdisc", "qdisc_enq", "drop_out", "drop_in"}
FIELDS = STATE_COLS + OTHER + EVENT_COLS

T = tally.Tally("checkwireshark")
check = T.check
# the qdisc events given a sojourn (expected())
sojourns = 0


def ns_of(t):
    """'1700000000.123456789' as integer nanoseconds"""
    sec, _, frac = t.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def text_rows(tt, log):
    out = subprocess.run([tt, "-f", "magnet", log], capture_output=True,
                         text=True, check=True).stdout.splitlines()
    cols = out[0].split("\t")
    return [dict(zip(cols, line.split("\t"))) for line in out[1:]]


def flow(r):
    return (r["netns"], r["family"], r["laddr"], r["lport"], r["raddr"],
            r["rport"])


def iface_name(r):
    """the pcapng interface the packet record goes to (pcapw.c, iface)"""
    pre = "ns%s:" % r["netns"] if r["netns"] else ""
    if r["event"] in ("ip_out", "ip_in") or (
            r["event"].startswith("drop_") and not r["ifindex"]):
        return pre + "ip"
    return pre + "if" + r["ifindex"]


def event_want(r):
    """what the plugin must give of the event @r on its namespace's
    events interface: every column the comment carries, as the text has
    it"""
    want = dict.fromkeys(FIELDS)
    for c in STATE_COLS + EVENT_COLS + ["drop_reason", "drop_where",
                                        "ifindex", "pid", "comm"]:
        want[c] = r.get(c) or None
    want["event"] = r["event"]
    want["layer"] = "events"
    want["netns"] = r["netns"] or None
    want["_time"] = ns_of(r["time"])
    return want


def packet_want(r, name, s, who):
    """what the plugin must give of the packet @r on the interface @name:
    the state of its flow's latest TCP-layer line @s (or None), the
    last application call's (pid, comm) @who (or None), a drop's reason
    and function, where it was"""
    want = dict.fromkeys(FIELDS)
    if s:
        want["event"] = s["event"]
        want["age_ns"] = str(ns_of(r["time"]) - ns_of(s["time"]))
        for c in STATE_COLS:
            want[c] = s[c] or None
        if s["cwnd"] and s["mss"]:
            want["cwnd_bytes"] = str(int(s["cwnd"]) * int(s["mss"]))
        if s["sacked_out"] and s["lost_out"]:
            want["in_flight"] = str(
                int(s["packets_out"]) - int(s["sacked_out"]) -
                int(s["lost_out"]) + int(s["retrans_out"]))
        if who:
            want["pid"], want["comm"] = who[0], who[1] or None
    if r["event"].startswith("drop_"):
        want["drop_reason"] = r["drop_reason"] or "unknown"
        want["drop_where"] = r["drop_where"]
    want["layer"] = "ip" if name.endswith(":ip") or name == "ip" \
        else "dev"
    want["netns"] = r["netns"] or None
    want["ifindex"] = r["ifindex"] if want["layer"] == "dev" else None
    want["_time"] = ns_of(r["time"])
    return want


def no_gap():
    return {"lost": 0, "misses": 0, "reset": 0, "cpus": set()}


def expected(rows, drops, wire, events=False):
    """per interface name, the packets in order, each a dict of the
    fields the plugin must give (None: absent); with @events, each
    namespace's events (--events) on its interface nsN:events"""
    global sojourns
    state, owner, per_if = {}, {}, {}
    # the qdisc_enq events not yet dequeued: (interface, device, packet)
    # -> their times, earliest first
    enq = {}
    # gaps since each file's previous record; a new file gets all so far
    since, total = {}, no_gap()
    for r in rows:
        ev = r["event"]
        if ev in ("lost", "reset"):
            # the text's lost column: the records lost or discarded;
            # ret: a LOST record's probe misses
            n = int(r["lost"] or 0)
            for g in list(since.values()) + [total]:
                if ev == "lost":
                    g["lost"] += n
                    g["misses"] += int(r["ret"] or 0)
                    g["cpus"].add(min(int(r["cpu"]), 31))
                else:
                    g["reset"] += n
            continue
        if ev in TCP_LAYER:
            state[flow(r)] = r
            if ev in ("app_send", "app_recv"):
                owner[flow(r)] = (r["pid"], r["comm"])
        if events and ev in EVENTS and not (ev.startswith("drop_") and
                                            drops):
            name = ("ns%s:" % r["netns"] if r["netns"] else "") + "events"
            want = event_want(r)
            if ev in ("qdisc_enq", "qdisc"):
                k = (name,) + tuple(r[c] for c in (
                    "ifindex", "laddr", "lport", "raddr", "rport", "seq",
                    "end_seq", "ip_id"))
                if ev == "qdisc_enq":
                    enq.setdefault(k, []).append(want["_time"])
                elif enq.get(k):
                    want["qdisc_sojourn_ns"] = str(want["_time"] -
                                                   enq[k].pop(0))
                    sojourns += 1
        elif ev in TCP_LAYER or ev not in PACKETS or \
                (ev.startswith("drop_") and not drops) or \
                (ev == "dev_out" and wire) or (ev == "wire_out" and not wire):
            continue
        else:
            name = iface_name(r)
            want = packet_want(r, name, state.get(flow(r)),
                               owner.get(flow(r)))
        g = since.get(name)
        if g is None:
            g = dict(total, cpus=set(total["cpus"]))
        if g["lost"] or g["misses"] or g["reset"]:
            want["gap_lost"] = str(g["lost"])
            want["gap_misses"] = str(g["misses"])
            want["gap_reset"] = str(g["reset"])
            want["gap_cpus"] = ",".join(
                "%d%s" % (c, "+" if c == 31 else "")
                for c in sorted(g["cpus"])) or "-"
        since[name] = no_gap()
        # a packet without a magnet comment or a namespace: nothing of
        # magnet
        if want["layer"] != "events" and not (
                want["event"] or want["gap_lost"] or want["drop_reason"] or
                want["netns"]):
            want = dict(dict.fromkeys(FIELDS), _time=want["_time"])
        per_if.setdefault(name, []).append(want)
    return per_if


def tshark(args):
    return subprocess.run(["tshark"] + args, capture_output=True, text=True)


def clean_err(s):
    return "".join(line + "\n" for line in s.splitlines()
                   if "Running as user" not in line)


def compare_queues(log, tt, work, waits):
    """--queues: the plugin's sojourns per device against magnet-exp's
    analysis of the same log (its queues table, the rows measured from
    the enqueue): as many, the same mean (python/magnet_exp/analyse.py,
    Queues: another implementation)"""
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "..", "userspace", "magnet-exp")
    out = os.path.join(work, "analysis")
    p = subprocess.run([exe, "analyse", "--no-figures", "-o", out, log],
                       capture_output=True, text=True,
                       env=dict(os.environ, MAGNET_TTPB2ASCII=tt))
    check(p.returncode == 0, "magnet-exp analyse %s: exit %d: %s" % (
        log, p.returncode, p.stderr[-300:]))
    with open(os.path.join(out, "verdict.json")) as f:
        rows = [x for x in json.load(f)["queues"] if x["from"] == "enqueue"]
    check(len(rows) == len(waits), "%s: %d devices with sojourns, "
          "magnet-exp's analysis has %d" % (log, len(waits), len(rows)))
    for x in rows:
        ns = x["host"].replace("netns ", "")
        got = waits.get((ns, str(x["device"])), [])
        mean = round(sum(got) / len(got) / 1e3, 3) if got else None
        check(len(got) == x["count"] and mean == x["mean_us"],
              "%s netns %s device %s: the plugin's %d sojourns, mean %s us;"
              " magnet-exp's %d, mean %s us" % (
                  log, ns, x["device"], len(got), mean, x["count"],
                  x["mean_us"]))


def main(argv):
    tt, plugin, log, work = argv[1:5]
    drops = "--drops" in argv[5:]
    events = "--events" in argv[5:]
    queues = "--queues" in argv[5:]
    # each device's sojourns as the plugin gives them: (netns, ifindex)
    # -> [ns]
    waits = {}
    rows = text_rows(tt, log)
    wire = any(r["event"] == "wire_out" for r in rows)
    split = os.path.join(work, "split")
    args = [tt, "-f", "pcapng", "-L", "ip,dev", "--split", split, log]
    if drops:
        args.insert(5, "--drops")
    if events:
        args.insert(5, "--events")
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0, "%s: exit %d: %s" % (" ".join(args),
                                                 p.returncode, p.stderr))
    files = [line.split("\t")[:2] for line in p.stdout.splitlines()]
    want = expected(rows, drops, wire, events)
    check(len(files) == len(want), "%s: %d files, the text has packets "
          "on %d interfaces" % (log, len(files), len(want)))
    ex = ["-X", "lua_script:" + plugin]
    p = tshark(["-G", "fields"] + ex)
    if "\tmagnet.cwnd\t" not in p.stdout:
        check(False, "tshark did not load %s (Wireshark 4.4 loads no Lua "
              "plugin when run as root)" % plugin)
    for f, npk in files:
        # the file's interface, by its name (ttpb2ascii --split)
        base = os.path.basename(f).rsplit(".", 1)[0]
        name = base.replace("-", ":", 1) if base.startswith("ns") else base
        exp = want.get(name, [])
        check(npk == "%d packets" % len(exp), "%s: %s, the text has %d on "
              "%s" % (f, npk, len(exp), name))
        # without the plugin: read whole, nothing malformed
        p = tshark(["-r", f, "-Y", "_ws.malformed || _ws.expert.severity "
                    ">= error"])
        check(p.returncode == 0 and not clean_err(p.stderr) and
              not p.stdout.strip(), "%s without the plugin: exit %d, %r %r"
              % (f, p.returncode, p.stderr[-300:], p.stdout[:300]))
        p = tshark(ex + ["-r", f, "-V"])
        check(p.returncode == 0 and "Lua Error" not in p.stdout and
              not clean_err(p.stderr), "%s with the plugin: exit %d, %r"
              % (f, p.returncode, clean_err(p.stderr)[-300:]))
        p = tshark(ex + ["-r", f, "-T", "fields", "-E", "separator=\t",
                         "-E", "occurrence=a", "-E", "aggregator=|",
                         "-e", "frame.interface_name",
                         "-e", "frame.time_epoch"] +
                   sum((["-e", "magnet." + n] for n in FIELDS), []))
        got = [line.split("\t") for line in p.stdout.splitlines()]
        check(len(got) == len(exp) and all(g[0] == name for g in got),
              "%s (%s): tshark gives %d packets, the text has %d"
              % (f, name, len(got), len(exp)))
        for k, (g, w) in enumerate(zip(got, exp), 1):
            check(ns_of(g[1]) == w["_time"], "%s packet %d: time %s, the "
                  "text's %d" % (f, k, g[1], w["_time"]))
            v = dict(zip(FIELDS, g[2:]))
            if v["qdisc_sojourn_ns"]:
                waits.setdefault((v["netns"], v["ifindex"]), []).append(
                    int(v["qdisc_sojourn_ns"]))
            bad = []
            for n, v in zip(FIELDS, g[2:]):
                wv = w[n]
                if (v or None) != wv:
                    bad.append("%s %r (want %r)" % (n, v, wv))
            check(not bad, "%s packet %d: %s" % (f, k, "; ".join(bad)))
        # the IO graph's means: AVG(magnet.cwnd) per 100 ms
        vals = [(w["_time"], int(w["cwnd"])) for w in exp if w["cwnd"]]
        # (tshark gives no interval for a file whose packets are all at
        # one instant)
        if not vals or exp[-1]["_time"] == exp[0]["_time"]:
            continue
        p = tshark(ex + ["-r", f, "-q", "-z",
                         "io,stat,0.1,AVG(magnet.cwnd)magnet.cwnd"])
        rows_io = [line.strip("|").split("|") for line in
                   p.stdout.splitlines() if "<>" in line]
        t0 = exp[0]["_time"]
        bins = {}
        for t, c in vals:
            bins.setdefault((t - t0) // 100000000, []).append(c)
        n = 0
        for i, r in enumerate(rows_io):
            v = r[1].strip()
            b = bins.get(i)
            mean = sum(b) // len(b) if b else 0
            n += 1
            check(v == str(mean), "%s: io,stat interval %d: AVG %s, the "
                  "text's %d" % (f, i, v, mean))
        check(n and n >= max(bins) + 1, "%s: io,stat: %d intervals, the "
              "packets span %d" % (f, n, max(bins) + 1))
    if queues:
        check(waits, "%s: no qdisc sojourn in the plugin's fields" % log)
        compare_queues(log, tt, work, waits)
    return T.close(" (%d qdisc sojourns)" % sojourns)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
