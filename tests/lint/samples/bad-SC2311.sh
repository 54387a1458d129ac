#!/bin/bash
# SC2311: inside $( ) set -e is off (no inherit_errexit): the assertion
# in the function before its last command fails unseen.
set -eu
stats() {
	grep -q "^total" /proc/net/magnet_stats
	awk '$1 == "total" { print $2 }' /proc/net/magnet_stats
}
n=$(stats) # expect: SC2311
echo "$n"
