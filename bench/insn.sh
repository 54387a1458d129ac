#!/bin/bash
# usage: bench/insn.sh [KVER]      (make bench-insn)
#
# Where magnet's instructions go, counted exactly: the configurations of
# `make bench-profile` (bench/profile-guest.sh) in one guest boot under the
# same instruction clock, with no perf in the guest. Instead a QEMU TCG
# plugin (bench/insn/insn.c) counts every kernel instruction the guest
# executes, per translation block, and writes the counts each time the
# guest runs bench/insn/insn-mark between configurations. Unlike perf's
# samples, the counts see into the sections that run with interrupts off
# (a handler's record fill), block by block.
#
# The report gives, per configuration, the instructions per recorded event
# above the baseline transfer (same bytes), in total and per symbol, and
# for each magnet function the blocks that execute the most, with their
# source lines (addr2line on the module's debug info). A block's
# instructions count for the function it starts in.
#
# INSN_BYTES (default 30M) per transfer; INSN_CONFIGS (default: baseline
# tcp-handlers handlers tcp-binary tcp-binary-v3 tcp-ascii all-binary-v3;
# any configuration of bench/profile-guest.sh). INSN_CALLERS="sym sym..."
# (kernel text symbols, e.g. memset_erms): those functions' instructions
# also by the call that entered them (the plugin's callers=; the guest
# boots nokaslr so System.map's addresses hold), in a "Callers" table per
# configuration.
# Report: stdout and bench/results/<date>-<kernel>-insn.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top"/bench/common.sh
kver=$(bench_kver insn "${1:-}")
bytes=${INSN_BYTES:-30M}
configs=${INSN_CONFIGS:-baseline tcp-handlers handlers tcp-binary tcp-binary-v3 tcp-ascii all-binary-v3}
tools=$top/build/insn
out=$tools/$kver
rm -rf "$out"
mkdir -p "$out"
for t in iperf3 cc addr2line; do
	command -v $t > /dev/null || { echo "insn: $t is missing; run make deps" >&2; exit 1; }
done
cc -O2 -Wall -Wextra -Werror -shared -fPIC -o "$tools/libinsn.so" "$top/bench/insn/insn.c"
cc -O2 -Wall -Wextra -Werror -o "$tools/insn-mark" "$top/bench/insn/insn-mark.c"
case " $configs " in *" baseline "*) ;; *) configs="baseline $configs" ;; esac
echo "insn: $kver, iperf3 -n $bytes, every instruction counted by the emulator: $configs"
plugin="file=$tools/libinsn.so,out=$out/counts"
append=
if [ -n "${INSN_CALLERS:-}" ]; then
	# Debian ships no System.map: a first short boot, nokaslr as the
	# measured one, gives the addresses; each function's range runs to the
	# next text symbol
	mkdir -p "$out/ksyms"
	BENCH_APPEND=nokaslr bench_boot insn-ksyms "$kver" "$out/ksyms" 600 ksyms-guest.sh
	ranges=$(sort "$out/ksyms/kallsyms" | awk -v want=" ${INSN_CALLERS} " '
		$2 ~ /^[tTwW]$/ { if (cur != "" && $1 != cur) { r = r sep cur ":" $1; sep = "+"; cur = "" }
			if (index(want, " " $3 " ")) { cur = $1; found[$3] = 1 } }
		END { print r; for (w in found) n++; if (n != split(want, x, " ")) exit 1 }') ||
		{ echo "insn: not all of '$INSN_CALLERS' are kernel text symbols" >&2; exit 1; }
	plugin="$plugin,callers=$ranges"
	append=nokaslr
fi
BENCH_APPEND=$append BENCH_QEMU_OPTS="-plugin $plugin" \
	bench_boot insn "$kver" "$out" 3600 profile-guest.sh "$bytes" "insn=$tools/insn-mark" $configs
mkdir -p "$top/bench/results"
report=$top/bench/results/$(date +%Y-%m-%d)-$kver-insn.md
python3 "$top"/bench/insn-report.py "$out" "$top/build/$kver/magnet.ko" "$bytes" "$kver" \
	"$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" > "$report"
cat "$report"
echo "insn: report in $report"
