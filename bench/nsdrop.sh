#!/bin/bash
# usage: bench/nsdrop.sh [KVER]      (make bench-nsdrop)
#
# What a drop with no socket costs magnet, with few network namespaces and
# with many: a drop's dev field is tested against the set of namespaces
# that exist (module/nets.c), which should cost the same whatever their
# number. One boot under the instruction clock with the insn plugin of
# make bench-insn (bench/insn.sh), every instruction counted: a flood of
# NSDROP_COUNT (default 3000) UDP datagrams to a closed port, without and
# with magnet (events=drop), from a pair of namespaces on a host with few,
# then from a pair made after NSDROP_NETNS (default 1000) more
# (bench/nsdrop-guest.sh). The report (bench/nsdrop-report.py) gives each's
# instructions per drop event: magnet's own functions', and the whole
# window's above the flood without magnet; the two should be within 5%.
# Report: stdout and bench/results/<date>-<kernel>-nsdrop.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top"/bench/common.sh
kver=$(bench_kver nsdrop "${1:-}")
count=${NSDROP_COUNT:-3000}
netns=${NSDROP_NETNS:-1000}
tools=$top/build/insn
out=$top/build/nsdrop/$kver
rm -rf "$out"
mkdir -p "$out" "$tools"
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$tools/libinsn.so" "$top/bench/insn/insn.c"
cc -O2 -Wall -Wextra -Werror -o "$tools/insn-mark" "$top/bench/insn/insn-mark.c"
echo "nsdrop: $kver, $count datagrams to a closed port, with few namespaces and with $netns more"
BENCH_QEMU_OPTS="-plugin file=$tools/libinsn.so,out=$out/counts" \
	bench_boot nsdrop "$kver" "$out" 3600 nsdrop-guest.sh "$tools/insn-mark" "$count" "$netns"
mkdir -p "$top/bench/results"
report=$top/bench/results/$(date +%Y-%m-%d)-$kver-nsdrop.md
python3 "$top"/bench/nsdrop-report.py "$out" "$count" "$netns" "$kver" \
	"$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" > "$report"
cat "$report"
echo "nsdrop: report in $report"
