#!/bin/bash
# && lists that are fine under set -e.
set -eu
opts=()
x=${1:-}
log() { echo "[test] $*"; }
# a one-command predicate: its status is the function's
both() { [ -e /dev/null ] && [ -e /dev/zero ]; }
ends_if() {
	log "an if as the function's last command"
	if [ -n "$x" ]; then
		[ "$x" -gt 0 ] && [ "$x" -lt 9 ]
	fi
}
ends_case() {
	case $x in
	'') [ -e /dev/null ] && [ -e /dev/zero ] ;;
	*) log "$x" ;;
	esac
}
ends_subshell() {
	(
		cd /
		[ -d tmp ] && [ -d etc ]
	)
}
guards() {
	local i
	# guard && action: the action's failure does stop the script
	[ -n "$x" ] && opts+=(--x "$x")
	[ -z "$x" ] && x=default
	[ "$x" = default ] && log "no x given"
	for i in 1 2 3; do
		[ "$i" = 2 ] && continue
		[ -e /dev/null ] && break
	done
	# in a condition, or followed by ||: tested
	if [ -e /dev/null ] && [ -e /dev/zero ]; then log both; fi
	while [ -e /nonexistent ] && [ -e /dev/zero ]; do sleep 1; done
	[ -e /dev/null ] && [ -e /dev/zero ] || return 1
	# in the background, or inside $( ): not a statement of this script
	[ -e /dev/null ] && [ -e /dev/zero ] &
	wait
	echo "$([ -e /dev/null ] && [ -e /dev/zero ] && echo yes)"
	[ -e /dev/null ] && [ -e /dev/zero ]
}
both
ends_if
ends_case
ends_subshell
guards
# the file's last command: the script's exit status
[ -e /dev/null ] && [ "${#opts[@]}" -ge 0 ]
