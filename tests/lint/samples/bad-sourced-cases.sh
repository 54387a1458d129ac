# shellcheck shell=bash
# A file of cases good-sourcing-loop.sh sources in a loop: its functions
# run under set -e there, though nothing here says so, and they call that
# file's functions (is_up, a predicate).
case_sourced() {
	local n
	n=$(date +%s)
	[ -n "$n" ] && [ "$n" -gt 0 ] # expect: mid-and-chain
	local x=$(date +%s) # expect: SC2155
	echo "$x" > /dev/null && is_up $$ # expect: mid-and-chain
	echo "$n"
}
