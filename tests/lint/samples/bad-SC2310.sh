#!/bin/bash
# SC2310: a function invoked in a condition runs with set -e off: the
# assertion in it before its last command fails unseen.
set -eu
teacup_stop() {
	echo finish > /proc/net/magnet
	[ -s /tmp/mg/reader.log ]
	cat /proc/net/magnet_stats
}
if teacup_stop; then # expect: SC2310
	echo stopped
fi
teacup_stop || echo "stop failed" # expect: SC2310
case_stop() {
	local rc=0
	teacup_stop || rc=$? # expect: SC2310
	[ "$rc" = 0 ]
}
case_stop
