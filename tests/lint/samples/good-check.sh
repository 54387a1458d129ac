#!/bin/bash
# The right ways with a check helper: the whole assertion is the checked
# command; a failed check is acted on in an if.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
	fail=$((fail + 1))
	echo "FAIL: $*"
	return 1
}
check() {
	local desc=$1
	shift
	if "$@"; then ok; else bad "$desc"; fi
}
complete() { [ "$rc" = 3 ] && cmp -s a b; }
rc=3
check "exit 3, every complete record printed" complete
check "exit 3, every complete record printed" sh -c '[ "$1" = 3 ] && cmp -s a b' sh "$rc"
if ! check "the files match" cmp -s a b; then
	diff a b | head
fi
# words and strings are not commands
echo "check x && y" 'check x || y'
echo check && echo "not a helper call"
cat <<'TXT'
check "in a here-document" [ 1 = 1 ] && cmp -s a b
TXT
# check "in a comment" [ 1 = 1 ] && cmp -s a b
echo "$pass passed, $fail failed"
