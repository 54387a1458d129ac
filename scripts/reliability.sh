#!/bin/bash
# usage: scripts/reliability.sh -o FILE STRESS_DIR...
# docs/reliability.md (FILE) from what the suites wrote: each kernel's
# STRESS_DIR/<kver>/reliability.txt (tests/vm/cases/92-stress.sh) and
# its result, for every STRESS_DIR (one per boot: make check-stress boots
# the hotplug suite apart), and the last `make fuzz` run
# (build/fuzz-results). A kernel with no result in any STRESS_DIR, and the
# fuzzing section when no `make fuzz` ran here, keep what FILE said of them,
# so one suite's run does not erase another's (make check-debug on a
# machine where make check-stress never ran). Within a kernel's section a
# new run replaces the earlier runs it repeats: a run of VM-suite cases
# those that named any of its cases, a stress run those that began with
# the same suite (load/unload, CPU hotplug); the others stay, each with its
# date, so the VM suite run in parts on a slow kernel (the debug kernel:
# a boot per part, MAGNET_TEST_CASES) adds up. FILE is replaced whole.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
usage() { echo "usage: scripts/reliability.sh -o FILE STRESS_DIR..." >&2; exit 2; }
[ "${1:-}" = -o ] && [ $# -ge 3 ] || usage
file=$2
shift 2
old=$(mktemp)
new=$(mktemp)
sec=$(mktemp)
trap 'rm -f "$old" "$new" "$sec"' EXIT
[ -e "$file" ] && cp "$file" "$old"

# old_section TITLE: FILE's "## TITLE" section, up to the next "## "
old_section() {
	awk -v t="## $1" '/^## / { on = ($0 == t) } on' "$old"
}

# runs KERNEL STRESS_DIR...: the runs of KERNEL in the STRESS_DIRs
runs() {
	local k=$1 dir d
	shift
	for dir in "$@"; do
		d=$dir/$k
		[ -e "$d/result" ] || continue
		echo "Run on $(date -u -r "$d/result" +%Y-%m-%d), magnet $("$top"/scripts/version.sh), $(sed -n 's/^kernel .*//;s/^\([0-9]* passed, [0-9]* failed\)$/\1/p' "$d/result")$(sed -n 's/^cpus \([0-9]*\)$/ on \1 vCPUs/p' "$d/result"):"
		echo
		if [ -s "$d/reliability.txt" ]; then
			sed 's/^/- /' "$d/reliability.txt"
		elif [ -d "$d/logs" ]; then
			echo "- $(awk '/^[0-9]+ passed, [0-9]+ failed$/ { n = $1 + $3; print n (n == 1 ? " case" : " cases") }' "$d/result") of the VM suite of \`make check\`"
			if grep -q '^passed:' "$d/result"; then
				echo "- passed:$(sed -n 's/^passed://p' "$d/result")"
			fi
		else
			echo "- no suite wrote a result"
		fi
		if grep -q '^failed:' "$d/result"; then
			echo "- failed:$(sed -n 's/^failed://p' "$d/result")"
		fi
		if [ -e "$d/kmemleak.txt" ]; then
			echo "- debug kernel: KASAN, lockdep (PROVE_LOCKING, PROVE_RCU), DEBUG_ATOMIC_SLEEP, UBSAN and kmemleak on; $(grep -c '^unreferenced object' "$d/kmemleak.txt") unreferenced objects after the cases and the unload; $(grep -cE 'BUG:|WARNING:|UBSAN:' "$d/dmesg.txt" 2>/dev/null || :) checker reports in the kernel log"
		fi
		echo
	done
}

{
cat <<'HEAD'
# Reliability

Written by the suites themselves: `make check-stress` (the stress cases,
`tests/vm/cases/92-stress.sh`, booted with `-accel tcg,thread=single`; see
there why) and `make check-debug` (the VM suite and the stress cases on a debug
kernel) regenerate this file from the last run of each case and suite on
each kernel, each run with its date; the fuzzing numbers come from the
last `make fuzz`. Any kernel warning, `BUG:`, UBSAN report, Oops, lockup
or RCU stall in a guest fails its run, and on the debug kernel any leak
kmemleak finds.

HEAD
for k in $({ for dir in "$@"; do ls "$dir" 2>/dev/null; done
	    sed -n 's/^## //p' "$old" | grep -vx Fuzzing; } | sort -uV); do
	have=
	for dir in "$@"; do [ -e "$dir/$k/result" ] && have=1; done
	if [ -z "$have" ]; then
		old_section "$k"
		continue
	fi
	echo "## $k"
	echo
	runs "$k" "$@" | tee "$sec"
	# the earlier runs this one does not repeat: one parser reads the new
	# runs ($sec) first, for the cases and suites they repeat, then the
	# earlier ones (stdin)
	old_section "$k" | awk -v newf="$sec" '
	function cases(line, set,   n, i, w) {
		n = split(substr(line, index(line, ":") + 1), w, " ")
		for (i = 1; i <= n; i++) set[w[i]] = 1
	}
	function flush(   c, keep) {
		if (blk == "") return
		if (isnew) {
			for (c in bc) newc[c] = 1
			if (!vm) newl[label] = 1
		} else {
			keep = 1
			if (vm) { for (c in bc) if (c in newc) keep = 0 }
			else if (label in newl) keep = 0
			if (keep) printf "%s", blk
		}
		blk = ""; vm = 0; label = ""; delete bc
	}
	FNR == 1 { flush(); isnew = (FILENAME == newf) }
	/^Run on / { flush(); blk = $0 "\n"; first = 1; next }
	blk == "" { next }
	{ blk = blk $0 "\n" }
	/^- (passed|failed):/ { vm = 1; cases($0, bc); next }
	first && /^- / { label = substr($0, 3, index($0, ":") - 3); first = 0 }
	END { flush() }' "$sec" -
done
echo "## Fuzzing"
echo
res=$top/build/fuzz-results
if [ -s "$res" ] && grep -qE '^(ok|stopped) .* [0-9]' "$res"; then
	echo "Last \`make fuzz\`, $(date -u -r "$res" +%Y-%m-%d), libFuzzer with ASan and UBSan:"
	echo
	awk '$1 == "ok" && $3 < 10000000 { printf "- `%s`: %d executions, 0 crashes (short of the 10 million)\n", $2, $3; next }
	     $1 == "ok" { printf "- `%s`: %d executions, 0 crashes\n", $2, $3 }
	     $1 == "stopped" { printf "- `%s`: %d executions, 0 crashes (stopped early, short of the 10 million)\n", $2, $3 }
	     $1 == "failed" { printf "- `%s`: FAILED (see tests/fuzz/work/%s.log)\n", $2, $2 }' "$res"
elif grep -qx '## Fuzzing' "$old"; then
	old_section Fuzzing | tail -n +3
else
	echo "No \`make fuzz\` run recorded on this tree."
fi
} > "$new"
chmod 644 "$new"
mv "$new" "$file"
trap - EXIT
rm -f "$old" "$sec"
