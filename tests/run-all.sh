#!/bin/bash
# Everything `make check` runs: the userspace build, the unit tests, a short
# fuzz run of the command parsers, the VM
# tests on every installed kernel line and the packaging tests (which install
# onto this machine and remove it all again). Prints one closing summary line.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
pass=0
fail=0

step() {
	local name=$1
	shift
	echo "=== $name"
	if "$@"; then
		pass=$((pass + 1))
		echo "=== $name: ok"
	else
		fail=$((fail + 1))
		echo "=== $name: FAILED"
	fi
}

step "userspace build" make -s userspace
step "unit tests" make -s -C tests/unit check
step "fuzz (20 s)" make -s -C tests/fuzz run
step "VM tests" tests/vm/run.sh
step "packaging tests" tests/pkg/run.sh
echo "check: $pass passed, $fail failed"
[ "$fail" = 0 ]
