#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/same-output.sh REV LOG...: ttpb2ascii built at git revision REV
# and the one of this tree must write the same bytes, and exit with the
# same status, for every LOG in every output format (ttprobe, magnet,
# web10g, legacy, pcapng, pcap, pcap-ns). For a change that must not
# change what the tools write (a restructuring): run it on the VM suite's
# logs (build/vm-*/*/logs/*.bin after make check) and the unit fixtures.
# Prints one line per difference and a count; exits 1 if any.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 REV LOG..." >&2; exit 2; }
rev=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$top"/scripts/rev-tree.sh "$rev" "$tmp/old" > /dev/null
make -s -C "$tmp/old/userspace" ttpb2ascii >/dev/null
make -s -C "$top/userspace" ttpb2ascii >/dev/null
old=$tmp/old/userspace/ttpb2ascii
new=$top/userspace/ttpb2ascii
n=0 diffs=0
for log in "$@"; do
	for f in ttprobe magnet web10g legacy pcapng pcap pcap-ns; do
		rc_old=0 rc_new=0
		"$old" -f "$f" "$log" > "$tmp/o" 2> "$tmp/oe" || rc_old=$?
		"$new" -f "$f" "$log" > "$tmp/n" 2> "$tmp/ne" || rc_new=$?
		n=$((n + 1))
		if [ "$rc_old" != "$rc_new" ]; then
			echo "$log -f $f: exit $rc_old at $rev, $rc_new now"
			diffs=$((diffs + 1))
		elif ! cmp -s "$tmp/o" "$tmp/n"; then
			echo "$log -f $f: output differs ($(wc -c < "$tmp/o") bytes at $rev, $(wc -c < "$tmp/n") now)"
			diffs=$((diffs + 1))
		elif ! cmp -s "$tmp/oe" "$tmp/ne"; then
			echo "$log -f $f: messages differ"
			diffs=$((diffs + 1))
		fi
	done
done
echo "same-output: $n runs, $diffs differences against $rev"
[ "$diffs" = 0 ]
