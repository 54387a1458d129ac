#!/bin/bash
# SC2030/SC2031: the failure counter is bumped in the pipeline's subshell;
# the count is lost when the loop ends and the summary says 0 failed.
fail=0
printf 'a\nb\n' | while read -r l; do
	[ "$l" = a ] || fail=$((fail + 1)) # expect: SC2030
done
echo "$fail failed" # expect: SC2031
[ "$fail" = 0 ] # expect: SC2031
