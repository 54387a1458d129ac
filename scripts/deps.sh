#!/bin/bash
# Install what magnet needs on a Debian 12 machine: the toolchain, both
# Debian kernel lines with headers (6.1 and 6.12), QEMU, the test traffic
# tools, DKMS, and virtme-ng from PyPI. Idempotent, and quiet when all is
# present.
set -eu

pkgs="gcc make libelf-dev bc kmod python3 \
linux-image-amd64 linux-headers-amd64 \
linux-image-6.12-amd64 linux-headers-6.12-amd64 \
qemu-system-x86 iperf3 ethtool iproute2 iputils-ping procps \
dkms git xz-utils zlib1g-dev clang libclang-rt-14-dev"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	[ "$(id -u)" = 0 ] && sudo= || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends $missing > /tmp/magnet-deps-apt.log 2>&1 || {
		cat /tmp/magnet-deps-apt.log >&2
		exit 1
	}
fi

if ! command -v vng > /dev/null 2>&1; then
	echo "deps: installing virtme-ng from PyPI"
	python3 -m pip install --quiet virtme-ng 2> /tmp/magnet-deps-pip.log || {
		# Debian's own python3 marks itself externally managed
		python3 -m pip install --quiet --break-system-packages virtme-ng
	}
fi
command -v vng > /dev/null 2>&1 || {
	echo "deps: vng is not on PATH after installing virtme-ng" >&2
	exit 1
}
