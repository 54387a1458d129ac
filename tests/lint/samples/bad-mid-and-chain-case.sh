#!/bin/bash
# mid-and-chain in a suite whose driver runs each case function under
# (set -eE; ...) (tests/vm/guest.sh): no set -e at the top level, but the
# functions rely on it.
checklog=/usr/bin/true
CHECK="python3 tests/vm/checklog.py"
case_reader() {
	local disc=
	[ -n "$disc" ] && [ "$disc" -ge 1 ] # expect: mid-and-chain
	[ -e /dev/null ] && $CHECK format /dev/null # expect: mid-and-chain
	echo "$checklog"
}
for name in case_reader; do
	(set -eE; "$name") &
	wait $! || echo "FAIL $name"
done
# the driver itself does not run under set -e
[ -e /dev/null ] && [ -e /dev/zero ]
echo done
