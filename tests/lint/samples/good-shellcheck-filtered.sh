#!/bin/bash
# Reports of shellcheck that do not matter for a check, which run.sh leaves
# out (shpatterns.py filters them): SC2310/SC2311 on a one-command
# predicate, a function that returns its status explicitly, one that only
# gathers output, or a call from code that does not run under set -e.
pred() { [ -e "$1" ]; }
log() { echo "[t] $*"; }
# wait_exit PID SECONDS: PID's status, 124 if it did not exit in time
wait_exit() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		if ! kill -0 "$1" 2> /dev/null; then
			wait "$1"
			return $?
		fi
		sleep 0.1
	done
	log "process $1 did not exit within $2 s"
	return 124
}
leftovers() {
	find /lib/modules -name 'magnet.ko*' 2> /dev/null
	ls -d /usr/src/magnet-* 2> /dev/null
}
teacup_stop() {
	echo finish > /proc/net/magnet
	[ -s /tmp/mg/reader.log ]
	cat /proc/net/magnet_stats
}
run_case() {
	local left rc=0
	if pred /dev/null; then log yes; fi
	sleep 1 &
	wait_exit $! 5 || rc=$?
	left=$(leftovers)
	log "$left $rc"
}
for c in run_case; do
	(set -eE; "$c")
done
# the top level does not run under set -e: the if changes nothing
if teacup_stop; then log stopped; fi
# A && B || C that hides nothing (SC2015 left out): C fails on purpose,
# C is a test, C ignores a failure on purpose, B cannot fail
usage() {
	echo "usage: good-SC2310.sh" >&2
	exit 2
}
[ "${1:-}" = -o ] && [ $# -ge 3 ] || usage
[ -d /tmp ] && [ -e /tmp/x ] || { log "no /tmp/x"; exit 1; }
[ -n "${1:-}" ] && [ "$1" -gt 0 ] || [ "${2:-}" = force ]
[ -e /tmp/pid ] && kill "$(cat /tmp/pid)" 2> /dev/null || true
[ "$(id -u)" = 0 ] && sudo= || sudo=sudo
echo "$sudo"
# SC2155 and SC2251 where set -e is not on (only the cases run under it):
# nothing is masked or skipped that set -e would have seen
export MAGNET_KVER=$(uname -r)
! grep -q "$MAGNET_KVER" /dev/null
