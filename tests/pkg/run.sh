#!/bin/bash
# Packaging tests (part of make check). They install onto THIS machine and
# remove everything again on exit:
#   1. DKMS: dkms add, then build and install for every installed kernel
#      line; dkms status shows magnet installed for each.
#   2. For each kernel, `make install-ttprobe-compat`, then a VM boot of the
#      newest (make check-all: of each; the
#      guest sees this machine's /lib/modules) running the VM cases tagged
#      "# suite: pkg" (tests/vm/cases/91-pkg.sh): case_dkms_modprobe
#      (TEACUP lifecycle through `modprobe magnet`) and case_ttprobe_compat
#      (the same through `modprobe ttprobe` and /proc/net/ttprobe).
#   3. dkms remove and the compat uninstall leave no magnet files behind.
#   4. make install / make uninstall into a scratch DESTDIR install and
#      remove exactly the files docs/install.md lists.
#   5. The make dist tarball builds in a scratch directory with the manual
#      steps of the ttprobe report (extract, make, copy to extra/, depmod).
#   6. dkms.conf at the root carries MAGNET_VERSION, and the DKMS workflow
#      from a clone works: `dkms install . -k <release>` on the first
#      kernel line (step 1's `dkms build`/`install -m -v -k` covers every
#      line by name); dkms remove leaves nothing.
# MAGNET_PKG_STEPS="install_destdir dist_manual_build" runs only the steps
# whose functions it names (the last word of each `step` line below).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top"
version=$(scripts/version.sh)
# the kernel lines with headers on this machine; a PREEMPT_RT build only in
# make check-all (MAGNET_CHECK_ALL=1), which keeps make check's time down
kvers=$(scripts/kernels.sh --host)
[ "${MAGNET_CHECK_ALL:-0}" = 1 ] || kvers=$(echo "$kvers" | grep -v -- '-rt-')
tmp=$(mktemp -d /tmp/magnet-pkg.XXXXXX)
pass=0
fail=0

cleanup() {
	make -s dkms-uninstall > /dev/null 2>&1
	for k in $kvers; do
		make -s uninstall-ttprobe-compat KVER="$k" > /dev/null 2>&1
	done
	rm -rf "$tmp"
}
trap cleanup EXIT

# step NAME CMD...: one test; a failed one's last lines are printed again
# at the end, so the tail of a CI log names what failed and why
step() {
	local name=$1 log=$tmp/step.log rc
	shift
	# MAGNET_PKG_STEPS: only the steps whose functions it names
	if [ -n "${MAGNET_PKG_STEPS:-}" ]; then
		case " $MAGNET_PKG_STEPS " in
		*" $1 "*) ;;
		*) echo "--- pkg: $name: not picked (MAGNET_PKG_STEPS)"; return ;;
		esac
	fi
	echo "--- pkg: $name"
	# set -e in the subshell stops the step at its first failing command;
	# the pipeline must not stand in an if's condition, where bash ignores
	# set -e, in the subshell too (then only a step's last command counted)
	(set -e; "$@") 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" = 0 ]; then
		pass=$((pass + 1))
		echo "--- pkg: $name: ok"
	else
		fail=$((fail + 1))
		echo "--- pkg: $name: FAILED (status $rc)"
		{
			echo "pkg: FAILED: $name; its last lines:"
			tail -n 25 "$log" | sed 's/^/  | /'
		} >> "$tmp/recap"
	fi
}

leftovers() {
	find /lib/modules \( -name 'magnet.ko*' -o -name 'ttprobe.ko*' \) 2> /dev/null
	ls -d /usr/src/magnet-* /var/lib/dkms/magnet 2> /dev/null
	dkms status magnet 2> /dev/null
}

