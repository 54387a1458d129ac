#!/usr/bin/python3
"""checklimits.py LOGDIR: case_limits's checks (tests/vm/cases/48-limits.sh),
on the host (tests/vm/hostcheck.sh host_limits).

LOGDIR holds the case's log (limits.bin), its magnet text and web10g
decodes (limits.txt, limits.web10g), magnet-exp analyse's verdict.json of
it (limits.an/verdict.json), and each transfer's truth
(limits-NAME.json, tests/vm/limitflow.py: the sender socket's own TCP_INFO
once the peer had acknowledged everything, and the wall clock around the
read). For each transfer:
  1. the sender socket's last record before the read (by its cookie) has
     busy_us, rwnd_limited_us and sndbuf_limited_us equal to the kernel's
     tcpi_busy_time, tcpi_rwnd_limited and tcpi_sndbuf_limited, or the
     kernel's ahead by no more than the jiffies from that record to the
     read and one more (a chronograph still running at the record counts
     on until the ACK that stops it; a jiffy is the log's own
     granularity: the greatest common divisor of its times), and its
     reordering, reord_seen and dsack_dups equal;
  2. the connection's last web10g line before the read has
     SndLimTimeRwin, SndLimTimeSnd and SndLimTimeCwnd (ms) equal to
     tcpi_rwnd_limited, tcpi_sndbuf_limited and tcpi_busy_time less both,
     / 1000, to a jiffy and the ms truncation;
  3. magnet-exp analyse names the transfer's limit as its dominant one:
     rwnd, sndbuf, app (the application), cwnd; or, where the kernel's
     own chronographs counted another limit longer than the transfer's
     (a slow guest can: sndbuf's transfer had 1.12 s send-buffer-limited
     and 1.20 s busy on 7.2 once, 56% and 36% in other runs), the one the
     kernel counted longest, with the transfer's own limit still at least
     a quarter of the connection's life (named_limit).
And for each transfer's receiver (limits-NAME.rcv.json: its cookie, its
SO_RCVBUF after the accept and at the end, TCP_WINDOW_CLAMP at the end;
the autotune transfer's too), its rcvbuf events (events=rcvbuf):
  4. they chain: the first's rcvbuf_before is the SO_RCVBUF after the
     accept, each one's before the previous one's after (rcvbuf and
     window_clamp), the last's rcvbuf the SO_RCVBUF at the end; none
     where SO_RCVBUF did not change (rwnd: the receiver set it, so the
     kernel never tunes it); the autotune receiver's grew;
  5. the last's window_clamp is TCP_WINDOW_CLAMP at the end;
  6. magnet-exp analyse counts them and gives the last one's buffer.
And the end of each RTO recovery (events=cong: rto_end lines, Linux 6.7
and later; limits-rto.json, where the log has events=cong, is a transfer
through a second-long hole):
  7. where the sender's TCP_INFO has the RTO totals (6.7 on), the sender
     socket's last rto_end line before the read has total_rto_time,
     total_rto and total_rto_recoveries equal to the kernel's
     tcpi_total_rto_time, tcpi_total_rto and tcpi_total_rto_recoveries
     (exactly: both are the kernel's sums; where that line entered
     Recovery, not Open, the kernel still counts from its recovery's
     start, so tcpi_total_rto_time is at least its total_rto_time plus
     its rto_recovery_ms), each line's rto_recovery_ms is what its
     total_rto_time adds to the line before's where it entered Open
     (ca_state 0), nothing where it entered Recovery, and a socket
     whose tcpi_total_rto_time is 0 has none; the rto transfer had a
     recovery (a total above 0), and magnet-exp analyse gives the last
     one's total; where the kernel keeps no totals (5.10), no rto_end
     line at all.
Prints a line per check; exits 1 if any failed.
"""
import csv
import json
import math
import os
import sys

