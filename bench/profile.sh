#!/bin/bash
# usage: bench/profile.sh [KVER]      (make bench-profile)
#
# Where magnet's instructions go, per event: the configurations of
# `make bench` (bench/guest.sh) in one guest boot under the instruction
# clock (-icount shift=0,sleep=off, one vCPU), each transfer recorded with
# `perf record -a -e cpu-clock` inside the guest. Under that clock a sample
# falls every N executed instructions, so a symbol's share of the samples,
# times the run's guest time, is the instructions it executed. A table per
# configuration gives, per symbol, the instructions per recorded event above
# the baseline transfer's (scaled to the same bytes): what magnet adds,
# in its own code and in the kernel's (copies to user memory, page
# clearing of the file the reader writes, ...).
#
# One caveat, from the emulator: a timer interrupt is taken only when
# interrupts are enabled, so the samples of a section run with interrupts
# off land on the instruction that enables them. magnet's handlers fill a
# record with interrupts off (magnet_rec_begin .. magnet_rec_end, which is
# inlined): that whole section shows as the builder that ends it,
# magnet_record_tcp, magnet_record_pkt or magnet_app_return.
#
# PROFILE_BYTES (default 30M) per transfer; PROFILE_CONFIGS (default:
# baseline tcp-handlers handlers tcp-binary tcp-ascii all-binary, the
# binary ones in format=2; also tcp-binary-v3 and all-binary-v3, the same
# in format=3, the default).
# PROFILE_CALLERS (a comma-separated list of symbols, e.g.
# memset_erms,clear_page_erms): perf records call graphs, and the report
# gives, per configuration, those symbols' instructions per event by chain
# of callers. Under the instruction clock the samples in a `rep` string
# instruction are not spread by its iterations (docs/benchmark.md: a memset the call
# graphs put at 41 million instructions did 30 million): the chains say
# where such a symbol is called from, make bench-insn how much it costs.
# Report: stdout and bench/results/<date>-<kernel>-profile.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top"/bench/common.sh
kver=$(bench_kver profile "${1:-}")
bytes=${PROFILE_BYTES:-30M}
configs=${PROFILE_CONFIGS:-baseline tcp-handlers handlers tcp-binary tcp-ascii all-binary}
out=$top/build/profile/$kver
rm -rf "$out"
mkdir -p "$out"
for t in perf iperf3; do
	command -v $t > /dev/null || { echo "profile: $t is missing; run make deps" >&2; exit 1; }
done
case " $configs " in *" baseline "*) ;; *) configs="baseline $configs" ;; esac
echo "profile: $kver, iperf3 -n $bytes, perf record in the guest: $configs"
bench_boot profile "$kver" "$out" 3600 profile-guest.sh "$bytes" \
	${PROFILE_CALLERS:+callers=$PROFILE_CALLERS} $configs
mkdir -p "$top/bench/results"
report=$top/bench/results/$(date +%Y-%m-%d)-$kver-profile.md
python3 "$top"/bench/profile-report.py "$out" "$bytes" "$kver" \
	"$(git -C "$top" describe --always --dirty 2>/dev/null || echo unknown)" $configs > "$report"
cat "$report"
echo "profile: report in $report"
