#!/bin/bash
# true-on-verdict: `|| true` or `|| :` right after a verdict.
set -eu
CHECK="/usr/bin/python3 -S tests/vm/checklog.py"
cmp -s a b || true # expect: true-on-verdict
grep -q 'ok installed' status || : # expect: true-on-verdict
dmesg | grep -Eq 'BUG|WARNING' || true # expect: true-on-verdict
$CHECK format a.log || true # expect: true-on-verdict
python3 tests/vm/checkstack.py lost a.bin || true # expect: true-on-verdict
diff -u want got || true # expect: true-on-verdict
[ -e a ] && cmp a b || : # expect: true-on-verdict