WANT = {"rwnd": "rwnd", "sndbuf": "sndbuf", "app": "app", "cwnd": "cwnd"}
# the analysis's limits as the kernel's chronographs count them: cwnd and
# pacing are its split of the busy chronograph (limits.py)
CHRONO = {"rwnd": "rwnd", "sndbuf": "sndbuf", "cwnd": "busy", "pacing": "busy"}
fails = []


def ok(what, cond, detail=""):
    print("%s: %s%s" % ("ok" if cond else "FAIL", what,
                        (" " + detail) if detail else ""))
    if not cond:
        fails.append(what)


def wall_ns(s):
    sec, _, frac = s.partition(".")
    return int(sec) * 10**9 + int((frac + "000000000")[:9])


def rcvbuf_checks(d, name, rows, an):
    with open(os.path.join(d, "limits-%s.rcv.json" % name)) as f:
        t = json.load(f)
    ev = [r for r in rows if r["event"] == "rcvbuf" and r["sock"] == t["sock"]]
    grew = t["rcvbuf"] != t["rcvbuf_start"]
    print("  %s receiver %s: SO_RCVBUF %d -> %d, %d rcvbuf events%s" % (
        name, t["sock"], t["rcvbuf_start"], t["rcvbuf"], len(ev),
        "".join(" %s->%s" % (r["rcvbuf_before"], r["rcvbuf"]) for r in ev[:12])))
    if name == "autotune":
        ok("autotune: the receiver's buffer grew (SO_RCVBUF %d -> %d)" %
           (t["rcvbuf_start"], t["rcvbuf"]), t["rcvbuf"] > t["rcvbuf_start"])
    if not grew:
        ok("%s: no buffer growth recorded, SO_RCVBUF unchanged" % name,
           all(r["rcvbuf"] == r["rcvbuf_before"] for r in ev),
           "(%d events)" % len(ev))
        if name == "rwnd":
            ok("rwnd: no rcvbuf event (the receiver set SO_RCVBUF)",
               not ev, "(%d)" % len(ev))
        return
    ok("%s: rcvbuf events of the receiver socket" % name, len(ev) > 0,
       "(%d)" % len(ev))
    if not ev:
        return
    chain = int(ev[0]["rcvbuf_before"]) == t["rcvbuf_start"] and \
        int(ev[-1]["rcvbuf"]) == t["rcvbuf"]
    for a, b in zip(ev, ev[1:]):
        chain = chain and a["rcvbuf"] == b["rcvbuf_before"] and \
            a["window_clamp"] == b["window_clamp_before"]
    ok("%s: the events chain from SO_RCVBUF %d after the accept to %d at "
       "the end" % (name, t["rcvbuf_start"], t["rcvbuf"]), chain)
    ok("%s: the last event's window_clamp %s, TCP_WINDOW_CLAMP %d" %
       (name, ev[-1]["window_clamp"], t["window_clamp"]),
       int(ev[-1]["window_clamp"]) == t["window_clamp"])
    dec = [x for x in an["decisions"] if x["rcvbuf_grown"] and
           x["flow"].split()[0].endswith(":" + ev[0]["lport"]) and
           ":" + ev[0]["rport"] in x["flow"]]
    ok("%s: the analysis counts %d growths, its buffer %d" %
       (name, len(ev), t["rcvbuf"]),
       len(dec) == 1 and dec[0]["rcvbuf_grown"] == len(ev) and
       dec[0]["rcvbuf_bytes"] == t["rcvbuf"],
       "(%s)" % [(x["rcvbuf_grown"], x["rcvbuf_bytes"]) for x in dec])



def truth(d, name):
    """limits-NAME.json: the sender's TCP_INFO (limitflow.py)"""
    with open(os.path.join(d, "limits-%s.json" % name)) as f:
        return json.load(f)


