#!/bin/bash
# usage: scripts/extra-kernels.sh [LINE...]   (make deps-all)
# Fetch, idempotently, the kernel lines beyond Debian 12's 6.1 and 6.12 that
# `make check` and `make check-all` test (README "Kernels";
# docs/kernels.md, "Where they come from"):
#   rt    6.1 PREEMPT_RT: Debian 12's linux-image-rt-amd64 and its headers,
#         installed on this machine by apt like the other two
#   5.10  Debian 11's kernel; its headers want Debian 11's compiler (gcc-10)
#   7.2   Debian unstable's kernel; its kbuild wants gcc-16 and glibc >= 2.38
# The last two are built in a debootstrapped root of their own distribution
# (a build root, cached outside the repository in $MAGNET_ROOTS, default
# ~/.cache/magnet/roots/<suite>, reused), with their headers installed there
# by apt. Their image is unpacked onto this machine: /boot/vmlinuz-<kver>
# and /lib/modules/<kver> (the guest's module tree is the host's), so
# scripts/kernels.sh lists them and tests/vm/run.sh boots them.
# scripts/build-module.sh builds in the root when the host has no headers.
# With no LINE, all three. Quiet and quick when everything is present;
# MAGNET_KERNELS_UPDATE=1 also asks the roots' mirrors for a newer kernel.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
roots=${MAGNET_ROOTS:-$HOME/.cache/magnet/roots}
mirror=${MAGNET_MIRROR:-http://deb.debian.org/debian}
lines=${*:-rt 5.10 7.2}
[ "$(id -u)" = 0 ] && sudo= || sudo=sudo
export DEBIAN_FRONTEND=noninteractive

log=$(mktemp /tmp/magnet-kernels.XXXXXX)
trap 'rm -f "$log"' EXIT
quiet() {	# run "$@" with its output kept for a failure
	"$@" > "$log" 2>&1 || {
		tail -n 40 "$log" >&2
		echo "extra-kernels: failed: $*" >&2
		exit 1
	}
}

# a build root of SUITE with a kernel build's tools; prints nothing
mkroot() {
	local suite=$1 r=$roots/$1
	if [ ! -e "$r/.magnet-root-ok" ]; then
		echo "extra-kernels: debootstrap $suite into $r"
		$sudo rm -rf "$r"
		$sudo mkdir -p "$roots"
		quiet $sudo debootstrap --variant=minbase \
			--include=gcc,make,libc6-dev,libelf-dev,bc,kmod,xz-utils,ca-certificates \
			"$suite" "$r" "$mirror"
		$sudo touch "$r/.magnet-root-ok"
	fi
	# unstable's and an archived suite's Release files may be past their
	# Valid-Until on the mirror: apt refuses them unless told
	echo 'Acquire::Check-Valid-Until "false";' |
		$sudo tee "$r/etc/apt/apt.conf.d/99magnet" > /dev/null
}

# in root SUITE: run ARGS
inroot() {
	local r=$roots/$1
	shift
	$sudo chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		DEBIAN_FRONTEND=noninteractive "$@"
}

# unpack the image package PKG (downloaded in root SUITE) for KVER onto
# this machine, unless already there. Since 7.x Debian splits the image into
# linux-binary-KVER (vmlinuz), linux-modules-KVER and linux-base-KVER, which
# it depends on: those come too.
unpack_image() {
	local suite=$1 pkg=$2 kver=$3 r=$roots/$1 d parts f
	if [ -e "/boot/vmlinuz-$kver" ] && [ -e "/lib/modules/$kver/modules.dep" ]; then
		return 0
	fi
	echo "extra-kernels: unpacking $pkg onto /boot and /lib/modules"
	parts="$pkg $(inroot "$suite" apt-cache depends "$pkg" |
		awk -v k="-$kver" '/Depends: linux-/ && substr($2, length($2) - length(k) + 1) == k {print $2}' | tr '\n' ' ')"
	quiet inroot "$suite" sh -c "mkdir -p /tmp/kimg && cd /tmp/kimg && rm -f ./*.deb && apt-get download $parts"
	d=$(mktemp -d /tmp/magnet-kimg.XXXXXX)
	for f in "$r"/tmp/kimg/*.deb; do
		quiet dpkg-deb -x "$f" "$d"
	done
	rm -rf "$r"/tmp/kimg
	# usrmerge or not, the packages have (usr/)lib/modules/KVER, and the
	# image in boot/ or (7.x) in the modules directory
	local m=$d/lib/modules/$kver
	[ -d "$m" ] || m=$d/usr/lib/modules/$kver
	[ -d "$m" ] && [ -e "$d/boot/vmlinuz-$kver" -o -e "$m/vmlinuz" ] || {
		echo "extra-kernels: $parts: no vmlinuz or modules for $kver" >&2
		exit 1
	}
	$sudo rm -rf "/lib/modules/$kver"
	$sudo cp -a "$m" "/lib/modules/$kver"
	$sudo depmod "$kver"
	for f in config System.map vmlinuz; do
		for src in "$d/boot/$f-$kver" "$m/$f"; do
			[ -e "$src" ] && $sudo install -m 0644 "$src" "/boot/$f-$kver"
		done
	done
	rm -rf "$d"
}

# the newest <abi>-amd64 kernel of root SUITE: its image and headers
rooted() {
	local suite=$1 abi kver img
	mkroot "$suite"
	# done already (MAGNET_KERNELS_UPDATE=1 looks for a newer ABI)
	kver=$(cat "$roots/$suite/.magnet-kver" 2>/dev/null || true)
	if [ -n "$kver" ] && [ "${MAGNET_KERNELS_UPDATE:-0}" != 1 ] &&
	   [ -d "$roots/$suite/usr/src/linux-headers-$kver" ] &&
	   [ -e "/boot/vmlinuz-$kver" ] && [ -e "/lib/modules/$kver/modules.dep" ]; then
		return 0
	fi
	# the metapackage names the current ABI; it may have moved on since
	# the root was made
	quiet inroot "$suite" apt-get update -q
	img=$(inroot "$suite" apt-cache depends linux-image-amd64 |
		awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
	[ -n "$img" ] || { echo "extra-kernels: no linux-image-amd64 in $suite" >&2; exit 1; }
	abi=${img#linux-image-}
	abi=${abi%-unsigned}
	kver=$abi
	if [ ! -d "$roots/$suite/usr/src/linux-headers-$kver" ]; then
		echo "extra-kernels: installing linux-headers-$kver in the $suite root"
		quiet inroot "$suite" apt-get install -y -q --no-install-recommends \
			"linux-headers-$kver"
	fi
	unpack_image "$suite" "$img" "$kver"
	echo "$kver" | $sudo tee "$roots/$suite/.magnet-kver" > /dev/null
}

for l in $lines; do
	case $l in
	rt)
		"$top"/scripts/deps.sh linux-image-rt-amd64 linux-headers-rt-amd64 ;;
	5.10)
		rooted bullseye ;;
	7.2)
		rooted sid ;;
	*)
		echo "extra-kernels: unknown line '$l' (rt, 5.10, 7.2)" >&2
		exit 1 ;;
	esac
done
