#!/bin/bash
# usage: bench/run.sh [KVER]      (make bench)
#
# Throughput of iperf3 transfers with and without tracing, measured in one
# guest boot under QEMU's instruction-counted clock (-icount shift=0,
# sleep=off): guest time advances by 1 ns per executed instruction, so a
# guest-measured throughput is repeatable and a ratio of two runs is a ratio
# of executed instructions. Configurations (bench/guest.sh), TCP first
# (iperf3 -n BENCH_BYTES over veth, TSO/GSO/GRO off, gso_max_segs 1):
#   baseline       no tracing (first in each round, and once more at the end)
#   tcpdump-96     tcpdump -s 96 on the sender's veth, to tmpfs
#   tcpdump-full   the same, full snaplen
#   tracepoint     the kernel's tcp:tcp_probe, filtered on the port, through
#                  trace_pipe (losses: its ring's overruns)
#   bpftrace       kprobes on __tcp_transmit_skb and tcp_v4_do_rcv printing
#                  4 fields (losses: its "Lost N events")
#   tcp-ascii      magnet events=tcp omode=0 (ttprobe's volume and format)
#   tcp-binary     magnet events=tcp omode=1 format=2 (256-byte records)
#   all-binary     magnet events=all omode=1 format=2 (every layer)
#   tcp-binary-v3, all-binary-v3   the same in format=3, the default
#                  (records sized by what they carry, docs/binary-format.md)
#   all-ev-v3      all-binary-v3 with drops, retransmissions, state
#                  changes and qdisc events on too
#                  (events=all,drop,retrans,state,qdisc): what they cost
#                  when the transfer drops and retransmits nothing (its
#                  ratio beside all-binary-v3's)
#   all-wire-v3    all-binary-v3 with the wire's egress on too
#                  (events=all,wire: a wire_out event per packet a device
#                  sends, after its qdisc): its ratio beside all-binary-v3's
#   tcp-record, all-record   the same read by magnet-record (records written
#                  to the log from the mapped rings) instead of cat
#   tcp-handlers   events=tcp, reader started after the transfer: what the
#   handlers       traffic pays for the probe handlers alone (and all layers)
# then TICKET's small packets (iperf3 -u -l 64 -b 0 -t 1): udp-baseline,
# udp-tcpdump-96, udp-magnet (events=ip,dev nontcp=1 omode=1 format=2),
# udp-magnet-v3 (the same, format=3) and udp-record (read by magnet-record).
# The list runs BENCH_REPS times (default 2), interleaved. Reports, per run:
# throughput, the ratio to the mean baseline of the boot, events, lost,
# bytes per event, and instructions per event above the baseline of the
# same round, split for magnet into the handlers' share (from the deferred
# runs of the same round) and the reader's (the rest). The report goes to
# stdout and to bench/results/<date>-<kernel>.md, a bar chart of the ratios
# to <date>-<kernel>.png (bench/chart.py).
# KVER defaults to the 6.1 line. One vCPU: QEMU's icount mode hangs
# bringing up a second one, so every reader shares the CPU with the traffic.
#
# BENCH_CONFIGS="NAME ...": only these configurations (and the
# baselines), e.g. BENCH_CONFIGS="all-binary-v3 all-ev-v3" BENCH_REPS=6 for
# a pair's difference over more rounds in one boot.
#
# BENCH_BASE=REV (a commit): the module of REV too, built from its own tree
# (git archive) with its own scripts/build-module.sh, run in the same boot
# right before each magnet configuration as CONFIG@base. A change's cost is
# then measured against what it changes under the same boot's conditions:
# across boots the same handlers' ratio spreads several percent (the
# transfer's ACK pattern, so its events per byte, differs from boot to
# boot). The report adds a table: per magnet configuration, the mean ratio
# of REV's module and of this tree's, and how far apart.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top"/bench/common.sh
kver=$(bench_kver run "${1:-}")
bytes=${BENCH_BYTES:-100M}
reps=${BENCH_REPS:-2}
out=$top/build/bench/$kver
rm -rf "$out"
mkdir -p "$out"
# BENCH_CONFIGS: the configurations to run (names as below; baseline and
# udp-baseline always), every one if empty
: > "$out/configs"
# shellcheck disable=SC2086 # a list of words
[ -z "${BENCH_CONFIGS:-}" ] || printf '%s\n' $BENCH_CONFIGS > "$out/configs"
for t in tcpdump bpftrace iperf3; do
	command -v $t > /dev/null || { echo "bench: $t is missing; run make deps" >&2; exit 1; }
done
echo "bench: $kver, iperf3 -n $bytes over veth, TSO/GSO/GRO off, gso_max_segs 1, -icount shift=0,sleep=off, $reps rounds"
base=${BENCH_BASE:-}
baseko=
if [ -n "$base" ]; then
	rm -rf "$out/base-src"
	baserev=$("$top"/scripts/rev-tree.sh "$base" "$out/base-src") ||
		{ echo "bench: BENCH_BASE=$base: no such tree" >&2; exit 1; }
	baserev=${baserev:0:7}
	echo "bench: with the module of $baserev in the same boot (CONFIG@base)"
	"$out"/base-src/scripts/build-module.sh "$kver" "$out/base-build" > /dev/null
	cp "$out/base-build/magnet.ko" "$out/base.ko"
	baseko=$out/base.ko
	base=$baserev
