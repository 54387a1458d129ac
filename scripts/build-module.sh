#!/bin/bash
# usage: scripts/build-module.sh KVER OUTDIR [MODNAME]
# Build MODNAME.ko (default magnet; ttprobe for the TEACUP drop-in) for KVER
# in OUTDIR (a copy of module/, so builds for several kernels or names do not
# clobber each other) with W=1, against MAGNET_KDIR if set (a kernel build
# tree), and fail if the compiler warns about any of our files.
set -eu
kver=$1
out=$2
name=${3:-magnet}
top=$(cd "$(dirname "$0")/.." && pwd)
# MAGNET_KDIR: a kernel build tree instead of the installed headers
kdir=${MAGNET_KDIR:-/lib/modules/$kver/build}
if [ ! -d "$kdir" ]; then
	echo "build-module: no headers for $kver at $kdir" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
cp "$top"/module/Kbuild "$top"/module/*.c "$top"/module/*.h "$out"/
make -s -C "$kdir" M="$out" MAGNET_MODNAME="$name" W=1 modules > "$out/build.log" 2>&1 || {
	cat "$out/build.log" >&2
	echo "build-module: build for $kver failed" >&2
	exit 1
}
if grep -E 'warning:|error:' "$out/build.log" >&2; then
	echo "build-module: compiler warnings for $kver (W=1)" >&2
	exit 1
fi
echo "build-module: $out/$name.ko for $kver, no warnings at W=1"
