#!/bin/bash
# check-and: a check helper followed by && or ||. The part after the
# operator is not part of the checked command: it runs outside the helper
# and its verdict is thrown away (or it runs on the helper's own status).
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
}
check() {
	local desc=$1
	shift
	if "$@"; then ok; else bad "$desc"; fi
}
step() {
	local name=$1
	shift
	echo "--- $name"
	check "$name" "$@"
}
rc=3
check "exit 3, every complete record printed" [ "$rc" = 3 ] && cmp -s a b # expect: check-and
# on a continuation line too
check "exit 3, every complete record printed" \
	[ "$rc" = 3 ] && cmp -s a b # expect: check-and
check "the files match" cmp -s a b || # expect: check-and
	diff a b | head
step "build" make -s all && step "install" make -s install # expect: check-and
echo "$pass passed, $fail failed"
