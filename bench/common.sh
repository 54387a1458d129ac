# shellcheck shell=bash
# Sourced by bench/run.sh and bench/profile.sh: the one guest boot both
# measure in.

# bench_boot NAME KVER OUT TIMEOUT GUEST_SCRIPT ARGS...: build the module
# for KVER, copy GUEST_SCRIPT (bench/), bench/guest-common.sh and
# scripts/netpair.sh into OUT, and run GUEST_SCRIPT MAGNET_KO OUT ARGS... in
# one boot of KVER under the instruction clock (-icount shift=0,sleep=off,
# one vCPU: icount hangs bringing up a second; BENCH_QEMU_OPTS adds QEMU
# options, bench/insn.sh's plugin). Fails, naming NAME, unless
# the guest wrote OUT/done and its kernel log (OUT/dmesg.txt) is clean.
bench_boot() {
	local name=$1 kver=$2 out=$3 tmo=$4 script=$5 top
	shift 5
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	"$top"/scripts/build-module.sh "$kver" "$top/build/$kver" > /dev/null
	make -s -C "$top/userspace" magnet-record
	cp "$top/bench/$script" "$top"/bench/guest-common.sh "$top"/scripts/netpair.sh \
		"$top"/userspace/magnet-record "$out/"
	# cryptomgr.notests: under the instruction clock, the crypto self-test
	# that udev's loading of ghash_clmulni_intel starts can outlast its
	# timeout and print "WARNING: ... crypto_wait_for_test" (seen on 6.1),
	# which is no concern of a benchmark and would fail it
	timeout --kill-after=30 "$tmo" vng --verbose --run "/boot/vmlinuz-$kver" --disable-kvm \
		--cpus 1 --memory 2G --rwdir "$out" --qemu-opts="-icount shift=0,sleep=off${BENCH_QEMU_OPTS:+ $BENCH_QEMU_OPTS}" \
		--append "cryptomgr.notests${BENCH_APPEND:+ $BENCH_APPEND}" \
		--exec "bash $out/$script $top/build/$kver/magnet.ko $out $*" \
		< /dev/null > "$out/console.log" 2>&1 || true
	if [ ! -e "$out/done" ]; then
		echo "$name: the guest did not finish; see $out/console.log" >&2
		tail -n 20 "$out/console.log" >&2
		return 1
	fi
	. "$top"/scripts/kernel-bad.sh
	if grep -E "$KERNEL_BAD" "$out/dmesg.txt"; then
		echo "$name: kernel warnings in the guest" >&2
		return 1
	fi
}

# bench_kver NAME [KVER]: KVER, else the 6.1 line's kernel on this machine
bench_kver() {
	local top kver
	top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	kver=${2:-$("$top"/scripts/kernels.sh | grep -E '^6\.1\.[0-9]+-[0-9]+-amd64$' | head -n 1)}
	[ -n "$kver" ] || { echo "$1: no 6.1 kernel; name one (bench/$1.sh KVER)" >&2; return 1; }
	echo "$kver"
}
