#!/bin/bash
# Install everything magnet's build, demo, tests, benchmark and packaging
# tests use, on a Debian 12 machine, from a minimal install
# (`debootstrap --variant=minbase bookworm`) up: the packages listed below
# (both Debian kernel lines with headers: 6.1 and 6.12), and virtme-ng from
# PyPI in a virtual environment, its commands (vng, virtme-run, ...) linked
# into /usr/local/bin.
# Idempotent, and quiet when all is present. Ends by checking that every
# command the project runs is there, and names any that is not.
# usage: scripts/deps.sh [PACKAGE...]: also the Debian packages named
# (scripts/debug-kernel.sh: the kernel source and what builds it).
set -eu

# what apt installs (docs/install.md, "What make deps installs", lists the same)
pkgs="gcc make libc6-dev libelf-dev bc kmod git ca-certificates \
linux-image-amd64 linux-headers-amd64 \
linux-image-6.12-amd64 linux-headers-6.12-amd64 \
qemu-system-x86 busybox-static file python3 python3-venv \
iperf3 ethtool iproute2 iputils-ping procps \
dkms xz-utils gzip zlib1g-dev clang libclang-rt-14-dev debootstrap \
tcpdump bpftrace linux-perf tshark nftables python3-matplotlib python3-scipy \
python3-asyncssh openssh-server socat python3-wheel shellcheck \
chromium chromium-driver fonts-liberation $*"

# virtme-ng, pinned; it lives in its own venv (Debian's python3 has no pip
# and refuses system-wide installs)
VNG_VERSION=1.42
VENV=/usr/local/lib/magnet-venv

# The Parquet readers make check compares ttpb2ascii -f parquet with
# (tests/unit/test_parquet.py): pyarrow, pandas, Polars and DuckDB, the
# engines docs/outputs.md names, pinned, in a venv of their own (Debian 12
# packages none but pandas; ttpb2ascii itself needs none of them)
READERS_VENV=/usr/local/lib/magnet-readers
READERS="pyarrow==25.0.1 pandas==2.2.3 numpy==2.4.6 polars==1.44.2 duckdb==1.5.6"

# the commands the project runs; a missing one fails here by name
cmds="gcc make ld bc depmod modprobe git \
qemu-system-x86_64 busybox file python3 vng virtme-run \
iperf3 ethtool ip tc ss ping sysctl timeout awk sed \
dkms xz gzip clang debootstrap tcpdump bpftrace perf tshark nft sshd ssh-keygen \
socat shellcheck chromium chromedriver"

[ "$(id -u)" = 0 ] && sudo= || sudo=sudo

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	# openssh-server is for the sshd the tests start themselves
	# (magnet-exp's testbeds over SSH): one that deps.sh installs is not
	# to run as a service (Debian's ssh.service and init script honour
	# this file); an sshd already installed is left as it is
	case " $missing " in
	*" openssh-server "*)
		$sudo mkdir -p /etc/ssh && $sudo touch /etc/ssh/sshd_not_to_be_run
		echo "deps: openssh-server's service disabled (/etc/ssh/sshd_not_to_be_run)" ;;
	esac
	export DEBIAN_FRONTEND=noninteractive
	log=$(mktemp /tmp/magnet-deps-apt.XXXXXX)
	{ $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends $missing; } \
		> "$log" 2>&1 || {
		tail -n 40 "$log" >&2
		echo "deps: apt-get failed; its whole output is in $log" >&2
		exit 1
	}
	rm -f "$log"
fi

if [ "$("$VENV/bin/vng" --version 2>/dev/null | awk '{print $NF}')" != "$VNG_VERSION" ]; then
	echo "deps: installing virtme-ng $VNG_VERSION from PyPI into $VENV"
	# Debian's python3 explicitly: a pyenv or conda python3 on PATH is not
	# what the guest will see
	$sudo /usr/bin/python3 -m venv "$VENV"
	$sudo "$VENV/bin/python3" -m pip install --quiet "virtme-ng==$VNG_VERSION"
fi
readers_have() {
	"$READERS_VENV/bin/python3" - $READERS <<'PY' 2>/dev/null
import sys
from importlib.metadata import version
sys.exit(any(version(n) != v for n, v in (a.split("==") for a in sys.argv[1:])))
PY
}
if ! readers_have; then
	echo "deps: installing the Parquet readers ($READERS) from PyPI into $READERS_VENV"
	$sudo /usr/bin/python3 -m venv "$READERS_VENV"
	# shellcheck disable=SC2086
	$sudo "$READERS_VENV/bin/python3" -m pip install --quiet $READERS
fi
# vng runs virtme-run and its other helpers from PATH
for t in vng virtme-run virtme-ng virtme-configkernel virtme-mkinitramfs virtme-prep-kdir-mods; do
	[ "$(readlink "/usr/local/bin/$t" 2>/dev/null)" = "$VENV/bin/$t" ] ||
		$sudo ln -sfn "$VENV/bin/$t" "/usr/local/bin/$t"
done

absent=
for c in $cmds; do
	PATH=$PATH:/usr/sbin:/sbin command -v "$c" > /dev/null 2>&1 || absent="$absent $c"
done
# the Python modules magnet-exp imports, with Debian's python3
for m in asyncssh; do
	/usr/bin/python3 -c "import $m" > /dev/null 2>&1 || absent="$absent python3:$m"
done
readers_have || absent="$absent $READERS_VENV:$(echo $READERS | tr ' ' ,)"
if [ -n "$absent" ]; then
	echo "deps: missing after install:$absent" >&2
	exit 1
fi
