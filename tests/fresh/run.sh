#!/bin/bash
# make check-fresh: prove that scripts/deps.sh installs everything magnet
# needs on a brand-new Debian 12, so `make demo` works for a new user.
#
#   host:  debootstrap --variant=minbase bookworm  ->  ROOT (scratch, outside
#          the checkout, removed at the end)
#          + the host's trusted CA certificates and its apt/pip proxy
#            settings (what a new machine on this network also has)
#          + a clean clone of this checkout's HEAD  ->  ROOT/root/magnet
#   chroot ROOT (/proc, /sys, /dev mounted; a trap unmounts them):
#          scripts/deps.sh              (must install everything, by name)
#          scripts/deps.sh again        (must find nothing to do)
#          MAGNET_DEMO_SIZE=1M make demo
#                                       build, boot the newest kernel line,
#                                       load magnet, 1 MiB of iperf3, finish
#   then:  the log holds the iperf3 flow, in order from its SYN, with at
#          least what iperf3's server read (tests/fresh/seqspan.awk), the kernel log
#          no BUG/WARNING/Oops, and the commands deps.sh promises exist.
#
# Needs root (debootstrap, chroot, mounts) and network access to
# deb.debian.org and PyPI. About 6 minutes and 3.6 GB of scratch disk on a
# two-core machine.
#
# MAGNET_FRESH_DIR   where the scratch root goes (default: a new directory
#                    under /var/tmp)
# MAGNET_FRESH_KEEP=1  keep the root afterwards (unmounted) for a look
# MAGNET_FRESH_WITHOUT=PKG  remove Debian package PKG from the clone's
#                    scripts/deps.sh list before running it (and purge it if
#                    something else pulled it in): the run must then fail,
#                    naming what is missing. Shows the test can fail.
# MAGNET_FRESH_PHASE=prepare  only the root and deps.sh (twice), into
#                    MAGNET_FRESH_DIR, which it leaves (unmounted) with a
#                    mark of the commit it cloned; =demo then goes on from
#                    such a root of this HEAD (make demo and its checks) and
#                    removes it. .ci/run prepares while make check runs (the
#                    downloads wait on the network, not the CPU) and runs
#                    the demo after it. Default: all of it, in one go.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top"/scripts/kernel-bad.sh
suite=bookworm
mirror=http://deb.debian.org/debian
security=http://deb.debian.org/debian-security
start=$(date +%s)
phase=${MAGNET_FRESH_PHASE:-all}
prepared=0

say() { echo "fresh: $*"; }
die() {
	echo "fresh: FAILED: $*" >&2
	exit 1
}
elapsed() { echo "$(($(date +%s) - start)) s"; }

case $phase in all | prepare | demo) ;; *) die "MAGNET_FRESH_PHASE=$phase: all, prepare or demo" ;; esac
[ "$phase" = all ] || [ -n "${MAGNET_FRESH_DIR:-}" ] ||
	die "MAGNET_FRESH_PHASE=$phase needs MAGNET_FRESH_DIR, the root both phases use"
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot and mounts)"
for c in debootstrap chroot mount umount git findmnt; do
	PATH=$PATH:/usr/sbin:/sbin command -v "$c" > /dev/null ||
		die "the host lacks the command '$c' (make deps installs it)"
done