dkms_install_all() {
	local first k
	make -s dkms-uninstall > /dev/null 2>&1
	first=$(echo "$kvers" | head -n 1)
	make -s dkms-install KVER="$first" > "$tmp/dkms.log" 2>&1 || {
		cat "$tmp/dkms.log"
		return 1
	}
	for k in $kvers; do
		[ "$k" = "$first" ] && continue
		dkms build -m magnet -v "$version" -k "$k" >> "$tmp/dkms.log" 2>&1
		dkms install -m magnet -v "$version" -k "$k" >> "$tmp/dkms.log" 2>&1
	done
	dkms status magnet
	for k in $kvers; do
		dkms status magnet | grep -q "^magnet/$version, $k, x86_64: installed"
	done
}

vm_installed() {
	local k boot cases
	for k in $kvers; do
		make -s install-ttprobe-compat KVER="$k"
	done
	# make check boots the newest of them (DKMS built and installed for
	# every one above); make check-all boots each
	boot=$kvers
	[ "${MAGNET_CHECK_ALL:-0}" = 1 ] || boot=$(echo "$kvers" | tail -n 1)
	# vCPUs taking turns on one host thread: modprobe patches code while
	# traffic runs, which under multi-threaded TCG can trap in the
	# emulator ("Oops: int3", tests/vm/run.sh); 6.12 has also died so at
	# boot with no module loaded
	cases=$(tests/vm/suite.sh pkg)
	[ -n "$cases" ]
	MAGNET_TEST_CASES=$(echo $cases) \
		MAGNET_VM_BUILD=0 MAGNET_VM_QEMU_OPTS="-accel tcg,thread=single" \
		MAGNET_VM_OUT="$top/build/vm-pkg" tests/vm/run.sh $boot
}

dkms_remove_clean() {
	local left
	make -s dkms-uninstall
	for k in $kvers; do
		make -s uninstall-ttprobe-compat KVER="$k"
	done
	left=$(leftovers)
	if [ -n "$left" ]; then
		echo "left behind after removal:"
		echo "$left"
		return 1
	fi
	echo "no magnet files left in /lib/modules, /usr/src, /var/lib/dkms"
}

# The files `make install` puts under DESTDIR (docs/install.md, "Installing").
expected_files() {
	cat <<-EOF
	./lib/modules/$1/updates/magnet.ko
	./usr/local/bin/magnet-exp
	./usr/local/bin/magnet-monarch-proxy
	./usr/local/bin/magnet-record
	./usr/local/bin/magnet-summary
	./usr/local/bin/ttpb2ascii
	./usr/local/lib/magnet/python/magnet_exp/__init__.py
	./usr/local/lib/magnet/python/magnet_exp/__main__.py
	./usr/local/lib/magnet/python/magnet_exp/analyse.py
	./usr/local/lib/magnet/python/magnet_exp/cli.py
	./usr/local/lib/magnet/python/magnet_exp/clocks.py
	./usr/local/lib/magnet/magnet-pass
	./usr/local/lib/magnet/python/magnet_exp/compare.py
	./usr/local/lib/magnet/python/magnet_exp/cpass.py
	./usr/local/lib/magnet/python/magnet_exp/delivery.py
	./usr/local/lib/magnet/python/magnet_exp/export.py
	./usr/local/lib/magnet/python/magnet_exp/limits.py
	./usr/local/lib/magnet/python/magnet_exp/modulation.py
	./usr/local/lib/magnet/python/magnet_exp/monarch.py
	./usr/local/lib/magnet/python/magnet_exp/monarchdiag.py
	./usr/local/lib/magnet/python/magnet_exp/plots.py
	./usr/local/lib/magnet/python/magnet_exp/remote.py
	./usr/local/lib/magnet/python/magnet_exp/report.py
	./usr/local/lib/magnet/python/magnet_exp/run.py
	./usr/local/lib/magnet/python/magnet_exp/spec.py
	./usr/local/lib/magnet/python/magnet_exp/stacks.py
	./usr/local/lib/magnet/python/magnet_exp/stats.py
	./usr/local/lib/magnet/python/magnet_exp/textlog.py
	./usr/local/lib/magnet/python/magnet_exp/view.py
	./usr/local/share/doc/magnet/README.md
	./usr/local/share/doc/magnet/examples/experiments/cc-compare.toml
	./usr/local/share/doc/magnet/examples/experiments/relays.toml
	./usr/local/share/doc/magnet/examples/experiments/testbed.toml
	./usr/local/share/doc/magnet/examples/modprobe.d/magnet.conf
	./usr/local/share/doc/magnet/procfs-commands.md
	./usr/local/share/doc/magnet/python/README.md
	$(cd "$top" && git ls-files 'docs/*.md' 'docs/*.png' | sed 's|^|./usr/local/share/doc/magnet/|')
	./usr/local/share/man/man1/magnet-monarch-proxy.1
	./usr/local/share/man/man1/magnet-record.1
	./usr/local/share/man/man1/magnet-summary.1
	./usr/local/share/man/man1/ttpb2ascii.1
	.$(tshark -G folders 2>/dev/null | sed -n 's/^Global Lua Plugins:[[:space:]]*//p')/magnet.lua
	EOF
}

