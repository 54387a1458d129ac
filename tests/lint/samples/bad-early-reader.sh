#!/bin/bash
# early-reader: under pipefail, a reader that stops before its input ends
set -eu -o pipefail
dmesg | grep -q BUG # expect: early-reader
dmesg | grep -a -q BUG && echo found # expect: early-reader
tr -dc 'a-z' < /dev/urandom | head -c 8 # expect: early-reader
sort ptrs | awk '$1 ~ /^ff/ { print; exit }' # expect: early-reader
tc -s qdisc show | sed -n '/netem/{p;q}' # expect: early-reader
dmesg | grep -m 1 BUG # expect: early-reader
