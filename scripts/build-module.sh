#!/bin/bash
# usage: scripts/build-module.sh KVER OUTDIR [MODNAME]
# Build MODNAME.ko (default magnet; ttprobe for the TEACUP drop-in) for KVER
# in OUTDIR (a copy of module/, so builds for several kernels or names do not
# clobber each other) with W=1, against MAGNET_KDIR if set (a kernel build
# tree), and fail if the compiler warns about any of our files.
# A kernel whose headers live in a build root of its own distribution
# (scripts/kernels.sh --root; 5.10 and 7.2 need their own compilers) is
# built inside that root, with its gcc.
set -eu
kver=$1
out=$2
name=${3:-magnet}
top=$(cd "$(dirname "$0")/.." && pwd)
# MAGNET_KDIR: a kernel build tree instead of the installed headers
kdir=${MAGNET_KDIR:-/lib/modules/$kver/build}
root=
[ -z "${MAGNET_KDIR:-}" ] && root=$("$top"/scripts/kernels.sh --root "$kver" 2>/dev/null || true)
if [ -z "$root" ] && [ ! -d "$kdir" ]; then
	echo "build-module: no headers for $kver at $kdir" >&2
	exit 1
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
# the sources: module/, its uapi/ and shared/ (not the objects an
# in-tree build leaves there)
copy_src() {
	mkdir -p "$1/uapi" "$1/shared"
	cp "$top"/module/Kbuild "$top"/module/*.c "$top"/module/*.h "$1"/
	cp "$top"/module/uapi/*.h "$1/uapi/"
	cp "$top"/module/shared/*.c "$top"/module/shared/*.h "$1/shared/"
}
copy_src "$out"
if [ -n "$root" ]; then
	# copy in, build with the root's compiler, copy the result out
	# a directory of its own: two builds for one kernel at once (two
	# trees, a test beside a benchmark) must not share it
	mkdir -p "$root/var/tmp"
	rel=$(mktemp -d -p "$root/var/tmp" "magnet-build-$name-$kver.XXXXXX")
	rel=${rel#"$root"/}
	trap 'rm -rf "${root:?}/${rel:?}"' EXIT
	copy_src "$root/$rel"
	# objtool reads /proc: a private mount namespace gets its own, gone
	# with it
	unshare --mount --propagation private sh -c '
		mount -t proc proc "$1/proc" &&
		exec chroot "$1" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			make -s -j"$5" -C "/usr/src/linux-headers-$2" M="/$3" MAGNET_MODNAME="$4" W=1 modules
	' sh "$root" "$kver" "$rel" "$name" "$(nproc)" > "$out/build.log" 2>&1 &&
		cp "$root/$rel/$name.ko" "$out/"
else
	make -s -j"$(nproc)" -C "$kdir" M="$out" MAGNET_MODNAME="$name" W=1 modules > "$out/build.log" 2>&1
fi || {
	cat "$out/build.log" >&2
	echo "build-module: build for $kver failed" >&2
	exit 1
}
if grep -E 'warning:|error:' "$out/build.log" >&2; then
	echo "build-module: compiler warnings for $kver (W=1)" >&2
	exit 1
fi
echo "build-module: $out/$name.ko for $kver, no warnings at W=1"
