#!/bin/bash
# early-reader: readers that read to the end, and early ones without
# pipefail's file
set -eu -o pipefail
dmesg | grep BUG > /dev/null
sort ptrs | awk '$1 ~ /^ff/ && !n++'
awk '{ n++ } END { print n; exit !n }' file | cat
tc -s qdisc show | sed -n 1,12p
grep -q BUG file
head -c 8 /dev/urandom > key
