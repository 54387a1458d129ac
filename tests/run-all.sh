#!/bin/bash
# Everything `make check` runs: the static check of the shell scripts for
# patterns that make a check unfailable (tests/lint/run.sh), the userspace
# build, the unit tests, a short
# fuzz run of the command parsers, the VM tests on the oldest and the newest
# kernel line (scripts/kernels.sh --ends: 5.10 and 7.2, every case on the
# first, the kernel-dependent ones on the other; MAGNET_CHECK_ALL=1,
# make check-all: every case on every line this machine has,
# scripts/kernels.sh) and the packaging tests (which install
# onto this machine and remove it all again). Ends with the last lines of
# every failed step, then one summary line; each step's whole output is in
# build/check/.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0
fail=0
failed=()
logs=$top/build/check
mkdir -p "$logs"
rm -f "$logs"/*.log

step() {
	local name=$1 log rc
	shift
	log=$logs/${name%% *}.log
	echo "=== $name"
	"$@" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		echo "=== $name: ok"
	else
		fail=$((fail + 1))
		failed+=("$name")
		echo "=== $name: FAILED (status $rc)"
	fi
}

# builds on every core (the unit tests' sanitizer builds took half their
# step's minutes one at a time)
jobs=-j$(nproc)
step "lint (test scripts)" tests/lint/run.sh
step "userspace build" make -s "$jobs" userspace
step "unit tests" make -s "$jobs" -C tests/unit check
step "fuzz (20 s per target)" make -s "$jobs" -C tests/fuzz run
if [ "${MAGNET_CHECK_ALL:-0}" = 1 ]; then
	step "VM tests" env MAGNET_VM_ALL=1 tests/vm/run.sh $(scripts/kernels.sh)
else
	# one boot at a time (tests/vm/run.sh's MAGNET_VM_JOBS says why)
	step "VM tests" tests/vm/run.sh
fi
step "packaging tests" tests/pkg/run.sh
# a case that cannot run says SKIP (tests/vm/lib.sh's skip), never PASS:
# each one is listed here and counted apart in the summary
skips=$(grep -h -E '^ *(\[guest\] )?SKIP ' "$logs"/*.log 2>/dev/null | sed 's/^ *//')
nskip=0
[ -n "$skips" ] && nskip=$(echo "$skips" | wc -l)
for name in "${failed[@]}"; do
	echo "=== recap: $name FAILED; its last lines (all in $logs/${name%% *}.log):"
	tail -n 25 "$logs/${name%% *}.log"
done
if [ "$nskip" != 0 ]; then
	echo "=== skipped (cannot run on this machine):"
	echo "$skips" | sed 's/^/  /'
fi
echo "check: $pass passed, $fail failed${failed:+ (${failed[*]})}, $nskip cases skipped"
[ "$fail" = 0 ]