install_destdir() {
	local k d
	k=$(echo "$kvers" | tail -n 1)
	d=$tmp/destdir
	make -s install DESTDIR="$d" KVER="$k" > "$tmp/install.log" 2>&1 || {
		cat "$tmp/install.log"
		return 1
	}
	(cd "$d" && find . -type f | sort) > "$tmp/installed"
	expected_files "$k" | sort > "$tmp/expected"
	diff -u "$tmp/expected" "$tmp/installed"
	# every link from one installed document to another resolves there
	python3 - "$d/usr/local/share/doc/magnet" <<-'PY'
	import os, re, sys
	top, bad, n = sys.argv[1], [], 0
	for dp, _, fs in os.walk(top):
	    for f in fs:
	        if not f.endswith('.md'):
	            continue
	        p = os.path.join(dp, f)
	        for t in re.findall(r'\]\(([^)#\s]+\.md)(?:#[^)]*)?\)', open(p).read()):
	            if '://' in t:
	                continue
	            n += 1
	            if not os.path.exists(os.path.normpath(os.path.join(dp, t))):
	                bad.append('%s: %s' % (os.path.relpath(p, top), t))
	print('installed docs: %d links between them, %d that do not resolve' % (n, len(bad)))
	for b in bad:
	    print('  ' + b)
	sys.exit(1 if bad or not n else 0)
	PY
	modinfo -F version "$d/lib/modules/$k/updates/magnet.ko" | grep -qx "$version"
	"$d/usr/local/bin/ttpb2ascii" --version | grep -q "$version"
	# the installed magnet-exp finds its package and the installed decoder
	"$d/usr/local/bin/magnet-exp" analyse --help | grep -q "trace verdict"
	make -s uninstall DESTDIR="$d" KVER="$k"
	left=$(cd "$d" && find . -type f)
	[ -z "$left" ] || { echo "left after uninstall: $left"; return 1; }
	echo "install/uninstall: exactly $(wc -l < "$tmp/expected") files"
}

dist_manual_build() {
	local k root
	make -s dist > /dev/null
	for k in $kvers; do
		rm -rf "$tmp/dist"
		mkdir -p "$tmp/dist"
		tar -xzf "build/magnet-$version.tar.gz" -C "$tmp/dist"
		make -s -j"$(nproc)" -C "$tmp/dist/magnet-$version" KVER="$k" > "$tmp/dist.log" 2>&1 || {
			cat "$tmp/dist.log"
			return 1
		}
		root=$tmp/root-$k
		mkdir -p "$root/lib/modules/$k/extra"
		cp "$tmp/dist/magnet-$version/module/magnet.ko" "$root/lib/modules/$k/extra/"
		depmod -b "$root" "$k" 2> /dev/null
		grep -q '^extra/magnet.ko:' "$root/lib/modules/$k/modules.dep"
		modinfo -F vermagic "$root/lib/modules/$k/extra/magnet.ko" | grep -q "^$k "
		echo "dist tarball builds for $k and depmod finds extra/magnet.ko"
	done
}

