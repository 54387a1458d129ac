#!/bin/bash
# set -e in a subshell that is a statement of its own: it works, and the
# status is tested afterwards.
set -u
f() {
	false
	echo "not reached"
}
log=$(mktemp)
# step NAME CMD...: CMD under set -e, its output in a log
step() {
	local rc
	(set -e; "$@") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then echo "$1: ok"; else echo "$1: FAILED"; fi
}
step f
(set -e; f)
rc=$?
echo "status $rc"
# the last command of an && list is not in a condition
[ -n "$log" ] && (set -e; f)
# a case in the background, waited for
(set -eE; f) &
wait $! || echo "the case failed"
rm -f "$log"
