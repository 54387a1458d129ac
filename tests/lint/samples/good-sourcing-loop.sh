#!/bin/bash
# A driver that sources its cases' files in a loop, as tests/vm/guest.sh
# sources tests/vm/cases/*.sh, and runs each case under (set -eE; ...):
# the functions of those files rely on set -e, and call this file's
# (bad-sourced-cases.sh has the findings).
here=$(cd "$(dirname "$0")" && pwd)
# is_up PID: PID runs (a one-statement predicate)
is_up() { kill -0 "$1"; }
for f in "$here"/bad-sourced-*.sh; do
	. "$f"
done
for name in case_sourced; do
	(set -eE; "$name") &
	wait $! || echo "FAIL $name"
done
