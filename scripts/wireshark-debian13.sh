#!/bin/bash
# usage: scripts/wireshark-debian13.sh   (make check-wireshark-13)
# The Wireshark plugin (wireshark/magnet.lua) with Debian 13's tshark
# (4.4), as tests/unit/check.sh runs it with Debian 12's (4.0): every
# magnet.* field of make demo's 7.2 log (--drops, then --events) and of
# the TCP-event, qdisc and drop logs of 7.2 against the magnet text
# (tests/unit/checkwireshark.py). tshark and Python come from a
# debootstrapped Debian 13 root (minbase with tshark and python3), cached
# in $MAGNET_ROOTS (default ~/.cache/magnet/roots/trixie-wireshark), the
# repository bind-mounted into it for the run and unmounted after. Run as
# the user nobody there: Wireshark 4.4 loads no Lua plugin for root.
# Needs root (debootstrap, chroot, mount) and make userspace first.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
roots=${MAGNET_ROOTS:-$HOME/.cache/magnet/roots}
root=$roots/trixie-wireshark
mirror=${MAGNET_MIRROR:-http://deb.debian.org/debian}
[ -x "$top/userspace/ttpb2ascii" ] || { echo "wireshark-13: make userspace first" >&2; exit 2; }
if [ ! -x "$root/usr/bin/tshark" ]; then
	echo "wireshark-13: debootstrap trixie (tshark, python3) into $root"
	rm -rf "$root"
	mkdir -p "$roots"
	debootstrap --variant=minbase --include=tshark,python3 trixie "$root" \
		"$mirror" > "$roots/trixie-wireshark.log" 2>&1 || {
		tail -n 20 "$roots/trixie-wireshark.log" >&2
		exit 2
	}
fi
work=$root/tmp/magnet-ws
mkdir -p "$root/magnet"
mount --bind "$top" "$root/magnet"
trap 'umount "$root/magnet"; rm -rf "$work"' EXIT
echo "wireshark-13: $(chroot "$root" tshark --version 2> /dev/null | head -n 1)"
rc=0
rm -rf "$work"
mkdir -p "$work"
zcat "$top/tests/unit/demo-7.2.bin.gz" > "$work/demo-7.2.bin"
chmod -R a+rwX "$work"
for f in "/tmp/magnet-ws/demo-7.2.bin --drops" "/tmp/magnet-ws/demo-7.2.bin --events" \
	"/magnet/tests/unit/tcpev-7.2.bin --events" \
	"/magnet/tests/unit/qdisc-7.2.bin --events" \
	"/magnet/tests/unit/drops-7.2.bin --drops"; do
	rm -rf "$work/out"
	mkdir "$work/out"
	chmod a+rwx "$work/out"
	# shellcheck disable=SC2086
	if chroot --userspec=65534:65534 "$root" env HOME=/tmp/magnet-ws \
		python3 /magnet/tests/unit/checkwireshark.py /magnet/userspace/ttpb2ascii \
		/magnet/wireshark/magnet.lua ${f%% *} /tmp/magnet-ws/out ${f#* } \
		> "$work/log" 2>&1; then
		echo "wireshark-13: ${f##*/}: $(tail -n 1 "$work/log")"
	else
		tail -n 10 "$work/log"
		echo "wireshark-13: ${f##*/}: FAILED"
		rc=1
	fi
done
exit $rc