fi
bench_boot bench "$kver" "$out" 5400 guest.sh "$bytes" "$reps" $baseko
if [ -e "$out/hung.txt" ]; then
	echo "bench: a reader did not end after finish:" >&2
	cat "$out/hung.txt" >&2
fi
mkdir -p "$top/bench/results"
report=$top/bench/results/$(date +%Y-%m-%d)-$kver.md
python3 - "$out" "$reps" "$kver" "$bytes" "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" "$base" > "$report" <<'PY'
import json, sys
out, reps, kver, nbytes, rev, baserev = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6]
rounds = [str(r) for r in range(1, reps + 1)]

def iperf(name, r):
    j = json.load(open("%s/%s.%s.json" % (out, name, r)))
    e = j["end"]
    if not name.startswith("udp"):
        s = e["sum_received"]
        return {"bytes": s["bytes"], "secs": s["seconds"], "rate": s["bits_per_second"] / 1e6}
    s = e.get("sum_received") or e["sum"]
    pkts = s["packets"] - s.get("lost_packets", 0)
    return {"pkts": pkts, "secs": s["seconds"], "rate": pkts / s["seconds"] / 1e3}

def counts(name, r):
    try:
        d = dict(l.split() for l in open("%s/%s.%s.stats" % (out, name, r)) if l.strip())
    except OSError:
        return None
    return {k: int(v) if v.isdigit() else None for k, v in d.items()}

def extra_per_event(name, r, base):
    """guest ns (= instructions) above the round's baseline, per event"""
    c, i, b = counts(name, r), iperf(name, r), iperf(base, r)
    if not c or not c.get("events"):
        return None
    if "bytes" in i:
        extra = i["secs"] - b["secs"] * i["bytes"] / b["bytes"]
        return extra * 1e9 / c["events"]
    extra = i["secs"] - i["pkts"] / (b["pkts"] / b["secs"])
    return extra * 1e9 / c["events"]

tcp = ["baseline", "tcpdump-96", "tcpdump-full", "tracepoint", "bpftrace",
       "tcp-ascii", "tcp-binary", "all-binary", "tcp-binary-v3",
       "all-binary-v3", "all-ev-v3", "all-wire-v3", "tcp-record", "all-record",
       "tcp-handlers", "handlers"]
udp = ["udp-baseline", "udp-tcpdump-96", "udp-magnet", "udp-magnet-v3",
       "udp-record"]
handler_of = {"tcp-ascii": "tcp-handlers", "tcp-binary": "tcp-handlers",
              "all-binary": "handlers", "tcp-binary-v3": "tcp-handlers",
              "all-binary-v3": "handlers", "all-ev-v3": "handlers",
              "all-wire-v3": "handlers",
              "tcp-record": "tcp-handlers",
              "all-record": "handlers", "tcp-handlers": "tcp-handlers",
              "handlers": "handlers"}
if baserev:
    # each magnet configuration, REV's module first (guest.sh)
    tcp = [m for n in tcp for m in ([n + "@base", n] if n in handler_of else [n])]
    udp = [m for n in udp for m in ([n + "@base", n] if n.startswith("udp-") and
                                    n not in ("udp-baseline", "udp-tcpdump-96") else [n])]
    handler_of.update({k + "@base": v + "@base" for k, v in list(handler_of.items())})
# the configurations this boot ran (BENCH_CONFIGS)
import os
tcp = [n for n in tcp if os.path.exists("%s/%s.1.json" % (out, n))]
udp = [n for n in udp if os.path.exists("%s/%s.1.json" % (out, n))]
bases = [iperf("baseline", r)["rate"] for r in rounds + ["last"]]
base = sum(bases) / len(bases)
ubase = sum(iperf("udp-baseline", r)["rate"] for r in rounds) / reps

print("# make bench: %s, %s%s\n" % (kver, rev, ", against %s in the same boot" % baserev if baserev else ""))
print("iperf3 -n %s over veth (TSO/GSO/GRO off, gso_max_segs 1), one vCPU, QEMU -icount shift=0,sleep=off: "
      "1 guest ns = 1 instruction. %d rounds in one boot, interleaved. Ratio: to the mean "
      "of the %d baseline runs (%.1f Mbit/s; they range %.3f..%.3f of it). instr/ev: above "
      "the same round's baseline, per event; for magnet split into handler (the deferred "
      "run of the same layers) and reader (the rest).\n"
      % (nbytes, reps, len(bases), base, min(bases) / base, max(bases) / base))
print("| config | round | Mbit/s | ratio | events | lost | bytes/ev | instr/ev | handler | reader |")
print("|---|---|---|---|---|---|---|---|---|---|")
def fmt(v, f="%d"):
    return "-" if v is None else f % v
