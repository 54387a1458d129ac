#!/bin/bash
# usage: bench/monarch.sh [KVER]      (make bench-monarch)
#
# Monarch (magnet-exp monarch, docs/monarch.md) against real TCP, in one
# guest boot under the instruction clock as make bench (bench/run.sh: one
# vCPU, -icount shift=0,sleep=off, 1 guest ns = 1 instruction), over
# scripts/monarch-net.sh's path to a remote namespace
# (bench/monarch-guest.sh), pairs of flows alternating a real TCP flow to
# an iperf3 server in the remote and a Monarch flow to a closed port of it:
#   cost      no netem: a Monarch flow's throughput as a ratio of the real
#             flow's, and the delay the proxy adds per packet by its own
#             clock (packet to probe, response to verdict: proxy.txt)
#   accuracy  20 Mbit/s, 15 ms each way, 0.5% loss toward the remote (the
#             Monarch paper's section 4; MONARCH_LOSS=fixed, the default:
#             the same 5 packets of every 1000 dropped in every flow, so
#             that a pair differs by what Monarch changes, not by the loss's
#             draws; random: netem's loss): per flow the throughput (iperf3's
#             receiver), the sender's minimum and maximum RTT (magnet's
#             tcp_in rtt_us, the RTT of the latest acknowledged data) and
#             the time from 10% to 90% of the bytes acknowledged (magnet's
#             bytes_acked), all read through ttpb2ascii -f magnet; each
#             Monarch flow's relative difference from the real flow before
#             it, and each real flow's from the real flow before it (the
#             path's own run-to-run difference)
# MONARCH_PAIRS pairs (default 5) of each; MONARCH_COST_BYTES (default
# 20M) and MONARCH_ACC_BYTES (default 32M) per flow. MONARCH_PROFILE=1:
# one more flow of each kind on the cost path under perf (where a
# packet's instructions go: the report's profile section). The report goes to
# stdout and bench/results/<date>-<kernel>-monarch.md
# (bench/monarch-report.py).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top"/bench/common.sh
kver=$(bench_kver monarch "${1:-}")
out=$top/build/bench-monarch/$kver
rm -rf "$out"
mkdir -p "$out"
for t in iperf3 nft; do
	command -v $t > /dev/null || { echo "bench-monarch: $t is missing; run make deps" >&2; exit 1; }
done
make -s -C "$top/userspace"
pairs=${MONARCH_PAIRS:-5}
echo "bench-monarch: $kver, $pairs pairs of flows, -icount shift=0,sleep=off"
cost_bytes=${MONARCH_COST_BYTES:-20M}
acc_bytes=${MONARCH_ACC_BYTES:-32M}
loss=${MONARCH_LOSS:-fixed}
case $loss in
fixed | random) ;;
*) echo "bench-monarch: MONARCH_LOSS=$loss: fixed or random" >&2; exit 1 ;;
esac
bench_boot bench-monarch "$kver" "$out" 5400 monarch-guest.sh "$top" \
	"$cost_bytes" "$pairs" "$acc_bytes" "$loss" ${MONARCH_PROFILE:+profile}
mkdir -p "$top/bench/results"
report=$top/bench/results/$(date +%Y-%m-%d)-$kver-monarch.md
MAGNET_TTPB2ASCII=$top/userspace/ttpb2ascii python3 "$top/bench/monarch-report.py" "$out" "$pairs" \
	"$kver" "$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" \
	"$cost_bytes" "$acc_bytes" > "$report"
cat "$report"
echo "bench-monarch: $report"
