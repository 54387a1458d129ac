#!/bin/bash
# mid-and-chain: in a set -e script, an && list whose last command is a
# test, not the last command of its function: a failing command but the
# last only makes the list return 1, and the script goes on.
set -eu
is_up() { kill -0 "$1"; }
lost=0
closed=
case_accounting() {
	local n=5 hits=5
	[ "$lost" = 0 ] && [ -n "$closed" ] && [ "$closed" -gt 0 ] # expect: mid-and-chain
	[ $((n)) = "$hits" ]
}
case_alive() {
	local c4=$$ c6=$$ i
	for i in 1 2; do
		kill -0 $c4 && kill -0 $c6 # expect: mid-and-chain
		sleep 0
	done
	echo "$i" > /dev/null && is_up $c4 # expect: mid-and-chain
	[ -s /dev/null ] && # expect: mid-and-chain
		! grep -q ERROR /dev/null
	if true; then
		[[ -n $c4 ]] && (( c6 > 0 )) # expect: mid-and-chain
		echo "not last: the if is not the function's last command"
	fi
}
case_accounting
case_alive
# at the top level too
[ -e /nonexistent ] && cmp -s /dev/null /dev/null # expect: mid-and-chain
echo done
