#!/bin/bash
# usage: scripts/debug-kernel.sh
# Build (once) the debug kernel `make check-debug` boots: Debian's
# linux-source-6.12 with virtme-ng's small guest config plus the checkers
# WireGuard's CI runs with: KASAN, lockdep (PROVE_LOCKING, which brings
# PROVE_RCU), DEBUG_ATOMIC_SLEEP, UBSAN and kmemleak; the networking the VM
# suite uses (veth, netem, IPv6, user namespaces, socket diag, userfaultfd,
# BBR; prio, u32 and gact for a classifier's drop, 802.1Q; nftables with
# numgen, notrack and queue, which the drop, tcpev and Monarch cases'
# rules use) built in.
# The tree is cached outside the repository, in $MAGNET_DEBUG_KERNEL
# (default ~/.cache/magnet/debug-6.12), and rebuilt only when this
# script's config changes. Prints the tree's path, its only output on stdout.
# Takes about 25 minutes on 2 cores the first time (measured 2026-11-25).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tree=${MAGNET_DEBUG_KERNEL:-$HOME/.cache/magnet/debug-6.12}
src=/usr/src/linux-source-6.12.tar.xz

# the project's packages (deps.sh) and what a kernel build needs
"$top"/scripts/deps.sh linux-source-6.12 flex bison bc libelf-dev libssl-dev \
	xz-utils >&2

# the checkers, and what the VM suite needs built in (the guest's /lib is
# the host's: a module of this kernel could not be found there)
items="
KASAN=y KASAN_GENERIC=y KASAN_INLINE=y
PROVE_LOCKING=y PROVE_RCU=y DEBUG_LOCKDEP=y DEBUG_ATOMIC_SLEEP=y
DEBUG_SPINLOCK=y DEBUG_MUTEXES=y DEBUG_RWSEMS=y
UBSAN=y UBSAN_BOUNDS=y UBSAN_SHIFT=y
DEBUG_KMEMLEAK=y DEBUG_KMEMLEAK_MEM_POOL_SIZE=65536 DEBUG_KMEMLEAK_AUTO_SCAN=n
DEBUG_KMEMLEAK_DEFAULT_OFF=n
DEBUG_FS=y KALLSYMS_ALL=y DEBUG_INFO_NONE=y DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT=n DEBUG_INFO_DWARF4=n DEBUG_INFO_DWARF5=n
MODULES=y MODULE_UNLOAD=y MODVERSIONS=n MODULE_SIG=n
KPROBES=y KRETPROBES=y FTRACE=y FUNCTION_TRACER=y DYNAMIC_FTRACE=y
NET=y INET=y IPV6=y NET_NS=y USER_NS=y VETH=y PACKET=y UNIX=y
NET_SCHED=y NET_SCH_NETEM=y NET_SCH_TBF=y NET_SCH_FQ_CODEL=y NET_SCH_FQ=y NET_SCH_DEFAULT=n
NET_SCH_PRIO=y NET_CLS=y NET_CLS_ACT=y NET_CLS_U32=y NET_ACT_GACT=y VLAN_8021Q=y
NETFILTER=y NETFILTER_ADVANCED=y NF_CONNTRACK=y NF_TABLES=y NF_TABLES_INET=y
NF_TABLES_IPV4=y NF_TABLES_IPV6=y NFT_NUMGEN=y NFT_CT=y NFT_QUEUE=y
NETFILTER_NETLINK_QUEUE=y
INET_DIAG=y INET_TCP_DIAG=y INET_UDP_DIAG=y
TCP_CONG_ADVANCED=y TCP_CONG_CUBIC=y TCP_CONG_RENO=y TCP_CONG_BBR=y
HOTPLUG_CPU=y SOFTLOCKUP_DETECTOR=y DETECT_HUNG_TASK=y USERFAULTFD=y
LOCALVERSION=\"-magnet-debug\" LOCALVERSION_AUTO=n
"
# KASAN's build inlines dev_qdisc_enqueue(), which Debian's kernels keep
# out of line, and magnet takes the enqueue's packet at its entry
# (module/qdisc.c): kept out of line here too, or the debug kernel would
# run none of that code
patch="dev_qdisc_enqueue noinline"
want=$(printf '%s\n' "$items" "$patch" "$(sha256sum "$src" | cut -c1-16)" | sha256sum | cut -c1-16)
if [ -f "$tree/.magnet-built" ] && [ "$(cat "$tree/.magnet-built")" = "$want" ]; then
	echo "$tree"
	exit 0
fi

if [ ! -f "$tree/Makefile" ]; then
	echo "debug-kernel: unpacking $src into $tree" >&2
	mkdir -p "$tree"
	tar -xf "$src" -C "$tree" --strip-components=1
fi
cd "$tree"
rm -f .magnet-built
grep -q '^static noinline int dev_qdisc_enqueue(' net/core/dev.c ||
	sed -i 's/^static int dev_qdisc_enqueue(/static noinline int dev_qdisc_enqueue(/' net/core/dev.c
grep -q '^static noinline int dev_qdisc_enqueue(' net/core/dev.c || {
	echo "debug-kernel: dev_qdisc_enqueue() not found in net/core/dev.c" >&2; exit 1; }
args=()
for i in $items; do args+=(--configitem "CONFIG_$i"); done
echo "debug-kernel: configuring (virtme-ng's guest config and the checkers)" >&2
vng --kconfig "${args[@]}" > .magnet-kconfig.log 2>&1 || {
	tail -n 30 .magnet-kconfig.log >&2; exit 1; }
# vng applies its own fragments last (they turn debug info on): set ours again
for i in $items; do
	k=${i%%=*} v=${i#*=}
	case $v in
	y) ./scripts/config -e "$k" ;;
	n) ./scripts/config -d "$k" ;;
	\"*) v=${v#\"}; ./scripts/config --set-str "$k" "${v%\"}" ;;
	*) ./scripts/config --set-val "$k" "$v" ;;
	esac
done
make olddefconfig >> .magnet-kconfig.log 2>&1
# every checker must have survived olddefconfig: a dependency it lacks
# would silently drop it
for c in KASAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP UBSAN DEBUG_KMEMLEAK \
	DEBUG_INFO_NONE KPROBES KRETPROBES DYNAMIC_FTRACE VETH NET_SCH_NETEM NET_SCH_FQ USER_NS INET_DIAG HOTPLUG_CPU \
	USERFAULTFD TCP_CONG_BBR NET_SCH_PRIO NET_CLS_U32 NET_ACT_GACT VLAN_8021Q \
	NF_TABLES NF_TABLES_INET NFT_NUMGEN NFT_CT NFT_QUEUE NETFILTER_NETLINK_QUEUE; do
	grep -q "^CONFIG_$c=y" .config || {
		echo "debug-kernel: CONFIG_$c did not survive the config" >&2; exit 1; }
done
echo "debug-kernel: building $(make -s kernelrelease) with $(nproc) jobs (log: $tree/.magnet-build.log)" >&2
make -j"$(nproc)" > .magnet-build.log 2>&1 || { tail -n 40 .magnet-build.log >&2; exit 1; }
echo "$want" > .magnet-built
echo "$tree"
