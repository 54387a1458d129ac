#!/bin/bash
# SC2320: $? after echo is echo's status (0), not the command's.
cmp -s a b
echo "cmp done"
rc=$? # expect: SC2320
[ "$rc" = 0 ]
