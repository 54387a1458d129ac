#!/bin/bash
# usage: scripts/reliability.sh STRESS_DIR
# docs/reliability.md from what the suites wrote: each kernel's
# STRESS_DIR/<kver>/reliability.txt (tests/vm/guest.sh, stress_* cases) and
# its result, and the last `make fuzz` run (build/fuzz-results).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:?usage: scripts/reliability.sh STRESS_DIR}
cat <<'HEAD'
# Reliability

Written by the suites themselves: `make check-stress` (the stress cases of
`tests/vm/guest.sh`, booted with `-accel tcg,thread=single`; see there
why) regenerates this file; the fuzzing numbers come from the last
`make fuzz` on the same tree. Any kernel warning, `BUG:`, Oops, lockup or
RCU stall in a guest fails its run.

HEAD
for d in "$dir"/*/; do
	k=$(basename "$d")
	[ -e "$d/result" ] || continue
	echo "## $k"
	echo
	echo "Run on $(date -u -r "$d/result" +%Y-%m-%d), magnet $("$top"/scripts/version.sh):"
	echo "$(sed -n 's/^\([0-9]* passed, [0-9]* failed\)$/\1/p' "$d/result")."
	echo
	if [ -s "$d/reliability.txt" ]; then
		sed 's/^/- /' "$d/reliability.txt"
	else
		echo "- no suite wrote a result"
	fi
	echo
done
echo "## Fuzzing"
echo
res=$top/build/fuzz-results
if [ -s "$res" ] && grep -qE '^(ok|stopped) .* [0-9]' "$res"; then
	echo "Last \`make fuzz\`, $(date -u -r "$res" +%Y-%m-%d), libFuzzer with ASan and UBSan:"
	echo
	awk '$1 == "ok" { printf "- `%s`: %d executions, 0 crashes\n", $2, $3 }
	     $1 == "stopped" { printf "- `%s`: %d executions, 0 crashes (stopped early, short of the 10 million)\n", $2, $3 }
	     $1 == "failed" { printf "- `%s`: FAILED (see tests/fuzz/work/%s.log)\n", $2, $2 }' "$res"
else
	echo "No \`make fuzz\` run recorded on this tree."
fi