root=${MAGNET_FRESH_DIR:-$(mktemp -d /var/tmp/magnet-fresh.XXXXXX)}
mkdir -p "$root"
root=$(cd "$root" && pwd)
case "$root/" in
"$top"/*) die "the scratch root $root must be outside the checkout (dkms add . would copy it)" ;;
esac

mounted=()
unmount_all() {
	local i
	for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
		umount "${mounted[i]}" 2> /dev/null || umount -l "${mounted[i]}" 2> /dev/null || true
	done
	mounted=()
}
cleanup() {
	local rc=$?
	unmount_all
	# never delete through a mount that is still there
	if findmnt -rn -o TARGET | grep -q "^$root/"; then
		echo "fresh: mounts remain under $root; not removing it" >&2
	elif [ "$prepared" = 1 ]; then
		:
	elif [ "${MAGNET_FRESH_KEEP:-0}" = 1 ]; then
		echo "fresh: root kept in $root"
	else
		rm -rf --one-file-system "$root"
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

bind() {
	mkdir -p "$root$2"
	mount "${@:3}" "$1" "$root$2"
	mounted+=("$root$2")
}

# the root: debootstrap, the sources, the host's CA certificates and
# proxy settings, a clean clone (and MAGNET_FRESH_WITHOUT's edit of it)
build_root() {
	local f
	say "debootstrap --variant=minbase $suite into $root"
	debootstrap --variant=minbase "$suite" "$root" "$mirror" > "$root.debootstrap.log" 2>&1 || {
		tail -n 20 "$root.debootstrap.log" >&2
		die "debootstrap failed (log: $root.debootstrap.log)"
	}
	rm -f "$root.debootstrap.log"
	say "root built ($(elapsed))"

	# the standard three bookworm sources
	cat > "$root/etc/apt/sources.list" <<-EOF
		deb $mirror $suite main
		deb $mirror $suite-updates main
		deb $security $suite-security main
	EOF
	cp /etc/resolv.conf "$root/etc/resolv.conf"
	cp /etc/hosts "$root/etc/hosts"

	# The host's trusted CA certificates, each as a local CA of the new root:
	# the ca-certificates package, which deps.sh installs, then builds the
	# bundle with them (a TLS-inspecting network needs its CA).
	mkdir -p "$root/usr/local/share/ca-certificates/host"
	awk -v d="$root/usr/local/share/ca-certificates/host" '
		/-----BEGIN CERTIFICATE-----/ { n++; f = sprintf("%s/host-%03d.crt", d, n) }
		f { print > f }
		/-----END CERTIFICATE-----/ { close(f); f = "" }' /etc/ssl/certs/ca-certificates.crt
	say "$(ls "$root/usr/local/share/ca-certificates/host" | wc -l) CA certificates from the host"

	# package-proxy settings for apt and pip, if the host has any
	for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do
		[ -f "$f" ] && grep -qi 'proxy' "$f" && cp "$f" "$root$f" && say "apt proxy settings: $f"
	done
	for f in /etc/pip.conf /etc/xdg/pip/pip.conf; do
		[ -f "$f" ] && mkdir -p "$root$(dirname "$f")" && cp "$f" "$root$f" && say "pip settings: $f"
	done

	# a clean clone of what is committed here
	git clone -q --no-local "$top" "$root/root/magnet"
	say "cloned $(git -C "$root/root/magnet" rev-parse --short HEAD) into the root"

	if [ -n "${MAGNET_FRESH_WITHOUT:-}" ]; then
		sed -i "/^pkgs=/,/\"\$/ s/\\([\" ]\\)${MAGNET_FRESH_WITHOUT}\\([ \"\\\\]\\)/\\1\\2/" \
			"$root/root/magnet/scripts/deps.sh"
		! grep -qw -- "$MAGNET_FRESH_WITHOUT" <(sed -n '/^pkgs=/,/"$/p' "$root/root/magnet/scripts/deps.sh") ||
			die "could not take $MAGNET_FRESH_WITHOUT out of deps.sh's list"
		say "negative run: $MAGNET_FRESH_WITHOUT taken out of the clone's deps.sh"
	fi
}

# deps.sh twice in the root (the second must do nothing), then every
# command it promises
install_deps() {
	local t0 again cmds absent c
	say "scripts/deps.sh in the new root"
	t0=$(date +%s)
	in_root 'cd /root/magnet && scripts/deps.sh' || die "scripts/deps.sh failed in the fresh root (see above)"
	say "deps installed in $(($(date +%s) - t0)) s; root is $(du -sxh "$root" | cut -f1)"

	if [ -n "${MAGNET_FRESH_WITHOUT:-}" ]; then
		# something else may pull the package in; then take it out by force
		in_root "dpkg-query -W -f='\${Status}' $MAGNET_FRESH_WITHOUT 2>/dev/null | grep -q 'ok installed' &&
			dpkg --purge --force-depends $MAGNET_FRESH_WITHOUT > /dev/null 2>&1 && echo fresh: purged $MAGNET_FRESH_WITHOUT" || true
	fi

	# deps.sh is idempotent: a second run changes nothing and says nothing
	again=$(in_root 'cd /root/magnet && scripts/deps.sh' 2>&1) || die "second deps.sh run failed: $again"
	[ -z "$again" ] || die "second deps.sh run was not quiet: $again"

	# every command deps.sh promises, checked again from outside deps.sh
	cmds=$(sed -n '/^cmds="/,/"$/p' "$root/root/magnet/scripts/deps.sh" | tr -d '"\\' | sed 's/^cmds=//')
	[ -n "$cmds" ] || die "no cmds= list in deps.sh"
	absent=
	for c in $cmds; do
		in_root "command -v $c > /dev/null" || absent="$absent $c"
	done
	[ -z "$absent" ] || die "commands missing after deps.sh:$absent"
}

mark=$root/.magnet-fresh-prepared
head=$(git -C "$top" rev-parse HEAD)
if [ "$phase" = demo ]; then
	[ "$(cat "$mark" 2> /dev/null)" = "prepared $head" ] ||
		die "$root is not a root MAGNET_FRESH_PHASE=prepare made for $head (its mark: $(cat "$mark" 2> /dev/null || echo none))"
	[ "$(git -C "$root/root/magnet" rev-parse HEAD)" = "$head" ] ||
		die "the clone in $root is not $head"
	say "the demo phase, in the root prepared for $(git -C "$top" rev-parse --short HEAD)"
else
	rm -f "$mark"
	build_root
fi
envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 TERM=dumb)
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY PIP_PROXY PIP_INDEX_URL; do
	[ -n "${!v:-}" ] && envs+=("$v=${!v}") && say "passing $v"
done

bind proc /proc -t proc
bind sysfs /sys -t sysfs
bind /dev /dev --bind
bind devpts /dev/pts -t devpts
bind tmpfs /dev/shm -t tmpfs

in_root() {
	chroot "$root" /usr/bin/env -i "${envs[@]}" /bin/bash -c "$1"
}

[ "$phase" = demo ] || install_deps
if [ "$phase" = prepare ]; then
	echo "prepared $(git -C "$root/root/magnet" rev-parse HEAD)" > "$mark"
	prepared=1
	say "prepared in $(elapsed); the demo phase: MAGNET_FRESH_PHASE=demo MAGNET_FRESH_DIR=$root"
	exit 0
fi

say "smoke run: MAGNET_DEMO_SIZE=1M make demo"
out=$root/root/magnet/build/demo
in_root 'cd /root/magnet && MAGNET_DEMO_SIZE=1M make demo' || {
	tail -n 40 "$out/console.log" 2> /dev/null | sed 's/^/fresh: console| /' >&2
	die "make demo failed in the fresh root (see above)"
}
[ -s "$out/magnet.log" ] || die "the demo wrote no log"
# (virtme-ng-init's own warnings, about tools a minimal root lacks, are not
# the kernel's)
bad=$(grep -E "$KERNEL_BAD" "$out/dmesg.txt" "$out/console.log" | grep -v 'virtme-ng-init:' || true)
[ -z "$bad" ] || die "the guest kernel complained: $bad"
# the iperf3 data flow (the flow to port 5201 that sent the most): its 'o'
# lines cover its sequence space from the SYN on without a gap, and at
# least what iperf3's server read. Not "the 1 MiB the client wrote": the
# server stops reading at the test's end, and its close then resets the
# connection, so the client may never send the last of it (seen once in
# CI: 895,765 bytes sent and logged). seqspan.awk says how.
flow=$(awk -F, -v port=5201 -f "$top/tests/fresh/seqspan.awk" "$out/magnet.log" |
	awk '$1 ~ /^10\.200\.1\.1,[0-9]+,10\.200\.1\.2,5201$/ && $2 > max { max = $2; f = $0 } END { print f }')
rcvd=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["end"]["sum_received"]["bytes"])' \
	"$out/iperf3.json") || die "the demo's iperf3.json is not readable"
read -r _ sent span gaps _ <<< "$flow" || true
if [ -z "$gaps" ] || [ "$span" -lt 0 ] || [ "$gaps" != 0 ] ||
	[ "$sent" -lt "$span" ] || [ "$span" -lt "$rcvd" ] || [ "$rcvd" -lt 65536 ]; then
	sed 's/^/fresh: summary| /' "$out/summary.txt" >&2
	die "the log's iperf3 flow: '$flow' (flow, bytes in its o lines, sequence span from the SYN, gaps), iperf3's server read $rcvd bytes"
fi
say "log: $(wc -l < "$out/magnet.log") lines, the iperf3 flow sent $sent bytes in order from its SYN; iperf3's server read $rcvd"
# the summary's kernel counters are the transfer's, once (the experiment's
# runs, which load magnet again, have their own), and its iperf3 server's
# listening socket is marked, not counted as a connection
[ "$(grep -c '^kernel counters: [0-9]* records written' "$out/summary.txt")" = 1 ] ||
	die "the demo's summary has not one line of kernel counters: $(grep '^kernel counters' "$out/summary.txt")"
grep -Eq ',5201,[0-9a-f:.]+,0 .*\(listening socket\)$' "$out/summary.txt" ||
	die "the demo's summary does not mark iperf3's listening socket"
# the experiment part: a comparison row per variant, a verdict per run, and
# the figures (matplotlib, which deps.sh installs)
for v in cubic reno; do
	grep -q "^| $v | 1 |" "$out/exp/comparison.md" ||
		die "the demo's comparison table has no row for $v"
	[ "$(head -c 8 "$out/exp/demo_${v}_1_"*"_magnet.analysis/cwnd_srtt.png" | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ] ||
		die "the demo's $v run has no cwnd_srtt.png"
done
runs=$(python3 -c 'import json, sys; print(" ".join(r["variant"] + ":" + r["verdict"] for r in json.load(open(sys.argv[1]))["runs"]))' "$out/exp/summary.json") ||
	die "the demo's summary.json is not readable"
[ "$(echo $runs | wc -w)" = 2 ] || die "the demo's summary.json has runs '$runs', want cubic and reno"
# a clean demo's trace verdicts are confirmed: anything else fails here
# (make demo itself reports them without --strict)
for r in $runs; do
	[ "${r#*:}" = confirmed ] || die "the demo's run ${r%%:*}: verdict ${r#*:}, want confirmed (see $out/exp)"
done
say "experiment: $runs; figures drawn"
say "passed in $(elapsed)"