def rto_checks(d, name, rows, an):
    t = truth(d, name)
    ends = [r for r in rows if r["event"] == "rto_end"]
    if "total_rto_time" not in t:
        ok("%s: no rto_end line where the kernel keeps no RTO totals" % name,
           not ends, "(%d)" % len(ends))
        return
    mine = [r for r in ends if r["sock"] == t["sock"] and
            wall_ns(r["time"]) <= t["t0_ns"]]
    if name == "rto":
        ok("rto: the hole made an RTO recovery (tcpi_total_rto_time %d ms, "
           "tcpi_total_rto %d)" % (t["total_rto_time"], t["total_rto"]),
           t["total_rto_time"] > 0 and t["total_rto"] > 0)
    if not t["total_rto_time"]:
        ok("%s: no rto_end line, the kernel counted no RTO time" % name,
           not mine, "(%d)" % len(mine))
        return
    ok("%s: rto_end lines of the sender socket %s" % (name, t["sock"]),
       len(mine) > 0, "(%d)" % len(mine))
    if not mine:
        return
    last = mine[-1]
    for k in ("total_rto", "total_rto_recoveries"):
        ok("%s: the last rto_end's %s %s, the kernel's %d" % (
            name, k, last[k], t[k]), int(last[k]) == t[k])
    total, ms = int(last["total_rto_time"]), int(last["rto_recovery_ms"])
    if last["ca_state"] == "0":
        ok("%s: the last rto_end's total_rto_time %d, the kernel's %d" % (
            name, total, t["total_rto_time"]), total == t["total_rto_time"])
    else:
        ok("%s: the last rto_end entered %s, the kernel counts on: its "
           "total_rto_time %d + %d ms <= the kernel's %d" % (
               name, last["ca_state"], total, ms, t["total_rto_time"]),
           total + ms <= t["total_rto_time"])
    before = 0
    for r in mine:
        add = int(r["rto_recovery_ms"]) if r["ca_state"] == "0" else 0
        ok("%s: rto_end at %s into %s: %s ms of recovery, %s ms in all "
           "after %d" % (name, r["time"], r["ca_state"], r["rto_recovery_ms"],
                         r["total_rto_time"], before),
           int(r["total_rto_time"]) == before + add)
        before = int(r["total_rto_time"])
    got = [x["rto_time_ms"] for x in an["decisions"]
           if x["flow"].split()[0].endswith(":" + last["lport"]) and
           ":" + last["rport"] in x["flow"]]
    ok("%s: the analysis's time in RTO recoveries %s ms, the last "
       "rto_end's %d" % (name, got, total), got == [total])


def chronos(t):
    """the sender's own chronographs from its TCP_INFO @t, in us: rwnd,
    sndbuf and busy less both (cwnd and pacing, limits.py's split)"""
    return {"rwnd": t["rwnd_limited_us"], "sndbuf": t["sndbuf_limited_us"],
            "busy": t["busy_us"] - t["rwnd_limited_us"] -
            t["sndbuf_limited_us"]}


def named_limit(name, li, t):
    """check 3: the analysis's dominant limit @li["dominant"] for the
    transfer @name, against what it was built to show (WANT) and the
    sender's own TCP_INFO @t (the truth): either the transfer's limit,
    or, where the kernel counted one of its other chronographs longer,
    that one, the transfer's own still a quarter of the life"""
    want, got = WANT[name], li["dominant"]
    if got == want:
        ok("%s: the analysis names %s" % (name, want), True,
           "(shares %s)" % li["shares"])
        return
    k = chronos(t)
    top = max(k, key=k.get)
    mine = CHRONO.get(want)
    ok("%s: the analysis names %s, or the kernel's longest chronograph "
       "(%s: %d us, %s %d us) with %s at least a quarter of the life "
       "(%d us)" % (name, want, top, k[top], mine, k.get(mine, 0), want,
                    li["life_us"]),
       mine is not None and top != mine and CHRONO.get(got) == top and
       4 * k[mine] >= li["life_us"],
       "(%s; shares %s)" % (got, li["shares"]))