for name in tcp:
    for r in rounds + (["last"] if name == "baseline" else []):
        i, c = iperf(name, r), counts(name, r)
        per = extra_per_event(name, r, "baseline") if c else None
        h = rd = None
        if name in handler_of and handler_of[name] in tcp and per is not None:
            h = extra_per_event(handler_of[name], r, "baseline")
            if name != handler_of[name] and h is not None:
                rd = per - h
        ev = c.get("events") if c else None
        bpe = c["bytes"] / ev if c and ev else None
        print("| %s | %s | %.1f | %.3f | %s | %s | %s | %s | %s | %s |" % (
            name, r, i["rate"], i["rate"] / base, fmt(ev), fmt(c.get("lost") if c else None),
            fmt(bpe, "%.0f"), fmt(per, "%.0f"), fmt(h, "%.0f"), fmt(rd, "%.0f")))
for name in ("tcp-handlers", "handlers"):
    for r in rounds:
        c = counts(name, r)
        if c and c.get("lost"):
            print("\n**%s round %s lost %d events: its ring (the reader starts after the "
                  "transfer) was too small, so its handler costs are too low.**" % (name, r, c["lost"]))
print("\nUDP, 64-byte payloads, iperf3 -u -b 0 -t 1 (rate: packets received, thousands per second; "
      "ratio to the mean udp-baseline, %.1f kpps):\n" % ubase)
print("| config | round | kpps | ratio | events | lost | bytes/ev | instr/ev |")
print("|---|---|---|---|---|---|---|---|")
for name in udp:
    for r in rounds:
        i, c = iperf(name, r), counts(name, r)
        per = extra_per_event(name, r, "udp-baseline") if c else None
        ev = c.get("events") if c else None
        bpe = c["bytes"] / ev if c and ev else None
        print("| %s | %s | %.1f | %.3f | %s | %s | %s | %s |" % (
            name, r, i["rate"], i["rate"] / ubase, fmt(ev), fmt(c.get("lost") if c else None),
            fmt(bpe, "%.0f"), fmt(per, "%.0f")))
for pair, what in (("all-ev-v3", "Drops, retransmissions, state changes and qdisc events"),
                   ("all-wire-v3", "The wire's egress (wire_out events)")):
    if "all-binary-v3" not in tcp or pair not in tcp:
        continue
    print("\n%s on (%s) against off (all-binary-v3), each round's runs one after "
          "the other: ratio, and %s's against all-binary-v3's.\n" % (what, pair, pair))
    print("| round | all-binary-v3 | %s | apart |" % pair)
    print("|---|---|---|---|")
    for r in rounds:
        a = iperf("all-binary-v3", r)["rate"] / base
        b = iperf(pair, r)["rate"] / base
        print("| %s | %.3f | %.3f | %+.1f%% |" % (r, a, b, (b / a - 1) * 100))
    a = sum(iperf("all-binary-v3", r)["rate"] for r in rounds) / reps / base
    b = sum(iperf(pair, r)["rate"] for r in rounds) / reps / base
    print("| mean | %.3f | %.3f | %+.1f%% |" % (a, b, (b / a - 1) * 100))
if baserev:
    print("\nThe same boot, %s's module (CONFIG@base, run right before each) against this "
          "tree's (%s): mean ratio over the rounds, and this tree's against %s's (negative: "
          "lower throughput, packets per second for UDP); instr/ev the same way.\n" % (baserev, rev, baserev))
    print("| config | ratio %s | ratio %s | apart | instr/ev %s | instr/ev %s |" % (baserev, rev, baserev, rev))
    print("|---|---|---|---|---|---|")
    for name in [n for n in tcp + udp if n + "@base" in tcp + udp]:
        b0 = "udp-baseline" if name.startswith("udp") else "baseline"
        mean = ubase if name.startswith("udp") else base
        rb = sum(iperf(name + "@base", r)["rate"] for r in rounds) / reps / mean
        rn = sum(iperf(name, r)["rate"] for r in rounds) / reps / mean
        pb = [extra_per_event(name + "@base", r, b0) for r in rounds]
        pn = [extra_per_event(name, r, b0) for r in rounds]
        avg = lambda v: None if None in v else sum(v) / len(v)
        print("| %s | %.3f | %.3f | %+.1f%% | %s | %s |" % (
            name, rb, rn, (rn / rb - 1) * 100, fmt(avg(pb), "%.0f"), fmt(avg(pn), "%.0f")))
PY
cat "$report"
# the chart: Debian's python3, which has python3-matplotlib (make deps)
/usr/bin/python3 "$top"/bench/chart.py "$report" "${report%.md}.png"
echo "bench: report in $report, chart in ${report%.md}.png"
# a reader that did not end after finish is a failure, after the report
if [ -e "$out/hung.txt" ]; then
	echo "bench: FAILED: a reader did not end after finish ($out/hung.txt)" >&2
	exit 1
fi
