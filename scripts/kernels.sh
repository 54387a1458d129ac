#!/bin/bash
# usage: scripts/kernels.sh [--ends | --host | --root KVER]
# Print the kernel releases this machine can build for and boot, oldest
# first: those with /boot/vmlinuz-<kver> and headers, either installed here
# (/lib/modules/<kver>/build) or in a build root of their own distribution
# (scripts/extra-kernels.sh: 5.10 in Debian 11's, 7.2 in unstable's).
#   --ends       only the oldest and the newest that make check tests
#                (a PREEMPT_RT build of a line is not an end)
#   --host       only those whose headers are installed on this machine
#                (what DKMS and make install can build for)
#   --root KVER  the build root that has KVER's headers, or nothing when
#                they are installed on this machine (status 1: neither)
set -eu
roots=${MAGNET_ROOTS:-$HOME/.cache/magnet/roots}

# the build root holding KVER's headers
root_of() {
	local r
	for r in "$roots"/*; do
		# (in the root, /lib/modules/KVER/build may be absent or absolute)
		if [ -d "$r/usr/src/linux-headers-$1" ]; then
			echo "$r"
			return 0
		fi
	done
	return 1
}

if [ "${1:-}" = --root ]; then
	[ -d "/lib/modules/$2/build" ] && exit 0
	root_of "$2"
	exit
fi

all=$(
	for m in /lib/modules/*; do
		k=$(basename "$m")
		[ -e "/boot/vmlinuz-$k" ] || continue
		if [ -d "$m/build" ] ||
		   { [ "${1:-}" != --host ] && root_of "$k" > /dev/null; }; then
			echo "$k"
		fi
	done | sort -V
)

if [ "${1:-}" = --ends ]; then
	# oldest and newest by version; a PREEMPT_RT build of a line is not an end
	ends=$(echo "$all" | grep -v -- '-rt-' || true)
	{ echo "$ends" | head -n 1; echo "$ends" | tail -n 1; } | grep . | uniq
else
	echo "$all" | grep . || true
fi