# the tracked files of this checkout, as a fresh clone has them (with any
# uncommitted edits), without build products
clone_tree() {
	mkdir -p "$1"
	git ls-files -z | tar -cf - --null -T - | tar -xf - -C "$1"
}

# DKMS matches BUILD_EXCLUSIVE_KERNEL with bash's =~: it must take every
# kernel line this machine tests (scripts/kernels.sh, build roots included)
# and the releases compat.h takes, and refuse those compat.h refuses
dkms_conf_kernels() {
	local re k bad=0
	re=$(sed -n 's/^BUILD_EXCLUSIVE_KERNEL="\(.*\)"$/\1/p' dkms.conf)
	[ -n "$re" ] || { echo "no BUILD_EXCLUSIVE_KERNEL in dkms.conf"; return 1; }
	for k in $(scripts/kernels.sh) 5.10.250-1-amd64 6.1.0-99-rt-amd64 6.19.3 7.2.13+deb14-amd64 8.0.1 10.1.0; do
		[[ $k =~ $re ]] || { echo "refuses $k, which magnet supports"; bad=1; }
	done
	for k in 4.19.0-27-amd64 5.4.0 5.9.16 5.11.0 5.15.0-91-generic 5.19.17 6.0.19; do
		[[ $k =~ $re ]] && { echo "takes $k, which compat.h refuses"; bad=1; }
	done
	[ $bad = 0 ] && echo "BUILD_EXCLUSIVE_KERNEL takes $(scripts/kernels.sh | tr '\n' ' ')and refuses 4.19-5.9 and 5.11-6.0"
	return $bad
}

dkms_conf_version() {
	local v
	v=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' dkms.conf)
	[ "$v" = "$version" ] || {
		echo "dkms.conf says PACKAGE_VERSION=\"$v\", module/magnet.h says $version"
		return 1
	}
	echo "dkms.conf version $v = MAGNET_VERSION"
}

dkms_install_dot() {
	local k src=$tmp/clone
	make -s dkms-uninstall > /dev/null 2>&1
	clone_tree "$src"
	# the first kernel, which adds the tree (dkms_install_all has built
	# and installed on every one, each after the first by name, as
	# docs/install.md says: one build here keeps make check's time)
	for k in $(echo "$kvers" | sed -n '1p'); do
		if dkms status magnet | grep -q .; then
			dkms install "magnet/$version" -k "$k"
		else
			(cd "$src" && dkms install . -k "$k")
		fi > "$tmp/dkms-dot.log" 2>&1 || {
			cat "$tmp/dkms-dot.log"
			return 1
		}
		dkms status magnet | grep -q "^magnet/$version, $k, x86_64: installed"
		modinfo -F version "$(find "/lib/modules/$k/updates/dkms" -name 'magnet.ko*' | head -n 1)" |
			grep -qx "$version"
	done
	dkms status magnet
	dkms_remove_clean
}

step "dkms.conf version equals MAGNET_VERSION" dkms_conf_version
step "dkms.conf BUILD_EXCLUSIVE_KERNEL: the tested lines, not the others" dkms_conf_kernels
step "dkms add/build/install on $(echo $kvers)" dkms_install_all
step "VM: modprobe magnet (DKMS) and modprobe ttprobe (compat)" vm_installed
step "dkms remove leaves nothing" dkms_remove_clean
step "dkms install . from a clone, on $(echo "$kvers" | sed -n '1p')" dkms_install_dot
step "make install/uninstall DESTDIR" install_destdir
step "make dist builds with the manual steps" dist_manual_build
[ -s "$tmp/recap" ] && cat "$tmp/recap"
echo "pkg: $pass passed, $fail failed"
[ "$fail" = 0 ]