def main(d):
    with open(os.path.join(d, "limits.txt")) as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    lim = [r for r in rows if r["event"] in ("tcp_out", "tcp_in") and
           r["chrono"]]
    ok("limit parts in the log", len(lim) > 100, "(%d records)" % len(lim))
    # the jiffy, from the log's own times
    g = 0
    for r in lim:
        for k in ("busy_us", "rwnd_limited_us", "sndbuf_limited_us",
                  "chrono_us"):
            g = math.gcd(g, int(r[k]))
    ok("the log's granularity is a jiffy (1 to 10 ms)", 1000 <= g <= 10000,
       "(%d us)" % g)
    with open(os.path.join(d, "limits.web10g")) as f:
        web = list(csv.DictReader(f))
    with open(os.path.join(d, "limits.an", "verdict.json")) as f:
        an = json.load(f)
    for name in ("rwnd", "sndbuf", "app", "cwnd"):
        t = truth(d, name)
        mine = [r for r in lim if r["sock"] == t["sock"] and
                wall_ns(r["time"]) <= t["t0_ns"]]
        ok("%s: records of the sender socket %s" % (name, t["sock"]),
           len(mine) > 10, "(%d)" % len(mine))
        if not mine:
            continue
        last = mine[-1]
        # a chronograph still running at that record counts on until the
        # ACK that stops it, which the read follows (tcp_get_info adds
        # the running one's jiffies up to the read): the kernel's may be
        # ahead by the jiffies between the record and the read, plus the
        # one the record's own may be short of
        gap_us = (t["t0_ns"] - wall_ns(last["time"])) / 1000.0
        slack = g * (math.ceil(gap_us / g) + 1)
        for k in ("busy_us", "rwnd_limited_us", "sndbuf_limited_us"):
            diff = t[k] - int(last[k])
            ok("%s: %s %s, the kernel's %d (its last record %.1f ms "
               "before the read)" % (name, k, last[k], t[k], gap_us / 1e3),
               0 <= diff <= slack, "(diff %d us, at most %d)"
               % (diff, slack))
        for k in ("reordering", "reord_seen", "dsack_dups"):
            ok("%s: %s %s, the kernel's %d" % (name, k, last[k], t[k]),
               int(last[k]) == t[k])
        # the web10g line of the same record
        lport, rport = last["lport"], last["rport"]
        lines = [w for w in web if w["LocalPort"] == lport and
                 w["RemPort"] == rport and
                 wall_ns(w["Timestamp"]) <= t["t0_ns"] // 1000 * 1000]
        ok("%s: web10g lines of the connection" % name, len(lines) > 10,
           "(%d)" % len(lines))
        if lines:
            w, k = lines[-1], chronos(t)
            for col, us in (("SndLimTimeRwin", k["rwnd"]),
                            ("SndLimTimeSnd", k["sndbuf"]),
                            ("SndLimTimeCwnd", k["busy"])):
                diff = us // 1000 - int(w[col])
                ok("%s: web10g %s %s ms, the kernel's %d us" %
                   (name, col, w[col], us), 0 <= diff <= g // 1000 + 1,
                   "(diff %d ms)" % diff)
        # the analysis: the sender's end names its limit
        fl = [x for x in an["flows"] if x["limits"] and
              x["flow"].split()[0].endswith(":" + lport) and
              ":" + rport in x["flow"]]
        ok("%s: the analysis has the sender's end" % name, len(fl) == 1,
           "(%d)" % len(fl))
        if len(fl) == 1:
            li = fl[0]["limits"]
            print("  %s: %s" % (name, li["diagnosis"]))
            named_limit(name, li, t)
            # at its last record, after the close (the FIN's exchange
            # adds busy time, never the other two)
            for k in ("rwnd_limited_us", "sndbuf_limited_us"):
                ok("%s: the analysis's %s %d, the kernel's %d" %
                   (name, k, li[k], t[k]), abs(li[k] - t[k]) <= g)
    names = ["rwnd", "sndbuf", "app", "cwnd", "autotune"]
    if os.path.exists(os.path.join(d, "limits-rto.json")):
        names.append("rto")
    for name in names:
        rcvbuf_checks(d, name, rows, an)
    for name in names:
        rto_checks(d, name, rows, an)
    print("checklimits: %d failed" % len(fails))
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
